"""Which game `--resume` would continue, said before it does (issue 28): when it was last saved,
the game, the players, and whether anyone of that table still answers at their address.

A game the others finished long ago used to be resumed without a word: a countdown, everyone
"reconnecting", and minutes later "the game cannot go on". Now the person reads which game it
is, and, when no other program of the table answers, is asked before waiting for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import trio

from protocol.config import TableConfig
from protocol.errors import MalformedMessage
from skyjo_p2p import registry

from .saved import ResumeInfo

PROBE_SECONDS = 3.0
"""How long each of the others' addresses is given to accept a connection."""


def describe(info: ResumeInfo, now: float | None = None) -> str:
    """The game in one line: "SKYJO, last saved 2026-11-28 17:20 (25 min ago), with Anna, Ben and
    you (Chloé, seat 3); saved in FILE"."""
    try:
        config = TableConfig.decode(info.genesis)
    except MalformedMessage:
        return f"the game saved in {info.transcript}"
    known = registry.game(config.game)
    title = known.title if known is not None else config.game
    names = list(config.names) or [f"seat {s + 1}" for s in range(config.players)]
    others = [n for s, n in enumerate(names) if s != info.seat]
    me = names[info.seat] if info.seat < len(names) else "?"
    try:
        saved = info.transcript.stat().st_mtime
    except OSError:
        saved = None
    when = ""
    if saved is not None:
        ago = max(0, int(((time.time() if now is None else now) - saved) // 60))
        when = f", last saved {time.strftime('%Y-%m-%d %H:%M', time.localtime(saved))} ({_ago(ago)})"
    return (
        f"{title}{when}, with {', '.join(others)} and you ({me}, seat {info.seat + 1}); "
        f"saved in {info.transcript}"
    )


def _ago(minutes: int) -> str:
    if minutes < 1:
        return "just now"
    if minutes < 120:
        return f"{minutes} min ago"
    return f"{minutes // 60} h ago"


async def answering(info: ResumeInfo, seconds: float = PROBE_SECONDS) -> tuple[list[str], list[str]]:
    """Who of the table answers now: (names whose program accepts a connection at its game
    address, names whose does not). Tried all at once, each for at most `seconds`."""
    try:
        config = TableConfig.decode(info.genesis)
    except MalformedMessage:
        return [], []
    names = list(config.names) or [f"seat {s + 1}" for s in range(config.players)]
    owners = config.table.get("owners")
    found: dict[tuple[str, int], bool] = {}
    places: dict[tuple[str, int], list[str]] = {}
    for seat, address in enumerate(info.addresses):
        if seat == info.seat or seat >= len(names) or address == (info.host, info.port):
            continue
        if isinstance(owners, list) and seat < len(owners) and owners[seat] != seat:
            continue  # a bot another program runs: that program is asked
        places.setdefault((str(address[0]), int(address[1])), []).append(names[seat])

    async def probe(address: tuple[str, int]) -> None:
        found[address] = False
        with trio.move_on_after(seconds):
            try:
                stream = await trio.open_tcp_stream(*address)
            except OSError:
                return
            found[address] = True
            await stream.aclose()

    async with trio.open_nursery() as nursery:
        for address in places:
            nursery.start_soon(probe, address)
    yes = [n for a, ns in places.items() if found.get(a) for n in ns]
    no = [n for a, ns in places.items() if not found.get(a) for n in ns]
    return yes, no


def told(info: ResumeInfo, say: Callable[[str], None], ask: Callable[[str], str] | None) -> bool:
    """Say which game is resumed and who of its table answers; when nobody does, `ask` (a person
    at a terminal) whether to wait for them anyway. False: do not resume."""
    say(f"resuming: {describe(info)}")
    yes, no = trio.run(answering, info)
    if yes:
        say(f"answering now: {', '.join(yes)}" + (f"; not (yet): {', '.join(no)}" if no else ""))
        return True
    if not no:
        return True
    say(
        f"nobody of that table answers now ({', '.join(no)}): their game may be over, "
        "or their programs closed"
    )
    if ask is None:
        return True  # a bot plays the seat: it waits for them
    try:
        answer = ask("resume it anyway and wait for them? [y/N] ").strip().lower()
    except EOFError:
        answer = ""
    if answer in ("y", "yes", "o", "oui"):
        return True
    say(f"not resumed; the saved game stays in {info.transcript} (`skyjo-lan verify` or `replay` it)")
    return False
