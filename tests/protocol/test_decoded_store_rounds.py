"""Issue 29, point 5: the store of decoded points (`group.decode_points`) is flat after round 1.

The store is the process's, not a session's (`test_memory_rounds` walks a session's containers
and cannot see it). It kept every received point's decoded form up to `DECODED_KEPT` (about 2.4
MB), so a peer's memory rose over a game's first rounds. A round's points are used by no later
sum, so the round's end drops them (`group.forget_decoded`, called by the round-signature job):
the most the store holds in a round is then about the same in every round.

Two seats play the seeded short rounds of `test_memory_rounds`; after every delivery the test
reads the store's size, and keeps the largest of each round.
"""

from __future__ import annotations

from typing import Any

import pytest

from protocol.crypto import group
from protocol.events import RoundSigned, SessionEvent
from protocol.jobs import round_signature
from tests.protocol.test_memory_rounds import SavingDriver, seeded_table

ROUNDS = 5

pytestmark = pytest.mark.skipif(not group.msm_available(), reason="the store is the compiled extension's")


class _Watched(SavingDriver):
    """Records the largest size of the store in each round (seat 0's round ends)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.peaks: list[int] = []
        self.peak = 0

    def collected(self, seat: int) -> None:
        super().collected(seat)
        self.peak = max(self.peak, len(group._decoded))

    def on_event(self, seat: int, event: SessionEvent) -> None:
        super().on_event(seat, event)
        if seat == 0 and isinstance(event, RoundSigned):
            self.peaks.append(self.peak)
            self.peak = len(group._decoded)


def play(rounds: int) -> list[int]:
    group._decoded.clear()  # whatever earlier tests of this process left
    table = seeded_table(_Watched)
    table.start(until=lambda: len(table.peaks) >= rounds)
    return table.peaks[:rounds]


def test_issue29_5_the_store_of_decoded_points_holds_no_more_in_round_five_than_in_round_one() -> None:
    peaks = play(ROUNDS)
    assert len(peaks) == ROUNDS
    assert peaks[0] > 0  # the store was used: the deal's and the flips' points
    assert max(peaks[2:]) <= 2 * max(peaks[0], peaks[1]), peaks


def test_the_check_sees_a_store_kept_across_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: with the rounds' points kept, the store grows round by round."""
    monkeypatch.setattr(round_signature, "forget_decoded", lambda: None)
    peaks = play(ROUNDS)
    assert max(peaks[2:]) > 2 * max(peaks[0], peaks[1]), peaks
