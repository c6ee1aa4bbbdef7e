"""Attack: a peer that biases its shuffle of the deal (replaces, duplicates or drops a card, or
reuses a proof that is not its own). Every honest peer must refuse the shuffle, blame that seat
and nobody else, keep its state before the deal, and save a transcript that blames it offline.

Each test plays only the first deal of a SKYJO game (keys, then one shuffle per seat).
"""

from __future__ import annotations

from typing import Any

import pytest

from protocol import crypto
from protocol.crypto.group import random_scalar
from protocol.crypto.shuffle import _prove, gen_shuffle
from protocol.jobs import ShuffleJob as _Shuffle
from protocol.session import Session
from protocol.transcript import dump
from protocol.verify import verify_bytes
from skyjo_p2p.core.events import DealRequest
from tests.protocol.harness import Net, assert_blamed, cheater, honest_seats


def _job(session: Session) -> _Shuffle:
    job = session._job
    assert isinstance(job, _Shuffle)
    return job


def _inputs(session: Session) -> tuple[list[crypto.Ciphertext], crypto.Point, bytes]:
    """What the cheating seat shuffles: its input deck, the joint key, its proof context."""
    assert session.me is not None and session.joint_key is not None
    context = session.context(session.me, session.transcript_hash)
    return _job(session).decks[-1], session.joint_key, context


def _message(session: Session, deck: list[crypto.Ciphertext], proof: crypto.ShuffleProof) -> dict[str, Any]:
    return {"job": _job(session).number, "deck": crypto.deck_to_wire(deck), "proof": list(proof.to_wire())}


def replace_card(session: Session) -> dict[str, Any]:
    """Output 2 holds a second copy of the card at output 1 (card psi[2] is gone); proof recomputed."""
    inputs, y, context = _inputs(session)
    out, r, psi = gen_shuffle(inputs, y)
    out[2] = crypto.reencrypt(inputs[psi[1]], y, r[2])
    return _message(session, out, _prove(inputs, out, r, psi, y, context))


def duplicate_card(session: Session) -> dict[str, Any]:
    """A map that is not a permutation (card 0 twice, card 1 dropped), proven by the honest prover."""
    inputs, y, context = _inputs(session)
    psi = list(range(len(inputs)))
    psi[1] = 0
    r = [random_scalar() for _ in psi]
    out = [crypto.reencrypt(inputs[j], y, ri) for j, ri in zip(psi, r, strict=True)]
    return _message(session, out, _prove(inputs, out, r, psi, y, context))


def foreign_card(session: Session) -> dict[str, Any]:
    """A card that is not in the deck (an encryption of a chosen point) instead of a real one."""
    inputs, y, context = _inputs(session)
    out, r, psi = gen_shuffle(inputs, y)
    out[0] = crypto.encrypt(crypto.hash_to_point("a card of my choice"), y)
    return _message(session, out, _prove(inputs, out, r, psi, y, context))


def drop_card(session: Session) -> dict[str, Any]:
    """One card fewer, with a valid proof for the shorter deck."""
    inputs, y, context = _inputs(session)
    out, proof = crypto.shuffle(inputs[:-1], y, context)
    return _message(session, out, proof)


def reuse_previous_proof(session: Session) -> dict[str, Any]:
    """Republish the previous seat's shuffle (its outputs and its proof) as one's own."""
    job = _job(session)
    return _message(session, job.decks[-1], job.proofs[-1])


def proof_of_another_seat(session: Session) -> dict[str, Any]:
    """A real shuffle, but its proof is made in the previous seat's name (its context)."""
    inputs, y, _ = _inputs(session)
    assert session.me is not None
    out, proof = crypto.shuffle(inputs, y, session.context(session.me - 1, session.transcript_hash))
    return _message(session, out, proof)


CHEATS = {
    "replace": replace_card,
    "duplicate": duplicate_card,
    "foreign-card": foreign_card,
    "drop": drop_card,
    "reuse-proof": reuse_previous_proof,
    "proof-of-another-seat": proof_of_another_seat,
}


def before_shuffle(players: int, culprit: int, observers: int = 0) -> Net:
    """A table whose seat `culprit` can cheat, stopped just before that seat shuffles."""
    net = Net("skyjo", players, {"target_score": 20}, observers=observers, session_factory=cheater(culprit))
    if culprit == 0:
        net.start(until=lambda: net.has_sent(players - 1, "key"))
    else:
        net.start(until=lambda: net.has_sent(culprit - 1, "shuffle"))
    assert not net.has_sent(culprit, "shuffle")
    return net


@pytest.fixture(scope="module")
def two_seats() -> Net:
    return before_shuffle(2, 1)


@pytest.fixture(scope="module")
def three_seats() -> Net:
    return before_shuffle(3, 1)


def cheat_from(table: Net, culprit: int, cheat: str) -> Net:
    make = CHEATS[cheat]

    def tamper(session: Session, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        return make(session) if kind == "shuffle" else data

    net = table.clone()
    net.set_tamper(culprit, tamper)
    net.pump()
    return net


def assert_refused_before_the_deal(net: Net, culprit: int, offline: bool = False) -> None:
    assert_blamed(net, culprit, "shuffle")
    for seat in honest_seats(net, culprit):
        session = net.sessions[seat]
        assert session.state is not None
        assert isinstance(session.state.pending[0], DealRequest), "the deal was not answered"
        assert not session.cards.ciphertexts, "no card of a refused shuffle was placed"
        assert not net.rejected(seat)
        if offline:  # `skyjo-lan verify` on the honest peer's saved game names the same seat
            verdict = verify_bytes(dump(net.config, session.frames))
            assert not verdict.valid and verdict.blame == culprit, verdict


@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_bad_shuffle_by_the_last_seat_is_blamed(two_seats: Net, cheat: str) -> None:
    net = cheat_from(two_seats, 1, cheat)
    assert_refused_before_the_deal(net, 1, offline=cheat == "replace")


@pytest.mark.parametrize("cheat", ["duplicate", "reuse-proof"])
def test_bad_shuffle_by_a_middle_seat_is_blamed_by_all(three_seats: Net, cheat: str) -> None:
    # seat 2 shuffles, then checks seat 1's shuffle (issue 16's schedule: a shuffle reveals
    # nothing) and stops; whatever each seat has checked when it stops, it must blame seat 1,
    # never the honest seat 2, and so must the offline verifier of seat 0's transcript (an
    # observer, at the end of it).
    net = cheat_from(three_seats, 1, cheat)
    assert_refused_before_the_deal(net, 1, offline=True)


def test_bad_shuffle_by_the_first_seat_is_blamed() -> None:
    net = cheat_from(before_shuffle(3, 0), 0, "duplicate")
    assert_refused_before_the_deal(net, 0)


def test_honest_shuffles_from_the_same_point_deal_the_cards(two_seats: Net) -> None:
    # the control: the same table, nobody cheating, deals and reveals the discard card
    net = two_seats.clone()
    net.pump(until=lambda: net.has_sent(0, "shares"))
    assert not net.blamed()
    state = net.sessions[0].state
    assert state is not None
    assert not any(isinstance(r, DealRequest) for r in state.pending)
    assert len(net.sessions[0].cards.ciphertexts) == 150
