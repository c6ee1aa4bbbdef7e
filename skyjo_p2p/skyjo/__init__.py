"""Classic SKYJO (rulings R-S1 .. R-S11)."""

from .cards import COMPOSITION, DECK
from .options import SkyjoOptions
from .rules import RULES, SkyjoRules
from .state import SkyjoState

__all__ = ["COMPOSITION", "DECK", "RULES", "SkyjoOptions", "SkyjoRules", "SkyjoState"]
