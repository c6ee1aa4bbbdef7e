"""Issue 30 point 5: removing a player during a game (PROTOCOL.md 10.9, "Removing a player").

A kick must not weaken the trust promise: only every other program together can decide it (they
hold every escrow share of the removed seats' keys, so they could read those cards anyway). One
agreement fewer takes nothing over and discloses no card; a removed program's later frames are
void, never a fault of it.

Deterministic, in the loopback harness: no timer fires unless a test fires it."""

from __future__ import annotations

import types
from typing import Any

import pytest

from protocol.errors import RemovalRefused
from protocol.events import Halted, RemovalChanged, SeatTakenOver
from protocol.loopback import Loopback
from protocol.messages import open_frame, seal
from protocol.removals import REMOVAL_SECONDS
from protocol.session import Session
from protocol.takeover import undisclosed

from .harness import Net
from .test_seat_insurance import GAMES, assert_played_to_the_end, events, finish, insured, verdict_of

KICKED = 2


def table(game: str = "skyjo", players: int = 3, **kw: Any) -> Net:
    net = insured(game, players, moves=6, **kw)
    # a seat's bot moves whenever it was asked to and may (the harness's default looks only at
    # the last few events, which the proposals' own events push out)
    net.wants_move = types.MethodType(Loopback.wants_move, net)  # type: ignore[method-assign]
    return net


def say(net: Net, seat: int, owner: int = KICKED, agree: bool = True) -> None:
    """`seat`'s player proposes or agrees (or refuses) that the table remove program `owner`."""
    net.call(seat, net.sessions[seat].remove_player, owner, agree)


def nobody_blamed(net: Net) -> None:
    for seat in range(net.players):
        assert not net.blamed(seat), (seat, net.blamed(seat))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_issue30_5_every_other_program_removes_a_present_player(game: str) -> None:
    net = table(game)
    others = [0, 1]
    say(net, 0)
    net.pump(play=False)
    seen = events(net, 1, RemovalChanged)
    assert seen and seen[-1].owner == KICKED and seen[-1].proposer == 0 and seen[-1].agreed == (0,)
    assert seen[-1].needed == (0, 1) and seen[-1].outcome == "open"
    assert any(e.owner == KICKED for e in events(net, KICKED, RemovalChanged)), "the kicked one sees it"
    assert not net.sessions[0].taken_over and not net.sessions[1].taken_over
    say(net, 1)
    net.pump(until=lambda: all(net.sessions[s].taken_over for s in others))
    for seat in others:
        assert [(e.seat, e.how) for e in events(net, seat, SeatTakenOver)] == [(KICKED, "removed")]
        assert events(net, seat, RemovalChanged)[-1].outcome == "removed"
    finish(net, others)
    assert_played_to_the_end(net, others, {KICKED: "removed"})
    halts = events(net, KICKED, Halted)
    assert halts and "the table removed p2" in halts[-1].reason, halts
    assert halts[-1].culprit is None and halts[-1].absent == ()
    nobody_blamed(net)
    said = verdict_of(net, 0).seat_events
    assert "seats 1, 2 removed program 3 from the game (all agreed)" in said, said


def test_issue30_5_one_agreement_fewer_takes_nothing_over_and_discloses_nothing() -> None:
    net = table("skyjo", 4)
    others = [0, 1, 3]
    say(net, 0)
    say(net, 1)
    net.pump(play=False)
    known = [undisclosed(net.sessions[s].state, KICKED) for s in others]  # type: ignore[arg-type]
    # seat 3's player never agrees: the agreements run out (their timers) and the game goes on
    net.fire_timers([0, 1], prefix="remove:")
    net.pump(play=False)
    for seat in range(net.players):
        assert events(net, seat, RemovalChanged)[-1].outcome == "refused"
        assert not net.sessions[seat].taken_over and not net.sessions[seat].insurance.frozen
    assert [undisclosed(net.sessions[s].state, KICKED) for s in others] == known  # type: ignore[arg-type]
    finish(net, list(range(net.players)))
    assert_played_to_the_end(net, list(range(net.players)), {})
    assert not any(events(net, s, SeatTakenOver) for s in range(net.players))


