"""Typed errors of the rules core.

Every refusal carries a human-readable reason; the state passed in is never modified (R-C4).
"""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error the rules core raises on bad input."""

    @property
    def reason(self) -> str:
        return str(self.args[0]) if self.args else self.__class__.__name__


class IllegalMove(EngineError):
    """A well-formed move the rules do not allow now (R-C4)."""


class MalformedMove(EngineError):
    """A move that is not of any shape the game knows (unknown kind, missing or bad fields)."""


class UnexpectedAnswer(EngineError):
    """A reveal, deal, shuffle or random answer that no pending request asked for,
    or a revealed value that contradicts what is already known."""


class OptionError(EngineError, ValueError):
    """An unknown game option, or a value out of its range."""


class WrongGame(EngineError):
    """A state handed to the engine that is not of the kind its game's rules play."""
