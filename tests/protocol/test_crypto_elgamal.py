"""ElGamal, the public deck, decryption shares (single and batched) and their DLEQ proofs."""

from __future__ import annotations

import dataclasses

import msgpack  # type: ignore[import-untyped]
import pytest

from protocol.crypto.dleq import (
    DecryptionShare,
    DLEQProof,
    ShareBatch,
    combine_shares,
    decryption_share,
    make_share,
    make_share_batch,
    prove_dleq,
    reveal_card,
    verify_dleq,
    verify_share,
    verify_share_batch,
)
from protocol.crypto.elgamal import (
    Ciphertext,
    Codebook,
    deck_from_wire,
    deck_to_wire,
    decrypt_with_key,
    encrypt,
    joint_key,
    reencrypt,
)
from protocol.crypto.errors import InvalidPoint, InvalidProof, MalformedData, UnknownCard
from protocol.crypto.group import BASE, IDENTITY, L, Point, add, mul, mul_base, random_scalar
from protocol.crypto.hashing import make_context
from protocol.crypto.schnorr import keygen

TRANSCRIPT = b"\x22" * 64


def ctx(seat: int) -> bytes:
    return make_context(b"session", seat, TRANSCRIPT)


def table(n: int = 3) -> tuple[list[tuple[int, Point]], Point]:
    keys = [keygen() for _ in range(n)]
    return keys, joint_key(pub for _, pub in keys)


def other_point() -> Point:
    return mul_base(random_scalar())


# --- ElGamal -----------------------------------------------------------------------------------


def test_encrypt_reencrypt_decrypt() -> None:
    x, pub = keygen()
    book = Codebook(b"g", 5)
    c = encrypt(book.points[2], pub)
    assert decrypt_with_key(c, x) == book.points[2]
    c2 = reencrypt(c, pub, random_scalar())
    assert c2 != c and decrypt_with_key(c2, x) == book.points[2]


def test_initial_deck_is_public_and_decrypts_to_the_cards() -> None:
    keys, y = table()
    book = Codebook(b"g", 6)
    deck = book.initial_deck(y)
    assert deck == Codebook(b"g", 6).initial_deck(y)  # everyone recomputes the same deck
    assert all(c.c1 == BASE for c in deck)
    assert deck[4] == encrypt(book.points[4], y, randomness=1)
    x = sum(k for k, _ in keys) % L
    assert [book.index_of(decrypt_with_key(c, x)) for c in deck] == list(range(6))
    fresh = reencrypt(deck[0], y, 7)
    assert fresh.c1 == mul_base(8) and book.index_of(decrypt_with_key(fresh, x)) == 0


def test_codebook_refuses_unknown_points() -> None:
    book = Codebook(b"g", 4)
    with pytest.raises(UnknownCard):
        book.index_of(other_point())
    with pytest.raises(UnknownCard):
        book.index_of(Codebook(b"h", 4).points[0])
    assert len(book) == 4


def test_ciphertext_wire_round_trip_and_validation() -> None:
    _, y = table()
    deck = Codebook(b"g", 3).initial_deck(y)
    wire = deck_to_wire(deck)
    assert deck_from_wire(wire, 3) == deck
    assert deck_from_wire([list(c) for c in wire]) == deck
    with pytest.raises(MalformedData):
        deck_from_wire(wire, 4)
    with pytest.raises(MalformedData):
        deck_from_wire([])
    with pytest.raises(MalformedData):
        deck_from_wire("deck")
    with pytest.raises(MalformedData):
        Ciphertext.from_wire([wire[0][0]])
    with pytest.raises(InvalidPoint, match="identity"):
        Ciphertext.from_wire([bytes(IDENTITY), wire[0][1]])
    with pytest.raises(InvalidPoint):
        Ciphertext.from_wire([wire[0][0], b"\xff" * 32])
    with pytest.raises(MalformedData):
        Ciphertext(BASE, Point(b"short"))


# --- DLEQ and decryption shares ------------------------------------------------------------------