def test_issue30_5_a_refusal_ends_the_proposal_everywhere_and_a_new_one_may_follow() -> None:
    net = table("skyjo", 3)
    say(net, 0)
    net.pump(play=False)
    say(net, 1, agree=False)  # "n"
    net.pump(play=False)
    for seat in range(net.players):
        assert events(net, seat, RemovalChanged)[-1].outcome == "refused"
        assert not net.sessions[seat].taken_over
    # the next attempt: both agree this time
    say(net, 1)
    net.pump(play=False)
    say(net, 0)
    net.pump(until=lambda: all(net.sessions[s].taken_over for s in (0, 1)))
    finish(net, [0, 1])
    assert_played_to_the_end(net, [0, 1], {KICKED: "removed"})
    nobody_blamed(net)


def test_issue30_5_what_a_player_may_not_propose_is_refused_with_a_reason() -> None:
    net = table("skyjo", 3)
    codes = []
    for owner in (0, 9):
        with pytest.raises(RemovalRefused) as refused:
            net.sessions[0].remove_player(owner)
        codes.append(refused.value.code)
    assert codes == ["own", "unknown"]
    with pytest.raises(RemovalRefused) as refused:
        net.sessions[0].remove_player(KICKED, agree=False)
    assert refused.value.code == "none"
    say(net, 0)
    with pytest.raises(RemovalRefused) as refused:
        net.sessions[0].remove_player(KICKED)
    assert refused.value.code == "voted"
    uninsured = insured("skyjo", moves=2, insure=False)
    with pytest.raises(RemovalRefused) as refused:
        uninsured.sessions[0].remove_player(KICKED)
    assert refused.value.code == "uninsured" and not uninsured.sessions[0].data_to_send()
    lobby = Net("skyjo", 3, GAMES["skyjo"], table={"insured": True})
    with pytest.raises(RemovalRefused) as refused:
        lobby.sessions[0].remove_player(KICKED)
    assert refused.value.code == "no-game"
    observed = insured("skyjo", moves=2, observers=1)
    with pytest.raises(RemovalRefused) as refused:
        observed.observers[0].remove_player(KICKED)
    assert refused.value.code == "observer"
    # a program whose seats a bot shares (owners: seat 3 is seat 0's bot) is one program
    owned = insured("skyjo", 4, moves=2, owners=[0, 1, 2, 0])
    with pytest.raises(RemovalRefused) as refused:
        owned.sessions[1].remove_player(3)
    assert refused.value.code == "unknown"
    with pytest.raises(RemovalRefused) as refused:
        owned.sessions[0].remove_player(0)
    assert refused.value.code == "own"


def _sign(net: Net, seat: int, kind: str, data: dict[str, Any]) -> bytes:
    """A frame `seat`'s session would never sign, validly signed and next in its chain."""
    session = net.sessions[seat]
    chain = session.chains[seat]
    envelope = seal(net.config, net.keys[seat], seat, chain.next_seq, chain.last_digest, kind, data, [])
    chain.next_seq += 1
    chain.last_digest = envelope.digest
    session.frames.append(envelope.frame)
    return envelope.frame


def _send(net: Net, seat: int, frame: bytes) -> None:
    for other in range(net.players):
        if other != seat:
            net.put(seat, other, frame)


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ({"owner": 1, "attempt": 0, "say": "agree", "held": []}, "its own program"),
        ({"owner": 0, "attempt": 0, "say": "agree", "held": [[2, 0, bytes(32)]]}, "exactly its seats"),
        ({"owner": 0, "attempt": 0, "say": "confirm", "held": [[0, 0, bytes(32)]]}, "only an agreement"),
        ({"owner": 0, "attempt": 99, "say": "refuse", "held": []}, "far beyond"),
    ],
)
def test_issue30_5_a_signed_nonsense_removal_blames_its_signer(data: dict[str, Any], why: str) -> None:
    net = table("skyjo", 3)
    _send(net, 1, _sign(net, 1, "remove", data))
    net.pump(play=False)
    for seat in (0, 2):
        blamed = net.blamed(seat)
        assert blamed and {b.seat for b in blamed} == {1} and why in blamed[0].reason, blamed


