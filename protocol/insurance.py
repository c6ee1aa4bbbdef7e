"""Seat insurance (PROTOCOL.md 10.9): when the table may play the seats of a program that
stopped answering, and when the player gets them back.

Why it is built this way: the table must never play (and so disclose the cards of) a seat whose
player is there, yet every peer must take a vanished seat over at the same point of the game,
although each peer's timers run out at their own time and links fail one at a time. So:

* **A vote is an observation.** A peer votes about a program (`vacate`) only when its *own* wait
  for one of its seats ran out with no frame of that program arriving for the whole wait
  (`Session` checks this). A vote received is relayed, never a reason to vote.
* **An attempt needs everyone.** Votes are numbered by *attempt* (per program). Once a voter holds
  every other program's vote of the attempt, the frames that count of each seat are the most any
  voter held (the max rule), and the voter *upholds* (`uphold`) or *withdraws* (`withdraw`): it
  withdraws when it holds a frame of the program signed after the votes (one beyond what they
  counted, or one that acknowledges a vote: the seat saw the vote, so it is there). The table
  plays the seats only when every required voter upheld. The first answer of each voter in its
  chain is its answer, so every peer holding the answers reaches the same decision, and one
  withdrawal ends the attempt everywhere (the next vote opens the next attempt).
* **Votes the table does not count do not count**: a vote, uphold or withdrawal signed in a frame
  the table did not count (its signer's own seat was played by the table then) is ignored.
* **A return needs one witness, not everyone.** The seat is the player's again at its next turn
  once *some* other seat still playing acknowledged, in a game frame every peer consumed, a frame
  of the seat at or after its `return`: no single seat can hold a return back by leaving its
  acknowledgement out (PROTOCOL.md 10.9, "The return").

The states of one program's current attempt (the table in PROTOCOL.md 10.9):

| state | on | next |
|---|---|---|
| open (no vote) | a vote of this attempt | voting |
| voting | every required vote held | counted (max rule) |
| voting, counted | a withdrawal by a voter | open, attempt + 1 (freezes lifted) |
| counted | every required voter upheld | decided: the table plays the seats |
| decided | every seat of the program back (`return` witnessed) | open, attempt + 1 |

`Ballots` is that table, with no I/O and no session: votes and answers in, decisions out.
`SeatInsurance` is a session's side of it (its votes, answers, timers, freezes and returns).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from . import takeover
from .config import TableConfig
from .errors import Misbehaviour
from .events import Rewound, SeatReturned, TimerRequest
from .messages import Envelope

Held = takeover.Held
"""seat -> (how many of its frames a voter holds, the digest of the last)."""

AHEAD = 8
"""A vote or answer may name an attempt at most this far beyond the receiver's current one (a
voter can be a few attempts ahead of a peer still catching up; further is no honest peer's)."""

QUIET_RETRIES = 3
"""How many times a voter waits once more for the other voters' answers while they are alive
but silent about the attempt, before it names the program and them absent."""

Counts = Callable[[int, int], bool]
"""(seat, seq) -> whether that frame of the seat counts (the table did not play the seat then)."""


@dataclass
class Attempt:
    """One program's current attempt: the votes and answers of its number."""

    number: int
    votes: dict[int, Held] = field(default_factory=dict)
    """voter -> what it held (its first vote of this attempt)."""
    vote_seqs: dict[int, int] = field(default_factory=dict)
    """voter -> the sequence number of that vote in its chain."""
    answers: dict[int, tuple[str, int]] = field(default_factory=dict)
    """voter -> its first answer ("uphold" or "withdraw") and its sequence number."""
    decided: Held | None = None
    """The frames that count of each seat of the program, once every required voter upheld."""
    lifted: bool = False
    """(the voted program's own peer) twice the grace passed since the first vote without a
    decision: the attempt no longer holds its jobs back (a vote nobody withdraws cannot stall it)."""
    heard: int = 0
    """(the voted program's own peer) the first sequence number of ours signed after the latest
    vote of this attempt reached us: such a frame acknowledges the vote (it is there)."""
    marks: dict[int, int] = field(default_factory=dict)
    """(our own vote) seat -> how many frames of it we had received when we voted: a voter whose
    count has not moved since is silent, not merely of another opinion."""
    retries: int = 0