def test_public_reveal_by_all_shares() -> None:
    keys, y = table(4)
    book = Codebook(b"g", 5)
    c = reencrypt(book.initial_deck(y)[3], y, random_scalar())
    shares = []
    for seat, (x, pub) in enumerate(keys):
        share = make_share(x, pub, c, ctx(seat))
        wire_share = DecryptionShare.from_wire(list(share.to_wire()))
        assert wire_share == share
        verify_share(pub, c, wire_share, ctx(seat))
        shares.append(wire_share.share)
    assert reveal_card(c, shares, book) == 3
    with pytest.raises(UnknownCard):  # one share missing: not a card
        reveal_card(c, shares[1:], book)


def test_private_reveal_recipient_adds_its_own_share() -> None:
    keys, y = table(3)
    book = Codebook(b"g", 5)
    c = reencrypt(book.initial_deck(y)[1], y, random_scalar())
    recipient = 2
    published = [make_share(x, pub, c, ctx(seat)) for seat, (x, pub) in enumerate(keys) if seat != recipient]
    others = [s.share for s in published]
    with pytest.raises(UnknownCard):  # the others alone learn nothing usable
        book.index_of(combine_shares(c, others))
    own = decryption_share(keys[recipient][0], c)
    assert book.index_of(combine_shares(c, [*others, own])) == 1
    # later the recipient proves the card to everyone by publishing its share with a proof
    proof_share = make_share(keys[recipient][0], keys[recipient][1], c, ctx(recipient))
    verify_share(keys[recipient][1], c, proof_share, ctx(recipient))
    assert reveal_card(c, [*others, proof_share.share], book) == 1


def test_wrong_share_is_caught() -> None:
    keys, y = table(2)
    c = encrypt(other_point(), y)
    x, pub = keys[0]
    share = make_share(x, pub, c, ctx(0))
    forged = dataclasses.replace(share, share=add(share.share, BASE))
    with pytest.raises(InvalidProof):
        verify_share(pub, c, forged, ctx(0))
    # a share made with another key, with an honest proof for that key, fails under this key
    x2, pub2 = keys[1]
    with pytest.raises(InvalidProof):
        verify_share(pub, c, make_share(x2, pub2, c, ctx(0)), ctx(0))
    # and a share of another ciphertext does not pass for this one
    with pytest.raises(InvalidProof):
        verify_share(pub, c, make_share(x, pub, encrypt(other_point(), y), ctx(0)), ctx(0))


@pytest.mark.parametrize("field", ["challenge", "response"])
def test_tampered_dleq_proof_fails(field: str) -> None:
    x, pub = keygen()
    c = encrypt(other_point(), pub)
    share = make_share(x, pub, c, ctx(0))
    proof = dataclasses.replace(share.proof, **{field: (getattr(share.proof, field) + 1) % L})
    with pytest.raises(InvalidProof):
        verify_share(pub, c, dataclasses.replace(share, proof=proof), ctx(0))


def test_dleq_proof_is_bound_to_context() -> None:
    x, pub = keygen()
    c = encrypt(other_point(), pub)
    share = make_share(x, pub, c, ctx(0))
    with pytest.raises(InvalidProof):
        verify_share(pub, c, share, ctx(1))
    with pytest.raises(InvalidProof):
        verify_share(pub, c, share, make_context(b"session", 0, b"\x23" * 64))


def test_generic_dleq() -> None:
    x, pub = keygen()
    base = other_point()
    proof = prove_dleq(x, pub, base, mul(x, base), ctx(0))
    verify_dleq(pub, base, mul(x, base), proof, ctx(0))
    with pytest.raises(InvalidProof):
        verify_dleq(pub, base, mul(x + 1, base), proof, ctx(0))
    with pytest.raises(InvalidProof):
        verify_dleq(pub, other_point(), mul(x, base), proof, ctx(0))
    assert DLEQProof.from_wire(list(proof.to_wire())) == proof
    for statement in ((IDENTITY, base, mul(x, base)), (pub, IDENTITY, IDENTITY), (pub, base, IDENTITY)):
        with pytest.raises(InvalidProof):
            verify_dleq(*statement, proof, ctx(0))


# --- batched shares ------------------------------------------------------------------------------


