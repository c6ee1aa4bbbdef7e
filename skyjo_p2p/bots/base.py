"""The bot interface."""

from __future__ import annotations

from typing import Any, Protocol, TypeAlias, TypeVar

from ..core.moves import Move
from ..core.state import TableState

S_contra = TypeVar("S_contra", bound=TableState, contravariant=True)


class BotFor(Protocol[S_contra]):
    """A policy for one seat of a game whose states are `S_contra` (each game's bots are a
    ``BotFor[ItsState]``). `view` holds only what that seat may know (`engine.view`)."""

    name: str

    def choose(self, view: S_contra, seat: int) -> Move: ...


Bot: TypeAlias = BotFor[Any]
"""A bot of any game: `make_bot` builds it for the game whose states it will be given."""
