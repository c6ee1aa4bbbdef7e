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
import re
import signal
import subprocess
import sys
from pathlib import Path

from .pty_driver import ROOT, Pty, lobby_address, on_screen, start_two_screens
from .test_e2e_remove import _play_until, _verify

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
    table = ["--seats", "3", "--grace", "60", "--no-mdns", "--interface", "127.0.0.1", "--name", "T"]
    options = ["--option", "target_score=1", "--option", "setup_reveals=10"]
    host = Pty(
        ["host", *table, *options, "--nick", "ana", "--lang", "en"], tmp_path / "host", cols=160, env=ENV
    )
    guest: Pty | None = None
    cat: subprocess.Popen[bytes] | None = None
    told = tmp_path / "cat.out"
    try:
        port = lobby_address(host)[1]
        joining = ["join", f"127.0.0.1:{port}", "--nick", "ben", "--lang", "en"]
        guest = Pty(joining, tmp_path / "ben", cols=160, env=ENV)
        with told.open("wb") as out:
            cat = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "client",
                    "join",
                    f"127.0.0.1:{port}",
                    "--nick",
                    "cat",
                    "--bot",
                    "greedy",
                ],
                cwd=ROOT,
                env={
                    "PATH": "/usr/bin:/bin",
                    "HOME": str(tmp_path / "cat"),
                    "XDG_DATA_HOME": str(tmp_path / "cat" / "data"),
                    "PYTHONPATH": str(ROOT),
                    "SKYJO_LAN_BOT_THINK": "0",
                    **ENV,
                },
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        screens = [host, guest]
        start_two_screens(host, guest, "cat")

        guest.send("K")
        shown = on_screen(screens, lambda t: re.search(r"(\d) +cat\b", t) is not None, guest, 30, "K's list")
        found = re.search(r"(\d) +cat\b", shown)
        assert found is not None, shown
        guest.send(found.group(1))
        on_screen(
            screens, lambda t: "Propose to remove cat from the game?" in t, guest, 30, "the confirmation"
        )
        guest.send("y")
        on_screen(screens, lambda t: PROPOSAL in t, host, 30, "ben's proposal on ana's screen")
        os.kill(guest.child.pid, signal.SIGKILL)  # ben's program is gone: it never confirms
        guest.child.wait()
        host.send("y")  # ana agrees, so her program confirms and waits for ben's answer
        screens = [host]
        told_all = [False, False]

        def played_on() -> bool:
            text = host.text
            told_all[0] = told_all[0] or BOT in text
            told_all[1] = told_all[1] or STAYS in text
            return all(told_all)

        _play_until(screens, played_on, 120, "a bot in ben's seat and the proposal over on ana's screen")
        assert "could not agree on a removal" not in host.text, host.text
        assert cat.poll() is None, told.read_text()

        _play_until(screens, lambda: "Game over" in host.text, 180, "the end of the game")
        text = host.text
        assert "cheated" not in text and "broke the protocol" not in text, text
        host.close()
        said = told.read_text(encoding="utf-8", errors="replace")
        assert "Traceback" not in said and "removed you" not in said, said
        games = tmp_path / "host" / "data" / "skyjo-lan" / "games"
        (path,) = sorted(games.glob("*.skyjo"))
        verdict = _verify(path)
        assert "game finished" in verdict and "(ben) (played by the table's bot: vanished)" in verdict, (
            verdict
        )
        assert "removed program" not in verdict, verdict
    finally:
        host.close()
        if guest is not None:
            guest.close()
        if cat is not None and cat.poll() is None:
            cat.kill()
