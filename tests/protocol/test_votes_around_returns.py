"""Votes about a program around a `return` (issue 17, point 3; PROTOCOL.md 10.9).

Two faults, one found by the fault soak on real programs (`benchmarks/chaos.py`), one by a
scenario written while looking for its cousins:

* a player back from a closed lid (SIGSTOP) received the votes of two seats and their upholds, but
  not the host's vote: the host had finished the game and left, and its vote was held behind a
  gap of its chain. Twice the grace later the hold lifted (PROTOCOL.md 10.9: a lone vote must not
  hold a present player for ever); the player played on as itself and named a cheat the seat
  whose partials for its seat came next;
* a player came back (its `return` signed) and, before its next turn gave it its seat back,
  another program vanished. The game waited for that program, so the returned player's turn never
  came; its vote about the vanished program was kept until then, so the table could never decide:
  it voted and withdrew for ever, the game stuck. Played by the table, the vanished program's
  seat would need its share of the returned player's key anyway: now the returned player does not
  vote about it, the table waits for it (if it comes back, the game goes on), and after a few
  attempts the others stop the game naming it absent.

Every scenario runs in the loopback harness (`tests.protocol.harness`), deterministically.
"""

from __future__ import annotations

from protocol.events import Blamed, Halted, SeatReturned
from protocol.insurance import MAX_WATCH_RESTARTS
from protocol.messages import Envelope, open_frame

from .harness import Net
from .test_rebuild_after_returns import resend
from .test_seat_insurance import come_back, events, finish, insured, vanish, verdict_of

LID, BACK, GONE = 1, 2, 3


def _opened(net: Net, seat: int) -> list[Envelope]:
    return [open_frame(f, net.config) for f in net.sessions[seat].frames]


def _votes_about(net: Net, seat: int, owner: int) -> list[tuple[int, str]]:
    kinds = ("vacate", "uphold", "withdraw")
    return [(e.seat, e.kind) for e in _opened(net, seat) if e.kind in kinds and e.data["owner"] == owner]


def test_issue17_3_a_player_back_from_a_lid_missing_a_vote_waits_and_blames_no_holder() -> None:
    net = insured("skyjo", players=4, options={"target_score": 120, "setup_reveals": 6})
    # the lid closes: nothing in or out; the table votes, plays the seat, and plays on
    lid = [True]
    net.filter = lambda s, r, f: [] if lid and LID in (s, r) else [f]
    others = [0, 2, 3]
    net.pump()
    # a chat of the host's, after its last game message: nobody relays it to the seat they wait
    # for (it needs no chat to play), so the host's vote, after it, reaches the player only
    # behind that gap, relayed by the others
    net.sessions[0].send_chat("is the lid closed?")
    net.collect(0)

    def taken() -> bool:
        return all(LID in net.sessions[s].stand_ins for s in others)

    net.fire_timers(others, prefix="job:", until=taken)
    assert taken(), "the table plays the seat"
    moves = net.moves
    net.pump(until=lambda: net.moves >= moves + 30)
    # the lid opens; seats 3 and 4 send what it lacks, the host's frames never come (it left)
    lid.clear()
    net.filter = lambda s, r, f: [] if (s, r) == (0, LID) or s == LID else [f]
    for other in (2, 3):
        for frame in net.sessions[other].own_frames_from(net.sessions[LID].next_seq_of(other)):
            net.put(other, LID, frame)
    net.run()
    session = net.sessions[LID]
    attempt = session.insurance.ballots.attempt(LID)
    assert sorted(attempt.votes) == [2, 3] and attempt.decided is None, "the host's vote is missing"
    assert session.insurance.paused(), "a vote about it holds its jobs back"
    played = session.consumed_upto[LID]
    # its timers run out, again and again: twice the grace and more
    for _ in range(12):
        net.fire_timers([LID])
        if session.halted:
            break
    assert not attempt.lifted, "two seats upheld: the vote holds it until the decision reaches it"
    assert not [e for e in net.events[LID] if isinstance(e, Blamed)], "no holder named a cheat"
    assert session.halted is not None and "cut off" in session.halted, session.halted
    assert session.consumed_upto[LID] == played, "it never played on as itself"


def _gone_while_back_waits() -> Net:
    """BACK's program vanished, the table played its seat, and it came back (its `return` is
    signed and read everywhere); before its next turn gives it its seat back, GONE's lid closes.
    GONE holds a share of BACK's key: played by the table, GONE's seat would need it, and the
    table could not open BACK's cards until BACK is back, which the game, waiting for GONE,
    never reaches."""
    net = insured("skyjo", players=4, options={"target_score": 120, "setup_reveals": 6})
    vanish(net, (BACK,))
    moves = net.moves
    net.pump(until=lambda: net.moves >= moves + 4)
    net.silent.add(GONE)
    net.filter = lambda s, r, f: [] if GONE in (s, r) else [f]
    come_back(net, BACK)
    net.silent.add(GONE)
    net.pump()
    assert (BACK, "return") in [(e.seat, e.kind) for e in _opened(net, 0)], "BACK signed its return"
    assert all(BACK in net.sessions[s].stand_ins for s in range(4)), "BACK waits for its turn"
    return net


def test_issue17_3_a_player_back_does_not_vote_out_a_program_holding_its_key_and_the_game_waits() -> None:
    net = _gone_while_back_waits()
    # one whole wait of the others, their votes, then their votes' time: they withdraw (BACK did
    # not vote), and vote again at their next wait
    net.fire_timers([0, 1, BACK], prefix="job:", until=lambda: bool(_votes_about(net, 0, GONE)))
    net.fire_timers([0, 1], prefix="vacate:")
    votes = _votes_about(net, 0, GONE)
    assert (0, "withdraw") in votes and (1, "withdraw") in votes, votes
    assert not [v for v in votes if v[0] == BACK], "BACK does not vote about a program holding its key"
    assert not any(GONE in net.sessions[s].stand_ins for s in range(4)), "nobody plays GONE's seat"
    # GONE's lid opens: the game goes on, BACK takes its seat back at its turn, the game ends
    net.silent.discard(GONE)
    net.filter = None
    resend(net, GONE)
    finish(net, [0, 1, BACK, GONE])
    for seat in range(4):
        assert net.sessions[seat].halted is None, net.sessions[seat].halted
        assert not events(net, seat, Blamed)
        assert events(net, seat, SeatReturned), "BACK is back everywhere"
    verdict = verdict_of(net, 0)
    assert verdict.valid and verdict.finished


def test_issue17_3_a_program_gone_while_a_player_back_waits_for_its_turn_is_named_absent() -> None:
    net = _gone_while_back_waits()
    voters = [0, 1, BACK]
    for _ in range(12):  # GONE never comes back
        net.fire_timers(voters)
        if all(net.sessions[s].halted for s in voters):
            break
    for seat in voters:
        halted = net.sessions[seat].halted or ""
        assert "did not come back in time" in halted and "waits for its turn" in halted, halted
        assert GONE not in net.sessions[seat].stand_ins, "the table never played GONE's seat"
        assert not events(net, seat, Blamed)
    assert [e.absent for e in events(net, 0, Halted)][-1:] == [(GONE,)]
    # a bounded wait: a few attempts, not a vote and a withdrawal for ever
    votes = _votes_about(net, 0, GONE)
    assert not [v for v in votes if v[0] == BACK]
    assert len([v for v in votes if v[1] == "vacate"]) <= 2 * (MAX_WATCH_RESTARTS + 1), votes
