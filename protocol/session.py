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

Every peer echoes the hash of each game frame it receives *before* acting on it, so a peer always
gets another's echo of a frame before anything that other peer did because of it. An echoed hash
that differs from ours opens a dispute: our version and the disagreeing echo are relayed to all at
once, and no job runs, no move is taken and nobody is timed out until either the other version
arrives (two signed frames: the author equivocated; or two echoes with one number: the echoer
did) or the echo timer runs out: then the game stops naming the echoer absent, blaming nobody
(nothing signed shows who lied).

A seat that does not send an automatic message within `step_timeout` stops the game when the timer
expires a second time, named as *absent* (`Halted.absent`), never as a cheat: a player who left,
a closed lid and a lost link look the same. At the first expiry the other seats' frames it has
not acknowledged are relayed to it (one may have been lost, or withheld from it by another seat).
Unless a check put off until then (a batch of shuffle proofs) shows that an earlier message was
bad: its author is blamed instead.

**Verdicts.** Only a seat whose signed frames prove a fault is blamed (`Halted.culprit`). Every
stop is announced in a signed `halt` side frame carrying its evidence; a peer that receives one
takes the evidence in as if received directly, so it reaches the same verdict itself, and until
then stops too but keeps checking what arrives, quietly (no game message of its own, no timers).
A halt whose evidence, once fully checked, proves nothing blames its sender. An echo that shows a
frame we lack starts a short `want` timer; any peer answers a `want` by relaying the frames.
Quotas bound what one seat can make others hold (see the constants above).

An observer session (seat None, no keys) checks everything and sends nothing (it asks for echo
timers too): it is how `skyjo-lan verify` re-checks a saved transcript.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from skyjo_p2p.core.errors import IllegalMove, MalformedMove
from skyjo_p2p.core.events import (
    DealRequest,
    Dealt,
    GameOver,
    MoveVoided,
    RandomRequest,
    RandomResult,
    Reveal,
    RevealRequest,
    RoundEnded,
    Shuffled,
    ShuffleRequest,
)
from skyjo_p2p.core.events import (
    Event as EngineEvent,
)
from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.state import TableState
from skyjo_p2p.engine import apply, deciders, legal_moves, new_game, rules_for

from . import crypto
from .config import TableConfig, seat_names
from .crypto import CryptoError, InvalidProof
from .crypto.group import encode_scalar
from .crypto.randomness import SYSTEM, RandomSource
from .deck import CardStore
from .errors import BadSignature, MalformedMessage, MalformedSignedFrame, Misbehaviour
from .events import (
    Blamed,
    ChatReceived,
    Finished,
    FrameRejected,
    Halted,
    MoveRefused,
    RoundSigned,
    SessionEvent,
    Started,
    TimerRequest,
    Updated,
    YourMove,
)
from .messages import MAX_ACKS, MAX_TEXT, SIDE_KINDS, Envelope, open_frame, seal, verifiers_for
from .transcript import extend, transcript_start

MAX_HALT_EVIDENCE = 900_000
"""Bytes of evidence a halt frame carries (the rest was relayed as `evidence` frames already)."""
MAX_BUFFERED = 256
"""Frames buffered ahead of a gap in one sender's chain before further ones are dropped."""
MAX_BUFFERED_BYTES = 4 << 20
"""Bytes buffered ahead of a gap in one sender's chain before further frames are dropped.

Dropping is safe: a dropped frame is sent again after a reconnection or on a `want`. Nobody is
blamed for it: a gap may be a lost link, and only the frames' signer could be named."""
CLAIM_WINDOW = 1024
"""Echo claims are kept only about frames at most this far past what we hold of their chain."""
SIDE_WINDOW_FRAMES = 4096
SIDE_WINDOW_BYTES = 8 << 20
"""At most this many side frames (and bytes) from one seat between two of its game frames: an
honest peer sends far fewer (an echo per received game frame, some relays). Counted on the
seat's own chain, so every peer finds the same crossing: the seat is blamed with that frame."""
ROUND_SIDE_FRAMES = 20_000
ROUND_SIDE_BYTES = 8 << 20
"""At most this many side frames (and bytes) from one seat between two of its round signatures:
the windows above bound a burst, these bound a whole round (an honest peer sends an echo per game
frame of the others, a few hundred a round, and relays within `RELAY_BUDGET`)."""
RELAY_BUDGET = 4 << 20
"""Bytes of relays (evidence, answers to `want`) this peer sends in a round, and half that between
two of its game messages: an honest peer stays far inside its own quotas whatever it is asked."""
MAX_CHAT = 1000
"""Chat messages one seat may send in a game."""
WANT_DELAY = 1.0
"""Seconds to wait for a frame an echo showed exists before asking the others for it."""
MAX_SERVED = 3
"""How often one frame is relayed in answer to `want`s (a flood of wants amplifies nothing)."""


@dataclass
class _Chain:
    """What we have of one seat's hash chain."""

    next_seq: int
    last_digest: bytes
    frames: dict[int, Envelope] = field(default_factory=dict)
    """Frames since the last round every seat signed (older ones are on disk, see `compact`)."""
    ahead: dict[int, Envelope] = field(default_factory=dict)
    digests: dict[int, bytes] = field(default_factory=dict)
    """The digests of another seat's side frames since the last compaction (enough to tell a
    second version)."""
    side: dict[int, bytes] = field(default_factory=dict)
    """Another seat's side frames since the last compaction, as bytes only (the evidence if it
    signs a second version); what it may flood is bounded by the round quotas."""

    def first_version(self, seq: int) -> tuple[bytes, ...]:
        """Our copy of frame `seq`, if we still hold its bytes (evidence beside a second one)."""
        known = self.frames.get(seq)
        if known is not None:
            return (known.frame,)
        side = self.side.get(seq)
        return () if side is None else (side,)

    def digest_of(self, seq: int) -> bytes | None:
        known = self.frames.get(seq)
        return known.digest if known is not None else self.digests.get(seq)

    def compact(self, upto: int) -> None:
        """Forget the frames before `upto`: every seat signed the rounds they belong to.

        Their digests go too, so memory stays flat over a long game: a second version of a frame
        that old could change nothing (no step will consume it again) and is ignored; it is in
        the transcript files, where `verify` finds two versions of one frame.
        """
        for seq in [q for q in self.frames if q < upto]:
            del self.frames[seq]
        for seq in [q for q in self.side if q < upto]:
            del self.side[seq]
        for seq in [q for q in self.digests if q < upto]:
            del self.digests[seq]


