"""A player who leaves (issue 15, point 2): a signed `leave` frame stops the game for everyone
with `Left(seat)`, never a blame; the transcripts verify as unfinished, "stopped: NAME (seat N)
left the table"; a forged leave is treated as any bad frame; a leave after the end of the game
is ignored (the result stands)."""

from __future__ import annotations

import msgpack
import pytest

from protocol.events import FrameRejected, Halted, Left
from protocol.messages import open_frame, seal
from protocol.transcript import dump
from protocol.verify import verify_bytes

from .harness import Net, frame_kind

LEAVER = 2


def dealt_table() -> Net:
    net = Net("skyjo", 3, {"target_score": 20})
    net.start(until=lambda: all(s.state is not None and s.state.phase != "deal" for s in net.sessions))
    net.pump(play=False)
    return net


def lefts(net: Net, seat: int) -> list[Left]:
    return [e for e in net.events[seat] if isinstance(e, Left)]


def test_an_honest_leave_stops_the_game_for_everyone_blaming_nobody() -> None:
    net = dealt_table()
    assert net.sessions[LEAVER].leave()
    net.pump()
    net.fire_timers([0, 1, LEAVER])
    names = net.config.names
    for seat in range(3):
        assert [e.seat for e in lefts(net, seat)] == [LEAVER], net.events[seat]
        halt: Halted = net.halted(seat)[-1]
        assert halt.left == LEAVER and halt.culprit is None and halt.absent == (), halt
        assert halt.reason == f"{names[LEAVER]} (seat 3) left the table"
        assert not net.blamed(seat)
        assert net.sessions[seat].settled
    for seat in range(3):  # every transcript holds the leave and verifies
        frames = net.sessions[seat].frames
        assert "leave" in {frame_kind(f) for f in frames}
        verdict = verify_bytes(dump(net.config, frames))
        assert verdict.valid and verdict.kind == "unfinished", verdict
        assert verdict.left == LEAVER
        assert verdict.stops_at == f"stopped: {names[LEAVER]} (seat 3) left the table"
        assert verdict.unconsumed == [], verdict.unconsumed


def test_a_leave_in_the_middle_of_a_turn_stops_at_once() -> None:
    net = dealt_table()
    net.pump(until=lambda: net.sessions[0].state is not None and net.sessions[0].state.round >= 1)
    mover = next(s for s in range(3) if net.sessions[s].legal_moves())
    leaver = (mover + 1) % 3  # not the seat whose move is awaited: any job
    assert net.sessions[leaver].leave()
    net.pump(play=False)
    for seat in range(3):
        assert net.halted(seat)[-1].left == leaver
        assert not net.sessions[seat].legal_moves()


def test_a_forged_leave_is_refused_and_changes_nothing() -> None:
    net = dealt_table()
    chain = net.sessions[0]._chains[LEAVER]
    # a leave signed by seat 1 claiming to be seat 2's: the signature does not verify
    forged = seal(
        net.config, net.keys[1], LEAVER, chain.next_seq, chain.last_digest, "leave", {"reason": "x"}
    )
    net.sessions[0].receive_frame(forged.frame)
    events = net.sessions[0].next_events()
    assert not any(isinstance(e, Left | Halted) for e in events), events
    assert any(isinstance(e, FrameRejected) for e in events), events
    assert net.sessions[0].halted is None


def test_a_leave_relayed_with_a_bad_signature_blames_the_relayer() -> None:
    net = dealt_table()
    liar = net.sessions[1]
    chain = net.sessions[LEAVER]._chains[LEAVER]
    real = seal(
        net.config, net.keys[LEAVER], LEAVER, chain.next_seq, chain.last_digest, "leave", {"reason": "x"}
    )
    broken = msgpack.packb([real.body, b"\0" * 64], use_bin_type=True)
    liar._emit("evidence", {"frame": broken})
    net.pump(play=False)
    assert {b.seat for b in net.blamed(0)} == {1}, net.blamed(0)
    assert not lefts(net, 0)


@pytest.mark.parametrize("game", range(6))
def test_a_leave_after_the_end_of_the_game_is_ignored(game: int) -> None:
    # Six games, since whether the leave's sequence number is below the other seat's last
    # frames depends on the cards: `verify` must place it after what its sender had seen (it
    # once sorted by sequence number alone and reported about a third of these as "left").
    net = Net("skyjo", 2, {"target_score": 20})
    net.run_game()
    assert all(s.state is not None and s.state.phase == "game_over" for s in net.sessions)
    assert not net.sessions[1].leave(), "the session refuses to leave a game that is over"
    # a leave signed after the end anyway: the result stands
    leaver = net.sessions[1]
    envelope = leaver._emit("leave", {"reason": "bye"})
    assert envelope is not None
    net.pump()
    assert not lefts(net, 0) and not net.halted(0)
    verdict = verify_bytes(dump(net.config, net.sessions[0].frames))
    assert verdict.valid and verdict.kind == "finished" and verdict.left is None, verdict


def test_a_leave_survives_a_restart_of_the_leaver() -> None:
    from protocol.session import Session

    net = dealt_table()
    leaver = net.sessions[LEAVER]
    leaver.leave()
    restored = Session.restore(net.config, LEAVER, net.keys[LEAVER], leaver.secrets(), list(leaver.frames))
    assert restored.left == LEAVER and restored.halted
    assert not restored.leave()


def test_the_leave_schema() -> None:
    net = dealt_table()
    session = net.sessions[0]
    chain = session._chains[0]
    frame = seal(net.config, net.keys[0], 0, chain.next_seq, chain.last_digest, "leave", {"reason": "r"})
    assert open_frame(frame.frame, net.config).kind == "leave"
