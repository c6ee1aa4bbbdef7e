"""The verifiable shuffle (Terelius-Wikstrom as in Haenni et al. 2017): soundness checks and blame."""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Sequence
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest

from protocol.crypto import group
from protocol.crypto.dleq import combine_shares, decryption_share
from protocol.crypto.elgamal import (
    Ciphertext,
    Codebook,
    deck_from_wire,
    deck_to_wire,
    decrypt_with_key,
    encrypt,
    reencrypt,
)
from protocol.crypto.errors import InvalidPoint, InvalidProof, MalformedData
from protocol.crypto.group import BASE, IDENTITY, OPS, L, Point, add, random_scalar
from protocol.crypto.hashing import make_context
from protocol.crypto.schnorr import keygen
from protocol.crypto.shuffle import (
    ShuffleChainVerifier,
    ShuffleProof,
    _prove,
    check_shuffle_proof,
    gen_permutation,
    gen_shuffle,
    gen_shuffle_proof,
    prepare_shuffle,
    shuffle,
    verify_shuffle,
    verify_shuffle_chain,
)

TRANSCRIPT = b"\x33" * 64


def ctx(seat: int) -> bytes:
    return make_context(b"session", seat, TRANSCRIPT)


class Table:
    """A few peers with keys, the joint key and a public deck of n cards."""

    def __init__(self, n_cards: int, n_peers: int = 3) -> None:
        self.keys = [keygen() for _ in range(n_peers)]
        self.y = Point(self.keys[0][1])
        for _, pub in self.keys[1:]:
            self.y = add(self.y, pub)
        self.book = Codebook(b"game", n_cards)
        self.deck = self.book.initial_deck(self.y)

    def open(self, deck: Sequence[Ciphertext]) -> list[int]:
        return [
            self.book.index_of(combine_shares(c, [decryption_share(x, c) for x, _ in self.keys]))
            for c in deck
        ]


# --- honest shuffles -----------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_shuffle_of_any_small_length(n: int) -> None:
    t = Table(n)
    out, proof = shuffle(t.deck, t.y, ctx(0))
    verify_shuffle(t.deck, out, t.y, proof, ctx(0))
    assert check_shuffle_proof(proof, t.deck, out, t.y, ctx(0))
    assert sorted(t.open(out)) == list(range(n))
    # and a second shuffle of already shuffled ciphertexts (c1 no longer G)
    out2, proof2 = shuffle(out, t.y, ctx(1))
    verify_shuffle(out, out2, t.y, proof2, ctx(1))
    assert sorted(t.open(out2)) == list(range(n))
    assert all(o.c1 != BASE for o in out2)


def test_shuffles_by_every_peer_keep_the_multiset_and_hide_the_order() -> None:
    t = Table(12, n_peers=3)
    deck = t.deck
    for seat in range(3):
        out, proof = shuffle(deck, t.y, ctx(seat))
        verify_shuffle(deck, out, t.y, proof, ctx(seat))
        assert not set(out) & set(deck)  # every ciphertext re-randomised
        deck = out
    order = t.open(deck)
    assert sorted(order) == list(range(12))
    assert order != list(range(12))  # fails with probability 1/12!


def test_gen_permutation_is_a_permutation() -> None:
    for n in (1, 2, 7, 52):
        assert sorted(gen_permutation(n)) == list(range(n))
    with pytest.raises(ValueError):
        gen_permutation(0)


def test_gen_shuffle_outputs_follow_psi() -> None:
    t = Table(6)
    x = sum(k for k, _ in t.keys) % L
    out, r, psi = gen_shuffle(t.deck, t.y)
    assert [decrypt_with_key(c, x) for c in out] == [t.book.points[j] for j in psi]
    assert out == [reencrypt(t.deck[j], t.y, ri) for j, ri in zip(psi, r, strict=True)]
    proof = gen_shuffle_proof(t.deck, out, r, psi, t.y, ctx(0))
    verify_shuffle(t.deck, out, t.y, proof, ctx(0))
    with pytest.raises(ValueError):
        gen_shuffle_proof(t.deck, out, r, [0, 0, 1, 2, 3, 4], t.y, ctx(0))
    with pytest.raises(ValueError):
        gen_shuffle_proof(t.deck, out[:5], r, psi, t.y, ctx(0))


