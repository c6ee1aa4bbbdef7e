"""`skyjo-lan replay` shows the game before the check is done and says the verdict when it has
it (issue 29, point 4): the steps are published while the frames are replayed, before the
verdict's check runs, and they are the steps the checked replay gives."""

from __future__ import annotations

from pathlib import Path

from client.ui.caps import Caps
from client.ui.render import render
from client.ui.replay import Replay, ReplayUI, load_replay, replay_beside_check
from tests.client.ui.test_round_end_and_replay import forged, saved  # noqa: F401  (the fixture)


def _watch(path: Path) -> tuple[Replay, list[tuple[int, bool, str]]]:
    seen: list[tuple[int, bool, str]] = []
    holder: list[Replay] = []

    def progress(done: int, total: int) -> None:
        shown = holder[0]
        if shown.steps and not any(steps for steps, _, _ in seen):
            first = "\n".join(render(ReplayUI(shown, "en").screen(), 80, 24, Caps()).text())
            seen.append((len(shown.steps), shown.checked, first))

    replay = replay_beside_check(str(path), holder.append, progress)
    assert holder == [replay]
    return replay, seen


def test_the_first_screen_comes_before_the_verdict(saved: bytes, tmp_path: Path) -> None:  # noqa: F811
    path = tmp_path / "game.skyjo"
    path.write_bytes(saved)
    replay, seen = _watch(path)
    [(steps, checked, first)] = seen
    assert steps >= 1 and not checked  # shown while the check was still to come
    assert "Replay · Checking the saved game · 1/" in first
    assert replay.checked and replay.fault is None
    whole = load_replay(saved)
    assert [(s.log_len, s.round, s.ended) for s in replay.steps] == [
        (s.log_len, s.round, s.ended) for s in whole.steps
    ]
    last = "\n".join(render(ReplayUI(replay, "en").screen(), 80, 24, Caps()).text())
    assert "Checking the saved game" not in last
    assert "Replay · verified · 1/" in last  # the verdict said, not only the check's mark gone
    assert "verified" not in first


def test_an_invalid_file_gets_its_verdict_after_its_steps(saved: bytes, tmp_path: Path) -> None:  # noqa: F811
    path = tmp_path / "forged.skyjo"
    path.write_bytes(forged(saved))
    replay, seen = _watch(path)
    assert seen and not seen[0][1] and "INVALID" not in seen[0][2]
    assert replay.checked and replay.fault is not None
    assert len(replay.steps) == len(load_replay(forged(saved)).steps)
    screen = "\n".join(render(ReplayUI(replay, "en").screen(), 80, 24, Caps()).text())
    assert "Replay · INVALID · 1/" in screen
    assert "verified" not in screen