def test_issue30_5_a_forged_agreement_is_refused_and_decides_nothing() -> None:
    net = table("skyjo", 3)
    say(net, 0)
    net.pump(play=False)
    # seat 0 forges seat 1's agreement (signed with seat 0's key): nobody signed it, so it is refused
    victim = net.sessions[1].chains[1]
    held = [[KICKED, net.sessions[0].next_seq_of(KICKED), net.sessions[0].chains[KICKED].last_digest]]
    forged = seal(
        net.config, net.keys[0], 1, victim.next_seq, victim.last_digest, "remove",
        {"owner": KICKED, "attempt": 0, "say": "agree", "held": held}, [],
    )  # fmt: skip
    net.put(1, 0, forged.frame)
    net.put(1, KICKED, forged.frame)
    net.pump(play=False)
    assert net.rejected(0) and net.rejected(KICKED)
    assert not net.sessions[0].taken_over and not net.blamed(0) and not net.blamed(KICKED)
    assert events(net, 0, RemovalChanged)[-1].agreed == (0,)


def test_issue30_5_the_removed_programs_later_frames_are_void_and_never_blamed() -> None:
    net = table("skyjo", 3)
    say(net, 0)
    say(net, 1)
    kicked: Session = net.sessions[KICKED]
    net.pump(until=lambda: all(net.sessions[s].taken_over for s in (0, 1)) and bool(kicked.halted))
    assert kicked.halted
    # the removed program signs on anyway (it had not heard yet, or it is modified): a game frame
    # that would be a fault if it counted, a vote and an agreement about others
    job = net.sessions[0]._job_number
    _send(net, KICKED, _sign(net, KICKED, "shares", {"job": job, "batch": [], "private": []}))
    held = [[0, kicked.next_seq_of(0), kicked.chains[0].last_digest]]
    _send(net, KICKED, _sign(net, KICKED, "remove", {"owner": 0, "attempt": 0, "say": "agree", "held": held}))
    _send(net, KICKED, _sign(net, KICKED, "vacate", {"owner": 1, "attempt": 0, "held": [[1, 0, bytes(32)]]}))
    _send(net, KICKED, _sign(net, KICKED, "return", {}))
    finish(net, [0, 1])
    assert_played_to_the_end(net, [0, 1], {KICKED: "removed"})
    for seat in (0, 1):
        assert not net.blamed(seat)
        assert not [e for e in events(net, seat, RemovalChanged) if e.owner == 0]
    verdict = verdict_of(net, 0)
    assert verdict.valid and verdict.fault is None, verdict


def test_issue30_5_a_proposer_that_vanishes_leaves_nothing_frozen() -> None:
    # seat 1 proposes to remove seat 2, then its player presses Ctrl-C: the table plays seat 1,
    # which can no longer confirm, so the proposal is over everywhere and seat 2 plays on
    net = table("skyjo", 3)
    say(net, 1)
    net.pump(play=False)
    assert net.sessions[1].step_out()
    net.collect(1)
    net.silent.add(1)
    net.pump(until=lambda: bool(net.sessions[0].taken_over) and bool(net.sessions[2].taken_over))
    for seat in (0, 2):
        assert events(net, seat, RemovalChanged)[-1].outcome == "refused"
        assert net.sessions[seat].taken_over == {1: "vanished"}
    finish(net, [0, 2])
    assert_played_to_the_end(net, [0, 2], {1: "vanished"})
    nobody_blamed(net)


def test_issue30_5_a_session_given_a_removal_timeout_asks_for_that_wait() -> None:
    """The proposal's timer is the rule's (a minute, or the grace if longer) unless the session
    is given its own wait (the client's $SKYJO_LAN_REMOVAL_TIMEOUT; the pty test uses it)."""

    def short(config: Any, seat: int, key: Any) -> Session:
        return Session(config, seat, key, removal_timeout=8.0)

    for factory, wanted in ((short, 8.0), (None, None)):
        net = table(factory=factory)
        say(net, 0)
        net.pump(play=False)
        for seat in (0, 1):
            asked = [t.seconds for t in net.timers[seat] if t.name.startswith("remove:")]
            rule = max(REMOVAL_SECONDS, float(net.config.grace_seconds))
            assert asked == [wanted if wanted is not None else rule], (seat, asked)


