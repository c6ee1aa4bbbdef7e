"""Attack: a rogue key. The last seat announces X' = X_a - (sum of the others' keys), so that the
joint key would be X_a, its own, and it alone could read every card. The Schnorr proof of
knowledge must fail (it does not know log X'), and a key that does not open its commitment must
be refused. Every honest peer blames that seat before any card is dealt.

The test gives the attacker what the commit-then-reveal order denies it (the others' keys before
it commits), to check that the proof alone stops it.
"""

from __future__ import annotations

from typing import Any

import pytest

from protocol import crypto
from protocol.crypto.group import sub
from protocol.jobs import KeysJob as _Keys
from protocol.session import Session
from tests.protocol.harness import Net, assert_blamed, cheater, honest_seats


def _keys_job(session: Session) -> _Keys:
    job = session._job
    assert isinstance(job, _Keys)
    return job


def key_attack(net_ref: list[Net], attack: str) -> Any:
    """A tamper function for the key messages of the last seat."""
    x_a, pub_a = crypto.keygen()
    state: dict[str, Any] = {}

    def others(session: Session) -> list[Session]:
        return [s for s in net_ref[0].sessions if s is not session]

    def chosen_key(session: Session) -> crypto.Point:
        if "key" not in state:
            if attack == "rogue":
                rogue = pub_a
                for other in others(session):
                    assert other.my_public_key is not None
                    rogue = sub(rogue, other.my_public_key)
                state["key"] = rogue
            elif attack == "replayed-proof":
                victim = others(session)[0].my_public_key
                assert victim is not None
                state["key"] = victim
            else:
                assert session.my_public_key is not None
                state["key"] = session.my_public_key
        return state["key"]

    def tamper(session: Session, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        assert session.me is not None
        job = _keys_job(session) if kind in ("keycommit", "key") else None
        if kind == "keycommit" and job is not None:
            context = session.context(session.me, job.start_hash)
            return {"commit": crypto.key_commitment(chosen_key(session), context)}
        if kind == "key" and job is not None:
            key = chosen_key(session)
            context = session.context(session.me, job.reveal_hash)
            if attack == "rogue":  # the best it can do: prove with the secret it knows
                return {"key": key, "proof": list(crypto.prove_key(x_a, key, context).to_wire())}
            if attack == "replayed-proof":  # the victim's own proof, made in the victim's name
                victim = others(session)[0]
                assert victim.secret is not None and victim.me is not None
                proof = crypto.prove_key(victim.secret, key, session.context(victim.me, job.reveal_hash))
                return {"key": key, "proof": list(proof.to_wire())}
            if attack == "not-committed":  # a valid key with a valid proof, not the committed one
                x, other = crypto.keygen()
                return {"key": other, "proof": list(crypto.prove_key(x, other, context).to_wire())}
            if attack == "identity":  # ristretto255's identity encodes as 32 zero bytes
                return {"key": bytes(32), "proof": data["proof"]}
            if attack == "non-canonical":  # the honest key with bit 255 set: libsodium decodes it
                honest = bytes(data["key"])
                return {"key": honest[:31] + bytes([honest[31] | 0x80]), "proof": data["proof"]}
            if attack == "not-a-point":
                return {"key": b"\x02" * 32, "proof": data["proof"]}
        return data

    return tamper


ATTACKS = {
    "rogue": "Schnorr",
    "replayed-proof": "Schnorr",
    "not-committed": "commitment",
    "identity": "identity",
    "non-canonical": "non-canonical",
    "not-a-point": "",
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_bad_key_is_blamed_before_the_deal(attack: str) -> None:
    players, culprit = 2, 1
    ref: list[Net] = []
    net = Net(
        "skyjo", players, {"target_score": 20}, session_factory=cheater(culprit, key_attack(ref, attack))
    )
    ref.append(net)
    net.start()
    blames = assert_blamed(net, culprit, "key share refused")
    assert any(ATTACKS[attack] in b.reason for b in blames), [b.reason for b in blames]
    for seat in honest_seats(net, culprit):
        session = net.sessions[seat]
        assert session.state is None and session.joint_key is None, "no game started on a bad key"
        assert not net.has_sent(seat, "shuffle")


def test_rogue_key_would_have_given_the_attacker_the_joint_key() -> None:
    # what the refused key would achieve: the check above is what stands between it and the deck
    _, pub_v = crypto.keygen()
    _, pub_a = crypto.keygen()
    assert crypto.joint_key([pub_v, sub(pub_a, pub_v)]) == pub_a


def test_rogue_key_at_a_table_of_three() -> None:
    ref: list[Net] = []
    net = Net(
        "skyjo", 3, {"target_score": 20}, observers=1, session_factory=cheater(2, key_attack(ref, "rogue"))
    )
    ref.append(net)
    net.start()
    assert_blamed(net, 2, "Schnorr")
