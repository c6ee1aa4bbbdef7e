"""Issue 28, point 1: a person's move countdown counts only time in which they can act.

A table of real peers in memory (`LocalTable`) on trio's `MockClock`: the person draws a card,
and the share of one other seat that the card needs is held back (as when that player's program
is stopped with SIGSTOP). The countdown stands still, says so, and names the seat waited for;
however long the wait, the autopilot does not take the seat. Once the share arrives, the
countdown runs again from what was left. Meanwhile the runner counts down to the moment the
table stops waiting for that seat (point 3), steadily, on the same clock.
"""

from __future__ import annotations

import time

import trio
import trio.testing

from client.ui.app import GameUI
from client.ui.caps import Caps
from client.ui.render import render
from client.ui.runner import RunnerSource
from protocol.messages import peek_seat
from tests.client.test_autopilot import TURN, _deciding, _no_stop, _run, _table, _until


def test_the_countdown_stands_still_while_the_table_waits_for_another_seat() -> None:
    async def main(clock: trio.testing.MockClock) -> None:
        table, bot = _table()
        human = table.human
        held: list[bytes] = []
        holding = {"on": False}
        deliver = human.deliver

        def delivered(frame: bytes) -> None:
            if holding["on"] and peek_seat(frame) == 1:
                held.append(frame)  # Ben's program is stopped: nothing of his comes
            else:
                deliver(frame)

        human.deliver = delivered  # type: ignore[method-assign]
        async with trio.open_nursery() as nursery:
            await nursery.start(table.run)
            while True:  # the setup, then the others' turns, until the person's own turn
                await _until(lambda: _deciding(human), "the person's decision")
                state = human.view
                if state is not None and state.phase == "turn":
                    break
                await human.submit_move(human.legal_moves()[0])
            assert human.time_left() == TURN and human.countdown_waits() is None
            clock.jump(2)
            await trio.sleep(0)
            holding["on"] = True
            draw = next(m for m in human.legal_moves() if m.kind == "draw")
            await human.submit_move(draw)
            await _until(lambda: human.countdown_waits() is not None, "the countdown stopped")
            assert 1 in (human.countdown_waits() or ())
            assert human.time_left() == TURN - 2
            # the screen says so, and for whom
            ui = GameUI(RunnerSource(human), "en")
            text = "\n".join(render(ui.screen(), 100, 30, Caps()).text())
            assert f"{TURN - 2} s (paused)" in text, text
            waits = f"Your countdown waits at {TURN - 2} s: the table waits for {human.config.names[1]}."
            assert waits in text.replace("\n", " "), text
            # point 3: until when the table waits for Ben, counted down steadily
            await _until(lambda: (human.table_wait() or (None, None))[1] is not None, "the wait's timer")
            found = human.table_wait()
            assert found is not None and found[0].seats == (1,) and found[1] is not None
            before = found[1]
            clock.jump(2 * TURN)  # far past the countdown's end (the protocol's own timers: 30 s)
            await trio.sleep(0)
            found = human.table_wait()
            assert found is not None and found[1] == before - 2 * TURN
            await trio.to_thread.run_sync(time.sleep, 0.5)  # room for a wrong autopilot to show
            assert not human.autopiloting and human.time_left() == TURN - 2
            holding["on"] = False
            for frame in held:  # Ben's program runs again
                deliver(frame)
            await _until(lambda: _deciding(human) and human.countdown_waits() is None, "the card drawn")
            assert human.time_left() == TURN - 2  # what was left, not a fresh countdown
            assert not human.autopiloting
            _no_stop(table)
            bot.open()
            nursery.cancel_scope.cancel()

    _run(main)
