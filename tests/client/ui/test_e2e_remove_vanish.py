"""Issue 30 point 5 on real processes: a program that proposed a removal and vanished before it
could confirm does not stop the game (PROTOCOL.md 10.9, "Removing a player", "A silent seat").

A LAN table on loopback, insured (three programs): ana hosts with the screen, ben joins with the
screen, cat joins headless (a bot). ben presses `K` and proposes to remove cat; once ana's screen
shows the proposal, ben's program is killed (kill -9): its agreement is out, its confirmation
never comes. ana agrees with `y`, so her program confirms and waits for ben's answer. The steps'
own waits are long here (a move: 10 minutes), so only the proposal's timer
(`remove:<owner>:<attempt>`, 8 s by $SKYJO_LAN_REMOVAL_TIMEOUT) can move anything: in ana's
program (it confirmed) and in cat's (the program the proposal is about) it runs out with nothing
of ben's for a whole wait, and each votes that ben's program vanished. The table plays ben's
seat, the proposal is over (cat stays), and ana plays the game to its end with a bot in ben's
seat. Before this rule the game stopped: "ben did not answer in time (the table could not agree
on a removal)".

Every wait is bounded and waits for what the screens show; nothing depends on which program is
faster."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from .pty_driver import on_screen, three_programs
from .test_e2e_remove import SHORT, _play_until, _propose, _verify

ENV = {
    "SKYJO_LAN_STEP_TIMEOUT": "300",
    "SKYJO_LAN_MOVE_TIMEOUT": "600",
    "SKYJO_LAN_REMOVAL_TIMEOUT": "8",
}
"""The steps' waits far longer than the test (no vote comes from them); a proposal's timer 8 s."""

PROPOSAL = "ben proposes to remove cat (1 of 2 agree): y to agree, n to refuse."
BOT = "A bot plays ben's seat"
STAYS = "cat stays: not every player"


def test_issue30_5_a_proposer_killed_before_it_confirmed_is_played_by_the_table(tmp_path: Path) -> None:
    with three_programs(tmp_path, ENV, grace=60, options=SHORT) as table:
        host, guest, cat = table.host, table.guest, table.cat
        _propose([host, guest], guest)
        on_screen([host, guest], lambda t: PROPOSAL in t, host, 30, "ben's proposal on ana's screen")
        os.kill(guest.child.pid, signal.SIGKILL)  # ben's program is gone: it never confirms
        guest.child.wait()
        host.send("y")  # ana agrees, so her program confirms and waits for ben's answer
        told_all = [False, False]

        def played_on() -> bool:
            text = host.text
            told_all[0] = told_all[0] or BOT in text
            told_all[1] = told_all[1] or STAYS in text
            return all(told_all)

        _play_until([host], played_on, 120, "a bot in ben's seat and the proposal over on ana's screen")
        assert "could not agree on a removal" not in host.text, host.text
        assert cat.poll() is None, table.told.read_text()

        _play_until([host], lambda: "Game over" in host.text, 180, "the end of the game")
        text = host.text
        assert "cheated" not in text and "broke the protocol" not in text, text
        host.close()
        said = table.told.read_text(encoding="utf-8", errors="replace")
        assert "Traceback" not in said and "removed you" not in said, said
        games = tmp_path / "host" / "data" / "skyjo-lan" / "games"
        (path,) = sorted(games.glob("*.skyjo"))
        verdict = _verify(path)
        assert "game finished" in verdict, verdict
        assert "(ben) (played by the table's bot: vanished)" in verdict, verdict
        assert "removed program" not in verdict, verdict
