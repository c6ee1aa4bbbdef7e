"""protocol.loopback: the one in-memory driver of the tests, the benchmarks and the vectors."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from protocol.events import Halted
from protocol.loopback import Loopback, TableStopped, bots_for, frame_kind, make_table, seats


def table(players: int = 2, **kwargs: Any) -> Loopback:
    config, keys = make_table("skyjo", players, {"target_score": 1})
    return Loopback(seats(config, keys), bots_for("skyjo", ["greedy"] * players, "loopback"), **kwargs)


def test_a_fifo_table_plays_a_whole_game() -> None:
    lb = table()
    lb.start()
    states = [s.state for s in lb.sessions]
    assert all(s is not None and s.phase == "game_over" for s in states)
    assert lb.sessions[0].transcript_hash == lb.sessions[1].transcript_hash
    assert lb.moves > 0 and lb.delivered == sum(lb.frames_delivered.values())
    assert not lb.pending()


def test_the_clock_meters_every_seat_and_orders_by_arrival() -> None:
    lb = table(clock=True, latency=0.01, meter=time.process_time, strict=True)
    lb.start()
    assert all(s.state is not None and s.state.phase == "game_over" for s in lb.sessions)
    assert all(cpu > 0 for cpu in lb.cpu)
    assert lb.wall_parallel >= 0.01 * 2  # at least one hop each way
    assert lb.cpu_by_kind["shuffle"] > 0


def test_timeouts_run_out_on_the_simulated_clock() -> None:
    """Seat 1 never sends: seat 0's step timer runs out by itself and it halts naming seat 1."""
    lb = table(clock=True, timeouts=True)
    lb.silent.add(1)
    lb.start()
    assert not lb.pending()
    halts = lb.halted(0)
    assert halts and halts[-1].absent == (1,)
    assert lb.clock[0] >= lb.sessions[0].step_timeout


def test_a_route_drops_frames_and_strict_stops_the_table() -> None:
    """Seat 0's shuffle never reaches seat 1: the deal stalls; when the timers run out a seat
    halts, which a strict table (an honest one) reports by raising."""
    lb = table(strict=True)

    def drop_shuffles(sender: int, receiver: int, frame: bytes) -> list[bytes]:
        return [] if sender == 0 and frame_kind(frame) == "shuffle" else [frame]

    lb.route = drop_shuffles
    lb.start()
    assert lb.has_sent(0, "shuffle") and not lb.has_sent(1, "shuffle")
    assert not any(isinstance(e, Halted) for events in lb.events for e in events)
    with pytest.raises(TableStopped, match="did not answer in time"):
        lb.fire_timers()


class _Seeded:
    """A reproducible (not secret) random source for one seat."""

    def __init__(self, seed: str) -> None:
        self._rng = random.Random(seed)

    def randbelow(self, n: int) -> int:
        return self._rng.randrange(n)

    def token_bytes(self, n: int) -> bytes:
        return self._rng.randbytes(n)


def test_a_random_source_per_seat_replays_a_game_exactly() -> None:
    config, keys = make_table("skyjo", 2, {"target_score": 1})

    def play() -> bytes:
        rngs = [_Seeded(f"seat{s}") for s in range(2)]
        lb = Loopback(seats(config, keys, rng=rngs), bots_for("skyjo", ["greedy"] * 2, "replay"), strict=True)
        lb.start()
        return lb.sessions[0].transcript_hash

    assert play() == play()
