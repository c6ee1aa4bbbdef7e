"""What one SKIP-BO seat may know, in the plain numbers the SKIP-BO bots reason about.

`SkipBoTable.of(view, seat)` reads a state through the seat's knowledge only (`value_for`, public
values): its own hand, every stock top, every discard pile, the building piles, the sizes of the
hidden piles, and the multiset of cards it has not seen. Whatever the state holds for cards the
seat may not know (a masked view holds None, an omniscient state the true value) is never read,
so a bot built on this class chooses the same on a masked view and on the full state.

Values as in the engine: 1..12 are numbers, `WILD` (0) is the SKIP-BO wild.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.moves import Move
from ..skipbo.cards import BUILDING_PILES, COMPOSITION, DISCARD_PILES, TOP, WILD
from ..skipbo.state import DISCARD, HAND, PARTNER_DISCARD, PARTNER_STOCK, STOCK, SkipBoState

VALUE_CODES = TOP + 1
"""Value codes 0 (wild) .. 12: the length of a count-per-value list."""

_FULL = [0] * VALUE_CODES
for _value in COMPOSITION:
    _FULL[_value] += 1
FULL_COUNTS: tuple[int, ...] = tuple(_FULL)
"""How many cards of each value code the deck holds (R-B1)."""


@dataclass(frozen=True)
class SkipBoTable:
    """The table as `seat` sees it.

    `heights[p]`: how far building pile p has come (it needs `heights[p] + 1`);
    `stock_tops[s]`: seat s's stock top (None when its stock is empty); `discards[s][p]`: the
    values of seat s's discard pile p, bottom first; `unseen[v]`: how many cards of value code v
    the seat has not seen (in other hands, under stock tops, in the draw pile).
    """

    seat: int
    players: int
    partner: int | None
    heights: tuple[int, ...]
    hand: tuple[int, ...]
    stock_tops: tuple[int | None, ...]
    stock_sizes: tuple[int, ...]
    discards: tuple[tuple[tuple[int, ...], ...], ...]
    hand_sizes: tuple[int, ...]
    draw_size: int
    set_aside_size: int
    unseen: tuple[int, ...]
    discard_wilds: bool

    @classmethod
    def of(cls, view: SkipBoState, seat: int) -> SkipBoTable:
        known = [0] * VALUE_CODES

        def public(handle: int) -> int:
            value = view.public_value(handle)
            known[value] += 1
            return value

        hand: list[int] = []
        for handle in view.hands[seat]:
            value = view.value_for(seat, handle)
            if value is None:
                raise ValueError(f"seat {seat} does not know its own hand card {handle}")
            known[value] += 1
            hand.append(value)
        tops: list[int | None] = []
        for stock in view.stocks:
            tops.append(public(stock[-1]) if stock else None)
        discards = tuple(
            tuple(tuple(public(h) for h in view.discard_pile(s, p)) for p in range(DISCARD_PILES))
            for s in range(view.players)
        )
        for pile in view.building:
            for handle in pile:
                public(handle)
        for handle in view.set_aside:
            public(handle)
        return cls(
            seat=seat,
            players=view.players,
            partner=view.partner(seat),
            heights=tuple(len(pile) for pile in view.building),
            hand=tuple(hand),
            stock_tops=tuple(tops),
            stock_sizes=tuple(len(stock) for stock in view.stocks),
            discards=discards,
            hand_sizes=tuple(len(h) for h in view.hands),
            draw_size=len(view.draw),
            set_aside_size=len(view.set_aside),
            unseen=tuple(FULL_COUNTS[v] - known[v] for v in range(VALUE_CODES)),
            discard_wilds=view.options.discard_wilds,
        )

    def needed(self, pile: int) -> int:
        return self.heights[pile] + 1

    def can_draw(self) -> bool:
        return self.draw_size > 0 or self.set_aside_size > 0

    def after(self, seat: int) -> list[int]:
        """The other seats in the order they move after `seat`."""
        return [(seat + k) % self.players for k in range(1, self.players)]


def fits(value: int, height: int) -> bool:
    """Does a card of `value` go on a building pile of `height` (R-B3)?"""
    return value == WILD or value == height + 1


# --- moves ----------------------------------------------------------------------------------------


def play_hand(seat: int, index: int, target: int) -> Move:
    return Move(seat, "play", source=HAND, index=index, target=target)


def play_stock(seat: int, target: int, partner: bool = False) -> Move:
    return Move(seat, "play", source=PARTNER_STOCK if partner else STOCK, target=target)


def play_discard(seat: int, pile: int, target: int, partner: bool = False) -> Move:
    return Move(seat, "play", source=PARTNER_DISCARD if partner else DISCARD, pile=pile, target=target)


def discard(seat: int, index: int, pile: int) -> Move:
    return Move(seat, "discard", index=index, pile=pile)


def end(seat: int) -> Move:
    return Move(seat, "end")


__all__ = [
    "BUILDING_PILES",
    "DISCARD_PILES",
    "FULL_COUNTS",
    "TOP",
    "VALUE_CODES",
    "WILD",
    "SkipBoTable",
    "discard",
    "end",
    "fits",
    "play_discard",
    "play_hand",
    "play_stock",
]
