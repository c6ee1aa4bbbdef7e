"""ElGamal over the prime-order group ristretto255, card encodings and the public deck.

Additive notation: a ciphertext of the point M under the joint key Y is (c1, c2) = (rG, M + rY);
re-encryption adds an encryption of zero, (c1 + sG, c2 + sY); decryption is M = c2 - x*c1, and with
Y = sum X_i it is M = c2 - sum D_i with decryption shares D_i = x_i*c1 (see `dleq`). (ElGamal,
"A public key cryptosystem and a signature scheme based on discrete logarithms", CRYPTO 1984; the
threshold/joint form is the one of Barnett and Smart, "Mental poker revisited", IMA Cryptography
and Coding 2003, Section 4.)

Cards: physical card k of a game is the point M_k = hash_to_point("skyjo-lan/v1/card", game_id, k),
so the fifteen zeros of a SKYJO deck are fifteen unrelated points. The deck starts as the public
ciphertexts (G, M_k + Y) (randomness r = 1), which every peer recomputes and compares.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from protocol.crypto.errors import CryptoError, MalformedData, UnknownCard
from protocol.crypto.group import (
    BASE,
    IDENTITY,
    POINT_BYTES,
    Point,
    add,
    add_pairs,
    decode_point,
    decode_points,
    mul,
    mul_base,
    point_sum,
    random_scalar,
    sub,
)
from protocol.crypto.hashing import hash_to_point
from protocol.crypto.randomness import SYSTEM, RandomSource

CARD_LABEL: Final[str] = "skyjo-lan/v1/card"


def _check_point_field(value: object, name: str) -> None:
    if not isinstance(value, bytes) or len(value) != POINT_BYTES:
        raise MalformedData(f"{name} must be {POINT_BYTES} bytes")


@dataclass(frozen=True, slots=True)
class Ciphertext:
    """An ElGamal ciphertext (c1, c2) = (rG, M + rY); both fields are points."""

    c1: Point
    c2: Point

    def __post_init__(self) -> None:
        c1, c2 = self.c1, self.c2
        if type(c1) is bytes and type(c2) is bytes and len(c1) == POINT_BYTES == len(c2):
            return  # the usual case, tested first: a deal builds thousands of ciphertexts
        _check_point_field(self.c1, "c1")
        _check_point_field(self.c2, "c2")

    def to_wire(self) -> tuple[bytes, bytes]:
        """(c1, c2) as two 32-byte strings."""
        return (bytes(self.c1), bytes(self.c2))

    @classmethod
    def from_wire(cls, obj: object) -> Ciphertext:
        """Parse and fully validate a received ciphertext (two valid, non-identity points)."""
        if not isinstance(obj, list | tuple) or len(obj) != 2:
            raise MalformedData("a ciphertext is a pair (c1, c2)")
        return cls(decode_point(obj[0]), decode_point(obj[1]))


def deck_to_wire(deck: Sequence[Ciphertext]) -> list[tuple[bytes, bytes]]:
    """A list of ciphertexts for the message layer."""
    return [c.to_wire() for c in deck]


def deck_from_wire(obj: object, expected_len: int | None = None) -> list[Ciphertext]:
    """Parse and validate a received list of ciphertexts (2 point validations per card, in one
    call of `group.decode_points`: the same result and the same error as each card in turn)."""
    if not isinstance(obj, list | tuple):
        raise MalformedData("a deck is a list of ciphertexts")
    if expected_len is not None and len(obj) != expected_len:
        raise MalformedData(f"deck has {len(obj)} ciphertexts, expected {expected_len}")
    if not obj:
        raise MalformedData("a deck cannot be empty")
    # (the exact types msgpack decodes to are checked at C speed first, the general test after)
    pairs = set(map(type, obj)) <= _SEQUENCES and set(map(len, obj)) == _TWO
    if pairs or all(isinstance(item, list | tuple) and len(item) == 2 for item in obj):
        try:
            # every point in one call of the batch decoder (kept decoded for the shuffle verifier)
            points = decode_points(list(itertools.chain.from_iterable(obj)))
        except CryptoError:
            pass  # each card again, in order: the error of the first bad one, as always
        else:
            return list(map(Ciphertext, points[0::2], points[1::2]))
    return [Ciphertext.from_wire(item) for item in obj]


_SEQUENCES: Final[set[type]] = {list, tuple}
_TWO: Final[set[int]] = {2}


def joint_key(public_keys: Iterable[Point]) -> Point:
    """Y = sum X_i. Call only with keys whose Schnorr proofs verified (no rogue keys)."""
    keys = list(public_keys)
    if not keys:
        raise CryptoError("the joint key needs at least one public key")
    y = point_sum(keys)
    if y == IDENTITY:
        raise CryptoError("the joint key is the identity")
    return y


def encrypt(
    message: Point, public_key: Point, randomness: int | None = None, *, rng: RandomSource = SYSTEM
) -> Ciphertext:
    """(rG, M + rY); r from `rng` unless given (r = 1 builds the public deck)."""
    r = random_scalar(rng=rng) if randomness is None else randomness
    return Ciphertext(mul_base(r), add(message, mul(r, public_key)))


def reencrypt(ciphertext: Ciphertext, public_key: Point, randomness: int) -> Ciphertext:
    """(c1 + sG, c2 + sY): same plaintext, unlinkable ciphertext (one variable-base mult).

    When c1 is G (the public deck), c1 + sG is computed as (1 + s)G, saving an addition.
    """
    c1 = mul_base(randomness + 1) if ciphertext.c1 == BASE else add(ciphertext.c1, mul_base(randomness))
    return Ciphertext(c1, add(ciphertext.c2, mul(randomness, public_key)))


def decrypt_with_key(ciphertext: Ciphertext, secret: int) -> Point:
    """c2 - x*c1 with the whole secret key (single-key tests and offline tools)."""
    return sub(ciphertext.c2, mul(secret, ciphertext.c1))


def card_point(game_id: bytes, k: int) -> Point:
    """M_k, the point encoding physical card k of the game `game_id`."""
    return hash_to_point(CARD_LABEL, game_id, k)


def initial_deck(cards: Sequence[Point], public_key: Point) -> list[Ciphertext]:
    """The public starting deck (G, M_k + Y), which every peer recomputes and checks."""
    return [Ciphertext(BASE, c2) for c2 in add_pairs(cards, [public_key] * len(cards))]


class Codebook:
    """The card points of one game and the reverse map point -> card index.

    Decryption yields a point; `index_of` turns it back into the physical card number, and refuses
    anything else (a wrong share or a tampered ciphertext gives a point outside the deck).
    """

    __slots__ = ("_index", "_initial", "game_id", "points")

    def __init__(self, game_id: bytes, n_cards: int) -> None:
        if not isinstance(game_id, bytes):
            raise TypeError("game_id must be bytes")
        if n_cards < 1:
            raise ValueError("a deck has at least one card")
        self.game_id = game_id
        self.points: tuple[Point, ...] = tuple(card_point(game_id, k) for k in range(n_cards))
        self._index: Mapping[Point, int] = {p: k for k, p in enumerate(self.points)}
        if len(self._index) != n_cards:  # pragma: no cover - a SHA-512 collision
            raise CryptoError("two cards have the same encoding")
        self._initial: tuple[Point, tuple[Ciphertext, ...]] | None = None

    def __len__(self) -> int:
        return len(self.points)

    def index_of(self, point: Point) -> int:
        """The card index k with M_k == point, or `UnknownCard`."""
        try:
            return self._index[point]
        except KeyError:
            raise UnknownCard("decrypted point is not a card of this deck") from None

    def initial_deck(self, public_key: Point) -> list[Ciphertext]:
        """The public starting deck of this game under the joint key (kept for the last key: every
        round of a game starts from the same one)."""
        kept = self._initial
        if kept is None or kept[0] != public_key:
            kept = self._initial = (public_key, tuple(initial_deck(self.points, public_key)))
        return list(kept[1])