class Ballots:
    """The votes and answers of each program's current attempt, and the table's decisions.

    Pure bookkeeping: the caller says which frames count (`Counts`) and which seats left."""

    def __init__(self, config: TableConfig) -> None:
        self.config = config
        self.attempts: dict[int, Attempt] = {}
        """owner -> its current attempt (open, counted or decided)."""

    def attempt(self, owner: int) -> Attempt:
        found = self.attempts.get(owner)
        if found is None:
            found = self.attempts[owner] = Attempt(0)
        return found

    def seats_of(self, owner: int) -> list[int]:
        owners = self.config.owners
        return [s for s in range(self.config.players) if owners[s] == owner]

    def required(self, owner: int, left: set[int]) -> list[int]:
        """The seats whose vote (and answer) a decision about `owner` needs: every seat of every
        other program, but those that left with their key share (they are the table's)."""
        owners = self.config.owners
        return [s for s in range(self.config.players) if owners[s] != owner and s not in left]

    def decided(self, owner: int) -> bool:
        found = self.attempts.get(owner)
        return found is not None and found.decided is not None

    def check(self, envelope: Envelope) -> tuple[int, int, Held | None]:
        """A vote's or an answer's program, attempt and (a vote's) holdings; `Misbehaviour` of
        its signer for one no honest peer sends."""
        voter, owner, number = envelope.seat, envelope.data["owner"], envelope.data["attempt"]
        owners = self.config.owners
        fault = None
        if not self.config.insured:
            fault = "asked the table to play a seat, but the table is not insured"
        elif owner >= self.config.players or owners[owner] != owner:
            fault = f"asked the table to play program {owner + 1}, which runs no seat of its own"
        elif owners[voter] == owner:
            fault = "asked the table to play its own program's seats"
        elif number > self.attempt(owner).number + AHEAD:
            fault = f"voted in attempt {number}, far beyond the table's ({self.attempt(owner).number})"
        held: Held | None = None
        if fault is None and envelope.kind == "vacate":
            held = {}
            for seat, count, digest in envelope.data["held"]:
                held[seat] = (count, digest)
            if sorted(held) != self.seats_of(owner) or len(held) != len(envelope.data["held"]):
                fault = "a vote that does not list exactly the program's seats"
        if fault is not None:
            raise Misbehaviour(voter, fault, (envelope.frame,))
        return owner, number, held

    def place(self, owner: int, number: int) -> str:
        """ "now" (the current attempt), "later" (one that opens here later) or "stale"."""
        current = self.attempt(owner).number
        return "now" if number == current else "later" if number > current else "stale"

    def vote(self, voter: int, owner: int, held: Held, seq: int) -> bool:
        """Record a vote of the current attempt (the first of each voter); True if new."""
        attempt = self.attempt(owner)
        if voter in attempt.votes or attempt.decided is not None:
            return False
        attempt.votes[voter] = held
        attempt.vote_seqs[voter] = seq
        return True

    def answer(self, voter: int, owner: int, kind: str, seq: int) -> bool:
        """Record an answer of the current attempt (the first of each voter, and only a voter's:
        an answer without a vote before it is no answer); True if new."""
        attempt = self.attempt(owner)
        if voter in attempt.answers or voter not in attempt.votes or attempt.decided is not None:
            return False
        attempt.answers[voter] = (kind, seq)
        return True

    def discount(self, owner: int, counts: Counts) -> list[int]:
        """Forget the votes and answers of the current attempt that no longer count (their
        signer's seat turned out to be played by the table when it signed them); their voters."""
        attempt = self.attempt(owner)
        if attempt.decided is not None:
            return []
        gone = [v for v, seq in attempt.vote_seqs.items() if not counts(v, seq)]
        gone += [v for v, (_, seq) in attempt.answers.items() if not counts(v, seq) and v not in gone]
        for voter in gone:
            attempt.votes.pop(voter, None)
            attempt.vote_seqs.pop(voter, None)
            attempt.answers.pop(voter, None)
        return gone

    def counted(self, owner: int, left: set[int]) -> Held | None:
        """The frames that count of each seat (the most any voter held; the first voter in seat
        order with that count gives the digest), once every required vote is held."""
        attempt = self.attempt(owner)
        if attempt.decided is not None:
            return attempt.decided
        required = self.required(owner, left)
        if not required or any(s not in attempt.votes for s in required):
            return None
        return {
            seat: max((attempt.votes[s][seat] for s in required), key=lambda held: held[0])
            for seat in self.seats_of(owner)
        }

    def withdrawn(self, owner: int) -> bool:
        return any(kind == "withdraw" for kind, _ in self.attempt(owner).answers.values())

    def decide(self, owner: int, left: set[int]) -> Held | None:
        """The decision, once every required voter upheld (None until then, or for ever if one
        withdrew: the attempt is over)."""
        attempt = self.attempt(owner)
        if attempt.decided is not None:
            return None
        counted = self.counted(owner, left)
        if counted is None or self.withdrawn(owner):
            return None
        if any(attempt.answers.get(s, ("", 0))[0] != "uphold" for s in self.required(owner, left)):
            return None
        attempt.decided = counted
        return counted

    def close(self, owner: int) -> None:
        """The attempt is over (withdrawn, or its seats are back): the next one opens."""
        self.attempts[owner] = Attempt(self.attempt(owner).number + 1)


