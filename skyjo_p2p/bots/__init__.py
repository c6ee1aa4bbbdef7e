"""Computer players. A bot is a policy over one seat's view: `choose(view, seat) -> Move`.

`make_bot(level, game, seed)` builds one: levels are `random`, `greedy` (the fixed reference,
docs/bots.md) and `strong` (the best we have). Bots are deterministic given their seed and read
nothing but the view they are given.
"""

from __future__ import annotations

from .base import Bot
from .random_bot import RandomBot

LEVELS = ("random", "greedy", "strong")


def make_bot(level: str, game: str, seed: int | str = 0) -> Bot:
    """A bot of `level` for `game`. Raises ValueError for an unknown level or game."""
    if level == "random":
        return RandomBot(seed)
    if game == "skyjo":
        if level == "greedy":
            from .skyjo_greedy import SkyjoGreedyBot

            return SkyjoGreedyBot(seed)
        if level == "strong":
            from .skyjo_strong import SkyjoStrongBot

            return SkyjoStrongBot(seed)
    raise ValueError(f"no {level!r} bot for {game!r} (levels: {', '.join(LEVELS)})")


__all__ = ["LEVELS", "Bot", "RandomBot", "make_bot"]
