"""The session: one peer's side of a game, sans I/O.

Bytes in (`receive_frame`), bytes out (`data_to_send`), events out (`next_events`, including
`TimerRequest`s, since the session keeps no clock). The program that drives it moves frames
between peers (every frame goes to every other peer) and calls `timer_expired` when asked to.

**Order.** Each seat's frames form a signed hash chain (see `messages`). The *game* messages are
consumed in an order every honest peer derives the same way from the engine: the session runs
one *job* at a time (`protocol.jobs`), and each job consumes a known message from known seats, in
seat order: the keys (commit, then reveal with a proof of knowledge), a deal or reshuffle (every
seat shuffles, with a proof), a batch of reveals (decryption shares with one proof), a random
coin (commit, reveal), a move (of the lowest seat the engine lets decide), and after each round
the signatures of the transcript. Messages that arrive early wait in their sender's queue. Each
consumed message extends the transcript hash; every proof is bound (Fiat-Shamir context) to the
session, the prover's seat and the transcript hash at the start of its job.

**Faults.** Anything a seat signed that is wrong (a malformed message, an invalid proof, an
illegal move, a message out of step, a broken chain, two different frames with one sequence
number) halts the session with a `Blamed` event naming the seat; bytes nobody signed are only
refused (`FrameRejected`) and change nothing. The signed frames that prove a fault are relayed to
the other peers as evidence (`protocol.relays`), and every stop is announced in a signed `halt`
frame whose evidence the others check themselves (`protocol.verdicts`). Only a seat whose signed
frames prove a fault is blamed.

**Late seats.** A seat that does not send an automatic message within `step_timeout` (a move:
`move_timeout`) is first sent the frames it may lack (`Relays.unacknowledged`), then, when the
timer expires a second time, named *absent* (`Halted.absent`), never a cheat: a closed lid and a
lost link look the same. On an insured table the others vote to play it instead, each on its own
observation (`protocol.insurance`, PROTOCOL.md 10.9). A player who leaves for good signs a `leave`
(with its key share, once the keys are agreed): the table plays the seat from there
(`protocol.takeover`), or stops if it cannot.

**The parts.** Acknowledgements and disputed echoes: `protocol.acks`. Relays, wants and evidence:
`protocol.relays`. Halts of other seats: `protocol.verdicts`. Complaints about private shares:
`protocol.complaints`. Key escrow: `protocol.escrows`. Votes, takeovers and returns:
`protocol.insurance` (its state table: `protocol.ballots`). Quotas: `protocol.quotas`. Each part
reads the session through a narrow `Protocol` of its own, as the jobs do through `JobContext`.

An observer session (seat None, no keys) checks everything and sends nothing (it asks for dispute
timers too): it is how `skyjo-lan verify` re-checks a saved transcript.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from skyjo_p2p.core.errors import IllegalMove
from skyjo_p2p.core.events import (
    Event as EngineEvent,
)
from skyjo_p2p.core.events import GameOver, MoveVoided, RoundEnded
from skyjo_p2p.core.moves import Move, MoveSchema
from skyjo_p2p.core.state import TableState
from skyjo_p2p.engine import apply, disclose, legal_moves, new_game, rules_for

from . import complaints, crypto, recovery, takeover
from .acks import Acknowledgements
from .chains import MAX_BUFFERED, MAX_BUFFERED_BYTES, Chain
from .config import TableConfig, seat_names
from .crypto.group import encode_scalar
from .crypto.randomness import SYSTEM, RandomSource
from .crypto.signatures import FrameSigner
from .deck import CardStore
from .errors import BadSignature, MalformedMessage, MalformedSignedFrame, Misbehaviour
from .escrows import Escrows
from .events import (
    AwayChanged,
    Blamed,
    Finished,
    FrameRejected,
    Halted,
    Left,
    MoveRefused,
    SessionEvent,
    Started,
    Updated,
    YourMove,
)
from .insurance import SeatInsurance
from .intake import Intake
from .jobs import Job, KeysJob, RoundSignatureJob, Unattributable, job_for
from .messages import MAX_TEXT, SIDE_KINDS, Envelope, open_frame, seal, verifiers_for
from .quotas import Quotas
from .recovery import RECOVER, Recovery
from .relays import Relays, with_relayed
from .steps import StepWatch
from .transcript import extend, transcript_start
from .verdicts import HaltClaims


class Session:
    """One peer's side of a game (or an observer's, with `seat=None`)."""

    def __init__(
        self,
        config: TableConfig,
        seat: int | None,
        identity: Ed25519PrivateKey | None,
        *,
        step_timeout: float = 30.0,
        move_timeout: float | None = None,
        removal_timeout: float | None = None,
        rng: RandomSource = SYSTEM,
    ) -> None:
        if (seat is None) != (identity is None):
            raise ValueError("a seat needs its identity key; an observer has neither")
        if seat is not None and not 0 <= seat < config.players:
            raise ValueError(f"no seat {seat} at this table")
        self.config = config
        self.me = seat
        self._key = identity
        self._signer = FrameSigner(identity) if identity is not None else None
        if identity is not None and seat is not None:
            mine = identity.public_key().public_bytes_raw()
            if mine != config.identities[seat]:
                raise ValueError(f"this identity key is not seat {seat}'s")
        self.players = config.players
        self.step_timeout = step_timeout
        self.move_timeout = move_timeout
        self.removal_timeout = removal_timeout  # None: protocol.removals' rule
        self.rng = rng
        """Where this peer's secrets come from (key share, proofs, shuffles, coins): `secrets`
        unless a deterministic source is passed in (test vectors)."""
        self._rules = rules_for(config.game)
        self.verifiers = verifiers_for(config)
        genesis = config.genesis_hash
        self.chains = [Chain(0, genesis) for _ in range(self.players)]
        self.queues: list[deque[Envelope]] = [deque() for _ in range(self.players)]
        self._out: list[bytes] = []
        self._events: list[SessionEvent] = []
        self.frames: list[bytes] = []
        """Every accepted frame (ours included), in the order accepted: the transcript file
        (less the first `frames_released`, which the driver has on disk: `release_frames`)."""
        self.frames_released = 0
        self.transcript_hash = transcript_start(config)
        self._jobs: deque[Job] = deque([KeysJob()])
        self._job: Job | None = None
        self._job_number = 0
        self._submitted: Move | None = None
        self._your_move_sent = False
        self.halted: str | None = None
        self.culprit: int | None = None
        """The seat proven (by signed evidence) to have broken the protocol, once halted."""
        self.absent: tuple[int, ...] = ()
        """The seats that stopped answering, if that is why the game stopped."""
        self.left: int | None = None
        """The seat that left the table (a signed leave), if that is why the game stopped."""
        self.away: set[int] = set()
        """The seats whose player is away, their own program playing for them (`set_away`)."""
        self.taken_over: dict[int, str] = {}
        """The seats every peer now plays with the common bot, and why ("left" or "vanished")."""
        self.consumed_upto = [0] * self.players
        """Each seat's first sequence number not consumed yet."""
        self._held_back = False
        self.stand_ins: dict[int, takeover.StandIn] = {}
        """Seats whose player left with its key share: the table plays them once their messages run out."""
        self.final = False
        """A proven verdict: nothing more is checked. After a stop without proof (a timeout, a
        halt another peer sent) the session keeps checking what arrives, quietly, so a proof
        arriving later turns the stop into the same verdict every honest peer reaches."""
        self._signed: dict[int, int] = {}
        """Each seat's signature frame of the last round that ended (see `compact`)."""
        self.quotas = Quotas(self.players, seat)
        self.max_ahead_frames = MAX_BUFFERED
        self.max_ahead_bytes = MAX_BUFFERED_BYTES
        """Quotas on frames held ahead of a gap (a verifier reading a whole file lifts them)."""
        self.state: TableState | None = None
        self.cards = CardStore(config.session_id)
        self.secret: int | None = None
        self.my_public_key: crypto.Point | None = None
        self.public_keys: list[crypto.Point] = []
        self.joint_key: crypto.Point | None = None
        self.blamed: list[Blamed] = []
        self.replaying = False
        """True while a saved transcript is fed back in (our own frames are then accepted)."""
        self.jobs_paused = False
        """True while the jobs may not run (a saved transcript is read back; a rewind)."""
        self._coin_secrets: dict[int, crypto.CoinContribution] = {}
        self.stepped_out = False
        """We signed a `stepout` (`step_out`): nothing more is signed by this session."""
        # the parts (see the module's docstring), each reading this session through its Protocol
        self.acks = Acknowledgements(self)
        self.relays = Relays(self)
        self.escrows = Escrows(self)
        self.complaints = complaints.Complaints(self)
        self.halt_claims = HaltClaims(self)
        self.intake = Intake(self)
        self.steps = StepWatch(self)
        self.recovery = Recovery(self)
        self.insurance = SeatInsurance(self)
        """Seat insurance: the votes, the table's decisions, the seats it plays, the returns."""

    # --- the driver's side ----------------------------------------------------------------------

    def start(self) -> None:
        """Take the first steps (send our key commitment)."""
        self.advance()

    def data_to_send(self) -> list[bytes]:
        """Frames to send to every other peer, in order."""
        out, self._out = self._out, []
        return out

    def next_events(self) -> list[SessionEvent]:
        out, self._events = self._events, []
        return out

    def legal_moves(self) -> list[Move]:
        """The moves this peer's seat may submit now (none while a vote about our seat holds the
        jobs back: the table may be playing it)."""
        if self.state is None or self.me is None or self.halted or self.acks.disputes:
            return []
        if self.jobs_paused or self.insurance.paused():
            return []
        return legal_moves(self.state, self.me)

    def submit_move(self, move: Move) -> None:
        """Play a move for this peer's seat. Raises `IllegalMove` if it is not legal now."""
        if self.me is None or self.state is None:
            raise IllegalMove("an observer cannot move")
        if self.halted:
            raise IllegalMove(f"the game has stopped: {self.halted}")
        if self.acks.disputes:
            raise IllegalMove("the game waits until a disputed echo is settled")
        if move.seat != self.me:
            raise IllegalMove(f"this peer plays seat {self.me}, not seat {move.seat}")
        if move not in legal_moves(self.state, self.me):
            apply(self.state, move)  # raises IllegalMove with the engine's reason
            raise IllegalMove("that move is not available now")
        self._submitted = move
        self._your_move_sent = False
        self.advance()

    def send_chat(self, text: str) -> None:
        """Table talk, seen by every seat (R-B7); not part of the game's order."""
        text = text.strip()[:500]
        if text and self.me is not None and not self.halted:
            self._emit("chat", {"text": text})

    @property
    def settled(self) -> bool:
        """The game is over (or halted) and nothing more is due from anyone (last signatures in)."""
        if self.halted:
            return True
        state = self.state
        return state is not None and state.phase == "game_over" and self._job is None and not self._jobs

    @property
    def keeps_checking(self) -> bool:
        """Stopped without proof: what arrives is still checked, so a later proof is found."""
        return not self.final

    def waiting_for(self) -> tuple[str, tuple[int, ...]] | None:
        """What the session waits for now: the step's name (``job:<n>:<kind>:<seat>``) and the
        seats it waits on; None when it waits for nothing (or has stopped)."""
        blocked = self.steps.blocked
        return None if blocked is None else (blocked.name, blocked.seats)

    def queued(self) -> list[Envelope]:
        """Game messages accepted into their chains that no step consumed yet, seat by seat
        (not those of a seat the table plays beyond what it counted: they are not the game's)."""
        return [envelope for seat in range(self.players) for envelope in self.counted_queue(seat)]

    def counted_queue(self, seat: int) -> deque[Envelope]:
        """`seat`'s game messages not consumed yet that the table counts (see `queued`)."""
        queue = self.queues[seat]
        limit = self.insurance.frozen.get(seat)
        if limit is not None and seat in self.stand_ins:  # frames the table did not count
            return deque(e for e in queue if e.seq < limit)
        return queue

    @property
    def frame_count(self) -> int:
        """How many frames were accepted in all (released ones included)."""
        return self.frames_released + len(self.frames)

    def frame_at(self, index: int) -> bytes:
        """The `index`-th accepted frame, if not released yet."""
        return self.frames[index - self.frames_released]

    def release_frames(self, upto: int) -> None:
        """The driver has saved the first `upto` accepted frames: the session forgets them, so
        the transcript is on disk, not in memory twice (memory stays flat over a long game)."""
        drop = min(upto, self.frame_count) - self.frames_released
        if drop > 0:
            del self.frames[:drop]
            self.frames_released += drop

    def next_seq_of(self, seat: int) -> int:
        """The sequence number of the next frame we expect from `seat` (for resend requests)."""
        return self.chains[seat].next_seq

    def own_frames_from(self, seq: int) -> list[bytes]:
        """Our own frames from sequence number `seq` on (to resend after a reconnection)."""
        if self.me is None:
            return []
        chain = self.chains[self.me]
        return [chain.frames[n].frame for n in range(max(0, seq), chain.next_seq) if n in chain.frames]

    def secrets(self) -> dict[str, Any]:
        """What this peer must keep (on its own disk) to resume after a crash: its ElGamal key
        share and the coin contributions it committed to but has not yet revealed. Save it before
        sending the frames that depend on it."""
        return recovery.secrets_of(self)

    @classmethod
    def restore(
        cls,
        config: TableConfig,
        seat: int,
        identity: Ed25519PrivateKey,
        saved: dict[str, Any],
        frames: Iterable[bytes],
        recover: bool = False,
        **options: Any,
    ) -> Session:
        """Rebuild a peer's session after a crash from its saved transcript and `secrets()`
        (`protocol.recovery`). `recover`: the file may have lost its tail, and the others may
        hold frames of ours it lacks: nothing of ours is signed until they are back
        (PROTOCOL.md 10.10). `decided=` the table's decisions about our own program a session
        `Rewound` reached (`SeatInsurance.decisions_about_us`), rebuilt from the saved file."""
        decided, frames = options.pop("decided", None), list(frames)
        session = cls(config, seat, identity, **options)
        if recover:  # our file alone, played on apart (`Recovery.file_finishes`): only if asked
            session.recovery.alone = lambda: cls.restore(config, seat, identity, saved, frames, **options)
        recovery.restore(session, saved, frames, recover, decided)
        return session

    @property
    def recovering(self) -> bool:
        """After a restore: frames of ours the others hold may be missing here (a lost tail);
        nothing of ours is signed until they are back (`peer_holds`)."""
        return self.recovery.active

    def peer_holds(self, seat: int, count: int) -> None:
        """(While recovering) `seat` holds the first `count` frames of our chain (`Recovery`)."""
        self.recovery.peer_holds(seat, count)

    def missing_own(self) -> int | None:
        """(While recovering) the first frame of ours to ask the others for, if any (`Recovery`)."""
        return self.recovery.missing_own()

    def chain_frames(self, seat: int, start: int, most: int = 256) -> list[bytes]:
        """What a seat recovering a lost tail asks us for (`recovery.chain_frames`)."""
        return recovery.chain_frames(self.chains, seat, start, most)

    def receive_frame(self, frame: bytes) -> None:
        """Take one frame from any peer. Faults become events; this never raises."""
        try:
            self._receive(frame)
        except Exception as exc:  # a defect of ours: stop the game, name nobody, never crash
            self._internal_error("receiving a frame", exc)

    def _internal_error(self, doing: str, exc: Exception) -> None:
        reason = f"internal error while {doing}: {type(exc).__name__}: {exc}"[:MAX_TEXT]
        self._events.append(FrameRejected(reason))
        try:
            self.halt(reason)  # tell the others too, naming nobody
        except Exception:  # the defect may be in the very code that halts: stop regardless
            if self.halted is None:
                self.halted = reason
                self._events.append(Halted(reason))
        self.final = True

    def receive_opened(self, envelope: Envelope) -> None:
        """Take a frame the caller already opened with `open_frame` against this table's config
        (signature and schema checked), as `receive_frame` does otherwise. For `skyjo-lan verify`,
        whose survey opens every frame of the file: the signature is checked once, not twice."""
        try:
            self._receive(envelope.frame, envelope)
        except Exception as exc:  # a defect of ours: stop the game, name nobody, never crash
            self._internal_error("receiving a frame", exc)

    def _receive(self, frame: bytes, opened: Envelope | None = None) -> None:
        if self.final:
            # A proven verdict stands: nothing more is kept. Only a `want` is answered (within
            # the relay budget): a peer still checking the evidence may need our frames.
            try:
                asked = open_frame(frame, self.config, self.verifiers)
            except (MalformedMessage, BadSignature):
                return
            if asked.kind == "want" and asked.seat != self.me:
                self.relays.serve_want(asked.seat, asked.data["seat"], asked.data["from"])
            return
        try:
            envelope = opened if opened is not None else open_frame(frame, self.config, self.verifiers)
        except MalformedSignedFrame as exc:
            if exc.seat == self.me:  # not ours (we sign no such thing): nobody else can be blamed
                self._events.append(FrameRejected(exc.reason))
            else:
                self.blame(Misbehaviour(exc.seat, exc.reason, (exc.frame,)))
            return
        except (MalformedMessage, BadSignature) as exc:
            self._events.append(FrameRejected(exc.reason))
            return
        try:
            self.intake.accept(envelope)
            self.insurance.appended(envelope)
            self.advance()  # any frame it makes us send acknowledges it (see "Acknowledgements")
        except Misbehaviour as fault:
            self.blame(fault)
        if self.me is not None:  # (an observer owes no acknowledgement: `arm_timer` at once returns)
            self.acks.arm_timer()

    def timer_expired(self, name: str) -> None:
        """A `TimerRequest` ran out (see `_timer`). Never raises."""
        try:
            self._timer(name)
        except Exception as exc:
            self._internal_error(f"handling timer {name}", exc)

    def timer_needed(self, name: str) -> bool:
        """Whether a timer asked for is still of use (a driver may cancel it otherwise: it is ignored)."""
        kind, _, rest = name.partition(":")
        if kind == "want":
            return self.relays.want_needed(rest)
        if self.halted:
            return False
        if kind in ("ack", "echo"):
            return self.acks.timer_needed(kind, rest)
        if kind == "vacate":
            return self.insurance.timer_needed(name)
        if kind == "remove":
            return self.insurance.removals.timer_needed(name)
        if kind == RECOVER:
            return self.recovering
        return self.steps.needed(name)

    def leave(self, reason: str = "left the table") -> bool:
        """This peer's player leaves the table for good: sign and send a `leave` frame and stop
        (`Left`, then `Halted` with `left` set). False (nothing sent) for an observer, after the
        end of the game, or once the game has stopped."""
        if self.me is None or self.halted or self.final or self.game_over():
            return False
        reason = reason.strip()[:MAX_TEXT] or "left the table"
        # our key share, so the others can play on: only once the keys are agreed (before, the
        # share would open nothing, and the game cannot go on without a seat's key anyway)
        key = encode_scalar(self.secret) if self.secret is not None and self.joint_key is not None else b""
        self._emit("leave", {"reason": reason, "key": key})
        self.left_table(self.me, reason)
        return True

    def step_out(self) -> bool:
        """This peer's player steps out without leaving the table (Ctrl-C: the program ends, and
        `--resume` brings it back). At an insured table whose game runs, sign a `stepout` so the
        others play our seats at once instead of waiting out the grace (PROTOCOL.md 10.9), then
        sign nothing more. False (nothing sent) otherwise: the others wait for us as for a lost
        link."""
        if self.me is None or self.halted or self.final or self.game_over() or self.stepped_out:
            return False
        if not self.config.insured or self.state is None:
            return False
        self._emit("stepout", {})
        self.stepped_out = self.jobs_paused = True
        return True

    def go_on_without(self) -> bool:
        """Our player asks the table to go on without the programs the current step waits for
        (issue 28 point 3): at an insured table, once the first of our two waits ran out with
        nothing of them, we vote now instead of at the end of the second (`SeatInsurance.go_on_now`).
        The table plays their seats only once every other program voted too, and never one whose
        frame signed after the votes arrives first. False if we did not vote."""
        return self.insurance.go_on_now(self.blocked_seats())

    def remove_player(self, owner: int, agree: bool = True) -> None:
        """Our player proposes or agrees (`agree`), or refuses, that the table remove program
        `owner` (PROTOCOL.md 10.9, "Removing a player": only every other program together
        decides it). Raises `RemovalRefused` (with a `code`) when that is not possible now."""
        removals = self.insurance.removals
        removals.agree(owner) if agree else removals.refuse(owner)
        self.advance()

    def may_go_on_without(self) -> tuple[int, ...]:
        """The seats our player may ask to go on without now (`go_on_without`); empty if none."""
        return tuple(
            s
            for owner in self.insurance.may_go_on(self.blocked_seats())
            for s in self.insurance.seats_of(owner)
        )

    def set_away(self, away: bool) -> bool:
        """Say that this peer's player is away (their program plays for them: autopilot) or back.
        Sends a signed `away` frame when that changes; False (nothing sent) otherwise, for an
        observer, or once the game is over or stopped."""
        if self.me is None or self.halted or self.final or self.game_over():
            return False
        if (self.me in self.away) == away:
            return False
        self._emit("away", {"away": away})
        self.note_away(self.me, away)
        return True

    def note_away(self, seat: int, away: bool) -> None:
        """`seat`'s player is away (its program plays for it) or back: an `AwayChanged` event."""
        if (seat in self.away) == away:
            return
        if away:
            self.away.add(seat)
        else:
            self.away.discard(seat)
        self._events.append(AwayChanged(seat, away))

    def game_over(self) -> bool:
        """The game is over (its result stands)."""
        return self.state is not None and self.state.phase == "game_over"

    def left_table(self, seat: int, reason: str) -> None:
        """`seat` signed a leave and the table cannot play it (it is us, or it left before the
        keys were agreed): the game stops for everyone, blaming nobody."""
        who = seat_names(self.config)[seat]
        if seat == self.me:
            self._events.append(Left(seat, reason))
        self.halt(f"{who} (seat {seat + 1}) left the table", left=seat, announce=False)

    # --- seats the table plays (see `protocol.takeover`) ----------------------------------------

    @property
    def acting(self) -> int | None:
        """Our seat, if we play it now (see `JobContext.acting`)."""
        me = self.me
        return None if me is None or me in self.stand_ins else me

    def stands_in(self, seat: int, boundary: bool = False) -> bool:
        """Whether the table plays `seat` now (`SeatInsurance.stands_in`)."""
        if seat not in self.stand_ins:  # (asked at every frame a job waits on: the common answer)
            return False
        return self.insurance.stands_in(seat, boundary)

    def stand_in_shares(self, seat: int, ciphertexts: Sequence[crypto.Ciphertext]) -> list[crypto.Point]:
        """The decryption shares of a seat the table plays, as every peer computes them."""
        return takeover.stand_in_shares(self.stand_ins[seat], ciphertexts)

    def own_queued(self, kind: str, job: int) -> list[Envelope]:
        """Our own game messages of `kind` for job `job` not yet consumed (after a resume)."""
        if self.me is None:
            return []
        return [e for e in self.queues[self.me] if e.kind == kind and e.data.get("job") == job]

    def foresee(self, envelopes: Iterable[Envelope]) -> None:
        """An offline check holds the whole file: the table's decisions are known before any
        frame is fed (`SeatInsurance.foresee`); a live peer never holds such frames before it votes."""
        self.insurance.offline = True
        self.insurance.foresee(with_relayed(envelopes, self.open))

    def first_wait_over(self, name: str) -> bool:
        """Whether the first of our two waits for the step `name` ran out (its frames were
        relayed to the waited seats and the last wait runs)."""
        return self.steps.first_wait_over(name)

    def restart_watch(self) -> None:
        """Our wait for the seats the current job waits for starts afresh (`StepWatch.restart`)."""
        self.steps.restart()

    @property
    def cut_off(self) -> bool:
        """We stopped, no other program answering for long (`SeatInsurance`, `Recovery`)."""
        return self.insurance.cut_off or self.recovery.gave_up

    def escrow_kept(self, dealer: int, seq: int) -> None:
        """`dealer`'s escrow (its frame `seq`) was consumed: judge the complaints about it."""
        self.complaints.escrow_kept(dealer, seq)

    def rebuilds(self, seat: int) -> bool:
        """Whether a seat the table plays has no published key share: its decryption shares are
        rebuilt from its escrow holders' partials (it vanished)."""
        return self.stand_ins[seat].secret is None

    def stand_in_move(self, seat: int) -> Move:
        """The common bot's move for a seat the table plays."""
        assert self.state is not None
        return takeover.bot_move(self.stand_ins[seat], self.state)

    def played_by_table(self, seat: int) -> bool:
        """Whether the table has begun to play `seat` (reveals to it are made public)."""
        return seat in self.taken_over

    def undisclosed(self, seat: int) -> list[int]:
        """The cards `seat` knows that not everyone does (to be made public before its bot plays)."""
        assert self.state is not None
        return takeover.undisclosed(self.state, seat)

    def disclose(self, handle: int, value: int) -> None:
        """Make a card public (a seat the table plays knew it): engine, then events."""
        assert self.state is not None
        self.state, events = disclose(self.state, handle, value)
        self.after_engine(events)

    def stop(self, reason: str, culprit: int | None = None, absent: tuple[int, ...] = ()) -> None:
        """Stop the game from outside (the link layer found a split table, the player quit):
        a `Halted` event, and a signed halt frame telling the other peers."""
        self.halt(reason, culprit, absent)

    def _timer(self, name: str) -> None:
        """A `TimerRequest` ran out: what asked for it handles it (a step's wait: `StepWatch.expired`)."""
        kind = name.partition(":")[0]
        if kind == "want":
            self.relays.want_timeout(name)
        elif self.halted:
            return
        elif kind == "ack":
            self.acks.ack_timer(name)
        elif kind == "echo":
            self.acks.echo_timeout(name)
        elif kind == "vacate":
            self.insurance.timer(name)
        elif kind == "remove":
            self.insurance.removals.timer(name)
        elif name == RECOVER:
            self.recovery.timer()
        else:
            self.steps.expired(name)

    @property
    def disputes(self) -> list[tuple[int, int]]:
        """(seat, seq) of the frames some peer acknowledged with another hash than ours, unsettled."""
        return sorted(self.acks.disputes)

    def check_postponed(self) -> None:
        """Run now the checks the current job put off (a batch of shuffle proofs).

        The author of the first bad message is blamed. `timer_expired` does this before blaming a
        late seat; an offline verifier does it at the end of a transcript.
        """
        if self.final or self._job is None:
            return
        try:
            self._job.postponed_checks(self)
        except Misbehaviour as fault:
            self.blame(fault)

    # --- what the parts share (`protocol.acks`, `protocol.relays`, `protocol.complaints`) ------

    def publish(self, frames: Iterable[bytes]) -> None:
        """Relay signed frames that prove a fault to the other peers, once each (`Relays`)."""
        self.relays.publish(frames)

    def want_later(self, seat: int) -> None:
        """Ask shortly for the frames of `seat` an acknowledgement showed we lack (`Relays`)."""
        self.relays.want_later(seat)

    def open(self, frame: bytes) -> Envelope:
        """Open and check a signed frame of this table (`messages.open_frame`)."""
        return open_frame(frame, self.config, self.verifiers)

    def accept(self, envelope: Envelope) -> None:
        """Take a frame into its chain (relayed frames come here as received ones do)."""
        self.intake.accept(envelope)

    def append(self, envelope: Envelope) -> None:
        """Append a frame that follows its chain (a frame of ours recovered: `Intake.append`)."""
        self.intake.append(envelope)

    def blocked_seats(self) -> tuple[int, ...]:
        """The seats the current step waits for."""
        return self.steps.seats

    def stop_counts(self, seat: int, seq: int) -> bool:
        """Whether a stop without proof that `seat` signed at `seq` counts (`SeatInsurance`)."""
        return self.insurance.stop_counts(seat, seq)

    # --- frames out ---------------------------------------------------------------------------

    def _emit(self, kind: str, data: dict[str, Any]) -> Envelope | None:
        """Sign and send one of our frames; game messages are no longer sent once halted."""
        assert self.me is not None and self._signer is not None
        if self.halted and kind not in SIDE_KINDS:
            return None
        if self.recovering:
            return None  # frames of ours the others hold may be missing here: sign nothing yet
        if self.stepped_out:
            return None  # a frame of ours after our `stepout` would refute the others' votes
        if kind in ("echo", "want") and not self.quotas.may_send(256):
            return None  # the others get it another way: we never cross our own quotas
        # every frame acknowledges what we hold: no frame of ours acts on an unacknowledged one
        acks = self.acks.pending()
        chain = self.chains[self.me]
        envelope = seal(
            self.config, self._signer, self.me, chain.next_seq, chain.last_digest, kind, data, acks
        )
        self.acks.sent(envelope, acks)
        self.quotas.sent(envelope)
        chain.frames[envelope.seq] = envelope
        chain.next_seq += 1
        chain.last_digest = envelope.digest
        self.frames.append(envelope.frame)
        self._out.append(envelope.frame)
        if kind not in SIDE_KINDS:
            self.queues[self.me].append(envelope)
        return envelope

    # --- the jobs -------------------------------------------------------------------------------

    def advance(self) -> None:
        if self.jobs_paused or self.recovery.active or self.insurance.paused():
            self._held_back = True
            return
        if self._held_back:  # a move asked for while held back could not be made: ask again
            self._held_back = self._your_move_sent = False
        if self.me is not None:  # (an observer announces nothing: `announce_return` at once returns)
            self.insurance.announce_return()
        while not self.final and not self.acks.disputes:
            if self._job is None:
                if self.insurance.paused():  # a vote about us, read at a seat's return (`back`)
                    self._held_back = True
                    return
                self._job = self._next_job()
                if self._job is None:
                    self.steps.nothing()
                    return
                self._job_number += 1
                self._job.begin(self, self._job_number)
            try:
                done = self._job.run(self)
            except Misbehaviour as fault:
                self.blame(fault)
                return
            except Unattributable as exc:
                self.halt(str(exc))
                self.final = True
                return
            finally:
                if self.halt_claims.claims:  # (none to settle in most games)
                    self.halt_claims.settle()
            if done:
                self._job = None
                continue
            if self.intake.unparked():
                continue
            self.steps.wait(self._job.blocked(self))
            return

    def _next_job(self) -> Job | None:
        if self._jobs:
            return self._jobs.popleft()
        state = self.state
        if state is None:
            return None
        if not state.pending and state.phase == "game_over":
            return None
        job = job_for(state)
        if job is None:
            self.halt(f"the game cannot go on (phase {state.phase}, nobody may move)")
        return job

    # --- what a job sees (`protocol.jobs.JobContext`) ------------------------------------------

    @property
    def move_schema(self) -> MoveSchema:
        """The shapes of the game's moves."""
        return self._rules.schema

    def composition(self, deck: str) -> Sequence[int]:
        """The values of `deck`'s physical cards in the current state, in card-id order."""
        assert self.state is not None
        return self._rules.composition(self.state, deck)

    def emit(self, kind: str, data: dict[str, Any]) -> Envelope | None:
        """Sign and send one of our frames (see `_emit`)."""
        return self._emit(kind, data)

    def resend(self, frame: bytes) -> None:
        """Send one of our frames again, as it is (a `want` for our own frames: `Relays.serve_want`);
        a peer that holds it ignores it."""
        self._out.append(frame)

    def has_queued(self, seat: int) -> bool:
        """Whether a game message of `seat` waits in its queue, not yet consumed (and may be)."""
        queue = self.queues[seat]
        if not queue:
            return False
        limit = self.insurance.frozen.get(seat)
        if limit is not None and queue[0].seq >= limit:
            return False
        observer = self.me is None and not self.insurance.offline
        if observer and self.config.insured and queue[0].kind != "roundsig":
            # (a round's signatures are exempt: the game's last ones may never be acknowledged,
            # the programs being gone; one the table did not count changes no card and no score)
            return self.insurance.witnessed(seat, queue[0].seq)
        return True

    def coin_secrets(self) -> dict[int, crypto.CoinContribution]:
        """Our coin contributions made and not yet revealed (kept for a resume: `secrets`)."""
        return dict(self._coin_secrets)

    def coin_secret(self, number: int) -> crypto.CoinContribution | None:
        """Our contribution to the coin of job `number`, if one was made or restored."""
        return self._coin_secrets.get(number)

    def keep_coin_secret(self, number: int, contribution: crypto.CoinContribution) -> None:
        """Keep a contribution for a resume until it is revealed (see `secrets`)."""
        self._coin_secrets[number] = contribution

    def forget_coin_secret(self, number: int) -> None:
        """The coin of job `number` is decided."""
        self._coin_secrets.pop(number, None)

    def report(self, event: SessionEvent) -> None:
        """Hand an event to the driver (`next_events`)."""
        self._events.append(event)

    def head(self, seat: int, kind: str, job: int | None) -> Envelope | None:
        """The next game message of `seat` if it is the one this job needs; a fault otherwise."""
        queue = self.queues[seat]
        if not queue or not self.has_queued(seat):  # (empty: what a job waiting on the seat meets)
            return None
        envelope = queue[0]
        if self.insurance.holds(seat, envelope.seq):
            return None
        data_job = envelope.data.get("job")
        if envelope.kind != kind or (job is not None and data_job != job):
            expected = kind if job is None else f"{kind} for job {job}"
            got = envelope.kind if data_job is None else f"{envelope.kind} for job {data_job}"
            raise Misbehaviour(seat, f"sent {got} when {expected} was due", (envelope.frame,))
        return envelope

    def consume(self, envelope: Envelope) -> None:
        self.queues[envelope.seat].popleft()
        self.quotas.dequeued(envelope)
        self.consumed_upto[envelope.seat] = envelope.seq + 1
        self.acks.consumed_frame(envelope)
        self.transcript_hash = extend(self.transcript_hash, envelope.digest)
        if self.halt_claims.claims:
            self.halt_claims.seen(envelope.seat, envelope.seq)

    def context(self, seat: int, transcript_hash: bytes) -> bytes:
        return crypto.make_context(self.config.session_id, seat, transcript_hash)

    def engine(self, action: Any) -> None:
        """Apply an answer or a move to the engine and report what happened."""
        assert self.state is not None
        self.state, events = apply(self.state, action)
        self.after_engine(events)

    def after_engine(self, events: Iterable[EngineEvent]) -> None:
        facts = tuple(events)
        self._events.append(Updated(facts))
        self._your_move_sent = False
        for fact in facts:
            if isinstance(fact, RoundEnded):
                self._jobs.append(RoundSignatureJob(fact.round))
            elif isinstance(fact, GameOver):
                self._events.append(Finished(fact.winners, fact.totals))
            elif isinstance(fact, MoveVoided):
                # a move its own engine would have refused, proven so by the public reveal
                raise Misbehaviour(fact.seat, f"played a card that was not what it claimed: {fact.reason}")

    def your_move(self) -> None:
        if not self._your_move_sent and not self.halted:
            self._your_move_sent = True
            self._events.append(YourMove())

    def take_submitted(self) -> Move | None:
        move, self._submitted = self._submitted, None
        return move

    def refuse_submitted(self, reason: str) -> None:
        self._events.append(MoveRefused(reason))
        self._your_move_sent = False

    def start_game(self) -> None:
        self.state, events = new_game(self.config.game, self.players, dict(self.config.options))
        self._events.append(Started())
        self.after_engine(events)

    # --- faults -------------------------------------------------------------------------------

    def blame(self, fault: Misbehaviour, halt: bool = True) -> None:
        """Report a fault and relay its evidence, so that every honest peer reaches this verdict."""
        if self.final:
            return  # a verdict stands; more of the same (evidence keeps arriving) is nothing new
        event = Blamed(fault.seat, fault.reason, fault.evidence)
        self.blamed.append(event)
        self._events.append(event)
        self.publish(fault.evidence)
        if halt:
            self.halt(f"seat {fault.seat + 1}: {fault.reason}", culprit=fault.seat, evidence=fault.evidence)

    def halt(
        self,
        reason: str,
        culprit: int | None = None,
        absent: tuple[int, ...] = (),
        evidence: tuple[bytes, ...] = (),
        announce: bool = True,
        left: int | None = None,
    ) -> None:
        """Stop the game with a verdict and tell every peer in a signed halt frame.

        A stop without proof (`culprit` None) can still become a proven verdict later (see
        `final`); a proven one is final.
        """
        if self.final or (self.halted is not None and culprit is None):
            return
        self.halted = reason
        self.culprit = culprit
        self.absent = tuple(absent)
        self.left = left
        self.steps.nothing()
        if culprit is not None:
            self.final = True
        self._events.append(Halted(reason, culprit, self.absent, left))
        if announce and self.me is not None and not self.replaying:
            self.emit("halt", self.halt_claims.announcement(reason, culprit, self.absent, evidence))

    def compact(self, signed: Mapping[int, int]) -> None:
        """A round ended: every seat signed the transcript at its frame `signed[seat]`.

        Keep only the digests of each chain's frames before that seat's signature of the round
        *before* this one. Every seat that signed this round consumed every seat's game messages
        of this round, so it holds each chain up to its first game message of this round, which
        comes after its signature of the previous round, and every side frame before it: nobody
        will ask for those frames again (after a reconnection or a crash either), and nothing
        before them can be disputed but by a second version of a frame (told by its digest).
        One round is kept whole for a peer that crashed before receiving our last signature.

        Nothing is dropped while the table plays a vanished seat: its player may come back from
        a saved game many rounds old and needs every frame since (they are resent from memory).
        """
        previous, self._signed = self._signed, dict(signed)
        if any(stand_in.how == "vanished" for stand_in in self.stand_ins.values()):
            return
        for seat, seq in previous.items():
            self.chains[seat].compact(seq)
        self.complaints.round_signed()
        self.relays.compact(signed)
