"""Joint coins by commit-reveal."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.crypto.coins import (
    CoinContribution,
    coin_commitment,
    combine_coins,
    verify_coin_reveal,
)
from protocol.crypto.errors import InvalidCommitment, MalformedData
from protocol.crypto.hashing import make_context

CONTEXT = make_context(b"session", 0, b"\x44" * 64)
LABEL = "first player"


def run_coin(n: int, seats: int = 4) -> int:
    contributions = {seat: CoinContribution.new() for seat in range(seats)}
    commitments = {seat: c.commitment(LABEL, CONTEXT, seat) for seat, c in contributions.items()}
    values = {}
    for seat, c in contributions.items():
        reveal = CoinContribution.from_wire(list(c.to_wire()))
        verify_coin_reveal(commitments[seat], LABEL, CONTEXT, seat, reveal)
        values[seat] = reveal.value
    return combine_coins(LABEL, CONTEXT, values, n)


def test_commit_reveal_round_trip() -> None:
    c = CoinContribution.new()
    commitment = c.commitment(LABEL, CONTEXT, 2)
    assert len(commitment) == 32
    assert commitment == coin_commitment(LABEL, CONTEXT, 2, c.nonce, c.value)
    verify_coin_reveal(commitment, LABEL, CONTEXT, 2, c)


def test_reveal_that_does_not_match_fails() -> None:
    c = CoinContribution.new()
    commitment = c.commitment(LABEL, CONTEXT, 2)
    other_value = dataclasses.replace(c, value=bytes(a ^ 1 for a in c.value))
    other_nonce = dataclasses.replace(c, nonce=bytes(a ^ 1 for a in c.nonce))
    for bad in (other_value, other_nonce, CoinContribution.new()):
        with pytest.raises(InvalidCommitment):
            verify_coin_reveal(commitment, LABEL, CONTEXT, 2, bad)
    with pytest.raises(InvalidCommitment):  # another seat cannot claim it
        verify_coin_reveal(commitment, LABEL, CONTEXT, 3, c)
    with pytest.raises(InvalidCommitment):  # nor another coin or session
        verify_coin_reveal(commitment, "other coin", CONTEXT, 2, c)
    with pytest.raises(InvalidCommitment):
        verify_coin_reveal(commitment, LABEL, make_context(b"s2", 0, b""), 2, c)
    with pytest.raises(MalformedData):
        verify_coin_reveal(commitment[:16], LABEL, CONTEXT, 2, c)


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=1, max_value=2**256), st.integers(min_value=1, max_value=8))
def test_combined_coin_is_in_range(n: int, seats: int) -> None:
    assert 0 <= run_coin(n, seats) < n


def test_coin_is_deterministic_and_depends_on_every_input() -> None:
    values = {seat: CoinContribution.new().value for seat in range(3)}
    n = 2**64
    coin = combine_coins(LABEL, CONTEXT, values, n)
    assert coin == combine_coins(LABEL, CONTEXT, dict(reversed(values.items())), n)  # seat order
    assert coin != combine_coins(LABEL, CONTEXT, {**values, 1: bytes(32)}, n)
    assert coin != combine_coins("another", CONTEXT, values, n)
    assert coin != combine_coins(LABEL, make_context(b"x", 0, b""), values, n)
    assert coin != combine_coins(LABEL, CONTEXT, values, n, index=1)
    assert coin != combine_coins(LABEL, CONTEXT, {0: values[0], 1: values[2], 2: values[1]}, n)


def test_coin_spreads_over_the_range() -> None:
    counts = Counter(run_coin(4, seats=2) for _ in range(400))
    assert set(counts) == {0, 1, 2, 3}
    assert min(counts.values()) > 60


def test_bad_arguments() -> None:
    values = {0: bytes(32)}
    for n in (0, 2**256 + 1):
        with pytest.raises(ValueError):
            combine_coins(LABEL, CONTEXT, values, n)
    with pytest.raises(ValueError):
        combine_coins(LABEL, CONTEXT, {}, 6)
    with pytest.raises(MalformedData):
        combine_coins(LABEL, CONTEXT, {0: b"short"}, 6)
    for wire in (None, [bytes(32)], [bytes(32), bytes(31)], [5, bytes(32)]):
        with pytest.raises(MalformedData):
            CoinContribution.from_wire(wire)
