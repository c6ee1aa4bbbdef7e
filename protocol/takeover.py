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

A seat whose program vanished is played the same way once the table decided so; the vote, the
decision and the return are in `protocol.insurance`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

from skyjo_p2p.bots import Bot, make_bot
from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.state import TableState
from skyjo_p2p.engine import view

from . import crypto
from .crypto.group import mul_base

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
    removed: bool = False
    """Every other program removed the seat's program (PROTOCOL.md 10.9, "Removing a player"):
    played as a vanished seat, and never handed back (a `return` of it changes nothing)."""
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


def stand_in_shares(stand_in: StandIn, ciphertexts: Sequence[crypto.Ciphertext]) -> list[crypto.Point]:
    """The decryption shares of a seat the table plays with its published key share, as every
    peer computes them (kept: a card is often asked for again)."""
    assert stand_in.secret is not None
    out = []
    for ciphertext in ciphertexts:
        key = bytes(ciphertext.c1)
        share = stand_in.shares.get(key)
        if share is None:
            share = stand_in.shares[key] = crypto.decryption_share(stand_in.secret, ciphertext)
        out.append(share)
    return out
