"""The SKYJO deck (R-S1): 150 cards, 5 x -2, 10 x -1, 15 x 0 and 10 of each value 1..12."""

from __future__ import annotations

DECK = "skyjo"
"""The deck's name in deal and shuffle requests."""

COMPOSITION: tuple[int, ...] = tuple(
    [-2] * 5 + [-1] * 10 + [0] * 15 + [v for v in range(1, 13) for _ in range(10)]
)
VALUES = frozenset(COMPOSITION)

assert len(COMPOSITION) == 150
