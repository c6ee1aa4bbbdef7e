"""Helpers for the SKYJO ACTION tests (no tests here): build tables from chosen grids and decks.

Every table is a `tests.support.Table`: the omniscient state plus one mirror per seat, checked on
every step (each mirror equals its seat's view; every public state hashes the same).
"""

from __future__ import annotations

from typing import Any

from skyjo_p2p.action import ACTION, PLAYING, STAR, ActionOptions
from skyjo_p2p.action.cards import BY_NAME
from skyjo_p2p.action.scenario import grid_report
from skyjo_p2p.core.moves import Move
from skyjo_p2p.engine import legal_moves
from tests.support import Table, build_deck

S = STAR
RFE = BY_NAME["remove-from-each"]
SWAP_OWN = BY_NAME["swap-own"]
EXTRA = BY_NAME["extra-turns"]
DRAW3 = BY_NAME["draw-three"]
PEEK = BY_NAME["peek-line"]
DEFENSE = BY_NAME["defense"]
REPLAY = BY_NAME["replay-discard"]
STEAL = BY_NAME["steal-and-play"]
SWAP_OTHERS = BY_NAME["swap-with-others"]

# Grids without any line, even fully face up; seat 0's first two cards sum to 10, seat 1's to 6,
# seat 2's to 1, so with reveals of slots 0 and 1 seat 0 starts (R-A3, R-S4).
GA = [12, -2, 0, 0, 1, 1, 2, -1, -1, -2, 0, 0]
GB = [4, 2, 3, 3, 1, 2, 0, 1, 2, 3, 1, 2]
GC = [1, 0, 2, 3, 0, -1, 2, 0, 3, 0, -1, 1]
# 3x3 grids without lines
HA = [9, 1, 2, 3, 4, 5, 6, 7, 8]
HB = [5, 1, 2, 3, 4, 0, 6, 7, -1]
HC = [2, 1, 0, 3, 6, 5, 7, 4, 8]


def table(
    grids: list[list[int]],
    discard: int = 5,
    draw: list[int] | tuple[int, ...] = (),
    market: list[int] | tuple[int, ...] = (),
    action_deck: list[int] | tuple[int, ...] = (),
    options: dict[str, Any] | None = None,
    seed: int = 0,
    tail: list[int] | tuple[int, ...] = (),
    mirrors: bool = True,
) -> Table:
    """A table whose round 1 deals `grids`, then `discard`, then `draw` (top first); the action
    deck starts with `market` (its first four cards are the market) then `action_deck`."""
    parsed = ActionOptions.parse(options)
    front = [v for grid in grids for v in grid] + [discard, *draw]
    decks = {(1, PLAYING): build_deck(front, parsed.playing_deck, tail)}
    if parsed.has_market:
        decks[(1, ACTION)] = build_deck([*market, *action_deck], parsed.action_deck)
    return Table("skyjo-action", len(grids), options, seed=seed, decks=decks, mirrors=mirrors)


def reveal(seat: int, *slots: int) -> Move:
    return Move(seat, "reveal", slots=tuple(slots))


def draw(seat: int, source: str = "deck") -> Move:
    return Move(seat, "draw", source=source)


def replace(seat: int, slot: int) -> Move:
    return Move(seat, "replace", slot=slot)


def discard(seat: int) -> Move:
    return Move(seat, "discard")


def flip(seat: int, slot: int) -> Move:
    return Move(seat, "flip", slot=slot)


def take(seat: int, index: int | None = None) -> Move:
    if index is None:
        return Move(seat, "take", source="action-deck")
    return Move(seat, "take", source="market", index=index)


def pass_(seat: int) -> Move:
    return Move(seat, "pass")


def play(seat: int, index: int = 0) -> Move:
    return Move(seat, "play", index=index)


def mv(seat: int, kind: str, **fields: Any) -> Move:
    data = {"seat": seat, "move": kind, **{("from" if k == "source" else k): v for k, v in fields.items()}}
    return Move.from_dict(data)


def grid(t: Table, seat: int) -> list[int | str | None]:
    return grid_report(t.state, seat)


def held(t: Table, seat: int) -> list[str]:
    return t.state.held_names(seat)


def names(t: Table, handles: Any) -> list[Any]:
    from skyjo_p2p.action.cards import name_of

    return [name_of(t.state.public_value(h)) for h in handles]


def kinds(t: Table, seat: int) -> set[str]:
    return {m.kind for m in legal_moves(t.state, seat)}


def decision(t: Table) -> tuple[str, int | None]:
    return t.state.step, t.state.actor


def started(
    grids: list[list[int]] | None = None,
    reveals: tuple[tuple[int, ...], ...] | None = None,
    **kwargs: Any,
) -> Table:
    """Setup done: each seat turns its `reveals` (default slots 0 and 1); stars turned at setup
    are passed on."""
    grids = grids or [GA, GB]
    t = table(grids, **kwargs)
    reveals = reveals or tuple((0, 1) for _ in grids)
    for seat, slots in enumerate(reveals):
        if slots:
            t.play(reveal(seat, *slots))
    while t.state.step == "offer":
        t.play(pass_(t.state.actor))
    return t


def hand_over(t: Table, seat: int, slot: int) -> None:
    """A quiet turn for `seat`: draw, discard, flip `slot`."""
    t.play_all([draw(seat), discard(seat), flip(seat, slot)])
