"""Issue 25, point 1: a vote cannot take over a player who is there (PROTOCOL.md 10.9, "The
guarantee").

Each case is one the review found on the code before: a single vote made every peer vote and the
table disclosed a present player's hand; an honest peer cut off both ways voted about a seat it
could not hear and, once back, the others joined; a seat that left out one acknowledgement held a
returned player's seat back. Deterministic, in the loopback harness (timers fire when a test says).
"""

from __future__ import annotations

from typing import Any

import pytest

from protocol.events import Rewound, SeatReturned, SeatTakenOver
from protocol.session import Session

from .harness import Net, TamperingSession
from .test_seat_insurance import (
    GAMES,
    GONE,
    LONG_SKIPBO,
    assert_played_to_the_end,
    come_back,
    events,
    finish,
    insured,
    opened,
    returned_moves,
    vanish,
    verdict_of,
)


def nobody_taken_over(net: Net) -> None:
    for seat in range(net.players):
        assert not events(net, seat, SeatTakenOver), (seat, net.events[seat][-5:])
        assert net.sessions[seat].taken_over == {}
        assert not net.sessions[seat].stand_ins


def vote_about(session: Session, owner: int, attempt: int = 0) -> bytes:
    """`session`'s program signs one valid vote about `owner` (no wait of its own ran out)."""
    held = [[s, session.next_seq_of(s), session.chains[s].last_digest] for s in (owner,)]
    sent = session._emit("vacate", {"owner": owner, "held": held, "attempt": attempt})
    assert sent is not None
    return sent.frame


@pytest.mark.parametrize("game", ["skip-bo", "skyjo"])
def test_issue25_1_one_vote_about_a_present_seat_takes_nothing_over(game: str) -> None:
    # 3-seat insured table, every program answering; after 6 moves seat 3 sends one valid vote
    # about seat 1. Before: every honest peer voted at once and seat 3 read seat 1's hand.
    net = insured(game, moves=6)
    vote_about(net.sessions[2], 0)
    net.collect(2)
    net.pump()
    # The voted seat holds its jobs back while a vote about it may still be upheld; a vote nobody
    # withdraws holds it back for twice the grace at most (its `vacate:` timer), once.
    net.fire_timers([0], prefix="vacate:")
    finish(net, [0, 1, 2])
    nobody_taken_over(net)
    for seat in (0, 1):
        votes = [e for e in opened(net, seat) if e.kind == "vacate"]
        assert [e.seat for e in votes] == [2], "nobody votes on another's word"
    assert_played_to_the_end(net, [0, 1, 2], {})


def own_wait_runs_out(net: Net, seat: int) -> None:
    """`seat`'s own `job:` timers run out (both waits), nothing else moves meanwhile."""
    fired: set[int] = set()
    for _ in range(6):
        for index, timer in enumerate(list(net.timers[seat])):
            if index not in fired and timer.name.startswith("job:"):
                fired.add(index)
                net.sessions[seat].timer_expired(timer.name)
                net.collect(seat)
        if net.has_sent(seat, "vacate"):
            return


def cut_off(net: Net, seat: int) -> list[tuple[int, int, bytes]]:
    """`seat`'s links drop both ways; what would have crossed them is kept for the heal."""
    lost: list[tuple[int, int, bytes]] = []

    def route(sender: int, receiver: int, frame: bytes) -> list[bytes]:
        if seat in (sender, receiver):
            lost.append((sender, receiver, frame))
            return []
        return [frame]

    net.filter = route
    return lost


def heal(net: Net, lost: list[tuple[int, int, bytes]]) -> None:
    """The links come back and each side resends what the other lacks (as the client's links
    do after a reconnection)."""
    net.filter = None
    for sender, receiver, frame in lost:
        net.put(sender, receiver, frame)


@pytest.mark.parametrize("game", ["skyjo", "skip-bo"])
def test_issue25_1_a_voter_cut_off_both_ways_and_back_takes_nobody_over(game: str) -> None:
    # Seat 2's links drop both ways past the grace: its own wait runs out and it votes about the
    # seat it waited for. The others never lost that seat: they do not vote, and once the links
    # are back the voted seat acknowledges the vote and the voter withdraws it.
    options: dict[str, Any] | None = {**GAMES[game], "target_score": 60} if game != "skip-bo" else LONG_SKIPBO
    net = insured(game, options=options)
    lost = cut_off(net, 1)
    net.pump()
    own_wait_runs_out(net, 1)
    mine = [e for e in opened(net, 1) if e.seat == 1 and e.kind == "vacate"]
    assert mine, "the cut-off seat voted on its own observation"
    heal(net, lost)
    net.pump(play=False)
    withdrawn = [e for e in opened(net, 0) if e.seat == 1 and e.kind == "withdraw"]
    assert withdrawn, "the voter withdrew once the voted seat was heard again"
    finish(net, [0, 1, 2])
    nobody_taken_over(net)
    assert_played_to_the_end(net, [0, 1, 2], {})


