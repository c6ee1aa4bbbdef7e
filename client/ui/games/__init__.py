"""One screen per game, and the registry the UI asks (`screen`, `title`, `SCREENS`).

A new game on the screen: a package here with its `model` (view model, decisions, prompts, log),
`draw` and `screen` (its `GameScreen`), and one line in `SCREENS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .action.screen import ACTION
from .base import GameScreen, Logo
from .skipbo.screen import SKIPBO
from .skyjo.screen import SKYJO

SCREENS: Mapping[str, GameScreen[Any]] = {s.name: s for s in (SKYJO, SKIPBO, ACTION)}
"""Every game the UI can show, by name."""


def screen(game: str) -> GameScreen[Any]:
    """The screen of `game` (ValueError when the UI has none)."""
    found = SCREENS.get(game)
    if found is None:
        raise ValueError(f"no screen for the game {game!r}")
    return found


def title(game: str) -> str:
    """The game's name as shown to people (the name itself for an unknown game)."""
    found = SCREENS.get(game)
    return found.title if found is not None else game


def logo(game: str) -> Logo:
    """The header's logo of `game` (SKYJO's for an unknown game)."""
    return SCREENS.get(game, SKYJO).logo


__all__ = ["SCREENS", "GameScreen", "Logo", "logo", "screen", "title"]
