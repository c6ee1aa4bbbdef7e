"""SKIP-BO (rulings R-B1 .. R-B7)."""

from .cards import COMPOSITION, DECK, WILD
from .options import SkipBoOptions
from .rules import RULES, SkipBoRules
from .state import SkipBoState

__all__ = ["COMPOSITION", "DECK", "RULES", "WILD", "SkipBoOptions", "SkipBoRules", "SkipBoState"]
