"""Computer players. A bot is a policy over one seat's view: `choose(view, seat) -> Move`."""

from .base import Bot
from .random_bot import RandomBot

__all__ = ["Bot", "RandomBot"]
