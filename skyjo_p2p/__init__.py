"""skyjo_p2p: the rules core of skyjo-lan (pure rules and bots; no I/O, crypto, clocks or threads).

Start with `skyjo_p2p.engine`: `new_game`, `apply`, `legal_moves`, `view`, `state_hash`.
"""

from .core.errors import EngineError, IllegalMove, MalformedMove, OptionError, UnexpectedAnswer, WrongGame
from .core.moves import Move
from .engine import (
    apply,
    deciders,
    games,
    legal_moves,
    new_game,
    parse_move,
    rules_for,
    state_hash,
    validate_options,
    view,
)

__all__ = [
    "EngineError",
    "IllegalMove",
    "MalformedMove",
    "Move",
    "OptionError",
    "UnexpectedAnswer",
    "WrongGame",
    "apply",
    "deciders",
    "games",
    "legal_moves",
    "new_game",
    "parse_move",
    "rules_for",
    "state_hash",
    "validate_options",
    "view",
]
