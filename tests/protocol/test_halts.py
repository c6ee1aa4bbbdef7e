"""Halts (issue 12, part 2): every stop is a signed frame with its verdict and evidence; a peer
that receives one checks the evidence itself; a halt whose evidence proves nothing names its
sender, and only it; a stop without proof (a timeout) names nobody as a cheat."""

from __future__ import annotations

from protocol.events import Halted
from protocol.transcript import dump
from protocol.verify import verify_bytes

from .harness import Net, frame_kind

LIAR = 2


def dealt_table() -> Net:
    net = Net("skyjo", 3, {"target_score": 20})
    net.start(until=lambda: all(s.state is not None and s.state.phase != "deal" for s in net.sessions))
    net.pump(play=False)
    return net


def a_consumed_frame_of(net: Net, seat: int) -> bytes:
    """A game frame of `seat` that every peer has consumed (its key commitment)."""
    return next(f for s, f in net.sent if s == seat and frame_kind(f) == "keycommit")


def false_halt(net: Net, victim: int, only_to: int | None = None) -> None:
    """The liar halts the game blaming honest `victim` with a frame of it that proves nothing."""
    evidence = a_consumed_frame_of(net, victim)
    liar = net.sessions[LIAR]
    liar._emit("halt", {"reason": "cheated", "culprit": [victim], "absent": [], "evidence": [evidence]})
    if only_to is not None:
        net.filter = lambda sender, receiver, frame: (
            [] if sender == LIAR and frame_kind(frame) == "halt" and receiver != only_to else [frame]
        )
    net.pump(play=False)


def test_false_halt_blames_its_sender_everywhere() -> None:
    net = dealt_table()
    false_halt(net, victim=1)
    for seat in (0, 1):
        assert {b.seat for b in net.blamed(seat)} == {LIAR}, net.blamed(seat)
        final = net.halted(seat)[-1]
        assert final.culprit == LIAR, final
        assert net.blamed(seat)[-1].evidence, "the liar's halt frame is the evidence"
    verdict = verify_bytes(dump(net.config, net.sessions[0].frames))
    assert not verdict.valid and verdict.blame == LIAR, verdict


def test_false_halt_sent_to_one_peer_reaches_the_same_verdict_at_every_honest_peer() -> None:
    # seat 0 alone gets the lie; seat 1 (the one named) learns it only inside seat 0's halt, a
    # halt relaying a halt: it must blame the liar too, never seat 0
    net = dealt_table()
    false_halt(net, victim=1, only_to=0)
    for seat in (0, 1):
        assert {b.seat for b in net.blamed(seat)} == {LIAR}, (seat, net.blamed(seat))
        assert net.halted(seat)[-1].culprit == LIAR


def test_a_stop_without_proof_is_adopted_naming_nobody() -> None:
    net = dealt_table()
    liar = net.sessions[LIAR]
    liar._emit("halt", {"reason": "I have to go", "culprit": [], "absent": [], "evidence": []})
    net.pump(play=False)
    for seat in (0, 1):
        halts: list[Halted] = net.halted(seat)
        assert halts and halts[-1].culprit is None and halts[-1].absent == (), halts
        assert not net.blamed(seat)
        assert "I have to go" in halts[-1].reason


def test_a_halted_peer_sends_no_more_game_messages() -> None:
    net = dealt_table()
    net.sessions[0].stop("the player quit")
    before = [f for s, f in net.sent if s == 0]
    net.pump()
    after = [f for s, f in net.sent if s == 0][len(before) :]
    kinds = {frame_kind(f) for f in after}
    assert kinds <= {"echo", "evidence", "want", "halt", "chat", "complaint"}, kinds
    assert all(net.sessions[s].halted for s in range(3))
    assert not net.blamed()
