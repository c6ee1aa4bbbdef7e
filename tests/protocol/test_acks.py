"""Acknowledgements carried in every frame (issue 16 point 3): a stand-alone echo only when no
frame of ours carried them within ACK_DELAY; equivocation and withholding still show through
the acknowledgements that ride in the frames peers send anyway."""

from __future__ import annotations

import time
from typing import Any

import pytest

from protocol.acks import ACK_DELAY
from protocol.events import RoundSigned, TimerRequest
from protocol.loopback import Loopback, bots_for, frame_kind, make_table, seats
from protocol.messages import Envelope, open_frame
from protocol.session import Session
from tests.protocol.harness import Fork, Net, assert_blamed

GAMES = [
    ("skyjo", {"target_score": 1}),
    ("skyjo-action", {"action_kinds": "peek-line", "target_score": 1}),
    ("skip-bo", {"single_round": True, "stock_size": 5}),
]


def ack_timers(events: list[Any]) -> list[str]:
    return [e.name for e in events if isinstance(e, TimerRequest) and e.name.startswith("ack:")]


def table_of(players: int) -> tuple[list[Session], list[Any]]:
    config, keys = make_table("skyjo", players, {"target_score": 1})
    sessions = seats(config, keys)
    for session in sessions:
        session.start()
    return sessions, [s.data_to_send() for s in sessions]


def test_the_frame_that_acts_carries_the_acknowledgement_and_no_echo_follows() -> None:
    # two seats: seat 1 takes seat 0's key commitment and answers with its key reveal, which
    # acknowledges the commitment; the acknowledgement timer it may have asked for is of no use
    sessions, sent = table_of(2)
    config = sessions[0].config
    commit = open_frame(sent[0][0], config)
    sessions[1].next_events()
    sessions[1].receive_frame(commit.frame)
    out = [open_frame(f, config) for f in sessions[1].data_to_send()]
    assert [e.kind for e in out] == ["key"]
    assert out[0].acks == ((0, 0, commit.digest),)
    names = ack_timers(sessions[1].next_events())
    for name in names:
        assert not sessions[1].timer_needed(name)
        sessions[1].timer_expired(name)
    assert sessions[1].data_to_send() == [], "no stand-alone echo when a frame carried the acks"


def test_a_stand_alone_echo_after_the_delay_when_nothing_carried_it() -> None:
    # three seats: seat 2 gets seat 0's key commitment while it still waits for seat 1's: it has
    # nothing to send, so it asks for the acknowledgement timer, and its expiry sends an echo
    sessions, sent = table_of(3)
    config = sessions[0].config
    commit = open_frame(sent[0][0], config)
    sessions[2].next_events()
    sessions[2].receive_frame(commit.frame)
    assert sessions[2].data_to_send() == []
    events = sessions[2].next_events()
    [name] = ack_timers(events)
    [request] = [e for e in events if isinstance(e, TimerRequest) and e.name == name]
    assert request.seconds == ACK_DELAY
    assert sessions[2].timer_needed(name)
    sessions[2].timer_expired(name)
    [echo] = [open_frame(f, config) for f in sessions[2].data_to_send()]
    assert echo.kind == "echo" and echo.data == {}
    assert echo.acks == ((0, 0, commit.digest),)
    # acknowledged once: the timer is of no use any more, and a second expiry sends nothing
    assert not sessions[2].timer_needed(name)
    sessions[2].timer_expired(name)
    assert sessions[2].data_to_send() == []
    # the next frame of seat 2 names only what changed since (nothing of seat 0)
    sessions[2].receive_frame(sent[1][0])
    [key] = [open_frame(f, config) for f in sessions[2].data_to_send()]
    assert key.kind == "key" and [a[0] for a in key.acks] == [1]


def no_stand_alone_echo(net: Loopback) -> None:
    """The acknowledgement timers never run out (acknowledgements ride in frames only)."""
    net._acknowledge = lambda: False  # type: ignore[method-assign]


def other_move(env: Envelope) -> dict[str, Any] | None:
    if env.kind != "move":
        return None
    move = dict(env.data["move"])
    move["slots"] = [(s + 6) % 12 for s in move["slots"]]
    return {**env.data, "move": move}


def test_equivocation_is_detected_through_piggybacked_acknowledgements() -> None:
    # seat 1 sends seat 2 another setup move than seat 0 gets; no stand-alone echo ever goes
    # out: the acknowledgements in the shares frames the move triggers expose the fork
    net = Net("skyjo", 3, {"target_score": 20}, observers=1)
    no_stand_alone_echo(net)
    net.start(until=lambda: net.has_sent(2, "shares"))
    fork = Fork(net, 1, 2, other_move, consistent=True)
    net.filter = fork
    net.pump()
    assert fork.forked is not None
    blames = assert_blamed(net, 1, "")
    proofs = [b for b in blames if len(b.evidence) == 2 and "equivocation" in b.reason]
    assert proofs
    assert net.frames_sent["echo"] == 0, "only acknowledgements carried by other frames"


