"""A session rebuilt after the table played its seat, at a table where another seat came back
before (issue 17, point 3; found on real processes by `benchmarks/chaos.py`).

The fault soak's game: p3's program was killed and resumed (the table played its seat, then it
came back); later the host's link dropped for 18 s while it dealt. The table played the host's
seat and counted none of its frames from its shuffle on. Back on the network, the host's session
learnt it (`Rewound`) and was rebuilt from its saved file, as the client does. Read back with the
jobs paused, the file gave p3's votes about the host before the turn at which p3 had its seat back,
so they did not count there: the table's decision stayed open in the rebuilt session, which held
back every job (a vote about us is open) and never caught up. When the next votes came, it judged
the round's deal without the table's decision and blamed p2's honest shuffle; everyone then
blamed the host for a halt that proved nothing.

Now the rebuilt session is given the decision the old one reached (`Session.restore(decided=)`),
and a vote signed by a seat after its `return` waits for the seat to be back instead of being
dropped (`SeatInsurance.awaiting_return`).
"""

from __future__ import annotations

from typing import Any

from protocol.events import Blamed, Rewound, RoundSigned, SeatReturned
from protocol.loopback import frame_kind
from protocol.messages import SIDE_KINDS, open_frame
from protocol.recovery import RECOVER
from protocol.session import Session

from .test_seat_insurance import (
    MOVE_TIMEOUT,
    assert_played_to_the_end,
    come_back,
    events,
    insured,
    returned_moves,
    vanish,
)

HOST, KILLED = 0, 3


def resend(net: Any, seat: int) -> None:
    """The links of `seat` are back: each side sends the other what it lacks (as the client's
    links do on a reconnection)."""
    for other in range(net.players):
        if other != seat:
            for frame in net.sessions[other].own_frames_from(net.sessions[seat].next_seq_of(other)):
                net.put(other, seat, frame)
            for frame in net.sessions[seat].own_frames_from(net.sessions[other].next_seq_of(seat)):
                net.put(seat, other, frame)


def rebuild(net: Any, seat: int) -> Session:
    """What the client does for a session the table `Rewound`: a new one from the saved file
    (here: every frame the old one holds), given the decisions the old one reached."""
    old = net.sessions[seat]
    rebuilt = Session.restore(
        net.config,
        seat,
        net.keys[seat],
        old.secrets(),
        list(old.frames),
        decided=old.insurance.decisions_about_us(),
        move_timeout=MOVE_TIMEOUT,
    )
    net.sessions[seat] = rebuilt
    net.collect(seat)
    resend(net, seat)
    return rebuilt


def before_the_vote(sent: list[bytes]) -> list[bytes]:
    """A seat's frames up to its last game message before its first vote: the side frames between
    (relays, echoes) are late, so its vote, relayed by the others, is held ahead of that gap."""
    kept: list[bytes] = []
    for frame in sent:
        if frame_kind(frame) == "vacate":
            break
        kept.append(frame)
    while kept and frame_kind(kept[-1]) in SIDE_KINDS:
        kept.pop()
    assert len(kept) < len(sent) - 1, "a gap before the vote"
    return kept


def killed_then_back(net: Any) -> None:
    """p4's program is killed: the table plays its seat; it resumes from its file, comes back
    and plays a move of its own again."""
    crashed = net.sessions[KILLED]
    saved = (crashed.secrets(), list(crashed.frames))
    vanish(net, (KILLED,))
    net.pump(play=False)
    before = len(net.events[KILLED])
    come_back(net, KILLED, saved=saved)
    net.pump(play=False)
    if [e for e in net.events[KILLED][before:] if isinstance(e, Rewound)]:
        come_back(net, KILLED)  # it made at once a message the table had voted void: once more

    def back() -> bool:
        return all(events(net, s, SeatReturned) for s in range(4)) and bool(returned_moves(net, 0, KILLED))

    net.pump(until=back)
    assert back(), "p4 came back and played"


