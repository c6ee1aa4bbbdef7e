"""Keys: generation, commitments, Schnorr proofs of knowledge (context binding, rogue keys)."""

from __future__ import annotations

import dataclasses

import pytest

from protocol.crypto.elgamal import joint_key
from protocol.crypto.errors import CryptoError, InvalidCommitment, InvalidProof, MalformedData
from protocol.crypto.group import BASE, IDENTITY, L, add, mul_base, neg, sub
from protocol.crypto.hashing import make_context
from protocol.crypto.schnorr import (
    SchnorrProof,
    key_commitment,
    keygen,
    prove_key,
    verify_key,
    verify_key_commitment,
)

SESSION = b"session-1"
TRANSCRIPT = b"\x11" * 64


def ctx(seat: int, session: bytes = SESSION) -> bytes:
    return make_context(session, seat, TRANSCRIPT)


def test_keygen() -> None:
    x, pub = keygen()
    assert 0 < x < L and pub == mul_base(x)
    assert keygen()[1] != pub


def test_schnorr_round_trip_and_wire() -> None:
    x, pub = keygen()
    proof = prove_key(x, pub, ctx(0))
    verify_key(pub, proof, ctx(0))
    wire = proof.to_wire()
    assert all(isinstance(v, bytes) and len(v) == 32 for v in wire)
    again = SchnorrProof.from_wire(list(wire))
    assert again == proof
    verify_key(pub, again, ctx(0))


@pytest.mark.parametrize("field", ["challenge", "response"])
def test_tampered_schnorr_proof_fails(field: str) -> None:
    x, pub = keygen()
    proof = prove_key(x, pub, ctx(0))
    bad = dataclasses.replace(proof, **{field: (getattr(proof, field) + 1) % L})
    with pytest.raises(InvalidProof):
        verify_key(pub, bad, ctx(0))


def test_schnorr_proof_is_bound_to_seat_session_and_transcript() -> None:
    x, pub = keygen()
    proof = prove_key(x, pub, ctx(2))
    for other in (ctx(3), ctx(2, b"session-2"), make_context(SESSION, 2, b"\x12" * 64)):
        with pytest.raises(InvalidProof):
            verify_key(pub, proof, other)


def test_schnorr_proof_does_not_transfer_to_another_key() -> None:
    x, pub = keygen()
    _, other = keygen()
    with pytest.raises(InvalidProof):
        verify_key(other, prove_key(x, pub, ctx(0)), ctx(0))


def test_rogue_key_cannot_be_proven() -> None:
    # The victim (seat 0) publishes X_v with a proof; the attacker (seat 1) would like the joint
    # key to be its own X_a, so it announces X' = X_a - X_v, whose discrete log it does not know.
    x_v, pub_v = keygen()
    x_a, pub_a = keygen()
    rogue = sub(pub_a, pub_v)
    assert joint_key([pub_v, rogue]) == pub_a  # what the attack would achieve
    victim_proof = prove_key(x_v, pub_v, ctx(0))
    attempts = [
        prove_key(x_a, rogue, ctx(1)),  # proving with the key it knows
        victim_proof,  # replaying the victim's proof
        prove_key(x_a, pub_a, ctx(1)),  # a valid proof, for another key
    ]
    for attempt in attempts:
        with pytest.raises(InvalidProof):
            verify_key(rogue, attempt, ctx(1))
    # and the victim's proof replayed for the victim's key by another seat fails too
    with pytest.raises(InvalidProof):
        verify_key(pub_v, victim_proof, ctx(1))


def test_identity_key_is_refused() -> None:
    # whatever (e, s): e = H(G, O, sG) with s = e would "prove" the identity without the guard
    with pytest.raises(InvalidProof):
        verify_key(IDENTITY, SchnorrProof(1, 1), ctx(0))


def test_key_commitment() -> None:
    _, pub = keygen()
    commitment = key_commitment(pub, ctx(0))
    assert len(commitment) == 32
    verify_key_commitment(commitment, pub, ctx(0))
    _, other = keygen()
    with pytest.raises(InvalidCommitment):
        verify_key_commitment(commitment, other, ctx(0))
    with pytest.raises(InvalidCommitment):
        verify_key_commitment(commitment, pub, ctx(1))
    with pytest.raises(MalformedData):
        verify_key_commitment(commitment[:31], pub, ctx(0))


def test_joint_key() -> None:
    keys = [keygen() for _ in range(4)]
    y = joint_key(pub for _, pub in keys)
    assert y == mul_base(sum(x for x, _ in keys))
    with pytest.raises(CryptoError):
        joint_key([])
    with pytest.raises(CryptoError):
        joint_key([BASE, neg(BASE)])
    assert add(BASE, IDENTITY) == BASE


@pytest.mark.parametrize(
    "wire",
    [
        None,
        [],
        [b"\x00" * 32],
        [b"\x00" * 32, b"\x00" * 32, b"\x00" * 32],
        [b"\x00" * 31, b"\x00" * 32],
        [L.to_bytes(32, "little"), b"\x00" * 32],
        [b"\x00" * 32, 5],
    ],
)
def test_schnorr_from_wire_rejects_malformed(wire: object) -> None:
    with pytest.raises(MalformedData):
        SchnorrProof.from_wire(wire)


def test_schnorr_proof_fields_are_checked() -> None:
    with pytest.raises(MalformedData):
        SchnorrProof(L, 0)
    with pytest.raises(MalformedData):
        SchnorrProof(0, -1)
