"""What an open SKYJO ACTION decision carries beyond its step and its actor.

Most decisions need nothing more than ``state.step`` and ``state.actor``; four carry data, each in
a frozen record of its own (``state.decision``). `key()` is the record as the plain tuple the state
hash has always read, so hashes of every state stay what they were.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..grid import Line


@dataclass(frozen=True, slots=True)
class RemoveFromEach:
    """remove-from-each (R-A12): the actor picks a card of `victim`; `rest` are the seats after it."""

    victim: int
    rest: tuple[int, ...]

    def key(self) -> tuple[object, ...]:
        return (self.victim, self.rest)


@dataclass(frozen=True, slots=True)
class Exchange:
    """swap-with-others (R-A12): `left` exchanges to go; seats attacked so far and those immune."""

    left: int
    attacked: tuple[int, ...]
    immune: tuple[int, ...]

    def key(self) -> tuple[object, ...]:
        return (self.left, self.attacked, self.immune)


@dataclass(frozen=True, slots=True)
class TurnedUp:
    """An action card turned up (action-in-deck): its handle and grid slot (-1: the discard pile)."""

    handle: int
    slot: int

    def key(self) -> tuple[object, ...]:
        return (self.handle, self.slot)


@dataclass(frozen=True, slots=True)
class PickLine:
    """Lines of the actor's grid to remove or keep: (line, mandatory) for each candidate."""

    options: tuple[tuple[Line, bool], ...]

    def key(self) -> tuple[object, ...]:
        return self.options


Decision = RemoveFromEach | Exchange | TurnedUp | PickLine
"""The data of an open decision, when it has any."""
