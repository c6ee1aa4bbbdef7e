"""Memory over a long game (issue 12, part 3): frames of rounds every seat signed are kept as
digests only. A peer that crashes and resumes after that still gets every frame it asks for, and
the game ends with transcripts that verify."""

from __future__ import annotations

from protocol.events import RoundSigned
from protocol.messages import open_frame
from protocol.session import Session
from protocol.transcript import dump
from protocol.verify import verify_bytes

from .harness import Net

CRASHED = 2


def signed_rounds(net: Net, seat: int) -> int:
    return sum(isinstance(e, RoundSigned) for e in net.events[seat])


def test_a_peer_resumed_after_two_signed_rounds_finishes_the_game() -> None:
    # The deck is shuffled with fresh randomness: a game may end after its first round (one
    # player's round score past the target). Deal again, a bounded number of times, until a game
    # lasts two signed rounds; the property is about what happens after that.
    for _ in range(8):
        net = Net("skyjo", 3, {"target_score": 60})
        net.start(until=lambda net=net: min(signed_rounds(net, s) for s in range(3)) >= 2)
        if signed_rounds(net, CRASHED) >= 2 and net.sessions[0].state.phase != "game_over":
            break
    assert signed_rounds(net, CRASHED) >= 2, "eight games in a row ended before two rounds were signed"
    honest = net.sessions[0]
    assert any(chain.digests for chain in honest.chains), "nothing was compacted"
    # the crash: what the peer received last never reached its disk (its own frames did: a frame
    # is written before it is sent)
    old = net.sessions[CRASHED]
    frames = list(old.frames)
    while frames and open_frame(frames[-1], net.config).seat != CRASHED and len(frames) > len(old.frames) - 6:
        frames.pop()
    restored = Session.restore(net.config, CRASHED, net.keys[CRASHED], old.secrets(), frames)
    net.sessions[CRASHED] = restored
    net.events[CRASHED] = list(restored.next_events())
    for seat in range(3):  # reconnection: each side resends what the other lacks
        if seat != CRASHED:
            for frame in net.sessions[seat].own_frames_from(restored.next_seq_of(seat)):
                restored.receive_frame(frame)
    net.pump()
    assert not net.blamed(), net.blamed()
    for seat in range(3):
        state = net.sessions[seat].state
        assert state is not None and state.phase == "game_over", (seat, net.sessions[seat].halted)
    verdict = verify_bytes(dump(net.config, net.sessions[0].frames))
    assert verdict.valid and verdict.finished, verdict.fault
