"""Options of SKIP-BO (R-B2, R-B3, R-B5, R-B6). Defaults are the official rules."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.errors import OptionError
from ..core.options import OptionSpec, parse_options
from .cards import COMPOSITION, HAND_SIZE

SPECS = (
    OptionSpec(
        "stock_size",
        int,
        0,
        "cards in each stock pile, 5..30; 0: 30 with 2-4 players, 20 with 5-6",
        0,
        30,
    ),
    OptionSpec(
        "target_score",
        int,
        500,
        "the game ends after the round in which a total reaches this",
        1,
        100_000,
    ),
    OptionSpec("single_round", bool, False, "play one round only: its winner wins the game"),
    OptionSpec("discard_wilds", bool, True, "SKIP-BO wilds may be put on discard piles"),
    OptionSpec("teams", bool, False, "4 or 6 players: partners seated opposite play as a team"),
)


def default_stock_size(players: int) -> int:
    """30 cards with 2-4 players, 20 with 5-6 (R-B2)."""
    return 30 if players <= 4 else 20


def max_stock_size(players: int) -> int:
    """The largest stock that leaves every player a first hand of 5 in the draw pile."""
    return min(30, len(COMPOSITION) // players - HAND_SIZE)


@dataclass(frozen=True)
class SkipBoOptions:
    stock_size: int = 30
    target_score: int = 500
    single_round: bool = False
    discard_wilds: bool = True
    teams: bool = False

    @classmethod
    def parse(cls, given: Mapping[str, Any] | None, players: int) -> SkipBoOptions:
        """The options for `players` seats, every value checked. Raises `OptionError`."""
        values = parse_options(SPECS, given)
        size = values["stock_size"]
        if size == 0:
            values["stock_size"] = default_stock_size(players)
        elif size < 5:
            raise OptionError(f"option stock_size must be 5..30 (or 0 for the usual size), not {size}")
        elif size > max_stock_size(players):
            raise OptionError(
                f"option stock_size must be at most {max_stock_size(players)} with {players} players "
                f"(the draw pile must hold a first hand of {HAND_SIZE} for everyone), not {size}"
            )
        if values["teams"] and players not in (4, 6):
            raise OptionError(f"teams are played by 4 or 6 players, not {players}")
        return cls(**values)


def check(players: int, given: Mapping[str, Any] | None) -> None:
    """Raise `OptionError` unless `given` are valid SKIP-BO options for `players` seats."""
    SkipBoOptions.parse(given, players)
