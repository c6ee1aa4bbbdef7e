"""The `random` level: a uniformly random legal move."""

from __future__ import annotations

from ..core.moves import Move
from ..core.rng import Rng
from ..core.state import TableState
from ..engine import legal_moves


class RandomBot:
    name = "random"

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = Rng(seed)

    def choose(self, view: TableState, seat: int) -> Move:
        moves = legal_moves(view, seat)
        if not moves:
            raise ValueError(f"seat {seat} has no legal move now")
        return moves[self.rng.below(len(moves))]
