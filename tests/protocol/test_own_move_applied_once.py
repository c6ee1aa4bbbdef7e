"""The move job applies our own move once (`MoveJob.applied`): the state our engine computed to
check the move before sending it is taken again when our frame is consumed, but only for the frame
we made of that very move on that very state. A frame of ours that says another move (here a
program whose frames are rewritten on the way out, as a broken or tampered build would do) is
applied as every other peer applies it, so the sender's game never parts from the table's.
"""

from __future__ import annotations

from typing import Any

from protocol.session import Session
from tests.protocol.harness import Net, cheater

SEAT = 1


def _other_setup_reveal(session: Session, kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """Seat 1's setup reveal of two cards, sent as a reveal of two other cards (a legal move)."""
    if kind == "move" and data["move"].get("move") == "reveal":
        slots = data["move"]["slots"]
        other = [s for s in range(12) if s not in slots][:2]
        return {**data, "move": {**data["move"], "slots": other}}
    return data


def _states(net: Net) -> list[tuple[Any, ...]]:
    out = []
    for session in net.sessions:
        state = session.state
        assert state is not None
        out.append((state.phase, state.round, tuple(state.values), tuple(state.totals), tuple(state.grid)))
    return out


def test_a_frame_of_ours_that_says_another_move_is_applied_as_the_table_applies_it() -> None:
    net = Net("skyjo", 3, {"target_score": 10}, session_factory=cheater(SEAT, _other_setup_reveal))
    net.start()
    net.pump()
    assert not net.blamed()
    first, *others = _states(net)
    assert all(state == first for state in others)
    assert first[0] == "game_over"


def test_an_honest_game_ends_in_the_same_state_everywhere() -> None:
    net = Net("skyjo", 3, {"target_score": 10})
    net.run_game()
    first, *others = _states(net)
    assert all(state == first for state in others) and first[0] == "game_over"
