"""Seat insurance (issue 17, points 3-5): the table plays a vanished program's seats, rebuilding
their decryption shares from the key escrow, and the player may come back.

Every scenario runs in the loopback harness, deterministically: a seat "vanishes" by going
silent (`Net.silent`: its frames go nowhere, its bot does not play), time passes only when a test
fires the remaining peers' `job:` timers (each waits twice before the table votes), and a seat
comes back as after a crash (`Session.restore` from its saved frames, then its own frames sent
again to each peer from where that peer's copy of its chain ends, as the client's links do).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from protocol import crypto
from protocol.crypto.escrow import deal_polynomial
from protocol.crypto.group import L, encode_scalar, mul, random_scalar
from protocol.events import (
    Blamed,
    Finished,
    Halted,
    Rewound,
    SeatReturned,
    SeatTakenOver,
)
from protocol.messages import Envelope, open_frame
from protocol.session import Session
from protocol.transcript import dump
from protocol.verify import verify_bytes

from .harness import Net, cheater, frame_kind

GONE = 2
GAMES = {"skyjo": {"target_score": 30}, "skyjo-action": {"target_score": 30}, "skip-bo": {"stock_size": 5}}
MOVE_TIMEOUT = 300.0


# --- the table ------------------------------------------------------------------------------------


def insured(
    game: str = "skyjo",
    players: int = 3,
    moves: int = 8,
    *,
    options: dict[str, Any] | None = None,
    factory: Callable[..., Session] | None = None,
    owners: list[int] | None = None,
    observers: int = 0,
    insure: bool = True,
) -> Net:
    """An insured table of `players` in `game`, `moves` bot moves into the game, nothing in flight."""
    table: dict[str, Any] = {"insured": insure}
    if owners is not None:
        table["owners"] = owners
    net = Net(
        game,
        players,
        GAMES[game] if options is None else options,
        table=table,
        session_factory=factory,
        observers=observers,
    )
    for session in net.sessions:
        session.move_timeout = MOVE_TIMEOUT
    net.start(until=lambda: net.moves >= moves)
    net.pump(play=False)
    return net


def vanish(net: Net, gone: tuple[int, ...] = (GONE,)) -> list[int]:
    """`gone` go silent; the others play on until they wait for them, then both waits run out
    (only `job:` timers: the moves of the others are never timed out). Returns the others."""
    net.silent.update(gone)
    others = [s for s in range(net.players) if s not in gone]
    net.pump()
    net.fire_timers(others, prefix="job:", until=lambda: all(net.sessions[s].taken_over for s in others))
    return others


def finish(net: Net, seats: list[int]) -> None:
    net.pump(until=lambda: all(net.sessions[s].settled for s in seats))


def events(net: Net, seat: int, kind: type) -> list[Any]:
    return [e for e in net.events[seat] if isinstance(e, kind)]


def opened(net: Net, seat: int) -> list[Envelope]:
    return [open_frame(f, net.config) for f in net.sessions[seat].frames]


def verdict_of(net: Net, seat: int) -> Any:
    return verify_bytes(dump(net.config, net.sessions[seat].frames))


def come_back(net: Net, seat: int = GONE, saved: tuple[dict[str, Any], list[bytes]] | None = None) -> Session:
    """`seat`'s program restarts from its saved secrets and transcript (`saved`: as they were when
    it crashed; None: as its session holds them now) and each side of every link sends the
    other what it lacks, as the client's links do on a reconnection."""
    old = net.sessions[seat]
    secrets, frames = (old.secrets(), list(old.frames)) if saved is None else saved
    restored = Session.restore(net.config, seat, net.keys[seat], secrets, frames, move_timeout=MOVE_TIMEOUT)
    net.sessions[seat] = restored
    net.silent.discard(seat)
    net.withhold = None
    net.collect(seat)
    for other in range(net.players):
        if other != seat:
            for frame in restored.own_frames_from(net.sessions[other].next_seq_of(seat)):
                net.put(seat, other, frame)
            for frame in net.sessions[other].own_frames_from(restored.next_seq_of(other)):
                net.put(other, seat, frame)
    return restored


def assert_played_to_the_end(net: Net, seats: list[int], taken: dict[int, str]) -> tuple[Any, ...]:
    """Nobody blamed or halted at `seats`; every transcript verifies finished with `taken` and the
    same result. Returns the totals."""
    results = set()
    for seat in seats:
        session = net.sessions[seat]
        assert not net.blamed(seat) and not net.halted(seat), net.events[seat][-5:]
        assert session.state is not None and session.state.phase == "game_over"
        finished = events(net, seat, Finished)
        assert len(finished) == 1
        verdict = verdict_of(net, seat)
        assert verdict.valid and verdict.kind == "finished", verdict
        assert verdict.taken_over == taken and verdict.unconsumed == [], verdict
        assert tuple(verdict.totals) == tuple(finished[0].totals)
        results.add((tuple(finished[0].winners), tuple(finished[0].totals)))
    assert len(results) == 1, results
    return next(iter(results))[1]


