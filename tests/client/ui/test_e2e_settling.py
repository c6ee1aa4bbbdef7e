"""Between two games, while the table waits for a program that lost the end (a real terminal,
pexpect + pyte, loopback only).

ana hosts a table of two that plays again; ben's headless program loses every frame after the
game's end on its screen (a test hook: its link dropped as the game ended), so ana's program
waits for it before her next lobby opens (`Mesh._wait_for_returning`, its bound 5 s here). She
presses q on the game-over screen: instead of the last game screen standing still, a box says
the game is over, that the lobby comes once the end is settled, and what the table waits for;
then the lobby opens. Pure rendering of the box is tested beside it.
"""

from __future__ import annotations

import os
from pathlib import Path

import trio

from client.table.peer import LogEntry, PeerRunner
from client.table.tablelog import TableLog
from client.ui.caps import Caps
from client.ui.settling import SettlingModel, render_settling, wait_lines

from .pty_driver import QUICK_TWO_SEATS, ROOT, at_game_over, headless_joiner, lobby_address, loopback_host

TAMPER = ROOT / "tests" / "client" / "tamper"


def test_a_person_back_to_the_lobby_sees_what_the_table_waits_for(tmp_path: Path) -> None:
    host = loopback_host(tmp_path / "host", *QUICK_TWO_SEATS, env={"SKYJO_LAN_CATCH_UP_WAIT": "5"})
    joiner = None
    try:
        _, port = lobby_address(host)
        deaf = {
            "PYTHONPATH": f"{TAMPER}{os.pathsep}{ROOT}",
            "SKYJO_LAN_TEST_DEAF_UNTIL": str(tmp_path / "never"),
        }
        joiner = headless_joiner(port, tmp_path / "joiner", "--games", "2", env=deaf)
        host.wait("s starts the game", 60, "ben seated")
        host.send("s")
        at_game_over(host)
        host.send("q")
        box = host.wait(
            lambda t: "Back to the lobby once this program's part" in t and "ben (seat 2) to catch up" in t,
            60,
            "the box while the table waits for ben",
        )
        assert "The game is over" in box and "q leave the table" in box, box
        lobby = host.wait("Ready for another?", 60, "the lobby once the wait is over")
        assert "game 1 over" in lobby, lobby
        host.send("q")
        host.wait("Leave the table?", 30)
        host.send("y")
        assert host.finish(60) == 0
    finally:
        host.close()
        if joiner is not None and joiner.poll() is None:
            joiner.kill()
            joiner.wait(10)


class _Runner:
    """The parts of `PeerRunner` its `tell_end_wait` touches."""

    def __init__(self) -> None:
        self.log: TableLog[LogEntry] = TableLog()
        self.end_wait: list[str] = []
        self.changed = trio.Event()

    def notify(self) -> None:
        self.changed.set()


def test_the_box_shows_the_waits_lines_and_fits_small_and_ascii_terminals() -> None:
    runner = _Runner()
    runner.log.append(LogEntry("info", text="round 3 signed by every seat"))
    tell = PeerRunner.tell_end_wait
    tell(runner, "waiting up to 60 s for p3 (seat 3) to catch up with the end of the game")  # type: ignore[arg-type]
    runner.log.append(LogEntry("info", text="something else"))
    tell(runner, "p3 (seat 3): no goodbye within 60 s; leaving the table")  # type: ignore[arg-type]
    lines = wait_lines(runner)
    assert lines == [
        "waiting up to 60 s for p3 (seat 3) to catch up with the end of the game",
        "p3 (seat 3): no goodbye within 60 s; leaving the table",
    ]
    assert [entry.text for entry in runner.log][-1] == lines[-1]  # the game's log says it too
    text = "\n".join(render_settling(SettlingModel("en", lines), 80, 24, Caps()).text())
    assert "The game is over" in text and "q leave the table" in text, text
    assert "p3 (seat 3) to catch up" in text and "no goodbye within 60 s" in text, text
    french = "\n".join(render_settling(SettlingModel("fr", []), 80, 24, Caps()).text())
    assert "La partie est finie" in french and "q quitter la table" in french, french
    assert "Retour au salon" in french, french
    # a table that does not play again: no lobby follows, the program ends
    alone = "\n".join(render_settling(SettlingModel("en", [], lobby=False), 80, 24, Caps()).text())
    assert "This program ends once the game's last signatures are in." in alone, alone
    assert "lobby" not in alone, alone
    for width, height in ((20, 6), (40, 10), (200, 60)):
        frame = render_settling(SettlingModel("de", lines), width, height, Caps(unicode=False))
        assert len(frame.lines) == height
        assert all(ord(ch) < 128 for line in frame.text() for ch in line), frame.text()