def test_issue17_3_a_host_cut_off_while_dealing_is_rebuilt_and_retakes_its_seat_after_a_return() -> None:
    net = insured("skyjo", players=4, options={"target_score": 400, "setup_reveals": 6})
    # 1. p4's program is killed, the table plays its seat, it comes back and plays again
    killed_then_back(net)
    # 2. at the next round's deal, the host's link drops both ways just as it sends its shuffle
    signed = len(events(net, 1, RoundSigned))
    net.pump(until=lambda: len(events(net, 1, RoundSigned)) > signed)
    cut: list[bool] = []

    def route(sender: int, receiver: int, frame: bytes) -> list[bytes]:
        if not cut and sender == HOST and frame_kind(frame) == "shuffle":
            cut.append(True)
        return [] if cut and HOST in (sender, receiver) else [frame]

    net.filter = route
    net.pump()
    assert cut, "the host dealt"
    others = [1, 2, 3]
    taken = lambda: all(net.sessions[s].taken_over for s in others)  # noqa: E731
    net.fire_timers(list(range(4)), prefix="job:", until=taken)
    assert all(net.sessions[s].taken_over == {HOST: "vanished"} for s in others)
    moves = net.moves
    net.pump(until=lambda: net.moves >= moves + 6)  # the table plays on with the host's seat
    # 3. the link is back: the host learns the table played its seat, and is rebuilt
    net.filter = None
    resend(net, HOST)
    net.pump(play=False)
    assert events(net, HOST, Rewound), net.events[HOST][-5:]
    rebuild(net, HOST)
    # 4. it catches up, takes its seat back and the game ends with nobody blamed
    net.pump(until=lambda: all(net.sessions[s].settled for s in range(4)))
    for seat in range(4):
        assert not [e for e in net.events[seat] if isinstance(e, Blamed)], net.events[seat][-5:]
        assert [e.seat for e in events(net, seat, SeatReturned)][-1:] == [HOST], net.events[seat][-6:]
    assert returned_moves(net, 1, HOST), "the host played again after its return"
    assert_played_to_the_end(net, list(range(4)), {})


def a_relayed_vote() -> tuple[Any, Session, list[bytes]]:
    """p4 vanished and the table voted: seat 0's session and its file, which holds the others'
    votes and seat 0's relays of them (`evidence`)."""
    net = insured("skyjo", players=4, options={"target_score": 100, "setup_reveals": 6})
    vanish(net, (KILLED,))
    net.pump(play=False)
    old = net.sessions[0]
    return net, old, list(old.frames)


def test_issue17_3_a_restored_session_signs_nothing_while_it_reads_its_file_back() -> None:
    # Found on real processes (benchmarks/chaos.py): a player resumed after a kill -9 relayed
    # again, while reading its file back, the votes it had relayed before (`evidence`), signed
    # anew with other acknowledgements: two different frames of one number, and every peer blamed
    # the honest player for equivocation. Its relays of then are in its file.
    net, old, frames = a_relayed_vote()
    me = 0
    kinds = [(e.seat, e.kind) for e in (open_frame(f, net.config) for f in frames)]
    assert (1, "vacate") in kinds and (me, "evidence") in kinds, "the file holds a vote and our relay of it"
    mine = sum(1 for seat, _ in kinds if seat == me)
    restored = Session.restore(net.config, me, net.keys[me], old.secrets(), frames, move_timeout=MOVE_TIMEOUT)
    signed = [open_frame(f, net.config) for f in restored.data_to_send()]
    assert [e.seq for e in signed if e.seat == me and e.seq < mine] == [], "a number of ours signed twice"
    assert not [e for e in restored.next_events() if isinstance(e, Blamed)]


