"""Reading a SKYJO table from one seat's view: grids as values, and the unseen cards.

Shared by the SKYJO bots. Everything here reads only what the seat may know: face-up cards,
public piles, and the seat's own private cards (its drawn card).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..grid import EMPTY
from ..skyjo.cards import COMPOSITION
from ..skyjo.state import SkyjoState

DOWN = None
"""A face-down card in a `Grid`."""
GONE = "gone"
"""A removed card in a `Grid`."""

Slot = int | None | str


@dataclass(frozen=True)
class Unseen:
    """The cards this seat cannot see (face-down cards anywhere, and the draw pile), as a multiset."""

    counts: tuple[tuple[int, int], ...]  # (value, count), ascending values
    total: int

    @property
    def mean(self) -> float:
        if self.total == 0:
            return 5.0
        return sum(v * n for v, n in self.counts) / self.total

    @property
    def variance(self) -> float:
        if self.total == 0:
            return 0.0
        mean = self.mean
        return sum(n * (v - mean) ** 2 for v, n in self.counts) / self.total

    def probabilities(self) -> list[tuple[int, float]]:
        if self.total == 0:
            return [(5, 1.0)]
        return [(v, n / self.total) for v, n in self.counts]

    def probability(self, value: int) -> float:
        for v, n in self.counts:
            if v == value:
                return n / self.total if self.total else 0.0
        return 0.0


def grids(view: SkyjoState) -> list[list[Slot]]:
    """Each seat's grid as seen: a value if face up, DOWN if face down, GONE if removed."""
    size = view.shape.size
    out: list[list[Slot]] = []
    for seat in range(view.players):
        row: list[Slot] = []
        for i in range(size):
            handle = view.grid[seat * size + i]
            if handle == EMPTY:
                row.append(GONE)
            elif view.face_up[seat * size + i]:
                row.append(view.public_value(handle))
            else:
                row.append(DOWN)
        out.append(row)
    return out


def unseen_cards(view: SkyjoState, seat: int, composition: tuple[int, ...] = COMPOSITION) -> Unseen:
    """The deck minus every card this seat can see (public cards and its own private ones)."""
    counts = Counter(composition)
    live = view.locations()  # cards reshuffled away got new, unknown handles
    for handle in live:
        value = view.values[handle]
        if value is not None and view.knows(seat, handle):
            counts[value] -= 1
    items = tuple(sorted((v, n) for v, n in counts.items() if n > 0))
    return Unseen(items, sum(n for _, n in items))
