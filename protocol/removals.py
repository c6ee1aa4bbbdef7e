"""Removing a player during a game (issue 30 point 5; PROTOCOL.md 10.9, "Removing a player").

Why it is built this way: a kick must not weaken the promise of seat insurance, that the table
never plays, nor discloses the cards of, a seat whose program is there. So a removal is the
word of *every other program*, never of fewer: on an insured table those programs together hold
every escrow share of the removed seats' keys (docs/crypto.md, "Key escrow"), so they could read
those cards anyway, and their unanimous removal gives nobody anything they could not take. One
agreement fewer decides nothing, takes nothing over and discloses nothing.

Every peer must also take the seats over at the same point of the game, although the agreements
reach each peer at its own time while the removed program goes on playing. So the removal runs
as the vote that a program vanished does (`protocol.ballots`), in two steps:

* **Agreements** (`remove` with "agree"): each agreeing seat names what it holds of the
  program's chains and consumes nothing of theirs beyond (the freeze). The first seat to agree
  proposes; the others agree on their player's word. An agreement is never automatic.
* **Answers**: once a seat holds every required agreement, the frames that count of each seat
  are the most any agreement held (the max rule); the seat confirms ("confirm") once it holds
  them. Before that it may refuse ("refuse": its player said no, took its proposal back, or the
  proposal expired on its timer). The first answer of each seat in its chain is its answer, so
  every peer holding the same frames reaches the same outcome: removed (every required seat
  confirmed) or refused (one refused), never both.

A removed program's frames beyond what counted are void (as after a vanished seat's takeover),
never a fault of it; its own peer stops, saying the table removed it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from skyjo_p2p.core.state import TableState

from . import takeover
from .ballots import AHEAD, Counts, Held, attempt_timer
from .chains import Chain
from .config import TableConfig, named_seats, seat_names
from .errors import Misbehaviour, RemovalRefused
from .events import RemovalChanged, SessionEvent, TimerRequest
from .messages import Envelope

QUIET_RETRIES = 3
"""How many more times a seat that confirmed waits for the others' answers before it stops."""
VOTE_WAITS = 4
"""How many more waits (at least) it gives the table's votes that silent seats vanished: each
vote needs every other program's own whole wait for them, and a failed attempt a new one
(`Removals.vote_waits`: enough for two whole waits for a move, the longest such wait)."""
REMOVAL_SECONDS = 60.0
"""How long an agreement stands (at least; the table's grace if longer): when it runs out before
every other program confirmed, the agreeing seat refuses, and the proposal is over everywhere."""


@dataclass
class Proposal:
    """One program's current removal attempt: its agreements and answers."""

    number: int
    proposer: int | None = None
    """The first agreement this peer counted (shown to the players; not part of the decision)."""
    votes: dict[int, Held] = field(default_factory=dict)
    """seat -> what it held of the program's chains when it agreed (its first agreement)."""
    vote_seqs: dict[int, int] = field(default_factory=dict)
    answers: dict[int, tuple[str, int]] = field(default_factory=dict)
    """seat -> its first answer ("confirm" or "refuse") and its sequence number."""
    decided: Held | None = None
    retries: int = 0
    """(Our confirmation is in) how many times our timer ran out since, waiting for the others'."""
    marks: dict[int, int] = field(default_factory=dict)
    """seat -> how many of its frames we had received when we confirmed (the proposal opened,
    when it is about us), then when our timer last ran out (what came during our last wait)."""
    silent: set[int] = field(default_factory=set)
    """Programs our timer's last expiry found silent for the whole wait before it."""
    held_off: bool = False
    """(The proposal is about our program) the others hold our frames back while it is open, so
    our waits for them are no observation of anything: until our own timer gives up."""


