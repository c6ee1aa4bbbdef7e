"""Options of SKYJO ACTION (R-A1, R-A8, R-A13); defaults are the official rules (docs/rules.md, SKYJO ACTION).

The variants are one option, ``variant``, because they exclude each other; the 3x3 grid is a
separate option (``grid``) that combines with any of them. The deck composition of R-A1 lives in
`cards.DEFAULT_COUNTS`; ``card_counts`` overrides entries of that table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import OptionError
from ..core.options import OptionSpec, parse_options, shown
from ..grid import CLASSIC, SMALL, GridShape
from ..skyjo.options import ENDER_MULTIPLIER, TARGET_SCORE
from .cards import DEFAULT_COUNTS, KINDS, NUMBERS, STAR, code_of, name_of

STANDARD = "standard"
ACTION_IN_DECK = "action-in-deck"
STARS_ONLY = "stars-only"
NUMBERS_ONLY = "numbers-only"
VARIANTS = (STANDARD, ACTION_IN_DECK, STARS_ONLY, NUMBERS_ONLY)

# Players each variant allows on the 3x4 grid; the 3x3 grid allows two more (R-A13).
_PLAYERS = {STANDARD: (2, 6), ACTION_IN_DECK: (2, 6), STARS_ONLY: (1, 6), NUMBERS_ONLY: (1, 4)}

SPECS = (
    TARGET_SCORE,
    ENDER_MULTIPLIER,
    OptionSpec(
        "setup_reveals",
        int,
        None,
        "cards each player turns face up at setup (default: 2 on the 3x4 grid, 1 on the 3x3 grid)",
        0,
        11,
    ),
    OptionSpec(
        "variant",
        str,
        STANDARD,
        "standard, action-in-deck, stars-only (1-6 players) or numbers-only (1-4 players)",
        choices=VARIANTS,
    ),
    OptionSpec("grid", str, "3x4", "3x4, or 3x3 (9 cards; two more players allowed)", choices=("3x4", "3x3")),
    OptionSpec("deck_actions", int, 8, "action cards shuffled into the playing deck (action-in-deck)", 5, 10),
    OptionSpec(
        "action_kinds",
        str,
        "all",
        'the action cards in play: "all" or a comma-separated list of names (e.g. without the attacks)',
    ),
    OptionSpec(
        "card_counts",
        str,
        "",
        'overrides of the deck composition, e.g. "star:12,-2:5,defense:4" (R-A1)',
    ),
    OptionSpec(
        "wild_min_numbers",
        int,
        2,
        "number cards a line with stars needs to be removable (1: two stars and one number will do)",
        1,
        2,
    ),
)


@dataclass(frozen=True)
class ActionOptions:
    target_score: int = 100
    ender_multiplier: int = 2
    setup_reveals: int = 2
    variant: str = STANDARD
    grid: str = "3x4"
    deck_actions: int = 8
    action_kinds: tuple[int, ...] = KINDS
    card_counts: tuple[tuple[int, int], ...] = ()
    wild_min_numbers: int = 2
    # Derived from the above by `parse`; left out of repr (and so of the state hash's text).
    shape: GridShape = field(default=CLASSIC, repr=False, compare=False)
    playing_deck: tuple[int, ...] = field(default=(), repr=False, compare=False)
    action_deck: tuple[int, ...] = field(default=(), repr=False, compare=False)
    playing_values: frozenset[int] = field(default=frozenset(), repr=False, compare=False)
    action_values: frozenset[int] = field(default=frozenset(), repr=False, compare=False)

    @property
    def has_market(self) -> bool:
        """The standard game: a market, an action deck, and stars that let you take from them."""
        return self.variant == STANDARD

    @property
    def in_deck(self) -> bool:
        return self.variant == ACTION_IN_DECK

    @property
    def uses_actions(self) -> bool:
        return self.variant in (STANDARD, ACTION_IN_DECK)

    def player_range(self) -> tuple[int, int]:
        low, high = _PLAYERS[self.variant]
        return low, high + (2 if self.grid == "3x3" else 0)

    def check_players(self, players: int) -> None:
        """Refuse a player count this variant does not allow (R-A1, R-A13)."""
        low, high = self.player_range()
        if not low <= players <= high:
            extra = "" if self.grid == "3x3" or high >= 8 else "; 7 or 8 players need the 3x3 grid"
            raise OptionError(
                f"SKYJO ACTION ({self.variant}, {self.grid} grid) is played by {low} to {high} players, "
                f"not {players}{extra}"
            )
        numbers = sum(1 for v in self.playing_deck if v <= STAR)
        need = players * self.shape.size + 2
        if numbers < need:
            raise OptionError(f"{players} players need at least {need} playing cards, the deck has {numbers}")

    @classmethod
    def parse(cls, given: Mapping[str, Any] | None) -> ActionOptions:
        """The options and the decks they make, every value checked. Raises `OptionError`."""
        raw = parse_options(SPECS, given)
        shape = SMALL if raw["grid"] == "3x3" else CLASSIC
        reveals = raw["setup_reveals"]
        if reveals is None:
            reveals = 1 if shape is SMALL else 2
        if reveals > shape.size - 1:
            raise OptionError(f"option setup_reveals must be at most {shape.size - 1} on a {shape} grid")
        kinds = _parse_kinds(raw["action_kinds"])
        counts = _parse_counts(raw["card_counts"])
        table = dict(DEFAULT_COUNTS)
        table.update(counts)
        variant = raw["variant"]
        playing = [v for v in NUMBERS for _ in range(table[v])]
        if variant != NUMBERS_ONLY:
            playing += [STAR] * table[STAR]
        actions = [k for k in kinds for _ in range(table[k])]
        if variant == ACTION_IN_DECK:
            pool = _round_robin(kinds, table)
            if len(pool) < raw["deck_actions"]:
                wanted = raw["deck_actions"]
                raise OptionError(
                    f"option deck_actions is {wanted} but only {len(pool)} action cards are in play"
                )
            playing += sorted(pool[: raw["deck_actions"]])
        if variant == STANDARD and not actions:
            raise OptionError(
                "the standard game needs at least one action card, and action_kinds and card_counts "
                "leave none (variant=stars-only is the game without action cards)"
            )
        if not any(v > 0 for v in NUMBERS if table[v]):
            raise OptionError("card_counts leaves no positive number card: no total could reach the target")
        return cls(
            target_score=raw["target_score"],
            ender_multiplier=raw["ender_multiplier"],
            setup_reveals=reveals,
            variant=variant,
            grid=raw["grid"],
            deck_actions=raw["deck_actions"],
            action_kinds=kinds,
            card_counts=tuple(sorted(counts.items())),
            wild_min_numbers=raw["wild_min_numbers"],
            shape=shape,
            playing_deck=tuple(playing),
            action_deck=tuple(actions) if variant == STANDARD else (),
            playing_values=frozenset(playing),
            action_values=frozenset(actions) if variant == STANDARD else frozenset(),
        )


def check(players: int, given: Mapping[str, Any] | None) -> None:
    """Raise `OptionError` unless `given` are valid SKYJO ACTION options for `players` seats."""
    ActionOptions.parse(given).check_players(players)


def _parse_kinds(text: str) -> tuple[int, ...]:
    if text.strip().lower() == "all":
        return KINDS
    chosen: set[int] = set()
    for part in text.split(","):
        name = part.strip()
        code = code_of(name)
        if code is None or code not in KINDS:
            known = ", ".join(str(name_of(k)) for k in KINDS)
            raise OptionError(f"option action_kinds: unknown action card {shown(name)} (cards: {known})")
        chosen.add(code)
    return tuple(k for k in KINDS if k in chosen)


def _parse_counts(text: str) -> dict[int, int]:
    out: dict[int, int] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        name, sep, number = part.rpartition(":")
        code = code_of(_int_or_text(name.strip()))
        if not sep or code is None:
            raise OptionError(
                f"option card_counts: write CARD:COUNT (e.g. star:12 or -2:5), not {shown(part)}"
            )
        try:
            count = int(number.strip())
        except ValueError:
            raise OptionError(f"option card_counts: {shown(number.strip())} is not a whole number") from None
        if not 0 <= count <= 50:
            raise OptionError(f"option card_counts: {count} copies of {shown(name.strip())} is not in 0..50")
        out[code] = count
    return out


def _int_or_text(text: str) -> int | str:
    try:
        return int(text)
    except ValueError:
        return text


def _round_robin(kinds: tuple[int, ...], table: Mapping[int, int]) -> list[int]:
    """Action cards for the action-in-deck variant: one of each kind in R-A12 order, again and again."""
    left = {k: table[k] for k in kinds}
    out: list[int] = []
    while any(left.values()):
        for kind in kinds:
            if left[kind]:
                out.append(kind)
                left[kind] -= 1
    return out
