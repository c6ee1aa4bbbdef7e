"""Computer players. A bot is a policy over one seat's view: `choose(view, seat) -> Move`.

`make_bot(level, game, seed)` builds one: levels are `random`, `greedy` (the fixed reference,
docs/bots.md) and `strong` (the best we have). Bots are deterministic given their seed and read
nothing but the view they are given.
"""

from __future__ import annotations

import importlib

from .base import Bot
from .random_bot import RandomBot

LEVELS = ("random", "greedy", "strong")

_BOTS: dict[tuple[str, str], str] = {
    ("skyjo", "greedy"): "skyjo_p2p.bots.skyjo_greedy:SkyjoGreedyBot",
    ("skyjo", "strong"): "skyjo_p2p.bots.skyjo_strong:SkyjoStrongBot",
    ("skyjo-action", "greedy"): "skyjo_p2p.bots.action_greedy:ActionGreedyBot",
    ("skyjo-action", "strong"): "skyjo_p2p.bots.action_strong:ActionStrongBot",
    ("skip-bo", "greedy"): "skyjo_p2p.bots.skipbo_greedy:SkipBoGreedyBot",
    ("skip-bo", "strong"): "skyjo_p2p.bots.skipbo_strong:SkipBoStrongBot",
}
"""(game, level) -> "module:class" of its bot; each class takes a seed."""


def make_bot(level: str, game: str, seed: int | str = 0) -> Bot:
    """A bot of `level` for `game`. Raises ValueError for an unknown level or game."""
    if level == "random":
        return RandomBot(seed)
    target = _BOTS.get((game, level))
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
