"""Options of classic SKYJO (R-S11). Defaults are the official rules."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.options import OptionSpec, parse_options

# Scoring options SKYJO ACTION shares (R-S8, R-S9, R-S11).
TARGET_SCORE = OptionSpec(
    "target_score", int, 100, "the game ends after the round in which a total reaches this", 1, 100_000
)
ENDER_MULTIPLIER = OptionSpec(
    "ender_multiplier",
    int,
    2,
    "the round ender's positive score is multiplied by this unless strictly lowest",
    1,
    10,
)

SPECS = (
    TARGET_SCORE,
    ENDER_MULTIPLIER,
    OptionSpec(
        "rows",
        bool,
        False,
        "also remove complete rows of equal cards (4 cards, 3 once a column is gone)",
    ),
    OptionSpec("setup_reveals", int, 2, "cards each player turns face up at the start of a round", 0, 11),
)


@dataclass(frozen=True)
class SkyjoOptions:
    target_score: int = 100
    ender_multiplier: int = 2
    rows: bool = False
    setup_reveals: int = 2

    @classmethod
    def parse(cls, given: Mapping[str, Any] | None) -> SkyjoOptions:
        """The options from their JSON or text form, every value checked. Raises `OptionError`."""
        return cls(**parse_options(SPECS, given))


def check(players: int, given: Mapping[str, Any] | None) -> None:
    """Raise `OptionError` unless `given` are valid SKYJO options (any of 2..8 players fits the
    150 cards, so the player count adds no bound)."""
    SkyjoOptions.parse(given)
