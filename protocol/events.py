"""What a `Session` tells the program that drives it (besides frames to send)."""

from __future__ import annotations

from dataclasses import dataclass

from skyjo_p2p.core.events import Event as EngineEvent


@dataclass(frozen=True, slots=True)
class Started:
    """Every seat's key is known and checked: the game begins."""


@dataclass(frozen=True, slots=True)
class Updated:
    """The local game state changed; `facts` are the engine's events (moves, reveals, scores)."""

    facts: tuple[EngineEvent, ...]


@dataclass(frozen=True, slots=True)
class YourMove:
    """This peer's seat may move now (`Session.legal_moves()` lists the moves)."""


@dataclass(frozen=True, slots=True)
class MoveRefused:
    """A move this peer submitted was not played (it stopped being legal): choose again."""

    reason: str


@dataclass(frozen=True, slots=True)
class RoundSigned:
    """Every seat signed the same transcript hash at the end of `round`."""

    round: int
    transcript_hash: bytes


@dataclass(frozen=True, slots=True)
class Finished:
    winners: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ChatReceived:
    seat: int
    text: str
    seq: int = -1
    """The chat frame's number in its seat's chain."""
    final: bool = False
    """It arrived once the game was over (or stopped) and every round signature was in: no game
    frame of its seat follows to cover it, so the table never confirms it (PROTOCOL.md 11, final
    side frames): another player may have been shown a different version."""


@dataclass(frozen=True, slots=True)
class FrameRejected:
    """Bytes that were not a valid frame of this session (not attributable: nobody signed them)."""

    reason: str


@dataclass(frozen=True, slots=True)
class Blamed:
    """`seat` broke the protocol; `evidence` holds the signed frames that prove it, if any."""

    seat: int
    reason: str
    evidence: tuple[bytes, ...] = ()


@dataclass(frozen=True, slots=True)
class Left:
    """`seat` left the table for good: it signed a `leave` frame (never a blame).

    Reported before the `Halted` that ends the game (the game cannot go on without the seat).
    """

    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class SeatTakenOver:
    """From now on every peer plays `seat` with the same deterministic bot, from public
    information only (`protocol.takeover`): its player left (`how` is "left": it published its
    key share) or vanished past the grace period ("vanished": the others rebuild the decryption
    shares the seat's cards need from the key escrow). `disclosed` counts the seat's private
    cards that had to become public for the bot to play them."""

    seat: int
    how: str
    disclosed: int = 0


@dataclass(frozen=True, slots=True)
class SeatReturned:
    """`seat`'s player came back after a takeover and plays their seat again (from the next
    turn boundary)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Rewound:
    """The table counted fewer of our frames than this session played (it took our seat over
    while we were cut off): the session must be rebuilt from the saved transcript
    (`Session.restore`), where those frames are void, and goes on from there."""

    reason: str


@dataclass(frozen=True, slots=True)
class TableSilent:
    """We voted to play a program's seats and, for a whole grace period since, no other program
    sent us anything, or, started again from our saved file, we heard no other program within a
    `recover` timer: most likely we are the one cut off. The game is not stopped (the table may
    be playing on, and our seat may be played by it); the session waits, and a driver shows it
    (`seats`: those we hear nothing from)."""

    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class AwayChanged:
    """`seat`'s player is away (`away`: their own program plays for them, "autopilot") or back.

    Said in a signed `away` frame: part of the transcript, shown to everyone, no effect on the
    game (the moves are that seat's own, signed as always)."""

    seat: int
    away: bool


@dataclass(frozen=True, slots=True)
class SteppedOut:
    """`seat`'s player stepped out without leaving (Ctrl-C: its program ended; `--resume` brings
    it back), said in a signed `stepout` frame. At an insured table the others vote at once to
    play its program's seats (PROTOCOL.md 10.9, "Stepping out")."""

    seat: int


@dataclass(frozen=True, slots=True)
class RemovalChanged:
    """A proposal to remove program `owner` (its seats) from the game changed (PROTOCOL.md 10.9,
    "Removing a player"): `agreed` are the seats whose agreement this peer holds, `needed` every
    seat whose agreement the removal needs, `proposer` the first agreeing seat this peer saw.
    `outcome` is "open" (waiting for agreements), "removed" (every other program agreed: the
    table plays the seats from now on) or "refused" (a seat refused, or the proposal expired)."""

    owner: int
    proposer: int
    agreed: tuple[int, ...]
    needed: tuple[int, ...]
    outcome: str = "open"


@dataclass(frozen=True, slots=True)
class Halted:
    """The session stopped; nothing more will be played in it.

    `culprit` is the seat proven (by signed evidence) to have broken the protocol, if any;
    `absent` are the seats that stopped answering (a lost link, a closed lid: not a cheat);
    `left` is the seat that said it leaves (a signed `leave`). A stop with none of them is one
    this peer could not attribute (an unsettled dispute, say).
    """

    reason: str
    culprit: int | None = None
    absent: tuple[int, ...] = ()
    left: int | None = None


@dataclass(frozen=True, slots=True)
class TimerRequest:
    """Call `Session.timer_expired(name)` after `seconds` (the session keeps no clock). A new
    request of a name replaces the one pending: only the last one runs out (a wait that starts
    afresh asks for its timer again)."""

    name: str
    seconds: float


SessionEvent = (
    Started
    | Updated
    | YourMove
    | MoveRefused
    | RoundSigned
    | Finished
    | ChatReceived
    | FrameRejected
    | Blamed
    | Left
    | AwayChanged
    | SteppedOut
    | RemovalChanged
    | SeatTakenOver
    | SeatReturned
    | Rewound
    | TableSilent
    | Halted
    | TimerRequest
)
