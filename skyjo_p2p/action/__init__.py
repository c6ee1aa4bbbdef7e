"""SKYJO ACTION (rulings R-A1 .. R-A13): where to look.

======================================  =====================
you look for                            it is in
======================================  =====================
value codes, card names, deck table     `cards` (R-A1)
options and variants                    `options` (R-A13)
the table state, decision names         `state`
a round, a turn, the decision loop      `rules` (R-A2..R-A5, R-A9)
piles, market, action deck, reshuffles  `piles` (R-A2, R-A10)
a star's take                           `stars` (R-A6)
rows, columns, wild stars, removals     `lines` (R-A7)
the nine action cards, defense          `actions` (R-A11, R-A12)
action cards in the playing deck        `in_deck` (R-A13)
round scores                            `scoring` (R-A8)
facts for logs and screens              `facts`
the scenario runner's format            `scenario`
======================================  =====================
"""

from .cards import ACTION, PLAYING, STAR
from .options import ActionOptions
from .rules import RULES, ActionRules
from .state import ActionState

__all__ = ["ACTION", "PLAYING", "RULES", "STAR", "ActionOptions", "ActionRules", "ActionState"]
