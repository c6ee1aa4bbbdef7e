"""Whole games played by several peers through the protocol over in-memory byte pipes."""

from __future__ import annotations

import pytest

from protocol.events import Finished, RoundSigned, Started
from protocol.loopback import frame_kind
from protocol.transcript import dump, load
from protocol.verify import verify_bytes
from tests.protocol.harness import Net


def finished(net: Net) -> None:
    states = [s.state for s in net.sessions + net.observers]
    assert all(s is not None and s.phase == "game_over" for s in states)
    hashes = {s.state_hash() for s in states}
    assert len(hashes) == 1, "every peer and the observer agree on the final state"
    assert not net.blamed()
    assert all(session.halted is None for session in net.sessions)


@pytest.mark.parametrize("players", [2, 3])
def test_skyjo_game_through_the_protocol(players):
    net = Net("skyjo", players, {"target_score": 40}, observers=1)
    net.run_game()
    finished(net)
    for seat in range(players):
        kinds = [type(e) for e in net.events[seat]]
        assert Started in kinds and Finished in kinds
        rounds = [e for e in net.events[seat] if isinstance(e, RoundSigned)]
        assert len(rounds) == len(net.sessions[seat].state.history)
    # each peer's view holds its own hidden knowledge only; the public parts agree
    for session in net.sessions:
        assert session.state.state_hash() == net.observers[0].state.state_hash()


def test_saved_transcript_verifies_and_tampering_is_caught():
    net = Net("skyjo", 2, {"target_score": 30})
    net.run_game()
    finished(net)
    data = dump(net.config, net.sessions[0].frames)
    verdict = verify_bytes(data)
    assert verdict.valid and verdict.finished
    assert verdict.totals == list(net.sessions[0].state.totals)
    assert verdict.winners == list(net.sessions[0].state.winners)
    config, frames = load(data)
    # drop one of seat 1's frames: its chain breaks there, the rest cannot be placed
    index = next(i for i, f in enumerate(frames) if i > 40 and frame_kind(f) == "shares")
    broken = verify_bytes(dump(config, frames[:index] + frames[index + 1 :]))
    assert not broken.finished  # a dropped frame leaves the game unfinished: nothing after it counts
    flipped = bytearray(frames[index])
    flipped[len(flipped) // 2] ^= 0x01
    forged = verify_bytes(dump(config, [*frames[:index], bytes(flipped), *frames[index + 1 :]]))
    assert not forged.valid and "signature" in (forged.fault or "")
