"""Issue 26 point 4: `--resume` survives a lost tail of its own file (PROTOCOL.md 10.10).

A record that was sent can still be lost from the saved file (a disk that acknowledged a write
it never made, a backup, a dead battery). Made anew on resume, such a frame differs from the one
the others hold: before, every peer blamed the honest player for equivocation ("two different
signed frames #103"). Now a restored session signs nothing until the others said how much of its
chain they hold, takes its own frames back from them, and only then goes on."""

from __future__ import annotations

from collections import deque

import pytest

from protocol.events import TableSilent, TimerRequest
from protocol.messages import open_frame
from protocol.recovery import SILENT_RECOVER_WAITS
from protocol.session import Session
from protocol.transcript import dump
from protocol.verify import verify_bytes

from .harness import Net

LOST = 2


def _mid_game() -> Net:
    net = Net("skyjo", 3, {"target_score": 20})
    net.start(
        until=lambda: sum(open_frame(f, net.config).kind == "move" for f in net.sessions[0].frames) >= 6
    )
    assert net.sessions[0].state is not None and net.sessions[0].state.phase != "game_over"
    _crash(net)
    return net


def _crash(net: Net) -> None:
    """kill -9 of seat LOST: what it had already sent still reaches the others (the kernel sends
    what the dead program's sockets hold), and nothing more comes from it. Without this, a frame
    of the old program still in flight would reach the others after the restored one signed its
    own frame of that number: a race the real links do not run (the new link comes after the
    old one's last bytes), and the test would depend on it."""
    sent = [item for item in net.queue if item[0] == LOST]
    net.queue = deque(item for item in net.queue if item[0] != LOST)
    for _, receiver, frame in sent:
        net.in_flight[receiver] -= 1
        net.sessions[receiver].receive_frame(frame)
        net.collect(receiver)


def _lose_tail(net: Net, records: int) -> list[bytes]:
    """The crashed seat's file without its last `records` records (a file loses a tail, not
    holes), at least one of them a frame of its own that the others hold."""
    frames = list(net.sessions[LOST].frames)
    own = [i for i, f in enumerate(frames) if open_frame(f, net.config).seat == LOST]
    cut = min(len(frames) - records, own[-1])
    assert cut > own[0], "the file keeps the seat's first frames"
    return frames[:cut]


def _reconnect(net: Net, restored: Session, *, recover: bool) -> None:
    """What the links do when the restored peer reconnects: each other seat's `resend` says how
    much of the restored chain it holds (and, recovering, it is asked for the rest: `mine`);
    each side resends what the other lacks of its own chain."""
    for seat in range(net.players):
        if seat == LOST:
            continue
        other = net.sessions[seat]
        if recover:
            restored.peer_holds(seat, other.next_seq_of(LOST))
            start = restored.missing_own()
            if start is not None:
                for frame in other.chain_frames(LOST, start):
                    restored.receive_frame(frame)
        for frame in other.own_frames_from(restored.next_seq_of(seat)):
            restored.receive_frame(frame)


def _back_and_finished(net: Net, restored: Session, old: Session) -> None:
    """The links come back: the restored seat takes its lost frames back and stops recovering,
    the game is played to its end, nobody is blamed, and every file (the restored one included)
    is valid and finished."""
    _reconnect(net, restored, recover=True)
    assert not restored.recovering and restored.next_seq_of(LOST) >= old.next_seq_of(LOST)
    net.pump()
    assert not net.blamed(), net.blamed()
    for seat in range(net.players):
        state = net.sessions[seat].state
        assert state is not None and state.phase == "game_over", (seat, net.sessions[seat].halted)
        verdict = verify_bytes(dump(net.config, net.sessions[seat].frames))
        assert verdict.valid and verdict.finished, (seat, verdict.fault)


@pytest.mark.parametrize("records", [1, 20])
def test_issue26_4_a_lost_tail_of_own_frames_is_taken_back_and_nobody_is_blamed(records: int) -> None:
    net = _mid_game()
    old = net.sessions[LOST]
    frames = _lose_tail(net, records)
    restored = Session.restore(net.config, LOST, net.keys[LOST], old.secrets(), frames, recover=True)
    assert restored.recovering
    assert not restored.data_to_send(), "a recovering peer signs nothing"
    net.sessions[LOST] = restored
    net.events[LOST] = list(restored.next_events())
    _back_and_finished(net, restored, old)


