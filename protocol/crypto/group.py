"""The prime-order subgroup of edwards25519, through libsodium (PyNaCl) and nothing else.

Why this module exists: every other module of `protocol.crypto` does group arithmetic only through
the functions below, so there is exactly one place that talks to libsodium, one place that decides
what a valid point is, and one place that counts the expensive operations for the benchmarks.

Representation
- A point is its 32-byte canonical encoding (`Point`, a `bytes` NewType). The group has prime order
  `L`; the base point `BASE` (G) generates it. We never implement curve arithmetic ourselves.
- A scalar is a Python `int` in [0, L). It becomes 32 little-endian bytes only at the libsodium call
  and on the wire. Scalar arithmetic (products, sums mod L) is plain Python, which costs ~0.3 us
  against ~90 us for a variable-base multiplication.

Validation (`decode_point`): every point received from another peer goes through `decode_point`
once. libsodium's `crypto_core_ed25519_is_valid_point` rejects non-canonical encodings (y >= p),
points not on the curve, the eight small-order points (identity included, with or without the sign
bit) and points outside the prime-order subgroup (it multiplies by L). It does NOT accept anything
but `bytes` of length 32 (PyNaCl raises a TypeError instead), so we check type and length first; we
also test canonicity and the identity in Python before calling it, which gives a precise reason.

The identity and the zero scalar: libsodium's scalar multiplications refuse a zero scalar and an
identity result, and refuse the identity as input. Honest data never *transmits* the identity
(received identities are rejected), but a verifier recomputing commitments from adversarial
responses can legitimately meet it (a zero response, a sum of commitments that cancels). So `mul`
and `mul_base` return `IDENTITY` for a zero scalar or an identity input, and `add`/`sub` (which
libsodium performs on any curve point) handle it; inside proofs the identity is hashed as its
canonical encoding 01 00 .. 00. An honest prover produces an identity only with probability about
2^-250 (a random scalar hitting 0 or a sum cancelling), in which case the receiver rejects its data.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Final, NewType

from nacl import bindings as _sodium
from nacl import exceptions as _sodium_exc

from protocol.crypto.errors import InvalidPoint, InvalidScalar
from protocol.crypto.randomness import SYSTEM, RandomSource

Point = NewType("Point", bytes)
"""A 32-byte canonical encoding of a point of the prime-order subgroup (or the identity, internally)."""

L: Final[int] = 2**252 + 27742317777372353535851937790883648493
"""Order of the prime-order subgroup of edwards25519 (and the modulus of every scalar)."""

FIELD_P: Final[int] = 2**255 - 19
POINT_BYTES: Final[int] = 32
SCALAR_BYTES: Final[int] = 32

_Y_MASK: Final[int] = (1 << 255) - 1

_add = _sodium.crypto_core_ed25519_add
_sub = _sodium.crypto_core_ed25519_sub
_is_valid_point = _sodium.crypto_core_ed25519_is_valid_point
_from_uniform = _sodium.crypto_core_ed25519_from_uniform
_scalarmult = _sodium.crypto_scalarmult_ed25519_noclamp
_scalarmult_base = _sodium.crypto_scalarmult_ed25519_base_noclamp

IDENTITY: Final[Point] = Point(b"\x01" + bytes(31))
"""The neutral element (x = 0, y = 1). Never valid on the wire; may appear in internal sums."""

BASE: Final[Point] = Point(_scalarmult_base((1).to_bytes(32, "little")))
"""The standard base point G of edwards25519 (encoding 0x58 0x66 ... 0x66)."""


@dataclass
class OpCounter:
    """Counts the libsodium operations, so benchmarks can report multiplications per card."""

    var_mul: int = 0
    base_mul: int = 0
    add: int = 0
    validate: int = 0
    from_uniform: int = 0

    def reset(self) -> None:
        """Set every counter back to zero."""
        for f in fields(self):
            setattr(self, f.name, 0)

    def snapshot(self) -> dict[str, int]:
        """Current counts, by operation name."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


OPS: Final[OpCounter] = OpCounter()
"""Process-wide operation counter (cheap: one integer increment per libsodium call)."""


# --- scalars -----------------------------------------------------------------------------------


def random_scalar(*, rng: RandomSource = SYSTEM) -> int:
    """A uniform secret scalar in [1, L), from `rng` (never zero, so G*k is never the identity).

    One draw: `rng.randbelow(L - 1) + 1`.
    """
    return system_or(rng, secrets).randbelow(L - 1) + 1


def system_or(rng: RandomSource, module_secrets: RandomSource) -> RandomSource:
    """`rng`, or for `SYSTEM` the `secrets` module as the drawing module names it.

    The default is drawn through the caller's own module attribute `secrets` (not through
    `randomness`) because test stand-ins still replace that attribute in `group`, `shuffle` and
    `coins` (tests/protocol/model.py, tests/protocol/secrecy.py, tools/vectors/);
    unpatched it is the `secrets` module itself, so production draws are unchanged.
    """
    return module_secrets if rng is SYSTEM else rng


def encode_scalar(k: int) -> bytes:
    """32-byte little-endian encoding of a scalar already reduced into [0, L)."""
    if not 0 <= k < L:
        raise InvalidScalar("scalar out of range [0, L)")
    return k.to_bytes(SCALAR_BYTES, "little")


