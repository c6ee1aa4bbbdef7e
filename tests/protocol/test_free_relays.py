"""Relays of a culprit's chain after a proven stop are free of the relayer's quotas (PROTOCOL.md
10.5), so a peer the culprit kept behind a gap can still reach the proof; but only that chain,
each frame once, within FREE_RELAY_FRAMES: nothing else escapes the quotas.

The end-to-end case is the adversary model's seed 6007 (`test_model_adversary.py`): the culprit
withheld a thousand frames from two peers, then sent a game frame for job 1,000,000; before this
rule those two stopped without proof, the others' relay budgets spent.
"""

from __future__ import annotations

import msgpack
import pytest

from protocol.errors import Misbehaviour
from protocol.messages import Envelope
from protocol.quotas import FREE_RELAY_FRAMES, SIDE_WINDOW_FRAMES, Quotas

RELAYER, CULPRIT, OTHER, ME = 0, 1, 2, 3


def inner(seat: int, seq: int) -> bytes:
    """A frame of `seat` at `seq`, as a relay carries it (only its place is read for counting)."""
    body = msgpack.packb([5, b"s" * 16, seat, seq, b"p" * 32, 0, [], []])
    return bytes(msgpack.packb([body, b"x" * 64]))


def side(kind: str, data: dict[str, object], seq: int) -> Envelope:
    frame = bytes(msgpack.packb([kind, seq, data]))  # its size is what counts here
    return Envelope(RELAYER, seq, b"", kind, dict(data), b"", frame)


def relays(quotas: Quotas, frames: list[bytes], start: int = 1) -> None:
    for n, frame in enumerate(frames):
        quotas.side_frame(side("evidence", {"frame": frame}, start + n))


def halted(culprit: int | None) -> Quotas:
    quotas = Quotas(4, ME)
    quotas.side_frame(side("halt", {"culprit": [] if culprit is None else [culprit]}, 0))
    return quotas


def test_after_its_halt_a_seat_relays_the_culprits_whole_chain_unblamed() -> None:
    many = SIDE_WINDOW_FRAMES + 500  # more than its window allows any other side frames
    relays(halted(CULPRIT), [inner(CULPRIT, q) for q in range(many)])


def test_only_the_culprits_frames_are_free() -> None:
    with pytest.raises(Misbehaviour, match="flood"):
        relays(halted(CULPRIT), [inner(OTHER, q) for q in range(SIDE_WINDOW_FRAMES + 1)])


def test_a_halt_without_a_culprit_frees_nothing() -> None:
    with pytest.raises(Misbehaviour, match="flood"):
        relays(halted(None), [inner(CULPRIT, q) for q in range(SIDE_WINDOW_FRAMES + 1)])


def test_each_frame_of_the_chain_is_free_once() -> None:
    with pytest.raises(Misbehaviour, match="flood"):
        relays(halted(CULPRIT), [inner(CULPRIT, 7)] * (SIDE_WINDOW_FRAMES + 2))


def test_free_relays_stop_at_their_bound() -> None:
    """A culprit can sign frame after frame for a relayer in league with it: past the bound,
    the relays count again, and the relayer is blamed for the flood like anyone."""
    frames = [inner(CULPRIT, q) for q in range(FREE_RELAY_FRAMES + SIDE_WINDOW_FRAMES + 1)]
    with pytest.raises(Misbehaviour, match="flood"):
        relays(halted(CULPRIT), frames)


def test_our_own_relays_follow_the_same_rule() -> None:
    quotas = Quotas(4, RELAYER)
    assert not quotas.free_relay(CULPRIT, 0, 100)
    quotas.sent(side("halt", {"culprit": [CULPRIT]}, 0))
    assert quotas.free_relay(CULPRIT, 0, 100) and not quotas.free_relay(OTHER, 0, 100)
    quotas.sent(side("evidence", {"frame": inner(CULPRIT, 0)}, 1))
    assert not quotas.free_relay(CULPRIT, 0, 100), "each frame once"
    assert quotas.relayed_window == [0, 0], "a free relay spends none of the relay budget"