def test_issue26_4_a_seat_that_never_answers_does_not_hold_the_recovery_for_ever() -> None:
    # nothing was lost, and one other seat never reconnects: the `recover` timer ends the wait
    net = _mid_game()
    old = net.sessions[LOST]
    restored = Session.restore(
        net.config, LOST, net.keys[LOST], old.secrets(), list(old.frames), recover=True
    )
    timers = [e.name for e in restored.next_events() if isinstance(e, TimerRequest)]
    assert "recover" in timers
    restored.peer_holds(0, net.sessions[0].next_seq_of(LOST))  # seat 1 stays silent
    assert restored.recovering and restored.timer_needed("recover")
    restored.timer_expired("recover")
    assert not restored.recovering and not restored.timer_needed("recover")


def test_issue26_4_a_seat_known_to_hold_more_is_waited_for_past_the_timer() -> None:
    net = _mid_game()
    old = net.sessions[LOST]
    restored = Session.restore(
        net.config, LOST, net.keys[LOST], old.secrets(), _lose_tail(net, 1), recover=True
    )
    restored.peer_holds(0, net.sessions[0].next_seq_of(LOST))
    restored.next_events()
    restored.timer_expired("recover")  # seat 0 holds a frame of ours we lack: never sign over it
    assert restored.recovering and not restored.data_to_send()
    assert any(isinstance(e, TimerRequest) and e.name == "recover" for e in restored.next_events())
    for frame in net.sessions[0].chain_frames(LOST, restored.missing_own() or 0):
        restored.receive_frame(frame)
    restored.peer_holds(1, net.sessions[1].next_seq_of(LOST))
    assert not restored.recovering


def test_issue26_4_a_restored_peer_that_hears_nobody_signs_nothing_until_a_seat_answers() -> None:
    # started again before its links are back (a power cut that restarted the router too): the
    # `recover` timers run out with no seat heard at all. Going on then signed anew the frames
    # the lost tail held, and once the links came back every peer blamed the honest player for
    # equivocation (the adversary model, seed 42277). Now it waits, signing nothing.
    net = _mid_game()
    old = net.sessions[LOST]
    restored = Session.restore(
        net.config, LOST, net.keys[LOST], old.secrets(), _lose_tail(net, 3), recover=True
    )
    net.sessions[LOST] = restored
    net.events[LOST] = list(restored.next_events())
    for _ in range(SILENT_RECOVER_WAITS - 1):
        restored.timer_expired("recover")
        assert restored.recovering and not restored.data_to_send(), "nothing is signed"
        events = restored.next_events()
        assert any(isinstance(e, TableSilent) for e in events), "the player is told nobody answers"
        assert any(isinstance(e, TimerRequest) and e.name == "recover" for e in events)
    _back_and_finished(net, restored, old)  # the links come back: the lost frames with them


def test_issue26_4_a_restored_peer_that_never_hears_anyone_stops_without_signing() -> None:
    net = _mid_game()
    old = net.sessions[LOST]
    saved = _lose_tail(net, 3)
    restored = Session.restore(net.config, LOST, net.keys[LOST], old.secrets(), saved, recover=True)
    restored.next_events()
    for _ in range(SILENT_RECOVER_WAITS):
        restored.timer_expired("recover")
    assert restored.halted is not None and "nobody at the table answered" in restored.halted
    assert restored.cut_off, "the saved game stays resumable (the client keeps its .resume file)"
    assert restored.culprit is None and restored.absent == ()
    assert not restored.data_to_send() and list(restored.frames) == saved, "nothing was signed"
    assert not restored.timer_needed("recover")


def test_issue26_4_a_restored_peer_whose_file_holds_the_whole_game_ends_it_though_nobody_answers() -> None:
    # killed just after the game's end, started again once the others had left: its own file
    # takes the game to its end with nothing of ours left to sign, so the first `recover` timer
    # ends the wait as before (the fault soak, seed 17: waiting for nobody, it stopped "cut off"
    # with a finished game on its disk)
    net = Net("skyjo", 3, {"target_score": 20})
    net.start()
    old = net.sessions[LOST]
    assert old.settled and old.state is not None and old.state.phase == "game_over"
    restored = Session.restore(
        net.config, LOST, net.keys[LOST], old.secrets(), list(old.frames), recover=True
    )
    restored.next_events()
    restored.timer_expired("recover")
    assert not restored.recovering and restored.halted is None
    assert restored.settled and restored.state is not None and restored.state.phase == "game_over"
    assert not restored.data_to_send(), "nothing new was signed"
    verdict = verify_bytes(dump(net.config, restored.frames))
    assert verdict.valid and verdict.finished, verdict.fault
