"""Issue 28 point 3: the players present can say "go on without Ben now" instead of waiting out the
grace for a player whose program is gone (PROTOCOL.md 10.9, "Going on without a player").

Asking is voting early: each other program votes on its own wait or its own player's word, the
table plays the seat only when every one of them voted and upheld, and any frame of the waited
program signed after the votes refutes them. So a player who is there (only slow) is never
taken over, however impatient the others are. Deterministic, in the loopback harness: no timer
but the acknowledgement timers fires here."""

from __future__ import annotations

import pytest

from protocol.events import SeatTakenOver

from .harness import Net
from .test_seat_insurance import GAMES, GONE, assert_played_to_the_end, events, finish, insured


def _waiting_for_gone(net: Net) -> list[int]:
    """The others wait for GONE; their wait starts now, after the last frames GONE sent (its
    echo of their last frames may have come after the step began: then it was there during that
    wait, and the first wait would have to start again anyway)."""
    others = [s for s in range(net.players) if s != GONE]
    for seat in others:
        found = net.sessions[seat].waiting_for()
        assert found is not None and GONE in found[1], (seat, found)
        net.sessions[seat].restart_watch()
    return others


def _first_wait_runs_out(net: Net, seats: list[int]) -> None:
    """The first of each seat's two waits for the current step runs out (as its timer would)."""
    for seat in seats:
        found = net.sessions[seat].waiting_for()
        assert found is not None
        net.sessions[seat].timer_expired(found[0])
        net.collect(seat)
    net.pump()


@pytest.mark.parametrize("game", ["skyjo", "skip-bo"])
def test_issue28_3_the_others_go_on_without_a_vanished_player_at_once(game: str) -> None:
    net = insured(game, moves=6)
    net.silent.add(GONE)  # its program is gone (no frame of it arrives any more)
    net.pump()
    others = _waiting_for_gone(net)
    assert not net.sessions[others[0]].go_on_without(), "not before a whole first wait"
    _first_wait_runs_out(net, others)
    assert net.sessions[others[0]].go_on_without()
    net.collect(others[0])
    net.pump()
    assert not any(net.sessions[s].taken_over for s in others), "one player's word takes nothing over"
    assert net.sessions[others[1]].go_on_without()
    net.collect(others[1])
    net.pump(until=lambda: all(net.sessions[s].taken_over for s in others))
    for seat in others:
        assert [(e.seat, e.how) for e in events(net, seat, SeatTakenOver)] == [(GONE, "vanished")]
    finish(net, others)
    assert_played_to_the_end(net, others, {GONE: "vanished"})


def test_issue28_3_a_player_who_sent_a_frame_during_the_wait_is_not_voted_about() -> None:
    # its program is there: a frame of it came during the wait (its player, thinking about the
    # move, says so in the chat). Asking changes nothing; the game goes on when it moves.
    net = insured("skyjo", moves=6)
    moves = net.wants_move
    net.wants_move = lambda seat: seat != GONE and moves(seat)  # type: ignore[method-assign]
    net.pump()  # its player thinks about its move
    others = _waiting_for_gone(net)
    net.sessions[GONE].send_chat("hmm, let me think")
    net.collect(GONE)
    _first_wait_runs_out(net, others)
    for seat in others:
        assert not net.sessions[seat].go_on_without()
        assert not net.sessions[seat].data_to_send()
    net.wants_move = moves  # type: ignore[method-assign]
    finish(net, list(range(net.players)))
    for seat in range(net.players):
        assert not events(net, seat, SeatTakenOver), (seat, net.events[seat][-6:])
    assert_played_to_the_end(net, list(range(net.players)), {})


def test_issue28_3_nothing_to_ask_at_an_uninsured_table_and_once_a_step() -> None:
    uninsured = insured("skyjo", moves=6, insure=False)
    uninsured.silent.add(GONE)
    uninsured.pump()
    assert not uninsured.sessions[0].go_on_without()
    assert not uninsured.sessions[0].data_to_send()
    net = insured("skyjo", moves=6)
    net.silent.add(GONE)
    net.pump()
    _first_wait_runs_out(net, _waiting_for_gone(net))
    assert net.sessions[0].go_on_without()
    assert not net.sessions[0].go_on_without(), "one vote per step"
    assert GAMES  # (the same tables as issue 17's tests)
