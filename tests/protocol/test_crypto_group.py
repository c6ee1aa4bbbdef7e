"""The group wrapper: point and scalar validation, identity/zero handling, hash-to-group."""

from __future__ import annotations

import secrets

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl import bindings as sodium

from protocol.crypto.elgamal import Codebook, card_point
from protocol.crypto.errors import CryptoError, InvalidPoint, InvalidScalar, MalformedData
from protocol.crypto.group import (
    BASE,
    FIELD_P,
    IDENTITY,
    OPS,
    L,
    Point,
    add,
    decode_point,
    decode_scalar,
    encode_scalar,
    from_uniform,
    is_valid_point,
    lincomb,
    mul,
    mul_base,
    neg,
    point_sum,
    random_scalar,
    sub,
)
from protocol.crypto.hashing import hash_to_point
from protocol.crypto.shuffle import chain_generator, generators

# The eight points of order dividing 8 on edwards25519 (the torsion subgroup), canonical encodings.
SMALL_ORDER = [
    bytes.fromhex("0100000000000000000000000000000000000000000000000000000000000000"),  # identity
    bytes.fromhex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),  # order 2
    bytes.fromhex("0000000000000000000000000000000000000000000000000000000000000000"),  # order 4
    bytes.fromhex("0000000000000000000000000000000000000000000000000000000000000080"),  # order 4
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),  # order 8
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85"),  # order 8
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),  # order 8
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa"),  # order 8
]
ORDER_8 = SMALL_ORDER[4]


def _times8(p: bytes) -> bytes:
    p2 = sodium.crypto_core_ed25519_add(p, p)
    p4 = sodium.crypto_core_ed25519_add(p2, p2)
    return sodium.crypto_core_ed25519_add(p4, p4)


def _random_point() -> Point:
    return mul_base(random_scalar())


# --- decode_point ------------------------------------------------------------------------------


def test_decode_accepts_valid_points() -> None:
    for p in (BASE, _random_point(), hash_to_point("test", b"x")):
        assert decode_point(bytes(p)) == p


def test_small_order_points_really_have_small_order() -> None:
    for p in SMALL_ORDER:
        assert _times8(p) == IDENTITY
    assert len(set(SMALL_ORDER)) == 8


@pytest.mark.parametrize("encoding", SMALL_ORDER)
def test_decode_rejects_every_small_order_point(encoding: bytes) -> None:
    with pytest.raises(InvalidPoint, match=r"identity|small-order"):
        decode_point(encoding)


def test_decode_rejects_identity_with_a_clear_reason() -> None:
    with pytest.raises(InvalidPoint, match="identity"):
        decode_point(bytes(IDENTITY))
    with pytest.raises(InvalidPoint, match="identity"):  # x = 0 with the sign bit set
        decode_point(bytes(IDENTITY[:31]) + b"\x80")


@pytest.mark.parametrize("k", [0, 1, 3, 9, 18])
@pytest.mark.parametrize("sign", [0, 1])
def test_decode_rejects_non_canonical_encodings(k: int, sign: int) -> None:
    # y = p + k encodes the same y as k: "p + 1" is the identity, p + 3 a point libsodium's
    # decoder accepts (it is on the curve), and all-ones (p + 18, sign bit) the largest encoding.
    encoding = ((FIELD_P + k) | (sign << 255)).to_bytes(32, "little")
    with pytest.raises(InvalidPoint, match="non-canonical"):
        decode_point(encoding)


def test_non_canonical_encoding_decodes_in_libsodium_but_is_refused() -> None:
    encoding = (FIELD_P + 3).to_bytes(32, "little")
    canonical = sodium.crypto_core_ed25519_add(encoding, bytes(IDENTITY))  # libsodium decodes it
    assert canonical == (3).to_bytes(32, "little")
    assert not sodium.crypto_core_ed25519_is_valid_point(encoding)
    with pytest.raises(InvalidPoint, match="non-canonical"):
        decode_point(encoding)


def test_decode_rejects_mixed_order_point() -> None:
    mixed = sodium.crypto_core_ed25519_add(bytes(_random_point()), ORDER_8)
    assert _times8(mixed) != IDENTITY
    with pytest.raises(InvalidPoint, match="prime-order subgroup"):
        decode_point(mixed)


def test_decode_rejects_points_off_the_curve() -> None:
    off = (2).to_bytes(32, "little")  # y = 2 has no x on edwards25519
    with pytest.raises(InvalidPoint, match="do not decode"):
        decode_point(off)


@pytest.mark.parametrize("data", [b"", bytes(31), bytes(33), bytes(BASE) + b"\x00"])
def test_decode_rejects_wrong_length(data: bytes) -> None:
    with pytest.raises(InvalidPoint, match="32 bytes"):
        decode_point(data)


@pytest.mark.parametrize("data", [None, 5, "ab" * 16, bytearray(BASE), memoryview(bytes(BASE))])
def test_decode_rejects_wrong_type(data: object) -> None:
    with pytest.raises(InvalidPoint, match="must be bytes"):
        decode_point(data)


