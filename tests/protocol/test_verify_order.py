"""The order in which `verify` hands a saved game's frames to its observer (protocol/verify.py).

A frame must come after the frames its sender acknowledged (PROTOCOL.md 9), or the observer meets
the frames in an order nobody at the table did: a `leave` signed after the last move, but with a
lower sequence number than the other seat's last frames, was fed first and the finished game was
reported as stopped by a player who left.
"""

from __future__ import annotations

from protocol.messages import Envelope
from protocol.verify import _feeding_order, _Survey


def _frame(seat: int, seq: int, acks: tuple[tuple[int, int, bytes], ...] = ()) -> Envelope:
    body = f"{seat}:{seq}".encode()
    return Envelope(seat, seq, b"", "move", {}, body, body, acks)


def _survey(*frames: Envelope) -> _Survey:
    survey = _Survey()
    for envelope in frames:
        survey.versions.setdefault((envelope.seat, envelope.seq), {})[envelope.digest] = envelope
    return survey


def test_a_frame_waits_for_the_frames_it_acknowledges() -> None:
    seat0 = [_frame(0, q) for q in range(6)]
    leave = _frame(1, 2, acks=((0, 5, seat0[5].digest),))
    seat1 = [_frame(1, 0), _frame(1, 1), leave]
    order = [(e.seat, e.seq) for e in _feeding_order(_survey(*seat1, *seat0))]
    assert order.index((1, 2)) > order.index((0, 5))
    assert order == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 2)]


def test_the_order_does_not_depend_on_the_file_and_keeps_each_chain_in_order() -> None:
    frames = [_frame(0, 0), _frame(1, 0, ((0, 0, b"x"),)), _frame(0, 1, ((1, 0, b"y"),)), _frame(1, 1)]
    first = [(e.seat, e.seq) for e in _feeding_order(_survey(*frames))]
    second = [(e.seat, e.seq) for e in _feeding_order(_survey(*reversed(frames)))]
    assert first == second == [(0, 0), (1, 0), (0, 1), (1, 1)]


def test_acknowledgements_of_frames_the_file_lacks_or_a_forged_cycle_do_not_stall_it() -> None:
    missing = _frame(0, 0, ((1, 7, b"z"),))  # seat 1's frame 7 is not in the file
    cycle_a = _frame(1, 0, ((2, 0, b"a"),))
    cycle_b = _frame(2, 0, ((1, 0, b"b"),))
    order = [(e.seat, e.seq) for e in _feeding_order(_survey(missing, cycle_a, cycle_b))]
    assert sorted(order) == [(0, 0), (1, 0), (2, 0)]
    assert order[0] == (0, 0)
