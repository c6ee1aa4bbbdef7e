"""The `greedy` SKYJO player: the fixed reference, documented exactly in docs/bots.md.

It is deliberately simple and is never tuned, so that tournament figures stay comparable.

* Setup: turn face-down cards chosen at random.
* Turn: take the discard top if it is at most 3 or completes a column; otherwise draw.
* A drawn card is kept if it is at most 4 or completes a column; otherwise it is discarded and
  a random face-down card is turned (if there is none, the card is kept).
* A kept or taken card goes, in this order of preference, to (1) the slot where it completes a
  column, (2) the highest face-up card above it, (3) a face-down card in a column holding a
  face-up card of the same value ("a column it helps"), (4) a random face-down card, (5) the
  highest face-up card.
* When two complete lines share a card (rows option), the first one offered is removed first.
"""

from __future__ import annotations

from ..core.moves import Move
from ..core.rng import Rng
from ..engine import legal_moves
from ..skyjo.state import SETUP, SkyjoState, Step
from .skyjo_view import DOWN, GONE, Slot, grids

KEEP_AT_MOST = 4
TAKE_AT_MOST = 3


def completing_slot(grid: list[Slot], card: int, cols: int) -> int | None:
    """A slot where `card` completes a column of three equal face-up cards, leftmost first."""
    rows = len(grid) // cols
    for col in range(cols):
        slots = [col + cols * r for r in range(rows)]
        if any(grid[s] == GONE for s in slots):
            continue
        for target in slots:
            others = [grid[s] for s in slots if s != target]
            if grid[target] != card and all(v == card for v in others):
                return target
    return None


def placement(grid: list[Slot], card: int, cols: int, rng: Rng) -> int:
    """Where the greedy player puts a card it keeps (rules 1-5 of the module docstring)."""
    slot = completing_slot(grid, card, cols)
    if slot is not None:
        return slot
    face_up = [(v, s) for s, v in enumerate(grid) if isinstance(v, int)]
    above = [(v, s) for v, s in face_up if v > card]
    if above:
        best = max(v for v, _ in above)
        return min(s for v, s in above if v == best)
    down = [s for s, v in enumerate(grid) if v is DOWN]
    helped = [s for s in down if any(grid[o] == card for o in _column(s, grid, cols))]
    if helped:
        return helped[0]
    if down:
        return down[rng.below(len(down))]
    best = max(v for v, _ in face_up)
    return min(s for v, s in face_up if v == best)


def _column(slot: int, grid: list[Slot], cols: int) -> list[int]:
    col = slot % cols
    return [col + cols * r for r in range(len(grid) // cols) if col + cols * r != slot]


class SkyjoGreedyBot:
    name = "greedy"

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = Rng(seed)

    def choose(self, view: SkyjoState, seat: int) -> Move:
        cols = view.shape.cols
        mine = grids(view)[seat]
        if view.phase == SETUP:
            down = [s for s, v in enumerate(mine) if v is DOWN]
            self.rng.shuffle(down)
            return Move(seat, "reveal", slots=tuple(sorted(down[: view.to_reveal[seat]])))
        step = view.step
        if step == Step.CHOOSE:
            top = view.discard_top()
            if top is not None:
                value = view.public_value(top)
                if value <= TAKE_AT_MOST or completing_slot(mine, value, cols) is not None:
                    return Move(seat, "draw", source="discard")
            return Move(seat, "draw", source="deck")
        if step == Step.TOOK:
            assert view.holding is not None
            card = (
                view.public_value(view.holding) if view.is_public(view.holding) else view.values[view.holding]
            )
            assert card is not None
            return Move(seat, "replace", slot=placement(mine, card, cols, self.rng))
        if step == Step.DRAWN:
            assert view.holding is not None
            card = view.values[view.holding]
            assert card is not None, "the drawer sees its card"
            keep = card <= KEEP_AT_MOST or completing_slot(mine, card, cols) is not None
            if keep or not any(v is DOWN for v in mine):
                return Move(seat, "replace", slot=placement(mine, card, cols, self.rng))
            return Move(seat, "discard")
        if step == Step.FLIP:
            down = [s for s, v in enumerate(mine) if v is DOWN]
            return Move(seat, "flip", slot=down[self.rng.below(len(down))])
        if step == Step.LINE:
            return legal_moves(view, seat)[0]
        raise ValueError(f"greedy has no rule for step {step!r}")