def test_invalid_point_is_a_typed_crypto_error() -> None:
    assert issubclass(InvalidPoint, MalformedData)
    assert issubclass(InvalidPoint, CryptoError)
    assert issubclass(InvalidScalar, CryptoError)


@settings(max_examples=30, deadline=None)
@given(st.binary(min_size=32, max_size=32))
def test_decode_never_accepts_anything_outside_the_subgroup(data: bytes) -> None:
    try:
        p = decode_point(data)
    except InvalidPoint:
        return
    assert p != IDENTITY and sodium.crypto_core_ed25519_is_valid_point(p)


# --- scalars -----------------------------------------------------------------------------------


def test_scalar_round_trip_and_range() -> None:
    for k in (0, 1, L - 1, random_scalar()):
        assert decode_scalar(encode_scalar(k)) == k
    with pytest.raises(InvalidScalar, match="not reduced"):
        decode_scalar(L.to_bytes(32, "little"))
    with pytest.raises(InvalidScalar, match="not reduced"):
        decode_scalar(b"\xff" * 32)
    with pytest.raises(InvalidScalar, match="32 bytes"):
        decode_scalar(b"\x01" * 31)
    with pytest.raises(InvalidScalar, match="must be bytes"):
        decode_scalar(5)
    with pytest.raises(InvalidScalar):
        encode_scalar(L)
    with pytest.raises(InvalidScalar):
        encode_scalar(-1)


def test_random_scalars_are_nonzero_and_distinct() -> None:
    ks = {random_scalar() for _ in range(64)}
    assert len(ks) == 64 and all(0 < k < L for k in ks)


# --- arithmetic, zero and identity -------------------------------------------------------------


def test_zero_scalar_and_identity_are_handled() -> None:
    p = _random_point()
    assert mul(0, p) == IDENTITY
    assert mul(L, p) == IDENTITY
    assert mul_base(0) == IDENTITY
    assert mul(5, IDENTITY) == IDENTITY
    assert sub(p, p) == IDENTITY
    assert add(p, IDENTITY) == p
    assert add(IDENTITY, p) == p
    assert add(p, neg(p)) == IDENTITY
    assert point_sum([]) == IDENTITY
    assert lincomb([]) == IDENTITY
    assert lincomb([(3, p), (L - 3, p)]) == IDENTITY


def test_group_laws() -> None:
    a, b = random_scalar(), random_scalar()
    p = _random_point()
    assert mul(a, mul(b, p)) == mul(a * b % L, p)
    assert add(mul(a, p), mul(b, p)) == mul(a + b, p)
    assert mul(a, BASE) == mul_base(a)
    assert mul(L - 1, p) == neg(p)


def test_lincomb_matches_the_naive_sum_and_merges_points() -> None:
    p, q = _random_point(), _random_point()
    terms = [(5, p), (7, q), (11, p), (13, BASE), (17, BASE), (0, q), (19, IDENTITY)]
    naive = point_sum(mul(k, x) for k, x in terms if x != IDENTITY and k)
    OPS.reset()
    assert lincomb(terms) == naive
    assert OPS.var_mul == 2 and OPS.base_mul == 1  # p and q once each, G once


def test_mul_refuses_an_unvalidated_bad_point() -> None:
    mixed = Point(sodium.crypto_core_ed25519_add(bytes(_random_point()), ORDER_8))
    with pytest.raises(InvalidPoint):
        mul(5, mixed)


# --- hash to group -----------------------------------------------------------------------------


def test_libsodium_from_uniform_lands_in_the_prime_order_subgroup() -> None:
    for _ in range(32):
        p = from_uniform(secrets.token_bytes(32))
        assert sodium.crypto_core_ed25519_is_valid_point(p)
        assert add(mul(L - 1, p), p) == IDENTITY  # (L - 1) P + P = L P = O


def test_hash_to_point_is_deterministic_domain_separated_and_of_order_l() -> None:
    p = hash_to_point("label", b"a", 1)
    assert p == hash_to_point("label", b"a", 1)
    assert p != hash_to_point("label", b"a", 2)
    assert p != hash_to_point("other", b"a", 1)
    assert p != hash_to_point("label", [b"a", 1])
    assert is_valid_point(p) and p != IDENTITY
    assert add(mul(L - 1, p), p) == IDENTITY


def test_card_encodings_are_distinct_for_a_whole_deck() -> None:
    book = Codebook(b"game-1", 150 + 27)
    assert len(set(book.points)) == 177
    assert all(is_valid_point(p) for p in book.points)
    assert card_point(b"game-1", 3) == book.points[3]
    assert card_point(b"game-2", 3) != book.points[3]
    assert BASE not in book.points


def test_generators_are_fixed_distinct_and_cached() -> None:
    hs = generators(20)
    assert hs == generators(20) and hs[:5] == generators(5)
    assert len({*hs, chain_generator(), BASE}) == 22
    assert all(is_valid_point(h) for h in hs)
