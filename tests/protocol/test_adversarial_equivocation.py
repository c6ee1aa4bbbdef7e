"""Attack: equivocation. A seat sends different, validly signed frames with the same sequence
number to different peers (so that they play different games). Every peer echoes the hash of
each game frame it receives; the echoes must expose the fork, two signed frames must prove it,
and every honest peer must blame the equivocator and nobody else, including the peer that got
the odd version, whatever that version made it do.

And the converse: a liar that echoes a wrong hash for an honest seat's frame must not get that
seat blamed; the liar is blamed once the echo timer runs out.

Three seats: seat 1 equivocates, seat 2 is the victim (it gets the odd frames), seat 0 gets the
same frames as the observer.
"""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from protocol.events import Blamed
from protocol.messages import Envelope, open_frame
from protocol.session import Session
from protocol.transcript import dump
from protocol.verify import verify_bytes
from tests.protocol.harness import Fork, Net, assert_blamed, cheater

CULPRIT, VICTIM, BYSTANDER = 1, 2, 0


def assert_proven(net: Net, blames: list[Blamed], fork: Fork | None = None) -> None:
    """Some honest peer's blame carries two frames signed by the culprit with one sequence number."""
    proofs = [b for b in blames if len(b.evidence) == 2 and "equivocation" in b.reason]
    assert proofs, [b.reason for b in blames]
    for blame in proofs:
        first, second = (open_frame(f, net.config) for f in blame.evidence)
        assert first.seat == second.seat == CULPRIT
        assert first.seq == second.seq and first.digest != second.digest
    if fork is not None and fork.forked is not None:
        assert any(set(b.evidence) == set(fork.forked) for b in proofs) or all(
            b.evidence[0] != b.evidence[1] for b in proofs
        )


@pytest.fixture(scope="module")
def three_at_setup() -> Net:
    """Three seats after the deal, before seat 1's first move (seat 2 may lie in echoes)."""
    net = Net("skyjo", 3, {"target_score": 20}, observers=1, session_factory=cheater(VICTIM))
    net.start(until=lambda: net.has_sent(VICTIM, "shares"))
    assert not net.has_sent(CULPRIT, "move")
    return net


def test_equivocation_on_the_first_frame_is_proven() -> None:
    # two different key commitments, then a chain consistent with each: only echoes tell
    net = Net("skyjo", 3, {"target_score": 20}, observers=1)

    def other_commit(env: Envelope) -> dict[str, Any] | None:
        return {"commit": secrets.token_bytes(32)} if env.kind == "keycommit" else None

    fork = Fork(net, CULPRIT, VICTIM, other_commit)
    net.filter = fork
    net.start()
    blames = assert_blamed(net, CULPRIT, "")
    assert_proven(net, blames, fork)
    for seat in (BYSTANDER, VICTIM):
        assert net.sessions[seat].state is None, "no game starts on disputed keys"


def other_setup_move(env: Envelope) -> dict[str, Any] | None:
    """The same setup move with other cards turned: legal for the victim, different for the rest."""
    if env.kind != "move":
        return None
    move = dict(env.data["move"])
    move["slots"] = [(s + 6) % 12 for s in move["slots"]]
    return {**env.data, "move": move}


@pytest.mark.parametrize("consistent", [True, False], ids=["consistent-chains", "broken-chain"])
def test_equivocation_on_a_move_is_proven(three_at_setup: Net, consistent: bool) -> None:
    # the victim plays a different (legal) move than the others: it reveals other cards and
    # answers with shares the others cannot check; nobody but the equivocator is blamed
    net = three_at_setup.clone()
    fork = Fork(net, CULPRIT, VICTIM, other_setup_move, consistent=consistent)
    net.filter = fork
    net.pump()
    assert fork.forked is not None
    blames = assert_blamed(net, CULPRIT, "")
    assert_proven(net, blames, fork)
    for seat in (BYSTANDER, VICTIM):  # each honest peer's saved game proves it offline
        verdict = verify_bytes(dump(net.config, net.sessions[seat].frames))
        assert not verdict.valid and verdict.blame == CULPRIT, verdict


def test_equivocation_on_an_illegal_move_sent_to_one_peer(three_at_setup: Net) -> None:
    # the victim gets an illegal move and stops at once; the bystander got a legal one and has
    # no direct reason to stop: it must still blame the equivocator, not the victim
    net = three_at_setup.clone()

    def illegal(env: Envelope) -> dict[str, Any] | None:
        if env.kind != "move":
            return None
        return {**env.data, "move": {"seat": CULPRIT, "move": "reveal", "slots": [0, 0]}}

    net.filter = Fork(net, CULPRIT, VICTIM, illegal, consistent=False)
    net.pump()
    blames = assert_blamed(net, CULPRIT, "")
    assert any("illegal move" in b.reason for b in net.blamed(VICTIM))
    assert_proven(net, blames)


@pytest.mark.parametrize("consistent", [True, False], ids=["consistent-chains", "broken-chain"])
def test_equivocation_on_table_talk_is_proven(three_at_setup: Net, consistent: bool) -> None:
    # chat is not echoed, but the frames after it chain on it: the fork still shows
    net = three_at_setup.clone()
    fork = Fork(
        net, CULPRIT, VICTIM, lambda e: {"text": "something else"} if e.kind == "chat" else None, consistent
    )
    net.filter = fork
    net.sessions[CULPRIT].send_chat("good luck")
    net.pump()
    blames = assert_blamed(net, CULPRIT, "")
    assert_proven(net, blames)


# --- liars -------------------------------------------------------------------------------------


def lie_about(seat: int) -> Any:
    """Tamper: acknowledge every frame of `seat` with a random digest."""

    def tamper(session: Session, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        if kind != "acks":  # the acknowledgements every frame carries (see harness)
            return data
        acks = [[s, q, secrets.token_bytes(32) if s == seat else d] for s, q, d in data["acks"]]
        return {"acks": acks}

    return tamper


@pytest.mark.parametrize("target", [0, 1])
def test_liar_echo_never_blames_the_author(three_at_setup: Net, target: int) -> None:
    # seat 2 claims (to everyone alike) it got other frames from `target` than `target` sent:
    # `target` is honest (its frames are what everyone else has). Nothing signed proves who lied
    # (an author may sign another version for one echoer only), so when the echo timer runs out
    # the game stops naming the echoer that could not show its version as absent, and nobody as
    # a cheat; never the author.
    net = three_at_setup.clone()
    net.set_tamper(VICTIM, lie_about(target))
    net.pump()
    liar = VICTIM
    assert not [b for s in (0, 1) for b in net.blamed(s)], "nobody is blamed before the timer"
    assert all(net.sessions[s].halted is None for s in (0, 1))
    net.fire_timers([0, 1], prefix="echo:")
    for seat in (0, 1):
        assert not net.blamed(seat), net.blamed(seat)
        halts = net.halted(seat)
        assert halts and halts[-1].culprit is None and halts[-1].absent == (liar,), halts
        assert net.sessions[seat].halted is not None
    # offline, no timer runs: the saved game shows the dispute and does not pass as valid
    verdict = verify_bytes(dump(net.config, net.sessions[0].frames))
    assert not verdict.valid and "echo disagrees" in (verdict.fault or ""), verdict
    assert verdict.blame is None


def test_liar_with_junk_evidence_is_blamed(three_at_setup: Net) -> None:
    net = three_at_setup.clone()
    liar = net.sessions[VICTIM]
    liar._emit("evidence", {"frame": b"\x92\xc4\x01x\xc4\x01y"})
    net.pump()
    assert_blamed(net, VICTIM, "evidence")