class Tally:
    """The agreements and answers of each program's current removal attempt, and the decisions.

    Pure bookkeeping, as `protocol.ballots.Ballots` is for the vacate votes: the same frames give
    the same outcome on every peer, whatever order they came in."""

    def __init__(self, config: TableConfig) -> None:
        self.config = config
        self.proposals: dict[int, Proposal] = {}

    def proposal(self, owner: int) -> Proposal:
        found = self.proposals.get(owner)
        if found is None:
            found = self.proposals[owner] = Proposal(0)
        return found

    def seats_of(self, owner: int) -> list[int]:
        owners = self.config.owners
        return [s for s in range(self.config.players) if owners[s] == owner]

    def required(self, owner: int, left: set[int]) -> list[int]:
        """Every seat of every other program, but those that left with their key share."""
        owners = self.config.owners
        return [s for s in range(self.config.players) if owners[s] != owner and s not in left]

    def check(self, envelope: Envelope) -> tuple[int, int, str, Held | None]:
        """A `remove` frame's program, attempt, answer and (an agreement's) holdings;
        `Misbehaviour` of its signer for one no honest peer signs."""
        signer, owner, number = envelope.seat, envelope.data["owner"], envelope.data["attempt"]
        say = envelope.data["say"]
        owners = self.config.owners
        fault = None
        if not self.config.insured:
            fault = "asked the table to remove a player, but the table is not insured"
        elif owner >= self.config.players or owners[owner] != owner:
            fault = f"asked the table to remove program {owner + 1}, which runs no seat of its own"
        elif owners[signer] == owner:
            fault = "asked the table to remove its own program"
        elif number > self.proposal(owner).number + AHEAD:
            current = self.proposal(owner).number
            fault = f"asked for a removal in attempt {number}, far beyond the table's ({current})"
        held: Held | None = None
        if fault is None and say == "agree":
            held = {seat: (count, digest) for seat, count, digest in envelope.data["held"]}
            if sorted(held) != self.seats_of(owner) or len(held) != len(envelope.data["held"]):
                fault = "an agreement to remove a player that does not list exactly its seats"
        elif fault is None and envelope.data["held"]:
            fault = f"a removal's {say} that lists seats (only an agreement does)"
        if fault is not None:
            raise Misbehaviour(signer, fault, (envelope.frame,))
        return owner, number, say, held

    def place(self, owner: int, number: int) -> str:
        """ "now" (the current attempt), "later" (one that opens here later) or "stale"."""
        current = self.proposal(owner).number
        return "now" if number == current else "later" if number > current else "stale"

    def vote(self, voter: int, owner: int, held: Held, seq: int) -> bool:
        """Record an agreement (the first of each seat, before any answer of it); True if new."""
        proposal = self.proposal(owner)
        if voter in proposal.votes or voter in proposal.answers or proposal.decided is not None:
            return False
        proposal.votes[voter] = held
        proposal.vote_seqs[voter] = seq
        if proposal.proposer is None:
            proposal.proposer = voter
        return True

    def answer(self, voter: int, owner: int, say: str, seq: int) -> bool:
        """Record an answer (the first of each seat; a confirmation only after its agreement, a
        refusal at any time); True if new."""
        proposal = self.proposal(owner)
        if voter in proposal.answers or proposal.decided is not None:
            return False
        if say == "confirm" and voter not in proposal.votes:
            return False
        proposal.answers[voter] = (say, seq)
        return True

    def counted(self, owner: int, left: set[int]) -> Held | None:
        """The frames that count of each seat once every required agreement is held (the max
        rule; the first seat in seat order with that count gives the digest)."""
        proposal = self.proposal(owner)
        if proposal.decided is not None:
            return proposal.decided
        required = self.required(owner, left)
        if not required or any(s not in proposal.votes for s in required):
            return None
        return {
            seat: max((proposal.votes[s][seat] for s in required), key=lambda held: held[0])
            for seat in self.seats_of(owner)
        }

    def refused(self, owner: int) -> bool:
        return any(say == "refuse" for say, _ in self.proposal(owner).answers.values())

    def decide(self, owner: int, left: set[int]) -> Held | None:
        """The decision, once every required seat confirmed (None until then, or for ever if one
        refused)."""
        proposal = self.proposal(owner)
        if proposal.decided is not None or self.refused(owner):
            return None
        counted = self.counted(owner, left)
        if counted is None:
            return None
        if any(proposal.answers.get(s, ("", 0))[0] != "confirm" for s in self.required(owner, left)):
            return None
        proposal.decided = counted
        return counted

    def discount(self, owner: int, counts: Counts) -> bool:
        """Forget the agreements and answers of an open attempt signed in frames that no longer
        count (their signer's seat is played by the table); True if any."""
        proposal = self.proposal(owner)
        if proposal.decided is not None:
            return False
        gone = {v for v, seq in proposal.vote_seqs.items() if not counts(v, seq)}
        gone |= {v for v, (_, seq) in proposal.answers.items() if not counts(v, seq)}
        for voter in gone:
            proposal.votes.pop(voter, None)
            proposal.vote_seqs.pop(voter, None)
            proposal.answers.pop(voter, None)
        return bool(gone)

    def close(self, owner: int) -> None:
        """The attempt is over (refused): the next one opens."""
        self.proposals[owner] = Proposal(self.proposal(owner).number + 1)


