"""`skyjo-lan play`: a table on this machine, you against bots, over the real protocol."""

from __future__ import annotations

import os
import sys
from typing import Any

import trio

from client.logs import interrupted, is_interrupt
from skyjo_p2p.bots import make_bot
from skyjo_p2p.engine import new_game

from .caps import detect_caps, detect_lang
from .i18n import tr

BOT_NAMES = ("Ada", "Bob", "Cyd", "Dot", "Eve", "Fay", "Gil")
THINK_ENV = "SKYJO_LAN_BOT_THINK"
"""Seconds a bot waits before each move (default 0.5): a hidden setting for tests and the impatient."""


def think_time() -> float:
    try:
        return max(0.0, float(os.environ.get(THINK_ENV, "0.5")))
    except ValueError:
        return 0.5


def bot_level(level: str, game: str) -> tuple[str, bool]:
    """The level to use, and whether the asked one does not exist for this game yet."""
    try:
        make_bot(level, game, "probe")
        return level, False
    except ValueError:
        return "random", True


def login_name() -> str:
    """The login name, as a name at the table ("player" when there is none)."""
    import getpass

    try:
        return getpass.getuser().strip()[:32] or "player"
    except (OSError, KeyError, ImportError):
        return "player"


def player_name(given: str | None, language: str) -> str:
    """The name saved in the game for the person: `--name`, else the name stored with the identity,
    else asked on the first run (Enter keeps the login name) and stored for the next games."""
    from client.storage import store_name, stored_name

    name = (given or "").strip()[:32]
    stored = stored_name()
    if not name and stored:
        return stored[:32]
    if not name:
        default = login_name()
        try:
            name = input(tr(language, "play.ask_name", default=default)).strip()[:32] or default
        except EOFError:
            name = default
    if stored is None:
        store_name(name)
    return name


def play(
    game: str,
    bots: int,
    level: str,
    options: dict[str, Any],
    *,
    name: str | None,
    lang: str | None,
    no_color: bool,
    ascii_only: bool,
    no_bell: bool = False,
) -> int:
    from client.storage import load_identity
    from client.table.local import LocalTable

    from .run import run_game_ui
    from .terminal import open_terminal

    language = detect_lang(lang)
    caps = detect_caps(no_color=no_color, ascii_only=ascii_only, no_bell=no_bell)
    new_game(game, bots + 1, options)  # checks the game, the player count and the options first
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        print(
            "skyjo-lan play: needs a terminal (run it in a terminal window or over ssh -t)", file=sys.stderr
        )
        return 2
    asked = level
    level, missing = bot_level(level, game)
    me = player_name(name, language)
    names = [me, *[n for n in BOT_NAMES if n.lower() != me.lower()][:bots]]
    table = LocalTable(
        game,
        bots,
        level,
        options,
        names=names,
        identity=load_identity(),
        think_time=think_time(),
    )
    saved = str(table.writer.path) if table.writer is not None else ""
    if missing:
        from client.table.peer import LogEntry

        table.human.log.append(LogEntry("info", text=tr(language, "play.no_level", level=asked, game=game)))

    async def main() -> str:
        async with open_terminal(caps) as terminal, trio.open_nursery() as nursery:
            nursery.start_soon(table.run)
            # the others are bots in this program: a leave has nowhere to go out to
            outcome = await run_game_ui(
                table.human, lang=language, terminal=terminal, saved=saved, leave_wait=0
            )
            nursery.cancel_scope.cancel()
        return outcome

    try:
        outcome = trio.run(main)
    except BaseException as exc:  # Ctrl-C: one line (the terminal is given back already)
        if not is_interrupt(exc):
            raise
        print(interrupted("play"), file=sys.stderr, flush=True)
        return 130
    if outcome == "left":
        print(tr(language, "left.play"))
    if saved:
        print(tr(language, "play.saved", path=saved))
    return 0