def decode_scalar(data: object) -> int:
    """Decode a received scalar: exactly 32 bytes, little-endian, strictly below L.

    Out-of-range values are rejected, not reduced, so every scalar has exactly one encoding and a
    proof cannot be re-encoded into a different but still valid byte string.
    """
    if not isinstance(data, bytes):
        raise InvalidScalar(f"scalar must be bytes, got {type(data).__name__}")
    if len(data) != SCALAR_BYTES:
        raise InvalidScalar(f"scalar must be {SCALAR_BYTES} bytes, got {len(data)}")
    k = int.from_bytes(data, "little")
    if k >= L:
        raise InvalidScalar("scalar is not reduced modulo L")
    return k


# --- points ------------------------------------------------------------------------------------


def decode_point(data: object) -> Point:
    """Validate a point received from outside and return it typed as `Point`.

    Rejects (with `InvalidPoint` and a reason): anything but 32 `bytes`; non-canonical encodings
    (y >= 2^255-19); the identity (also with its sign bit set); points not on the curve; the eight
    small-order points; points of mixed order (prime-order point + small-order point). The cost is
    one `crypto_core_ed25519_is_valid_point` call (~43 us), paid once per received point.
    """
    if not isinstance(data, bytes):
        raise InvalidPoint(f"point must be bytes, got {type(data).__name__}")
    if len(data) != POINT_BYTES:
        raise InvalidPoint(f"point must be {POINT_BYTES} bytes, got {len(data)}")
    y = int.from_bytes(data, "little") & _Y_MASK
    if y >= FIELD_P:
        raise InvalidPoint("non-canonical point encoding (y >= 2^255 - 19)")
    if y == 1:
        raise InvalidPoint("the identity point is not allowed")
    OPS.validate += 1
    if _is_valid_point(data):
        return Point(data)
    raise InvalidPoint(_why_invalid(data))


def _why_invalid(data: bytes) -> str:
    """Explain why libsodium refused a canonical, non-identity encoding (error path only)."""
    try:
        _add(data, BASE)  # libsodium decodes the point and checks the curve equation
    except _sodium_exc.CryptoError:
        return "bytes do not decode to a point on edwards25519"
    p2 = _add(data, data)
    p4 = _add(p2, p2)
    if _add(p4, p4) == IDENTITY:
        return "small-order point (its order divides 8)"
    return "point outside the prime-order subgroup (it has a small-order component)"


def is_identity(p: Point) -> bool:
    """True for the neutral element."""
    return p == IDENTITY


def add(p: Point, q: Point) -> Point:
    """p + q (libsodium accepts any curve point here, the identity included)."""
    OPS.add += 1
    return Point(_add(p, q))


def sub(p: Point, q: Point) -> Point:
    """p - q."""
    OPS.add += 1
    return Point(_sub(p, q))


def neg(p: Point) -> Point:
    """-p."""
    return sub(IDENTITY, p)


def mul_base(k: int) -> Point:
    """k*G with libsodium's fixed-base tables (~16 us, five times cheaper than `mul`)."""
    k %= L
    if k == 0:
        return IDENTITY
    OPS.base_mul += 1
    return Point(_scalarmult_base(k.to_bytes(SCALAR_BYTES, "little")))


def mul(k: int, p: Point) -> Point:
    """k*p for any point p of the group (variable base, ~90 us; uses `mul_base` when p is G).

    libsodium re-validates p (canonical, not small order, in the prime-order subgroup) on every
    call; a point that fails raises `InvalidPoint`, which only happens for data that skipped
    `decode_point`.
    """
    k %= L
    if k == 0 or p == IDENTITY:
        return IDENTITY
    if k == 1:
        return p
    if p == BASE:
        return mul_base(k)
    OPS.var_mul += 1
    try:
        return Point(_scalarmult(k.to_bytes(SCALAR_BYTES, "little"), p))
    except _sodium_exc.CryptoError as exc:
        raise InvalidPoint("libsodium refused the point in a scalar multiplication") from exc


def point_sum(points: Iterable[Point]) -> Point:
    """Sum of points (the identity for an empty iterable)."""
    acc = IDENTITY
    first = True
    for p in points:
        if first:
            acc, first = p, False
        else:
            acc = add(acc, p)
    return acc


def lincomb(terms: Iterable[tuple[int, Point]]) -> Point:
    """sum(k_i * P_i), with as few libsodium calls as the terms allow.

    libsodium has no multi-scalar multiplication, so each distinct point costs one multiplication
    and one addition. This helper merges terms that share a point (adding their scalars in Python),
    sends every multiple of G to the fixed-base table in a single call, and drops zero scalars and
    identity points. Merging is what makes, e.g., the first shuffle of the public deck cheap: all its
    c1 components are G.
    """
    g_coef = 0
    coefs: dict[Point, int] = {}
    for k, p in terms:
        if p == BASE:
            g_coef += k
        elif p != IDENTITY:
            coefs[p] = coefs.get(p, 0) + k
    acc = mul_base(g_coef)
    for p, k in coefs.items():
        term = mul(k, p)
        if term == IDENTITY:
            continue
        acc = term if acc == IDENTITY else add(acc, term)
    return acc


def from_uniform(data: bytes) -> Point:
    """libsodium's Elligator 2 map of 32 bytes to a point, cofactor cleared (may be the identity)."""
    OPS.from_uniform += 1
    return Point(_from_uniform(data))


def is_valid_point(data: bytes) -> bool:
    """libsodium's full membership test (canonical, on curve, prime-order subgroup, not small order)."""
    OPS.validate += 1
    return len(data) == POINT_BYTES and bool(_is_valid_point(data))
