"""The classic SKYJO table: grids, piles, the card in hand, and the decision a turn waits for."""

from __future__ import annotations

from typing import Any

from ..core.state import TableState
from ..core.steps import StepName
from ..grid import CLASSIC, EMPTY, GridShape
from .options import SkyjoOptions

# Phases of a round.
SETUP, TURN, SCORING, GAME_OVER = "setup", "turn", "scoring", "game_over"


class Step(StepName):
    """The decision a SKYJO turn waits for (``state.step``)."""

    NONE = ""
    CHOOSE = "choose"
    DRAWN = "drawn"
    TOOK = "took"
    FLIP = "flip"
    LINE = "line"


class SkyjoState(TableState):
    """A classic SKYJO table. Grids are one flat list: seat s, slot i is ``grid[s * size + i]``."""

    __slots__ = (
        "choices",
        "discard",
        "draw",
        "ender",
        "face_up",
        "first",
        "grid",
        "holding",
        "laps_left",
        "shape",
        "starter",
        "step",
        "to_reveal",
        "turn",
    )

    options: SkyjoOptions
    shape: GridShape
    grid: list[int]
    face_up: list[bool]
    draw: list[int]  # bottom .. top
    discard: list[int]  # bottom .. top
    holding: int | None  # the card in the active player's hand
    step: Step
    to_reveal: list[int]  # setup cards each seat still has to turn
    turn: int | None
    first: int | None
    ender: int | None
    laps_left: int  # turns still to play once the round end is triggered
    choices: tuple[Any, ...]  # candidates of a pending decision (tied seats, lines)
    starter: int | None  # who starts the next round: the previous round's ender (R-S4)

    def __init__(self, players: int, options: SkyjoOptions, shape: GridShape = CLASSIC) -> None:
        super().__init__("skyjo", players, options)
        self.shape = shape
        self.grid = []
        self.face_up = []
        self.draw = []
        self.discard = []
        self.holding = None
        self.step = Step.NONE
        self.to_reveal = [0] * players
        self.turn = None
        self.first = None
        self.ender = None
        self.laps_left = 0
        self.choices = ()
        self.starter = None

    # --- reading the table ------------------------------------------------------------------

    def slots_of(self, seat: int) -> list[int]:
        """Seat's grid, slot by slot: a handle, or EMPTY for a removed card."""
        size = self.shape.size
        return self.grid[seat * size : (seat + 1) * size]

    def face_down_slots(self, seat: int) -> list[int]:
        base = seat * self.shape.size
        return [
            i for i in range(self.shape.size) if self.grid[base + i] != EMPTY and not self.face_up[base + i]
        ]

    def card_slots(self, seat: int) -> list[int]:
        """Slots of `seat` that still hold a card."""
        base = seat * self.shape.size
        return [i for i in range(self.shape.size) if self.grid[base + i] != EMPTY]

    def discard_top(self) -> int | None:
        return self.discard[-1] if self.discard else None

    def locations(self) -> dict[int, str]:
        """Where every live card lies: "grid:SEAT:SLOT", "draw", "discard" or "hand:SEAT"."""
        out: dict[int, str] = {}
        size = self.shape.size
        for index, handle in enumerate(self.grid):
            if handle != EMPTY:
                out[handle] = f"grid:{index // size}:{index % size}"
        for handle in self.draw:
            out[handle] = "draw"
        for handle in self.discard:
            out[handle] = "discard"
        if self.holding is not None:
            out[self.holding] = f"hand:{self.turn}"
        return out

    def to_move(self) -> int | None:
        """The seat whose turn it is, or None during setup and at game over."""
        return self.turn if self.phase == TURN else None