class SeatInsurance:
    """One session's side of seat insurance: its votes, answers, timers and the returns.

    It reads and changes the session through a few members (`stand_ins`, `taken_over`, the freeze
    `_frozen`, the chains and queues, `_emit`, `_publish`, `_halt`, `report`); every rule about
    votes, decisions and returns is here."""

    def __init__(self, session: Any) -> None:
        # `session` is the `protocol.session.Session` this belongs to (not imported: the session
        # imports this module, and the layers test refuses import circles)
        self.session = session
        self.config = session.config
        self.ballots = Ballots(session.config)
        self.later: dict[int, list[Envelope]] = {}
        """owner -> votes and answers of a later attempt, read once it opens here."""
        self.returns: dict[int, list[int]] = {}
        """seat -> sequence numbers of its `return` frames."""
        self.voids: dict[int, list[tuple[int, int]]] = {}
        """seat -> (first, last) of its frames the table did not count, for each time it played
        the seat."""
        self.returning = False
        self.foreseen: dict[int, list[Held]] = {}
        """An offline check: owner -> the decisions the file holds, in order (`foresee`)."""

    # --- what the session asks ----------------------------------------------------------------

    def seats_of(self, owner: int) -> list[int]:
        return self.ballots.seats_of(owner)

    def decided(self, owner: int) -> bool:
        return self.ballots.decided(owner)

    def left(self) -> set[int]:
        return {s for s, stand_in in self.session.stand_ins.items() if stand_in.how == "left"}

    def void(self, seat: int, seq: int) -> bool:
        """Whether frame `seq` of `seat` is one the table did not count (it played the seat)."""
        return any(first <= seq <= last for first, last in self.voids.get(seat, ()))

    def counts(self, seat: int, seq: int) -> bool:
        """Whether frame `seq` of `seat` counts: not void, and not signed while the table plays
        the seat (beyond what it counted, before the seat's return)."""
        if self.void(seat, seq):
            return False
        stand_in = self.session.stand_ins.get(seat)
        return not (stand_in is not None and stand_in.how == "vanished" and seq >= stand_in.limit)

    def paused(self) -> bool:
        """Whether no job may run now: a vote about our own program is in and its attempt is not
        over (what we consume now may be frames the table will not count, and a holder's
        partials for a job we play ourselves would look like a fault), for at most twice the
        grace; or, for a live observer, any vote is in (it holds what one player relays, in that
        player's order, so a frame the table may not count comes after that player's vote)."""
        session = self.session
        for owner, attempt in self.ballots.attempts.items():
            if attempt.decided is not None or not attempt.votes:
                continue
            if session.me is None:
                if not self.foreseen_any():
                    return True
            elif owner == self.config.owners[session.me] and not attempt.lifted and not self._heard(owner):
                return True
        return False

    def _heard(self, owner: int) -> bool:
        """(The voted program's own peer) whether the attempt can no longer be decided without a
        new observation: every other required seat withdrew its vote, or did not vote and
        acknowledged a frame of ours signed after the votes (it hears us: it votes only after a
        new whole wait). A voter that neither withdrew nor answered may still uphold."""
        session = self.session
        me = session.me
        assert me is not None
        attempt = self.ballots.attempt(owner)
        for seat in self.ballots.required(owner, self.left()):
            answer = attempt.answers.get(seat)
            if answer is not None and answer[0] == "withdraw":
                continue
            if seat in attempt.votes or session._acks_in_chain[seat].get(me, -1) < attempt.heard:
                return False
        return True

    def foreseen_any(self) -> bool:
        return bool(self.session._foreseen)

    def my_vote(self, owner: int) -> Held | None:
        me = self.session.me
        return None if me is None else self.ballots.attempt(owner).votes.get(me)

    # --- voting -------------------------------------------------------------------------------

    def vote(self, owner: int) -> None:
        """Our own wait for a seat of program `owner` ran out with nothing of it arriving: vote
        (once per attempt), with what we hold of its seats, and consume nothing of theirs beyond."""
        session = self.session
        me = session.me
        if me is None or session.halted or session.replaying or self.ballots.decided(owner):
            return
        if self.config.owners[me] == owner or self.my_vote(owner) is not None:
            return
        attempt = self.ballots.attempt(owner)
        held: Held = {}
        for seat in self.seats_of(owner):
            chain = session._chains[seat]
            held[seat] = (chain.next_seq, chain.last_digest)
        data = {"owner": owner, "held": [[s, n, d] for s, (n, d) in held.items()], "attempt": attempt.number}
        sent = session._emit("vacate", data)
        if sent is None:
            return
        self.ballots.vote(me, owner, held, sent.seq)
        attempt.marks = {seat: session.received(seat) for seat in range(self.config.players)}
        self.refreeze(owner)
        self._vacate_timer(owner)
        self.progress(owner)

    def _vacate_timer(self, owner: int) -> None:
        number = self.ballots.attempt(owner).number
        grace = float(self.config.grace_seconds or 1)
        self.session.report(TimerRequest(f"vacate:{owner}:{number}", grace))

    def frame(self, envelope: Envelope) -> None:
        """A `vacate`, `uphold` or `withdraw` frame took its place in its signer's chain."""
        session = self.session
        owner, number, held = self.ballots.check(envelope)
        place = self.ballots.place(owner, number)
        if place == "stale":
            return
        if place == "later":
            self.later.setdefault(owner, []).append(envelope)
            return
        signer = envelope.seat
        if not self.counts(signer, envelope.seq):
            return  # signed while the table played the signer's seat: not the table's
        if signer != session.me:
            session._publish([envelope.frame])  # every voter must see every vote and answer
        elif not session.replaying:
            return  # our own, recorded when we sent it
        if held is not None:
            first = not self.ballots.attempt(owner).votes
            if self.ballots.vote(signer, owner, held, envelope.seq) and session.me is not None:
                self.ballots.attempt(owner).heard = session._chains[session.me].next_seq
            me = session.me
            if first and me is not None and owner == self.config.owners[me] and not session.replaying:
                grace = float(self.config.grace_seconds or 1)
                session.report(TimerRequest(f"vacate:{owner}:{number}", 2 * grace))
            if signer == session.me:
                self.ballots.attempt(owner).marks = {
                    seat: session.received(seat) for seat in range(self.config.players)
                }
                self.refreeze(owner)
        elif self.ballots.answer(signer, owner, envelope.kind, envelope.seq) and envelope.kind == "withdraw":
            self._over(owner)
            return
        self.progress(owner)

    def appended(self, envelope: Envelope) -> None:
        """A frame of any seat was accepted: it may show a voted seat is there (it acknowledges a
        vote, or lies beyond what the votes counted), or bring a frame the decision counts."""
        owner = self.config.owners[envelope.seat]
        attempt = self.ballots.attempts.get(owner)
        if attempt is not None and attempt.votes and attempt.decided is None:
            self.progress(owner)

    def progress(self, owner: int) -> None:
        """Answer our vote when we can, and decide when every answer is in."""
        session = self.session
        if session.halted and session._final:
            return
        attempt = self.ballots.attempt(owner)
        if attempt.decided is not None:
            return
        me = session.me
        left = self.left()
        counted = self.ballots.counted(owner, left)
        if (
            me is not None
            and me in attempt.votes
            and me not in attempt.answers
            and not session.replaying
            and not session.halted
        ):
            if self._refuted(owner, counted):
                self._answer(owner, "withdraw")
                return
            if counted is not None:
                lacking = [s for s, (count, _) in counted.items() if session._chains[s].next_seq < count]
                if not lacking:
                    self._answer(owner, "uphold")
                for seat in lacking:
                    session._want_later(seat)  # another voter holds them
        decision = self.ballots.decide(owner, left)
        if decision is not None:
            self._decided(owner, decision)

    def _refuted(self, owner: int, counted: Held | None) -> bool:
        """Whether we hold a frame of the program signed after the votes: one that acknowledges
        a vote of this attempt (its seat saw the vote: it is there), or, once every vote is in,
        one beyond what the votes counted."""
        session = self.session
        attempt = self.ballots.attempt(owner)
        for seat in self.seats_of(owner):
            acked = session._acks_in_chain[seat]
            if any(acked.get(voter, -1) >= seq for voter, seq in attempt.vote_seqs.items()):
                return True
            if counted is not None and session.holds_from(seat, counted[seat][0]):
                return True
        return False

    def _answer(self, owner: int, kind: str) -> None:
        session = self.session
        attempt = self.ballots.attempt(owner)
        sent = session._emit(kind, {"owner": owner, "attempt": attempt.number})
        if sent is None or session.me is None:
            return
        self.ballots.answer(session.me, owner, kind, sent.seq)
        if kind == "withdraw":
            self._over(owner)

    def _over(self, owner: int) -> None:
        """A voter withdrew: the attempt is over everywhere; the next vote opens the next one.
        Our freezes are lifted and our own wait starts afresh (we vote again only on a new
        observation)."""
        self.ballots.close(owner)
        self.refreeze(owner)
        self.session.restart_watch()
        self._read_later(owner)

    def _read_later(self, owner: int) -> None:
        for envelope in self.later.pop(owner, []):
            if self.session.halted and self.session._final:
                return
            try:
                self.frame(envelope)
            except Misbehaviour as fault:  # (checked when it came: cannot happen)
                self.session._blame(fault)
                return

    def refreeze(self, owner: int) -> None:
        """The first frame of each seat of `owner` we may not consume: what the decision counts,
        else what our own vote held, else what an offline check foresees; none otherwise."""
        session = self.session
        attempt = self.ballots.attempt(owner)
        mine = self.my_vote(owner)
        foreseen = self.foreseen.get(owner)
        for seat in self.seats_of(owner):
            if attempt.decided is not None:
                session._frozen[seat] = attempt.decided[seat][0]
            elif seat in session.stand_ins and session.stand_ins[seat].how == "vanished":
                session._frozen[seat] = session.stand_ins[seat].limit
            elif mine is not None:
                session._frozen[seat] = mine[seat][0]
            elif foreseen:
                session._frozen[seat] = foreseen[0][seat][0]
            else:
                session._frozen.pop(seat, None)

    def _decided(self, owner: int, counted: Held) -> None:
        """Every required voter upheld: the table plays the program's seats from what counted."""
        session = self.session
        foreseen = self.foreseen.get(owner)
        if foreseen:
            foreseen.pop(0)
        for seat, (count, _) in counted.items():
            if seat == session.me and session._consumed_upto[seat] > count and not session.replaying:
                # we played on, cut off from the table, beyond what it counted: those moves are
                # void; rebuilt from the saved transcript, this session goes on from the table's
                why = f"the table played seat {seat + 1} from its frame #{count}; ours after it are void"
                session.report(Rewound(why))
                session._paused = True
            if seat not in session.stand_ins:
                session.stand_ins[seat] = takeover.StandIn(
                    seat,
                    "vanished",
                    b"",
                    takeover.common_bot(self.config.session_id, self.config.game, seat),
                    limit=count,
                )
            if session._chains[seat].next_seq < count:
                session._want_later(seat)
        self.refreeze(owner)
        # votes and answers signed by the seats now played, beyond what counted, count nowhere
        for other in list(self.ballots.attempts):
            if other != owner and self.ballots.discount(other, self.counts):
                self.refreeze(other)
                self.progress(other)

    # --- timers -------------------------------------------------------------------------------

    def timer_needed(self, name: str) -> bool:
        parts = name.split(":")
        if len(parts) != 3 or not (parts[1].isdigit() and parts[2].isdigit()):
            return False
        attempt = self.ballots.attempt(int(parts[1]))
        return attempt.number == int(parts[2]) and attempt.decided is None

    def timer(self, name: str) -> None:
        """`vacate:<owner>:<attempt>` ran out before a decision. Voters that are there but do not
        agree: we withdraw (or wait for their answers). Voters that are silent too: the game
        stops naming them and the program absent. Nobody else answers at all: we are the one cut
        off, so we wait (and say so) rather than stop a table that may be playing on."""
        session = self.session
        parts = name.split(":")
        owner, number = int(parts[1]), int(parts[2])
        attempt = self.ballots.attempt(owner)
        me = session.me
        if me is None or attempt.number != number or attempt.decided is not None or session.halted:
            return
        if owner == self.config.owners[me]:
            attempt.lifted = True  # a vote about us nobody answered: it no longer holds us back
            session._advance()
            return
        left = self.left()
        required = [s for s in self.ballots.required(owner, left) if s != me]
        pending = [s for s in required if s not in attempt.votes or s not in attempt.answers]
        silent = [s for s in pending if session.received(s) <= attempt.marks.get(s, 0)]
        seats = tuple(self.seats_of(owner))
        if required and len(silent) == len(required):
            session.isolated(tuple(sorted({*seats, *silent})))
            if not session.halted:
                self._vacate_timer(owner)  # cut off ourselves, most likely: wait
            return
        if silent:
            absent = tuple(sorted({*seats, *silent}))[:8]
            names = ", ".join(str(s + 1) for s in absent)
            session._halt(
                f"seat(s) {names} did not answer in time (the table could not agree to play on)",
                absent=absent,
            )
            return
        if me in attempt.votes and me not in attempt.answers:
            self._answer(owner, "withdraw")  # the others are there and do not see it gone
            return
        if attempt.retries < QUIET_RETRIES:
            attempt.retries += 1
            self._vacate_timer(owner)
            return
        absent = tuple(sorted({*seats, *pending}))[:8]
        names = ", ".join(str(s + 1) for s in absent)
        session._halt(f"seat(s) {names} did not answer in time (the table could not agree)", absent=absent)

    # --- the return ---------------------------------------------------------------------------

    def return_frame(self, envelope: Envelope) -> None:
        self.returns.setdefault(envelope.seat, []).append(envelope.seq)
        if envelope.seat == self.session.me:
            self.returning = True

    def announce_return(self) -> None:
        """We are playing again while the table plays our seat (we came back after it decided
        we had vanished): say so once; the seat is ours again at our next turn (`back`)."""
        session = self.session
        me = session.me
        if me is None or self.returning or session.replaying or session.halted:
            return
        stand_in = session.stand_ins.get(me)
        if stand_in is not None and stand_in.how == "vanished":
            self.returning = True
            sent = session._emit("return", {})
            if sent is not None:
                self.returns.setdefault(me, []).append(sent.seq)

    def back(self, seat: int, stand_in: takeover.StandIn) -> str:
        """At a turn boundary of `seat`, which the table plays: "back" (its player's `return` was
        witnessed: some other seat still playing acknowledged, in a game frame every peer
        consumed, a frame of the seat at or after it; the seat is the player's again from this
        turn), "no" (not yet), or "wait" (a witness names frames of the seat we lack: they come,
        and the answer must be the one every peer reaches)."""
        session = self.session
        witnessed = max(
            (
                session._consumed_acks[other].get(seat, -1)
                for other in range(self.config.players)
                if other != seat and other not in session.stand_ins
            ),
            default=-1,
        )
        if witnessed < stand_in.limit:
            return "no"
        if session._chains[seat].next_seq <= witnessed:
            session._want_later(seat)
            return "wait"
        returns = [r for r in self.returns.get(seat, []) if stand_in.limit <= r <= witnessed]
        if not returns:
            return "no"
        self._returned(seat, stand_in, returns[0])
        return "back"

    def _returned(self, seat: int, stand_in: takeover.StandIn, back: int) -> None:
        session = self.session
        del session.stand_ins[seat]
        session.taken_over.pop(seat, None)
        session._frozen.pop(seat, None)
        self.voids.setdefault(seat, []).append((stand_in.limit, back))
        session.drop_void(seat)
        session.report(SeatReturned(seat))
        if seat == session.me:
            self.returning = False  # should the table play it again, we say so again
        owner = self.config.owners[seat]
        if self.ballots.decided(owner) and not any(s in session.stand_ins for s in self.seats_of(owner)):
            self.ballots.close(owner)
            self.refreeze(owner)
            self._read_later(owner)

    # --- restore and offline checks -----------------------------------------------------------

    def resumed(self) -> None:
        """After a restore: ask again for the timers of our open votes, and answer what we can."""
        me = self.session.me
        for owner, attempt in list(self.ballots.attempts.items()):
            if me is not None and me in attempt.votes and attempt.decided is None:
                self._vacate_timer(owner)
                self.progress(owner)

    def foresee(self, envelopes: Iterable[Envelope]) -> None:
        """An offline check holds the whole file: the table's decisions to play a vanished seat
        are known before any frame is fed, so that the seat's frames the table did not count
        (its own file holds them before the votes) are never consumed."""
        ballots = Ballots(self.config)
        left = {e.seat for e in envelopes if e.kind == "leave" and e.data["key"]}
        found: dict[int, list[Held]] = {}
        for envelope in envelopes:
            if envelope.kind not in ("vacate", "uphold", "withdraw"):
                continue
            try:
                owner, number, held = ballots.check(envelope)
            except Misbehaviour:
                continue  # found again, and blamed, when the frame is fed
            while ballots.attempt(owner).number < number:  # a later attempt: the earlier is over
                ballots.close(owner)
            if ballots.attempt(owner).number != number:
                continue
            if held is not None:
                ballots.vote(envelope.seat, owner, held, envelope.seq)
            elif (
                ballots.answer(envelope.seat, owner, envelope.kind, envelope.seq)
                and envelope.kind == "withdraw"
            ):
                ballots.close(owner)
                continue
            decision = ballots.decide(owner, left)
            if decision is not None:
                found.setdefault(owner, []).append(decision)
        self.foreseen = found
        for owner in found:
            self.refreeze(owner)


__all__ = ["AHEAD", "Attempt", "Ballots", "Held", "SeatInsurance"]
