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
  the table did not count (its signer's own seat was played by the table then) is ignored; one
  signed after its signer's `return` counts at once, before the seat is back (`awaiting_return`).
* **A return needs one witness, not everyone.** The seat is the player's again at its next turn
  once *some* other seat acknowledged, in a game frame every peer consumed, a frame
  of the seat at or after its `return`: no single seat can hold a return back by leaving its
  acknowledgement out (PROTOCOL.md 10.9, "The return").

The states of one program's current attempt are the table of PROTOCOL.md 10.9; `ballots.py`
holds it (with the table in its docstring).
`Ballots` is that state table, with no I/O and no session: votes and answers in, decisions out.
`SeatInsurance` is a session's side of it (its votes, answers, timers, freezes and returns).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Protocol

from skyjo_p2p.core.state import TableState

from . import crypto, takeover
from .acks import Acknowledgements
from .ballots import Ballots, Held, attempt_timer
from .config import named_seats
from .errors import Misbehaviour
from .events import (
    Left,
    Rewound,
    SeatReturned,
    SeatTakenOver,
    SteppedOut,
    TableSilent,
    TimerRequest,
)
from .jobs.base import crypto_fault
from .messages import Envelope
from .removals import RemovalContext, Removals, read_later

QUIET_RETRIES = 3
"""How many times a voter waits once more for the other voters' answers while they are alive
but silent about the attempt, before it names the program and them absent."""
MAX_WATCH_RESTARTS = 4
"""How many times a wait starts afresh because the waited program sent something meanwhile (it is
there) before the game stops naming it absent anyway (it never sends what the game needs)."""
ISOLATED_WAITS = 8
"""How many whole waits in a row in which no other program sent us anything (we are cut off,
`TableSilent`) before we stop (`cut_off`): the table has long played our seat or ended, and
`--resume` takes the seat back where the table still plays."""


class InsuranceContext(RemovalContext, Protocol):
    """What seat insurance reads and changes of its session: the narrow interface (as
    `protocol.jobs.JobContext` is the jobs'), removals' (`RemovalContext`) and a few more.
    Everything else is the insurance's own state."""

    players: int
    jobs_paused: bool
    joint_key: crypto.Point | None
    public_keys: list[crypto.Point]
    queues: list[deque[Envelope]]
    consumed_upto: list[int]
    acks: Acknowledgements
    taken_over: dict[int, str]

    def advance(self) -> None: ...

    def restart_watch(self) -> None: ...

    def first_wait_over(self, name: str) -> bool: ...

    def has_queued(self, seat: int) -> bool: ...

    def left_table(self, seat: int, reason: str) -> None: ...

    def check_postponed(self) -> None: ...


class SeatInsurance:
    """One session's side of seat insurance: its votes, answers, timers and the returns.

    It reads and changes the session through a few members (`stand_ins`, `taken_over`, the freeze
    `_frozen`, the chains and queues, `_emit`, `_publish`, `_halt`, `report`); every rule about
    votes, decisions and returns is here."""

    def __init__(self, session: InsuranceContext) -> None:
        self.session = session
        self.config = session.config
        self.ballots = Ballots(session.config)
        self.later: dict[int, list[Envelope]] = {}
        """owner -> votes and answers of a later attempt, read once it opens here."""
        self.returns: dict[int, list[int]] = {}
        """seat -> sequence numbers of its `return` frames."""
        self.rereading = False
        """True while votes and answers kept until now are read and ours are among them (`_reread`)."""
        self.catching_up = False
        """Set by a restore: our game messages read back are still being consumed (`_catching_up`)."""
        self.read_back: list[int] = []
        """Set by a restore: how many frames of each seat's chain our saved file held (`holds`)."""
        self.voids: dict[int, list[tuple[int, int]]] = {}
        """seat -> (first, last) of its frames the table did not count, for each time it played
        the seat."""
        self.returning = False
        self.foreseen: dict[int, list[Held]] = {}
        """An offline check: owner -> the decisions the file holds, in order (`foresee`)."""
        self.offline = False
        """An offline check: the votes are known before any frame is fed (`foresee`)."""
        self.frozen: dict[int, int] = {}
        """seat -> the first sequence number of its frames we may not consume: we asked the table
        to play it (`vacate`), or the table decided to; what we held then is all that counts."""
        self.watch_mark: dict[int, int] = {}
        """seat -> frames received of it when our current wait began: a vote needs a whole wait
        with nothing of the waited program (`wait_ran_out`)."""
        self.awaiting_back: dict[int, int] = {}
        """owner -> our attempts about it that failed only for want of the votes of seats that
        came back and wait for their turn (`_awaiting_back`)."""
        self.held_marks: dict[int, int] = {}
        """(a vote about us two seats upheld holds us) how many frames of each other seat we had
        received at the last expiry of its timer (`_still_voted_out`)."""
        self.watch_restarts = 0
        self.watched: str | None = None
        self.went_on: str | None = None
        """The step during which our player asked to go on without the waited seats (once each)."""
        self.isolated_waits = 0
        self.stepped_out: set[int] = set()
        """Programs that signed a `stepout` (their player stepped out; we voted at once)."""
        self.stepped_out_seats: set[int] = set()
        """Seats whose `stepout` the table counted (reported once each: `SteppedOut`)."""
        self.cut_off = False
        """We stopped because no other program answered for `ISOLATED_WAITS` waits in a row: this
        program was cut off, not the others; the game may go on without it (`--resume`)."""
        self.removals = Removals(session, self)
        """Removing a player on every other program's word (PROTOCOL.md 10.9, "Removing a player")."""

    # --- what the session asks ----------------------------------------------------------------

    def seats_of(self, owner: int) -> list[int]:
        return self.ballots.seats_of(owner)

    def decided(self, owner: int) -> bool:
        return self.ballots.decided(owner)

    def left(self) -> set[int]:
        return {s for s, stand_in in self.session.stand_ins.items() if stand_in.how == "left"}

    def void(self, seat: int, seq: int) -> bool:
        """Whether frame `seq` of `seat` is one the table did not count (it played the seat)."""
        voids = self.voids.get(seat)
        return voids is not None and any(first <= seq <= last for first, last in voids)

    def counts(self, seat: int, seq: int) -> bool:
        """Whether frame `seq` of `seat` counts: not void, and not signed while the table plays
        the seat (beyond what it counted, before the seat's return)."""
        if self.void(seat, seq):
            return False
        stand_in = self.session.stand_ins.get(seat)
        return not (stand_in is not None and stand_in.how == "vanished" and seq >= stand_in.limit)

    def stop_counts(self, seat: int, seq: int) -> bool:
        """Whether a stop without proof (a `halt` naming nobody) signed by `seat` at `seq` is the
        table's: it counts (`counts`). A peer learns the table's decision to play a vanished
        seat before that seat's later frames reach it (they refute the votes otherwise), so the
        stop of a program cut off, which reaches it once the links heal, is ignored. An offline
        check feeds the file in its own order and may reach that stop before the votes: it uses
        the decision it foresaw (`foresee`, the freeze it set), unless the seat came back
        between that count and the stop. (Before, `verify` of a finished game's file said it was
        stopped by the halt a program cut off had signed before the table played its seat: the
        adversary model's seed 643, behaviour `cutresume`.)"""
        if not self.counts(seat, seq):
            return False
        limit = self.frozen.get(seat) if self.offline else None
        if limit is None or seq < limit:
            return True
        return any(limit <= back < seq for back in self.returns.get(seat, ()))

    def awaiting_return(self, seat: int, seq: int) -> bool:
        """Whether frame `seq` of `seat`, which does not count yet (we still see the table play
        the seat), was signed after the seat's `return`: the table gives the seat back at that
        return (`back`, at a turn of the game every peer reaches alike), so the frame counts
        from there. Its votes and answers count at once (`_may_count`): the program is there,
        and a vote is its word about another program. Kept until the seat is back, they would
        never count while the game waits for a program that vanished meanwhile (the seat's turn
        never comes): the table could never decide (PROTOCOL.md 10.9)."""
        stand_in = self.session.stand_ins.get(seat)
        if stand_in is None or stand_in.how != "vanished" or self.void(seat, seq):
            return False
        return any(stand_in.limit <= back < seq for back in self.returns.get(seat, ()))

    def _may_count(self, seat: int, seq: int) -> bool:
        """Whether a vote or an answer `seq` of `seat` counts (`awaiting_return`)."""
        return self.counts(seat, seq) or self.awaiting_return(seat, seq)

    def paused(self) -> bool:
        """Whether no job may run now: a vote about our own program is in and its attempt is not
        over (what we consume now may be frames the table will not count, and a holder's
        partials for a job we play ourselves would look like a fault), for at most twice the
        grace; or, for a live observer, any vote is in (it holds what one player relays, in that
        player's order, so a frame the table may not count comes after that player's vote)."""
        if self.session.me is None:
            if self.offline:  # (`foreseen_any`)
                return False
            open_votes = any(a.decided is None and a.votes for a in self.ballots.attempts.values())
            return open_votes or self.removals.paused()
        if not self.ballots.attempts:  # (no vote was ever cast, in most games: asked at every step)
            return False
        return self._voted_about_us() and not self._catching_up()

    def _voted_about_us(self) -> bool:
        """Whether a vote about our own program is in and its attempt may still decide: not
        decided, not over, not lifted by our timer, and not heard (`_heard`)."""
        me = self.session.me
        assert me is not None
        owner = self.config.owners[me]
        attempt = self.ballots.attempts.get(owner)
        if attempt is None or attempt.decided is not None or not attempt.votes or attempt.lifted:
            return False
        return not self._heard(owner)

    def holds(self, seat: int, seq: int) -> bool:
        """Whether the game message `seq` of `seat`, next in its queue, must wait now (`paused`).

        A restored session catching up under a vote about its own program replays its file,
        which is one game to its end: our messages and the others' it held (`_catching_up`).
        Another seat's message our file did not hold came since the restore, and may belong to
        the game the table played without us after the votes (a holder's partials for our seat,
        where our file has us play on: a real table named its honest host a cheat for them).
        There the catching up ends, and the vote holds every job as it holds a session that
        never stopped, until the attempt is decided (our moves beyond the table's count are then
        void: `Rewound`) or over."""
        me = self.session.me
        if (
            self.catching_up
            and me is not None
            and seat != me
            and seq >= self.read_back[seat]
            and self._voted_about_us()
        ):
            self.catching_up = False
        return self.paused()

    def _catching_up(self) -> bool:
        """(A session restored from its file) whether game messages of ours read back from it
        are still to be consumed: the jobs are replaying what this peer played before it
        stopped, and sign nothing (our messages are there). Held back by a vote about us, they
        would never reach the turns at which other seats came back, whose votes about us count
        from there: the decision could never come. Once caught up, never again."""
        me = self.session.me
        if self.catching_up and (me is None or not self.session.queues[me]):
            self.catching_up = False
        return self.catching_up

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
            if seat in attempt.votes or session.acks.in_chain[seat].get(me, -1) < attempt.heard:
                return False
        return True

    def foreseen_any(self) -> bool:
        return self.offline

    def my_vote(self, owner: int) -> Held | None:
        me = self.session.me
        return None if me is None else self.ballots.attempt(owner).votes.get(me)

    # --- our waits: a vote is an observation ---------------------------------------------------

    def received(self, seat: int) -> int:
        """How many frames of `seat` we have received (in its chain, and ahead of a gap)."""
        chain = self.session.chains[seat]
        return chain.next_seq + len(chain.ahead)

    def watch(self, name: str) -> None:
        """Our wait for the step `name` begins (or begins afresh): what we have received of each
        seat now is the mark a vote compares with (`wait_ran_out`)."""
        if name != self.watched:
            self.watched = name
            self.watch_restarts = 0
        self.watch_mark = {s: self.received(s) for s in range(self.session.players)}

    def wait_ran_out(self, seats: tuple[int, ...]) -> bool:
        """Our whole wait for `seats` ran out (the second expiry). True if it is handled here: we
        voted (nothing of their program came during the whole wait: our own observation), or we
        wait afresh (something came: it is there; or nobody at all answers us: we are the one cut
        off). False: the game stops, naming them absent (a program that is there yet never sends
        what the game needs; or an uninsured table)."""
        session = self.session
        me = session.me
        if me is None:
            return False
        if self.removals.held_off():
            # a proposal to remove our program is open: the others hold our frames back on
            # purpose, so this wait shows nothing; we wait on (bounded by the proposal's timer)
            session.restart_watch()
            return True
        owners = self.config.owners
        if self.config.insured and session.state is not None:
            # (only once the game started: before, not every key is escrowed yet)
            programs = sorted({owners[s] for s in seats})
            if owners[me] not in programs:
                waited = [s for o in programs for s in self.seats_of(o)]
                spoke = any(self.received(s) > self.watch_mark.get(s, 0) for s in waited)
                if self._holding_our_key(programs):
                    # we do not vote: the table waits for them (or for the others to stop naming
                    # them absent, `_awaiting_back`); our own wait starts afresh meanwhile
                    if self._cut_off():
                        self.isolated(tuple(s for s in range(self.config.players) if owners[s] != owners[me]))
                    if not session.halted:
                        session.restart_watch()
                    return True
                if not spoke and not any(self.decided(o) for o in programs):
                    for owner in programs:  # the table may play on without them
                        self.vote(owner)
                    return True
                if self.watch_restarts < MAX_WATCH_RESTARTS:
                    # a frame of the waited program came during our wait (it is there, slow or
                    # waiting itself), or the table plays it and the frames it counted are on their
                    # way: wait afresh. A vote needs a whole wait with nothing of it.
                    self.watch_restarts += 1
                    session.restart_watch()
                    return True
                # there, yet never sending what the game needs: stop, naming it absent (no vote:
                # the table never plays, nor discloses the cards of, a seat that is there)
        if self._cut_off():
            # nobody at all sent us anything for the whole wait: most likely we are the one cut
            # off; a stop of ours would stop the others once the link is back. Wait, and say so.
            self.isolated(tuple(s for s in range(self.config.players) if owners[s] != owners[me]))
            if not session.halted:
                session.restart_watch()
            return True
        return False

    def may_go_on(self, seats: tuple[int, ...]) -> list[int]:
        """The programs of the waited `seats` our player may ask to go on without now
        (`go_on_now`): at an insured table whose game runs, once the first of our two waits for
        the step ran out with nothing of them arriving since it began, once per step."""
        session = self.session
        me = session.me
        if me is None or not self.config.insured or session.state is None or session.halted:
            return []
        if session.replaying or session.stepped_out or self.watched is None or self.went_on == self.watched:
            return []
        if not session.first_wait_over(self.watched):
            return []  # a program is not gone before a whole first wait without a word of it
        owners = self.config.owners
        programs = sorted({owners[s] for s in seats if owners[s] != owners[me]})
        waited = [s for o in programs for s in self.seats_of(o)]
        if any(self.received(s) > self.watch_mark.get(s, 0) for s in waited):
            return []  # something of them came during our wait: they are there
        if self._holding_our_key(programs):
            return []
        return [o for o in programs if not self.decided(o) and self.my_vote(o) is None]

    def _holding_our_key(self, programs: list[int]) -> bool:
        """Whether we came back (our `return` is in) but the table still plays our seat until
        our next turn, and a seat of `programs` holds a share of our key. Played by the table,
        those programs' seats would need it: the table could not open our cards until we are
        back, which the game, waiting for them, never reaches; it would stop. So we do not vote
        about them: the table waits for them (the others vote, and withdraw for want of our
        vote), and if they come back the game goes on; if not, the others stop the game, naming
        them absent (`_awaiting_back`, PROTOCOL.md 10.9)."""
        me = self.session.me
        return me is not None and self._waits_to_be_back(me, programs)

    def _waits_to_be_back(self, seat: int, programs: list[int]) -> bool:
        """Whether the table plays `seat` (it vanished) and its player came back (a `return`
        since the table's count) but is not back yet, and a seat of `programs` holds a share of
        its key."""
        stand_in = self.session.stand_ins.get(seat)
        if stand_in is None or stand_in.how != "vanished" or stand_in.removed:
            return False
        if not any(stand_in.limit <= back for back in self.returns.get(seat, ())):
            return False
        holders = set(self.config.escrow_holders(seat))
        return any(s in holders for o in programs for s in self.seats_of(o))

    def go_on_now(self, seats: tuple[int, ...]) -> bool:
        """Our player asks to go on without the programs of the waited `seats` now (issue 28
        point 3): we vote about them at once instead of at the end of our second wait
        (PROTOCOL.md 10.9, "Going on without a player"), when `may_go_on` allows it. It is an
        ordinary vote: every other program must vote too (on its own wait, or its own player's
        word), and a frame of theirs signed after the votes refutes them. True if we voted."""
        voted = False
        for owner in self.may_go_on(seats):
            self.vote(owner)
            voted = self.my_vote(owner) is not None or voted
        if voted:
            self.went_on = self.watched
        return voted

    def isolated(self, seats: tuple[int, ...]) -> None:
        """A whole wait passed with nothing from any other program (`TableSilent`); after
        `ISOLATED_WAITS` of them in a row, stop (`cut_off`), naming nobody absent: from here a
        lost link of ours and a table that went on without us look the same."""
        self.isolated_waits += 1
        self.session.report(TableSilent(seats))
        if self.isolated_waits >= ISOLATED_WAITS:
            self.cut_off = True
            # a stop of our own only, never a signed `halt`: it would be saved in our transcript
            # and replayed by `--resume`, stopping the resumed program at once, and a halt of a
            # seat cut off tells the others nothing they can act on (they play the seat or wait)
            self.session.halt(
                "nobody at the table answered for a long time: this program was cut off (the table "
                "may have gone on without it; --resume takes the seat back if it still plays)",
                announce=False,
            )

    def _cut_off(self) -> bool:
        """Whether no other program sent us anything during our whole wait, at a table of three
        programs or more (with two, a silent other and a lost link look the same: we stop)."""
        me = self.session.me
        if me is None:
            return False
        owners = self.config.owners
        others = [s for s in range(self.config.players) if owners[s] != owners[me]]
        if len({owners[s] for s in others}) < 2:
            return False
        return all(self.received(s) <= self.watch_mark.get(s, 0) for s in others)

    # --- the seats the table plays --------------------------------------------------------------

    def stands_in(self, seat: int, boundary: bool = False) -> bool:
        """Whether the table plays `seat` now: its player left (or vanished) and every game
        message of its chain the table counts is consumed. The first time, the takeover begins
        (reported). At a turn boundary of the seat (`boundary`) a vanished player who is back
        retakes it (`back`)."""
        session = self.session
        stand_in = session.stand_ins.get(seat)
        if stand_in is None or session.halted:
            return False
        if (
            boundary
            and stand_in.started
            and stand_in.how == "vanished"
            and not stand_in.removed
            and self.back(seat, stand_in) != "no"
        ):
            return False  # the player's again ("back"), or its frames are on their way ("wait")
        if session.has_queued(seat):
            return False
        if session.chains[seat].next_seq < stand_in.limit:
            return False  # the table counts frames of the seat we lack: they come (`want`)
        if not stand_in.started and stand_in.how == "vanished":
            if session.state is None:
                return False  # voted before the keys were escrowed (another peer's vote): wait
            self._take_over(seat, stand_in, session.state)
        if not stand_in.started:
            if not stand_in.key or session.joint_key is None:
                # left before the keys were agreed (no key share): the game cannot go on
                session.left_table(seat, stand_in.reason)
                return False
            try:
                stand_in.secret = takeover.check_left_key(stand_in.key, session.public_keys[seat])
            except crypto.CryptoError as exc:
                raise crypto_fault(
                    seat, "left with a key share that is not its own", exc, stand_in.frame
                ) from None
            assert session.state is not None
            self._take_over(seat, stand_in, session.state)
        return True

    def leave_frame(self, envelope: Envelope) -> None:
        """A seat signed a `leave`: the table plays it from the first job that needs it
        (`stands_in`), where every peer is at the same point; its key share is checked there (the
        keys may not be agreed yet here, as when a saved game is read back)."""
        session = self.session
        if envelope.seat == session.me:
            if session.replaying and not session.halted:  # our own leave, read back after a restart
                session.left_table(envelope.seat, envelope.data["reason"])
            return
        if session.halted or session.game_over():
            return  # the game already stopped, or is over: a leave changes nothing
        played = session.stand_ins.get(envelope.seat)
        if played is not None and played.removed:
            return  # the table removed the seat's program: the table plays it already
        session.check_postponed()  # a batch of proofs we put off may show a fault first
        if session.halted:
            return
        session.publish([envelope.frame])  # a peer whose link to the leaver was down gets it too
        seat, reason = envelope.seat, envelope.data["reason"]
        session.stand_ins[seat] = takeover.StandIn(
            seat,
            "left",
            envelope.data["key"],
            takeover.common_bot(self.config.session_id, self.config.game, seat),
            reason=reason,
            frame=envelope.frame,
        )
        session.report(Left(seat, reason))

    def _take_over(self, seat: int, stand_in: takeover.StandIn, state: TableState) -> None:
        stand_in.started = True
        how = "removed" if stand_in.removed else stand_in.how
        self.session.taken_over[seat] = how
        self.session.report(SeatTakenOver(seat, how, len(takeover.undisclosed(state, seat))))

    def witnessed(self, seat: int, seq: int) -> bool:
        """(A live observer, a spectator, on an insured table) whether every other seat still
        playing acknowledged the game frame `seq` of `seat`: only then is it consumed. The
        observer holds what one player relays, in that player's order, which may put a vanished
        seat's frames the table will not count before the votes. A voter that held the frame
        counted it; one that did not acknowledges it only after its vote, which the observer then
        holds first (and waits for the verdict). So the observer reaches `verify`'s verdict
        whatever the order it is given frames in."""
        session = self.session
        return all(
            session.acks.in_chain[other].get(seat, -1) >= seq
            for other in range(self.config.players)
            if other != seat and other not in session.stand_ins
        )

    def drop_void(self, seat: int) -> None:
        """Forget the queued game messages of `seat` the table did not count."""
        queues = self.session.queues
        queues[seat] = deque(e for e in queues[seat] if not self.void(seat, e.seq))

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
        if self.removals.agreed(owner) or owner in self.removals.removed:
            return  # our agreement to remove it is open (or it is removed): one or the other
        attempt = self.ballots.attempt(owner)
        held: Held = {}
        for seat in self.seats_of(owner):
            chain = session.chains[seat]
            held[seat] = (chain.next_seq, chain.last_digest)
        data = {"owner": owner, "held": [[s, n, d] for s, (n, d) in held.items()], "attempt": attempt.number}
        sent = session.emit("vacate", data)
        if sent is None:
            return
        self.ballots.vote(me, owner, held, sent.seq)
        self._mark(owner)
        self.refreeze(owner)
        self._vacate_timer(owner)
        self.progress(owner)

    def stepout_frame(self, envelope: Envelope) -> None:
        """A program's own signed word that its player stepped out (`stepout`, PROTOCOL.md 10.9):
        our observation that it is gone, as a whole wait with nothing of it would be, so we vote
        at once. The vote is an ordinary one: a later frame of that program refutes it."""
        session = self.session
        me = session.me
        owner = self.config.owners[envelope.seat]
        if not self.config.insured or session.state is None or not self.counts(envelope.seat, envelope.seq):
            return  # before the game (every key is not escrowed yet) or not the table's frame
        if envelope.seat not in self.stepped_out_seats:
            self.stepped_out_seats.add(envelope.seat)
            session.report(SteppedOut(envelope.seat))
        if me is None or self.config.owners[me] == owner or session.replaying:
            return
        self.stepped_out.add(owner)
        self.vote(owner)

    def _vacate_timer(self, owner: int) -> None:
        number = self.ballots.attempt(owner).number
        grace = float(self.config.grace_seconds or 1)
        self.session.report(TimerRequest(f"vacate:{owner}:{number}", grace))

    def frame(self, envelope: Envelope) -> None:
        """A `vacate`, `uphold` or `withdraw` frame took its place in its signer's chain."""
        session = self.session
        owner, number, held = self.ballots.check(envelope)
        if owner in self.removals.removed:
            return  # the table removed the program: it plays its seats already
        place = self.ballots.place(owner, number)
        if place == "stale":
            return
        if place == "later":
            self.later.setdefault(owner, []).append(envelope)
            return
        signer = envelope.seat
        if not self._may_count(signer, envelope.seq):
            return  # signed while the table played the signer's seat, before its `return`
        if signer != session.me:
            session.publish([envelope.frame])  # every voter must see every vote and answer
        elif not (session.replaying or self.rereading):
            return  # our own, recorded when we sent it
        if held is not None:
            first = not self.ballots.attempt(owner).votes
            if self.ballots.vote(signer, owner, held, envelope.seq) and session.me is not None:
                self.ballots.attempt(owner).heard = session.chains[session.me].next_seq
                if signer != session.me:
                    self.removals.vote_seen(owner)
            me = session.me
            if first and me is not None and owner == self.config.owners[me] and not session.replaying:
                grace = float(self.config.grace_seconds or 1)
                session.report(TimerRequest(f"vacate:{owner}:{number}", 2 * grace))
            if signer == session.me:
                self._mark(owner)
                self.refreeze(owner)
        elif self.ballots.answer(signer, owner, envelope.kind, envelope.seq) and envelope.kind == "withdraw":
            self._over(owner)
            return
        self.progress(owner)

    def appended(self, envelope: Envelope) -> None:
        """A frame of any seat was accepted: it may show a voted seat is there (it acknowledges a
        vote, or lies beyond what the votes counted), or bring a frame the decision counts."""
        if envelope.seat != self.session.me:
            self.isolated_waits = 0  # someone answers us: we are not cut off
        attempts = self.ballots.attempts
        if attempts:  # (none at all in most games)
            owner = self.config.owners[envelope.seat]
            attempt = attempts.get(owner)
            if attempt is not None and attempt.votes and attempt.decided is None:
                self.progress(owner)
        self.removals.appended()

    def progress(self, owner: int) -> None:
        """Answer our vote when we can, and decide when every answer is in."""
        session = self.session
        if session.halted and session.final:
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
            and not (session.replaying or self.rereading)  # our answer is in our file, next
            and not session.halted
        ):
            if self._refuted(owner, counted):
                self._answer(owner, "withdraw")
                return
            if counted is not None:
                lacking = [s for s, (count, _) in counted.items() if session.chains[s].next_seq < count]
                if not lacking:
                    self._answer(owner, "uphold")
                for seat in lacking:
                    session.want_later(seat)  # another voter holds them
        decision = self.ballots.decide(owner, left)
        if decision is not None:
            self._decided(owner, decision)

    def _mark(self, owner: int) -> None:
        """Our vote about `owner` is in: what we had received of every seat then, and which frames
        of the program's seats we held ahead of a gap."""
        attempt = self.ballots.attempt(owner)
        attempt.marks = {seat: self.received(seat) for seat in range(self.config.players)}
        chains = self.session.chains
        attempt.held_ahead = {seat: frozenset(chains[seat].ahead) for seat in self.seats_of(owner)}

    def _refuted(self, owner: int, counted: Held | None) -> bool:
        """Whether we hold a frame of the program signed after the votes: one that acknowledges
        a vote of this attempt (its seat saw the vote: it is there), or, once every vote is in,
        one beyond what the votes counted that we did not hold when we voted. A frame we held
        then, ahead of a gap in its chain (its seat withheld the frames before it from us, and
        nobody else holds them), came before our whole wait: it was signed before the votes and
        shows nothing; counting it would withdraw every vote about a program that vanished behind
        such a gap, and the table would neither play its seat nor stop (the adversary model's seed
        9771)."""
        session = self.session
        attempt = self.ballots.attempt(owner)
        for seat in self.seats_of(owner):
            acked = session.acks.in_chain[seat]
            if any(acked.get(voter, -1) >= seq for voter, seq in attempt.vote_seqs.items()):
                return True
            if counted is not None and self._beyond(seat, counted[seat][0], attempt.held_ahead.get(seat)):
                return True
        return False

    def _beyond(self, seat: int, seq: int, held_then: frozenset[int] | None) -> bool:
        """Whether we hold a frame of `seat` at `seq` or beyond, other than those held ahead of a
        gap when we voted (`held_then`)."""
        chain = self.session.chains[seat]
        if chain.next_seq > seq:
            return True
        return any(q >= seq and (held_then is None or q not in held_then) for q in chain.ahead)

    def _answer(self, owner: int, kind: str) -> None:
        session = self.session
        attempt = self.ballots.attempt(owner)
        sent = session.emit(kind, {"owner": owner, "attempt": attempt.number})
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
        self._reread(self.later.pop(owner, []))

    def _reread(self, envelopes: list[Envelope]) -> None:
        """Read votes and answers kept until now. Ours among them come from our own file read
        back (we record ours when we send them): they count as they did then, and we answer
        nothing anew while they are read (our answers follow among them)."""
        self.rereading = any(e.seat == self.session.me for e in envelopes)
        try:
            read_later(self.session, envelopes, self.frame)
        finally:
            self.rereading = False

    def refreeze(self, owner: int) -> None:
        """The first frame of each seat of `owner` we may not consume: what the decision counts,
        else what our own vote held, else what an offline check foresees; none otherwise."""
        session = self.session
        attempt = self.ballots.attempt(owner)
        mine = self.my_vote(owner)
        foreseen = self.foreseen.get(owner)
        for seat in self.seats_of(owner):
            if attempt.decided is not None:
                self.frozen[seat] = attempt.decided[seat][0]
            elif seat in session.stand_ins and session.stand_ins[seat].how == "vanished":
                self.frozen[seat] = session.stand_ins[seat].limit
            elif mine is not None:
                self.frozen[seat] = mine[seat][0]
            elif (removal := self.removals.freeze(owner)) is not None:
                self.frozen[seat] = removal[seat][0]
            elif foreseen:
                self.frozen[seat] = foreseen[0][seat][0]
            else:
                self.frozen.pop(seat, None)

    def _decided(self, owner: int, counted: Held) -> None:
        """Every required voter upheld: the table plays the program's seats from what counted."""
        session = self.session
        foreseen = self.foreseen.get(owner)
        if foreseen:
            foreseen.pop(0)
        for seat, (count, _) in counted.items():
            if seat == session.me and session.consumed_upto[seat] > count and not session.replaying:
                # we played on, cut off from the table, beyond what it counted: those moves are
                # void; rebuilt from the saved transcript, this session goes on from the table's
                why = f"the table played seat {seat + 1} from its frame #{count}; ours after it are void"
                session.report(Rewound(why))
                session.jobs_paused = True
            if seat not in session.stand_ins:
                session.stand_ins[seat] = takeover.StandIn(
                    seat,
                    "vanished",
                    b"",
                    takeover.common_bot(self.config.session_id, self.config.game, seat),
                    limit=count,
                )
            if session.chains[seat].next_seq < count:
                session.want_later(seat)
        self.refreeze(owner)
        self.discount()

    def discount(self) -> None:
        """Votes, answers and agreements signed by the seats now played, beyond what counted,
        count nowhere (but those signed after the seat's `return`: they count)."""
        for other in list(self.ballots.attempts):
            if not self.ballots.decided(other) and self.ballots.discount(other, self._may_count):
                self.refreeze(other)
                self.progress(other)
        self.removals.discount()

    # --- timers -------------------------------------------------------------------------------

    def timer_needed(self, name: str) -> bool:
        parsed = attempt_timer(name)
        if parsed is None:
            return False
        attempt = self.ballots.attempt(parsed[0])
        return attempt.number == parsed[1] and attempt.decided is None

    def timer(self, name: str) -> None:
        """`vacate:<owner>:<attempt>` ran out before a decision. Voters that are there but do not
        agree: we withdraw (or wait for their answers). Voters that are silent too: the game
        stops naming them and the program absent. Nobody else answers at all: we are the one cut
        off, so we wait (and say so) rather than stop a table that may be playing on."""
        session = self.session
        parsed = attempt_timer(name)
        if parsed is None:
            return
        owner, number = parsed
        attempt = self.ballots.attempt(owner)
        me = session.me
        if me is None or attempt.number != number or attempt.decided is not None or session.halted:
            return
        if owner == self.config.owners[me]:
            if len({s for s, (say, _) in attempt.answers.items() if say == "uphold" and s != me}) >= 2:
                self._still_voted_out(owner, number)
                return
            attempt.lifted = True  # a vote about us nobody answered: it no longer holds us back
            # and our own wait starts afresh: while the vote held us we could not move (a lone
            # voter must not use up our player's time and have us name ourselves absent)
            session.restart_watch()
            session.advance()
            return
        if me not in attempt.votes:
            # our vote no longer counts (signed while the table played our own seat: we were cut
            # off): nothing of this attempt is ours to settle; the voters' own timers settle it
            return
        left = self.left()
        required = [s for s in self.ballots.required(owner, left) if s != me]
        pending = [s for s in required if s not in attempt.votes or s not in attempt.answers]
        silent = [s for s in pending if self.received(s) <= attempt.marks.get(s, 0)]
        seats = tuple(self.seats_of(owner))
        if required and len(silent) == len(required):
            self.isolated(tuple(sorted({*seats, *silent})))
            if not session.halted:
                self._vacate_timer(owner)  # cut off ourselves, most likely: wait
            return
        if silent:
            absent = tuple(sorted({*seats, *silent}))[:8]
            who = named_seats(self.config, absent)
            session.stop(
                f"{who} did not answer in time (the table could not agree to play on)",
                absent=absent,
            )
            return
        if me in attempt.votes and me not in attempt.answers:
            if self._awaiting_back(owner, [s for s in required if s not in attempt.votes]):
                return
            self._answer(owner, "withdraw")  # the others are there and do not see it gone
            return
        if attempt.retries < QUIET_RETRIES:
            attempt.retries += 1
            self._vacate_timer(owner)
            return
        absent = tuple(sorted({*seats, *pending}))[:8]
        who = named_seats(self.config, absent)
        session.stop(f"{who} did not answer in time (the table could not agree)", absent=absent)

    def _awaiting_back(self, owner: int, pending: list[int]) -> bool:
        """(Our vote's time ran out, votes are missing) Whether each missing voter is a seat the
        table plays that came back and waits for its next turn, whose key a seat of `owner`
        holds: it does not vote (`_holding_our_key`), and the attempt cannot be decided until
        `owner` comes back. We withdraw (False) and vote again at our next whole wait, which
        shows whether it came back; after `MAX_WATCH_RESTARTS` such attempts the game stops
        (True), naming `owner`'s seats absent: it did not come back, and the table cannot play
        it while that seat is not back."""
        if not pending or not all(self._waits_to_be_back(voter, [owner]) for voter in pending):
            return False
        tries = self.awaiting_back.get(owner, 0) + 1
        self.awaiting_back[owner] = tries
        if tries <= MAX_WATCH_RESTARTS:
            return False
        absent = tuple(self.seats_of(owner))[:8]
        self.session.stop(
            f"{named_seats(self.config, absent)} did not come back in time (the table cannot play "
            f"the seat while {named_seats(self.config, tuple(pending))} waits for its turn to be back)",
            absent=absent,
        )
        return True

    def _still_voted_out(self, owner: int, number: int) -> None:
        """Twice the grace passed since a vote about our own program, and two other seats upheld
        it. An honest seat upholds only once every vote is in: the table decided, or is deciding,
        to play our seats, and what we lack of it (a vote held behind a gap of its voter's chain)
        is on its way. Lifted, the hold would have us play on as ourselves and take a holder's
        partials for our seat as a fault (seen on real programs: a player back from a closed lid
        whose host had finished the game and left). So it holds on, and we wait; if nobody sends
        us anything from one of these waits to the next, we count it as a wait cut off from
        everyone (`isolated`: after `ISOLATED_WAITS` of them we stop, naming nobody)."""
        me = self.session.me
        assert me is not None
        owners = self.config.owners
        others = tuple(s for s in range(self.config.players) if owners[s] != owners[me])
        counts = {s: self.received(s) for s in others}
        if self.held_marks and all(counts[s] <= self.held_marks.get(s, 0) for s in others):
            self.isolated(others)
        self.held_marks = counts
        if not self.session.halted:
            grace = float(self.config.grace_seconds or 1)
            self.session.report(TimerRequest(f"vacate:{owner}:{number}", grace))

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
            sent = session.emit("return", {})
            if sent is not None:
                self.returns.setdefault(me, []).append(sent.seq)

    def back(self, seat: int, stand_in: takeover.StandIn) -> str:
        """At a turn boundary of `seat`, which the table plays: "back" (its player's `return` was
        witnessed: some other seat acknowledged, in a game frame every peer consumed, a frame of
        the seat at or after it; the seat is the player's again from this turn), "no" (not yet),
        or "wait" (a witness names frames of the seat we lack: they come, and the answer must be
        the one every peer reaches).

        Any other seat's consumed game frames witness, those of a seat the table plays now
        included (they are frames the table counted): which seats the table plays depends on
        when its decisions reached us, not on the game's order. A session restored from its file
        learns every decision of the file before its jobs replay the game; excluding the seats
        decided later, it found no witness where the table had one, kept playing a seat the
        table had given back, and blamed an honest seat's shares (adversary model seed 31902;
        fault soak seed 9)."""
        session = self.session
        witnessed = max(
            (
                session.acks.consumed[other].get(seat, -1)
                for other in range(self.config.players)
                if other != seat
            ),
            default=-1,
        )
        if witnessed < stand_in.limit:
            return "no"
        if session.chains[seat].next_seq <= witnessed:
            session.want_later(seat)
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
        self.frozen.pop(seat, None)
        self.voids.setdefault(seat, []).append((stand_in.limit, back))
        self.drop_void(seat)
        session.report(SeatReturned(seat))
        if seat == session.me:
            self.returning = False  # should the table play it again, we say so again
        owner = self.config.owners[seat]
        if self.ballots.decided(owner) and not any(s in session.stand_ins for s in self.seats_of(owner)):
            self.ballots.close(owner)
            self.refreeze(owner)
            self._read_later(owner)

    # --- restore and offline checks -----------------------------------------------------------

    def decisions_about_us(self) -> dict[int, tuple[int, Held]]:
        """The table's decisions to play our own program's seats, by owner: (attempt, counted),
        for a session rebuilt from the saved file (`Session.restore(decided=)`)."""
        me = self.session.me
        if me is None:
            return {}
        owner = self.config.owners[me]
        attempt = self.ballots.attempts.get(owner)
        if attempt is None or attempt.decided is None:
            return {}
        return {owner: (attempt.number, dict(attempt.decided))}

    def known_decision(self, owner: int, number: int, counted: Held) -> None:
        """(A session being rebuilt) the table decided, in attempt `number`, to play program
        `owner`'s seats from `counted`: as `_decided`, unless this session reached it itself."""
        attempt = self.ballots.attempt(owner)
        while attempt.number < number and attempt.decided is None:
            self.ballots.close(owner)
            attempt = self.ballots.attempt(owner)
        if attempt.number != number or attempt.decided is not None:
            return
        attempt.decided = counted
        self._decided(owner, counted)

    def resumed(self) -> None:
        """After a restore: ask again for the timers of our open votes, and answer what we can."""
        me = self.session.me
        for owner, attempt in list(self.ballots.attempts.items()):
            if me is not None and me in attempt.votes and attempt.decided is None:
                self._vacate_timer(owner)
                self.progress(owner)
        self.removals.resumed()

    def foresee(self, envelopes: Iterable[Envelope]) -> None:
        """An offline check holds the whole file: the table's decisions to play a vanished seat
        are known before any frame is fed, so that the seat's frames the table did not count
        (its own file holds them before the votes) are never consumed."""
        envelopes = list(envelopes)
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
        self.offline = True
        self.foreseen = found
        self.removals.foresee(envelopes, left)
        for owner in {*found, *self.removals.foreseen}:
            self.refreeze(owner)


__all__ = ["ISOLATED_WAITS", "MAX_WATCH_RESTARTS", "QUIET_RETRIES", "InsuranceContext", "SeatInsurance"]
