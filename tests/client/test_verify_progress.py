"""`skyjo-lan verify` shows its progress on a terminal for long files (issue 29, point 4), and
says nothing more when standard error is not a terminal."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from client import cli
from client.storage import verify_file
from tests.client.saved_games import play


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("progress") / "game.skyjo"
    path.write_bytes(play("skyjo", ("Anna", "Ben")).data)  # a SKIP-BO game can end in 66 frames
    return path


def test_the_replay_reports_its_progress(saved: Path) -> None:
    calls: list[tuple[int, int]] = []
    verdict = verify_file(saved, progress=lambda done, total: calls.append((done, total))).verdict
    assert verdict.valid
    total = calls[-1][1]
    assert calls[-1] == (total, total) and total > 100
    assert [done for done, _ in calls[:-1]] == list(range(100, total + 1, 100))[: len(calls) - 1]


def test_verify_shows_a_progress_line_on_a_terminal(
    saved: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli._VerifyProgress, "SHOW_FROM", 10)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert cli.main(["verify", str(saved)]) == 0
    shown = terminal.getvalue()
    assert "\rchecking: 100 of " in shown and " frames (" in shown
    assert shown.endswith("\r\x1b[K")  # erased before the verdict
    assert "checking:" not in capsys.readouterr().out


def test_no_progress_line_when_standard_error_is_no_terminal(
    saved: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli._VerifyProgress, "SHOW_FROM", 10)
    assert cli.main(["verify", str(saved)]) == 0
    assert "checking:" not in capsys.readouterr().err
