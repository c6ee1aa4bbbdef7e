"""Unambiguous encoding and the Fiat-Shamir challenge helper."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.crypto.group import L
from protocol.crypto.hashing import HashItem, challenge, encode, hash_to_scalar, indexed_scalars, make_context

items = st.recursive(
    st.binary(max_size=8) | st.integers(min_value=0, max_value=2**70) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=6,
)


def _canon(item: HashItem) -> object:
    if isinstance(item, bytes | int | str):
        return (type(item).__name__, item)
    return ("list", tuple(_canon(i) for i in item))


@settings(max_examples=200, deadline=None)
@given(st.lists(items, max_size=3), st.lists(items, max_size=3))
def test_encoding_is_injective(a: list[HashItem], b: list[HashItem]) -> None:
    if _canon(a) != _canon(b):
        assert encode(*a) != encode(*b)
    else:
        assert encode(*a) == encode(*b)


def test_encoding_separates_boundaries_and_types() -> None:
    assert encode(b"ab", b"c") != encode(b"a", b"bc")
    assert encode([b"a", b"b"]) != encode(b"a", b"b")
    assert encode(b"\x01") != encode(1)
    assert encode("a") != encode(b"a")
    assert encode([[]]) != encode([], [])
    with pytest.raises(ValueError):
        encode(-1)


def test_challenge_binds_every_input() -> None:
    base = challenge("label", [b"stmt"], [b"commit"], b"ctx")
    assert 0 <= base < L
    assert base == challenge("label", [b"stmt"], [b"commit"], b"ctx")
    assert base != challenge("label2", [b"stmt"], [b"commit"], b"ctx")
    assert base != challenge("label", [b"stmt2"], [b"commit"], b"ctx")
    assert base != challenge("label", [b"stmt"], [b"commit2"], b"ctx")
    assert base != challenge("label", [b"stmt"], [b"commit"], b"ctx2")
    # moving an item from the statement to the commitments changes the challenge
    assert challenge("l", [b"a", b"b"], [], b"") != challenge("l", [b"a"], [b"b"], b"")
    with pytest.raises(TypeError):
        challenge("label", [], [], "ctx")  # type: ignore[arg-type]


def test_context_separates_sessions_seats_and_moments() -> None:
    ctx = make_context(b"session", 1, b"h" * 32)
    assert ctx != make_context(b"session", 2, b"h" * 32)
    assert ctx != make_context(b"session2", 1, b"h" * 32)
    assert ctx != make_context(b"session", 1, b"g" * 32)
    assert len(ctx) == 64


def test_hash_to_scalar_is_reduced() -> None:
    assert all(0 <= hash_to_scalar(b"x", i) < L for i in range(50))


def _spec_encoding(item: HashItem) -> bytes:
    """PROTOCOL.md 3.2, written out plainly: a tag, an 8-byte big-endian length, the content."""
    if isinstance(item, bytes):
        return b"B" + len(item).to_bytes(8, "big") + item
    if isinstance(item, str):
        raw = item.encode("utf-8")
        return b"S" + len(raw).to_bytes(8, "big") + raw
    if isinstance(item, int):
        raw = item.to_bytes((item.bit_length() + 7) // 8, "big")
        return b"I" + len(raw).to_bytes(8, "big") + raw
    return b"L" + len(item).to_bytes(8, "big") + b"".join(_spec_encoding(i) for i in item)


statements = st.recursive(
    st.binary(min_size=30, max_size=34)
    | st.binary(max_size=3)
    | st.integers(0, 2**260)
    | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(statements, max_size=4))
def test_encoding_fast_path_gives_the_specified_bytes(items_: list[HashItem]) -> None:
    # The list-of-points fast path in `_encode_into` must not change a single byte of what
    # every peer hashes (a proof made by one version must check under another).
    assert encode(*items_) == b"".join(_spec_encoding(i) for i in items_)


def test_indexed_scalars_are_hash_to_scalar_of_each_index() -> None:
    # the shuffle's challenges u_j and the verifier's chain weights: one prefix state, same scalars
    seed = bytes(range(64))
    assert indexed_scalars(seed, 300) == [hash_to_scalar(seed, j) for j in range(300)]
    prefix = ["label", [b"\x01" * 32, 7], 2**70]
    assert indexed_scalars(prefix, 5) == [hash_to_scalar(prefix, j) for j in range(5)]
    assert indexed_scalars(seed, 0) == []


@pytest.mark.parametrize("n", [8, 9, 150])
def test_a_list_of_points_is_encoded_item_by_item(n: int) -> None:
    # the one-join path for lists of 32-byte strings gives the general encoding, byte for byte
    points = [bytes([i % 256]) * 32 for i in range(n)]
    expected = b"L" + n.to_bytes(8, "big") + b"".join(b"B" + (32).to_bytes(8, "big") + p for p in points)
    assert encode(points) == expected
    assert encode(tuple(points)) == expected
    mixed = [*points, b"short"]
    assert (
        encode(mixed)
        == b"L" + (n + 1).to_bytes(8, "big") + expected[9:] + b"B" + (5).to_bytes(8, "big") + b"short"
    )


def test_a_context_is_the_hash_of_its_encoding_whether_or_not_its_head_is_kept() -> None:
    from protocol.crypto import hashing

    class Named(bytes):
        pass

    hashing._CONTEXT_HEADS.clear()
    sessions = [b"session", b"other session", b"x" * 40]
    hashes = [b"h" * 32, b"g" * 32, b"short", b""]
    for _ in range(2):  # the second time, every head is kept
        for session in sessions:
            for seat in [0, 1, 3, 1023]:
                for transcript_hash in hashes:
                    expected = hashing.hash512(hashing.CONTEXT_LABEL, session, seat, transcript_hash)
                    assert make_context(session, seat, transcript_hash) == expected
    assert (b"session", 1) in hashing._CONTEXT_HEADS
    # keys equal to a kept one, which `encode` may take otherwise, are not answered from the store
    for session, seat in [(b"session", True), (b"session", False), (Named(b"session"), 1)]:
        expected = hashing.hash512(hashing.CONTEXT_LABEL, session, seat, b"h" * 32)
        assert make_context(session, seat, b"h" * 32) == expected
