"""Issue 30.4: a stop for a silent seat names the player, not a seat number and a job."""

from __future__ import annotations

from protocol.config import named_seats
from protocol.loopback import Loopback, bots_for, make_table, seats


def test_a_timeout_names_the_silent_player_and_no_job() -> None:
    config, keys = make_table("skyjo", 2, {"target_score": 1}, names=["Anna", "Ben"])
    lb = Loopback(
        seats(config, keys), bots_for("skyjo", ["greedy"] * 2, "loopback"), clock=True, timeouts=True
    )
    lb.silent.add(1)
    lb.start()
    reason = lb.halted(0)[-1].reason
    assert reason == "Ben (seat 2) did not answer in time", reason


def test_several_seats_read_as_a_list() -> None:
    config, _ = make_table("skyjo", 3, {"target_score": 1}, names=["Anna", "Ben", "Cleo"])
    assert named_seats(config, [0, 2]) == "Anna (seat 1) and Cleo (seat 3)"
    assert named_seats(config, [0, 1, 2]) == "Anna (seat 1), Ben (seat 2) and Cleo (seat 3)"
