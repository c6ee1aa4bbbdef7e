"""Attack: a wrong decryption share. A peer that publishes, for a card being revealed, a share
that is not x*c1 (with the proof it came with, or with a freshly computed proof), a share made
with another key, or a valid share of another card. Every honest peer must refuse the shares,
blame that seat and nobody else, and leave the card unrevealed (no wrong value reaches the game).

The first reveal of a SKYJO round is the discard card, public: every seat owes a share.
"""

from __future__ import annotations

from typing import Any

import pytest

from protocol import crypto
from protocol.crypto.dleq import _batch_coefficients, _batch_statement
from protocol.crypto.group import BASE, L, add, lincomb, mul_base, random_scalar
from protocol.crypto.hashing import challenge
from protocol.jobs import RevealsJob as _Reveals
from protocol.session import Session
from protocol.transcript import dump
from protocol.verify import verify_bytes
from skyjo_p2p.core.events import RevealRequest
from tests.protocol.harness import Net, assert_blamed, cheater, honest_seats


def _owed(session: Session) -> tuple[_Reveals, list[crypto.Ciphertext], bytes]:
    job = session._job
    assert isinstance(job, _Reveals) and session.me is not None
    ciphertexts = [session.cards.ciphertexts[h] for h in job.owed[session.me]]
    return job, ciphertexts, session.context(session.me, job.start_hash)


def _message(job: _Reveals, batch: crypto.ShareBatch) -> dict[str, Any]:
    return {"job": job.number, "batch": list(batch.to_wire()), "private": []}


def _prove_anything(
    secret: int, key: crypto.Point, cts: list[crypto.Ciphertext], shares: list[crypto.Point], context: bytes
) -> crypto.ShareBatch:
    """The batched Chaum-Pedersen prover of `make_share_batch`, run on shares of our choosing."""
    statement = _batch_statement(key, cts, shares)
    coefs = _batch_coefficients(statement, context, len(cts))
    w = random_scalar()
    a, b = mul_base(w), lincomb((w * e, c.c1) for e, c in zip(coefs, cts, strict=True))
    e = challenge("skyjo-lan/v1/dleq-batch", statement, [a, b], context)
    return crypto.ShareBatch(tuple(shares), crypto.BatchProof(a, b, (w + e * secret) % L))


def random_share(session: Session) -> dict[str, Any]:
    """The honest batch with its first share replaced by a random point; the proof kept."""
    job, cts, context = _owed(session)
    assert session.secret is not None and session.my_public_key is not None
    honest = crypto.make_share_batch(session.secret, session.my_public_key, cts, context)
    shares = (mul_base(random_scalar()), *honest.shares[1:])
    return _message(job, crypto.ShareBatch(shares, honest.proof))


def shifted_share_fresh_proof(session: Session) -> dict[str, Any]:
    """Shares x*c1 + G (the card would decrypt to M - G), with a proof computed on them."""
    job, cts, context = _owed(session)
    assert session.secret is not None and session.my_public_key is not None
    shares = [add(crypto.decryption_share(session.secret, c), BASE) for c in cts]
    return _message(job, _prove_anything(session.secret, session.my_public_key, cts, shares, context))


def other_key(session: Session) -> dict[str, Any]:
    """Consistent shares and a valid proof, but for another key than the one this seat published."""
    job, cts, context = _owed(session)
    x, pub = crypto.keygen()
    return _message(job, crypto.make_share_batch(x, pub, cts, context))


def share_of_another_card(session: Session) -> dict[str, Any]:
    """A valid share, with a valid proof, of another card of the deck (the top of the draw pile)."""
    job, cts, context = _owed(session)
    assert session.secret is not None and session.my_public_key is not None and session.state is not None
    wanted = set(job.owed[session.me or 0])
    other = next(h for h in sorted(session.cards.ciphertexts, reverse=True) if h not in wanted)
    wrong = [session.cards.ciphertexts[other]] * len(cts)
    return _message(job, crypto.make_share_batch(session.secret, session.my_public_key, wrong, context))


def identity_share(session: Session) -> dict[str, Any]:
    """The neutral element as a share (0 = x*c1 only for x = 0): refused as a point."""
    job, cts, _ = _owed(session)
    honest = list(
        crypto.make_share_batch(session.secret or 1, session.my_public_key or BASE, cts, b"").to_wire()
    )
    honest[0] = [bytes(32), *honest[0][1:]]  # the identity's encoding in ristretto255
    return {"job": job.number, "batch": honest, "private": []}


CHEATS = {
    "random-share": random_share,
    "shifted-share-fresh-proof": shifted_share_fresh_proof,
    "other-key": other_key,
    "share-of-another-card": share_of_another_card,
    "identity-share": identity_share,
}


@pytest.fixture(scope="module")
def before_first_reveal() -> Net:
    """Two seats (seat 1 able to cheat) during the deal: seat 0 has shuffled, seat 1 has sent
    nothing for the first reveal yet (every seat sends its shares as soon as a reveal begins)."""
    net = Net("skyjo", 2, {"target_score": 20}, session_factory=cheater(1))
    net.start(until=lambda: net.has_sent(0, "shuffle"))
    assert not net.has_sent(1, "shares")
    return net


@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_wrong_decryption_share_is_blamed(before_first_reveal: Net, cheat: str) -> None:
    make = CHEATS[cheat]
    culprit = 1
    net = before_first_reveal.clone()

    def tamper(session: Session, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        return make(session) if kind == "shares" else data

    net.set_tamper(culprit, tamper)
    net.pump()
    assert_blamed(net, culprit, "decryption shares")
    for seat in honest_seats(net, culprit):
        session = net.sessions[seat]
        assert session.state is not None
        # the discard card was never revealed: no value from a bad share entered the game
        pending = session.state.pending
        assert pending and isinstance(pending[0], RevealRequest)
        assert all(v is None for v in session.state.values)
        assert culprit not in session.cards.published(pending[0].handle)
    if cheat == "shifted-share-fresh-proof":
        verdict = verify_bytes(dump(net.config, net.sessions[0].frames))
        assert verdict.blame == culprit and "decryption shares" in (verdict.fault or "")


def test_honest_shares_from_the_same_point_are_accepted(before_first_reveal: Net) -> None:
    # the control: without tampering the same table reveals the card and plays on
    net = before_first_reveal.clone()
    net.pump(until=lambda: net.has_sent(1, "move"))
    assert not net.blamed()
    state = net.sessions[0].state
    assert state is not None and any(v is not None for v in state.values)


def test_wrong_share_from_the_first_seat_of_three() -> None:
    # seat 0 owes its share first; seats 1 and 2 both check it on arrival
    def tamper(session: Session, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        return shifted_share_fresh_proof(session) if kind == "shares" else data

    net = Net("skyjo", 3, {"target_score": 20}, session_factory=cheater(0, tamper))
    net.start()
    assert_blamed(net, 0, "decryption shares")