# --- 1. a vanished seat is played by the table to the end -------------------------------------------


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a17_3_a_vanished_seat_is_played_by_the_table_to_the_end(game: str) -> None:
    net = insured(game)
    secret = net.sessions[GONE].secret
    assert secret is not None
    others = vanish(net)
    limit = net.sessions[0].stand_ins[GONE].limit
    assert limit > 0 and all(net.sessions[s].stand_ins[GONE].limit == limit for s in others)
    finish(net, others)
    assert_played_to_the_end(net, others, {GONE: "vanished"})
    for seat in others:
        taken = events(net, seat, SeatTakenOver)
        assert [(e.seat, e.how) for e in taken] == [(GONE, "vanished")]
        if game == "skip-bo":
            assert taken[0].disclosed > 0, "the vanished seat's hand is made public for the bot"
        # the vanished seat's shares: never published by it after the table's count, rebuilt
        # from both holders' partials (each checked), the same at every peer
        frames = opened(net, seat)
        assert not [e for e in frames if e.seat == GONE and e.kind == "shares" and e.seq >= limit]
        partials = [e for e in frames if e.kind == "partials"]
        assert {e.seat for e in partials} == {0, 1} and {e.data["dealer"] for e in partials} == {GONE}
        jobs = {e.data["job"] for e in partials}
        assert all(sum(1 for e in partials if e.data["job"] == j) == 2 for j in jobs)
        verdict = verdict_of(net, seat)
        assert any("vanished" in line for line in verdict.seat_events), verdict.seat_events
    # and the rebuilt shares are the seat's true shares: x_2 c1 (the last round's cards)
    cards = net.sessions[0].cards
    rebuilt = [h for h, shares in cards.shares.items() if GONE in shares]
    assert rebuilt
    for handle in rebuilt:
        assert cards.shares[handle][GONE] == mul(secret, cards.ciphertexts[handle].c1)
        assert net.sessions[1].cards.shares[handle][GONE] == cards.shares[handle][GONE]


# --- 2. the vanished player comes back ------------------------------------------------------------


def returned_moves(net: Net, seat: int, player: int = GONE) -> list[Envelope]:
    """The moves `player` signed after its `return`, as `seat`'s transcript holds them."""
    frames = opened(net, seat)
    back = min(e.seq for e in frames if e.seat == player and e.kind == "return")
    return [e for e in frames if e.seat == player and e.kind == "move" and e.seq > back]


def assert_came_back(net: Net) -> None:
    finish(net, list(range(net.players)))
    for seat in range(net.players):
        assert len(events(net, seat, SeatReturned)) == 1, net.events[seat][-6:]
        assert events(net, seat, SeatReturned)[0].seat == GONE
        assert GONE not in net.sessions[seat].stand_ins and net.sessions[seat].taken_over == {}
        # the seat played again: moves it signed itself, consumed by the table (nothing left over)
        assert returned_moves(net, seat), "the player's own bot moved again after its return"
    for seat in (0, 1):
        assert any("came back" in line for line in verdict_of(net, seat).seat_events)
    # verify reports who the table played at the end: nobody (the seat is the player's again)
    assert_played_to_the_end(net, list(range(net.players)), {})


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a17_3_a_vanished_player_comes_back_and_retakes_its_seat(game: str) -> None:
    net = insured(game, options={**GAMES[game], "target_score": 100} if game != "skip-bo" else None)
    crashed = net.sessions[GONE]
    saved = (crashed.secrets(), list(crashed.frames))  # its disk when it crashed
    vanish(net)
    assert all(net.sessions[s].taken_over == {GONE: "vanished"} for s in (0, 1))
    net.pump(play=False)
    before = len(net.events[GONE])  # (the crashed session's own events are of no interest)
    come_back(net, saved=saved)
    net.pump(play=False)
    if [e for e in net.events[GONE][before:] if isinstance(e, Rewound)]:
        # restored, it made at once the automatic message the table had waited for (it had not
        # heard the votes yet): that one is void too, and it is rebuilt once more, as the client does
        come_back(net)
    assert_came_back(net)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a17_3_a_player_cut_off_who_played_on_is_rewound_then_retakes_its_seat(game: str) -> None:
    net = insured(game, options={**GAMES[game], "target_score": 100} if game != "skip-bo" else None)
    # seat 3 is cut off just before its move: it moves (nobody gets it) and goes on alone
    net.pump(until=lambda: net.want_move[GONE])
    net.withhold = lambda seat, frame: seat == GONE
    net.pump()
    mine = net.sessions[GONE]
    played = mine._consumed_upto[GONE]
    net.fire_timers([0, 1], prefix="job:", until=lambda: all(net.sessions[s].taken_over for s in (0, 1)))
    net.pump(play=False)
    limit = net.sessions[0].stand_ins[GONE].limit
    assert limit < played, "its session consumed frames of its own the table does not count"
    rewound = events(net, GONE, Rewound)
    assert len(rewound) == 1 and f"#{limit}" in rewound[0].reason
    come_back(net)
    assert_came_back(net)
    # its frames between the table's count and its return are void, at every peer
    for seat in (0, 1):
        void = net.sessions[seat]._voids[GONE]
        assert void[0] == limit and void[1] > limit