def test_wire_round_trip() -> None:
    t = Table(4)
    out, proof = shuffle(t.deck, t.y, ctx(0))
    wire = proof.to_wire()
    assert isinstance(wire[1], bytes)
    assert all(isinstance(v, bytes) for part in wire if isinstance(part, list) for v in part)
    received = ShuffleProof.from_wire(wire, expected_len=4)
    assert received == proof
    received_out = deck_from_wire(deck_to_wire(out), 4)
    verify_shuffle(t.deck, received_out, t.y, received, ctx(0))
    packed = msgpack.packb({"deck": deck_to_wire(out), "proof": wire})
    unpacked = msgpack.unpackb(packed)
    assert ShuffleProof.from_wire(unpacked["proof"], expected_len=4) == proof
    assert deck_from_wire(unpacked["deck"], 4) == out


# --- tampering -----------------------------------------------------------------------------------

SCALAR_FIELDS = ["challenge", "s1", "s2", "s3", "s4"]
VECTOR_SCALAR_FIELDS = ["s_hat", "s_prime"]
POINT_FIELDS = ["t1", "t2", "t3", "t41", "t42"]
VECTOR_POINT_FIELDS = ["commitments", "chain", "t_hat"]


@pytest.fixture(scope="module")
def honest() -> tuple[Table, list[Ciphertext], ShuffleProof]:
    t = Table(4)
    deck = shuffle(t.deck, t.y, ctx(0))[0]  # start from a shuffled deck (general c1)
    out, proof = shuffle(deck, t.y, ctx(1))
    t.deck = deck
    return t, out, proof


def _tampered(proof: ShuffleProof, field: str, index: int | None) -> ShuffleProof:
    value = getattr(proof, field)
    if index is None:
        new: Any = (value + 1) % L if isinstance(value, int) else add(value, BASE)
    else:
        items = list(value)
        items[index] = (items[index] + 1) % L if isinstance(items[index], int) else add(items[index], BASE)
        new = tuple(items)
    return dataclasses.replace(proof, **{field: new})


@pytest.mark.parametrize(
    ("field", "index"),
    [(f, None) for f in SCALAR_FIELDS + POINT_FIELDS]
    + [(f, i) for f in VECTOR_SCALAR_FIELDS + VECTOR_POINT_FIELDS for i in (0, 3)],
)
def test_any_tampered_field_fails(
    honest: tuple[Table, list[Ciphertext], ShuffleProof], field: str, index: int | None
) -> None:
    t, out, proof = honest
    verify_shuffle(t.deck, out, t.y, proof, ctx(1))
    bad = _tampered(proof, field, index)
    assert not check_shuffle_proof(bad, t.deck, out, t.y, ctx(1))
    with pytest.raises(InvalidProof):
        verify_shuffle(t.deck, out, t.y, bad, ctx(1))
    # the tampered proof also survives the wire (it is made of valid points) and still fails
    again = ShuffleProof.from_wire(bad.to_wire(), expected_len=4)
    with pytest.raises(InvalidProof):
        verify_shuffle(t.deck, out, t.y, again, ctx(1))


def test_proof_under_another_context_fails(honest: tuple[Table, list[Ciphertext], ShuffleProof]) -> None:
    t, out, proof = honest
    for other in (
        ctx(0),
        ctx(2),
        make_context(b"session-2", 1, TRANSCRIPT),
        make_context(b"session", 1, b""),
    ):
        with pytest.raises(InvalidProof):
            verify_shuffle(t.deck, out, t.y, proof, other)


def test_proof_for_different_outputs_or_key_fails(
    honest: tuple[Table, list[Ciphertext], ShuffleProof],
) -> None:
    t, out, proof = honest
    other_out, _ = shuffle(t.deck, t.y, ctx(1))
    with pytest.raises(InvalidProof):
        verify_shuffle(t.deck, other_out, t.y, proof, ctx(1))
    with pytest.raises(InvalidProof):  # same outputs, reordered
        verify_shuffle(t.deck, [out[1], out[0], *out[2:]], t.y, proof, ctx(1))
    with pytest.raises(InvalidProof):  # one output re-randomised again
        verify_shuffle(t.deck, [reencrypt(out[0], t.y, 5), *out[1:]], t.y, proof, ctx(1))
    with pytest.raises(InvalidProof):
        verify_shuffle(t.deck, out, add(t.y, BASE), proof, ctx(1))
    with pytest.raises(InvalidProof):  # other inputs
        verify_shuffle(t.book.initial_deck(t.y), out, t.y, proof, ctx(1))


class _Seeded:
    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def randbelow(self, n: int, /) -> int:
        return self._random.randrange(n)


