"""Attack: an illegal move. A seat that plays a move the rules refuse, a move in another seat's
name, a move out of turn, a move for another step of the game, or a malformed move map. Every
honest peer must refuse it (the move never enters its game), blame that seat and halt.
"""

from __future__ import annotations

from typing import Any

import pytest

from protocol.events import Updated
from skyjo_p2p.core.events import Moved
from skyjo_p2p.engine import deciders
from tests.protocol.harness import Net, assert_blamed, cheater, honest_seats

CULPRIT = 1


@pytest.fixture(scope="module")
def at_setup() -> Net:
    """Two seats after the deal and the discard reveal, before anyone turns a card (seat 1 may cheat)."""
    net = Net("skyjo", 2, {"target_score": 20}, session_factory=cheater(CULPRIT))
    net.start(until=lambda: net.has_sent(CULPRIT, "shares"))
    assert not net.has_sent(CULPRIT, "move")
    return net


@pytest.fixture(scope="module")
def in_turns() -> Net:
    """The same table later: the first turns of the round, seat 0 to move."""
    net = Net("skyjo", 2, {"target_score": 20}, session_factory=cheater(CULPRIT))

    def seat0_to_move() -> bool:
        states = [s.state for s in net.sessions]
        return (
            all(
                s is not None and s.phase == "turn" and s.step == "choose" and deciders(s) == (0,)
                for s in states
            )
            and not net.queue
        )

    net.start(until=seat0_to_move)
    assert seat0_to_move()
    return net


def moves_of(net: Net, seat: int, by: int) -> list[Any]:
    """The moves of seat `by` that seat `seat`'s game applied."""
    return [
        f.move
        for e in net.events[seat]
        if isinstance(e, Updated)
        for f in e.facts
        if isinstance(f, Moved) and f.move.seat == by
    ]


SETUP_CHEATS: dict[str, tuple[dict[str, Any], str]] = {
    # a move the rules refuse
    "same-card-twice": ({"seat": 1, "move": "reveal", "slots": [3, 3]}, "illegal move"),
    "no-such-slot": ({"seat": 1, "move": "reveal", "slots": [0, 40]}, "illegal move"),
    "three-cards": ({"seat": 1, "move": "reveal", "slots": [0, 1, 2]}, "illegal move"),
    "not-now": ({"seat": 1, "move": "draw", "from": "deck"}, "illegal move"),
    # a move in another seat's name
    "for-seat-0": ({"seat": 0, "move": "reveal", "slots": [0, 1]}, "move for seat 1"),
    "for-no-seat": ({"seat": 7, "move": "reveal", "slots": [0, 1]}, "move for seat 8"),
    # malformed move maps
    "unknown-kind": ({"seat": 1, "move": "teleport"}, "malformed move"),
    "missing-field": ({"seat": 1, "move": "reveal"}, "malformed move"),
    "extra-field": ({"seat": 1, "move": "reveal", "slots": [0, 1], "slot": 2}, "malformed move"),
    "unknown-field": ({"seat": 1, "move": "reveal", "slots": [0, 1], "cheat": 1}, "malformed move"),
    "wrong-type": ({"seat": 1, "move": "reveal", "slots": "01"}, "malformed move"),
    "bool-seat": ({"seat": True, "move": "reveal", "slots": [0, 1]}, "malformed move"),
    "huge-int": ({"seat": 1, "move": "reveal", "slots": [0, 2**40]}, "malformed move"),
    "no-seat": ({"move": "reveal", "slots": [0, 1]}, "malformed move"),
    "empty": ({}, "malformed move"),
}


@pytest.mark.parametrize("cheat", sorted(SETUP_CHEATS))
def test_illegal_setup_move_is_blamed(at_setup: Net, cheat: str) -> None:
    move, reason = SETUP_CHEATS[cheat]
    net = at_setup.clone()
    net.set_tamper(CULPRIT, lambda s, kind, data: {**data, "move": move} if kind == "move" else data)
    net.pump()
    blames = assert_blamed(net, CULPRIT, reason)
    assert all(b.evidence for b in blames), "the signed move is the evidence"
    for seat in honest_seats(net, CULPRIT):
        assert moves_of(net, seat, CULPRIT) == [], "the refused move never entered the game"
        state = net.sessions[seat].state
        assert state is not None and state.to_reveal[CULPRIT] == 2


def test_move_for_an_earlier_step_is_blamed(at_setup: Net) -> None:
    # a well-formed, once-legal move, signed again for an old job number (a replay of a step)
    net = at_setup.clone()
    net.set_tamper(
        CULPRIT, lambda s, kind, data: {**data, "job": data["job"] - 3} if kind == "move" else data
    )
    net.pump()
    assert_blamed(net, CULPRIT, "was due")


def test_move_out_of_turn_is_blamed(in_turns: Net) -> None:
    net = in_turns.clone()
    culprit = net.sessions[CULPRIT]
    before = len(moves_of(net, 0, CULPRIT))
    # seat 1 plays while it is seat 0's turn (numbered for the current step, as seat 0's move is)
    culprit._emit("move", {"job": culprit._job_number, "move": {"seat": 1, "move": "draw", "from": "deck"}})
    net.pump()
    assert_blamed(net, CULPRIT, "was due")
    assert len(moves_of(net, 0, CULPRIT)) == before


def test_honest_moves_from_the_same_point_are_played(at_setup: Net) -> None:
    # the control: untampered, the same table gets through setup into the turns
    net = at_setup.clone()
    net.pump(until=lambda: len(moves_of(net, 0, CULPRIT)) >= 2)
    assert not net.blamed() and len(moves_of(net, 0, CULPRIT)) >= 2
