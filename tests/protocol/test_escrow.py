"""Key escrow (protocol/crypto/escrow.py): dealing, public checks, opening, complaints, partial
decryptions and their combination, and every refusal with its typed error."""

from __future__ import annotations

import dataclasses
import itertools
import random

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.crypto.dleq import ShareBatch, decryption_share, make_share_batch
from protocol.crypto.elgamal import Ciphertext, encrypt
from protocol.crypto.errors import CryptoError, InvalidPoint, InvalidProof, MalformedData
from protocol.crypto.escrow import (
    SEALED_BYTES,
    EscrowBox,
    EscrowComplaint,
    EscrowDeal,
    EscrowShareInvalid,
    EscrowTerms,
    _seal,
    check_deal,
    combine_partials,
    deal_escrow,
    deal_polynomial,
    judge_escrow_complaint,
    lagrange_at_zero,
    make_escrow_complaint,
    make_partials,
    open_share,
    share_point,
    verify_partials,
)
from protocol.crypto.group import BASE, IDENTITY, L, Point, add, mul, mul_base, random_scalar
from protocol.crypto.hashing import hash_to_point, make_context
from protocol.crypto.randomness import SYSTEM, RandomSource
from protocol.crypto.schnorr import keygen, prove_key

SESSION = b"escrow-session"
TAKEOVER = b"takeover-context"


