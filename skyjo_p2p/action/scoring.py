"""Round scores (R-A8): numbers at face value, stars 0, 10 per held action card, kept star lines
-10 (3 stars) or -15 (4 stars), each star in one such line at most; the ender's doubling and the
end of the game are classic SKYJO's (`skyjo.scoring`, R-S8, R-S9).

At the end-of-round reveal every grid is face up and nobody is asked anything: the optional
removals of R-A7 (and the order of overlapping ones) are decided for the owner, to give the lowest
score (`lines.best_removals`, an exhaustive search over removal sequences).
"""

from __future__ import annotations

from ..core.events import Event
from ..grid import EMPTY
from ..skyjo.scoring import ender_rule, game_over, winners
from .lines import best_removals, remove_line
from .state import ActionState

HELD_POINTS = 10
"""What each action card still held at the end of a round scores (R-A4, R-A8)."""

__all__ = ["HELD_POINTS", "ender_rule", "game_over", "round_points", "winners"]


def round_points(state: ActionState, seat: int, events: list[Event]) -> int:
    """Remove `seat`'s lines the best way (R-A8) and return its raw round score."""
    values = tuple(None if h == EMPTY else state.public_value(h) for h in state.slots_of(seat))
    points, removals = best_removals(values, state.shape, state.options.wild_min_numbers)
    for line in removals:
        remove_line(state, seat, line, line.slots, events)
    return points + HELD_POINTS * len(state.held[seat])
