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


def waiting_for_a_move() -> tuple[Net, int, list[int]]:
    """A dealt table of 3 players who time moves (the reference client's 300 s) and one observer,
    waiting for a seat's first move: the table, the seat to move, the two others."""
    net = Net("skyjo", 3, {"target_score": 20}, observers=1)
    for session in net.sessions:
        session.move_timeout = 300.0
    net.start(until=lambda: any(net.wants_move(s) for s in range(3)))
    net.pump(play=False)
    mover = next(s for s in range(3) if net.wants_move(s))
    return net, mover, [s for s in range(3) if s != mover]


def stop_naming_absent(net: Net, stopper: int, seat: int) -> None:
    """`stopper` stops the game without proof, naming `seat` absent (its timer ran out, it says)."""
    reason = f"seat {seat + 1} did not answer in time"
    net.sessions[stopper]._emit("halt", {"reason": reason, "culprit": [], "absent": [seat], "evidence": []})
    net.pump(play=False)


def test_a_halt_naming_absent_a_seat_we_have_barely_waited_for_is_told_naming_nobody() -> None:
    # A stop without proof is adopted naming absent only the seats the adopter saw silent for a
    # whole wait itself: another seat's word (its timer, its view) is not an observation of ours.
    net, mover, (stopper, waiter) = waiting_for_a_move()
    stop_naming_absent(net, stopper, mover)
    (halt,) = net.halted(waiter)
    assert halt.culprit is None and halt.absent == (), halt
    assert "did not answer in time" in halt.reason, "the stopper's word is told, as its"
    assert not net.blamed(waiter)
    # an observer says nothing and times nobody: the players' signed word is all it goes by
    observed = [e for e in net.observer_events[0] if isinstance(e, Halted)]
    assert observed and observed[-1].absent == (mover,), observed


def test_a_halt_naming_absent_a_seat_we_waited_for_a_whole_wait_is_repeated() -> None:
    net, mover, (stopper, waiter) = waiting_for_a_move()
    (wait,) = {t.name for t in net.timers[waiter] if t.name.endswith(f":move:{mover}")}
    net.sessions[waiter].timer_expired(wait)  # our first wait ran out: we relayed, nothing came
    net.collect(waiter)
    net.pump(play=False)
    assert not net.halted(waiter), "one wait is not the stop"
    stop_naming_absent(net, stopper, mover)
    (halt,) = net.halted(waiter)
    assert halt.culprit is None and halt.absent == (mover,), halt


def test_a_halt_naming_absent_a_seat_we_do_not_wait_for_names_nobody() -> None:
    net, mover, (stopper, waiter) = waiting_for_a_move()
    stop_naming_absent(net, stopper, waiter)  # the waiter itself: it is there
    (halt,) = net.halted(mover)
    assert halt.culprit is None and halt.absent == (), halt


def a_stale_halt(own_wait_over: bool) -> tuple[Net, int, int]:
    """The mover moves while the two others' frames to it are held back: one of them stopped
    before the move, naming absent the other, whose shares of the card the move turned the mover
    then waits for. The halt reaches the mover after its move and its own shares, which the
    stopper never saw (as in the adversary model's seed 16663); with `own_wait_over`, after the
    mover's own first wait for those shares ran out. Returns (table, mover, named seat)."""
    net, mover, others = waiting_for_a_move()
    named, stopper = min(others), max(others)  # the shares come in seat order: `named`'s first
    held: list[bytes] = []

    def hold(sender: int, receiver: int, frame: bytes) -> list[bytes]:
        if receiver == mover and sender in others:
            if sender == stopper and frame_kind(frame) == "halt":
                held.append(frame)
            return []
        return [frame]

    net.filter = hold
    reason = f"seat {named + 1} did not answer in time"
    net.sessions[stopper]._emit("halt", {"reason": reason, "culprit": [], "absent": [named], "evidence": []})
    session = net.sessions[mover]
    net.pump(until=lambda: session.blocked_seats() not in ((), (mover,)))  # it moved, and waits
    net.pump(play=False)
    assert session.blocked_seats() == (named,) and not session.halted, session.blocked_seats()
    if own_wait_over:
        blocked = session.steps.blocked
        assert blocked is not None
        session.timer_expired(blocked.name)
        net.collect(mover)
        net.pump(play=False)
    net.filter = None
    net.put(stopper, mover, held[0])  # its stop (its chain: what it had of the mover then)
    net.pump(play=False)
    return net, mover, named


def test_a_halt_signed_before_our_latest_frame_names_nobody_absent() -> None:
    net, mover, _ = a_stale_halt(own_wait_over=False)
    (halt,) = net.halted(mover)
    assert halt.culprit is None and halt.absent == (), halt
    assert "did not answer in time" in halt.reason, "the stopper's word is told, as its"


def test_a_halt_signed_before_our_latest_frame_is_repeated_once_our_own_first_wait_ran_out() -> None:
    net, mover, named = a_stale_halt(own_wait_over=True)
    (halt,) = net.halted(mover)
    assert halt.culprit is None and halt.absent == (named,), halt
