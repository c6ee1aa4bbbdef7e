"""Issue 30 point 5 in a terminal: removing a player during a game, on real processes.

A LAN table on loopback, insured (three programs): ana hosts and ben joins, both with the screen;
cat joins headless (a bot, its program present all along). ana presses `K`, chooses cat and
confirms; ben's screen shows the proposal and ben does not answer: the proposal's timer
(`remove:<owner>:<attempt>`, shortened by $SKYJO_LAN_REMOVAL_TIMEOUT) fires in the real programs,
the proposal is over on both screens, nothing is taken over and cat plays on. ana proposes again
and ben agrees with `y`: the table removes cat, both screens say a bot plays cat's seat, cat's
program stops saying the table removed it, the game is played to its end, and the three saved
games verify with nobody to blame.

Every wait is bounded and waits for what the screens show; both screens are read all along (a
program whose terminal is not read would stall); nothing depends on which program is faster."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from .pty_driver import ROOT, Pty, ScreenTimeout, on_screen, three_programs

ENV = {
    "SKYJO_LAN_STEP_TIMEOUT": "15",
    "SKYJO_LAN_MOVE_TIMEOUT": "60",
    "SKYJO_LAN_REMOVAL_TIMEOUT": "8",
}
"""Short waits, as in test_e2e_go_on (a move: 60 s, longer than the players sit still while a
proposal stands); a proposal stands 8 s instead of the table's grace (300)."""

SHORT = ("--option", "target_score=1", "--option", "setup_reveals=10")
"""A short SKYJO: one round, ten cards face up at the setup."""

PROPOSAL = "ana proposes to remove cat (1 of 2 agree): y to agree, n to refuse."
STAYS = "cat stays: not every player"  # (the log's lines are cut at its width)
REMOVED = "The table removed cat"
BOT = "A bot plays cat's seat"
CAT_MOVED = re.compile(r"\bcat (drew|took) ")
KEYS = (  # what a player does at each prompt
    ("of your cards face up", "enter"),  # the setup: the card under the cursor
    ("Your turn: take the top card", "1"),  # the draw pile
    ("choose the card", "2"),  # discard what was drawn
    ("Turn one of your face-down cards", "enter"),
    ("any key: the result", "enter"),  # the round's own screen
)


def _play_until(screens: list[Pty], done: Callable[[], bool], timeout: float, what: str) -> None:
    """Both players play what the game asks of them until `done` (checked after every read)."""
    sent_at = [0.0] * len(screens)
    end = time.monotonic() + timeout
    while not done():
        if time.monotonic() > end:
            shown = "\n".join(screen.text for screen in screens)
            raise ScreenTimeout(f"waited {timeout}s for {what}; the screens:\n{shown}")
        for index, screen in enumerate(screens):
            screen.pump(0.05)
            if time.monotonic() - sent_at[index] < 0.7:
                continue  # (give the last key time to show)
            text = screen.text
            for prompt, key in KEYS:
                if prompt in text:
                    screen.send(key)
                    sent_at[index] = time.monotonic()
                    break


LEAVING = (  # from the end of the game to the end of the program
    ("Leave the table?", "y"),
    ("Ready for another?", "q"),  # the lobby between games
    ("back to the lobby", "q"),  # the result
    ("any key: the result", "enter"),  # the last round's own screen
)


def _leave(screens: list[Pty], screen: Pty, timeout: float = 60.0) -> None:
    """From the end of the game, `screen`'s player leaves the table; its program ends. Bounded."""
    end = time.monotonic() + timeout
    sent: tuple[str, float] = ("", 0.0)
    while screen.child.isalive():
        if time.monotonic() > end:
            raise ScreenTimeout(f"the program did not end; the screen:\n{screen.text}")
        for each in screens:
            each.pump(0.05)
        text = screen.text
        for prompt, key in LEAVING:
            if prompt in text:
                if sent[0] != prompt or time.monotonic() - sent[1] > 5.0:
                    screen.send(key)
                    sent = (prompt, time.monotonic())
                break


def _propose(screens: list[Pty], proposer: Pty) -> None:
    """`proposer`'s player: `K`, the digit shown for cat, `y`."""
    proposer.send("K")
    shown = on_screen(screens, lambda t: re.search(r"(\d) +cat\b", t) is not None, proposer, 30, "K's list")
    assert "Remove a player" in shown and "only if every other player" in shown
    found = re.search(r"(\d) +cat\b", shown)
    assert found is not None
    proposer.send(found.group(1))
    asked = "Propose to remove cat from the game?"
    on_screen(screens, lambda t: asked in t, proposer, 30, "the confirmation")
    proposer.send("y")
    on_screen(screens, lambda t: "You proposed to remove cat" in t, proposer, 30, "the proposal made")


