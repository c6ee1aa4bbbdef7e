"""A driver cancels the timers the session no longer needs (a long game must not pile up
sleeping timer tasks: issue 12, part 3). The session says which ones those are."""

from __future__ import annotations

from protocol.events import TimerRequest

from .harness import Net


def test_a_step_timer_is_needed_only_while_the_step_waits() -> None:
    net = Net("skyjo", 2, {"target_score": 20})
    net.start(until=lambda: bool(net.timers[0]))
    first = net.timers[0][0]
    assert net.sessions[0].timer_needed(first.name), first
    net.pump()  # the game goes on: that step is long done
    assert not net.sessions[0].timer_needed(first.name)
    blocked = net.sessions[0].waiting_for()
    if blocked is not None:
        assert net.sessions[0].timer_needed(blocked[0])


def test_want_and_echo_timers_lapse_when_settled() -> None:
    net = Net("skyjo", 3, {"target_score": 20})
    net.run_game()
    session = net.sessions[0]
    seq = session.next_seq_of(1) - 1
    assert not session.timer_needed(f"want:1:{seq}"), "that frame is here"
    assert session.timer_needed(f"want:1:{session.next_seq_of(1)}") == (session.final is False)
    assert not session.timer_needed("echo:1:0"), "no dispute"
    assert not session.timer_needed("bogus:x:y") and not session.timer_needed("want:x:y")


def test_every_timer_a_finished_game_asked_for_is_no_longer_needed() -> None:
    net = Net("skyjo", 3, {"target_score": 20})
    net.run_game()
    for seat, session in enumerate(net.sessions):
        names = {t.name for t in net.timers[seat] if isinstance(t, TimerRequest)}
        assert names, "the game asked for timers"
        assert not [n for n in names if n.startswith("job:") and session.timer_needed(n)]
