"""TEST ONLY: turns the process that loads it into a cheater (issue 17, point 5: a peer that sends
a wrong reconstruction share is blamed with evidence), holds its bot (a vanished peer comes back),
or has it miss one frame (a vote that never reaches it).

Loaded only by tests on real programs (`tests/client/test_lan_takeover.py`,
`test_lan_back_waits.py`, `test_lan_lid_missing_vote.py`), which put this folder first on the
PYTHONPATH of their programs (Python imports `sitecustomize` at startup); it only acts when one
of the variables below is set too: nothing in the product reads them or imports this module.

With SKYJO_LAN_TEST_TAMPER=partials, the first partial decryption this process sends for a
vanished seat's cards gets G added (E_1 + G), its batch proof left as made, so the frame is signed
but wrong.

With SKYJO_LAN_TEST_DROP=host-vote, this process never takes in the host's (seat 1's) vote about
its own program, however it comes (sent directly, resent, or relayed as evidence): the host's
later frames then wait behind that gap for good. It is the fault soak's sixth run made certain (a
player back from a closed lid holding two seats' votes and upholds, never the host's).

With SKYJO_LAN_TEST_SLOW_UNTIL=FILE, this process takes 0.25 s more over each frame it receives
(not those its saved game gives back on resume), and does not say it is back (`return`), until
FILE exists: a slow laptop still catching up with the table's game when it ends. It creates
SKYJO_LAN_TEST_LINKED (a file name) once frames of every other seat arrived. With
SKYJO_LAN_TEST_HOLD_UNTIL=FILE beside SKYJO_LAN_TEST_HOLD=return, the bot is held while the table
plays a vanished seat until FILE exists, returned or not.

With SKYJO_LAN_TEST_DEAF_UNTIL=FILE, this process drops every frame it receives from the moment
its game is over on its screen (its last round's scores known, the round's signatures still to
come) until FILE exists, as if its network lost them; it creates FILE.deaf when it first drops
one: a program whose link drops as the game ends.

With SKYJO_LAN_TEST_HOLD=return instead, nothing is cheated: this process's bot makes no move
while the table plays a vanished seat whose player has not yet sent its `return`. A test of a
player who comes back uses it so that the others cannot finish the game before it is back,
however slowly the machine starts the returning process (its moves are waited for, as a slow
player's are: the test gives the table a long move timeout). With SKYJO_LAN_TEST_HOLD=return,waits,
this process's own waits for a protocol step or a move do not run out either while its bot is held
(each is asked again, 2 s later, until the player is back): the held programs wait for each
other's held moves, a pause the test makes, not a player who is gone; the table keeps short
timeouts for everything else.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import Any

if os.environ.get("SKYJO_LAN_TEST_TAMPER") == "partials":
    import protocol.crypto as _crypto
    from protocol.crypto import group as _group

    _honest = _crypto.make_partials
    _done: list[bool] = []

    def _tampered(*args: Any, **kwargs: Any) -> Any:
        batch = _honest(*args, **kwargs)
        if _done:
            return batch
        _done.append(True)
        first = _group.add(batch.shares[0], _group.mul_base(1))
        sys.stderr.write("TAMPER: G added to the first partial\n")
        return dataclasses.replace(batch, shares=(first, *batch.shares[1:]))

    _crypto.make_partials = _tampered  # type: ignore[assignment]

_HOLD = set(os.environ.get("SKYJO_LAN_TEST_HOLD", "").split(","))

if "return" in _HOLD:
    import trio as _trio

    from client.table.peer import PeerRunner as _Runner

    _play = _Runner._bot_move

    _GO = os.environ.get("SKYJO_LAN_TEST_HOLD_UNTIL")

    def _waiting_for_a_return(session: Any) -> bool:
        for seat, stand_in in session.stand_ins.items():
            if stand_in.how != "vanished":
                continue
            if _GO is not None:  # held until the test says so, returned or not
                if not os.path.exists(_GO):
                    return True
                continue
            returns = session.insurance.returns.get(seat, [])
            if not any(r >= stand_in.limit for r in returns):
                return True
        return False

    async def _held(self: Any) -> None:
        for _ in range(6000):  # at most 10 minutes: a test's own bound
            async with self._lock:
                if not _waiting_for_a_return(self.session):
                    break
            await _trio.sleep(0.1)
        await _play(self)

    _Runner._bot_move = _held  # type: ignore[method-assign]
    sys.stderr.write("HOLD: the bot waits for a vanished player's return\n")

if "return" in _HOLD and "waits" in _HOLD:
    from protocol.events import TimerRequest as _TimerRequest
    from protocol.session import Session as _Session

    _expired = _Session.timer_expired

    def _patient(self: Any, name: str) -> None:
        if name.startswith("job:") and _waiting_for_a_return(self):
            self.report(_TimerRequest(name, 2.0))  # runs out for real once the bots move again
            return
        _expired(self, name)

    _Session.timer_expired = _patient  # type: ignore[method-assign]
    sys.stderr.write("HOLD: no wait of this program runs out while its bot waits for a return\n")

_SLOW = os.environ.get("SKYJO_LAN_TEST_SLOW_UNTIL")

if _SLOW:
    import time as _time

    from protocol.messages import peek_seat as _peek_seat
    from protocol.session import Session as _SlowSession

    _restore = _SlowSession.restore.__func__  # type: ignore[attr-defined]
    _receive = _SlowSession.receive_frame
    _restoring = [0]
    _heard: set[Any] = set()
    _LINKED = os.environ.get("SKYJO_LAN_TEST_LINKED", "")

    def _restore_fast(cls: Any, *args: Any, **kwargs: Any) -> Any:
        _restoring[0] += 1
        try:
            return _restore(cls, *args, **kwargs)
        finally:
            _restoring[0] -= 1

    def _slow_receive(self: Any, frame: bytes) -> None:
        if not _restoring[0]:
            seat = _peek_seat(frame)
            if seat != self.me and seat not in _heard:
                _heard.add(seat)
                if len(_heard) >= self.players - 1 and _LINKED:
                    open(_LINKED, "w").close()  # frames from every other seat: linked to all
            if not os.path.exists(_SLOW):
                _time.sleep(0.25)
        _receive(self, frame)

    from protocol.insurance import SeatInsurance as _Insurance

    _announce = _Insurance.announce_return

    def _no_return_yet(self: Any) -> None:  # still catching up: not playing yet
        if os.path.exists(_SLOW):
            _announce(self)

    _Insurance.announce_return = _no_return_yet  # type: ignore[method-assign]
    _SlowSession.restore = classmethod(_restore_fast)  # type: ignore[method-assign,assignment]
    _SlowSession.receive_frame = _slow_receive  # type: ignore[method-assign]
    sys.stderr.write("SLOW: each frame received takes 0.25 s more until the test says so\n")

if os.environ.get("SKYJO_LAN_TEST_DROP") == "host-vote":
    from protocol.intake import Intake as _Intake

    _take = _Intake.accept

    def _dropping(self: Any, envelope: Any) -> None:
        session = self._session
        me = session.me
        ours = me is not None and envelope.data.get("owner") == session.config.owners[me]
        if envelope.seat == 0 and envelope.kind == "vacate" and ours:
            sys.stderr.write("DROP: the host's vote about this program\n")
            return
        _take(self, envelope)

    _Intake.accept = _dropping  # type: ignore[method-assign]

_DEAF = os.environ.get("SKYJO_LAN_TEST_DEAF_UNTIL")

if _DEAF:
    from protocol.session import Session as _DeafSession

    _hear = _DeafSession.receive_frame

    def _deaf_at_the_end(self: Any, frame: bytes) -> None:
        state = self.state
        if state is not None and state.phase == "game_over" and not os.path.exists(_DEAF):
            if not os.path.exists(_DEAF + ".deaf"):
                open(_DEAF + ".deaf", "w").close()
                sys.stderr.write("DEAF: the frames after the game's end are lost\n")
            return
        _hear(self, frame)

    _DeafSession.receive_frame = _deaf_at_the_end  # type: ignore[method-assign]
    sys.stderr.write("DEAF: loaded\n")
