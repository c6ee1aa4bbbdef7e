"""The session: one peer's side of a game, sans I/O.

Bytes in (`receive_frame`), bytes out (`data_to_send`), events out (`next_events`, including
`TimerRequest`s, since the session keeps no clock). The program that drives it moves frames
between peers (every frame goes to every other peer) and calls `timer_expired` when asked to.

**Order.** Each seat's frames form a signed hash chain (see `messages`). The *game* messages are
consumed in an order every honest peer derives the same way from the engine: the session runs
one *job* at a time, and each job consumes a known message from known seats, in seat order:

* keys: every seat commits to its ElGamal key share, then reveals it with a proof of knowledge;
* a deal or reshuffle request: every seat shuffles in seat order (Terelius-Wikstrom proofs);
* a batch of reveal requests: every seat that owes decryption shares sends them, with one proof;
* a random request: every seat commits to a random value, then reveals it;
* otherwise: the move of the lowest seat the engine lets decide;
* after each round: every seat signs the transcript hash.

Messages that arrive early wait in their sender's queue. Each consumed message extends the
transcript hash; every proof is bound (Fiat-Shamir context) to the session, the prover's seat and
the transcript hash at the start of its job, so no proof can be replayed elsewhere.

**Faults.** Anything a seat signed that is wrong (a malformed message, an invalid proof, an
illegal move, a message out of step, a broken chain, two different frames with one sequence
number) halts the session with a `Blamed` event naming the seat; bytes nobody signed are only
refused (`FrameRejected`) and change nothing. The signed frames that prove a fault are relayed to
the other peers as `evidence` (a relayed frame is taken exactly as if received directly), so a peer
that was sent another version of a frame reaches the same verdict.

**Acknowledgements.** Every frame a peer sends carries, in its signed body, the hash of the latest
game frame it holds of each other seat whose latest changed since its previous frame (the hash
chain makes one acknowledgement cover every earlier frame of that seat). So a peer never acts
visibly on a frame before acknowledging it: the frame that acts carries the acknowledgement, and
a peer always gets another's acknowledgement of a frame with (or before) anything that other peer
did because of it. When a game frame we hold stays unacknowledged and no frame of ours carried it
within `ACK_DELAY`, a stand-alone `echo` frame does (we ask for an `ack:<n>` timer; a frame of
ours sent meanwhile makes it of no use). An acknowledged hash that differs from ours opens a
dispute: our version and the disagreeing frame are relayed to all at once, and no job runs (the
frame that carried it is not consumed either), no move is taken and nobody is timed out until
either the other version arrives (two signed frames: the author equivocated; or two frames of the
acknowledger with one number: it did) or the `echo:` timer runs out: then the game stops naming
the acknowledger absent, blaming nobody (nothing signed shows who lied).

A seat that does not send an automatic message within `step_timeout` stops the game when the timer
expires a second time, named as *absent* (`Halted.absent`), never as a cheat: a closed lid and a
lost link look the same. At the first expiry the other seats' frames it has not acknowledged are
relayed to it (one may have been lost, or withheld from it by another seat). A move is waited for
`move_timeout` in all (the relay comes `min(step_timeout, move_timeout / 2)` before the end).
Unless a check put off until then (a batch of shuffle proofs) shows that an earlier message was
bad: its author is blamed instead.

**Leaving.** A player who leaves for good says so: `leave()` signs a `leave` side frame (in the
seat's chain, so in every transcript) and every peer that receives it, whatever job runs, stops
the game with `Left(seat)` and `Halted(left=seat)`, blaming nobody, and relays the frame once (a
peer whose link to the leaver was down gets it too). A leave after the end of the game is
ignored (the result stands); a leave after another stop changes nothing.

**Verdicts.** Only a seat whose signed frames prove a fault is blamed (`Halted.culprit`). Every
stop is announced in a signed `halt` side frame carrying its evidence; a peer that receives one
takes the evidence in as if received directly, so it reaches the same verdict itself, and until
then stops too but keeps checking what arrives, quietly (no game message of its own, no timers).
A halt whose evidence, once fully checked, proves nothing blames its sender. An acknowledgement
that shows a frame we lack starts a short `want` timer; any peer answers a `want` by relaying the frames.
Quotas bound what one seat can make others hold (see the constants above).

An observer session (seat None, no keys) checks everything and sends nothing (it asks for dispute
timers too): it is how `skyjo-lan verify` re-checks a saved transcript.
"""

from __future__ import annotations

import hashlib
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

from . import complaints, crypto, takeover
from .chains import MAX_BUFFERED, MAX_BUFFERED_BYTES, Chain
from .config import TableConfig, seat_names
from .crypto.group import encode_scalar
from .crypto.randomness import SYSTEM, RandomSource
from .deck import CardStore
from .errors import BadSignature, MalformedMessage, MalformedSignedFrame, Misbehaviour
from .events import (
    AwayChanged,
    Blamed,
    ChatReceived,
    Finished,
    FrameRejected,
    Halted,
    Left,
    MoveRefused,
    SeatTakenOver,
    SessionEvent,
    Started,
    TableSilent,
    TimerRequest,
    Updated,
    YourMove,
)
from .insurance import SeatInsurance
from .jobs import Blocked, Job, KeysJob, RoundSignatureJob, Unattributable, crypto_fault, job_for
from .messages import MAX_TEXT, SIDE_KINDS, Ack, Envelope, open_frame, seal, verifiers_for
from .quotas import Quotas
from .transcript import extend, transcript_start