def test_issue17_3_a_player_back_then_killed_again_resumes_without_blaming_the_table() -> None:
    # Found on real processes (benchmarks/chaos.py): p4 came back after the table played its seat,
    # then its program was killed; the table voted again and played the seat. Its file, read back,
    # held the first decision, its return, and the new votes of two seats of three. Reading it
    # back, the session gave the seat back to its player at the return's turn, read the new votes
    # there, and went on to the next job anyway: it signed its own decryption share for a reveal
    # the table had done with the others' partials, and blamed the honest seat whose partials
    # then came. A vote about us read at a return now holds the jobs back, as any such vote does.
    net = insured("skyjo", players=4, options={"target_score": 400, "setup_reveals": 6})
    killed_then_back(net)

    # killed again, just after its decryption share of a card another seat turned: the next
    # reveal needs its share again, and the table makes it from the others' partials
    def after_a_share() -> bool:
        own = [
            e
            for e in (open_frame(f, net.config) for f in net.sessions[KILLED].frames[-12:])
            if e.seat == KILLED
        ]
        return bool(own) and own[-1].kind == "shares" and not net.want_move[KILLED]

    net.pump(until=after_a_share)
    again = net.sessions[KILLED]
    secrets, frames = again.secrets(), list(again.frames)
    held = {seat: again.next_seq_of(seat) for seat in (0, 1, 2)}
    on_file = len(frames)
    vanish(net, (KILLED,))
    moves = net.moves
    net.pump(until=lambda: net.moves >= moves + 8)
    # its file: what it held, then what the others sent since, but seat 0's frames from the
    # first after its last game message before its vote (they were late: its vote, relayed by
    # the others, is held ahead of that gap, so the table's decision is not in the file)
    for seat in (1, 2):
        frames += net.sessions[seat].own_frames_from(held[seat])
    frames += before_the_vote(net.sessions[0].own_frames_from(held[0]))
    since = [open_frame(f, net.config) for f in frames[on_file:]]
    kinds = {(e.seat, e.kind) for e in since}
    assert {(1, "vacate"), (2, "vacate"), (2, "partials")} <= kinds, "the new votes and partials are in"
    assert (0, "vacate") not in kinds
    restored = Session.restore(net.config, KILLED, net.keys[KILLED], secrets, frames, recover=True)
    for seat in (0, 1, 2):
        restored.peer_holds(seat, restored.next_seq_of(KILLED))
    assert not [e for e in restored.next_events() if isinstance(e, Blamed)]
    assert restored.halted is None
    # and, two votes of three about it in, it signed no game message the table may play without it
    signed = [open_frame(f, net.config) for f in restored.data_to_send()]
    assert [(e.seq, e.kind) for e in signed if e.seat == KILLED and e.kind not in SIDE_KINDS] == []


def test_issue17_3_a_player_back_who_voted_then_was_killed_resumes_with_its_own_vote() -> None:
    # Found on real processes (benchmarks/chaos.py): p3 came back after the table played its
    # seat, then voted with the table to play p2's, and its program was killed. Reading its file
    # back, it met its own vote before the turn at which its seat was its own again: kept until
    # then, the vote was then dropped as one "recorded when we sent it" (and, counted, it would
    # have made it withdraw anew). The table's decision about p2 never came there, and it
    # blamed the seat whose partials for p2 came.
    net = insured("skyjo", players=4, options={"target_score": 400, "setup_reveals": 6})
    killed_then_back(net)
    # p2 vanishes; the table, p4 included, votes and plays its seat (with partials)
    vanish(net, (1,))
    assert net.sessions[KILLED].taken_over == {1: "vanished"}
    moves = net.moves
    net.pump(until=lambda: net.moves >= moves + 8)
    # p4's program is killed, and resumes from its file
    killed = net.sessions[KILLED]
    own = [e for e in (open_frame(f, net.config) for f in killed.frames) if e.seat == KILLED]
    assert [e.kind for e in own if e.kind in ("return", "vacate")] == ["return", "vacate"]
    restored = Session.restore(
        net.config, KILLED, net.keys[KILLED], killed.secrets(), list(killed.frames), recover=True
    )
    for seat in (0, 2):  # (p2 is gone: the `recover` timer runs out)
        restored.peer_holds(seat, restored.next_seq_of(KILLED))
    restored.timer_expired(RECOVER)
    assert not restored.recovering
    assert not [e for e in restored.next_events() if isinstance(e, Blamed)]
    assert restored.halted is None
    assert restored.stand_ins.get(1) is not None, "it knows the table plays p2"
    signed = [open_frame(f, net.config) for f in restored.data_to_send()]
    assert "withdraw" not in [e.kind for e in signed if e.seat == KILLED]


