"""Key pairs, key commitments and the Schnorr proof of knowledge of a secret key.

Why: the joint key is Y = sum X_i. A peer that announced X' = X_a - X_victim after seeing X_victim
would make Y = X_a + (others) and decrypt alone ("rogue key"). Two defences, both required by the
design: every peer first commits to H(X_i) (so nobody chooses its key after seeing the others), and
every X_i comes with a proof of knowledge of x_i bound to the session and the seat (so a key one
cannot prove, like X_a - X_victim, is refused, and a proof cannot be replayed by another seat).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Final

from protocol.crypto.errors import InvalidCommitment, InvalidProof, MalformedData
from protocol.crypto.group import (
    BASE,
    IDENTITY,
    L,
    Point,
    decode_scalar,
    encode_scalar,
    lincomb_public,
    mul_base,
    random_scalar,
    scalar_muladd,
)
from protocol.crypto.hashing import challenge, hash512
from protocol.crypto.randomness import SYSTEM, RandomSource

SCHNORR_LABEL: Final[str] = "skyjo-lan/v1/schnorr-pok"
KEY_COMMITMENT_LABEL: Final[str] = "skyjo-lan/v1/key-commitment"
COMMITMENT_BYTES: Final[int] = 32


def keygen(*, rng: RandomSource = SYSTEM) -> tuple[int, Point]:
    """A fresh key pair (x, X = xG), x uniform in [1, L) from `rng`."""
    x = random_scalar(rng=rng)
    return x, mul_base(x)


def key_commitment(public_key: Point, context: bytes) -> bytes:
    """H(X), bound to `context` (session, seat): published before any key is revealed."""
    return hash512(KEY_COMMITMENT_LABEL, public_key, context)[:COMMITMENT_BYTES]


def verify_key_commitment(commitment: bytes, public_key: Point, context: bytes) -> None:
    """Raise `InvalidCommitment` unless `public_key` opens `commitment` under `context`."""
    if not isinstance(commitment, bytes) or len(commitment) != COMMITMENT_BYTES:
        raise MalformedData(f"a key commitment is {COMMITMENT_BYTES} bytes")
    if not hmac.compare_digest(commitment, key_commitment(public_key, context)):
        raise InvalidCommitment("public key does not match its commitment")


@dataclass(frozen=True, slots=True)
class SchnorrProof:
    """Non-interactive Schnorr proof of knowledge of x with X = xG, in (challenge, response) form.

    Schnorr's identification protocol (Schnorr, "Efficient signature generation by smart cards",
    J. Cryptology 4(3), 1991) made non-interactive with Fiat-Shamir as in RFC 8235, "Schnorr
    Non-interactive Zero-Knowledge Proof", Section 3.2 (elliptic-curve setting; the hash binds the
    generator, the public key, the commitment and "other info", our `context`): commitment
    A = wG, challenge e = H(label, G, X, A, context), response s = w + e*x (mod L); the verifier
    recomputes A' = sG - eX and accepts iff H(label, G, X, A', context) == e. Cost: prove 1
    fixed-base multiplication, verify 1 fixed-base + 1 variable-base multiplication.
    """

    challenge: int
    response: int

    def __post_init__(self) -> None:
        for name in ("challenge", "response"):
            value = getattr(self, name)
            if not isinstance(value, int) or not 0 <= value < L:
                raise MalformedData(f"{name} must be an integer in [0, L)")

    def to_wire(self) -> tuple[bytes, bytes]:
        """(e, s) as two 32-byte little-endian scalars."""
        return (encode_scalar(self.challenge), encode_scalar(self.response))

    @classmethod
    def from_wire(cls, obj: object) -> SchnorrProof:
        """Parse a received proof; both scalars must be canonical (< L)."""
        if not isinstance(obj, list | tuple) or len(obj) != 2:
            raise MalformedData("a Schnorr proof is a pair (challenge, response)")
        return cls(decode_scalar(obj[0]), decode_scalar(obj[1]))


def prove_key(secret: int, public_key: Point, context: bytes, *, rng: RandomSource = SYSTEM) -> SchnorrProof:
    """Prove knowledge of `secret` for `public_key` (= secret*G) under `context` (nonce from `rng`)."""
    w = random_scalar(rng=rng)
    e = challenge(SCHNORR_LABEL, [BASE, public_key], [mul_base(w)], context)
    return SchnorrProof(e, scalar_muladd(e, secret, w))  # secret operands: libsodium's scalar code


def verify_key(public_key: Point, proof: SchnorrProof, context: bytes) -> None:
    """Raise `InvalidProof` unless `proof` shows knowledge of log_G(public_key) under `context`."""
    if public_key == IDENTITY:  # decode_point already refuses it; kept as a cheap safeguard
        raise InvalidProof("the identity is not a public key")
    a = lincomb_public([(proof.response, BASE), (-proof.challenge, public_key)])
    if challenge(SCHNORR_LABEL, [BASE, public_key], [a], context) != proof.challenge:
        raise InvalidProof("Schnorr proof of key knowledge does not verify")
