"""The SKYJO ACTION cards (R-A1): value codes, names, and the one table of the deck composition.

Every card is an int in the engine's knowledge table:

=========================  ======  =============================================
card                       code    scenario / report spelling
=========================  ======  =============================================
numbers                    -2..12  the number
star                       20      ``"*"``
remove-from-each           21      ``"remove-from-each"``
swap-own                   22      ``"swap-own"``
extra-turns                23      ``"extra-turns"``
draw-three                 24      ``"draw-three"``
peek-line                  25      ``"peek-line"``
defense                    26      ``"defense"``
replay-discard             27      ``"replay-discard"``
steal-and-play             28      ``"steal-and-play"``
swap-with-others           29      ``"swap-with-others"``
=========================  ======  =============================================

The codes never collide, so the action-in-deck variant (R-A13) can mix action cards into the
playing deck. `DEFAULT_COUNTS` is the only place the composition is written down; the
``card_counts`` option overrides any of its entries (R-A1: the composition is not confirmed).
"""

from __future__ import annotations

from collections.abc import Mapping

PLAYING = "playing"
"""The playing deck's name in deal and shuffle requests (numbers and stars)."""
ACTION = "action"
"""The action deck's name in deal and shuffle requests."""

NUMBERS: tuple[int, ...] = tuple(range(-2, 13))
STAR = 20

REMOVE_FROM_EACH = 21
SWAP_OWN = 22
EXTRA_TURNS = 23
DRAW_THREE = 24
PEEK_LINE = 25
DEFENSE = 26
REPLAY_DISCARD = 27
STEAL_AND_PLAY = 28
SWAP_WITH_OTHERS = 29

KIND_NAMES: dict[int, str] = {
    REMOVE_FROM_EACH: "remove-from-each",
    SWAP_OWN: "swap-own",
    EXTRA_TURNS: "extra-turns",
    DRAW_THREE: "draw-three",
    PEEK_LINE: "peek-line",
    DEFENSE: "defense",
    REPLAY_DISCARD: "replay-discard",
    STEAL_AND_PLAY: "steal-and-play",
    SWAP_WITH_OTHERS: "swap-with-others",
}
KINDS: tuple[int, ...] = tuple(KIND_NAMES)
"""The nine action kinds, in the order of R-A12."""
BY_NAME: dict[str, int] = {name: code for code, name in KIND_NAMES.items()}

ATTACKS = frozenset({REMOVE_FROM_EACH, STEAL_AND_PLAY, SWAP_WITH_OTHERS})
"""The cards a held defense blocks (R-A11)."""

# R-A1, the one table: how many of each card the box holds (the 3 blank action cards are set aside).
DEFAULT_COUNTS: Mapping[int, int] = {
    -2: 3,
    -1: 7,
    0: 11,
    **{value: 7 for value in range(1, 13)},
    STAR: 15,
    **{kind: 3 for kind in KINDS},
}


def is_action(value: int) -> bool:
    return value > STAR


def name_of(value: int) -> int | str:
    """How a card is written in scenarios and reports: the number, "*" or the action's name."""
    if value == STAR:
        return "*"
    if value in KIND_NAMES:
        return KIND_NAMES[value]
    return value


def code_of(item: object) -> int | None:
    """The code of a card written as in scenarios (a number, "*", "star" or an action name)."""
    if isinstance(item, bool):
        return None
    if isinstance(item, int):
        return item if item in NUMBERS else None
    if isinstance(item, str):
        if item in ("*", "star"):
            return STAR
        return BY_NAME.get(item)
    return None


assert sum(DEFAULT_COUNTS[v] for v in NUMBERS) + DEFAULT_COUNTS[STAR] == 120
assert sum(DEFAULT_COUNTS[k] for k in KINDS) == 27