def test_a_frame_withheld_from_one_seat_is_wanted_through_acknowledgements() -> None:
    # seat 0's first move never reaches seat 2 directly; seat 1's frames acknowledge it, so seat
    # 2 learns it exists, asks for it with a want, and seat 1 relays it: the game goes on
    net = Net("skyjo", 3, {"target_score": 1})
    net.start(until=lambda: net.sessions[0].state is not None and net.sessions[0].state.phase == "turn")
    dropped: list[int] = []

    def withhold(sender: int, receiver: int, frame: bytes) -> list[bytes]:
        if sender == 0 and receiver == 2 and not dropped and frame_kind(frame) in ("move", "shares"):
            dropped.append(open_frame(frame, net.config).seq)
            return []
        return [frame]

    net.filter = withhold
    net.run(until=lambda: bool(dropped) and net.has_sent(1, "shares"))
    net.pump()
    assert dropped
    wants = [t.name for t in net.timers[2] if t.name.startswith("want:0:")]
    assert wants, net.timers[2]
    net.fire_timers([2], prefix="want:")
    assert net.has_sent(2, "want")
    assert net.sessions[2].next_seq_of(0) > dropped[0]
    assert not net.blamed()


@pytest.mark.parametrize(("game", "options"), GAMES, ids=[g for g, _ in GAMES])
@pytest.mark.parametrize("clock", [False, True], ids=["fifo", "clock"])
def test_whole_games_finish_in_both_loopback_modes(game: str, options: dict[str, Any], clock: bool) -> None:
    config, keys = make_table(game, 3, options)
    lb = Loopback(
        seats(config, keys),
        bots_for(game, ["greedy"] * 3, f"acks:{game}"),
        clock=clock,
        latency=0.001 if clock else 0.0,
        meter=time.process_time if clock else None,
        strict=True,
    )
    lb.start()
    assert all(s.state is not None and s.state.phase == "game_over" for s in lb.sessions)
    assert len({s.transcript_hash for s in lb.sessions}) == 1
    assert not any(s.disputes for s in lb.sessions)
    # every game frame was acknowledged by every other seat, in a frame or a stand-alone echo
    for seat, session in enumerate(lb.sessions):
        for other in range(3):
            if other != seat:
                latest = session.acks.latest[other]
                assert latest is not None and session.acks.acked[other] == latest[0]


def test_bots_first_carries_almost_every_acknowledgement() -> None:
    # clock mode, bots moving before the acknowledgement delay runs out: stand-alone echoes are
    # rare next to game frames (paced players leave about one per idle seat and move)
    config, keys = make_table("skyjo", 3, {"target_score": 1})
    quick = Loopback(seats(config, keys), bots_for("skyjo", ["greedy"] * 3, "q"), clock=True, bots_first=True)
    quick.start()
    assert all(s.state is not None and s.state.phase == "game_over" for s in quick.sessions)
    games = sum(n for k, n in quick.frames_sent.items() if k != "echo")
    assert quick.frames_sent["echo"] * 10 < games, quick.frames_sent


@pytest.mark.parametrize(("game", "options"), GAMES)
def test_at_the_end_of_a_game_every_seat_acknowledged_everything(game: str, options: dict[str, Any]) -> None:
    # what the programs' end-of-game wait relies on (`client.net.mesh`): after an ordinary end,
    # nobody is `behind`, so nobody waits for anybody
    net = Net(game, 3, options)
    net.run_game()
    assert all(s.state is not None and s.state.phase == "game_over" for s in net.sessions)
    assert [s.acks.behind() for s in net.sessions] == [[], [], []]


def test_a_seat_that_lost_the_frames_after_the_end_is_behind_until_they_come_again() -> None:
    # seat 2's link drops as the game ends: the others' last frames (the round's signatures)
    # never reach it. The others see it behind (their wait at the end); seat 2 sees them behind
    # too, since it lacks their acknowledgements of the end. Once their frames come again (each
    # resends its own after a reconnection), seat 2 finishes and nobody is behind.
    net = Net("skyjo", 3, {"target_score": 30})
    lost: list[tuple[int, bytes]] = []

    def route(sender: int, receiver: int, frame: bytes) -> list[bytes]:
        state = net.sessions[2].state
        if receiver == 2 and state is not None and state.phase == "game_over":
            lost.append((sender, frame))
            return []
        return [frame]

    net.filter = route
    net.run_game()
    net.fire_timers(prefix="ack")  # the stand-alone acknowledgements (other waits: not yet run out)
    assert lost, "nothing was lost after the end: nothing tested"
    assert [s.acks.behind() for s in net.sessions] == [[2], [2], [0, 1]]
    assert [s.state.phase for s in net.sessions if s.state is not None] == ["game_over"] * 3
    net.filter = None
    for seat in (0, 1):
        for frame in net.sessions[seat].own_frames_from(net.sessions[2].next_seq_of(seat)):
            net.put(seat, 2, frame)
    net.pump()
    net.fire_timers(prefix="ack")
    assert [s.acks.behind() for s in net.sessions] == [[], [], []]
    assert any(isinstance(e, RoundSigned) for e in net.events[2][-3:])
    assert not any(net.blamed(seat) or net.halted(seat) for seat in range(3))