def test_issue17_3_a_player_who_voted_twice_about_a_seat_resumes_with_both_votes() -> None:
    # Found on real processes (benchmarks/chaos.py): p4 vanished, came back, and vanished again;
    # p2 voted both times, then its program was killed. Reading its file back, it kept the second
    # attempt's votes (its own among them) until the first ended, at p4's return; its own vote was
    # then dropped as one "recorded when we sent it", the second decision never came there, and it
    # blamed the seat whose batched shares (with p4's rebuilt from the escrow) it could not check.
    net = insured("skyjo", players=4, options={"target_score": 400, "setup_reveals": 6})
    killed_then_back(net)
    vanish(net, (KILLED,))  # and vanishes again: the table votes a second time
    limit = net.sessions[0].stand_ins[KILLED].limit
    moves = net.moves
    net.pump(until=lambda: net.moves >= moves + 8)
    voter = 2
    old = net.sessions[voter]
    frames = list(old.frames)
    restored = Session.restore(net.config, voter, net.keys[voter], old.secrets(), frames, recover=True)
    for seat in (0, 1):  # (p4 is gone: the `recover` timer runs out)
        restored.peer_holds(seat, restored.next_seq_of(voter))
    restored.timer_expired(RECOVER)
    assert not [e for e in restored.next_events() if isinstance(e, Blamed)]
    assert restored.halted is None
    stand_in = restored.stand_ins.get(KILLED)
    assert stand_in is not None and stand_in.limit == limit, "it knows the table plays p4 again"


def test_issue17_3_a_file_that_lost_its_relays_signs_none_anew_before_the_others_give_them_back() -> None:
    # PROTOCOL.md 10.10 with the relays of fault 1: the file lost its tail, our relays of the
    # votes with it. Relayed again before the others said what they hold of our chain, they
    # would take the numbers of the lost ones (the others hold those): equivocation.
    net, old, frames = a_relayed_vote()
    me = 0
    last_relay = max(
        i
        for i, f in enumerate(frames)
        if open_frame(f, net.config).seat == me and frame_kind(f) == "evidence"
    )
    signed_before = old.next_seq_of(me)
    lost = frames[:last_relay]  # the disk lied: our last relay and what followed are gone
    restored = Session.restore(net.config, me, net.keys[me], old.secrets(), lost, recover=True)
    assert [f for f in restored.data_to_send() if open_frame(f, net.config).seat == me] == []
    for seat in (1, 2):  # they hold our whole chain and give it back (p4 is gone)
        restored.peer_holds(seat, net.sessions[seat].next_seq_of(me))
        start = restored.missing_own()
        if start is not None:
            for frame in net.sessions[seat].chain_frames(me, start):
                restored.receive_frame(frame)
    assert not restored.recovering
    signed = [open_frame(f, net.config) for f in restored.data_to_send()]
    assert [e.seq for e in signed if e.seat == me and e.seq < signed_before] == [], (
        "a number of ours signed twice"
    )
    assert not [e for e in restored.next_events() if isinstance(e, Blamed)]


def test_issue17_3_a_player_killed_while_the_table_votes_resumes_and_replays_what_it_had_played() -> None:
    # Found on real processes (benchmarks/chaos.py): p4 was killed and resumed while the table was
    # voting to play its seat; its file held two votes of three. A vote about us holds our jobs
    # back, and the restored session's jobs had not replayed anything of its file yet: they were
    # held from the game's first job, so the turns at which other seats had come back (whose votes
    # about p4 count from there) were never reached; after twice the grace the hold lifted, p4
    # played on as itself, and blamed the holders' partials for its seat. Now the jobs replay what
    # the file holds of ours (signing nothing), and the hold applies from there.
    net = insured("skyjo", players=4, options={"target_score": 400, "setup_reveals": 6})
    moves = net.moves
    net.pump(until=lambda: net.moves >= moves + 6)
    killed = net.sessions[KILLED]
    secrets, frames = killed.secrets(), list(killed.frames)
    held = {seat: killed.next_seq_of(seat) for seat in (0, 1, 2)}
    vanish(net, (KILLED,))
    for seat in (1, 2):  # their votes reach its file; seat 0's does not (a gap before it)
        frames += net.sessions[seat].own_frames_from(held[seat])
    frames += before_the_vote(net.sessions[0].own_frames_from(held[0]))
    restored = Session.restore(net.config, KILLED, net.keys[KILLED], secrets, frames, recover=True)
    for seat in (0, 1, 2):
        restored.peer_holds(seat, restored.next_seq_of(KILLED))
    assert not restored.recovering
    assert sorted(restored.insurance.ballots.attempt(KILLED).votes) == [1, 2], "a vote about it is open"
    assert not restored.queues[KILLED], "it replayed every game message of its own the file holds"
    signed = [open_frame(f, net.config) for f in restored.data_to_send()]
    assert [(e.seq, e.kind) for e in signed if e.seat == KILLED and e.kind not in SIDE_KINDS] == []
    assert not [e for e in restored.next_events() if isinstance(e, Blamed)]