def read_later(
    session: RemovalContext, envelopes: list[Envelope], handle: Callable[[Envelope], None]
) -> None:
    """Handle the frames of a later attempt kept until it opened (removals' and votes' alike)."""
    for envelope in envelopes:
        if session.halted and session.final:
            return
        try:
            handle(envelope)
        except Misbehaviour as fault:  # (checked when it came: cannot happen)
            session.blame(fault)
            return


class RemovalContext(Protocol):
    """What removals read and change of their session (`InsuranceContext` extends it)."""

    config: TableConfig
    me: int | None
    removal_timeout: float | None
    move_timeout: float | None
    halted: str | None
    final: bool
    replaying: bool
    stepped_out: bool
    state: TableState | None
    chains: list[Chain]
    stand_ins: dict[int, takeover.StandIn]

    def report(self, event: SessionEvent) -> None: ...

    def emit(self, kind: str, data: dict[str, Any]) -> Envelope | None: ...

    def publish(self, frames: Iterable[bytes]) -> None: ...

    def want_later(self, seat: int) -> None: ...

    def stop(self, reason: str, culprit: int | None = None, absent: tuple[int, ...] = ()) -> None: ...

    def halt(
        self,
        reason: str,
        culprit: int | None = None,
        absent: tuple[int, ...] = (),
        evidence: tuple[bytes, ...] = (),
        announce: bool = True,
        left: int | None = None,
    ) -> None: ...

    def blame(self, fault: Misbehaviour, halt: bool = True) -> None: ...

    def game_over(self) -> bool: ...


class InsuranceSide(Protocol):
    """What removals ask of seat insurance (`SeatInsurance`): the freezes, the seats that left,
    which frames count, our vacate votes."""

    def refreeze(self, owner: int) -> None: ...

    def left(self) -> set[int]: ...

    def counts(self, seat: int, seq: int) -> bool: ...

    def my_vote(self, owner: int) -> Held | None: ...

    def decided(self, owner: int) -> bool: ...

    def discount(self) -> None: ...

    def received(self, seat: int) -> int: ...

    def vote(self, owner: int) -> None: ...


