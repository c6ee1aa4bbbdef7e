"""The wait for the seats a step needs: its two timers, the relay between them, the verdict.

The session runs one job at a time, and a job that lacks a message waits on the seats that owe it
(`protocol.jobs.Blocked`). A seat that does not send an automatic message within `step_timeout`
(a move: `move_timeout`) is not named at once: a frame it needs may never have reached it (lost,
or withheld from it by another seat). So the wait has two parts:

1. the *first wait*: when it runs out, the frames of other seats that the waited seats have not
   acknowledged are relayed to them (`Relays.unacknowledged`), and the *last wait* begins;
2. when the last wait runs out too, the seats are late: on an insured table the others vote to
   play them (`SeatInsurance.wait_ran_out`, PROTOCOL.md 10.9); otherwise the game stops naming
   them *absent*, never cheats (a closed lid and a lost link look the same).

A check the job put off (a batch of shuffle proofs) runs before anyone is called late: a seat
that stopped because an earlier message was invalid is not at fault, that message's author is.

An observer (seat None) times nobody out: the players decide whether a seat is late (their signed
halts, their votes).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from .acks import Acknowledgements
from .config import TableConfig, named_seats
from .events import SessionEvent, TimerRequest
from .insurance import SeatInsurance
from .jobs import Blocked
from .relays import Relays


class StepContext(Protocol):
    """What the wait reads and does of its session (the narrow interface)."""

    config: TableConfig
    me: int | None
    halted: str | None
    step_timeout: float
    move_timeout: float | None
    acks: Acknowledgements
    relays: Relays
    insurance: SeatInsurance

    def report(self, event: SessionEvent) -> None: ...

    def publish(self, frames: Iterable[bytes]) -> None: ...

    def check_postponed(self) -> None: ...

    def stop(self, reason: str, culprit: int | None = None, absent: tuple[int, ...] = ()) -> None: ...


class StepWatch:
    """Our wait for the seats the current step waits on."""

    def __init__(self, session: StepContext) -> None:
        self._session = session
        self.blocked: Blocked | None = None
        """What the current step waits for (None: nothing, or the game stopped)."""
        self._timed: str | None = None
        """The step whose timer was asked for (one wait per step, however often it is seen)."""
        self._reminded: set[str] = set()
        """Steps whose first wait ran out: the frames their seats lacked were relayed."""

    @property
    def seats(self) -> tuple[int, ...]:
        """The seats the current step waits for."""
        return self.blocked.seats if self.blocked is not None else ()

    def wait(self, blocked: Blocked) -> None:
        """The current step waits for `blocked`: start its first wait if it is a new step."""
        self.blocked = blocked
        session = self._session
        if session.halted or session.me is None or blocked.name == self._timed:
            return
        session.insurance.watch(blocked.name)
        self._timed = blocked.name
        if blocked.automatic or (session.move_timeout is not None and blocked.seats):
            session.report(TimerRequest(blocked.name, self.seconds(blocked)[0]))

    def nothing(self) -> None:
        """Nothing is waited for any more (no job left, or the game stopped)."""
        self.blocked = None

    def seconds(self, blocked: Blocked) -> tuple[float, float]:
        """The two waits before a seat is named absent: until the frames it may lack are relayed
        to it, then until the stop. A protocol step: `step_timeout` each. A move: `move_timeout`
        in all, as documented (the relay comes shortly before the end)."""
        session = self._session
        if blocked.automatic or session.move_timeout is None:
            return session.step_timeout, session.step_timeout
        last = min(session.step_timeout, session.move_timeout / 2)
        return session.move_timeout - last, last

    def first_wait_over(self, name: str) -> bool:
        """Whether the first of our two waits for the step `name` ran out (its frames were
        relayed to the waited seats and the last wait runs)."""
        return name in self._reminded

    def restart(self) -> None:
        """Our wait for the current step starts afresh (a vote of ours was withdrawn: we vote
        again only after a new whole wait)."""
        self._timed = None
        self._reminded.clear()
        if self.blocked is not None and not self._session.halted:
            self.wait(self.blocked)

    def needed(self, name: str) -> bool:
        """Whether the timer `name` of a step is still of use."""
        return self.blocked is not None and self.blocked.name == name

    def expired(self, name: str) -> None:
        """The timer of step `name` ran out (see the module's docstring)."""
        session = self._session
        if session.acks.disputes or session.insurance.paused():
            return  # nobody is late while we wait for the outcome of a dispute or of a vote
        blocked = self.blocked
        if blocked is None or blocked.name != name:
            return
        session.check_postponed()
        if session.halted:
            return
        if name not in self._reminded:
            self._reminded.add(name)
            session.publish(session.relays.unacknowledged(blocked.seats))
            session.report(TimerRequest(name, self.seconds(blocked)[1]))
            return
        if session.insurance.wait_ran_out(blocked.seats):
            return
        who = named_seats(session.config, blocked.seats)
        session.stop(f"{who} did not answer in time", absent=blocked.seats)