class SeededRandom:
    """A reproducible `RandomSource` for the property tests (never for a real secret)."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)
        self.draws = 0

    def randbelow(self, n: int) -> int:
        self.draws += 1
        return self._random.randrange(n)

    def token_bytes(self, n: int) -> bytes:
        self.draws += 1
        return self._random.randbytes(n)


@dataclasses.dataclass
class Table:
    """A dealer (seat 0) and its holders (seats 1..n, index seat + 1), with the deal made."""

    secret: int
    terms: EscrowTerms
    holder_secrets: list[int]
    deal: EscrowDeal


def table(
    holders: int, threshold: int | None = None, *, dealer: int = 0, rng: RandomSource = SYSTEM
) -> Table:
    x, pub = keygen(rng=rng)
    keys = [keygen(rng=rng) for _ in range(holders)]
    seats = [s for s in range(holders + 1) if s != dealer]
    terms = EscrowTerms(
        dealer=dealer,
        public_key=pub,
        holder_keys=tuple(k for _, k in keys),
        holder_indices=tuple(s + 1 for s in seats),
        threshold=holders if threshold is None else threshold,
        context=make_context(SESSION, dealer, b"keys-step"),
    )
    return Table(x, terms, [k for k, _ in keys], deal_escrow(x, terms, rng=rng))


def cards(m: int) -> list[Ciphertext]:
    y = mul_base(random_scalar())
    return [encrypt(hash_to_point("test-card", k), y) for k in range(m)]


def partials_of(t: Table, positions: list[int], cts: list[Ciphertext]) -> list[list[Point]]:
    """Each holder opens its box, publishes its partials; every peer verifies them."""
    out = []
    for p in positions:
        share = open_share(t.deal, t.terms, p, t.holder_secrets[p])
        point = t.terms.share_point(t.deal, p)
        index = t.terms.holder_indices[p]
        batch = make_partials(share, point, cts, TAKEOVER, t.terms.dealer, index)
        received = ShareBatch.from_wire(msgpack.unpackb(msgpack.packb(batch.to_wire())), len(cts))
        out.append(verify_partials(point, cts, received, TAKEOVER, t.terms.dealer, index))
    return out


def through_msgpack(deal: EscrowDeal, terms: EscrowTerms) -> EscrowDeal:
    return EscrowDeal.from_wire(
        msgpack.unpackb(msgpack.packb(deal.to_wire())), terms.threshold, terms.holders
    )


# --- round trips ------------------------------------------------------------------------------


@pytest.mark.parametrize("holders", range(1, 8))
def test_round_trip_with_every_holder_needed(holders: int) -> None:
    t = table(holders)
    deal = through_msgpack(t.deal, t.terms)
    assert deal == t.deal and len(deal.commitments) == holders - 1 and deal.threshold == holders
    check_deal(deal, t.terms)
    cts = cards(2)
    shares = [open_share(deal, t.terms, p, t.holder_secrets[p]) for p in range(holders)]
    assert [mul_base(s) for s in shares] == [t.terms.share_point(deal, p) for p in range(holders)]
    combined = combine_partials(t.terms.holder_indices, partials_of(t, list(range(holders)), cts))
    assert combined == [decryption_share(t.secret, c) for c in cts]


@pytest.mark.parametrize("threshold", range(1, 8))
def test_round_trip_seven_holders_any_threshold(threshold: int) -> None:
    t = table(7, threshold, dealer=3)
    check_deal(through_msgpack(t.deal, t.terms), t.terms)
    cts = cards(1)
    positions = list(range(7 - threshold, 7))  # the last t holders
    indices = [t.terms.holder_indices[p] for p in positions]
    assert combine_partials(indices, partials_of(t, positions, cts)) == [decryption_share(t.secret, cts[0])]


def test_any_t_holders_reconstruct_and_t_minus_one_cannot() -> None:
    t = table(5, 3)
    cts = cards(2)
    expected = [decryption_share(t.secret, c) for c in cts]
    every = partials_of(t, list(range(5)), cts)
    for subset in itertools.combinations(range(5), 3):
        indices = [t.terms.holder_indices[p] for p in subset]
        assert combine_partials(indices, [every[p] for p in subset]) == expected, subset
    for pair in itertools.combinations(range(5), 2):
        indices = [t.terms.holder_indices[p] for p in pair]
        wrong = combine_partials(indices, [every[p] for p in pair])
        assert all(w != e for w, e in zip(wrong, expected, strict=True)), pair


def test_the_shares_interpolate_to_the_secret_only_with_t_of_them() -> None:
    # the holders could compute x_i together: exactly what the threshold says
    t = table(4, 3)
    shares = [open_share(t.deal, t.terms, p, t.holder_secrets[p]) for p in range(4)]
    idx = t.terms.holder_indices

    def at_zero(positions: tuple[int, ...]) -> int:
        lam = lagrange_at_zero([idx[p] for p in positions])
        return sum(lam_j * shares[p] for lam_j, p in zip(lam, positions, strict=True)) % L

    assert all(at_zero(s) == t.secret for s in itertools.combinations(range(4), 3))
    assert all(at_zero(s) != t.secret for s in itertools.combinations(range(4), 2))


def test_threshold_one_gives_every_holder_the_secret() -> None:
    t = table(3, 1)
    assert t.deal.commitments == ()
    assert [open_share(t.deal, t.terms, p, t.holder_secrets[p]) for p in range(3)] == [t.secret] * 3


def test_the_deal_is_reproducible_from_its_random_stream() -> None:
    a = table(4, 3, rng=SeededRandom(7))
    b_ = table(4, 3, rng=SeededRandom(7))
    assert a.deal == b_.deal and a.secret == b_.secret
    rng = SeededRandom(8)
    deal_escrow(a.secret, a.terms, rng=rng)
    assert rng.draws == (3 - 1) + 2 * 4  # a_1, a_2, then e and the proof's nonce per box


def test_a_deal_for_the_same_terms_twice_differs() -> None:
    t = table(3)
    again = deal_escrow(t.secret, t.terms)
    assert again.commitments != t.deal.commitments
    assert all(a.sealed != b.sealed for a, b in zip(again.boxes, t.deal.boxes, strict=True))


# --- the terms ----------------------------------------------------------------------------------


def test_terms_refuse_inconsistent_parameters() -> None:
    t = table(3)
    base = dataclasses.asdict(t.terms)
    for change in (
        {"threshold": 0},
        {"threshold": 4},
        {"threshold": True},
        {"holder_indices": (2, 2, 4)},
        {"holder_indices": (0, 2, 3)},
        {"holder_indices": (2, 3, 256)},
        {"holder_indices": (2, 3)},
        {"holder_keys": ()},
        {"holder_indices": ()},
        {"holder_keys": (t.terms.public_key, *t.terms.holder_keys[1:])},
        {"holder_keys": (IDENTITY, *t.terms.holder_keys[1:])},
        {"public_key": b"\x01" * 31},
        {"dealer": -1},
        {"context": "text"},
        {"holder_keys": list(t.terms.holder_keys)},
    ):
        with pytest.raises(ValueError):
            EscrowTerms(**{**base, **change})


def test_lagrange_coefficients() -> None:
    for indices in ([1], [2, 5], [1, 2, 3, 4, 5, 6, 7], [3, 9, 4]):
        assert sum(lagrange_at_zero(indices)) % L == 1  # they interpolate the constant 1
    for bad in ([], [0, 1], [2, 2], [1, L + 1]):
        with pytest.raises(ValueError):
            lagrange_at_zero(bad)
    with pytest.raises(ValueError):
        combine_partials([1, 2], [[BASE]])
    with pytest.raises(ValueError):
        combine_partials([1, 2], [[BASE], [BASE, BASE]])


def test_share_point_is_the_commitments_evaluated_in_the_exponent() -> None:
    a = [random_scalar() for _ in range(4)]
    commitments = [mul_base(k) for k in a]
    for index in (1, 2, 8):
        f = sum(k * index**j for j, k in enumerate(a)) % L
        assert share_point(commitments, index) == mul_base(f)
    with pytest.raises(ValueError):
        share_point([], 1)


# --- refusals: wire forms ------------------------------------------------------------------------


def test_wrong_counts_are_refused() -> None:
    t = table(4, 3)
    commitments, boxes = t.deal.to_wire()
    assert isinstance(commitments, list) and isinstance(boxes, list)
    ok = EscrowDeal.from_wire([commitments, boxes], 3, 4)
    assert ok == t.deal
    for obj, threshold, holders in (
        ([commitments[:1], boxes], 3, 4),  # t - 2 commitments
        ([[bytes(t.terms.public_key), *commitments], boxes], 3, 4),  # C_0 sent again
        ([commitments, boxes[:3]], 3, 4),
        ([commitments, [*boxes, boxes[0]]], 3, 4),
        ([commitments, boxes], 4, 4),
        ([commitments, boxes], 3, 5),
        ([commitments, []], 3, 0),
        ([commitments], 3, 4),
        ("deal", 3, 4),
        ([commitments, boxes, b""], 3, 4),
    ):
        with pytest.raises(MalformedData):
            EscrowDeal.from_wire(obj, threshold, holders)
    # a deal built in memory with the wrong counts is refused by the public check
    for deal in (
        dataclasses.replace(t.deal, commitments=t.deal.commitments[:1]),
        dataclasses.replace(t.deal, boxes=t.deal.boxes[:3]),
        dataclasses.replace(t.deal, boxes=(*t.deal.boxes, t.deal.boxes[0])),
    ):
        with pytest.raises(MalformedData):
            check_deal(deal, t.terms)


def _bad_points() -> list[object]:
    p = bytes(mul_base(5))
    return [
        bytes(IDENTITY),
        bytes([p[0] | 1]) + p[1:],  # negative (odd) field element
        p[:-1] + bytes([p[-1] | 0x80]),  # top bit set: not canonical
        b"\xff" * 32,
        p[:31],
        p + b"\x00",
        "not bytes",
        123,
    ]


def test_bad_point_encodings_are_refused() -> None:
    t = table(3, 3)
    commitments, boxes = t.deal.to_wire()
    assert isinstance(commitments, list) and isinstance(boxes, list)
    for bad in _bad_points():
        with pytest.raises(InvalidPoint):
            EscrowDeal.from_wire([[bad, commitments[1]], boxes], 3, 3)
        box = list(boxes[1])
        box[0] = bad
        with pytest.raises(InvalidPoint):
            EscrowDeal.from_wire([commitments, [boxes[0], box, boxes[2]]], 3, 3)
        with pytest.raises(InvalidPoint):
            EscrowComplaint.from_wire([bad, bytes(32), bytes(32)])
        with pytest.raises(InvalidPoint):
            ShareBatch.from_wire([[bad], bytes(32), bytes(32), bytes(32)], 1)


def test_bad_boxes_and_complaints_are_refused() -> None:
    t = table(2, 2)
    box = t.deal.boxes[0].to_wire()
    assert EscrowBox.from_wire(box) == t.deal.boxes[0]
    sealed = t.deal.boxes[0].sealed
    assert len(sealed) == SEALED_BYTES == 48
    for bad in (
        [box[0], box[1], sealed[:-1]],
        [box[0], box[1], sealed + b"\x00"],
        [box[0], box[1], bytearray(sealed)],
        [box[0], [bytes(32)], sealed],
        [box[0], [b"\xff" * 32, bytes(32)], sealed],  # challenge not reduced mod L
        [box[0], box[1]],
        box[0],
    ):
        with pytest.raises(MalformedData):
            EscrowBox.from_wire(bad)
    complaint = make_escrow_complaint(t.deal, t.terms, 0, t.holder_secrets[0])
    wire = complaint.to_wire()
    assert EscrowComplaint.from_wire(msgpack.unpackb(msgpack.packb(wire))) == complaint
    for bad_c in (wire[:2], [*wire, b""], [wire[0], b"\xff" * 32, wire[2]], [wire[0], wire[1], b"\x01"]):
        with pytest.raises(MalformedData):
            EscrowComplaint.from_wire(bad_c)
    with pytest.raises(MalformedData):
        EscrowBox(t.deal.boxes[0].ephemeral, t.deal.boxes[0].proof, b"short")
    with pytest.raises(MalformedData):
        EscrowDeal((), ())


# --- refusals: the public check and the holder's check ---------------------------------------------


def test_public_check_refuses_a_box_whose_ephemeral_is_not_proven() -> None:
    t = table(3, 2)
    boxes = list(t.deal.boxes)
    # boxes swapped between holders: each proof is bound to its holder
    swapped = dataclasses.replace(t.deal, boxes=(boxes[1], boxes[0], boxes[2]))
    with pytest.raises(InvalidProof) as info:
        check_deal(swapped, t.terms)
    assert info.value.index == 0
    # E = c1 of a card, with a proof made for another point: refused (the complaint would
    # otherwise publish x_h c1, the holder's decryption share of that card)
    c1 = cards(1)[0].c1
    forged = dataclasses.replace(boxes[2], ephemeral=c1)
    with pytest.raises(InvalidProof) as info:
        check_deal(dataclasses.replace(t.deal, boxes=(boxes[0], boxes[1], forged)), t.terms)
    assert info.value.index == 2
    # the same deal under another context (session, dealer, transcript) or dealer seat
    for other in (
        dataclasses.replace(t.terms, context=make_context(SESSION, 0, b"another step")),
        dataclasses.replace(t.terms, dealer=5),
        dataclasses.replace(t.terms, holder_indices=(2, 3, 5)),
    ):
        with pytest.raises(InvalidProof):
            check_deal(t.deal, other)


def test_a_proof_of_the_ephemeral_from_another_box_context_is_refused() -> None:
    t = table(2, 2)
    box = t.deal.boxes[1]
    e = random_scalar()
    ephemeral = mul_base(e)
    proof = prove_key(e, ephemeral, t.terms.box_context(0))  # made for holder 0's box
    bad = dataclasses.replace(box, ephemeral=ephemeral, proof=proof)
    with pytest.raises(InvalidProof):
        check_deal(dataclasses.replace(t.deal, boxes=(t.deal.boxes[0], bad)), t.terms)


def _replace_box(t: Table, position: int, box: EscrowBox) -> EscrowDeal:
    boxes = list(t.deal.boxes)
    boxes[position] = box
    return dataclasses.replace(t.deal, boxes=tuple(boxes))


def test_tampered_box_is_refused_by_its_holder() -> None:
    t = table(3, 2)
    box = t.deal.boxes[1]
    for i in (0, 20, SEALED_BYTES - 1):
        sealed = bytearray(box.sealed)
        sealed[i] ^= 1
        deal = _replace_box(t, 1, dataclasses.replace(box, sealed=bytes(sealed)))
        check_deal(deal, t.terms)  # nobody else can tell
        with pytest.raises(EscrowShareInvalid, match="does not open"):
            open_share(deal, t.terms, 1, t.holder_secrets[1])
    with pytest.raises(EscrowShareInvalid, match="does not open"):  # the wrong holder's key
        open_share(t.deal, t.terms, 1, t.holder_secrets[0])
    with pytest.raises(EscrowShareInvalid, match="does not open"):  # another context
        open_share(t.deal, dataclasses.replace(t.terms, context=b"other"), 1, t.holder_secrets[1])


def test_wrong_share_fails_the_feldman_check() -> None:
    t = table(3, 2)
    share = open_share(t.deal, t.terms, 2, t.holder_secrets[2])
    for wrong in ((share + 1) % L, L - share, 1):
        deal = _replace_box(t, 2, _seal(wrong, t.terms, 2, SeededRandom(wrong % 1000)))
        check_deal(deal, t.terms)
        with pytest.raises(EscrowShareInvalid, match="Feldman"):
            open_share(deal, t.terms, 2, t.holder_secrets[2])
        open_share(deal, t.terms, 0, t.holder_secrets[0])  # the others' shares are fine


def test_zero_or_non_canonical_share_is_refused() -> None:
    t = table(2, 1)
    # a dealer whose polynomial vanishes at holder 0's index (here t = 1: f = 0)
    zero = _replace_box(t, 0, _seal(0, t.terms, 0, SeededRandom(1)))
    with pytest.raises(EscrowShareInvalid, match="zero"):
        open_share(zero, t.terms, 0, t.holder_secrets[0])


def test_bad_commitment_fails_every_holders_check() -> None:
    t = table(4, 3)
    for c in (mul_base(5), add(t.deal.commitments[0], BASE)):
        deal = dataclasses.replace(t.deal, commitments=(c, t.deal.commitments[1]))
        check_deal(deal, t.terms)
        for p in range(4):
            with pytest.raises(EscrowShareInvalid, match="Feldman"):
                open_share(deal, t.terms, p, t.holder_secrets[p])


def test_sharing_another_secret_than_x_i_fails_every_holders_check() -> None:
    # C_0 is X_i by construction: a dealer who shares x' != x_i (a polynomial with another
    # constant term) is caught by every holder's Feldman check
    t = table(3, 2)
    other = deal_polynomial([random_scalar(), random_scalar()], t.terms)
    check_deal(other, t.terms)
    for p in range(3):
        with pytest.raises(EscrowShareInvalid, match="Feldman"):
            open_share(other, t.terms, p, t.holder_secrets[p])
    # the same deal judged against another dealer key: refused as well
    with pytest.raises(EscrowShareInvalid):
        open_share(t.deal, dataclasses.replace(t.terms, public_key=mul_base(3)), 0, t.holder_secrets[0])
    with pytest.raises(ValueError):
        deal_polynomial([t.secret], t.terms)  # degree t - 1 means t coefficients


# --- complaints --------------------------------------------------------------------------------------


def test_complaint_against_a_cheating_dealer_is_upheld() -> None:
    t = table(3, 3)
    share = open_share(t.deal, t.terms, 1, t.holder_secrets[1])
    wrong_share = _replace_box(t, 1, _seal((share + 7) % L, t.terms, 1, SeededRandom(3)))
    sealed = bytearray(t.deal.boxes[1].sealed)
    sealed[5] ^= 0x40
    unopenable = _replace_box(t, 1, dataclasses.replace(t.deal.boxes[1], sealed=bytes(sealed)))
    for deal in (wrong_share, unopenable):
        with pytest.raises(EscrowShareInvalid):
            open_share(deal, t.terms, 1, t.holder_secrets[1])
        complaint = make_escrow_complaint(deal, t.terms, 1, t.holder_secrets[1])
        received = EscrowComplaint.from_wire(msgpack.unpackb(msgpack.packb(complaint.to_wire())))
        assert judge_escrow_complaint(received, deal, t.terms, 1) is True


def test_false_complaint_is_judged_false() -> None:
    t = table(3, 3)
    open_share(t.deal, t.terms, 0, t.holder_secrets[0])  # the share checks; it complains anyway
    complaint = make_escrow_complaint(t.deal, t.terms, 0, t.holder_secrets[0])
    assert judge_escrow_complaint(complaint, t.deal, t.terms, 0) is False


def test_a_complaint_with_a_false_opening_is_the_complainers_fault() -> None:
    t = table(3, 3)
    sealed = bytearray(t.deal.boxes[2].sealed)
    sealed[0] ^= 1
    deal = _replace_box(t, 2, dataclasses.replace(t.deal.boxes[2], sealed=bytes(sealed)))
    honest = make_escrow_complaint(t.deal, t.terms, 2, t.holder_secrets[2])
    for bad in (
        dataclasses.replace(honest, key=mul_base(9)),  # a Z that makes an honest box fail
        dataclasses.replace(
            honest, proof=dataclasses.replace(honest.proof, response=(honest.proof.response + 1) % L)
        ),
        make_escrow_complaint(t.deal, t.terms, 2, t.holder_secrets[1]),  # another holder's key
    ):
        for judged in (t.deal, deal):  # whatever the box holds
            with pytest.raises(InvalidProof):
                judge_escrow_complaint(bad, judged, t.terms, 2)
    # a complaint is bound to its box: replayed for another position or context, it fails
    with pytest.raises(InvalidProof):
        judge_escrow_complaint(honest, t.deal, t.terms, 1)
    with pytest.raises(InvalidProof):
        judge_escrow_complaint(honest, t.deal, dataclasses.replace(t.terms, context=b"other"), 2)


# --- partials --------------------------------------------------------------------------------------


def test_wrong_partials_are_refused() -> None:
    t = table(3, 3)
    cts = cards(3)
    shares = [open_share(t.deal, t.terms, p, t.holder_secrets[p]) for p in range(3)]
    point = t.terms.share_point(t.deal, 1)
    index = t.terms.holder_indices[1]
    batch = make_partials(shares[1], point, cts, TAKEOVER, 0, index)
    verify_partials(point, cts, batch, TAKEOVER, 0, index)
    plus_g = list(batch.shares)
    plus_g[1] = add(plus_g[1], BASE)  # E + G
    other = list(batch.shares)
    other[2] = mul(shares[0], cts[2].c1)  # s' c1: another holder's share of that card
    for shares_ in (plus_g, other, list(batch.shares)[::-1]):
        with pytest.raises(InvalidProof):
            verify_partials(point, cts, dataclasses.replace(batch, shares=tuple(shares_)), TAKEOVER, 0, index)
    # a batch consistently made with another share s' (a valid proof for the wrong key)
    forged = make_share_batch(shares[0], mul_base(shares[0]), cts, b"anything")
    with pytest.raises(InvalidProof):
        verify_partials(point, cts, forged, TAKEOVER, 0, index)
    liar = make_partials(shares[0], point, cts, TAKEOVER, 0, index)
    with pytest.raises(InvalidProof):
        verify_partials(point, cts, liar, TAKEOVER, 0, index)
    # bound to the takeover context, the dealer and the holder
    for ctx, dealer, idx in ((b"other", 0, index), (TAKEOVER, 1, index), (TAKEOVER, 0, index + 1)):
        with pytest.raises(InvalidProof):
            verify_partials(point, cts, batch, ctx, dealer, idx)
    with pytest.raises(InvalidProof):  # fewer ciphertexts than partials
        verify_partials(point, cts[:2], batch, TAKEOVER, 0, index)
    with pytest.raises(CryptoError):
        ShareBatch.from_wire(batch.to_wire(), 2)


def test_a_wrong_partial_spoils_the_combination() -> None:
    # why verify_partials matters: one unchecked wrong partial gives another point
    t = table(2, 2)
    cts = cards(1)
    parts = partials_of(t, [0, 1], cts)
    assert combine_partials(t.terms.holder_indices, parts) == [decryption_share(t.secret, cts[0])]
    parts[1] = [add(parts[1][0], BASE)]
    assert combine_partials(t.terms.holder_indices, parts) != [decryption_share(t.secret, cts[0])]


# --- property ----------------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(
    secret=st.integers(min_value=1, max_value=L - 1),
    holders=st.integers(min_value=1, max_value=6),
    data=st.data(),
)
def test_reconstruction_equals_the_dealers_share(secret: int, holders: int, data: st.DataObject) -> None:
    threshold = data.draw(st.integers(min_value=1, max_value=holders), label="threshold")
    seed = data.draw(st.integers(min_value=0, max_value=2**32), label="seed")
    subset = data.draw(st.permutations(range(holders)), label="order")[:threshold]
    rng = SeededRandom(seed)
    keys = [keygen(rng=rng) for _ in range(holders)]
    terms = EscrowTerms(
        dealer=holders,
        public_key=mul_base(secret),
        holder_keys=tuple(k for _, k in keys),
        holder_indices=tuple(range(1, holders + 1)),
        threshold=threshold,
        context=b"property",
    )
    deal = EscrowDeal.from_wire(deal_escrow(secret, terms, rng=rng).to_wire(), threshold, holders)
    check_deal(deal, terms)
    ct = encrypt(hash_to_point("property-card", seed), mul_base(seed + 1), rng=rng)
    parts = []
    for p in subset:
        share = open_share(deal, terms, p, keys[p][0])
        point = terms.share_point(deal, p)
        batch = make_partials(share, point, [ct], b"takeover", holders, p + 1, rng=rng)
        parts.append(verify_partials(point, [ct], batch, b"takeover", holders, p + 1))
    assert combine_partials([p + 1 for p in subset], parts) == [mul(secret, ct.c1)]