def test_a_prepared_shuffle_is_the_same_shuffle_and_costs_less_on_the_turn() -> None:
    t = Table(6)
    first, _ = shuffle(t.deck, t.y, ctx(0))  # a deck whose c1 are not G
    out, proof = shuffle(first, t.y, ctx(1), rng=_Seeded(5))
    setup = prepare_shuffle(6, t.y, rng=_Seeded(5))
    OPS.reset()
    out2, proof2 = shuffle(first, t.y, ctx(1), setup=setup)
    assert OPS.var_mul == 4 * 6 + 1  # chain, t4,1, t4,2 (and Y), t^: 4N + 1 on the turn, not 6N + 1
    assert (out2, proof2) == (out, proof)  # the same draws in the same order
    verify_shuffle(first, out2, t.y, proof2, ctx(1))
    with pytest.raises(ValueError, match="prepared"):
        shuffle(first[:5], t.y, ctx(1), setup=setup)
    with pytest.raises(ValueError, match="prepared"):
        shuffle(first, t.deck[0].c2, ctx(1), setup=setup)


def test_generators_are_the_same_when_threads_fill_the_cache_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # a host runs each seat's session in a worker thread, and every seat prepares its shuffle as
    # the job begins: the cache once got h_i twice (151 generators for 150), and every proof
    # made in that process failed t1
    import importlib
    import threading

    module = importlib.import_module("protocol.crypto.shuffle")
    expected = module.generators(40)
    monkeypatch.setattr(module, "_generators", [])
    monkeypatch.setattr(module, "_generator_sums", {})
    barrier = threading.Barrier(4)
    results: list[tuple[Point, ...]] = []

    def fill() -> None:
        barrier.wait()
        results.append(module.generators(40))

    threads = [threading.Thread(target=fill) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 4
    assert len(module._generators) == 40


# --- cheating shufflers --------------------------------------------------------------------------


def test_replacing_a_card_fails_even_with_a_recomputed_proof() -> None:
    t = Table(6)
    out, r, psi = gen_shuffle(t.deck, t.y)
    stranger = Codebook(b"another game", 1).points[0]
    for replacement in (encrypt(stranger, t.y), encrypt(t.book.points[psi[1]], t.y)):
        cheat = [*out[:2], replacement, *out[3:]]  # card at output 2 replaced
        proof = _prove(t.deck, cheat, r, psi, t.y, ctx(0))
        with pytest.raises(InvalidProof):
            verify_shuffle(t.deck, cheat, t.y, proof, ctx(0))
        with pytest.raises(InvalidProof):
            verify_shuffle_chain([t.deck, cheat], [proof], t.y, [ctx(0)])


def test_duplicating_a_card_fails_even_with_a_recomputed_proof() -> None:
    t = Table(6)
    psi = [3, 3, 0, 1, 4, 5]  # card 3 twice, card 2 dropped
    r = [random_scalar() for _ in psi]
    cheat = [reencrypt(t.deck[j], t.y, ri) for j, ri in zip(psi, r, strict=True)]
    assert sorted(t.open(cheat)) == [0, 1, 3, 3, 4, 5]
    proof = _prove(t.deck, cheat, r, psi, t.y, ctx(0))  # the paper's prover, fed a non-permutation
    with pytest.raises(InvalidProof):
        verify_shuffle(t.deck, cheat, t.y, proof, ctx(0))
    # the cheater may also prove with some real permutation: still refused
    proof2 = _prove(t.deck, cheat, r, [3, 2, 0, 1, 4, 5], t.y, ctx(0))
    with pytest.raises(InvalidProof):
        verify_shuffle(t.deck, cheat, t.y, proof2, ctx(0))


def test_dropping_a_card_fails() -> None:
    t = Table(5)
    out, proof = shuffle(t.deck, t.y, ctx(0))
    with pytest.raises(InvalidProof, match="outputs"):
        verify_shuffle(t.deck, out[:4], t.y, proof, ctx(0))
    short, short_proof = shuffle(t.deck[:4], t.y, ctx(0))
    with pytest.raises(InvalidProof):
        verify_shuffle(t.deck, short, t.y, short_proof, ctx(0))
    with pytest.raises(MalformedData):
        ShuffleProof.from_wire(short_proof.to_wire(), expected_len=5)


def test_a_shuffle_that_decrypts_elsewhere_fails() -> None:
    # outputs that are a permutation of the inputs plus an encryption of a non-zero point
    t = Table(4)
    out, r, psi = gen_shuffle(t.deck, t.y)
    shifted = [Ciphertext(c.c1, add(c.c2, BASE)) if i == 0 else c for i, c in enumerate(out)]
    with pytest.raises(InvalidProof):
        verify_shuffle(t.deck, shifted, t.y, _prove(t.deck, shifted, r, psi, t.y, ctx(0)), ctx(0))


# --- batched verification of a chain of shuffles -------------------------------------------------


def test_chain_verification_and_blame() -> None:
    t = Table(5, n_peers=3)
    decks, proofs = [t.deck], []
    for seat in range(3):
        out, proof = shuffle(decks[-1], t.y, ctx(seat))
        decks.append(out)
        proofs.append(proof)
    contexts = [ctx(s) for s in range(3)]
    verify_shuffle_chain(decks, proofs, t.y, contexts)
    verify_shuffle_chain(decks[1:], proofs[1:], t.y, contexts[1:])
    # tamper with the middle proof: the batch fails and names it. A change of s' alters the
    # recomputed chain commitments (caught by the challenge); s1..s4 enter only the batched sum.
    for field, index in (("s_prime", 2), ("s1", None), ("s3", None), ("s4", None), ("t42", None)):
        bad = [proofs[0], _tampered(proofs[1], field, index), proofs[2]]
        with pytest.raises(InvalidProof) as info:
            verify_shuffle_chain(decks, bad, t.y, contexts)
        assert info.value.index == 1
    # swap two contexts: the proofs are bound to their seats
    with pytest.raises(InvalidProof) as info:
        verify_shuffle_chain(decks, proofs, t.y, [contexts[1], contexts[0], contexts[2]])
    assert info.value.index == 0
    # a substituted intermediate deck breaks two links; blame goes to the first
    swapped = list(decks)
    swapped[2] = shuffle(decks[1], t.y, ctx(1))[0]
    with pytest.raises(InvalidProof) as info:
        verify_shuffle_chain(swapped, proofs, t.y, contexts)
    assert info.value.index == 1
    with pytest.raises(ValueError):
        verify_shuffle_chain(decks, proofs, t.y, contexts[:2])


def test_chain_with_wrong_lengths_names_the_proof() -> None:
    t = Table(3)
    out, proof = shuffle(t.deck, t.y, ctx(0))
    with pytest.raises(InvalidProof) as info:
        verify_shuffle_chain([t.deck, out[:2]], [proof], t.y, [ctx(0)])
    assert info.value.index == 0


def _chain(t: Table, seats: int) -> tuple[list[list[Ciphertext]], list[ShuffleProof], list[bytes]]:
    decks, proofs = [t.deck], []
    for seat in range(seats):
        out, proof = shuffle(decks[-1], t.y, ctx(seat))
        decks.append(out)
        proofs.append(proof)
    return decks, proofs, [ctx(s) for s in range(seats)]


def test_incremental_verifier_with_our_own_shuffle_trusted() -> None:
    t = Table(4, n_peers=4)
    decks, proofs, contexts = _chain(t, 4)
    for mine in (None, 0, 2, 3):
        verifier = ShuffleChainVerifier(decks[0], t.y)
        for k in range(4):
            verifier.add(decks[k + 1], proofs[k], contexts[k], trusted=k == mine)
            if k == 1:
                verifier.check()  # a partial check (a seat stopped) leaves the rest to check
        verifier.finish()
        assert verifier.count == 4


@pytest.mark.parametrize("bad", [0, 2, 3])
def test_incremental_verifier_blames_a_batch_only_fault_at_the_end(bad: int) -> None:
    # s1 enters only the batched sum: nothing shows until `finish`, which then names the proof
    t = Table(4, n_peers=4)
    decks, proofs, contexts = _chain(t, 4)
    proofs[bad] = _tampered(proofs[bad], "s1", None)
    verifier = ShuffleChainVerifier(decks[0], t.y)
    for k in range(4):
        verifier.add(decks[k + 1], proofs[k], contexts[k], trusted=k == 1)
    with pytest.raises(InvalidProof) as info:
        verifier.finish()
    assert info.value.index == bad


def test_incremental_verifier_refuses_a_wrong_challenge_on_arrival() -> None:
    t = Table(3, n_peers=3)
    decks, proofs, contexts = _chain(t, 3)
    verifier = ShuffleChainVerifier(decks[0], t.y)
    verifier.add(decks[1], proofs[0], contexts[0])
    with pytest.raises(InvalidProof) as info:
        verifier.add(decks[2], _tampered(proofs[1], "t_hat", 0), contexts[1])  # hashed: no batch needed
    assert info.value.index == 1
    # a wrong response is not hashed: the batch finds it, and still names the proof
    verifier = ShuffleChainVerifier(decks[0], t.y)
    verifier.add(decks[1], proofs[0], contexts[0])
    verifier.add(decks[2], _tampered(proofs[1], "s_prime", 0), contexts[1])
    verifier.add(decks[3], proofs[2], contexts[2])
    with pytest.raises(InvalidProof) as info:
        verifier.finish()
    assert info.value.index == 1
    assert "t^_1" in info.value.reason


def test_batched_chain_costs_five_multiplications_per_card_and_shuffle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the libsodium operation count is the deterministic measure of the schedule (not the time),
    # on the pure-Python path (the compiled one makes a single multi-scalar multiplication of it)
    monkeypatch.setattr(group, "_msm", None)
    n, m = 6, 4
    t = Table(n, n_peers=m)
    decks, proofs, contexts = _chain(t, m)
    OPS.reset()
    verify_shuffle_chain(decks, proofs, t.y, contexts)
    batched = OPS.var_mul
    OPS.reset()
    for k in range(m):
        verify_shuffle(decks[k], decks[k + 1], t.y, proofs[k], contexts[k])
    separate = OPS.var_mul
    # 5N and the 6 points t1..t4, c^_N per shuffle; once: h_1..h_N, h, Y, the c2 of the public
    # deck (its c1 are all G) and the last deck
    assert batched <= 5 * n * m + 6 * m + 4 * n + 2
    assert separate >= 8 * n * m - n
    print(f"{m} shuffles of {n} cards: {batched} multiplications batched, {separate} separately")


# --- wire validation -----------------------------------------------------------------------------


def test_from_wire_rejects_malformed_proofs(honest: tuple[Table, list[Ciphertext], ShuffleProof]) -> None:
    _, _, proof = honest
    wire: list[Any] = proof.to_wire()

    def variant(part: int, value: object) -> list[object]:
        w: list[object] = list(wire)
        w[part] = value
        return w

    cases: list[tuple[object, type[Exception]]] = [
        (None, MalformedData),
        (wire[:6], MalformedData),
        (variant(0, wire[0][:4]), MalformedData),
        (variant(2, wire[2][:3]), MalformedData),
        (variant(1, [wire[1]]), MalformedData),
        (variant(1, wire[1][:31]), MalformedData),
        (variant(1, b"\xff" * 32), MalformedData),
        (variant(6, []), MalformedData),
        (variant(3, wire[3][:3]), MalformedData),
        (variant(3, "not a list"), MalformedData),
        (variant(0, [bytes(IDENTITY), *wire[0][1:]]), InvalidPoint),
        (variant(5, [b"\x00" * 32, *wire[5][1:]]), InvalidPoint),
        (variant(6, [*wire[6][:3], b"\x01" * 31]), InvalidPoint),
        (variant(2, [L.to_bytes(32, "little"), *wire[2][1:]]), MalformedData),
        (variant(4, [*wire[4][:3], b"\xff" * 32]), MalformedData),
    ]
    for bad, error in cases:
        with pytest.raises(error):
            ShuffleProof.from_wire(bad)
    with pytest.raises(MalformedData):
        ShuffleProof.from_wire(wire, expected_len=5)


def test_proof_fields_are_checked_on_construction(
    honest: tuple[Table, list[Ciphertext], ShuffleProof],
) -> None:
    _, _, proof = honest
    with pytest.raises(MalformedData):
        dataclasses.replace(proof, s1=L)
    with pytest.raises(MalformedData):
        dataclasses.replace(proof, s_hat=proof.s_hat[:3])
    with pytest.raises(MalformedData):
        dataclasses.replace(proof, chain=())
    with pytest.raises(MalformedData):
        dataclasses.replace(proof, t1=Point(b"short"))


# --- a full-size deck ----------------------------------------------------------------------------


def test_full_deck_of_150_cards() -> None:
    t = Table(150, n_peers=2)
    # the work is measured in this process's CPU time, which other processes on a loaded
    # machine do not inflate (wall-clock time would make the test fail under load)
    start = time.process_time()
    out, proof = shuffle(t.deck, t.y, ctx(0))
    out2, proof2 = shuffle(out, t.y, ctx(1))
    verify_shuffle_chain([t.deck, out, out2], [proof, proof2], t.y, [ctx(0), ctx(1)])
    elapsed = time.process_time() - start
    assert sorted(t.open(out2)) == list(range(150))
    assert elapsed < 5.0