def test_issue25_1_votes_a_seat_signed_while_the_table_played_it_do_not_count() -> None:
    # Seat 2 is cut off for longer: the others (rightly) vote it out and play it; meanwhile it
    # voted about seat 1. Its vote is signed after the count the table keeps of its chain: it
    # counts nowhere, seat 1 is never taken over, and seat 2 comes back.
    net = insured("skyjo", options={**GAMES["skyjo"], "target_score": 200})
    lost = cut_off(net, 1)
    net.pump()
    net.fire_timers([0, 2], prefix="job:", until=lambda: all(net.sessions[s].taken_over for s in (0, 2)))
    assert all(net.sessions[s].taken_over == {1: "vanished"} for s in (0, 2))
    own_wait_runs_out(net, 1)
    assert any(e.kind == "vacate" for e in opened(net, 1) if e.seat == 1)
    heal(net, lost)
    net.pump(play=False)
    if events(net, 1, Rewound):
        come_back(net, 1)
    net.pump(play=False)  # its return goes out before the next move
    net.pump(until=lambda: all(events(net, s, SeatReturned) for s in range(3)))
    finish(net, [0, 1, 2])
    for seat in range(3):
        assert [e.seat for e in events(net, seat, SeatTakenOver)] == [1], net.events[seat][-4:]
        assert net.sessions[seat].taken_over == {}, "seat 2 came back"
    assert_played_to_the_end(net, [0, 1, 2], {})


def _no_acks_of_gone(session: Session, kind: str, data: dict[str, Any]) -> dict[str, Any]:
    if kind == "acks":
        return {"acks": [a for a in data["acks"] if a[0] != GONE]}
    return data


def test_issue25_1_a_return_is_not_held_back_by_one_seat_leaving_out_its_acknowledgement() -> None:
    # 4 seats: seat 3 vanishes and comes back; seat 4 never acknowledges any frame of seat 3 from
    # then on. Before: the seat stayed the table's (its cards public) for the rest of the game.
    def factory(config: Any, seat: int, key: Any) -> Session:
        if seat == 3:
            return TamperingSession(config, seat, key)
        return Session(config, seat, key)

    net = insured("skyjo", players=4, options={**GAMES["skyjo"], "target_score": 80}, factory=factory)
    crashed = net.sessions[GONE]
    saved = (crashed.secrets(), list(crashed.frames))
    vanish(net)
    withholder = net.sessions[3]
    assert isinstance(withholder, TamperingSession)
    withholder.tamper = _no_acks_of_gone
    come_back(net, saved=saved)
    net.pump(play=False)
    if events(net, GONE, Rewound):
        come_back(net)
    finish(net, [0, 1, 2, 3])
    for seat in range(4):
        assert len(events(net, seat, SeatReturned)) == 1, net.events[seat][-5:]
        assert net.sessions[seat].taken_over == {}
        assert returned_moves(net, seat), "the player moved again"
    assert_played_to_the_end(net, [0, 1, 2, 3], {})


# --- point 3: a live observer reaches `verify`'s verdict whatever order a relay gives --------------


def test_issue25_3_a_live_observer_given_void_frames_before_the_votes_reaches_verifys_verdict() -> None:
    # Seat 3 is cut off just before its move and plays on alone (frames the table will not
    # count); the others vote it out and play it. A host streams its transcript with every chain
    # in order but seat 3's uncounted frames moved before the first vote. Before: the spectator's
    # observer consumed them and blamed honest seat 2 ("invalid decryption shares").
    net = insured("skyjo", options={**GAMES["skyjo"], "target_score": 60})
    net.pump(until=lambda: net.want_move[GONE])
    net.withhold = lambda seat, frame: seat == GONE
    net.pump()
    net.fire_timers([0, 1], prefix="job:", until=lambda: all(net.sessions[s].taken_over for s in (0, 1)))
    # its links come back for a moment: what it played alone reaches the others, after the votes
    net.withhold = None
    for frame in net.sessions[GONE].own_frames_from(net.sessions[0].next_seq_of(GONE)):
        net.put(GONE, 0, frame)
        net.put(GONE, 1, frame)
    net.silent.add(GONE)
    finish(net, [0, 1])
    limit = net.sessions[0].stand_ins[GONE].limit
    frames = opened(net, 0)
    void = [e for e in frames if e.seat == GONE and e.seq >= limit]
    assert void, "seat 3 played on alone: frames the table did not count"
    first_vote = next(i for i, e in enumerate(frames) if e.kind == "vacate")
    rest = [e for e in frames if not (e.seat == GONE and e.seq >= limit)]
    reordered = rest[:first_vote] + void + rest[first_vote:]
    observer = Session(net.config, None, None)
    observer.start()
    for envelope in reordered:
        observer.receive_frame(envelope.frame)
    verdict = verdict_of(net, 0)
    assert verdict.valid and verdict.kind == "finished"
    assert observer.blamed == [] and observer.halted is None, (observer.blamed, observer.halted)
    assert observer.state is not None and observer.state.phase == "game_over"
    assert observer.taken_over == {GONE: "vanished"}
