"""Facts SKYJO ACTION reports for logs and screens, beside the common ones (`core.events`).

Cards are named by handle: a screen looks the value up in its own view (a fact may be emitted
before the card's reveal is answered, e.g. the action deck's top taken face up).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.events import Fact, MoveVoided


@dataclass(frozen=True, slots=True)
class ActionTaken(Fact):
    """`seat` took an action card: `source` is "market" or "action-deck"; `star` if a star's take."""

    seat: int
    handle: int
    source: str
    star: bool


@dataclass(frozen=True, slots=True)
class ActionPlayed(Fact):
    """`seat` played an action card: `via` is "turn", "replay" (replay-discard) or "steal"."""

    seat: int
    handle: int
    via: str


@dataclass(frozen=True, slots=True)
class ActionDiscarded(Fact):
    """`seat` discarded a held action card unused (R-A4)."""

    seat: int
    handle: int


@dataclass(frozen=True, slots=True)
class ActionFound(Fact):
    """Action-in-deck: `seat` kept (or put on the action discard) an action card it drew or turned."""

    seat: int
    handle: int
    kept: bool


@dataclass(frozen=True, slots=True)
class StarterSetAside(Fact):
    """Action-in-deck: the card turned to start the discard pile was an action card; it went to the
    action discard and the next card was turned."""

    handle: int


@dataclass(frozen=True, slots=True)
class Blocked(Fact):
    """`seat`'s defense blocked `attacker`'s attack (R-A11) and went to the action discard."""

    seat: int
    attacker: int
    defense: int


@dataclass(frozen=True, slots=True)
class Buried(Fact):
    """remove-from-each: `seat` lost the card in `slot` (under the discard pile, unrevealed), or
    held action card `handle` (under the action discard) when `slot` is None."""

    seat: int
    slot: int | None
    handle: int


@dataclass(frozen=True, slots=True)
class Swapped(Fact):
    """swap-own: two cards of `seat`'s grid changed places."""

    seat: int
    slot: int
    slot2: int


@dataclass(frozen=True, slots=True)
class Exchanged(Fact):
    """swap-with-others: `seat`'s `slot` and `other`'s `other_slot` changed places (or were meant to,
    if `blocked`)."""

    seat: int
    slot: int
    other: int
    other_slot: int
    blocked: bool


@dataclass(frozen=True, slots=True)
class Peeked(Fact):
    """peek-line: `seat` looked at the face-down cards of a line of `target`'s grid."""

    seat: int
    target: int
    line: str
    index: int
    handles: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ExtraTurns(Fact):
    """`seat` gained `count` extra turns (now `left` in all); count 0: forfeited at the round end."""

    seat: int
    count: int
    left: int


@dataclass(frozen=True, slots=True)
class NoEffect(Fact):
    """An action card resolved without effect (e.g. replay-discard with an empty pile)."""

    seat: int
    handle: int
    reason: str


@dataclass(frozen=True, slots=True)
class TurnSkipped(Fact):
    """`seat` could not do anything on its turn (an empty grid and no action card to use)."""

    seat: int


@dataclass(frozen=True, slots=True)
class LinesKept(Fact):
    """`seat` chose to keep these optional lines (R-A7); they are not offered again unchanged."""

    seat: int
    lines: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class DeclarationVoided(MoveVoided):
    """Action-in-deck: `seat` played card `handle`, which only it had seen, as what it is not (only
    a tampered client does: its own engine refuses such a move). Once the card was shown the game
    went on as the rules would have: an action card is treated as turned up (its owner keeps or
    drops it), a playing card goes face up on the discard pile."""

    handle: int
