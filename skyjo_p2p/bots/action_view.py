"""Reading a SKYJO ACTION table from one seat's view, for the SKYJO ACTION bots.

Everything here reads only what the seat may know: a card's value is read only when
``view.knows(seat, handle)`` (face-up cards, public piles, held action cards, the seat's own
drawn, draw-three and peeked cards). A bot handed a full state therefore decides exactly as with
its masked view (tests/skyjo_p2p/bots/test_action_bots.py checks it).

Grids are lists of ints, one per slot: the card's value (``-2..12``, ``STAR``), ``UNK`` for a card
this seat does not know, ``GONE`` for a removed card; a parallel list of bools says which cards
lie face up.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..action.cards import (
    DEFENSE,
    DRAW_THREE,
    EXTRA_TURNS,
    PEEK_LINE,
    REMOVE_FROM_EACH,
    REPLAY_DISCARD,
    STAR,
    STEAL_AND_PLAY,
    SWAP_OWN,
    SWAP_WITH_OTHERS,
)
from ..action.lines import MANDATORY, NONE, classify
from ..action.state import ActionState
from ..grid import EMPTY, GridShape

UNK = 99
"""A card this seat does not know (face down, never shown to it)."""
GONE = -99
"""A removed card (an empty slot)."""

__all__ = [
    "DEFENSE",
    "DRAW_THREE",
    "EXTRA_TURNS",
    "GONE",
    "PEEK_LINE",
    "REMOVE_FROM_EACH",
    "REPLAY_DISCARD",
    "STAR",
    "STEAL_AND_PLAY",
    "SWAP_OWN",
    "SWAP_WITH_OTHERS",
    "UNK",
    "Pool",
    "grid_of",
    "line_slots",
    "removable",
    "unseen_pool",
    "value_of",
]


def value_of(view: ActionState, me: int, handle: int) -> int | None:
    """The value of `handle` if `me` may know it, else None."""
    if view.knows(me, handle):
        return view.values[handle]
    return None


def grid_of(view: ActionState, me: int, seat: int) -> tuple[list[int], list[bool]]:
    """`seat`'s grid as `me` knows it: values (UNK, GONE) and face-up flags."""
    size = view.size
    base = seat * size
    vals: list[int] = []
    ups: list[bool] = []
    seen, values, bit = view.seen, view.values, 1 << me
    for i in range(size):
        handle = view.grid[base + i]
        if handle == EMPTY:
            vals.append(GONE)
            ups.append(False)
            continue
        value = values[handle] if seen[handle] & bit else None
        vals.append(UNK if value is None else value)
        ups.append(view.face_up[base + i])
    return vals, ups


def line_slots(shape: GridShape) -> tuple[tuple[int, ...], ...]:
    """Every line's slots: columns left to right, then rows top to bottom (the engine's order)."""
    return tuple(line.slots for line in shape.lines(True))


def removable(vals: list[int], ups: list[bool], slots: tuple[int, ...], wild_min: int) -> int:
    """NONE, MANDATORY or OPTIONAL (`lines.classify`) for the line `slots` of a grid as it lies:
    complete (every remaining card face up, at least 3 of them) and of known values."""
    present = [s for s in slots if vals[s] != GONE]
    if len(present) < 3:
        return NONE
    line: list[int] = []
    for s in present:
        if not ups[s] or vals[s] == UNK:
            return NONE
        line.append(vals[s])
    return classify(line, wild_min)


def is_mandatory(kind: int) -> bool:
    return kind == MANDATORY


@dataclass(frozen=True)
class Pool:
    """The playing cards `me` has not seen: numbers and stars by value, and action cards (the
    action-in-deck variant) counted apart."""

    counts: tuple[tuple[int, int], ...]  # (value, count), ascending; STAR last
    total: int
    actions: int

    def probabilities(self) -> list[tuple[int, float]]:
        if self.total == 0:
            return [(5, 1.0)]
        return [(v, n / self.total) for v, n in self.counts]


def unseen_pool(view: ActionState, me: int) -> Pool:
    """The playing deck minus every playing card `me` knows, wherever it lies."""
    counts = Counter(view.options.playing_deck)
    seen, values, bit = view.seen, view.values, 1 << me
    for handle in view.locations():
        if seen[handle] & bit and view.deck_of[handle] == "playing":
            value = values[handle]
            if value is not None:
                counts[value] -= 1
    numbers = tuple(sorted((v, n) for v, n in counts.items() if n > 0 and v <= STAR))
    actions = sum(n for v, n in counts.items() if n > 0 and v > STAR)
    return Pool(numbers, sum(n for _, n in numbers), actions)