@dataclass
class _Blocked:
    """What the session waits for: a description and the seats it waits on."""

    name: str
    seats: tuple[int, ...]
    automatic: bool


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
        self._chains = [_Chain(0, genesis) for _ in range(self.players)]
        self._queues: list[deque[Envelope]] = [deque() for _ in range(self.players)]
        self._out: list[bytes] = []
        self._events: list[SessionEvent] = []
        self.frames: list[bytes] = []
        """Every accepted frame (ours included), in the order accepted: the transcript file
        (less the first `frames_released`, which the driver has on disk: `release_frames`)."""
        self.frames_released = 0
        self.transcript_hash = transcript_start(config)
        self._acks: list[list[Any]] = []
        self._echo_claims: dict[tuple[int, int], dict[int, bytes]] = {}
        self._disputes: set[tuple[int, int]] = set()
        """(seat, seq) of frames some peer echoed with another hash than ours: no job runs."""
        self._published: set[bytes] = set()
        self._reminded: set[str] = set()
        self._relaying = False
        """Timers that expired once: the frames their seats lacked were relayed (see timer_expired)."""
        self._jobs: deque[_Job] = deque([_Keys()])
        self._job: _Job | None = None
        self._job_number = 0
        self._blocked: _Blocked | None = None
        self._timer_for: str | None = None
        self._submitted: Move | None = None
        self._your_move_sent = False
        self.halted: str | None = None
        self.culprit: int | None = None
        """The seat proven (by signed evidence) to have broken the protocol, once halted."""
        self.absent: tuple[int, ...] = ()
        """The seats that stopped answering, if that is why the game stopped."""
        self._final = False
        """A proven verdict: nothing more is checked. After a stop without proof (a timeout, a
        halt another peer sent) the session keeps checking what arrives, quietly, so a proof
        arriving later turns the stop into the same verdict every honest peer reaches."""
        self._halt_claims: list[tuple[int, int, bytes, set[tuple[int, int]]]] = []
        """Halts of other seats naming a culprit we have not confirmed: (sender, culprit, frame,
        game frames of its evidence not yet consumed here)."""
        self._echo_max: dict[tuple[int, int], int] = {}
        """(echoer, owner) -> the highest sequence number of owner's frames echoer echoed."""
        self._claim_frames: dict[tuple[int, int, int], bytes] = {}
        """(owner, seq, echoer) -> the echo frame that made an unsettled claim (shared bytes)."""
        self._wanted: set[tuple[int, int]] = set()
        self._signed: dict[int, int] = {}
        """Each seat's signature frame of the last round that ended (see `compact`)."""
        self._served: dict[tuple[int, int], int] = {}
        self._side_count = [0] * self.players
        self._side_bytes = [0] * self.players
        self._round_side_count = [0] * self.players
        self._round_side_bytes = [0] * self.players
        self._relayed_window = 0
        self._relayed_round = 0
        self._chat_count = [0] * self.players
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
        self.batch_echoes = False
        """When True the driver calls `flush_echoes()` after each burst of frames (fewer echoes);
        pending echoes always go out before any game frame of ours, so we never act visibly on a
        frame before echoing it."""
        self._paused = False
        self._coin_secrets: dict[int, crypto.CoinContribution] = {}
        self._sealed: dict[tuple[int, int], dict[int, tuple[Any, ...]]] = {}
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
        """The moves this peer's seat may submit now."""
        if self.state is None or self.me is None or self.halted or self._disputes:
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
        """Game messages accepted into their chains that no step consumed yet, seat by seat."""
        return [envelope for queue in self._queues for envelope in queue]

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
                    f"{len(chain.ahead)} frame(s) of seat {seat} from #{first} wait behind a gap "
                    f"(frame #{chain.next_seq} is missing)"
                )
            queue = self._queues[seat]
            if queue:
                head = queue[0]
                out.append(
                    f"{len(queue)} game message(s) of seat {seat} from #{head.seq} ({head.kind}) "
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
        session._acks = []
        session._events = [e for e in session._events if isinstance(e, Blamed | Halted | FrameRejected)]
        session._advance()
        return session

    def flush_echoes(self) -> None:
        """Send the echoes gathered since the last flush (with `batch_echoes`, after a burst)."""
        self._flush_acks()

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

    def _receive(self, frame: bytes) -> None:
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
            envelope = open_frame(frame, self.config, self._verifiers)
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
            if not self.batch_echoes:
                self._flush_acks()  # echo what we got before acting on it (see "Faults")
            self._advance()
        except Misbehaviour as fault:
            self._blame(fault)
        if not self.batch_echoes:
            self._flush_acks()

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
        if kind == "echo":
            seat_text, _, seq_text = rest.partition(":")
            try:
                return (int(seat_text), int(seq_text)) in self._disputes
            except ValueError:
                return False
        return self._blocked is not None and self._blocked.name == name

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
        if name.startswith("echo:"):
            self._echo_timeout(name)
            return
        if self._disputes:
            return  # nobody is late while we wait for the outcome of a dispute (its own timer)
        blocked = self._blocked
        if blocked is None or blocked.name != name:
            return
        self.check_postponed()
        if self.halted:
            return
        if name not in self._reminded:
            self._reminded.add(name)
            self._publish(self._unacknowledged(blocked.seats))
            seconds = self.step_timeout if blocked.automatic else self.move_timeout
            self._events.append(TimerRequest(name, seconds or self.step_timeout))
            return
        # Not a cheat: a player who left, a closed lid or a lost link looks the same.
        names = ", ".join(map(str, blocked.seats))
        self._halt(f"seat(s) {names} did not answer in time ({name})", absent=blocked.seats)

    def _unacknowledged(self, seats: Iterable[int]) -> list[bytes]:
        """Frames that one of `seats` may lack and need, in chain order (ours included).

        A seat that echoed a seat's game frame #q holds all of that seat's frames up to q (a
        chain is taken in order); it may lack the frames after the last one it echoed, up to that
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
        """(seat, seq) of the frames some peer echoed with another hash than ours, unsettled."""
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
                    FrameRejected(f"too many frames ahead of a gap from seat {envelope.seat}: dropped")
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
        if envelope.kind in SIDE_KINDS:
            for _, _, _, pending in self._halt_claims:
                pending.discard((envelope.seat, envelope.seq))
            if envelope.seat != self.me:
                # another seat's side frame is on record (the transcript) once handled: keep its
                # digest only, so what a seat floods within its quotas is not held in memory
                del chain.frames[envelope.seq]
                chain.digests[envelope.seq] = envelope.digest
                chain.side[envelope.seq] = envelope.frame
            self._count_side(envelope)
            self._side_message(envelope)
        else:
            self._side_count[envelope.seat] = self._side_bytes[envelope.seat] = 0
            if envelope.kind == "roundsig":
                self._round_side_count[envelope.seat] = self._round_side_bytes[envelope.seat] = 0
            self._queues[envelope.seat].append(envelope)
            if envelope.seat != self.me and self.me is not None and not self.replaying and not self.halted:
                self._acks.append([envelope.seat, envelope.seq, envelope.digest])

    # --- echoes, evidence, chat ---------------------------------------------------------------

    def _side_message(self, envelope: Envelope) -> None:
        if envelope.kind == "chat":
            self._events.append(ChatReceived(envelope.seat, envelope.data["text"]))
        elif envelope.kind == "echo":
            echoer = envelope.seat
            for seat, seq, digest in envelope.data["acks"]:
                if seat == echoer or seat >= self.players:
                    continue
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
        elif envelope.kind == "want":
            self._serve_want(envelope.seat, envelope.data["seat"], envelope.data["from"])
        elif envelope.kind == "halt":
            self._halt_frame(envelope)
        elif envelope.kind == "evidence":
            self._relayed(envelope.seat, envelope.data["frame"])
        elif envelope.kind == "complaint":
            self._complaint(envelope)

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
        self._sealed.setdefault(key, {})[packet.to] = (packet, ciphertexts, context, envelope.frame)
        for complaint in self._waiting_complaints.pop(key, []):
            if complaint.seat == packet.to:
                self._judge_complaint(complaint, key)

    def _complaint(self, complaint: Envelope) -> None:
        """A seat says the private shares sent to it in a frame do not check: judge it.

        The disputed frame travels inside the complaint and is taken in as if received directly.
        If this peer has not yet consumed it (it is behind in the game's order), the complaint
        waits for it; a complaint about a frame that holds no packet for its author is false.
        """
        try:
            disputed = open_frame(complaint.data["frame"], self.config, self._verifiers)
        except (MalformedMessage, BadSignature) as exc:
            raise Misbehaviour(
                complaint.seat,
                f"complained about something that is not a frame: {exc.reason}",
                (complaint.frame,),
            ) from None
        if disputed.seat == complaint.seat or disputed.kind != "shares":
            raise Misbehaviour(
                complaint.seat, "complained about a frame that sent it no private shares", (complaint.frame,)
            )
        addressed = [
            wire
            for wire in disputed.data["private"]
            if isinstance(wire, list) and wire and wire[0] == complaint.seat
        ]
        if not addressed:
            raise Misbehaviour(
                complaint.seat, "complained about a frame that sent it no private shares", (complaint.frame,)
            )
        if disputed.seat != self.me:
            outer, self._relaying = self._relaying, True
            try:
                self._accept(disputed)
            finally:
                self._relaying = outer
        key = (disputed.seat, disputed.seq)
        if complaint.seat in self._sealed.get(key, {}):
            self._judge_complaint(complaint, key)
        else:
            self._waiting_complaints.setdefault(key, []).append(complaint)

    def _judge_complaint(self, complaint: Envelope, key: tuple[int, int]) -> None:
        packet, ciphertexts, context, frame = self._sealed[key][complaint.seat]
        sender = key[0]
        try:
            z = crypto.decode_point(complaint.data["key"])
            proof = crypto.DLEQProof.from_wire(complaint.data["proof"])
        except CryptoError as exc:
            raise _crypto_fault(complaint.seat, "malformed complaint", exc, complaint.frame) from None
        verdict = crypto.judge_complaint(
            z,
            proof,
            crypto.complaint_context(
                self.config.session_id, complaint.seat, open_frame(frame, self.config, self._verifiers).digest
            ),
            self.public_keys[complaint.seat],
            packet,
            self.public_keys[sender],
            ciphertexts,
            context,
            sender,
        )
        if verdict == "sender":
            raise Misbehaviour(
                sender,
                f"sent seat {complaint.seat} private shares that do not check (its complaint proves it)",
                (frame, complaint.frame),
            )
        raise Misbehaviour(
            complaint.seat,
            f"complained about private shares from seat {sender} that do check",
            (complaint.frame, frame),
        )

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
            names = ", ".join(map(str, liars))
            self._halt(
                f"seat(s) {names} echoed a frame #{seq} of seat {seat} other than ours "
                "and showed no signed version",
                absent=tuple(liars),
            )

    def _publish(self, frames: Iterable[bytes]) -> None:
        """Relay signed frames that prove a fault to the other peers, once each."""
        for frame in frames:
            mark = hashlib.sha256(frame).digest()
            if self.me is None or mark in self._published or not self._may_relay(len(frame)):
                continue
            self._published.add(mark)
            try:
                self._emit("evidence", {"frame": frame})
            except ValueError:  # too large to wrap: the others received it directly
                continue

    def _flush_acks(self) -> None:
        while self._acks and self.me is not None and not self.halted:
            batch, self._acks = self._acks[:MAX_ACKS], self._acks[MAX_ACKS:]
            self._emit("echo", {"acks": batch})
        self._acks = []

    # --- frames out ---------------------------------------------------------------------------

    def _emit(self, kind: str, data: dict[str, Any]) -> Envelope | None:
        """Sign and send one of our frames; game messages are no longer sent once halted."""
        assert self.me is not None and self._key is not None
        if self.halted and kind not in SIDE_KINDS:
            return None
        if kind not in SIDE_KINDS and self._acks:
            self._flush_acks()  # echoes first: no game frame of ours acts on an unechoed frame
        chain = self._chains[self.me]
        envelope = seal(self.config, self._key, self.me, chain.next_seq, chain.last_digest, kind, data)
        if kind == "evidence":
            self._relayed_window += len(envelope.frame)
            self._relayed_round += len(envelope.frame)
        elif kind not in SIDE_KINDS:
            self._relayed_window = 0
            if kind == "roundsig":
                self._relayed_round = 0
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
        if self._paused:
            return
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
            except _Unattributable as exc:
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

    def _next_job(self) -> _Job | None:
        if self._jobs:
            return self._jobs.popleft()
        state = self.state
        if state is None:
            return None
        if state.pending:
            first = state.pending[0]
            if isinstance(first, DealRequest | ShuffleRequest):
                return _Shuffle(first)
            if isinstance(first, RandomRequest):
                return _Coin(first)
            batch = []
            for request in state.pending:
                if not isinstance(request, RevealRequest):
                    break
                batch.append(request)
            return _Reveals(tuple(batch))
        if state.phase == "game_over":
            return None
        seats = deciders(state)
        if not seats:
            self._halt(f"the game cannot go on (phase {state.phase}, nobody may move)")
            return None
        return _MoveJob(min(seats))

    def _wait(self, blocked: _Blocked) -> None:
        self._blocked = blocked
        if self.halted:
            return  # stopped: nobody is waited for any more
        if blocked.name == self._timer_for:
            return
        self._timer_for = blocked.name
        if blocked.automatic:
            self._events.append(TimerRequest(blocked.name, self.step_timeout))
        elif self.move_timeout is not None and blocked.seats:
            self._events.append(TimerRequest(blocked.name, self.move_timeout))

    def head(self, seat: int, kind: str, job: int | None) -> Envelope | None:
        """The next game message of `seat` if it is the one this job needs; a fault otherwise."""
        queue = self._queues[seat]
        if not queue:
            return None
        envelope = queue[0]
        data_job = envelope.data.get("job")
        if envelope.kind != kind or (job is not None and data_job != job):
            expected = kind if job is None else f"{kind} for job {job}"
            got = envelope.kind if data_job is None else f"{envelope.kind} for job {data_job}"
            raise Misbehaviour(seat, f"sent {got} when {expected} was due", (envelope.frame,))
        return envelope

    def consume(self, envelope: Envelope) -> None:
        self._queues[envelope.seat].popleft()
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
                self._jobs.append(_RoundSignature(fact.round))
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
            self._halt(f"seat {fault.seat}: {fault.reason}", culprit=fault.seat, evidence=fault.evidence)

    def _halt(
        self,
        reason: str,
        culprit: int | None = None,
        absent: tuple[int, ...] = (),
        evidence: tuple[bytes, ...] = (),
        announce: bool = True,
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
        self._blocked = None
        if culprit is not None:
            self._final = True
        self._events.append(Halted(reason, culprit, self.absent))
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
        for frame in data["evidence"]:
            self._relayed(sender, frame)
        claimed = data["culprit"][0] if data["culprit"] else None
        if claimed is not None:
            self.check_postponed()  # a batch of proofs we put off may hold the fault it names
        if self._final:
            return
        blocked = self._blocked.seats if self._blocked is not None else ()
        absent = tuple(seat for seat in data["absent"] if seat in blocked)
        who = seat_names(self.config)[sender]
        if claimed is None or (claimed == self.me and not self._all_ours(data["evidence"])):
            # A stop without proof, or one naming us with frames signed by our key that we never
            # sent (then our key is not ours alone): we stop, blaming nobody.
            self._halt(f"{who} (seat {sender}) stopped the game: {data['reason']}", absent=absent)
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
        self._halt(f"{who} (seat {sender}) stopped the game, blaming seat {claimed}: {data['reason']}")
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
                    f"halted the game blaming seat {claimed} with evidence that proves nothing",
                    (frame,),
                )
            )

    def compact(self, signed: dict[int, int]) -> None:
        """A round ended: every seat signed the transcript at its frame `signed[seat]`.

        Keep only the digests of each chain's frames before that seat's signature of the round
        *before* this one. Every seat that signed this round consumed every seat's game messages
        of this round, so it holds each chain up to its first game message of this round, which
        comes after its signature of the previous round, and every side frame before it: nobody
        will ask for those frames again (after a reconnection or a crash either), and nothing
        before them can be disputed but by a second version of a frame (told by its digest).
        One round is kept whole for a peer that crashed before receiving our last signature.
        """
        previous, self._signed = self._signed, dict(signed)
        for seat, seq in previous.items():
            self._chains[seat].compact(seq)
        self._sealed.clear()
        self._served = {k: n for k, n in self._served.items() if k[1] >= signed.get(k[0], 0)}

    # --- gaps, quotas -------------------------------------------------------------------------

    def _want_later(self, seat: int) -> None:
        """An echo showed that a frame of `seat` exists that we lack: ask for it shortly."""
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
            if self._served.get(key, 0) >= MAX_SERVED or seq not in chain.frames:
                continue
            self._served[key] = self._served.get(key, 0) + 1
            frame = chain.frames[seq].frame
            if not self._may_relay(len(frame)):
                return
            try:
                self._emit("evidence", {"frame": frame})
            except ValueError:  # too large to wrap: it went out directly
                continue

    def _may_relay(self, size: int) -> bool:
        """Within our relay budget (see RELAY_BUDGET): we never cross our own quotas."""
        return self._relayed_round + size <= RELAY_BUDGET and self._relayed_window + size <= RELAY_BUDGET // 2

    def _count_side(self, envelope: Envelope) -> None:
        """Quotas on side messages, counted on the sender's own chain (see SIDE_WINDOW_FRAMES)."""
        seat = envelope.seat
        if seat == self.me:
            return
        self._side_count[seat] += 1
        self._side_bytes[seat] += len(envelope.frame)
        self._round_side_count[seat] += 1
        self._round_side_bytes[seat] += len(envelope.frame)
        if (
            self._round_side_count[seat] > ROUND_SIDE_FRAMES
            or self._round_side_bytes[seat] > ROUND_SIDE_BYTES
        ):
            raise Misbehaviour(
                seat,
                f"sent more than {ROUND_SIDE_FRAMES} side messages or {ROUND_SIDE_BYTES >> 20} MiB "
                "in one round (flood)",
                (envelope.frame,),
            )
        if envelope.kind == "chat":
            self._chat_count[seat] += 1
            if self._chat_count[seat] > MAX_CHAT:
                raise Misbehaviour(
                    seat, f"sent more than {MAX_CHAT} chat messages (flood)", (envelope.frame,)
                )
        if self._side_count[seat] > SIDE_WINDOW_FRAMES or self._side_bytes[seat] > SIDE_WINDOW_BYTES:
            raise Misbehaviour(
                seat,
                f"sent more than {SIDE_WINDOW_FRAMES} side messages or {SIDE_WINDOW_BYTES >> 20} MiB "
                "between two of its game messages (flood)",
                (envelope.frame,),
            )


# --- jobs ---------------------------------------------------------------------------------------


class _Unattributable(Exception):
    """Something went wrong that no signed frame pins on a seat: the session stops, blaming nobody."""


class _Job:
    """One step of the game's order. `run` consumes what it can; True when the job is done."""

    number = 0
    start_hash = b""

    def begin(self, session: Session, number: int) -> None:
        self.number = number
        self.start_hash = session.transcript_hash

    def run(self, session: Session) -> bool:
        raise NotImplementedError

    def blocked(self, session: Session) -> _Blocked:
        raise NotImplementedError

    def postponed_checks(self, session: Session) -> None:
        """Run the checks of consumed messages this job put off; `Misbehaviour` for a bad one."""


def _crypto_fault(seat: int, what: str, exc: Exception, frame: bytes) -> Misbehaviour:
    reason = exc.args[0] if exc.args else type(exc).__name__
    return Misbehaviour(seat, f"{what}: {reason}", (frame,))


class _Keys(_Job):
    """Every seat commits to its key share X_i = x_i G, then reveals it with a Schnorr proof."""

    def __init__(self) -> None:
        self.phase = "commit"
        self.next_seat = 0
        self.commits: dict[int, bytes] = {}
        self.reveal_hash = b""
        self.committed = False

    def run(self, session: Session) -> bool:
        me = session.me
        if self.phase == "commit":
            if me is not None and not self.committed:
                self.committed = True
                if session.secret is None:  # a resumed session has its saved key share
                    session.secret, session.my_public_key = crypto.keygen(rng=session.rng)
                if not session._queues[me]:  # not already in the transcript we resumed from
                    assert session.my_public_key is not None
                    commit = crypto.key_commitment(
                        session.my_public_key, session.context(me, self.start_hash)
                    )
                    session._emit("keycommit", {"commit": commit})
            while self.next_seat < session.players:
                envelope = session.head(self.next_seat, "keycommit", None)
                if envelope is None:
                    return False
                session.consume(envelope)
                self.commits[self.next_seat] = envelope.data["commit"]
                self.next_seat += 1
            self.phase, self.next_seat = "reveal", 0
            self.reveal_hash = session.transcript_hash
            if me is not None and not session._queues[me]:
                mine = session.my_public_key
                assert session.secret is not None and mine is not None
                proof = crypto.prove_key(
                    session.secret, mine, session.context(me, self.reveal_hash), rng=session.rng
                )
                session._emit("key", {"key": mine, "proof": list(proof.to_wire())})
        while self.next_seat < session.players:
            seat = self.next_seat
            envelope = session.head(seat, "key", None)
            if envelope is None:
                return False
            session.consume(envelope)
            try:
                public = crypto.decode_point(envelope.data["key"])
                crypto.verify_key_commitment(
                    self.commits[seat], public, session.context(seat, self.start_hash)
                )
                proof = crypto.SchnorrProof.from_wire(envelope.data["proof"])
                crypto.verify_key(public, proof, session.context(seat, self.reveal_hash))
            except CryptoError as exc:
                raise _crypto_fault(seat, "key share refused", exc, envelope.frame) from None
            session.public_keys.append(public)
            self.next_seat += 1
        session.joint_key = crypto.joint_key(session.public_keys)
        session.start_game()
        return True

    def blocked(self, session: Session) -> _Blocked:
        kind = "keycommit" if self.phase == "commit" else "key"
        missing = tuple(s for s in range(self.next_seat, session.players) if not session._queues[s])
        return _Blocked(f"job:{self.number}:{kind}:{self.next_seat}", missing or (self.next_seat,), True)


class _Shuffle(_Job):
    """A fresh deck (deal) or a pile (reshuffle): each seat in turn shuffles with a proof.

    A seat checks each earlier shuffle as soon as it arrives, while it waits for its turn, so only
    the latest is left to check before it shuffles (what waits on it is one check, not all of
    them); the shuffles after its own it checks in one batch once the last is in (nobody waits on
    those, and a batch costs less). Nothing is decrypted before every shuffle has been checked.
    If a later seat times out, the shuffles received so far are checked first (that seat may have
    stopped because one of them was bad).
    """

    def __init__(self, request: DealRequest | ShuffleRequest) -> None:
        self.request = request
        self.decks: list[list[crypto.Ciphertext]] = []
        self.proofs: list[crypto.ShuffleProof] = []
        self.contexts: list[bytes] = []
        self.frames: list[bytes] = []
        self.verified = 0
        self.next_seat = 0

    def begin(self, session: Session, number: int) -> None:
        super().begin(session, number)
        request = self.request
        assert session.state is not None and session.joint_key is not None
        if isinstance(request, DealRequest):
            if request.first == 0:
                session.cards.new_round()
            composition = session._rules.composition(session.state, request.deck)
            if len(composition) != request.size:
                raise AssertionError("deal size differs from the deck's composition")
            book = session.cards.codebook(request.deck, request.size)
            self.decks.append(book.initial_deck(session.joint_key))
        else:
            self.decks.append([session.cards.ciphertexts[h] for h in request.handles])

    def _verify(self, session: Session, upto: int) -> None:
        """Check proofs [verified, upto) in one batch; blame the first bad one."""
        if upto <= self.verified:
            return
        start = self.verified
        first_mine = session.me if session.me is not None and start <= session.me < upto else None
        segments = [(start, upto)] if first_mine is None else [(start, first_mine), (first_mine + 1, upto)]
        assert session.joint_key is not None
        for lo, hi in segments:
            if hi <= lo:
                continue
            try:
                crypto.verify_shuffle_chain(
                    self.decks[lo : hi + 1],
                    self.proofs[lo:hi],
                    session.joint_key,
                    self.contexts[lo:hi],
                    rng=session.rng,
                )
            except InvalidProof as exc:
                bad = lo + (exc.index or 0)
                raise Misbehaviour(bad, f"invalid shuffle: {exc.args[0]}", (self.frames[bad],)) from None
        self.verified = upto

    def run(self, session: Session) -> bool:
        assert session.joint_key is not None
        while self.next_seat < session.players:
            seat = self.next_seat
            context = session.context(seat, session.transcript_hash)
            if seat == session.me and not session._queues[seat]:
                self._verify(session, seat)
                outputs, proof = crypto.shuffle(self.decks[-1], session.joint_key, context, rng=session.rng)
                session._emit(
                    "shuffle",
                    {
                        "job": self.number,
                        "deck": crypto.deck_to_wire(outputs),
                        "proof": list(proof.to_wire()),
                    },
                )
            envelope = session.head(seat, "shuffle", self.number)
            if envelope is None:
                return False
            try:
                outputs = crypto.deck_from_wire(envelope.data["deck"], expected_len=len(self.decks[0]))
                proof = crypto.ShuffleProof.from_wire(envelope.data["proof"])
            except CryptoError as exc:
                raise _crypto_fault(seat, "malformed shuffle", exc, envelope.frame) from None
            session.consume(envelope)
            self.frames.append(envelope.frame)
            self.decks.append(outputs)
            self.proofs.append(proof)
            self.contexts.append(context)
            self.next_seat += 1
            if session.me is not None and seat < session.me:
                self._verify(session, seat + 1)  # while the next seats shuffle, not on our turn
        self._verify(session, session.players)
        request = self.request
        final = self.decks[-1]
        if isinstance(request, DealRequest):
            session.cards.place(request.deck, request.first, final)
            session.engine(Dealt(request.deck, request.first, request.size))
        else:
            session.cards.place(request.deck, request.first, final)
            session.engine(Shuffled(request.deck, request.handles, request.first))
        return True

    def blocked(self, session: Session) -> _Blocked:
        return _Blocked(f"job:{self.number}:shuffle:{self.next_seat}", (self.next_seat,), True)

    def postponed_checks(self, session: Session) -> None:
        self._verify(session, self.next_seat)


class _Reveals(_Job):
    """Decryption shares for a batch of reveal requests, one message (and one proof) per seat.

    Which share goes where is decided so that no transcript ever holds every share of a card the
    rules keep hidden (see PROTOCOL.md, "Reveals"). For each card of the batch:

    * if it becomes public (a public request, or private ones after which every seat knows it),
      every seat whose share is not yet published publishes it;
    * otherwise one seat whose share is unpublished is the card's *keeper* (the first recipient
      that still holds an unpublished share, else the one seat that does): every other
      unpublished share is published (the card stays closed: the keeper's share is missing), and
      the keeper sends its own share encrypted to each other recipient (`crypto.seal_shares`).

    A seat owing nothing sends nothing. A recipient whose private shares do not check publishes a
    complaint that every peer can judge (`Session._judge_complaint`).
    """

    def __init__(self, requests: tuple[RevealRequest, ...]) -> None:
        self.requests = requests
        self.owed: dict[int, list[int]] = {}
        """seat -> the handles whose shares it publishes."""
        self.sealed: dict[int, dict[int, list[int]]] = {}
        """seat -> recipient -> the handles whose shares it sends encrypted to that recipient."""
        self.public: set[int] = set()
        """Handles every peer can read once this job is done."""
        self.seats: list[int] = []
        self.next_index = 0
        self.sent = False

    def begin(self, session: Session, number: int) -> None:
        super().begin(session, number)
        state = session.state
        assert state is not None
        players = session.players
        everyone = (1 << players) - 1
        recipients: dict[int, list[int | None]] = {}
        for request in self.requests:
            tos = recipients.setdefault(request.handle, [])
            if request.to not in tos:
                tos.append(request.to)
        for handle, tos in recipients.items():
            published = session.cards.published(handle)
            unpublished = [seat for seat in range(players) if seat not in published]
            knowers = state.seen[handle]
            for to in tos:
                knowers |= everyone if to is None else 1 << to
            if knowers == everyone:
                self.public.add(handle)
                for seat in unpublished:
                    self._owe(self.owed.setdefault(seat, []), handle)
                continue
            if not unpublished:
                continue  # cannot happen: a card with every share published is public
            keeper = next((to for to in tos if to in unpublished), unpublished[0])
            for seat in unpublished:
                if seat != keeper:
                    self._owe(self.owed.setdefault(seat, []), handle)
            for to in tos:
                if to is not None and to != keeper:
                    self._owe(self.sealed.setdefault(keeper, {}).setdefault(to, []), handle)
        self.seats = sorted(set(self.owed) | set(self.sealed))

    @staticmethod
    def _owe(handles: list[int], handle: int) -> None:
        if handle not in handles:
            handles.append(handle)

    def _message(self, session: Session, me: int) -> dict[str, Any]:
        """Our shares: the published batch and one sealed packet per recipient."""
        assert session.secret is not None
        cards = session.cards
        context = session.context(me, self.start_hash)
        mine = self.owed.get(me, [])
        batch: list[Any] = []
        if mine:
            ciphertexts = [cards.ciphertexts[h] for h in mine]
            shares = crypto.make_share_batch(
                session.secret, session.public_keys[me], ciphertexts, context, rng=session.rng
            )
            batch = list(shares.to_wire())
        packets = []
        for to, handles in sorted(self.sealed.get(me, {}).items()):
            packet = crypto.seal_shares(
                session.secret,
                session.public_keys[me],
                to,
                session.public_keys[to],
                [cards.ciphertexts[h] for h in handles],
                context,
                me,
                rng=session.rng,
            )
            packets.append(packet.to_wire())
        return {"job": self.number, "batch": batch, "private": packets}

    def run(self, session: Session) -> bool:
        me = session.me
        cards = session.cards
        if not self.sent and me is not None and me in self.seats:
            self.sent = True  # every seat sends its shares at once: no waiting for lower seats
            if not session._queues[me]:
                session._emit("shares", self._message(session, me))
        while self.next_index < len(self.seats):
            seat = self.seats[self.next_index]
            handles = self.owed.get(seat, [])
            sealed = sorted(self.sealed.get(seat, {}).items())
            context = session.context(seat, self.start_hash)
            envelope = session.head(seat, "shares", self.number)
            if envelope is None:
                return False
            data = envelope.data
            try:
                batch = None
                if handles:
                    ciphertexts = [cards.ciphertexts[h] for h in handles]
                    batch = crypto.ShareBatch.from_wire(data["batch"], expected_len=len(handles))
                    crypto.verify_share_batch(session.public_keys[seat], ciphertexts, batch, context)
                elif data["batch"]:
                    raise crypto.MalformedData("published shares that were not due")
                if len(data["private"]) != len(sealed):
                    raise crypto.MalformedData(
                        f"sent {len(data['private'])} private share packet(s), {len(sealed)} due"
                    )
                packets = [crypto.PrivateShares.from_wire(wire) for wire in data["private"]]
                for packet, (to, _) in zip(packets, sealed, strict=True):
                    if packet.to != to:
                        raise crypto.MalformedData(f"a private share packet for seat {packet.to}, not {to}")
                    crypto.check_packet(packet, context, seat)
            except CryptoError as exc:
                raise _crypto_fault(seat, "invalid decryption shares", exc, envelope.frame) from None
            session.consume(envelope)
            if batch is not None:
                for handle, share in zip(handles, batch.shares, strict=True):
                    cards.published(handle)[seat] = share
            for packet, (to, sealed_handles) in zip(packets, sealed, strict=True):
                ciphertexts = [cards.ciphertexts[h] for h in sealed_handles]
                session.sealed_packet(envelope, packet, ciphertexts, context)
                if to == me:
                    self._open(session, envelope, packet, sealed_handles, ciphertexts, context)
            self.next_index += 1
        assert session.state is not None
        for request in self.requests:
            session.engine(Reveal(request.handle, request.to, self._value(session, request)))
        return True

    def _open(
        self,
        session: Session,
        envelope: Envelope,
        packet: crypto.PrivateShares,
        handles: list[int],
        ciphertexts: list[crypto.Ciphertext],
        context: bytes,
    ) -> None:
        """Open a packet sent to us; if it does not check, complain (publicly) and blame its sender."""
        assert session.secret is not None and session.me is not None
        sender = envelope.seat
        try:
            batch = crypto.open_shares(
                session.secret, packet, session.public_keys[sender], ciphertexts, context, sender
            )
        except CryptoError as exc:
            if session.replaying:
                raise Misbehaviour(
                    sender, f"sent private shares that do not check: {exc}", (envelope.frame,)
                ) from None
            key, proof = crypto.make_complaint(
                session.secret,
                session.public_keys[session.me],
                packet,
                crypto.complaint_context(session.config.session_id, session.me, envelope.digest),
                rng=session.rng,
            )
            complaint = session._emit(
                "complaint", {"frame": envelope.frame, "key": key, "proof": list(proof.to_wire())}
            )
            shown = (envelope.frame,) if complaint is None else (envelope.frame, complaint.frame)
            raise Misbehaviour(sender, f"sent private shares that do not check: {exc}", shown) from None
        for handle, share in zip(handles, batch.shares, strict=True):
            session.cards.private.setdefault(handle, {})[sender] = share

    def _value(self, session: Session, request: RevealRequest) -> int | None:
        me = session.me
        handle = request.handle
        public = handle in self.public
        if not public and (request.to is None or request.to != me):
            return None
        cards = session.cards
        shares = dict(cards.published(handle))
        ciphertext = cards.ciphertexts[handle]
        if not public:
            assert session.secret is not None and me is not None
            shares.update(cards.private.get(handle, {}))
            shares[me] = crypto.decryption_share(session.secret, ciphertext)
        if len(shares) != session.players:
            raise AssertionError(f"card {handle} lacks shares")
        deck = cards.deck_of[handle]
        assert session.state is not None
        composition = session._rules.composition(session.state, deck)
        book = cards.codebook(deck, len(composition))
        try:
            index = book.index_of(crypto.combine_shares(ciphertext, shares.values()))
        except CryptoError:
            # every share was proven and every shuffle checked: only a broken deck gets here
            raise _Unattributable(f"card {handle} did not decrypt to a card of the {deck} deck") from None
        return int(composition[index])

    def blocked(self, session: Session) -> _Blocked:
        seat = self.seats[self.next_index] if self.next_index < len(self.seats) else 0
        return _Blocked(f"job:{self.number}:shares:{seat}", (seat,), True)


class _Coin(_Job):
    """A joint random number in [0, n): every seat commits to 32 random bytes, then reveals."""

    def __init__(self, request: RandomRequest) -> None:
        self.request = request
        self.phase = "commit"
        self.next_seat = 0
        self.commits: dict[int, bytes] = {}
        self.values: dict[int, bytes] = {}
        self.mine: crypto.CoinContribution | None = None

    @property
    def label(self) -> str:
        return f"random:{self.request.purpose}:{self.number}"

    def run(self, session: Session) -> bool:
        me = session.me
        if self.phase == "commit":
            if me is not None and self.mine is None:
                self.mine = session._coin_secrets.get(self.number)
                if self.mine is None:
                    self.mine = crypto.CoinContribution.new(rng=session.rng)
                    session._coin_secrets[self.number] = self.mine  # kept for a resume until revealed
                if not session._queues[me]:
                    commit = self.mine.commitment(self.label, session.context(me, self.start_hash), me)
                    session._emit("coincommit", {"job": self.number, "commit": commit})
            while self.next_seat < session.players:
                envelope = session.head(self.next_seat, "coincommit", self.number)
                if envelope is None:
                    return False
                session.consume(envelope)
                self.commits[self.next_seat] = envelope.data["commit"]
                self.next_seat += 1
            self.phase, self.next_seat = "reveal", 0
            if me is not None and self.mine is not None and not session._queues[me]:
                session._emit("coin", {"job": self.number, "reveal": list(self.mine.to_wire())})
        while self.next_seat < session.players:
            seat = self.next_seat
            envelope = session.head(seat, "coin", self.number)
            if envelope is None:
                return False
            try:
                reveal = crypto.CoinContribution.from_wire(envelope.data["reveal"])
                crypto.verify_coin_reveal(
                    self.commits[seat], self.label, session.context(seat, self.start_hash), seat, reveal
                )
            except CryptoError as exc:
                raise _crypto_fault(seat, "coin reveal refused", exc, envelope.frame) from None
            session.consume(envelope)
            self.values[seat] = reveal.value
            self.next_seat += 1
        value = crypto.combine_coins(self.label, self.start_hash, self.values, self.request.n)
        session._coin_secrets.pop(self.number, None)
        session.engine(RandomResult(self.request.purpose, self.request.n, value))
        return True

    def blocked(self, session: Session) -> _Blocked:
        return _Blocked(f"job:{self.number}:{self.phase}:{self.next_seat}", (self.next_seat,), True)


class _MoveJob(_Job):
    """The move of `seat`, the lowest seat the engine lets decide now."""

    def __init__(self, seat: int) -> None:
        self.seat = seat

    def run(self, session: Session) -> bool:
        seat = self.seat
        if seat == session.me and not session._queues[seat]:
            move = session.take_submitted()
            if move is None:
                session.your_move()
                return False
            assert session.state is not None
            try:
                apply(session.state, move)
            except IllegalMove as exc:
                session.refuse_submitted(exc.reason)
                session._your_move_sent = False
                session.your_move()
                return False
            session._emit("move", {"job": self.number, "move": move.to_dict()})
        envelope = session.head(seat, "move", self.number)
        if envelope is None:
            return False
        try:
            move = Move.from_dict(envelope.data["move"], session._rules.schema)
        except MalformedMove as exc:
            raise Misbehaviour(seat, f"malformed move: {exc.reason}", (envelope.frame,)) from None
        if move.seat != seat:
            raise Misbehaviour(seat, f"sent a move for seat {move.seat}", (envelope.frame,))
        assert session.state is not None
        try:
            state, events = apply(session.state, move)
        except IllegalMove as exc:
            raise Misbehaviour(
                seat, f"illegal move {move.to_dict()}: {exc.reason}", (envelope.frame,)
            ) from None
        session.consume(envelope)
        session.state = state
        session.after_engine(events)
        return True

    def blocked(self, session: Session) -> _Blocked:
        return _Blocked(f"job:{self.number}:move:{self.seat}", (self.seat,), False)


class _RoundSignature(_Job):
    """Every seat signs the transcript hash at the end of a round; all must be equal."""

    def __init__(self, round_number: int) -> None:
        self.round = round_number
        self.next_seat = 0
        self.sent = False
        self.seqs: dict[int, int] = {}

    def run(self, session: Session) -> bool:
        me = session.me
        if me is not None and not self.sent:
            self.sent = True
            if not session._queues[me]:
                session._emit("roundsig", {"job": self.number, "round": self.round, "hash": self.start_hash})
        while self.next_seat < session.players:
            seat = self.next_seat
            envelope = session.head(seat, "roundsig", self.number)
            if envelope is None:
                return False
            if envelope.data["round"] != self.round or envelope.data["hash"] != self.start_hash:
                raise Misbehaviour(
                    seat, f"signed a different transcript at the end of round {self.round}", (envelope.frame,)
                )
            session.consume(envelope)
            self.seqs[seat] = envelope.seq
            self.next_seat += 1
        session._events.append(RoundSigned(self.round, self.start_hash))
        session.compact(self.seqs)
        return True

    def blocked(self, session: Session) -> _Blocked:
        return _Blocked(f"job:{self.number}:roundsig:{self.next_seat}", (self.next_seat,), True)
