"""`skyjo-lan play` in a real terminal, for issue 30: the rules page from the help, the end of a
round on its own screen, muting a player's chat."""

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


def test_help_then_the_rules_page_scrolls_and_closes(run) -> None:
    pty = run("play", "--game", "skyjo-action", "--bots", "1", "--lang", "en")
    pty.wait("? help", 60, "the table")
    pty.send("?")
    help_text = pty.wait("the rules of SKYJO ACTION", 30, "the help's rules line")
    assert "r " in help_text
    pty.send("r")
    page = pty.wait("Rules of SKYJO ACTION", 30, "the rules page")
    assert "GOAL" in page and "THE END OF A ROUND" not in page
    pty.send("pgdn", "pgdn", "pgdn")
    page = pty.wait("THE END OF A ROUND", 30, "the end of the page")
    assert "Steal and play" in page
    pty.send("esc")
    pty.wait(lambda t: "Rules of" not in t, 30, "the table again")
    pty.send("q")
    pty.wait("Leave the table?", 30)
    pty.send("y")
    pty.finish()
