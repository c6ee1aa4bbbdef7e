"""Issue 28 point 2: a player who presses Ctrl-C in a network game no longer leaves the others
waiting out the grace (about 2 minutes): the program signs a `stepout` on its way out, the others
vote at once on that signed word (PROTOCOL.md 10.9, "Stepping out"), the table plays the seat, and
`--resume` takes it back.

Deterministic, in the loopback harness: no timer but the acknowledgement timers ever fires here,
so a takeover can only come from the `stepout` itself, never from a wait running out."""

from __future__ import annotations

import pytest

from protocol.events import SeatReturned, SeatTakenOver, SteppedOut
from protocol.messages import open_frame

from .harness import Net
from .test_seat_insurance import (
    GAMES,
    GONE,
    assert_played_to_the_end,
    come_back,
    events,
    finish,
    insured,
    verdict_of,
)


def _step_out(net: Net, seat: int = GONE) -> list[int]:
    """`seat`'s player presses Ctrl-C: its program signs its `stepout`, sends it and ends."""
    assert net.sessions[seat].step_out()
    net.collect(seat)
    net.silent.add(seat)
    return [s for s in range(net.players) if s != seat]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_issue28_2_a_player_who_steps_out_is_played_by_the_table_at_once(game: str) -> None:
    net = insured(game, moves=6)
    others = _step_out(net)
    net.pump(until=lambda: all(net.sessions[s].taken_over for s in others))
    for seat in others:
        assert [(e.seat, e.how) for e in events(net, seat, SeatTakenOver)] == [(GONE, "vanished")]
        assert [e.seat for e in events(net, seat, SteppedOut)] == [GONE]
        assert GONE in net.sessions[seat].insurance.stepped_out
    finish(net, others)
    assert_played_to_the_end(net, others, {GONE: "vanished"})
    said = verdict_of(net, 0).seat_events
    assert f"seat {GONE + 1} stepped out (its player ended the program)" in said, said
    # the stepped-out program signed nothing after its stepout
    kinds = [open_frame(f, net.config).kind for f in net.sessions[GONE].frames]
    own = [
        open_frame(f, net.config).kind
        for f in net.sessions[0].frames
        if open_frame(f, net.config).seat == GONE
    ]
    assert own[-1] == "stepout" and kinds.count("stepout") == 1


def test_issue28_2_a_player_who_steps_out_takes_the_seat_back_with_resume() -> None:
    net = insured("skyjo", moves=6)
    others = _step_out(net)
    net.pump(until=lambda: all(net.sessions[s].taken_over for s in others))
    come_back(net)
    finish(net, list(range(net.players)))
    for seat in range(net.players):
        assert events(net, seat, SeatReturned), (seat, net.events[seat][-6:])
        assert not net.blamed(seat) and not net.halted(seat)
        state = net.sessions[seat].state
        assert state is not None and state.phase == "game_over"


def test_issue28_2_a_player_who_steps_out_and_comes_back_at_once_plays_on() -> None:
    # the stepout reached the others and `--resume` follows at once: the others may already have
    # decided (the stepout was consent), and then the seat comes back at its next turn; or the
    # program's first new frame refutes their votes. Either way it plays its own seat to the end.
    net = insured("skyjo", moves=6)
    assert net.sessions[GONE].step_out()
    net.collect(GONE)
    restored = come_back(net)
    assert not restored.stepped_out
    finish(net, list(range(net.players)))
    for seat in range(net.players):
        assert not net.blamed(seat) and not net.halted(seat), net.events[seat][-6:]
        taken = events(net, seat, SeatTakenOver)
        assert len(events(net, seat, SeatReturned)) == len(taken) <= 1, net.events[seat][-6:]
        state = net.sessions[seat].state
        assert state is not None and state.phase == "game_over"
    assert not net.sessions[0].stand_ins, "the seat is its player's again"


def test_issue28_2_no_stepout_at_an_uninsured_table_or_before_the_game() -> None:
    uninsured = insured("skyjo", moves=2, insure=False)
    assert not uninsured.sessions[GONE].step_out()
    assert not uninsured.sessions[GONE].data_to_send()
    lobby = Net("skyjo", 3, GAMES["skyjo"], table={"insured": True})
    assert not lobby.sessions[GONE].step_out()  # no game yet: the keys are not escrowed
