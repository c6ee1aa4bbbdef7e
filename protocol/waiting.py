"""Read-only answers about what a session waits for, for the screens (issue 28): for whom, how
far its own waits went, whether the table could play a seat that stopped answering, and who
stands in the way.

Nothing here changes the session: it reads the step the session waits on (`Session.waiting_for`
and the wait's phase), the table's settings and the seats it plays (`stand_ins`). The rules stay
in `steps.py` and `insurance.py`; this module only says what they will do:

* a seat's program that stops answering is waited for twice (the first wait, then the frames it
  may lack are relayed to it and it is waited for once more: `StepWatch.seconds`); then, at
  an insured table, the others vote and the table plays the seat (PROTOCOL.md 10.9), else the
  game stops;
* the table can play a vanished seat only when every holder of a share of its key is still
  there (the escrow's threshold is all the holders: PROTOCOL.md section 10.9, "If a holder of s
  is itself a seat the table plays, s's cards cannot be opened").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FIRST = "first"
"""The first wait for the step runs."""
LAST = "last"
"""The frames the waited seats may lack were relayed to them; the last wait runs."""
VOTING = "voting"
"""A vote to play the waited seats' program is open."""


@dataclass(frozen=True)
class Wait:
    """What the session waits for now, from a player's side."""

    step: str
    """The step's name (the name of the session's timer for it)."""
    seats: tuple[int, ...]
    """The other seats it waits on."""
    phase: str
    """`FIRST`, `LAST` or `VOTING`."""
    after: float
    """Seconds the session still waits after the running timer of `step` ends before it decides
    (the last wait, in the `FIRST` phase; 0 otherwise)."""
    insured: bool
    """At the end the table plays the seats (True) or the game stops (False)."""
    blockers: tuple[int, ...] = ()
    """Seats gone (left, or played by the table) that hold a share of a waited seat's key: while
    any is, the table cannot play the waited seats and the game stops instead."""


def waiting(session: Any) -> Wait | None:
    """What `session` (a `protocol.session.Session`) waits for from other seats, or None (it
    waits for nothing, for this seat only, or has stopped)."""
    if session.halted or session.me is None:
        return None
    found = session.waiting_for()
    if found is None:
        return None
    step, seats = found
    others = tuple(s for s in seats if s != session.me)
    if not others:
        return None
    blocked = session.steps.blocked
    reminded = session.steps.first_wait_over(step)
    after = 0.0
    if blocked is not None and not reminded:
        after = float(session.steps.seconds(blocked)[1])
    config = session.config
    voting = any(
        attempt.votes and attempt.decided is None
        for owner, attempt in session.insurance.ballots.attempts.items()
        if any(config.owners[s] == owner for s in others)
    )
    phase = VOTING if voting else LAST if reminded else FIRST
    blockers: set[int] = set()
    for seat in others:
        blockers.update(replacing_needs(session, seat))
    insured = bool(config.insured) and session.state is not None
    return Wait(step, others, phase, after, insured and not blockers, tuple(sorted(blockers)))


def replacing_needs(session: Any, seat: int) -> tuple[int, ...]:
    """The seats gone from the table (left, or played by it) that hold a share of `seat`'s key:
    while there is any, the table cannot play `seat` if its program stops answering."""
    config = session.config
    if not config.insured:
        return ()
    return tuple(h for h in config.escrow_holders(seat) if h != seat and h in session.stand_ins)


def replaceable(session: Any) -> list[int]:
    """The seats still played by their own program that the table could play if that program
    stopped answering now (empty at a table without seat insurance)."""
    if not session.config.insured:
        return []
    return [
        s
        for s in range(session.config.players)
        if s not in session.stand_ins and not replacing_needs(session, s)
    ]


def after_leave(session: Any, seat: int) -> list[int]:
    """The seats (other than `seat`, still played by their program) that the table could play
    now but no longer could once `seat` leaves (its player gone, its share of their key with it)."""
    config = session.config
    if not config.insured:
        return []
    return [s for s in replaceable(session) if s != seat and seat in config.escrow_holders(s)]
