"""Where the log goes (issue 15, point 2) and the line Ctrl-C ends with (point 4)."""

from __future__ import annotations

import logging
import logging.handlers
from collections.abc import Iterator
from pathlib import Path

import pytest

from client import logs


@pytest.fixture(autouse=True)
def _clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    logs.reset()
    yield
    logs.reset()


def test_the_log_file_is_under_the_state_directory(tmp_path: Path) -> None:
    path = logs.setup("join")
    assert path is not None and path.parent == tmp_path / "state" / "skyjo-lan" / "logs"
    assert path.name.startswith("join-") and path.suffix == ".log"
    logging.getLogger("skyjo_lan.test").info("hello file")
    assert "hello file" in path.read_text()
    assert logs.log_hint() == f" (log: {path})"


def test_the_default_state_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert logs.log_dir() == tmp_path / ".local" / "state" / "skyjo-lan" / "logs"


def test_the_file_is_bounded() -> None:
    path = logs.setup("host")
    assert path is not None
    handler = next(
        h for h in logging.getLogger().handlers if isinstance(h, logging.handlers.RotatingFileHandler)
    )
    assert handler.maxBytes == logs.MAX_BYTES and handler.backupCount == logs.BACKUPS


def test_stderr_until_the_screen_takes_the_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    logs.setup("host", verbose=True)
    logging.getLogger("skyjo_lan.test").info("before the screen")
    logs.screen_owns_terminal()
    logging.getLogger("skyjo_lan.test").warning("under the screen")
    err = capsys.readouterr().err
    assert "before the screen" in err and "under the screen" not in err
    path = logs.log_path()
    assert path is not None and "under the screen" in path.read_text()


def test_without_verbose_only_warnings_reach_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    logs.setup("join")
    logging.getLogger("skyjo_lan.test").info("quiet")
    logging.getLogger("skyjo_lan.test").warning("said")
    err = capsys.readouterr().err
    assert "quiet" not in err and "said" in err


def test_an_unwritable_state_directory_falls_back_to_stderr(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocker))
    assert logs.setup("host") is None
    assert logs.log_hint() == ""


def test_interrupts_inside_exception_groups() -> None:
    assert logs.is_interrupt(KeyboardInterrupt())
    group = BaseExceptionGroup("x", [BaseExceptionGroup("y", [KeyboardInterrupt()]), ValueError()])
    assert logs.is_interrupt(group)
    assert not logs.is_interrupt(BaseExceptionGroup("x", [ValueError()]))


def test_the_interrupted_line_says_where_the_game_is_saved(tmp_path: Path) -> None:
    logs.setup("play")
    assert logs.interrupted("play") == "skyjo-lan play: Interrupted"
    logs.note_saved(tmp_path / "a.skyjo")
    logs.note_saved(tmp_path / "b.skyjo")
    assert (
        logs.interrupted("play")
        == f"skyjo-lan play: Interrupted: the game is saved in {tmp_path / 'a.skyjo'}"
    )


def test_ctrl_c_in_a_network_game_says_how_to_come_back(tmp_path: Path) -> None:
    """Issue 28, point 2: the table plays on; the line gives the command that brings the player back."""
    logs.setup("join")
    assert logs.interrupted("join") == "skyjo-lan join: Interrupted"  # no game yet: nothing to resume
    logs.note_saved(tmp_path / "a.skyjo")
    line = logs.interrupted("join")
    assert line.startswith(f"skyjo-lan join: Interrupted: the game is saved in {tmp_path / 'a.skyjo'}")
    assert "`skyjo-lan join --resume` brings you back to your seat" in line
    assert "`skyjo-lan host --resume`" in logs.interrupted("host")
    assert "--resume" not in logs.interrupted("play")
