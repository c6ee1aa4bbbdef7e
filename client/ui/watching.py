"""`skyjo-lan watch` in the terminal: the players' game screen, read-only.

Until the game starts (or while the table is being found) plain lines say what happens; then the
game screen shows the public table as a player's screen does, without a hidden card (the
observer holds none), a prompt or a move key: the header says "watching TABLE (N players)", `?`
lists the players with their key fingerprints (to compare with the players' own), `q` quits at
once. The game over, the result stays until `q` (exit 0). The host gone, the screen
closes and one line says so (exit 1).
"""

from __future__ import annotations

import sys

import trio

from client.table.watch import Watcher, WatchOptions

from .caps import Caps
from .i18n import tr
from .run import run_game_ui
from .terminal import open_terminal


async def watch_with_screen(opts: WatchOptions, *, lang: str, caps: Caps) -> int:
    """Follow the table on the screen; the exit status (0: the game was over, or the person
    stopped watching; 1: the game stopped, or the host is gone)."""

    def say(line: str) -> None:
        print(line, flush=True)

    watcher = Watcher(opts, say)
    outcome = ""
    closed = False
    say(tr(lang, "watch.waiting"))
    async with trio.open_nursery() as nursery:

        async def follow() -> None:
            nonlocal outcome
            outcome = await watcher.run()

        nursery.start_soon(follow)
        await watcher.started.wait()
        watcher.say = _quiet
        runner = watcher.runner
        assert runner is not None
        banner = tr(lang, "watch.header", table=watcher.table or watcher.address, n=runner.config.players)
        async with open_terminal(caps) as terminal:
            await run_game_ui(
                runner,
                lang=lang,
                terminal=terminal,
                read_only=True,
                banner=banner,
                players=watcher.players,
            )
            closed = True
        nursery.cancel_scope.cancel()
    if closed and outcome in ("", "finished"):
        return 0
    if runner.status.halted:
        print(f"skyjo-lan watch: the game stopped: {runner.status.halted}", file=sys.stderr, flush=True)
    return 1


def _quiet(line: str) -> None:
    """While the screen owns the terminal, the spectator's lines go to the log only."""
    import logging

    logging.getLogger("skyjo_lan.watch").info("%s", line)
