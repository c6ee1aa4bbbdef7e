"""Issue 28, points 3 and 4: the read-only answers `protocol.waiting` gives the screens about a
seat that stopped answering (for whom the table waits, how far its waits went, whether it can
play the seat at all, and who stands in the way), on an insured table in memory."""

from __future__ import annotations

from protocol import waiting

from .test_seat_insurance import GONE, insured


def test_a_silent_seat_is_waited_for_twice_then_voted_about() -> None:
    net = insured()
    me = net.sessions[0]
    assert waiting.replaceable(me) == [0, 1, 2]
    net.silent.add(GONE)
    net.pump()
    found = waiting.waiting(me)
    assert found is not None and found.seats == (GONE,)
    assert (found.phase, found.insured, found.blockers) == (waiting.FIRST, True, ())
    assert found.after > 0  # the last wait is still to come after this one
    net.fire_timers(
        [0, 1],
        prefix="job:",
        until=lambda: waiting.waiting(me) is not None and waiting.waiting(me).phase != waiting.FIRST,
    )  # type: ignore[union-attr]
    found = waiting.waiting(me)
    assert found is not None and found.phase in (waiting.LAST, waiting.VOTING)


def test_after_a_leave_the_table_cannot_replace_anyone_else_and_says_who_is_in_the_way() -> None:
    net = insured()
    me = net.sessions[0]
    assert waiting.after_leave(me, 1) == [0, 2]  # Ben holds a share of Anna's and Chloé's keys
    net.silent.add(GONE)  # Chloé's program stops...
    assert net.sessions[1].leave()  # ...as Ben leaves
    net.pump()
    assert 1 in me.stand_ins
    assert waiting.replaceable(me) == []
    assert waiting.replacing_needs(me, GONE) == (1,)
    found = waiting.waiting(me)
    # said at once, at the first wait: the table cannot play Chloé's seat, and Ben is why
    assert found is not None and found.seats == (GONE,) and found.phase == waiting.FIRST
    assert found.insured is False and found.blockers == (1,)


def test_nothing_to_say_at_a_table_without_insurance() -> None:
    net = insured(insure=False)
    me = net.sessions[0]
    assert waiting.replaceable(me) == [] and waiting.after_leave(me, 1) == []
    net.silent.add(GONE)
    net.pump()
    found = waiting.waiting(me)
    assert found is None or found.insured is False
