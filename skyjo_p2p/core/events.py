"""What the engine says back: requests it needs answered, and plain facts for logs and screens.

The engine never draws, shuffles or flips a coin itself. When the rules need a card's value, a
shuffle or a random choice, `apply` returns a *request* and the state waits; whoever drives the
engine answers it (the local `Dealer` offline, the mental-poker session over the network) by
passing the matching *answer* back to `apply`. No move is legal while a request is unanswered.

Requests and answers come in matching pairs:

====================  ======================  =============================================
request               answer                  meaning
====================  ======================  =============================================
`DealRequest`         `Dealt`                 a fresh, jointly shuffled deck becomes handles
                                              first .. first+size-1 (first = top)
`ShuffleRequest`      `Shuffled`              these handles are shuffled together into new
                                              handles first .. first+len-1 (first = top)
`RevealRequest`       `Reveal`                tell `to` (a seat, or everyone if None) the
                                              value of a handle
`RandomRequest`       `RandomResult`          a joint random integer in [0, n)
====================  ======================  =============================================

A private reveal to seat j is answered on every other peer by a `Reveal` with `value=None`:
everyone learns *that* j now knows the card, only j learns *what* it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from .moves import Move

EVERYONE = None
"""`to=None` in a reveal: the card becomes public."""


# --- requests (engine -> driver) -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DealRequest:
    deck: str
    first: int
    size: int


@dataclass(frozen=True, slots=True)
class ShuffleRequest:
    deck: str
    handles: tuple[int, ...]
    first: int


@dataclass(frozen=True, slots=True)
class RevealRequest:
    handle: int
    to: int | None


@dataclass(frozen=True, slots=True)
class RandomRequest:
    purpose: str
    n: int


Request = DealRequest | ShuffleRequest | RevealRequest | RandomRequest

# --- answers (driver -> engine) ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Dealt:
    deck: str
    first: int
    size: int

    def answers(self) -> DealRequest:
        return DealRequest(self.deck, self.first, self.size)


@dataclass(frozen=True, slots=True)
class Shuffled:
    deck: str
    handles: tuple[int, ...]
    first: int

    def answers(self) -> ShuffleRequest:
        return ShuffleRequest(self.deck, self.handles, self.first)


@dataclass(frozen=True, slots=True)
class Reveal:
    handle: int
    to: int | None
    value: int | None

    def answers(self) -> RevealRequest:
        return RevealRequest(self.handle, self.to)


@dataclass(frozen=True, slots=True)
class RandomResult:
    purpose: str
    n: int
    value: int

    def answers(self) -> RandomRequest:
        return RandomRequest(self.purpose, self.n)


Answer = Dealt | Shuffled | Reveal | RandomResult
Action = Move | Answer

# --- facts (engine -> anyone who shows or logs the game) -----------------------------------


class Fact:
    """Base of the plain facts an engine reports for logs and screens (games add their own)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Moved(Fact):
    """A move was applied."""

    move: Move


@dataclass(frozen=True, slots=True)
class Revealed(Fact):
    """`to` (or everyone) now knows `handle`; `value` is None where this state may not know it."""

    handle: int
    to: int | None
    value: int | None


@dataclass(frozen=True, slots=True)
class TurnBegan(Fact):
    seat: int


@dataclass(frozen=True, slots=True)
class LineRemoved(Fact):
    """A complete line left `seat`'s grid: `line` is "column" or "row", `slots` its slots."""

    seat: int
    line: str
    slots: tuple[int, ...]
    values: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Reshuffled(Fact):
    deck: str
    count: int


@dataclass(frozen=True, slots=True)
class RoundEnded(Fact):
    """`raw` are the round scores before doubling, `scores` what was added to the totals."""

    round: int
    ender: int | None
    raw: tuple[int, ...]
    scores: tuple[int, ...]
    doubled: bool
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MoveVoided(Fact):
    """A move that could only be judged once a private card was revealed turned out illegal.

    The mover's own engine would have refused it (it knows the card); other peers could not
    judge it before the reveal. Only a tampered client makes one: the session blames `seat`.
    """

    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class GameOver(Fact):
    winners: tuple[int, ...]
    totals: tuple[int, ...]


Event = Request | Fact

REQUEST_TYPES = (DealRequest, ShuffleRequest, RevealRequest, RandomRequest)
ANSWER_TYPES = (Dealt, Shuffled, Reveal, RandomResult)


def requests_in(events: list[Event]) -> list[Request]:
    """The requests among `events`, in order."""
    return [e for e in events if isinstance(e, REQUEST_TYPES)]
