"""Issue 28 point 3 in a terminal: the players present go on without a player whose program is
gone, with `g`, as soon as the table may (the first wait for it ran out with nothing of it).

A LAN table on loopback: ana hosts and ben joins, both with the screen; cat joins headless and is
killed (kill -9) once the cards are dealt. Both screens then offer "g: go on without cat now.",
each player presses `g`, is told what happens next, and a bot plays cat's seat on both screens.
Every wait is bounded and waits for what the screens show; both screens are read all along (a
program whose terminal is not read would stall)."""

from __future__ import annotations

import signal
import time
from pathlib import Path

from .pty_driver import Pty, ScreenTimeout, on_screen, three_programs

ENV = {"SKYJO_LAN_STEP_TIMEOUT": "15", "SKYJO_LAN_MOVE_TIMEOUT": "30"}
"""The two waits for cat, 15 s each: `g` is offered once the first ran out, and both players
press it during the second (15 s in which the screens are read every 50 ms), before the table
would vote by itself."""


OFFER = "g: go on without cat now."
KEYS = (  # what a player does at each prompt, until the table waits for cat
    ("of your cards face up", "enter"),  # the setup: the card under the cursor
    ("Your turn: take the top card", "1"),  # the draw pile
    ("choose the card", "2"),  # discard what was drawn
    ("Turn one of your face-down cards", "enter"),
)


def _play_until_both_go_on(screens: list[Pty], timeout: float = 180.0) -> None:
    """Both players play what the game asks of them, and each presses `g` once its screen offers
    it (the table waits for cat, whose first wait ran out). Bounded."""
    asked: set[int] = set()
    sent_at = [0.0] * len(screens)
    end = time.monotonic() + timeout
    while len(asked) < len(screens):
        if time.monotonic() > end:
            shown = "\n".join(screen.text for screen in screens)
            raise ScreenTimeout(f"no offer to go on on every screen; the screens:\n{shown}")
        for index, screen in enumerate(screens):
            screen.pump(0.05)
            text = screen.text
            if index in asked:
                continue
            if OFFER in text:
                screen.send("g")
                asked.add(index)
                continue
            if time.monotonic() - sent_at[index] < 1.0:
                continue  # (give the last key time to show)
            for prompt, key in KEYS:
                if prompt in text:
                    screen.send(key)
                    sent_at[index] = time.monotonic()
                    break


def test_issue28_3_g_goes_on_without_a_player_whose_program_is_gone(tmp_path: Path) -> None:
    with three_programs(tmp_path, ENV, grace=300) as table:
        host, guest, cat = table.host, table.guest, table.cat
        screens = [host, guest]
        cat.send_signal(signal.SIGKILL)  # its program is gone: no word of it any more
        cat.wait(timeout=30)
        _play_until_both_go_on(screens)
        for screen in (host, guest):
            on_screen(
                screens, lambda t: "You asked to go on without cat" in t, screen, 30, "what happens next"
            )
        bot = "A bot plays cat's seat from now on"
        for screen in (host, guest):
            on_screen(screens, lambda t: bot in t, screen, 60, "the bot in cat's seat")
