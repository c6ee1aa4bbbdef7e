"""The SKIP-BO deck (R-B1): 162 cards, 12 of each number 1..12 and 18 SKIP-BO wilds.

Value codes, as they travel in reveals and states: 1..12 are the numbers, `WILD` (0, "no number")
is the SKIP-BO wild. Outside the engine (scenarios, screens) a wild is written "SB".
"""

from __future__ import annotations

DECK = "skip-bo"
"""The deck's name in deal and shuffle requests."""

WILD = 0
"""The value code of a SKIP-BO wild."""

TOP = 12
"""A building pile is complete when it reaches 12 (R-B3, R-B4)."""

HAND_SIZE = 5
"""A player draws up to 5 cards (R-B3)."""

BUILDING_PILES = 4
DISCARD_PILES = 4

COMPOSITION: tuple[int, ...] = tuple([v for v in range(1, TOP + 1) for _ in range(12)] + [WILD] * 18)
VALUES = frozenset(COMPOSITION)

assert len(COMPOSITION) == 162


def card_name(value: int) -> int | str:
    """A value as scenarios and screens write it: the number, or "SB" for a wild."""
    return "SB" if value == WILD else value
