"""Issue 29, the deal's Python: secrets drawn in bulk, decks encoded once.

The deal's secret scalars (`group.random_scalars`), the permutation's offsets
(`shuffle._uniform_below_each`) and the share batches' weights (`dleq._weights`) are cut from one
`secrets.token_bytes` call; these tests pin their range (non-zero, below the same bound as one
`randbelow` draw), their independence (distinct draws) and that a seeded stand-in for `secrets`
still gets the draws one by one, in the order it always has. A deck's encoding made once
(`hashing.encoded`) must hash exactly as the deck itself.
"""

from __future__ import annotations

import importlib
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.crypto import dleq, group
from protocol.crypto.elgamal import Ciphertext
from protocol.crypto.group import BASE, L, mul_base, random_scalar, random_scalars
from protocol.crypto.hashing import HashItem, encode, encoded, hash512
from protocol.crypto.shuffle import _deck_code, _get_challenges, _get_nizkp_challenge, shuffle

shuffle_module = importlib.import_module("protocol.crypto.shuffle")


class _Scripted:
    """Stands in for the `secrets` module: `token_bytes` hands out the scripted bytes in order."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks
        self.asked: list[int] = []

    def token_bytes(self, n: int) -> bytes:
        self.asked.append(n)
        data = b"".join(self.chunks)[:n]
        self.chunks = [b"".join(self.chunks)[n:]]
        return data + bytes(n - len(data))

    def randbelow(self, n: int) -> int:  # pragma: no cover - the bulk path never calls it
        raise AssertionError("a bulk draw called randbelow")


class _Seeded:
    """A seeded stand-in for `secrets`, as the model tests and the vector generator use."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def randbelow(self, n: int) -> int:
        return self.rng.randrange(n)

    def token_bytes(self, n: int) -> bytes:
        return self.rng.randbytes(n)


def _le(value: int, size: int) -> bytes:
    return value.to_bytes(size, "little")


# --- secret scalars -------------------------------------------------------------------------------


@pytest.mark.parametrize("count", [0, 1, 5, 450])
def test_bulk_scalars_are_in_range_and_distinct(count: int) -> None:
    ks = random_scalars(count)
    assert len(ks) == count
    assert all(type(k) is int and 0 < k < L for k in ks)
    assert len(set(ks)) == count


def test_bulk_scalars_cover_the_whole_range() -> None:
    # L is just above 2^252 (by about 2^124): about half the scalars have bit 251 set, the top
    # ones have 252 bits, none more
    ks = random_scalars(400)
    high = sum(k >> 251 for k in ks)
    assert 120 < high < 280
    assert max(ks).bit_length() == 252


def test_bulk_scalars_reject_zero_and_values_from_l_up(monkeypatch: pytest.MonkeyPatch) -> None:
    top = 7 << 253  # bits 253..255: cleared by the mask, so this candidate is 5
    script = _Scripted(
        [_le(0, 32), _le(L, 32), _le(2**253 - 1, 32), _le(L - 1, 32), _le(top | 5, 32), _le(1, 32)]
    )
    monkeypatch.setattr(group, "secrets", script)
    monkeypatch.setattr(group, "_SYSTEM_SECRETS", script)
    assert random_scalars(3) == [L - 1, 5, 1]
    assert script.asked == [32 * (2 * 3 + 8)]


def test_bulk_scalars_draw_again_when_too_few_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    rejected = _le(L, 32) * (2 * 2 + 8)  # every candidate of the first call is refused
    script = _Scripted([rejected, _le(2, 32), _le(3, 32)])
    monkeypatch.setattr(group, "secrets", script)
    monkeypatch.setattr(group, "_SYSTEM_SECRETS", script)
    assert random_scalars(2) == [2, 3]
    assert script.asked == [32 * 12, 32 * 12]


def test_a_seeded_stand_in_gets_the_same_draws_as_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(group, "secrets", _Seeded(7))
    bulk = random_scalars(6)
    monkeypatch.setattr(group, "secrets", _Seeded(7))
    assert bulk == [random_scalar() for _ in range(6)]


def test_a_passed_random_source_gets_the_same_draws_as_one_by_one() -> None:
    replay = _Seeded(3)
    assert random_scalars(4, rng=_Seeded(3)) == [random_scalar(rng=replay) for _ in range(4)]


# --- batch weights --------------------------------------------------------------------------------


def test_bulk_weights_are_in_range_and_distinct() -> None:
    ws = list(dleq._weights(300))
    assert len(ws) == 300 and len(set(ws)) == 300
    assert all(0 < w < dleq.WEIGHT_BOUND for w in ws)
    assert max(ws).bit_length() > 120  # 128-bit weights, not fewer


