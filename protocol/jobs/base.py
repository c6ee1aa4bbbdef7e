"""What every job shares: the base class `Job`, what it sees of the session (`JobContext`), and
the small types both sides use (`Blocked`, `Unattributable`, `crypto_fault`).

Why a protocol rather than the Session: a job consumes known messages from known seats and makes
our own; it needs a dozen things of the session (emit a frame, the queues' heads, the transcript
hash, the keys, the cards, the engine) and nothing of how frames are chained, echoed, disputed or
blamed. `JobContext` names exactly that, the Session implements it, and no job module imports
`protocol.session` (so no import circle, and a job can be driven by a stand-in in a test).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from skyjo_p2p.core.events import Event as EngineEvent
from skyjo_p2p.core.moves import Move, MoveSchema
from skyjo_p2p.core.state import TableState

from .. import crypto
from ..config import TableConfig
from ..crypto.randomness import RandomSource
from ..deck import CardStore
from ..errors import Misbehaviour
from ..events import SessionEvent
from ..messages import Envelope


class Unattributable(Exception):
    """Something went wrong that no signed frame pins on a seat: the session stops, blaming nobody."""


@dataclass(frozen=True)
class Blocked:
    """What the session waits for: a description and the seats it waits on."""

    name: str
    seats: tuple[int, ...]
    automatic: bool


def crypto_fault(seat: int, what: str, exc: Exception, frame: bytes) -> Misbehaviour:
    """A `Misbehaviour` of `seat` for a refused proof or malformed data in its `frame`."""
    reason = exc.args[0] if exc.args else type(exc).__name__
    return Misbehaviour(seat, f"{what}: {reason}", (frame,))


class PacketBook(Protocol):
    """Consumed packets of private shares, kept so a complaint about one can be judged
    (`protocol.complaints.Complaints`)."""

    def sealed_packet(
        self,
        envelope: Envelope,
        packet: crypto.PrivateShares,
        ciphertexts: list[crypto.Ciphertext],
        context: bytes,
    ) -> None:
        """Remember a consumed packet of private shares."""
        ...


class EscrowBook(Protocol):
    """The key escrows of an insured table (`protocol.escrows.Escrows`)."""

    @property
    def shares(self) -> dict[int, int]:
        """dealer -> our share of its key (we hold its escrow)."""
        ...

    def holders(self, seat: int) -> tuple[int, ...]:
        """The seats holding shares of `seat`'s key."""
        ...

    def point(self, dealer: int, holder: int) -> crypto.Point:
        """The public image s_h G of holder `holder`'s share of `dealer`'s key."""
        ...

    def terms(self, dealer: int, transcript_hash: bytes) -> crypto.EscrowTerms:
        """What `dealer`'s key escrow is about (holders, threshold, context)."""
        ...

    def keep(self, envelope: Envelope, deal: crypto.EscrowDeal, terms: crypto.EscrowTerms) -> None:
        """Keep a checked escrow; open our box if we hold one (a bad box: complaint, blame)."""
        ...


