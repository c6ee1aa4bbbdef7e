"""`skyjo-lan play` in a real terminal: a whole SKYJO round by keystrokes, resizing, LANG=C."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .pty_driver import Pty


@pytest.fixture
def run(tmp_path: Path) -> Iterator:
    started: list[Pty] = []

    def start(*args: str, **kwargs: object) -> Pty:
        pty = Pty(args, tmp_path, **kwargs)  # type: ignore[arg-type]
        started.append(pty)
        return pty

    yield start
    for pty in started:
        pty.close()


def test_a_whole_round_by_keystrokes_then_the_score_sheet(run) -> None:
    pty = run(
        "play", "--bots", "3", "--lang", "en", "--option", "target_score=1", "--option", "setup_reveals=10"
    )
    pty.wait("Turn 10 of your cards face up", 90, "the setup prompt")
    pty.send(*["enter"] * 10)
    turns = 0
    while True:
        seen = pty.first(
            {
                "choose": lambda t: "Your turn: take the top card" in t,
                "drawn": lambda t: "You drew a" in t and "choose the card" in t,
                "flip": lambda t: "Turn one of your face-down cards" in t,
                "over": lambda t: "Game over" in t and ("win" in t or "any key: the result" in t),
            },
            timeout=90,
        )
        if seen == "over":
            break
        turns += 1
        assert turns < 40, pty.text
        if seen == "choose":
            pty.send("1")  # the draw pile
            pty.wait(lambda t: "Your turn: take the top card" not in t, 30, "the draw")
        elif seen == "drawn":
            pty.send("2")  # discard it ...
            pty.wait(lambda t: "You drew a" not in t or "Turn one of" in t, 30, "the discard")
        else:
            pty.send("enter")  # ... and turn the card under the cursor
            pty.wait(lambda t: "Turn one of your face-down cards" not in t, 30, "the flip")
    pty.send("s")
    sheet = pty.wait("Score sheet", 30)
    assert "Round 1" in sheet and "Total" in sheet
    assert "The lowest total wins." in sheet
    pty.send("esc")
    pty.wait(lambda t: "Score sheet" not in t, 30)
    pty.send("q")
    assert pty.finish() == 0


def test_too_small_then_back(run) -> None:
    pty = run("play", "--bots", "1", "--lang", "en", env={"NO_COLOR": "1"})
    pty.wait("? help", 30, "the table")
    pty.wait("Draw", 30)
    pty.resize(60, 20)
    small = pty.wait("Terminal too small", 30)
    assert "60×20" in small
    pty.resize(80, 24)
    table = pty.wait(lambda t: "Draw" in t and "Terminal too small" not in t, 30, "the table again")
    assert "? help" in table
    # NO_COLOR: nothing is coloured, only attributes (reverse video, bold) are used
    coloured = [
        (y, x)
        for y, row in pty.screen.buffer.items()
        for x, cell in row.items()
        if cell.fg != "default" or cell.bg != "default"
    ]
    assert not coloured
    pty.send("q", "y")
    assert pty.finish() == 0


@pytest.mark.parametrize(
    "env",
    [{"LANG": "C", "LC_ALL": "C"}, {"LANG": "zz_ZZ.UTF-8", "LC_ALL": "zz_ZZ.UTF-8"}],
    ids=["C", "a-locale-this-machine-lacks"],
)
def test_lang_c_draws_ascii_and_does_not_crash(run, env: dict[str, str]) -> None:
    pty = run("play", "--bots", "1", env=env)
    text = pty.wait(lambda t: "Turn 2 of your cards" in t and "+----+" in t, 30, "an ASCII table")
    assert all(ord(ch) < 128 for ch in text), text
    assert "? help" in text  # English: the C locale is not French
    pty.send("q", "y")
    assert pty.finish() == 0