def test_batched_shares_round_trip() -> None:
    keys, y = table(3)
    book = Codebook(b"g", 12)
    hand = [reencrypt(c, y, random_scalar()) for c in book.initial_deck(y)]
    batches = [make_share_batch(x, pub, hand, ctx(seat)) for seat, (x, pub) in enumerate(keys)]
    for seat, ((_, pub), batch) in enumerate(zip(keys, batches, strict=True)):
        received = ShareBatch.from_wire(list(batch.to_wire()), expected_len=12)
        assert received == batch
        verify_share_batch(pub, hand, received, ctx(seat))
    cards = [reveal_card(c, [b.shares[i] for b in batches], book) for i, c in enumerate(hand)]
    assert cards == list(range(12))


def test_batch_with_one_wrong_share_fails() -> None:
    x, pub = keygen()
    hand = [encrypt(other_point(), pub) for _ in range(5)]
    batch = make_share_batch(x, pub, hand, ctx(0))
    for i in range(5):
        shares = list(batch.shares)
        shares[i] = add(shares[i], BASE)
        with pytest.raises(InvalidProof):
            verify_share_batch(pub, hand, dataclasses.replace(batch, shares=tuple(shares)), ctx(0))
    swapped = (batch.shares[1], batch.shares[0], *batch.shares[2:])
    with pytest.raises(InvalidProof):
        verify_share_batch(pub, hand, dataclasses.replace(batch, shares=swapped), ctx(0))
    with pytest.raises(InvalidProof):
        verify_share_batch(pub, hand[:4], batch, ctx(0))
    with pytest.raises(InvalidProof):
        verify_share_batch(pub, hand, batch, ctx(1))
    bad_proofs = [
        dataclasses.replace(batch.proof, response=(batch.proof.response + 1) % L),
        dataclasses.replace(batch.proof, commit_a=other_point()),
        dataclasses.replace(batch.proof, commit_b=other_point()),
        dataclasses.replace(batch.proof, commit_a=batch.proof.commit_b, commit_b=batch.proof.commit_a),
    ]
    for bad_proof in bad_proofs:
        with pytest.raises(InvalidProof):
            verify_share_batch(pub, hand, dataclasses.replace(batch, proof=bad_proof), ctx(0))


@pytest.mark.parametrize(
    "mutate",
    [
        lambda w: None,
        lambda w: [w[0]],
        lambda w: w[:3],  # the challenge form of version 4: (shares, e, s)
        lambda w: [[], *w[1:]],
        lambda w: [[*w[0][:-1], bytes(IDENTITY)], *w[1:]],
        lambda w: [w[0], bytes(IDENTITY), *w[2:]],  # A the identity
        lambda w: [w[0], w[1], w[2][:31], w[3]],  # B too short
        lambda w: [*w[:3], L.to_bytes(32, "little")],  # s not reduced
        lambda w: [w[0][:2], *w[1:]],  # wrong count for expected_len
    ],
)
def test_share_batch_from_wire_rejects_malformed(mutate: object) -> None:
    x, pub = keygen()
    hand = [encrypt(other_point(), pub) for _ in range(3)]
    wire = list(make_share_batch(x, pub, hand, ctx(0)).to_wire())
    with pytest.raises(MalformedData):
        ShareBatch.from_wire(mutate(wire), expected_len=3)  # type: ignore[operator]


def test_wire_forms_survive_msgpack() -> None:
    keys, y = table(2)
    hand = [encrypt(other_point(), y) for _ in range(3)]
    (x, pub) = keys[0]
    share = make_share(x, pub, hand[0], ctx(0))
    batch = make_share_batch(x, pub, hand, ctx(0))
    packed = msgpack.packb([deck_to_wire(hand), share.to_wire(), batch.to_wire()])
    wire_hand, wire_share, wire_batch = msgpack.unpackb(packed)
    assert deck_from_wire(wire_hand) == hand
    assert DecryptionShare.from_wire(wire_share) == share
    assert ShareBatch.from_wire(wire_batch) == batch


def test_share_from_wire_rejects_malformed() -> None:
    x, pub = keygen()
    share = make_share(x, pub, encrypt(other_point(), pub), ctx(0)).to_wire()
    with pytest.raises(MalformedData):
        DecryptionShare.from_wire(share[:2])
    with pytest.raises(InvalidPoint):
        DecryptionShare.from_wire([b"\x00" * 32, share[1], share[2]])
    with pytest.raises(MalformedData):
        DecryptionShare.from_wire([share[0], share[1], b"\xff" * 32])
