"""The SKIP-BO table, and the facts a SKIP-BO game reports.

Every pile is a tuple of card handles, bottom first, kept in a flat list of such tuples (tuples are
immutable, so copying a state copies only the outer lists):

* ``stocks[seat]``: the seat's stock pile; its last item is the top card, the only one face up;
* ``hands[seat]``: the seat's hand, in the order drawn (a move names a card by its position);
* ``discards[4 * seat + pile]``: the seat's four discard piles, face up;
* ``building[pile]``: the four shared building piles. A pile holds 1, 2, 3, ... in order, so the
  number it has reached is its length, whatever wilds it holds (R-B3);
* ``draw``: the draw pile (a flat list, top last); ``set_aside``: cards of completed building
  piles waiting to be shuffled into a new draw pile (R-B4).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.events import Fact, MoveVoided
from ..core.state import TableState
from .cards import BUILDING_PILES, DISCARD_PILES, WILD
from .options import SkipBoOptions

# Phases of a game.
SETUP, TURN, GAME_OVER = "setup", "turn", "game_over"

# Where a played card comes from (a play move's "from").
HAND, STOCK, DISCARD = "hand", "stock", "discard"
PARTNER_STOCK, PARTNER_DISCARD = "partner-stock", "partner-discard"
SOURCES = (HAND, STOCK, DISCARD, PARTNER_STOCK, PARTNER_DISCARD)


@dataclass(frozen=True, slots=True)
class Placing:
    """A card put on a pile whose move is not finished yet (its reveal, or the stock's next card).

    `kind` is a play's source or "discard"; `owner` the seat whose stock or discard pile it left
    (the player for a hand card); `pile` the building pile (play) or discard pile (discard);
    `index` the hand position the card left (-1 if it did not come from the hand).
    """

    kind: str
    seat: int
    owner: int
    pile: int
    handle: int
    index: int


class SkipBoState(TableState):
    """A SKIP-BO table (see the module docstring for the piles)."""

    __slots__ = (
        "active",
        "building",
        "dealer",
        "discards",
        "draw",
        "hands",
        "idle",
        "placing",
        "set_aside",
        "stocks",
        "turn",
    )

    options: SkipBoOptions
    stocks: list[tuple[int, ...]]
    hands: list[tuple[int, ...]]
    discards: list[tuple[int, ...]]
    building: list[tuple[int, ...]]
    draw: list[int]
    set_aside: list[int]
    dealer: int | None
    turn: int | None
    placing: Placing | None
    idle: int  # consecutive turns ended with nothing drawn, played or discarded
    active: bool  # this turn drew, played or discarded a card

    def __init__(self, players: int, options: SkipBoOptions) -> None:
        super().__init__("skip-bo", players, options)
        self.phase = SETUP
        self.stocks = [()] * players
        self.hands = [()] * players
        self.discards = [()] * (DISCARD_PILES * players)
        self.building = [()] * BUILDING_PILES
        self.draw = []
        self.set_aside = []
        self.dealer = None
        self.turn = None
        self.placing = None
        self.idle = 0
        self.active = False

    # --- reading the table ------------------------------------------------------------------

    def to_move(self) -> int | None:
        """The seat whose turn it is, or None while dealing and at game over."""
        return self.turn if self.phase == TURN else None

    def partner(self, seat: int) -> int | None:
        """The partner seated opposite in a team game (R-B6), else None."""
        if not self.options.teams:
            return None
        return (seat + self.players // 2) % self.players

    def team(self, seat: int) -> tuple[int, ...]:
        """The seats that win or lose with `seat`: itself, and its partner in a team game."""
        mate = self.partner(seat)
        return (seat,) if mate is None else tuple(sorted((seat, mate)))

    def needed(self, pile: int) -> int:
        """The number building pile `pile` takes next: 1 on an empty pile (R-B3)."""
        return len(self.building[pile]) + 1

    def fits(self, value: int, pile: int) -> bool:
        return value == WILD or value == len(self.building[pile]) + 1

    def discard_pile(self, seat: int, pile: int) -> tuple[int, ...]:
        return self.discards[DISCARD_PILES * seat + pile]

    def can_draw(self) -> bool:
        return bool(self.draw or self.set_aside)

    def locations(self) -> dict[int, str]:
        """Where every live card lies: "stock:S", "hand:S", "discard:S:P", "building:P", "draw",
        "set_aside". Handles of cards reshuffled into the draw pile are no longer live."""
        out: dict[int, str] = {}
        for seat in range(self.players):
            for handle in self.stocks[seat]:
                out[handle] = f"stock:{seat}"
            for handle in self.hands[seat]:
                out[handle] = f"hand:{seat}"
            for pile in range(DISCARD_PILES):
                for handle in self.discard_pile(seat, pile):
                    out[handle] = f"discard:{seat}:{pile}"
        for pile, cards in enumerate(self.building):
            for handle in cards:
                out[handle] = f"building:{pile}"
        for handle in self.draw:
            out[handle] = "draw"
        for handle in self.set_aside:
            out[handle] = "set_aside"
        return out


# --- facts ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Drew(Fact):
    """`seat` drew `count` cards from the draw pile into its hand (only it sees them)."""

    seat: int
    count: int


@dataclass(frozen=True, slots=True)
class Played(Fact):
    """`seat` played a card from `source` (of `owner`'s piles) onto building pile `pile`.

    `value` is the card (0 for a wild), `as_value` the number it counts as on the pile.
    """

    seat: int
    source: str
    owner: int
    pile: int
    value: int
    as_value: int


@dataclass(frozen=True, slots=True)
class Discarded(Fact):
    seat: int
    pile: int
    value: int


@dataclass(frozen=True, slots=True)
class PileCompleted(Fact):
    """Building pile `pile` reached 12: its cards are set aside (R-B4)."""

    pile: int


@dataclass(frozen=True, slots=True)
class PlayReturned(MoveVoided):
    """A hand card placed by a move its own player's engine would have refused (only a tampered
    client sends one) turned out not to fit once revealed: it went back to the hand, face up."""

    value: int


@dataclass(frozen=True, slots=True)
class RoundBlocked(Fact):
    """The round ended without a winner: nothing could ever be played again (see rules docs)."""

    round: int
    reason: str