def test_a_zero_weight_is_drawn_again(monkeypatch: pytest.MonkeyPatch) -> None:
    script = _Scripted([_le(9, 16), _le(0, 16), _le(2**128 - 1, 16), _le(4, 16)])
    monkeypatch.setattr(dleq, "secrets", script)
    monkeypatch.setattr(dleq, "_SYSTEM_SECRETS", script)
    assert list(dleq._weights(3)) == [9, 4, 2**128 - 1]
    assert script.asked == [48, 16]


def test_weights_from_a_stand_in_are_drawn_as_they_are_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    stand_in = _Seeded(11)
    monkeypatch.setattr(dleq, "secrets", stand_in)
    weights = dleq._weights(3)
    first = next(weights)
    drawn_between = stand_in.randbelow(1000)  # a draw between two weights comes in between
    rest = list(weights)
    replay = _Seeded(11)
    expected = [replay.randbelow(dleq.WEIGHT_BOUND - 1) + 1]
    assert replay.randbelow(1000) == drawn_between
    expected += [replay.randbelow(dleq.WEIGHT_BOUND - 1) + 1 for _ in range(2)]
    assert [first, *rest] == expected


# --- the permutation -----------------------------------------------------------------------------------


def test_bulk_offsets_are_below_their_bounds() -> None:
    bounds = [1, 2, 3, 4, 5, 150, 2**31 + 1, 2**32 - 1] * 20
    values = shuffle_module._uniform_below_each(bounds)
    assert len(values) == len(bounds)
    assert all(0 <= v < m for v, m in zip(values, bounds, strict=True))
    with pytest.raises(ValueError):
        shuffle_module._uniform_below_each([3, 0])
    with pytest.raises(ValueError):
        shuffle_module._uniform_below_each([2**32])


def test_bulk_offsets_refuse_candidates_not_below_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # bound 5: 3 bits kept; 5, 6, 7 refused; the high bits of a candidate are cut off
    script = _Scripted([_le(5, 4), _le(7, 4), _le(0xFFFFFFF8 | 4, 4), _le(6, 4), _le(1, 4)])
    monkeypatch.setattr(shuffle_module, "_SYSTEM_SECRETS", script)
    assert shuffle_module._uniform_below_each([5, 5]) == [4, 1]
    assert script.asked == [8 * 2 + 32]


def test_bulk_permutations_are_uniform() -> None:
    counts = Counter(tuple(shuffle_module.gen_permutation(3)) for _ in range(6000))
    assert len(counts) == 6 and all(850 < c < 1150 for c in counts.values())
    assert sorted(shuffle_module.gen_permutation(150)) == list(range(150))


def test_a_seeded_permutation_is_drawn_as_always(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shuffle_module, "secrets", _Seeded(5))
    psi = shuffle_module.gen_permutation(40)
    replay, pool, expected = _Seeded(5), list(range(40)), []
    for i in range(40):
        k = i + replay.randbelow(40 - i)
        expected.append(pool[k])
        pool[k] = pool[i]
    assert psi == expected


# --- a deck encoded once ------------------------------------------------------------------------------

statements = st.recursive(
    st.binary(max_size=40) | st.integers(0, 2**70) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=12),
    max_leaves=30,
)


@settings(max_examples=100, deadline=None)
@given(st.lists(statements, max_size=3), statements, st.lists(statements, max_size=3))
def test_an_encoded_item_hashes_as_the_item(
    before: list[HashItem], item: HashItem, after: list[HashItem]
) -> None:
    assert encode(*before, encoded(item), *after) == encode(*before, item, *after)
    assert encode([*before, encoded(item), *after]) == encode([*before, item, *after])
    assert hash512("label", [encoded(item)]) == hash512("label", [item])


def test_the_challenges_are_the_same_with_the_decks_encoded_once() -> None:
    key = mul_base(random_scalar())
    deck = [Ciphertext(BASE, mul_base(random_scalar())) for _ in range(9)]
    context = bytes(64)
    outputs, proof = shuffle(deck, key, context)
    codes = (_deck_code(deck), _deck_code(outputs))
    assert _get_challenges(deck, outputs, proof.commitments, key, context, codes) == _get_challenges(
        deck, outputs, proof.commitments, key, context
    )
    t = (proof.t1, proof.t2, proof.t3, proof.t41, proof.t42)
    once = _get_nizkp_challenge(
        deck, outputs, proof.commitments, proof.chain, key, t, proof.t_hat, context, codes
    )
    again = _get_nizkp_challenge(deck, outputs, proof.commitments, proof.chain, key, t, proof.t_hat, context)
    assert once == again == proof.challenge
