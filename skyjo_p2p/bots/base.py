"""The bot interface."""

from __future__ import annotations

from typing import Protocol

from ..core.moves import Move
from ..core.state import TableState


class Bot(Protocol):
    """A policy for one seat. `view` holds only what that seat may know (`engine.view`)."""

    name: str

    def choose(self, view: TableState, seat: int) -> Move: ...