# --- a removal and a vanished program at once ------------------------------------------------------


def _is_confirmation(frame: bytes, net: Net, signer: int) -> bool:
    envelope = open_frame(frame, net.config)
    return envelope.seat == signer and envelope.kind == "remove" and envelope.data["say"] == "confirm"


def _removal_with_a_lost_confirmation(reached: tuple[int, ...]) -> Net:
    """Four programs; 0, 1 and 3 agree to remove program 2. Seat 3's links to the seats not in
    `reached` are cut from its confirmation on (that frame and every later one are lost, as on a
    link that failed), then seat 3's program vanishes. Only the removal's own timers run out (no
    game wait): the table votes on what of seat 3 counts."""
    net = table("skyjo", 4)
    cut: set[int] = set()

    def route(sender: int, receiver: int, frame: bytes) -> list[bytes]:
        if sender == 3 and receiver not in reached and _is_confirmation(frame, net, 3):
            cut.add(receiver)
        return [] if sender == 3 and receiver in cut else [frame]

    net.route = route
    say(net, 0)
    say(net, 1)
    net.pump(play=False)
    say(net, 3)
    net.pump(play=False)
    assert any(_is_confirmation(frame, net, 3) for sender, frame in net.sent if sender == 3), "3 confirmed"
    assert cut == {0, 1, KICKED} - set(reached)
    net.silent.add(3)
    net.pump()
    # seats 0 and 1 wait for seat 3's answer, seat 2 for the proposal about it to end: their
    # removal timers run out; seat 3 sent nothing during a whole wait, so each votes it vanished
    near = (0, 1, KICKED)
    voted = lambda: all(net.sessions[s].insurance.my_vote(3) is not None for s in near)  # noqa: E731
    net.fire_timers(list(near), prefix="remove:", until=voted)
    net.fire_timers(list(near), prefix="vacate:", until=lambda: bool(net.sessions[0].taken_over))
    net.pump()
    return net


def test_issue30_5_a_confirmation_nobody_received_before_its_signer_vanished_removes_nobody() -> None:
    # seat 3 signed its confirmation, but the frames the table counts of it (the vote's max rule)
    # end before it: it never answered there, so the proposal is over on every peer, the same way
    net = _removal_with_a_lost_confirmation(reached=())
    others = [0, 1, KICKED]
    for seat in others:
        assert net.sessions[seat].taken_over == {3: "vanished"}, (seat, net.sessions[seat].taken_over)
        assert events(net, seat, RemovalChanged)[-1].outcome == "refused"
        # (seat 3 stays frozen where the table plays it)
        assert KICKED not in net.sessions[seat].insurance.frozen
    finish(net, others)
    assert_played_to_the_end(net, others, {3: "vanished"})
    nobody_blamed(net)


def test_issue30_5_a_confirmation_one_peer_received_before_its_signer_vanished_counts_everywhere() -> None:
    # seat 0 holds seat 3's confirmation, seat 1 does not: seat 1 is given the frame (seat 0 held
    # it when it confirmed) and reaches the same decision, program 2 removed
    net = _removal_with_a_lost_confirmation(reached=(0,))
    others = [0, 1]
    for seat in others:
        seen = [e for e in events(net, seat, RemovalChanged) if e.owner == KICKED]
        assert seen[-1].outcome == "removed" and seen[-1].agreed == (0, 1, 3), (seat, seen[-1])
    assert net.sessions[KICKED].halted
    # seat 3 is gone too, and program 2, which holds a share of seat 3's key, was removed: the
    # table cannot play seat 3 (PROTOCOL.md 10.9), so the game stops naming it, blaming nobody
    net.silent.add(KICKED)
    net.fire_timers(others, until=lambda: all(net.sessions[s].halted for s in others))
    for seat in others:
        halts = net.halted(seat)
        assert halts and 3 in halts[-1].absent and halts[-1].culprit is None, (seat, halts)
    nobody_blamed(net)
