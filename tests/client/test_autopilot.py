"""Issue 17, point 1: a person idle on their turn goes to autopilot, and comes back with a key.

A table of real peers in memory (`LocalTable`: the full protocol, no network) on trio's
`MockClock`, which moves only when the test jumps it: the countdown runs out exactly when the test
says so, never because the machine is slow. The autopilot's bot makes one move each time the
test allows it. Every wait is bounded.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Awaitable, Callable

import pytest
import trio
import trio.testing

from client.table.local import LocalTable
from client.table.peer import PeerRunner, warn_before
from skyjo_p2p.bots.base import Bot
from skyjo_p2p.core.errors import IllegalMove
from skyjo_p2p.core.events import Moved
from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.state import TableState
from skyjo_p2p.engine import state_hash

TURN = 10
"""The countdown of these tables (seconds of the mock clock)."""
GRACE = 1200
"""Long enough that no protocol timer runs out when the test jumps the clock past the countdown."""
POLL = 0.02
"""Seconds of real time between two looks at the table (in a worker thread: the clock stays put)."""
POLLS = 6000
"""At most this many looks (two minutes) for anything to happen: a bound, never a delay."""


class _Gated(Bot):
    """The autopilot's bot, choosing one move each time the test allows it (in its worker thread,
    as the runner calls bots): the test knows exactly how many moves it made, and when it is
    thinking."""

    def __init__(self, inner: Bot) -> None:
        self.inner = inner
        self.allowed = threading.Semaphore(0)
        self.thinking: queue.Queue[int] = queue.Queue()
        self.calls = 0
        self.opened = threading.Event()

    def choose(self, state: TableState, seat: int) -> Move:
        self.calls += 1
        self.thinking.put(self.calls)
        if not self.opened.is_set():
            assert self.allowed.acquire(timeout=120), "the test never let the bot choose"
        return self.inner.choose(state, seat)

    def open(self) -> None:
        """The test is over: every choice from now on is allowed (a thread waiting for the gate
        would hold the table's end back)."""
        self.opened.set()
        self.allowed.release()

    async def started(self) -> int:
        """Wait until the bot starts thinking about a move; which call of `choose` that is."""
        number: int = await trio.to_thread.run_sync(self.thinking.get, True, 120)
        return number

    def allow(self) -> None:
        self.allowed.release()


def _table(game: str = "skyjo", bots: int = 2) -> tuple[LocalTable, _Gated]:
    table = LocalTable(game, bots, "greedy", save=False, think_time=0.0, turn=TURN, grace=GRACE)
    assert table.human.autopilot is not None
    gated = _Gated(table.human.autopilot)
    table.human.autopilot = gated
    return table, gated


async def _until(check: Callable[[], bool], what: str) -> None:
    """Look at the table until `check` holds (bounded; the mock clock does not move meanwhile)."""
    for _ in range(POLLS):
        if check():
            return
        await trio.to_thread.run_sync(time.sleep, POLL)
    raise AssertionError(f"never: {what}")


def _deciding(runner: PeerRunner) -> bool:
    """The person has a decision to make and its countdown runs (the runner has handled the
    session's news: the session's state alone may be read while a worker thread updates it)."""
    return runner.legal_moves() != [] and runner.time_left() is not None


def _moved(runner: PeerRunner) -> list[Move]:
    return [e.fact.move for e in runner.log if e.kind == "fact" and isinstance(e.fact, Moved)]


def _moves_of(runner: PeerRunner, seat: int) -> list[Move]:
    return [move for move in _moved(runner) if move.seat == seat]


def _settled(table: LocalTable) -> bool:
    """Every peer has applied the same moves and has the same public table."""
    counts = {len(_moved(r)) for r in table.runners}
    hashes = {state_hash(r.view) for r in table.runners if r.view is not None}
    return len(counts) == 1 and len(hashes) == 1


def _no_stop(table: LocalTable) -> None:
    for runner in table.runners:
        assert runner.status.halted is None, runner.status.halted
        assert not runner.status.blamed, runner.status.blamed


def _away_lines(runner: PeerRunner, seat: int = 0) -> list[str]:
    return [e.text for e in runner.log if e.kind == "away" and e.seat == seat]


def _run(test: Callable[[trio.testing.MockClock], Awaitable[None]]) -> None:
    clock = trio.testing.MockClock()  # no autojump: time moves only when the test jumps it
    trio.run(test, clock, clock=clock)


def test_the_countdown_runs_out_and_the_own_bot_plays_until_a_key() -> None:
    async def main(clock: trio.testing.MockClock) -> None:
        table, bot = _table()
        human = table.human
        async with trio.open_nursery() as nursery:
            await nursery.start(table.run)
            # the setup: everyone turns two cards; the person's countdown runs
            await _until(lambda: _deciding(human), "the person's first decision")
            assert human.time_left() == TURN
            clock.jump(TURN - 1)
            await trio.sleep(0)
            assert human.time_left() == 1 and not human.autopiloting and 0 not in human.away
            clock.jump(1)
            # at zero: the away frame goes out, and the own bot plays the seat
            await _until(lambda: human.autopiloting, "the autopilot")
            # what each screen says (the runner's log), not the session's state alone: a worker
            # thread updates the session before the runner has handled its news
            await _until(
                lambda: all(_away_lines(r) == ["away"] and 0 in r.away for r in table.runners),
                "every peer sees the away frame and says so, once",
            )
            assert human.time_left() is None  # no countdown while away
            assert await bot.started() == 1
            bot.allow()  # the setup's two cards
            assert await bot.started() == 2  # the seat's first turn: the bot plays it too
            # a key while the bot thinks: the person is back once that move is made, never before
            back = trio.Event()

            async def press_a_key() -> None:
                assert await human.come_back()
                back.set()

            nursery.start_soon(press_a_key)
            await trio.sleep(0)
            assert human.autopiloting and not back.is_set()  # the move being chosen comes first
            bot.allow()
            await _until(back.is_set, "the person back")
            assert not human.autopiloting
            await _until(
                lambda: all(_away_lines(r) == ["away", "back"] and 0 not in r.away for r in table.runners),
                "every peer sees the return and says so, once",
            )
            # the rest of the turn is the person's: the bot does not think about it
            await _until(lambda: _deciding(human), "the person's next decision")
            assert human.time_left() == TURN  # a fresh countdown for what is left of the turn
            assert bot.calls == 2 and bot.thinking.empty()
            assert len(_moves_of(human, 0)) == 2
            await human.submit_move(human.legal_moves()[0])
            await _until(lambda: _settled(table), "every peer at the same table")
            _no_stop(table)
            assert bot.calls == 2
            for runner in table.runners[1:]:
                assert _moves_of(runner, 0) == _moves_of(human, 0)  # each move once, everywhere
            bot.open()
            nursery.cancel_scope.cancel()

    _run(main)


def test_the_person_cannot_play_the_move_the_bot_is_making() -> None:
    async def main(clock: trio.testing.MockClock) -> None:
        table, bot = _table()
        human = table.human
        async with trio.open_nursery() as nursery:
            await nursery.start(table.run)
            await _until(lambda: _deciding(human), "the person's first decision")
            choice = human.legal_moves()[-1]
            clock.jump(TURN)
            await bot.started()
            tried: list[str] = []

            async def also_play() -> None:  # a move composed just before the countdown's end
                try:
                    await human.submit_move(choice)
                    tried.append("played")
                except IllegalMove:
                    tried.append("refused")

            nursery.start_soon(also_play)
            await trio.sleep(0)
            bot.allow()
            await _until(lambda: tried != [], "the person's move answered")
            await _until(lambda: _settled(table), "every peer at the same table")
            setup = [m for m in _moves_of(human, 0) if m.kind == "reveal"]
            assert len(setup) == 1  # the setup's decision was made once, by the bot
            assert tried == ["refused"]
            _no_stop(table)
            bot.open()
            nursery.cancel_scope.cancel()

    _run(main)


def test_a_decision_made_in_time_stops_the_countdown() -> None:
    async def main(clock: trio.testing.MockClock) -> None:
        table, bot = _table()
        human = table.human
        async with trio.open_nursery() as nursery:
            await nursery.start(table.run)
            await _until(lambda: _deciding(human), "the person's first decision")
            clock.jump(TURN - 1)
            await human.submit_move(human.legal_moves()[0])  # one second before the end
            await _until(lambda: human.time_left() != 1, "the countdown stopped or started anew")
            clock.jump(1)  # the first countdown's end
            await trio.to_thread.run_sync(time.sleep, 0.5)  # room for a wrong autopilot to show
            assert not human.autopiloting and _away_lines(human) == []
            assert bot.calls == 0
            _no_stop(table)
            bot.open()
            nursery.cancel_scope.cancel()

    _run(main)


@pytest.mark.parametrize("game", ["skyjo-action", "skip-bo"])
def test_autopilot_in_the_other_games(game: str) -> None:
    async def main(clock: trio.testing.MockClock) -> None:
        table, bot = _table(game)
        human = table.human
        async with trio.open_nursery() as nursery:
            await nursery.start(table.run)
            await _until(lambda: _deciding(human), "the person's first decision")
            clock.jump(TURN)
            await _until(lambda: all(0 in r.away for r in table.runners), "every peer sees the away frame")
            assert await bot.started() == 1
            bot.allow()
            assert await bot.started() == 2
            coming = nursery.start_soon  # the key, while the bot thinks about its second move
            coming(human.come_back)
            await trio.sleep(0)
            bot.allow()
            await _until(lambda: all(0 not in r.away for r in table.runners), "every peer sees the return")
            await _until(lambda: _settled(table), "every peer at the same table")
            assert bot.calls == 2 and len(_moves_of(human, 0)) == 2
            _no_stop(table)
            bot.open()
            nursery.cancel_scope.cancel()

    _run(main)


def test_no_countdown_without_the_setting() -> None:
    table = LocalTable("skyjo", 2, save=False, think_time=0.0)
    assert table.human.autopilot is None and table.human.turn_seconds == 0
    # no countdown and no grace in the genesis; only that seat 0's program runs the bots (issue 18)
    assert table.config.table == {"owners": [0, 0, 0]}


def test_the_second_bell_comes_ten_seconds_before_the_end_or_at_two_thirds() -> None:
    assert warn_before(60) == 10
    assert warn_before(15) == 5
    assert warn_before(0) == 0