def _verify(path: Path) -> str:
    verdict = subprocess.run(
        [sys.executable, "-m", "client", "verify", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert verdict.returncode == 0, verdict.stdout + verdict.stderr
    assert verdict.stdout.startswith("valid"), verdict.stdout
    assert "blame" not in verdict.stdout and "cheat" not in verdict.stdout, verdict.stdout
    return verdict.stdout


def test_issue30_5_a_proposal_expires_then_the_table_removes_a_player(tmp_path: Path) -> None:
    with three_programs(tmp_path, ENV, grace=300, options=SHORT) as table:
        host, guest, cat, told = table.host, table.guest, table.cat, table.told
        screens = [host, guest]

        # a. nobody answers: the proposal's timer fires in both programs, cat stays
        _propose(screens, host)
        on_screen(screens, lambda t: PROPOSAL in t, guest, 30, "the proposal on ben's screen")
        for screen in (host, guest):
            on_screen(screens, lambda t: STAYS in t, screen, 60, "the proposal over (its timer)")
        for screen in (host, guest):
            text = screen.text
            assert PROPOSAL not in text and "Removing cat" not in text, text
            assert BOT not in text and REMOVED not in text, text
        assert cat.poll() is None, told.read_text()
        seen = [False, False]

        def cat_moved() -> bool:
            for index, screen in enumerate(screens):
                seen[index] = seen[index] or CAT_MOVED.search(screen.text) is not None
            return any(seen)

        _play_until(screens, cat_moved, 120, "a move of cat after the proposal")  # cat plays on
        assert all(BOT not in screen.text for screen in screens)

        # b. ben agrees: the table removes cat, a bot plays its seat
        _propose(screens, host)
        on_screen(screens, lambda t: PROPOSAL in t, guest, 30, "the new proposal on ben's screen")
        guest.send("y")
        told_all = [[False, False], [False, False]]  # per screen: the removal, the bot

        def removed() -> bool:
            for index, screen in enumerate(screens):
                told_all[index][0] = told_all[index][0] or REMOVED in screen.text
                told_all[index][1] = told_all[index][1] or BOT in screen.text
            return all(all(flags) for flags in told_all)

        _play_until(screens, removed, 90, "the removal and the bot in cat's seat on both screens")
        on_screen(screens, lambda t: cat.poll() is not None, host, 60, "cat's program to stop")
        assert cat.returncode in (0, 1), cat.returncode  # (1: its game stopped before the end)
        said = told.read_text(encoding="utf-8", errors="replace")
        assert "game stopped: the table removed cat: every other player agreed" in said, said
        assert "Traceback" not in said, said

        def over() -> bool:
            return all("Game over" in screen.text for screen in screens)

        _play_until(screens, over, 120, "the end of the game")
        for screen in screens:
            text = screen.text
            assert "cheated" not in text and "broke the protocol" not in text, text
        for screen in (guest, host):  # ben leaves, then ana closes the table
            _leave(screens, screen)
        for screen in screens:
            assert screen.finish(30) == 0, screen.text
            raw = screen.raw.decode("utf-8", "replace")
            assert "Traceback" not in raw and "ExceptionGroup" not in raw, raw[-2000:]
        said = told.read_text(encoding="utf-8", errors="replace")
        for line in (
            "ana (seat 1) proposes to remove you from the game (every other player must agree).",
            "You stay: not every player agreed to the removal.",
            "The table removed you: every other player agreed.",
        ):
            assert line in said, said
        games = {who: tmp_path / who / "data" / "skyjo-lan" / "games" for who in ("host", "ben", "cat")}
        files = {who: sorted(folder.glob("*.skyjo")) for who, folder in games.items()}
        assert all(len(found) == 1 for found in files.values()), files
        for who, (path,) in files.items():
            verdict = _verify(path)
            # (cat's seat is the one it joined: 2 or 3, whichever program was seated first)
            agreed = re.search(r"seats 1, (\d) removed program (\d) from the game \(all agreed\)", verdict)
            assert agreed is not None and {agreed.group(1), agreed.group(2)} == {"2", "3"}, verdict
            if who == "cat":  # its file stops where the table removed it
                assert "game unfinished" in verdict, verdict
            else:
                assert "game finished" in verdict, verdict
                bot = f"seat {agreed.group(2)} (cat) (played by the table's bot: removed)"
                assert bot in verdict, verdict
