"""The base of every game's decision steps.

Each game names the decisions it waits for in a `StepName` enum (``class Step(StepName)`` in its
state module). A member *is* its text: it compares, hashes, encodes and prints as the plain
string, so moves on the wire, saved games and state hashes hold the same bytes as before the enum.
"""

from __future__ import annotations

from enum import StrEnum


class StepName(StrEnum):
    """A step of a game: a string enum whose repr is the string's (the state hash reads reprs)."""

    def __repr__(self) -> str:
        return str.__repr__(self)
