"""The order in which `verify` hands a saved game's frames to its observer (protocol/verify.py).

A frame must come after the frames its sender acknowledged (PROTOCOL.md 9), or the observer meets
the frames in an order nobody at the table did: a `leave` signed after the last move, but with a
lower sequence number than the other seat's last frames, was fed first and the finished game was
reported as stopped by a player who left.
"""

from __future__ import annotations

import random

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


def _reference_order(survey: _Survey) -> list[Envelope]:
    """The feeding order by its definition: at each step, look at every seat's next frame; the
    lowest (seq, seat) among those whose acknowledged frames were all fed goes, else the lowest."""
    chosen = {key: versions[min(versions)] for key, versions in survey.versions.items()}
    heads: dict[int, list[Envelope]] = {}
    for seat, seq in sorted(chosen):
        heads.setdefault(seat, []).append(chosen[(seat, seq)])
    fed: set[tuple[int, int]] = set()

    def ready(envelope: Envelope) -> bool:
        return all((s, q) in fed or (s, q) not in chosen for s, q, _ in envelope.acks)

    order: list[Envelope] = []
    while heads:
        nexts = [frames[0] for frames in heads.values()]
        candidates = [e for e in nexts if ready(e)] or nexts
        head = min(candidates, key=lambda e: (e.seq, e.seat))
        order.append(head)
        fed.add((head.seat, head.seq))
        heads[head.seat].pop(0)
        if not heads[head.seat]:
            del heads[head.seat]
    return order


def test_the_feeding_order_is_the_one_its_definition_gives() -> None:
    # random chains whose acknowledgements name frames fed or not, absent, or forged cycles
    # (acknowledging its own seat too): the heap and the waits keep exactly the definition's order
    rng = random.Random(2029)
    for _ in range(400):
        seats = rng.randint(1, 5)
        lengths = [rng.randint(0, 8) for _ in range(seats)]
        frames = []
        for seat, length in enumerate(lengths):
            for seq in range(length):
                if rng.random() < 0.1:
                    continue  # a hole in the chain
                acks = tuple(
                    sorted(
                        {
                            (rng.randrange(seats + 1), rng.randrange(10), b"d")
                            for _ in range(rng.randint(0, 3))
                        }
                    )
                )
                frames.append(_frame(seat, seq, acks))
        rng.shuffle(frames)
        survey = _survey(*frames)
        assert [(e.seat, e.seq) for e in _feeding_order(survey)] == [
            (e.seat, e.seq) for e in _reference_order(survey)
        ]
