"""Issue 29, point 5: a peer's own records do not grow with the length of a game.

A table of two bot peers (`LocalTable`: real sessions and runners, in-memory links) plays
short rounds; at the end of every round the test counts what each runner holds (entries, never
times or bytes). Before, two things grew with every round:
the end of every timer that ran out (`PeerRunner._timer_ends`: one `ack:<n>` name per
acknowledgement, never removed) and the table's log (`PeerRunner.log`: every fact of the game).
"""

from __future__ import annotations

import pytest
import trio

from client.table import tablelog
from client.table.local import LocalTable
from client.table.peer import LogEntry, PeerRunner
from client.table.tablelog import TableLog
from client.ui.narrate import KEEP_ITEMS, Narrator
from protocol.events import RoundSigned, SessionEvent

ROUNDS = 5


def test_the_table_log_keeps_positions_and_forgets_the_oldest() -> None:
    log: TableLog[int] = TableLog(keep=5)
    log.extend(range(12))
    assert len(log) == 12 and log.first == 7 and list(log) == [7, 8, 9, 10, 11]
    assert log[7] == 7 and log[-1] == 11 and log[-5] == 7
    assert log[3:] == [7, 8, 9, 10, 11] and log[10:] == [10, 11] and log[12:] == []
    assert log[-20:] == [7, 8, 9, 10, 11] and list(reversed(log)) == [11, 10, 9, 8, 7]
    with pytest.raises(IndexError):
        log[6]
    with pytest.raises(IndexError):
        log[12]


def test_a_runner_holds_no_more_after_five_rounds_than_after_two(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tablelog, "KEEP", 60)  # less than a round of this short game
    held: dict[int, list[tuple[int, int, int]]] = {}
    original = PeerRunner._handle

    def handle(self: PeerRunner, event: SessionEvent) -> None:
        original(self, event)
        if isinstance(event, RoundSigned) and self.seat is not None:
            held.setdefault(self.seat, []).append((len(self._timer_ends), len(list(self.log)), len(self.log)))

    monkeypatch.setattr(PeerRunner, "_handle", handle)
    # ten cards face up from the start: short rounds; a target no round reaches
    table = LocalTable(
        "skyjo",
        2,
        "greedy",
        {"target_score": 1000, "setup_reveals": 10},
        save=False,
        think_time=0.0,
        human=False,
    )

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(table.run)
            with trio.fail_after(300):  # a generous bound: a hung game fails, never a slow one
                while min((len(held.get(seat, [])) for seat in range(2)), default=0) < ROUNDS:
                    await table.human.changed.wait()
            nursery.cancel_scope.cancel()

    trio.run(main)
    for seat, samples in held.items():
        ends, log, told = zip(*samples[:ROUNDS], strict=True)
        assert max(ends[2:]) <= max(ends[:2]) + 4, f"seat {seat}: timers' ends held {ends}"
        assert max(log[2:]) <= log[1], f"seat {seat}: log entries held {log}"
        assert told[-1] > 2 * told[1], "the log's positions count every entry"
    assert not any(r.status.halted for r in table.runners)


def test_the_end_of_a_timer_that_ran_out_is_forgotten_once_not_needed() -> None:
    """An `ack:<n>` timer that ran out left its end in `_timer_ends` for the rest of the game (a
    new name every time: a few a round in a three-seat game, more on a real LAN)."""
    table = LocalTable("skyjo", 2, "greedy", save=False, think_time=0.0, human=False)
    runner = table.runners[0]
    for name in ("ack:1", "ack:2", "echo:1:7"):
        assert not runner.session.timer_needed(name)
        runner._timer_ends[name] = 10.0  # ran out: no longer in `_timers`
    runner._drop_timers()
    assert runner._timer_ends == {}


def test_the_screen_narrator_keeps_its_last_items_only() -> None:
    narrator = Narrator(2, 0, ["a", "b"], "en")
    log: TableLog[LogEntry] = TableLog(keep=50)
    for number in range(5 * KEEP_ITEMS):
        log.append(LogEntry("chat", seat=1, text=f"line {number}"))
        if number % 7 == 0:  # read now and then, as the screen does
            narrator.update(log)
    narrator.update(log)
    assert len(narrator.items) <= 2 * KEEP_ITEMS
    assert narrator.items[-1].data == f"line {5 * KEEP_ITEMS - 1}"
    assert len(narrator.lines(60)) == 60