class JobContext(Protocol):
    """What a job sees of the session (the Session implements it).

    Read: who we are, the table, the transcript hash, the keys, the cards, the game's state.
    Write: our key share and the joint key (the keys job), the game's state (through the engine).
    Act: emit a frame of ours, take the next message of a seat, consume it, report an event.
    """

    @property
    def config(self) -> TableConfig:
        """The table (session id, seats, game, options)."""
        ...

    @property
    def me(self) -> int | None:
        """Our seat (None for an observer), whoever plays it now: what is revealed to our seat
        privately is ours to read, also while the table's decision to play it is being caught up
        with (frames of ours it counted are still consumed then)."""
        ...

    @property
    def acting(self) -> int | None:
        """Our seat, if we play it now: None for an observer, and while the table plays our seat
        (we were taken over: we make no game message of our own, as an observer)."""
        ...

    @property
    def players(self) -> int:
        """How many seats the table has."""
        ...

    @property
    def rng(self) -> RandomSource:
        """Where our secrets come from (key share, proofs, shuffles, coins)."""
        ...

    @property
    def replaying(self) -> bool:
        """True while a saved transcript is fed back in after a crash."""
        ...

    @property
    def transcript_hash(self) -> bytes:
        """The hash of every game message consumed so far."""
        ...

    @property
    def cards(self) -> CardStore:
        """The encrypted cards and the decryption shares published so far."""
        ...

    @property
    def public_keys(self) -> list[crypto.Point]:
        """Every seat's ElGamal key share, in seat order (filled by the keys job)."""
        ...

    @property
    def move_schema(self) -> MoveSchema:
        """The shapes of the game's moves (to decode a move message)."""
        ...

    secret: int | None
    """Our ElGamal key share x (None for an observer and before the keys job)."""
    my_public_key: crypto.Point | None
    """X = xG, our public key share."""
    joint_key: crypto.Point | None
    """The sum of every seat's key share: the deck is encrypted under it."""
    state: TableState | None
    """The game's state (None before the keys job starts the game)."""

    def composition(self, deck: str) -> Sequence[int]:
        """The values of `deck`'s physical cards in the current state, in card-id order."""
        ...

    def emit(self, kind: str, data: dict[str, Any]) -> Envelope | None:
        """Sign and send a frame of ours (None: the game stopped, a game message is not sent)."""
        ...

    def has_queued(self, seat: int) -> bool:
        """Whether a game message of `seat` waits, not yet consumed (ours: already sent, as after
        a resume, so it must not be made anew)."""
        ...

    def head(self, seat: int, kind: str, job: int | None) -> Envelope | None:
        """The next game message of `seat` if it is the one this job needs; a fault otherwise."""
        ...

    def consume(self, envelope: Envelope) -> None:
        """Take the head message of its seat's queue into the transcript hash."""
        ...

    def context(self, seat: int, transcript_hash: bytes) -> bytes:
        """The Fiat-Shamir context of a proof by `seat` made at `transcript_hash`."""
        ...

    def start_game(self) -> None:
        """The keys are agreed: make the game's first state."""
        ...

    def engine(self, action: Any) -> None:
        """Apply an answer to a request (or a move) to the engine and report what happened."""
        ...

    def after_engine(self, events: Iterable[EngineEvent]) -> None:
        """Report what the engine did (and queue what follows, such as a round signature)."""
        ...

    def your_move(self) -> None:
        """Tell the player (once) that its seat may move."""
        ...

    def take_submitted(self) -> Move | None:
        """The move the player submitted, if any (taken: it is not offered twice)."""
        ...

    def refuse_submitted(self, reason: str) -> None:
        """The submitted move cannot be played: tell the player (and ask again)."""
        ...

    @property
    def complaints(self) -> PacketBook:
        """Where consumed packets of private shares are kept (a complaint may come)."""
        ...

    def coin_secret(self, number: int) -> crypto.CoinContribution | None:
        """Our contribution to the coin of job `number`, if one was made (or saved before a crash)."""
        ...

    def keep_coin_secret(self, number: int, contribution: crypto.CoinContribution) -> None:
        """Keep our contribution to a coin until it is revealed (`secrets()` saves it)."""
        ...

    def forget_coin_secret(self, number: int) -> None:
        """The coin is decided: our contribution need not be kept any more."""
        ...

    def report(self, event: SessionEvent) -> None:
        """Hand an event to the driver."""
        ...

    def compact(self, signed: Mapping[int, int]) -> None:
        """A round ended: every seat signed the transcript at its frame `signed[seat]`."""
        ...

    def stands_in(self, seat: int, boundary: bool = False) -> bool:
        """Whether the table plays `seat` now (its player left and its messages ran out): the
        job then does the seat's part itself (`protocol.takeover`). `boundary`: the seat's turn
        begins (where a vanished player who came back retakes it)."""
        ...

    def stand_in_shares(self, seat: int, ciphertexts: Sequence[crypto.Ciphertext]) -> list[crypto.Point]:
        """The decryption shares of a seat the table plays (every peer computes the same)."""
        ...

    def own_queued(self, kind: str, job: int) -> list[Envelope]:
        """Our own game messages of `kind` for job `job` not yet consumed (after a resume)."""
        ...

    def rebuilds(self, seat: int) -> bool:
        """Whether a seat the table plays vanished: its shares are rebuilt from its escrow."""
        ...

    @property
    def escrows(self) -> EscrowBook:
        """The key escrows of an insured table (`protocol.escrows`)."""
        ...

    def stand_in_move(self, seat: int) -> Move:
        """The common bot's move for a seat the table plays."""
        ...

    def played_by_table(self, seat: int) -> bool:
        """Whether the table has begun to play `seat` (reveals to it are then made public)."""
        ...

    def undisclosed(self, seat: int) -> list[int]:
        """The cards `seat` knows that not everyone knows."""
        ...

    def disclose(self, handle: int, value: int) -> None:
        """Make a card public (a seat the table plays knew it)."""
        ...


class Job:
    """One step of the game's order. `run` consumes what it can; True when the job is done."""

    number = 0
    start_hash = b""

    def begin(self, ctx: JobContext, number: int) -> None:
        """The job becomes the current one: remember its number and the transcript hash."""
        self.number = number
        self.start_hash = ctx.transcript_hash

    def run(self, ctx: JobContext) -> bool:
        """Send our message if due and consume what has arrived; True once the job is done."""
        raise NotImplementedError

    def blocked(self, ctx: JobContext) -> Blocked:
        """What the job waits for (after `run` returned False)."""
        raise NotImplementedError

    def postponed_checks(self, ctx: JobContext) -> None:
        """Run the checks of consumed messages this job put off; `Misbehaviour` for a bad one."""
