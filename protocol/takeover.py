"""Seats the table plays for a player who left: the common bot, its key share, the cards it needs.

Why: a player who leaves for good should not end the evening for the others. The leaver's `leave`
frame carries its ElGamal key share x (checked: x*G must be its public key share X, so the scalar
is its own proof; DESIGN.md, "a peer that leaves for good may publish its secret key share with a
proof"). From then on every peer, and `skyjo-lan verify`, plays that seat identically:

* its decryption shares are x*c1, which anyone computes (no message, no proof needed);
* its moves are chosen by one deterministic bot (`COMMON_BOT`, seeded from the session id and the
  seat) from what the seat may know. So that this is public information, every card the seat
  knows privately is made public first (`engine.disclose`; the log says so), and every later
  reveal to the seat is made public;
* its shuffles are left out (the deck is shuffled by the others: one honest shuffler is enough)
  and so are its coin contributions and round signatures.

*When* the seat is first played for is the same on every peer: the first time a job needs a
message of the seat that its chain does not hold before its leave (`Session.stands_in`). The
leave is the last frame of its chain, so a peer holding it holds every earlier frame too, and a
peer that does not hold it yet waits for it as for any message of that seat.

Without its key share (a leave sent before the keys were agreed) the game stops, as before.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from skyjo_p2p.bots import Bot, make_bot
from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.state import TableState
from skyjo_p2p.engine import view

from . import crypto
from .config import TableConfig
from .crypto.group import mul_base
from .errors import Misbehaviour
from .messages import Envelope

Held = dict[int, tuple[int, bytes]]
"""seat -> (how many of its frames a voter holds, the digest of the last)."""

COMMON_BOT = "greedy"
"""The level of the bot every peer runs for a seat whose player left (cheap and deterministic:
every peer and every verifier runs it for every move of that seat)."""


@dataclass
class StandIn:
    """A seat whose player left: how, its key share (if it published one), its bot."""

    seat: int
    how: str
    key: bytes
    """The key share its leave carried (empty: none), checked when the table begins to play it."""
    bot: Bot
    reason: str = ""
    frame: bytes = b""
    """The leave frame (the evidence if its key share is not the seat's)."""
    secret: int | None = None
    limit: int = 0
    """A vanished seat: how many of its frames count (the table's decision); later ones are void."""
    started: bool = False
    """The table has begun to play the seat (the first job that needed it found nothing)."""
    shares: dict[bytes, crypto.Point] = field(default_factory=dict)


def common_bot(session_id: bytes, game: str, seat: int) -> Bot:
    """The bot every peer runs for `seat`: the same level and seed everywhere."""
    seed = hashlib.sha256(b"skyjo-lan/v1/common-bot" + session_id + bytes([seat])).hexdigest()[:16]
    return make_bot(COMMON_BOT, game, seed)


def check_left_key(secret_bytes: bytes, public_key: crypto.Point) -> int:
    """The key share a leave frame carries, checked against the seat's public key share.

    Raises `crypto.MalformedData` (not a scalar) or `crypto.InvalidProof` (not the seat's key)."""
    secret = crypto.decode_scalar(secret_bytes)
    if mul_base(secret) != public_key:
        raise crypto.InvalidProof("the key share does not match the seat's public key share")
    return secret


def undisclosed(state: TableState, seat: int) -> list[int]:
    """The cards `seat` knows that not everyone knows, in handle order."""
    bit = 1 << seat
    everyone = state.everyone
    return [h for h, seen in enumerate(state.seen) if seen & bit and seen != everyone]


def bot_move(stand_in: StandIn, state: TableState) -> Move:
    """The common bot's move for its seat: from the seat's view, which after disclosure holds
    only public values, so every peer computes the same move."""
    return stand_in.bot.choose(view(state, stand_in.seat), stand_in.seat)


class Vacancies:
    """The table's votes to play the seats of a program that stopped answering (`vacate`).

    Deciding that a seat has vanished must give every peer the same point in the game's order,
    although each peer's timers run out at their own time. So the decision is a function of
    signed votes only: every seat of every other program votes (a peer votes when its wait
    runs out, and joins as soon as it sees another's vote), each vote says how many frames of
    each vacated seat the voter holds, and a voter consumes none of those seats' frames beyond
    what it held (`Session._frozen`). Once every seat that must vote has voted, the frames that
    count are the most any voter held: every peer consumes exactly those (asking for the ones it
    lacks), then the table plays the seats. Seats that left with their key share do not vote.

    A player who comes back and vanishes again is voted out again: each decision opens an
    *epoch* of the program's votes, closed when its seats are all back (`reopen`). Votes carry no
    epoch number: a vote of a later epoch holds more frames of the seats than the decision of the
    one before counted (every vote of an epoch was signed before the seat's `return`, which
    comes after that decision; every vote of the next one after it), so `classify` tells them
    apart, and a peer that is not back at the same point yet keeps a later vote for then.
    """

    def __init__(self, config: TableConfig) -> None:
        self.config = config
        self.votes: dict[int, dict[int, Held]] = {}
        """owner -> voter -> what it held (this epoch)."""
        self.decided: dict[int, Held] = {}
        """owner -> the frames that count of each of its seats (this epoch, once decided)."""
        self.floor: dict[int, Held] = {}
        """owner -> what the decision of its last closed epoch counted."""
        self.epochs: dict[int, int] = {}
        """owner -> how many epochs of its votes were closed (its seats came back)."""

    def classify(self, owner: int, held: Held) -> str:
        """Which epoch a vote belongs to: "now" (this one), "later" (after the seats, decided on
        in this one, come back) or "stale" (an epoch already closed: a late copy)."""
        decided = self.decided.get(owner)
        if decided is not None:
            return "later" if any(held[s][0] > decided[s][0] for s in decided) else "now"
        floor = self.floor.get(owner)
        if floor is not None and not any(held[s][0] > floor[s][0] for s in floor):
            return "stale"
        return "now"

    def reopen(self, owner: int) -> None:
        """The seats of `owner` are all back: close the epoch; its next vote opens a new one."""
        self.floor[owner] = self.decided.pop(owner)
        self.votes.pop(owner, None)
        self.epochs[owner] = self.epochs.get(owner, 0) + 1

    def seats_of(self, owner: int) -> list[int]:
        owners = self.config.owners
        return [s for s in range(self.config.players) if owners[s] == owner]

    def check(self, envelope: Envelope) -> tuple[int, Held]:
        """A vote's owner and holdings; `Misbehaviour` of the voter for one no honest peer sends."""
        voter, owner = envelope.seat, envelope.data["owner"]
        owners = self.config.owners
        fault = None
        if not self.config.insured:
            fault = "asked the table to play a seat, but the table is not insured"
        elif owner >= self.config.players or owners[owner] != owner:
            fault = f"asked the table to play program {owner + 1}, which runs no seat of its own"
        elif owners[voter] == owner:
            fault = "asked the table to play its own program's seats"
        held: Held = {}
        if fault is None:
            for seat, count, digest in envelope.data["held"]:
                held[seat] = (count, digest)
            if sorted(held) != self.seats_of(owner) or len(held) != len(envelope.data["held"]):
                fault = "a vote that does not list exactly the program's seats"
        if fault is not None:
            raise Misbehaviour(voter, fault, (envelope.frame,))
        return owner, held

    def add(self, voter: int, owner: int, held: Held) -> bool:
        """Record a vote (the first of each voter counts); True if it is new."""
        ballots = self.votes.setdefault(owner, {})
        if voter in ballots:
            return False
        ballots[voter] = held
        return True

    def decide(self, owner: int, left: set[int]) -> Held | None:
        """The frames that count of each seat of `owner`, once every seat that must vote has:
        every seat of every other program, but those that left; None until then."""
        if owner in self.decided:
            return self.decided[owner]
        owners = self.config.owners
        required = [s for s in range(self.config.players) if owners[s] != owner and s not in left]
        ballots = self.votes.get(owner, {})
        if not required or any(s not in ballots for s in required):
            return None
        counted: Held = {}
        for seat in self.seats_of(owner):
            counted[seat] = max((ballots[s][seat] for s in required), key=lambda held: held[0])
        self.decided[owner] = counted
        return counted