MAX_HALT_EVIDENCE = 900_000
"""Bytes of evidence a halt frame carries (the rest was relayed as `evidence` frames already)."""
CLAIM_WINDOW = 1024
"""Acknowledgement claims are kept only about frames at most this far past what we hold of their
chain."""
WANT_DELAY = 1.0
"""Seconds to wait for a frame an acknowledgement showed exists before asking the others for it."""
ACK_DELAY = 0.25
"""Seconds a game frame we hold may stay unacknowledged before a stand-alone `echo` frame
acknowledges it (when no frame of ours carried the acknowledgement meanwhile)."""
MAX_WATCH_RESTARTS = 4
"""How many times a wait starts afresh because the waited program sent something meanwhile (it is
there) before the game stops naming it absent anyway (it never sends what the game needs)."""
ISOLATED_WAITS = 8
"""How many whole waits in a row in which no other program sent us anything (we are cut off,
`TableSilent`) before we stop (`cut_off`): the table has long played our seat or ended, and
`--resume` takes the seat back where the table still plays."""
MAX_SERVED = 3
"""How often one frame is relayed in answer to `want`s (a flood of wants amplifies nothing)."""


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
        rng: RandomSource = SYSTEM,
    ) -> None:
        if (seat is None) != (identity is None):
            raise ValueError("a seat needs its identity key; an observer has neither")
        if seat is not None and not 0 <= seat < config.players:
            raise ValueError(f"no seat {seat} at this table")
        self.config = config
        self.me = seat
        self._key = identity
        if identity is not None and seat is not None:
            mine = identity.public_key().public_bytes_raw()
            if mine != config.identities[seat]:
                raise ValueError(f"this identity key is not seat {seat}'s")
        self.players = config.players
        self.step_timeout = step_timeout
        self.move_timeout = move_timeout
        self.rng = rng
        """Where this peer's secrets come from (key share, proofs, shuffles, coins): `secrets`
        unless a deterministic source is passed in (test vectors)."""
        self._rules = rules_for(config.game)
        self._verifiers = verifiers_for(config)
        genesis = config.genesis_hash
        self._chains = [Chain(0, genesis) for _ in range(self.players)]
        self._queues: list[deque[Envelope]] = [deque() for _ in range(self.players)]
        self._out: list[bytes] = []
        self._events: list[SessionEvent] = []
        self.frames: list[bytes] = []
        """Every accepted frame (ours included), in the order accepted: the transcript file
        (less the first `frames_released`, which the driver has on disk: `release_frames`)."""
        self.frames_released = 0
        self.transcript_hash = transcript_start(config)
        self._latest: list[tuple[int, bytes] | None] = [None] * self.players
        """Each seat's latest game frame we hold: (seq, digest)."""
        self._acked = [-1] * self.players
        """The sequence number our latest acknowledgement of each seat named (-1: none yet)."""
        self._ack_timer = 0
        """The number of the last `ack:<n>` timer asked for (only that one is of use)."""
        self._ack_armed = False
        self._echo_claims: dict[tuple[int, int], dict[int, bytes]] = {}
        self._disputes: set[tuple[int, int]] = set()
        """(seat, seq) of frames some peer acknowledged with another hash than ours: no job runs."""
        self._published: set[bytes] = set()
        self._reminded: set[str] = set()
        self._relaying = False
        """Timers that expired once: the frames their seats lacked were relayed (see timer_expired)."""
        self._jobs: deque[Job] = deque([KeysJob()])
        self._job: Job | None = None
        self._job_number = 0
        self._blocked: Blocked | None = None
        self._timer_for: str | None = None
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
        self._escrows: dict[int, tuple[crypto.EscrowDeal, crypto.EscrowTerms, Envelope]] = {}
        """Each seat's key escrow (insured tables), once consumed at the keys step."""
        self._escrow_shares: dict[int, int] = {}
        """Our share of each seat's key whose escrow we hold (opened and checked)."""
        self._frozen: dict[int, int] = {}
        """seat -> the first sequence number of its frames we may not consume: we asked the table
        to play it (`vacate`), or the table decided to; what we held then is all that counts."""
        self._acks_in_chain: list[dict[int, int]] = [{} for _ in range(self.players)]
        """seat -> other seat -> the highest frame of it this seat's chain acknowledged so far."""
        self._ack_marks: dict[tuple[int, int], dict[int, int]] = {}
        """(seat, seq) of a game frame not consumed yet -> what its chain acknowledged up to it."""
        self._consumed_acks: list[dict[int, int]] = [{} for _ in range(self.players)]
        """What each seat's chain acknowledged up to its last game frame consumed: the same on
        every peer at the same point of the game (a return waits for every seat's)."""
        self._consumed_upto = [0] * self.players
        self._watch_mark: dict[int, int] = {}
        """seat -> frames received of it when our current wait began: a vote needs a whole wait
        with nothing of the waited program (`_timer`)."""
        self._watch_restarts = 0
        self._watched: str | None = None
        self._held_back = False
        self._isolated_waits = 0
        self.cut_off = False
        """We stopped because no other program answered for `ISOLATED_WAITS` waits in a row: this
        program was cut off, not the others; the game may go on without it (`--resume`)."""
        self._foreseen = False
        """An offline check: the votes are known before any frame is fed (`foresee`)."""
        self.stand_ins: dict[int, takeover.StandIn] = {}
        """Seats whose player left with its key share: the table plays them once their messages
        run out (`stands_in`)."""
        self.insurance = SeatInsurance(self)
        """The votes to play a vanished program, the table's decisions, the returns (10.9)."""
        self._final = False
        """A proven verdict: nothing more is checked. After a stop without proof (a timeout, a
        halt another peer sent) the session keeps checking what arrives, quietly, so a proof
        arriving later turns the stop into the same verdict every honest peer reaches."""
        self._halt_claims: list[tuple[int, int, bytes, set[tuple[int, int]]]] = []
        """Halts of other seats naming a culprit we have not confirmed: (sender, culprit, frame,
        game frames of its evidence not yet consumed here)."""
        self._echo_max: dict[tuple[int, int], int] = {}
        """(acknowledger, owner) -> the highest sequence number of owner's frames it acknowledged."""
        self._claim_frames: dict[tuple[int, int, int], bytes] = {}
        """(owner, seq, acknowledger) -> the frame that made an unsettled claim (shared bytes)."""
        self._wanted: set[tuple[int, int]] = set()
        self._signed: dict[int, int] = {}
        """Each seat's signature frame of the last round that ended (see `compact`)."""
        self._served: dict[tuple[int, int], int] = {}
        self._quotas = Quotas(self.players, seat)
        self._ahead_bytes = [0] * self.players
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
        self._paused = False
        self._coin_secrets: dict[int, crypto.CoinContribution] = {}
        self._sealed: dict[tuple[int, int], dict[int, complaints.SealedPacket]] = {}
        """(sender, seq) -> recipient -> (packet, ciphertexts, context, frame): consumed packets."""
        self._waiting_complaints: dict[tuple[int, int], list[Envelope]] = {}
        """Complaints about packets this peer has not consumed yet."""
        """True while a saved transcript is fed back in (our own frames are then accepted)."""

    # --- the driver's side ----------------------------------------------------------------------

    def start(self) -> None:
        """Take the first steps (send our key commitment)."""
        self._advance()

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
        if self.state is None or self.me is None or self.halted or self._disputes:
            return []
        if self._paused or self.insurance.paused():
            return []
        return legal_moves(self.state, self.me)

    def submit_move(self, move: Move) -> None:
        """Play a move for this peer's seat. Raises `IllegalMove` if it is not legal now."""
        if self.me is None or self.state is None:
            raise IllegalMove("an observer cannot move")
        if self.halted:
            raise IllegalMove(f"the game has stopped: {self.halted}")
        if self._disputes:
            raise IllegalMove("the game waits until a disputed echo is settled")
        if move.seat != self.me:
            raise IllegalMove(f"this peer plays seat {self.me}, not seat {move.seat}")
        if move not in legal_moves(self.state, self.me):
            apply(self.state, move)  # raises IllegalMove with the engine's reason
            raise IllegalMove("that move is not available now")
        self._submitted = move
        self._your_move_sent = False
        self._advance()

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
        return not self._final

    def waiting_for(self) -> tuple[str, tuple[int, ...]] | None:
        """What the session waits for now: the step's name (``job:<n>:<kind>:<seat>``) and the
        seats it waits on; None when it waits for nothing (or has stopped)."""
        blocked = self._blocked
        return None if blocked is None else (blocked.name, blocked.seats)

    def queued(self) -> list[Envelope]:
        """Game messages accepted into their chains that no step consumed yet, seat by seat
        (not those of a seat the table plays beyond what it counted: they are not the game's)."""
        return [envelope for seat in range(self.players) for envelope in self._counted_queue(seat)]

    def _counted_queue(self, seat: int) -> deque[Envelope]:
        queue = self._queues[seat]
        limit = self._frozen.get(seat)
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

    def unconsumed(self) -> list[str]:
        """Why frames that were received could not be used, one line each (empty: none).

        Frames waiting behind a gap in their sender's chain, and game messages accepted into a
        chain that no job consumed (sent after the end of the game, or out of the game's order
        while the session waits). A complete, valid transcript leaves nothing here once
        `settled`; `verify` reports anything left as a fault.
        """
        out: list[str] = []
        for seat, chain in enumerate(self._chains):
            if chain.ahead:
                first = min(chain.ahead)
                out.append(
                    f"{len(chain.ahead)} frame(s) of seat {seat + 1} from #{first} wait behind a gap "
                    f"(frame #{chain.next_seq} is missing)"
                )
            queue = self._counted_queue(seat)
            if queue:
                head = queue[0]
                out.append(
                    f"{len(queue)} game message(s) of seat {seat + 1} from #{head.seq} ({head.kind}) "
                    "were never consumed"
                )
        return out

    def next_seq_of(self, seat: int) -> int:
        """The sequence number of the next frame we expect from `seat` (for resend requests)."""
        return self._chains[seat].next_seq

    def own_frames_from(self, seq: int) -> list[bytes]:
        """Our own frames from sequence number `seq` on (to resend after a reconnection)."""
        if self.me is None:
            return []
        chain = self._chains[self.me]
        return [chain.frames[n].frame for n in range(max(0, seq), chain.next_seq) if n in chain.frames]

    def secrets(self) -> dict[str, Any]:
        """What this peer must keep (on its own disk) to resume after a crash: its ElGamal key
        share and the coin contributions it committed to but has not yet revealed. Save it before
        sending the frames that depend on it."""
        out: dict[str, Any] = {}
        if self.secret is not None and self.my_public_key is not None:
            out["x"] = encode_scalar(self.secret)
            out["X"] = bytes(self.my_public_key)
        if self._coin_secrets:
            out["coins"] = {number: list(c.to_wire()) for number, c in self._coin_secrets.items()}
        return out

    @classmethod
    def restore(
        cls,
        config: TableConfig,
        seat: int,
        identity: Ed25519PrivateKey,
        saved: dict[str, Any],
        frames: Iterable[bytes],
        **options: Any,
    ) -> Session:
        """Rebuild a peer's session after a crash from its saved transcript and `secrets()`.

        Every saved frame (ours included) is fed back with the jobs paused, then the game's order
        is replayed: our own messages come from the transcript, never made anew (making them anew
        would be equivocation), and the first job whose message of ours is missing makes it now.
        """
        session = cls(config, seat, identity, **options)
        if "x" in saved:
            session.secret = crypto.decode_scalar(saved["x"])
            session.my_public_key = crypto.decode_point(saved["X"])
        for number, wire in dict(saved.get("coins", {})).items():
            session._coin_secrets[int(number)] = crypto.CoinContribution.from_wire(wire)
        session._paused = True
        session.replaying = True
        try:
            for frame in frames:
                session.receive_frame(frame)
        finally:
            session.replaying = False
            session._paused = False
        session._events = [
            e for e in session._events if isinstance(e, Blamed | Left | Halted | FrameRejected)
        ]
        session.insurance.resumed()
        session._advance()
        session._arm_ack_timer()  # what we received but never acknowledged before the crash
        return session

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
            self._halt(reason)  # tell the others too, naming nobody
        except Exception:  # the defect may be in the very code that halts: stop regardless
            if self.halted is None:
                self.halted = reason
                self._events.append(Halted(reason))
        self._final = True

    def receive_opened(self, envelope: Envelope) -> None:
        """Take a frame the caller already opened with `open_frame` against this table's config
        (signature and schema checked), as `receive_frame` does otherwise. For `skyjo-lan verify`,
        whose survey opens every frame of the file: the signature is checked once, not twice."""
        try:
            self._receive(envelope.frame, envelope)
        except Exception as exc:  # a defect of ours: stop the game, name nobody, never crash
            self._internal_error("receiving a frame", exc)

    def _receive(self, frame: bytes, opened: Envelope | None = None) -> None:
        if self._final:
            # A proven verdict stands: nothing more is kept. Only a `want` is answered (within
            # the relay budget): a peer still checking the evidence may need our frames.
            try:
                asked = open_frame(frame, self.config, self._verifiers)
            except (MalformedMessage, BadSignature):
                return
            if asked.kind == "want" and asked.seat != self.me:
                self._serve_want(asked.seat, asked.data["seat"], asked.data["from"])
            return
        try:
            envelope = opened if opened is not None else open_frame(frame, self.config, self._verifiers)
        except MalformedSignedFrame as exc:
            if exc.seat == self.me:  # not ours (we sign no such thing): nobody else can be blamed
                self._events.append(FrameRejected(exc.reason))
            else:
                self._blame(Misbehaviour(exc.seat, exc.reason, (exc.frame,)))
            return
        except (MalformedMessage, BadSignature) as exc:
            self._events.append(FrameRejected(exc.reason))
            return
        try:
            self._accept(envelope)
            if envelope.seat != self.me:
                self._isolated_waits = 0
            self.insurance.appended(envelope)
            self._advance()  # any frame it makes us send acknowledges it (see "Acknowledgements")
        except Misbehaviour as fault:
            self._blame(fault)
        self._arm_ack_timer()

    def timer_expired(self, name: str) -> None:
        """A `TimerRequest` ran out (see `_timer`). Never raises."""
        try:
            self._timer(name)
        except Exception as exc:
            self._internal_error(f"handling timer {name}", exc)

    def timer_needed(self, name: str) -> bool:
        """Whether a timer asked for is still of use (a driver may cancel it otherwise: its
        expiry would be ignored)."""
        kind, _, rest = name.partition(":")
        if kind == "want":
            seat_text, _, seq_text = rest.partition(":")
            try:
                seat, seq = int(seat_text), int(seq_text)
            except ValueError:
                return False
            return not self._final and 0 <= seat < self.players and self._chains[seat].next_seq <= seq
        if self.halted:
            return False
        if kind == "ack":
            return self._ack_armed and rest == str(self._ack_timer)
        if kind == "vacate":
            return self.insurance.timer_needed(name)
        if kind == "echo":
            seat_text, _, seq_text = rest.partition(":")
            try:
                return (int(seat_text), int(seq_text)) in self._disputes
            except ValueError:
                return False
        return self._blocked is not None and self._blocked.name == name

    def leave(self, reason: str = "left the table") -> bool:
        """This peer's player leaves the table for good: sign and send a `leave` frame and stop
        (`Left`, then `Halted` with `left` set). False (nothing sent) for an observer, after the
        end of the game, or once the game has stopped."""
        if self.me is None or self.halted or self._final or self._game_over():
            return False
        reason = reason.strip()[:MAX_TEXT] or "left the table"
        # our key share, so the others can play on: only once the keys are agreed (before, the
        # share would open nothing, and the game cannot go on without a seat's key anyway)
        key = encode_scalar(self.secret) if self.secret is not None and self.joint_key is not None else b""
        self._emit("leave", {"reason": reason, "key": key})
        self._left(self.me, reason)
        return True

    def set_away(self, away: bool) -> bool:
        """Say that this peer's player is away (their program plays for them: autopilot) or back.
        Sends a signed `away` frame when that changes; False (nothing sent) otherwise, for an
        observer, or once the game is over or stopped."""
        if self.me is None or self.halted or self._final or self._game_over():
            return False
        if (self.me in self.away) == away:
            return False
        self._emit("away", {"away": away})
        self._away_frame(self.me, away)
        return True

    def _away_frame(self, seat: int, away: bool) -> None:
        if (seat in self.away) == away:
            return
        if away:
            self.away.add(seat)
        else:
            self.away.discard(seat)
        self._events.append(AwayChanged(seat, away))

    def _game_over(self) -> bool:
        return self.state is not None and self.state.phase == "game_over"

    def _left(self, seat: int, reason: str) -> None:
        """`seat` signed a leave and the table cannot play it (it is us, or it left before the
        keys were agreed): the game stops for everyone, blaming nobody."""
        who = seat_names(self.config)[seat]
        if seat == self.me:
            self._events.append(Left(seat, reason))
        self._halt(f"{who} (seat {seat + 1}) left the table", left=seat, announce=False)

    def _leave_frame(self, envelope: Envelope) -> None:
        if envelope.seat == self.me:
            if self.replaying and not self.halted:  # our own leave, read back after a restart
                self._left(envelope.seat, envelope.data["reason"])
            return
        if self.halted or self._game_over():
            return  # the game already stopped, or is over: a leave changes nothing
        self.check_postponed()  # a batch of proofs we put off may show a fault first
        if self.halted:
            return
        self._publish([envelope.frame])  # a peer whose link to the leaver was down gets it too
        seat, reason = envelope.seat, envelope.data["reason"]
        # the seat is played by the table from the first job that needs it (`stands_in`), where
        # every peer is at the same point; its key share is checked there (the keys may not be
        # agreed yet here, as when a saved game is read back)
        self.stand_ins[seat] = takeover.StandIn(
            seat,
            "left",
            envelope.data["key"],
            takeover.common_bot(self.config.session_id, self.config.game, seat),
            reason=reason,
            frame=envelope.frame,
        )
        self._events.append(Left(seat, reason))

    # --- seats the table plays (see `protocol.takeover`) ----------------------------------------

    @property
    def acting(self) -> int | None:
        """Our seat, if we play it now (see `JobContext.acting`)."""
        me = self.me
        return None if me is None or me in self.stand_ins else me

    def stands_in(self, seat: int, boundary: bool = False) -> bool:
        """Whether the table plays `seat` now: its player left and every game message of its
        chain before the leave is consumed. The first time, the takeover begins (reported).
        At a turn boundary of the seat (`boundary`) a vanished player who is back retakes it."""
        stand_in = self.stand_ins.get(seat)
        if stand_in is None or self.halted:
            return False
        if (
            boundary
            and stand_in.started
            and stand_in.how == "vanished"
            and self.insurance.back(seat, stand_in) != "no"
        ):
            return False  # the player's again ("back"), or its frames are on their way ("wait")
        if self.has_queued(seat):
            return False
        if self._chains[seat].next_seq < stand_in.limit:
            return False  # the table counts frames of the seat we lack: they come (`want`)
        if not stand_in.started and stand_in.how == "vanished":
            if self.state is None:
                return False  # voted before the keys were escrowed (another peer's vote): wait
            stand_in.started = True
            self.taken_over[seat] = stand_in.how
            assert self.state is not None
            self._events.append(SeatTakenOver(seat, "vanished", len(takeover.undisclosed(self.state, seat))))
        if not stand_in.started:
            if not stand_in.key or self.joint_key is None:
                # left before the keys were agreed (no key share): the game cannot go on
                self._left(seat, stand_in.reason)
                return False
            try:
                stand_in.secret = takeover.check_left_key(stand_in.key, self.public_keys[seat])
            except crypto.CryptoError as exc:
                raise crypto_fault(
                    seat, "left with a key share that is not its own", exc, stand_in.frame
                ) from None
            stand_in.started = True
            self.taken_over[seat] = stand_in.how
            assert self.state is not None
            self._events.append(
                SeatTakenOver(seat, stand_in.how, len(takeover.undisclosed(self.state, seat)))
            )
        return True

    def stand_in_shares(self, seat: int, ciphertexts: Sequence[crypto.Ciphertext]) -> list[crypto.Point]:
        """The decryption shares of a seat the table plays, as every peer computes them."""
        stand_in = self.stand_ins[seat]
        assert stand_in.secret is not None
        out = []
        for ciphertext in ciphertexts:
            key = bytes(ciphertext.c1)
            share = stand_in.shares.get(key)
            if share is None:
                share = stand_in.shares[key] = crypto.decryption_share(stand_in.secret, ciphertext)
            out.append(share)
        return out

    def own_queued(self, kind: str, job: int) -> list[Envelope]:
        """Our own game messages of `kind` for job `job` not yet consumed (after a resume)."""
        if self.me is None:
            return []
        return [e for e in self._queues[self.me] if e.kind == kind and e.data.get("job") == job]

    def foresee(self, envelopes: Iterable[Envelope]) -> None:
        """An offline check holds the whole file: the table's decisions are known before any
        frame is fed (`SeatInsurance.foresee`). A live peer never holds such frames before it
        voted."""
        self._foreseen = True
        self.insurance.foresee(list(envelopes))

    def received(self, seat: int) -> int:
        """How many frames of `seat` we have received (in its chain, and ahead of a gap)."""
        chain = self._chains[seat]
        return chain.next_seq + len(chain.ahead)

    def holds_from(self, seat: int, seq: int) -> bool:
        """Whether we hold a frame of `seat` at sequence number `seq` or beyond."""
        chain = self._chains[seat]
        return chain.next_seq > seq or any(q >= seq for q in chain.ahead)

    def drop_void(self, seat: int) -> None:
        """Forget the queued game messages of `seat` the table did not count."""
        self._queues[seat] = deque(e for e in self._queues[seat] if not self.insurance.void(seat, e.seq))

    def restart_watch(self) -> None:
        """Our wait for the seats the current job waits for starts afresh (a vote of ours was
        withdrawn: we vote again only after a new whole wait)."""
        self._timer_for = None
        self._reminded.clear()
        if self._blocked is not None and not self.halted:
            self._wait(self._blocked)

    def rebuilds(self, seat: int) -> bool:
        """Whether a seat the table plays has no published key share: its decryption shares are
        rebuilt from its escrow holders' partials (it vanished)."""
        return self.stand_ins[seat].secret is None

    def escrow_holders(self, seat: int) -> tuple[int, ...]:
        """The seats holding shares of `seat`'s key (insured tables)."""
        return self.config.escrow_holders(seat)

    def escrow_share(self, dealer: int) -> int:
        """Our share of `dealer`'s key (we are one of its holders)."""
        return self._escrow_shares[dealer]

    def escrow_point(self, dealer: int, holder: int) -> crypto.Point:
        """S_h = s_h G for holder `holder` of `dealer`'s escrow (public, from the commitments)."""
        deal, terms, _ = self._escrows[dealer]
        return terms.share_point(deal, self.config.escrow_holders(dealer).index(holder))

    def escrow_terms(self, dealer: int, transcript_hash: bytes) -> crypto.EscrowTerms:
        """What `dealer`'s escrow is about: its key share, its holders (one per other program,
        Shamir index seat + 1), the threshold (all of them) and the proof context."""
        holders = self.config.escrow_holders(dealer)
        return crypto.EscrowTerms(
            dealer,
            self.public_keys[dealer],
            tuple(self.public_keys[h] for h in holders),
            tuple(h + 1 for h in holders),
            len(holders),
            self.context(dealer, transcript_hash),
        )

    def keep_escrow(self, envelope: Envelope, deal: crypto.EscrowDeal, terms: crypto.EscrowTerms) -> None:
        """A dealer's escrow, checked publicly: keep it; open our box if we hold one. A box that
        does not check gets a public complaint (anyone can judge it) and blames the dealer."""
        dealer = envelope.seat
        self._escrows[dealer] = (deal, terms, envelope)
        for waiting in self._waiting_complaints.pop((dealer, envelope.seq), []):
            self._judge_escrow_complaint(waiting, dealer)
        holders = self.config.escrow_holders(dealer)
        if self.me is None or self.me not in holders or self.secret is None:
            return
        position = holders.index(self.me)
        try:
            self._escrow_shares[dealer] = crypto.open_share(deal, terms, position, self.secret)
        except crypto.EscrowShareInvalid as exc:
            shown: tuple[bytes, ...] = (envelope.frame,)
            if not self.replaying:
                complaint = crypto.make_escrow_complaint(deal, terms, position, self.secret, rng=self.rng)
                wire = complaint.to_wire()
                sent = self._emit("complaint", {"frame": envelope.frame, "key": wire[0], "proof": wire[1:]})
                shown = shown if sent is None else (envelope.frame, sent.frame)
            raise Misbehaviour(dealer, f"escrowed a key share that does not check: {exc}", shown) from None

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
        self._halt(reason, culprit, absent)

    def _timer(self, name: str) -> None:
        """A `TimerRequest` ran out. If we still wait for the same thing, its seats are blamed.

        Unless a check the job postponed fails first: a seat that stopped because an earlier
        message was invalid is not at fault; that message's author is blamed instead. And not at
        the first expiry: a seat may be stuck because a frame it needs never reached it (lost, or
        withheld from it by another seat), so the frames of other seats it has not acknowledged
        are relayed to it and the same timer is asked for once more; it is blamed when that one
        runs out.
        """
        if name.startswith("want:"):
            self._want_timeout(name)
            return
        if self.halted:
            return
        if name.startswith("ack:"):
            if self._ack_armed and name == f"ack:{self._ack_timer}":
                self._ack_armed = False
                if self._pending_acks():
                    self._emit("echo", {})  # nothing carried them: a stand-alone acknowledgement
            return
        if name.startswith("echo:"):
            self._echo_timeout(name)
            return
        if name.startswith("vacate:"):
            self.insurance.timer(name)
            return
        if self._disputes or self.insurance.paused():
            return  # nobody is late while we wait for the outcome of a dispute or of a vote
        blocked = self._blocked
        if blocked is None or blocked.name != name:
            return
        self.check_postponed()
        if self.halted:
            return
        if name not in self._reminded:
            self._reminded.add(name)
            self._publish(self._unacknowledged(blocked.seats))
            self._events.append(TimerRequest(name, self._timer_seconds(blocked)[1]))
            return
        # Not a cheat: a player who left, a closed lid or a lost link looks the same.
        if self.config.insured and self.me is not None and self.state is not None:
            # (only once the game started: before, not every key is escrowed yet)
            programs = sorted({self.config.owners[s] for s in blocked.seats})
            if self.config.owners[self.me] not in programs:
                waited = [s for o in programs for s in self.insurance.seats_of(o)]
                spoke = any(self.received(s) > self._watch_mark.get(s, 0) for s in waited)
                if not spoke and not any(self.insurance.decided(o) for o in programs):
                    for owner in programs:  # our own observation: the table may play on without them
                        self.insurance.vote(owner)
                    return
                if self._watch_restarts < MAX_WATCH_RESTARTS:
                    # a frame of the waited program came during our wait (it is there, slow or
                    # waiting itself), or the table plays it and the frames it counted are on their
                    # way: wait afresh. A vote needs a whole wait with nothing of it.
                    self._watch_restarts += 1
                    self.restart_watch()
                    return
                # there, yet never sending what the game needs: stop, naming it absent (no vote:
                # the table never plays, nor discloses the cards of, a seat that is there)
        if self.me is not None and self._cut_off():
            # nobody at all sent us anything for the whole wait: most likely we are the one cut
            # off; a stop of ours would stop the others once the link is back. Wait, and say so.
            mine = self.config.owners[self.me]
            self.isolated(tuple(s for s in range(self.players) if self.config.owners[s] != mine))
            if not self.halted:
                self.restart_watch()
            return
        names = ", ".join(str(s + 1) for s in blocked.seats)
        self._halt(f"seat(s) {names} did not answer in time ({name})", absent=blocked.seats)

    def isolated(self, seats: tuple[int, ...]) -> None:
        """A whole wait passed with nothing from any other program (`TableSilent`); after
        `ISOLATED_WAITS` of them in a row, stop (`cut_off`), naming nobody absent: from here a
        lost link of ours and a table that went on without us look the same."""
        self._isolated_waits += 1
        self._events.append(TableSilent(seats))
        if self._isolated_waits >= ISOLATED_WAITS:
            self.cut_off = True
            self._halt(
                "nobody at the table answered for a long time: this program was cut off (the table "
                "may have gone on without it; --resume takes the seat back if it still plays)"
            )

    def _cut_off(self) -> bool:
        """Whether no other program sent us anything during our whole wait, at a table of three
        programs or more (with two, a silent other and a lost link look the same: we stop)."""
        if self.me is None:
            return False
        owners = self.config.owners
        others = [s for s in range(self.players) if owners[s] != owners[self.me]]
        if len({owners[s] for s in others}) < 2:
            return False
        return all(self.received(s) <= self._watch_mark.get(s, 0) for s in others)

    def _unacknowledged(self, seats: Iterable[int]) -> list[bytes]:
        """Frames that one of `seats` may lack and need, in chain order (ours included).

        A seat that acknowledged a seat's game frame #q holds all of that seat's frames up to q (a
        chain is taken in order); it may lack the frames after the last one it acknowledged, up to that
        seat's last game frame (side frames between included: the chain needs them). Ours too:
        a link that stalled may have held back what we sent, and the waited seat may be waiting
        for it.
        """
        waited = tuple(seats)
        missing: list[bytes] = []
        for owner, chain in enumerate(self._chains):
            games = [q for q, e in chain.frames.items() if e.kind not in SIDE_KINDS]
            if not games:
                continue
            start = max(games) + 1
            for seat in waited:
                if seat != owner:
                    echoed = max((q for q in games if self._echoed(seat, owner, q)), default=-1)
                    start = min(start, echoed + 1)
            for q in range(start, max(games) + 1):
                missing.extend(chain.first_version(q))
        return missing

    def _echoed(self, echoer: int, owner: int, seq: int) -> bool:
        return self._echo_max.get((echoer, owner), -1) >= seq

    @property
    def disputes(self) -> list[tuple[int, int]]:
        """(seat, seq) of the frames some peer acknowledged with another hash than ours, unsettled."""
        return sorted(self._disputes)

    def check_postponed(self) -> None:
        """Run now the checks the current job put off (a batch of shuffle proofs).

        The author of the first bad message is blamed. `timer_expired` does this before blaming a
        late seat; an offline verifier does it at the end of a transcript.
        """
        if self._final or self._job is None:
            return
        try:
            self._job.postponed_checks(self)
        except Misbehaviour as fault:
            self._blame(fault)

    # --- frames in ----------------------------------------------------------------------------

    def _accept(self, envelope: Envelope) -> None:
        chain = self._chains[envelope.seat]
        if envelope.seat == self.me and envelope.seq >= chain.next_seq and not self.replaying:
            self._events.append(FrameRejected("a frame signed with this peer's own key that it did not send"))
            return
        if envelope.seq < chain.next_seq:
            known = chain.frames.get(envelope.seq)
            if known is None:  # a side frame (its digest is kept), or from rounds long signed
                recorded = chain.digests.get(envelope.seq)
                if recorded is not None and recorded != envelope.digest:
                    raise Misbehaviour(
                        envelope.seat,
                        f"equivocation: two different signed frames #{envelope.seq}",
                        (*chain.first_version(envelope.seq), envelope.frame),
                    )
                return
            if known.digest != envelope.digest:
                raise Misbehaviour(
                    envelope.seat,
                    f"equivocation: two different signed frames #{envelope.seq}",
                    (known.frame, envelope.frame),
                )
            return  # a duplicate (a resend after a reconnection): nothing new
        if envelope.seq > chain.next_seq:
            if envelope.seq in chain.ahead and chain.ahead[envelope.seq].digest != envelope.digest:
                raise Misbehaviour(
                    envelope.seat,
                    f"equivocation: two different signed frames #{envelope.seq}",
                    (chain.ahead[envelope.seq].frame, envelope.frame),
                )
            if envelope.seq in chain.ahead:
                return
            size = len(envelope.frame)
            if (
                len(chain.ahead) >= self.max_ahead_frames
                or self._ahead_bytes[envelope.seat] + size > self.max_ahead_bytes
            ):
                self._events.append(
                    FrameRejected(f"too many frames ahead of a gap from seat {envelope.seat + 1}: dropped")
                )
                return
            chain.ahead[envelope.seq] = envelope
            self._ahead_bytes[envelope.seat] += size
            return
        self._append(envelope)
        while chain.next_seq in chain.ahead:
            waiting = chain.ahead.pop(chain.next_seq)
            self._ahead_bytes[envelope.seat] -= len(waiting.frame)
            self._append(waiting)

    def _append(self, envelope: Envelope) -> None:
        chain = self._chains[envelope.seat]
        if envelope.prev != chain.last_digest:
            previous = chain.first_version(envelope.seq - 1)  # if the seat forked its chain, the proof
            raise Misbehaviour(
                envelope.seat,
                f"frame #{envelope.seq} does not follow its previous frame (broken chain)",
                (*previous, envelope.frame),
            )
        chain.frames[envelope.seq] = envelope
        chain.next_seq += 1
        chain.last_digest = envelope.digest
        self.frames.append(envelope.frame)
        self._check_claims(envelope)
        self._read_acks(envelope)
        acked = self._acks_in_chain[envelope.seat]
        for seat, seq, _ in envelope.acks:
            acked[seat] = max(acked.get(seat, -1), seq)
        if envelope.kind in ("return", "vacate") and envelope.seat != self.me:
            # acknowledged as game frames are: a witness of a return; a voted seat that
            # acknowledges a vote shows it is there (`SeatInsurance`)
            self._latest[envelope.seat] = (envelope.seq, envelope.digest)
        if envelope.kind in SIDE_KINDS:
            for _, _, _, pending in self._halt_claims:
                pending.discard((envelope.seat, envelope.seq))
            if envelope.seat != self.me:
                # another seat's side frame is on record (the transcript) once handled: keep its
                # digest only, so what a seat floods within its quotas is not held in memory
                del chain.frames[envelope.seq]
                chain.digests[envelope.seq] = envelope.digest
                chain.side[envelope.seq] = envelope.frame
            self._quotas.side_frame(envelope)
            self._side_message(envelope)
        else:
            stand_in = self.stand_ins.get(envelope.seat)
            if stand_in is not None and stand_in.how == "left":
                raise Misbehaviour(
                    envelope.seat, "sent a game message after leaving the table", (envelope.frame,)
                )
            self._quotas.game_frame(envelope)
            self._ack_marks[(envelope.seat, envelope.seq)] = dict(self._acks_in_chain[envelope.seat])
            if not self.insurance.void(envelope.seat, envelope.seq):
                self._queues[envelope.seat].append(envelope)
            if envelope.seat != self.me:
                self._latest[envelope.seat] = (envelope.seq, envelope.digest)

    # --- acknowledgements, evidence, chat -------------------------------------------------------

    def _read_acks(self, envelope: Envelope) -> None:
        """The acknowledgements a frame carries (every frame does, see "Faults").

        One that names a frame we lack asks for it shortly (`want`); one whose digest differs
        from our copy opens a dispute (`_check_claims`); one about a frame we do not hold yet is
        kept until that frame comes. Ours (read back after a restart) say what we acknowledged.
        """
        echoer = envelope.seat
        if echoer == self.me:
            for seat, seq, _ in envelope.acks:
                self._acked[seat] = max(self._acked[seat], seq)
            return
        for seat, seq, digest in envelope.acks:
            chain = self._chains[seat]
            if seq >= chain.next_seq + (1 if seat == self.me else CLAIM_WINDOW):
                continue  # about a frame that cannot exist yet: nothing to keep
            key = (echoer, seat)
            self._echo_max[key] = max(self._echo_max.get(key, -1), seq)
            known = chain.frames.get(seq)
            if known is None and seq < chain.next_seq:
                continue  # from a round every seat signed: nothing left to dispute
            if known is not None and known.digest == digest and (seat, seq) not in self._echo_claims:
                continue  # agrees with what we hold: nothing to keep
            self._echo_claims.setdefault((seat, seq), {})[echoer] = digest
            self._claim_frames[(seat, seq, echoer)] = envelope.frame
            if known is not None:
                self._check_claims(known)
            elif seat != self.me:
                self._want_later(seat)

    def _pending_acks(self) -> list[Ack]:
        """The acknowledgements our next frame carries: each other seat's latest game frame we
        hold, if newer than the one we last acknowledged (the chain covers the ones between)."""
        out: list[Ack] = []
        for seat, latest in enumerate(self._latest):
            if latest is not None and latest[0] > self._acked[seat]:
                out.append((seat, latest[0], latest[1]))
        return out

    def _arm_ack_timer(self) -> None:
        """Ask for the stand-alone acknowledgement's timer if something waits for one."""
        if self.me is None or self.replaying or self.halted or self._ack_armed:
            return
        if self._pending_acks():
            self._ack_armed = True
            self._ack_timer += 1
            self._events.append(TimerRequest(f"ack:{self._ack_timer}", ACK_DELAY))

    def _side_message(self, envelope: Envelope) -> None:
        if envelope.kind == "chat":
            self._events.append(ChatReceived(envelope.seat, envelope.data["text"]))
        elif envelope.kind == "want":
            self._serve_want(envelope.seat, envelope.data["seat"], envelope.data["from"])
        elif envelope.kind == "halt":
            self._halt_frame(envelope)
        elif envelope.kind == "leave":
            self._leave_frame(envelope)
        elif envelope.kind == "evidence":
            self._relayed(envelope.seat, envelope.data["frame"])
        elif envelope.kind == "complaint":
            self._complaint(envelope)
        elif envelope.kind == "away":
            self._away_frame(envelope.seat, envelope.data["away"])
        elif envelope.kind in ("vacate", "uphold", "withdraw"):
            self.insurance.frame(envelope)
        elif envelope.kind == "return":
            self.insurance.return_frame(envelope)

    # --- private shares and complaints ------------------------------------------------------

    def sealed_packet(
        self,
        envelope: Envelope,
        packet: crypto.PrivateShares,
        ciphertexts: list[crypto.Ciphertext],
        context: bytes,
    ) -> None:
        """Remember a consumed packet of private shares, so a complaint about it can be judged."""
        key = (envelope.seat, envelope.seq)
        self._sealed.setdefault(key, {})[packet.to] = complaints.SealedPacket(
            packet, ciphertexts, context, envelope.frame
        )
        for complaint in self._waiting_complaints.pop(key, []):
            if complaint.seat == packet.to:
                self._judge_complaint(complaint, key)

    def _complaint(self, complaint: Envelope) -> None:
        """A seat says the private shares sent to it in a frame do not check: judge it.

        The disputed frame travels inside the complaint and is taken in as if received directly.
        If this peer has not yet consumed it (it is behind in the game's order), the complaint
        waits for it; a complaint about a frame that holds no packet for its author is false.
        """
        disputed = complaints.disputed_frame(complaint, self.config, self._verifiers)
        if disputed.seat != self.me:
            outer, self._relaying = self._relaying, True
            try:
                self._accept(disputed)
            finally:
                self._relaying = outer
        key = (disputed.seat, disputed.seq)
        if disputed.kind == "escrow":
            kept = self._escrows.get(disputed.seat)
            if kept is not None and kept[2].seq == disputed.seq:
                self._judge_escrow_complaint(complaint, disputed.seat)
            else:
                self._waiting_complaints.setdefault(key, []).append(complaint)
        elif complaint.seat in self._sealed.get(key, {}):
            self._judge_complaint(complaint, key)
        else:
            self._waiting_complaints.setdefault(key, []).append(complaint)

    def _judge_escrow_complaint(self, complaint: Envelope, dealer: int) -> None:
        """A holder says its escrow box from `dealer` does not check: anyone can tell who lies
        (`crypto.judge_escrow_complaint`); either way a seat is blamed and the game stops."""
        deal, terms, escrow = self._escrows[dealer]
        holders = self.config.escrow_holders(dealer)
        shown = (escrow.frame, complaint.frame)
        if complaint.seat not in holders:
            raise Misbehaviour(complaint.seat, "complained about an escrow box that is not its own", shown)
        try:
            opened = crypto.EscrowComplaint.from_wire([complaint.data["key"], *complaint.data["proof"]])
            cheated = crypto.judge_escrow_complaint(opened, deal, terms, holders.index(complaint.seat))
        except crypto.CryptoError as exc:
            raise Misbehaviour(
                complaint.seat, f"made a complaint that does not check: {exc}", shown
            ) from None
        if cheated:
            raise Misbehaviour(
                dealer, "escrowed a key share that does not check (shown by a complaint)", shown
            )
        raise Misbehaviour(complaint.seat, "complained about an escrow share that checks", shown)

    def _judge_complaint(self, complaint: Envelope, key: tuple[int, int]) -> None:
        sealed = self._sealed[key][complaint.seat]
        raise complaints.verdict(complaint, key[0], sealed, self.config, self._verifiers, self.public_keys)

    def _relayed(self, sender: int, frame: bytes) -> None:
        """A frame of another seat that `sender` relays as evidence: taken as if received directly.

        So two different signed frames with one sequence number meet, whichever came first, and a
        peer that did not see a fault (it was sent another version) reaches the same verdict.
        Evidence relayed inside relayed evidence is only compared, not taken in (no deeper nesting).
        """
        try:
            other = open_frame(frame, self.config, self._verifiers)
        except MalformedSignedFrame as exc:
            if exc.seat == self.me:
                return  # we know what we signed (the relayer only passed on what it got)
            raise Misbehaviour(exc.seat, exc.reason, (exc.frame,)) from None
        except (MalformedMessage, BadSignature) as exc:
            raise Misbehaviour(sender, f"sent evidence that is not a valid frame: {exc.reason}") from None
        if other.seat == self.me:
            return  # we know what we signed
        if not (self._relaying and other.kind == "evidence"):
            outer, self._relaying = self._relaying, True
            try:
                self._accept(other)
            finally:
                self._relaying = outer
            return
        chain = self._chains[other.seat]
        known = chain.frames.get(other.seq) or chain.ahead.get(other.seq)
        if known is not None and known.digest != other.digest:
            raise Misbehaviour(
                other.seat,
                f"equivocation: two different signed frames #{other.seq}",
                (known.frame, other.frame),
            )
        if known is None and chain.digests.get(other.seq, other.digest) != other.digest:
            raise Misbehaviour(
                other.seat,
                f"equivocation: two different signed frames #{other.seq}",
                (*chain.first_version(other.seq), other.frame),
            )

    def _check_claims(self, envelope: Envelope) -> None:
        key = (envelope.seat, envelope.seq)
        claims = self._echo_claims.get(key)
        if not claims:
            return
        liars = [echoer for echoer, digest in claims.items() if digest != envelope.digest]
        if not liars:
            del self._echo_claims[key]  # settled: keep nothing
            for echoer in claims:
                self._claim_frames.pop((envelope.seat, envelope.seq, echoer), None)
            return
        if key not in self._disputes:
            # Either its author equivocated or an echoer lies. Stop acting on anything until the
            # signed frame the echoer has comes (proof of equivocation). Show everyone, at once,
            # our version and the echo that disagrees: an echoer that told others otherwise is
            # then caught equivocating its own echoes, by every peer.
            self._disputes.add(key)
            shown = [envelope.frame]
            for echoer in liars:
                echo = self._claim_frames.get((envelope.seat, envelope.seq, echoer))
                if echo is not None:
                    shown.append(echo)
            self._publish(shown)
            self._events.append(TimerRequest(f"echo:{envelope.seat}:{envelope.seq}", self.step_timeout))

    def _echo_timeout(self, name: str) -> None:
        _, seat_text, seq_text = name.split(":")
        seat, seq = int(seat_text), int(seq_text)
        known = self._chains[seat].frames.get(seq)
        claims = self._echo_claims.get((seat, seq), {})
        liars = sorted(e for e, digest in claims.items() if known is not None and digest != known.digest)
        if liars and (seat, seq) in self._disputes:
            # Nobody can prove who lied (the author may have signed another version for the
            # echoer only): the game stops, naming nobody.
            names = ", ".join(str(s + 1) for s in liars)
            self._halt(
                f"seat(s) {names} echoed a frame #{seq} of seat {seat + 1} other than ours "
                "and showed no signed version",
                absent=tuple(liars),
            )

    def _publish(self, frames: Iterable[bytes]) -> None:
        """Relay signed frames that prove a fault to the other peers, once each."""
        for frame in frames:
            mark = hashlib.sha256(frame).digest()
            if self.me is None or mark in self._published or not self._quotas.may_relay(len(frame)):
                continue
            self._published.add(mark)
            try:
                self._emit("evidence", {"frame": frame})
            except ValueError:  # too large to wrap: the others received it directly
                continue

    # --- frames out ---------------------------------------------------------------------------

    def _emit(self, kind: str, data: dict[str, Any]) -> Envelope | None:
        """Sign and send one of our frames; game messages are no longer sent once halted."""
        assert self.me is not None and self._key is not None
        if self.halted and kind not in SIDE_KINDS:
            return None
        # every frame acknowledges what we hold: no frame of ours acts on an unacknowledged one
        acks = self._pending_acks()
        chain = self._chains[self.me]
        envelope = seal(self.config, self._key, self.me, chain.next_seq, chain.last_digest, kind, data, acks)
        acked = self._acks_in_chain[self.me]
        for seat, seq, _ in acks:
            self._acked[seat] = seq
            acked[seat] = max(acked.get(seat, -1), seq)
        if kind not in SIDE_KINDS:
            self._ack_marks[(self.me, envelope.seq)] = dict(acked)
        self._ack_armed = False  # its timer, if any, is of no use any more
        self._quotas.sent(kind, len(envelope.frame))
        chain.frames[envelope.seq] = envelope
        chain.next_seq += 1
        chain.last_digest = envelope.digest
        self.frames.append(envelope.frame)
        self._out.append(envelope.frame)
        if kind not in SIDE_KINDS:
            self._queues[self.me].append(envelope)
        return envelope

    # --- the jobs -------------------------------------------------------------------------------

    def _advance(self) -> None:
        if self._paused or self.insurance.paused():
            self._held_back = True
            return
        if self._held_back:  # a move asked for while held back could not be made: ask again
            self._held_back = False
            self._your_move_sent = False
        self.insurance.announce_return()
        while not self._final and not self._disputes:
            if self._job is None:
                self._job = self._next_job()
                if self._job is None:
                    self._blocked = None
                    return
                self._job_number += 1
                self._job.begin(self, self._job_number)
            try:
                done = self._job.run(self)
            except Misbehaviour as fault:
                self._blame(fault)
                return
            except Unattributable as exc:
                self._halt(str(exc))
                self._final = True
                return
            finally:
                self._settle_halt_claims()
            if done:
                self._job = None
                continue
            self._wait(self._job.blocked(self))
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
            self._halt(f"the game cannot go on (phase {state.phase}, nobody may move)")
        return job

    def _wait(self, blocked: Blocked) -> None:
        self._blocked = blocked
        if self.halted or self.me is None:
            # stopped: nobody is waited for any more. An observer times nobody out: the players
            # decide whether a seat is late (a signed halt, or the votes to play it).
            return
        if blocked.name == self._timer_for:
            return
        if blocked.name != self._watched:
            self._watched = blocked.name
            self._watch_restarts = 0
        self._watch_mark = {s: self.received(s) for s in range(self.players)}
        self._timer_for = blocked.name
        if blocked.automatic or (self.move_timeout is not None and blocked.seats):
            self._events.append(TimerRequest(blocked.name, self._timer_seconds(blocked)[0]))

    def _timer_seconds(self, blocked: Blocked) -> tuple[float, float]:
        """The two waits before a seat is named absent: until the frames it may lack are relayed
        to it, then until the stop. A protocol step: `step_timeout` each. A move: `move_timeout`
        in all, as documented (the relay comes shortly before the end)."""
        if blocked.automatic or self.move_timeout is None:
            return self.step_timeout, self.step_timeout
        last = min(self.step_timeout, self.move_timeout / 2)
        return self.move_timeout - last, last

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

    def has_queued(self, seat: int) -> bool:
        """Whether a game message of `seat` waits in its queue, not yet consumed (and may be)."""
        queue = self._queues[seat]
        if not queue:
            return False
        limit = self._frozen.get(seat)
        if limit is not None and queue[0].seq >= limit:
            return False
        if self.me is None and not self._foreseen and self.config.insured and queue[0].kind != "roundsig":
            # (a round's signatures are exempt: the game's last ones may never be acknowledged,
            # the programs being gone; one the table did not count changes no card and no score)
            return self._witnessed(seat, queue[0].seq)
        return True

    def _witnessed(self, seat: int, seq: int) -> bool:
        """A live observer (a spectator) consumes a game frame only once every other seat still
        playing acknowledged it: it holds what one player relays, in that player's order, which
        may put a vanished seat's frames the table will not count before the votes. A voter that
        held the frame counted it; one that did not acknowledges it only after its vote, which
        the observer then holds first (and waits for the verdict). So the observer reaches
        `verify`'s verdict whatever the order it is given frames in."""
        return all(
            self._acks_in_chain[other].get(seat, -1) >= seq
            for other in range(self.players)
            if other != seat and other not in self.stand_ins
        )

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
        if not self.has_queued(seat):
            return None
        envelope = self._queues[seat][0]
        data_job = envelope.data.get("job")
        if envelope.kind != kind or (job is not None and data_job != job):
            expected = kind if job is None else f"{kind} for job {job}"
            got = envelope.kind if data_job is None else f"{envelope.kind} for job {data_job}"
            raise Misbehaviour(seat, f"sent {got} when {expected} was due", (envelope.frame,))
        return envelope

    def consume(self, envelope: Envelope) -> None:
        self._queues[envelope.seat].popleft()
        self._consumed_upto[envelope.seat] = envelope.seq + 1
        marks = self._ack_marks.pop((envelope.seat, envelope.seq), None)
        if marks is not None:
            self._consumed_acks[envelope.seat] = marks
        self.transcript_hash = extend(self.transcript_hash, envelope.digest)
        for _, _, _, pending in self._halt_claims:
            pending.discard((envelope.seat, envelope.seq))

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

    def _blame(self, fault: Misbehaviour, halt: bool = True) -> None:
        """Report a fault and relay its evidence, so that every honest peer reaches this verdict."""
        if self._final:
            return  # a verdict stands; more of the same (evidence keeps arriving) is nothing new
        event = Blamed(fault.seat, fault.reason, fault.evidence)
        self.blamed.append(event)
        self._events.append(event)
        self._publish(fault.evidence)
        if halt:
            self._halt(f"seat {fault.seat + 1}: {fault.reason}", culprit=fault.seat, evidence=fault.evidence)

    def _halt(
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
        `_final`); a proven one is final.
        """
        if self._final or (self.halted is not None and culprit is None):
            return
        self.halted = reason
        self.culprit = culprit
        self.absent = tuple(absent)
        self.left = left
        self._blocked = None
        if culprit is not None:
            self._final = True
        self._events.append(Halted(reason, culprit, self.absent, left))
        if announce and self.me is not None and not self.replaying:
            if culprit is not None:
                # what the others may lack to check the evidence themselves (frames ahead of it
                # that they have not echoed), so every honest peer reaches this same verdict
                others = [seat for seat in range(self.players) if seat != self.me]
                self._publish(self._unacknowledged(others))
            shown: list[bytes] = []
            room = MAX_HALT_EVIDENCE
            for frame in evidence[:8]:
                if len(frame) <= room:
                    shown.append(frame)
                    room -= len(frame)
            data = {
                "reason": reason[:MAX_TEXT] or "stopped",
                "culprit": [] if culprit is None else [culprit],
                "absent": sorted(set(self.absent))[:8],
                "evidence": shown,
            }
            self._emit("halt", data)

    def _halt_frame(self, envelope: Envelope) -> None:
        """Another seat stopped the game. Check its evidence ourselves and adopt the verdict.

        The evidence is taken in as if received directly: a fault it proves becomes our own
        verdict, the same. Until then we stop too (we may be behind), but keep checking what
        arrives; a halt whose evidence, once we reach it, proves nothing names its sender.
        """
        sender, data = envelope.seat, envelope.data
        if sender == self.me:
            if self.replaying:  # our own halt, read back after a restart
                claimed = data["culprit"][0] if data["culprit"] else None
                self._halt(data["reason"], claimed, tuple(data["absent"]), announce=False)
            return
        if not data["culprit"] and not self.insurance.counts(sender, envelope.seq):
            # a stop without proof signed while the table played the sender's seat (it was cut
            # off, or crashed and came back): not the table's; it comes back by its `return`
            return
        for frame in data["evidence"]:
            self._relayed(sender, frame)
        claimed = data["culprit"][0] if data["culprit"] else None
        if claimed is not None:
            self.check_postponed()  # a batch of proofs we put off may hold the fault it names
        if self._final:
            return
        blocked = self._blocked.seats if self._blocked is not None else ()
        # (never ourselves: a job may be blocked on a message of our own still to be made)
        absent = tuple(seat for seat in data["absent"] if seat in blocked and seat != self.me)
        who = seat_names(self.config)[sender]
        if claimed is None or (claimed == self.me and not self._all_ours(data["evidence"])):
            # A stop without proof, or one naming us with frames signed by our key that we never
            # sent (then our key is not ours alone): we stop, blaming nobody.
            self._halt(f"{who} (seat {sender + 1}) stopped the game: {data['reason']}", absent=absent)
            return
        pending: set[tuple[int, int]] = set()
        for frame in data["evidence"]:
            try:
                other = open_frame(frame, self.config, self._verifiers)
            except (MalformedMessage, BadSignature):
                continue
            if other.seq > self._chains[other.seat].next_seq and other.seat != self.me:
                self._want_later(other.seat)  # the frames before it: ask whoever has them
            if other.kind not in SIDE_KINDS and self._not_consumed(other):
                pending.add((other.seat, other.seq))  # until a step consumes it
            elif other.kind in SIDE_KINDS and other.seq >= self._chains[other.seat].next_seq:
                pending.add((other.seat, other.seq))  # until it takes its place in its chain
        self._halt(
            f"{who} (seat {sender + 1}) stopped the game, blaming seat {claimed + 1}: {data['reason']}"
        )
        if data["evidence"]:
            self._halt_claims.append((sender, claimed, envelope.frame, pending))
            self._advance()
            self._settle_halt_claims()

    def _all_ours(self, frames: list[bytes]) -> bool:
        """Every frame here signed with our key is one we sent (it is in our chain)."""
        mine = self._chains[self.me] if self.me is not None else None
        for frame in frames:
            try:
                other = open_frame(frame, self.config, self._verifiers)
            except MalformedSignedFrame as exc:
                if exc.seat == self.me:
                    return False
                continue
            except (MalformedMessage, BadSignature):
                continue
            if other.seat == self.me and (mine is None or mine.digest_of(other.seq) != other.digest):
                return False
        return True

    def _not_consumed(self, envelope: Envelope) -> bool:
        chain = self._chains[envelope.seat]
        if envelope.seq >= chain.next_seq:
            return True
        return any(e.seq == envelope.seq for e in self._queues[envelope.seat])

    def _settle_halt_claims(self) -> None:
        """A halt claim whose evidence we have fully checked without finding the fault is false."""
        if not self._halt_claims or any(pending for _, _, _, pending in self._halt_claims):
            # one claim may rest on another (a halt relaying a halt): judge none while any waits
            return
        claims, self._halt_claims = self._halt_claims, []
        for sender, claimed, frame, pending in claims:
            if self._final:
                continue
            if pending:
                self._halt_claims.append((sender, claimed, frame, pending))
                continue
            self._blame(
                Misbehaviour(
                    sender,
                    f"halted the game blaming seat {claimed + 1} with evidence that proves nothing",
                    (frame,),
                )
            )

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
            self._chains[seat].compact(seq)
        self._sealed.clear()
        self._served = {k: n for k, n in self._served.items() if k[1] >= signed.get(k[0], 0)}

    # --- gaps, quotas -------------------------------------------------------------------------

    def _want_later(self, seat: int) -> None:
        """An acknowledgement showed that a frame of `seat` exists that we lack: ask for it shortly."""
        if self.me is None:
            return
        key = (seat, self._chains[seat].next_seq)
        if key not in self._wanted:
            self._wanted.add(key)
            self._events.append(TimerRequest(f"want:{seat}:{key[1]}", WANT_DELAY))

    def _want_timeout(self, name: str) -> None:
        _, seat_text, seq_text = name.split(":")
        seat, seq = int(seat_text), int(seq_text)
        if self._final or self.me is None or self._chains[seat].next_seq > seq:
            return  # it came meanwhile
        self._emit("want", {"seat": seat, "from": seq})

    def _serve_want(self, asker: int, seat: int, start: int) -> None:
        """Relay the frames of `seat` that `asker` lacks (at most 64 at a time, each a few times)."""
        if self.me is None or seat >= self.players or seat == asker:
            return
        chain = self._chains[seat]
        for seq in range(start, min(chain.next_seq, start + 64)):
            key = (seat, seq)
            # side frames too (their bytes are kept until compaction): a seat the table voted to
            # play cannot send them again, and its later frames cannot be taken without them
            held = chain.first_version(seq)
            if self._served.get(key, 0) >= MAX_SERVED or not held:
                continue
            self._served[key] = self._served.get(key, 0) + 1
            frame = held[0]
            if not self._quotas.may_relay(len(frame)):
                return
            try:
                self._emit("evidence", {"frame": frame})
            except ValueError:  # too large to wrap: it went out directly
                continue
