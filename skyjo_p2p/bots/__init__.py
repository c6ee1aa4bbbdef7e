"""Computer players. A bot is a policy over one seat's view: `choose(view, seat) -> Move`.

`make_bot(level, game, seed)` builds one: levels are `random`, `greedy` (the fixed reference,
docs/bots.md) and `strong` (the best we have). Bots are deterministic given their seed and read
nothing but the view they are given. Each game lists its bots in `skyjo_p2p.registry`.
"""

from __future__ import annotations

import importlib

from ..registry import game as game_entry
from .base import Bot
from .random_bot import RandomBot

LEVELS = ("random", "greedy", "strong")


def make_bot(level: str, game: str, seed: int | str = 0) -> Bot:
    """A bot of `level` for `game`. Raises ValueError for an unknown level or game."""
    if level == "random":
        return RandomBot(seed)
    entry = game_entry(game)
    target = entry.bots.get(level) if entry is not None else None
    if target is None:
        raise ValueError(f"no {level!r} bot for {game!r} (levels: {', '.join(LEVELS)})")
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise ValueError(f"the {level!r} bot for {game!r} is not available in this version") from None
        raise
    bot: Bot = getattr(module, class_name)(seed)
    return bot


__all__ = ["LEVELS", "Bot", "RandomBot", "make_bot"]