class Removals:
    """One session's side of removals: our agreements, answers and timers, the decisions."""

    def __init__(self, session: RemovalContext, insurance: InsuranceSide) -> None:
        self.session = session
        self.insurance = insurance
        self.config = session.config
        self.tally = Tally(session.config)
        self.later: dict[int, list[Envelope]] = {}
        """owner -> frames of a later attempt, read once it opens here."""
        self.removed: set[int] = set()
        """Programs the table removed."""
        self.foreseen: dict[int, list[Held]] = {}
        """An offline check: owner -> the removals the file holds (`foresee`)."""

    # --- what our player may do -------------------------------------------------------------

    def why_not(self, owner: int) -> RemovalRefused | None:
        """Why our player may not agree to remove program `owner` now (None: it may)."""
        session = self.session
        me = session.me
        if me is None:
            return RemovalRefused("observer", "an observer has no say in who plays")
        if not self.config.insured:
            return RemovalRefused(
                "uninsured", "the table is not insured: it could not play the removed seats on"
            )
        if session.state is None or session.game_over():
            return RemovalRefused("no-game", "a player can be removed only while the game runs")
        if session.halted or session.stepped_out or session.replaying:
            return RemovalRefused("stopped", "the game has stopped")
        owners = self.config.owners
        if not 0 <= owner < self.config.players or owners[owner] != owner:
            return RemovalRefused("unknown", f"no program runs seat {owner + 1} on its own")
        if owners[me] == owner:
            return RemovalRefused("own", "a program cannot remove itself (leave the table instead)")
        if owner in self.removed or any(s in session.stand_ins for s in self.tally.seats_of(owner)):
            return RemovalRefused("gone", "the table already plays that player's seats")
        if self.insurance.my_vote(owner) is not None or self.insurance.decided(owner):
            return RemovalRefused("vote", "a vote that this player vanished is open: wait for it")
        proposal = self.tally.proposals.get(owner)
        if proposal is not None and (me in proposal.votes or me in proposal.answers):
            return RemovalRefused("voted", "this program already answered this proposal")
        return None

    def agree(self, owner: int) -> None:
        """Our player proposes, or agrees, that the table remove program `owner` (its seats):
        sign an agreement with what we hold of its seats, and consume nothing of theirs beyond
        until the proposal is decided or over. Raises `RemovalRefused`."""
        refused = self.why_not(owner)
        if refused is not None:
            raise refused
        session = self.session
        me = session.me
        assert me is not None
        proposal = self.tally.proposal(owner)
        held: Held = {
            s: (session.chains[s].next_seq, session.chains[s].last_digest) for s in self.tally.seats_of(owner)
        }
        data = {
            "owner": owner,
            "attempt": proposal.number,
            "say": "agree",
            "held": [[s, n, d] for s, (n, d) in held.items()],
        }
        sent = session.emit("remove", data)
        if sent is None:
            raise RemovalRefused("stopped", "this program signs nothing now")
        self.tally.vote(me, owner, held, sent.seq)
        self.insurance.refreeze(owner)
        if len(proposal.votes) == 1:  # (else asked for when the first agreement came)
            self._expiry(owner)
        self._changed(owner)
        self.progress(owner)

    def refuse(self, owner: int) -> None:
        """Our player refuses the open proposal to remove `owner`, or takes its own back (only
        before it confirmed: an answer is final). Raises `RemovalRefused`."""
        session = self.session
        me = session.me
        proposal = self.tally.proposal(owner)
        if me is None or session.halted or session.replaying:
            raise RemovalRefused("stopped", "this program signs nothing now")
        if not proposal.votes or proposal.decided is not None:
            raise RemovalRefused("none", "nobody proposes to remove that player")
        if me in proposal.answers:
            raise RemovalRefused("voted", "this program already answered this proposal")
        self._answer(owner, "refuse")

    def agreed(self, owner: int) -> bool:
        """Whether our agreement about `owner` is open (we may not vote that it vanished then)."""
        me = self.session.me
        proposal = self.tally.proposals.get(owner)
        return me is not None and proposal is not None and proposal.decided is None and me in proposal.votes

    def status(self) -> list[RemovalChanged]:
        """The open proposals, one per program."""
        return [
            self._status(owner)
            for owner, p in sorted(self.tally.proposals.items())
            if p.votes and p.decided is None
        ]

    def _status(self, owner: int, outcome: str = "open") -> RemovalChanged:
        proposal = self.tally.proposal(owner)
        return RemovalChanged(
            owner,
            -1 if proposal.proposer is None else proposal.proposer,
            tuple(sorted(proposal.votes)),
            tuple(self.tally.required(owner, self.insurance.left())),
            outcome,
        )

    def _changed(self, owner: int, outcome: str = "open") -> None:
        if not self.session.replaying or outcome != "open":
            self.session.report(self._status(owner, outcome))

    # --- frames -----------------------------------------------------------------------------

    def frame(self, envelope: Envelope) -> None:
        """A `remove` frame took its place in its signer's chain."""
        session = self.session
        owner, number, say, held = self.tally.check(envelope)
        if owner in self.removed:
            return  # removed already: a late agreement (it crossed the decision) changes nothing
        place = self.tally.place(owner, number)
        if place == "stale":
            return
        if place == "later":
            self.later.setdefault(owner, []).append(envelope)
            return
        signer = envelope.seat
        if not self.insurance.counts(signer, envelope.seq):
            return  # signed while the table played the signer's seat: not the table's
        if signer != session.me:
            session.publish([envelope.frame])  # every seat must see every agreement and answer
        elif not session.replaying:
            return  # our own, recorded when we sent it
        if held is not None:
            if self.tally.vote(signer, owner, held, envelope.seq):
                me = session.me
                if me is not None and self.config.owners[me] == owner and not session.replaying:
                    # about us: what comes of the others is counted from their last agreement
                    proposal = self.tally.proposal(owner)
                    proposal.marks = {s: self.insurance.received(s) for s in range(self.config.players)}
                if signer == session.me:
                    self.insurance.refreeze(owner)
                elif len(self.tally.proposal(owner).votes) == 1:
                    self._expiry(owner)  # the proposal opens here: it expires if we do not answer
                self._changed(owner)
        else:
            self.tally.answer(signer, owner, say, envelope.seq)
        self.progress(owner)

    def progress(self, owner: int) -> None:
        """Confirm when we can; decide when every answer is in; end a refused attempt."""
        session = self.session
        if session.halted and session.final:
            return
        proposal = self.tally.proposal(owner)
        if proposal.decided is not None or not (proposal.votes or proposal.answers):
            return  # (nothing was proposed in this attempt)
        me = session.me
        left = self.insurance.left()
        if (
            me is not None
            and me in proposal.votes
            and me not in proposal.answers
            and not session.replaying
            and not session.halted
        ):
            counted = self.tally.counted(owner, left)
            if counted is not None:
                lacking = [s for s, (count, _) in counted.items() if session.chains[s].next_seq < count]
                for seat in lacking:
                    session.want_later(seat)  # another seat held them when it agreed
                if not lacking:
                    self._answer(owner, "confirm")
                    return
        if self.tally.refused(owner) or self._orphaned(owner, proposal, left):
            self._over(owner)
            return
        decision = self.tally.decide(owner, left)
        if decision is not None:
            self._decided(owner, decision)

    def _orphaned(self, owner: int, proposal: Proposal, left: set[int]) -> bool:
        """Whether a required seat is played by the table (its program vanished) and none of the
        frames the table counts of it answered: it cannot confirm, so the attempt is over. Only
        once we hold every counted frame of that seat, so every peer finds the same."""
        session = self.session
        for seat in self.tally.required(owner, left):
            stand_in = session.stand_ins.get(seat)
            if stand_in is None or stand_in.how != "vanished" or seat in proposal.answers:
                continue
            if session.chains[seat].next_seq >= stand_in.limit:
                return True
        return False

    def appended(self) -> None:
        """A frame was accepted: it may be one a confirmation waited for, or the last counted
        frame of a seat the table plays."""
        proposals = self.tally.proposals
        if not proposals:  # (asked at every frame: the common answer)
            return
        for owner, proposal in list(proposals.items()):
            if proposal.votes and proposal.decided is None:
                self.progress(owner)

    def resumed(self) -> None:
        """After a restore: ask again for the timers of our open agreements, answer what we can."""
        for owner, proposal in list(self.tally.proposals.items()):
            if proposal.votes and proposal.decided is None:
                self._expiry(owner)
                self.progress(owner)

    def wait(self) -> float:
        """How long an agreement stands: `REMOVAL_SECONDS`, or the table's grace if longer,
        unless the session was given its own `removal_timeout` (tests)."""
        if self.session.removal_timeout is not None:
            return self.session.removal_timeout
        return max(REMOVAL_SECONDS, float(self.config.grace_seconds))

    def vote_waits(self) -> int:
        """How many more of our waits (`wait`) we give the votes about silent seats: `VOTE_WAITS`,
        or enough for another program's two whole waits for a move and a vote's grace (a program
        waiting for the silent one's move votes only after those)."""
        move = self.session.move_timeout or 0.0
        needed = (2 * move + 2 * float(self.config.grace_seconds)) / self.wait()
        return max(VOTE_WAITS, math.ceil(needed) + 1)

    def _expiry(self, owner: int) -> None:
        """Ask for the timer after which our program refuses a proposal it did not answer (a
        seat of every other program), or, the proposal being about our own program, after which
        it looks at who has not answered (`timer`)."""
        me = self.session.me
        if me is None or self.session.replaying:
            return
        proposal = self.tally.proposal(owner)
        if self.config.owners[me] == owner:
            proposal.marks = {s: self.insurance.received(s) for s in range(self.config.players)}
            proposal.held_off = True
        elif me not in self.tally.required(owner, self.insurance.left()):
            return
        seconds = self.wait()
        self.session.report(TimerRequest(f"remove:{owner}:{self.tally.proposal(owner).number}", seconds))

    def _answer(self, owner: int, say: str) -> None:
        session = self.session
        proposal = self.tally.proposal(owner)
        data = {"owner": owner, "attempt": proposal.number, "say": say, "held": []}
        sent = session.emit("remove", data)
        if sent is None or session.me is None:
            return
        self.tally.answer(session.me, owner, say, sent.seq)
        if say == "confirm":  # (what comes of the others from now on: `_vote_on_silent`)
            proposal.marks = {s: self.insurance.received(s) for s in range(self.config.players)}
        self.progress(owner)

    def _over(self, owner: int) -> None:
        """A seat refused: the attempt is over everywhere; freezes lifted, the next one opens."""
        self._changed(owner, "refused")
        self.tally.close(owner)
        self.insurance.refreeze(owner)
        read_later(self.session, self.later.pop(owner, []), self.frame)

    def _decided(self, owner: int, counted: Held) -> None:
        """Every other program confirmed: the table plays the program's seats from what counted,
        as after a vanished seat's takeover; the removed program's own peer stops."""
        session = self.session
        self.removed.add(owner)
        foreseen = self.foreseen.get(owner)
        if foreseen:
            foreseen.pop(0)
        self._changed(owner, "removed")
        me = session.me
        if me is not None and self.config.owners[me] == owner:
            if not session.replaying:
                who = seat_names(self.config)[owner]
                session.halt(
                    f"the table removed {who}: every other player agreed, and the table plays on "
                    "without this program",
                    announce=False,
                )
            return
        for seat, (count, _) in counted.items():
            if seat not in session.stand_ins:
                session.stand_ins[seat] = takeover.StandIn(
                    seat,
                    "vanished",
                    b"",
                    takeover.common_bot(self.config.session_id, self.config.game, seat),
                    limit=count,
                    removed=True,
                )
            if session.chains[seat].next_seq < count:
                session.want_later(seat)
        self.insurance.refreeze(owner)
        self.insurance.discount()

    def discount(self) -> None:
        """Agreements and answers signed by seats the table now plays, beyond what it counted,
        count nowhere."""
        for other in list(self.tally.proposals):
            if self.tally.discount(other, self.insurance.counts):
                self.insurance.refreeze(other)
            self.progress(other)

    # --- freezes, timers, observers, offline checks ----------------------------------------

    def freeze(self, owner: int) -> Held | None:
        """What limits our consumption of the program's seats: our own open agreement, else (an
        offline check) the next removal the file holds."""
        me = self.session.me
        proposal = self.tally.proposals.get(owner)
        if me is not None and proposal is not None and proposal.decided is None and me in proposal.votes:
            return proposal.votes[me]
        foreseen = self.foreseen.get(owner)
        return foreseen[0] if foreseen else None

    def timer_needed(self, name: str) -> bool:
        parsed = attempt_timer(name)
        if parsed is None:
            return False
        proposal = self.tally.proposal(parsed[0])
        return proposal.number == parsed[1] and proposal.decided is None

    def timer(self, name: str) -> None:
        """`remove:<owner>:<attempt>` ran out before the decision: the proposal expires for us
        (we refuse it, whether we agreed or not: our player did not answer, or not every other
        did in time). Once we confirmed (an answer is final), we wait for the others' answers
        `QUIET_RETRIES` more times (the program the proposal is about waits as long, without
        answering; meanwhile the others hold its frames back on purpose, so its own waits for
        them do not run out: `held_off`). A program that did not answer and sent us nothing at all
        during a whole wait is gone (its lid closed right after it agreed): we vote that it
        vanished, as at the end of any whole wait for it, and wait on while the vote may decide
        (`vote_waits`); once the table plays its seats, what it counted of them decides the
        proposal (`_orphaned`). Otherwise we stop, naming absent the seats that did not answer
        (a seat that agreed and never answers would hold the table frozen); the program the
        proposal is about just waits as usual again."""
        parsed = attempt_timer(name)
        if parsed is None or not self.timer_needed(name):
            return
        session = self.session
        owner = parsed[0]
        me = session.me
        proposal = self.tally.proposal(owner)
        if me is None or session.halted or not proposal.votes:
            return
        required = self.tally.required(owner, self.insurance.left())
        target = self.config.owners[me] == owner
        if not target and me not in required:
            return
        if not target and me not in proposal.answers:
            self._answer(owner, "refuse")
            return
        absent = tuple(s for s in required if s not in proposal.answers)[:8]
        voting = self._vote_on_silent(proposal, absent)
        proposal.marks = {s: self.insurance.received(s) for s in range(self.config.players)}
        more = self.vote_waits() if voting else 0
        if proposal.retries < QUIET_RETRIES + more:
            proposal.retries += 1
            session.report(TimerRequest(name, self.wait()))
            return
        if target:
            proposal.held_off = False  # the others' own timers end the proposal; we wait as usual
            return
        who = named_seats(self.config, absent)
        session.stop(f"{who} did not answer in time (the table could not agree on a removal)", absent=absent)

    def _vote_on_silent(self, proposal: Proposal, absent: tuple[int, ...]) -> bool:
        """Vote that the programs of `absent` vanished when nothing of theirs came during our last
        whole wait (since our confirmation, or our timer's last expiry): our own observation, as
        at the end of any whole wait for them (PROTOCOL.md 10.9), and again after a failed
        attempt. True while the table may still play one of them: our vote about it is open, or
        the table decided to play it (what it counted then decides the proposal)."""
        owners = self.config.owners
        voting = False
        proposal.silent = set()
        for program in sorted({owners[s] for s in absent}):
            seats = self.tally.seats_of(program)
            if any(self.insurance.received(s) > proposal.marks.get(s, 0) for s in seats):
                continue  # something of it came: it is there
            proposal.silent.add(program)
            if self.insurance.decided(program):
                voting = True
                continue
            if self.insurance.my_vote(program) is None:
                self.insurance.vote(program)
            voting = voting or self.insurance.my_vote(program) is not None
        return voting

    def vote_seen(self, program: int) -> None:
        """Another seat voted that `program` vanished. If our timer's last expiry found it silent
        for the whole wait before, and nothing of it came since, that is our own observation too:
        we vote now rather than at our next expiry (two observers' timers need not be in phase,
        and a vote that waits a whole wait for the other is withdrawn first)."""
        session = self.session
        if session.me is None or session.replaying or session.halted:
            return
        for proposal in self.tally.proposals.values():
            if not proposal.votes or proposal.decided is not None or program not in proposal.silent:
                continue
            seats = self.tally.seats_of(program)
            if any(self.insurance.received(s) > proposal.marks.get(s, 0) for s in seats):
                continue
            if self.insurance.my_vote(program) is None and not self.insurance.decided(program):
                self.insurance.vote(program)
            return

    def held_off(self) -> bool:
        """Whether a proposal to remove our own program is open and our timer for it still runs:
        the others consume nothing of ours beyond what they held when they agreed, so a wait of
        ours for them is no sign that they are gone (`SeatInsurance.wait_ran_out`)."""
        me = self.session.me
        if me is None:
            return False
        proposal = self.tally.proposals.get(self.config.owners[me])
        if proposal is None or not proposal.held_off:
            return False
        return bool(proposal.votes) and proposal.decided is None

    def paused(self) -> bool:
        """(A live observer) whether a proposal is open: what it consumes may be frames the table
        will not count, so it waits for the outcome."""
        return any(p.votes and p.decided is None for p in self.tally.proposals.values())

    def foresee(self, envelopes: Iterable[Envelope], left: set[int]) -> None:
        """An offline check: the file's removals are known before any frame is fed, so that the
        removed seats' frames the table did not count are never consumed."""
        tally = Tally(self.config)
        found: dict[int, list[Held]] = {}
        for envelope in envelopes:
            if envelope.kind != "remove":
                continue
            try:
                owner, number, say, held = tally.check(envelope)
            except Misbehaviour:
                continue  # found again, and blamed, when the frame is fed
            while tally.proposal(owner).number < number:
                tally.close(owner)
            if tally.proposal(owner).number != number:
                continue
            if held is not None:
                tally.vote(envelope.seat, owner, held, envelope.seq)
            else:
                tally.answer(envelope.seat, owner, say, envelope.seq)
            if tally.refused(owner):
                tally.close(owner)
                continue
            decision = tally.decide(owner, left)
            if decision is not None:
                found.setdefault(owner, []).append(decision)
        self.foreseen = found


__all__ = [
    "QUIET_RETRIES",
    "REMOVAL_SECONDS",
    "VOTE_WAITS",
    "InsuranceSide",
    "Proposal",
    "RemovalContext",
    "Removals",
    "Tally",
]
