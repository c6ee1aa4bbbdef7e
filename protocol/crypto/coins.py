"""Joint public coins by commit-then-reveal.

Why: some choices are public but must not be chosen by one peer (who starts, a tie-break, the game
id). Each peer picks a random contribution, publishes H(label, context, seat, nonce, value), and
reveals (nonce, value) only after every commitment has been received. The coin is
SHA-512(label, context, all values in seat order) reduced mod n: if at least one contribution is
uniform and was fixed before the others were seen (hiding, binding commitments), the digest is
unpredictable to everyone else, so the coin is uniform in [0, n) up to a bias below n / 2^512.
(Blum, "Coin flipping by telephone", CRYPTO 1981, with hash commitments in the random-oracle
model.) Commit-reveal is for public coins only: it cannot hide cards (the design's "Agreement").

A peer that refuses to reveal can still abort; the session layer must treat a missing reveal as a
fault of that seat, never re-run the coin without it (that would let it choose between outcomes).
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from protocol.crypto.errors import InvalidCommitment, MalformedData
from protocol.crypto.group import system_or
from protocol.crypto.hashing import HashItem, hash512
from protocol.crypto.randomness import SYSTEM, RandomSource

COIN_COMMITMENT_LABEL: Final[str] = "skyjo-lan/v1/coin-commitment"
COIN_LABEL: Final[str] = "skyjo-lan/v1/coin"
NONCE_BYTES: Final[int] = 32
VALUE_BYTES: Final[int] = 32
COMMITMENT_BYTES: Final[int] = 32
MAX_RANGE: Final[int] = 1 << 256


def _check_bytes(value: object, size: int, name: str) -> bytes:
    if not isinstance(value, bytes) or len(value) != size:
        raise MalformedData(f"{name} must be {size} bytes")
    return value


@dataclass(frozen=True, slots=True)
class CoinContribution:
    """One peer's secret contribution: a 32-byte value and a 32-byte commitment nonce."""

    nonce: bytes
    value: bytes

    def __post_init__(self) -> None:
        _check_bytes(self.nonce, NONCE_BYTES, "nonce")
        _check_bytes(self.value, VALUE_BYTES, "value")

    @classmethod
    def new(cls, *, rng: RandomSource = SYSTEM) -> CoinContribution:
        """A fresh contribution from `rng` (two draws: the nonce, then the value)."""
        source = system_or(rng, secrets)
        return cls(source.token_bytes(NONCE_BYTES), source.token_bytes(VALUE_BYTES))

    def commitment(self, label: str, context: bytes, seat: int) -> bytes:
        """What to publish first: H(label, context, seat, nonce, value)."""
        return coin_commitment(label, context, seat, self.nonce, self.value)

    def to_wire(self) -> tuple[bytes, bytes]:
        """(nonce, value): the reveal."""
        return (self.nonce, self.value)

    @classmethod
    def from_wire(cls, obj: object) -> CoinContribution:
        """Parse a received reveal (two 32-byte strings)."""
        if not isinstance(obj, list | tuple) or len(obj) != 2:
            raise MalformedData("a coin reveal is a pair (nonce, value)")
        return cls(_check_bytes(obj[0], NONCE_BYTES, "nonce"), _check_bytes(obj[1], VALUE_BYTES, "value"))


def coin_commitment(label: str, context: bytes, seat: int, nonce: bytes, value: bytes) -> bytes:
    """H(label, context, seat, nonce, value), 32 bytes (SHA-512 truncated)."""
    digest = hash512(COIN_COMMITMENT_LABEL, label, context, seat, nonce, value)
    return digest[:COMMITMENT_BYTES]


def verify_coin_reveal(
    commitment: object, label: str, context: bytes, seat: int, reveal: CoinContribution
) -> None:
    """Raise `InvalidCommitment` unless `reveal` opens the commitment `seat` published."""
    expected = _check_bytes(commitment, COMMITMENT_BYTES, "coin commitment")
    actual = coin_commitment(label, context, seat, reveal.nonce, reveal.value)
    if not hmac.compare_digest(expected, actual):
        raise InvalidCommitment(f"coin reveal of seat {seat + 1} does not match its commitment")


def combine_coins(label: str, context: bytes, values: Mapping[int, bytes], n: int, index: int = 0) -> int:
    """The joint coin in [0, n): SHA-512 of every revealed value in seat order, reduced mod n.

    `values` maps seat -> revealed value (all seats, after every reveal was verified). `index`
    draws further independent coins from the same contributions (index 0, 1, 2...). Deterministic:
    every peer computes the same number.
    """
    if not 1 <= n <= MAX_RANGE:
        raise ValueError("coin range must be in [1, 2^256]")
    if not values:
        raise ValueError("a joint coin needs at least one contribution")
    ordered: list[HashItem] = [
        [seat, _check_bytes(values[seat], VALUE_BYTES, "value")] for seat in sorted(values)
    ]
    digest = hash512(COIN_LABEL, label, context, index, ordered)
    return int.from_bytes(digest, "big") % n
