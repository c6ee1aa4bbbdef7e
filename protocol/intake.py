"""Frames in: how a signed frame enters its seat's chain, and where it goes from there.

A frame that `messages.open_frame` opened (signature and schema checked) is one of:

* a frame we already hold (a resend after a reconnection): checked to be the same frame, since
  two different frames with one sequence number are a fork, proven by the pair (`Chain.check_held`);
* a frame ahead of a gap in its chain: held until the gap is filled, within quotas;
* the next frame of its chain: appended, checked to follow the previous one (a broken chain is
  blamed with both frames), its acknowledgements read (`protocol.acks`), then
  - a *side* frame (chat, want, halt, leave, evidence, complaint, away, the seat-insurance votes,
    return, stepout) is handled at once by the part it belongs to (`SIDE_HANDLERS`), and only
    its digest is kept in memory (the transcript file has it);
  - a *game* frame waits in its seat's queue until the job that consumes it runs (`Session.advance`),
    unless the queue is full (the frame is *parked*: `Quotas.park`) or the table did not count it
    (a seat it played: `SeatInsurance.void`).

Our own frames come back here only when a saved file is read back (`replaying`) or when the others
hold frames of ours our file lost (`protocol.recovery`); any other frame signed with our key is
refused.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Protocol

from .acks import Acknowledgements
from .chains import Chain
from .complaints import Complaints
from .config import TableConfig, seat_names
from .errors import Misbehaviour
from .events import ChatReceived, FrameRejected, SessionEvent
from .insurance import SeatInsurance
from .messages import SIDE_KINDS, Envelope
from .quotas import Quotas
from .recovery import Recovery
from .relays import Relays
from .takeover import StandIn
from .verdicts import HaltClaims

NOT_THE_SAME_GAME = "not the same game"
"""How a stop begins when a seat's chain starts from another genesis (PROTOCOL.md 6)."""


class IntakeContext(Protocol):
    """What the intake reads and changes of its session (the narrow interface)."""

    config: TableConfig
    me: int | None
    halted: str | None
    final: bool
    replaying: bool
    max_ahead_frames: int
    max_ahead_bytes: int
    chains: list[Chain]
    queues: list[deque[Envelope]]
    frames: list[bytes]
    stand_ins: dict[int, StandIn]
    quotas: Quotas
    acks: Acknowledgements
    relays: Relays
    halt_claims: HaltClaims
    complaints: Complaints
    insurance: SeatInsurance
    recovery: Recovery

    @property
    def settled(self) -> bool: ...

    def report(self, event: SessionEvent) -> None: ...

    def stop(self, reason: str, culprit: int | None = None, absent: tuple[int, ...] = ()) -> None: ...

    def blame(self, fault: Misbehaviour, halt: bool = True) -> None: ...

    def note_away(self, seat: int, away: bool) -> None: ...


def _chat(session: IntakeContext, envelope: Envelope) -> None:
    session.report(ChatReceived(envelope.seat, envelope.data["text"], envelope.seq, session.settled))


SIDE_HANDLERS: dict[str, Callable[[IntakeContext, Envelope], None]] = {
    "echo": lambda s, e: None,  # only acknowledgements, read with every frame (`Acknowledgements`)
    "chat": _chat,
    "want": lambda s, e: s.relays.serve_want(e.seat, e.data["seat"], e.data["from"]),
    "halt": lambda s, e: s.halt_claims.halt_frame(e),
    "leave": lambda s, e: s.insurance.leave_frame(e),
    "evidence": lambda s, e: s.relays.take(e.seat, e.data["frame"]),
    "complaint": lambda s, e: s.complaints.complaint(e),
    "away": lambda s, e: s.note_away(e.seat, e.data["away"]),
    "vacate": lambda s, e: s.insurance.frame(e),
    "uphold": lambda s, e: s.insurance.frame(e),
    "withdraw": lambda s, e: s.insurance.frame(e),
    "return": lambda s, e: s.insurance.return_frame(e),
    "stepout": lambda s, e: s.insurance.stepout_frame(e),
    "remove": lambda s, e: s.insurance.removals.frame(e),
}
"""Which part handles each kind of side frame (every kind of `messages.SIDE_KINDS` has one)."""


class Intake:
    """Takes opened frames into their chains (see the module's docstring)."""

    def __init__(self, session: IntakeContext) -> None:
        self._session = session

    def accept(self, envelope: Envelope) -> None:
        """Take a frame (received, relayed or read back) into its chain, or hold or refuse it."""
        session = self._session
        chain = session.chains[envelope.seat]
        own = envelope.seat == session.me and envelope.seq >= chain.next_seq
        if own and session.recovery.active:
            session.recovery.own_frame(envelope)
            return
        if own and not session.replaying:
            session.report(FrameRejected("a frame signed with this peer's own key that it did not send"))
            return
        if envelope.seq < chain.next_seq:
            chain.check_held(envelope)  # a duplicate (a resend after a reconnection), or a fork
            return
        if chain.parked is not None and chain.parked_at(envelope.seq) is not None:
            chain.check_parked(envelope)
            return
        if envelope.seq > chain.next_seq or chain.parked is not None:
            if not chain.hold_ahead(envelope, session.max_ahead_frames, session.max_ahead_bytes):
                session.report(
                    FrameRejected(f"too many frames ahead of a gap from seat {envelope.seat + 1}: dropped")
                )
            return
        self._in_order(envelope)

    def _in_order(self, envelope: Envelope) -> None:
        """Append a frame that follows its chain, then those that waited ahead of it, but a game
        frame its seat's queue has no room for: parked (`Quotas.park`, which also blames one of a
        job that cannot exist yet)."""
        session = self._session
        chain = session.chains[envelope.seat]
        if not self._place(envelope, chain):
            return
        if chain.ahead:  # (`take_ahead` looks after the first frame is appended, as before)
            for frame in chain.take_ahead():
                if not self._place(frame, chain):
                    return
        if chain.ahead and session.me is not None and session.halted and not session.final:
            # stopped without proof, part of a gap came (a `want`'s answer, 64 frames at most):
            # ask for the rest, which may hold the proof every honest peer must reach (nothing
            # else arrives now to show the gap again)
            session.relays.want_later(envelope.seat)

    def _place(self, frame: Envelope, chain: Chain) -> bool:
        """Append a frame that follows its chain, or park it (False: parked, and said so)."""
        session = self._session
        why = session.quotas.park(frame, chain, session.acks.in_chain[frame.seat], session.queues[frame.seat])
        if why is not None:
            session.report(FrameRejected(why))
            return False
        self.append(frame)
        return True

    def unparked(self) -> bool:
        """Parked frames whose queue has room again take their place (True if one did)."""
        session = self._session
        for chain in session.chains:
            if chain.parked is not None:
                break
        else:  # nothing parked (the common case: asked after every step that waits)
            return False
        ready = [c.parked for c in session.chains if c.parked is not None]
        ready = [p for p in ready if session.quotas.unpark(session.chains[p.seat], session.queues[p.seat])]
        for parked in ready:
            try:
                self._in_order(parked)
            except Misbehaviour as fault:
                session.blame(fault)
        return bool(ready)

    def append(self, envelope: Envelope) -> None:
        """Append a frame that follows its seat's chain (its signature checked), and hand it on."""
        session = self._session
        chain = session.chains[envelope.seat]
        if envelope.seq == 0 and envelope.prev != chain.last_digest:
            # its chain starts from another genesis with this session id: another table (the
            # host gave the seats different ones, or a file mixes two games). Nothing signed
            # shows who is wrong (that genesis may be one the host really signed): nobody is blamed.
            who = seat_names(session.config)[envelope.seat]
            session.stop(
                f"{NOT_THE_SAME_GAME}: {who} (seat {envelope.seat + 1}) plays a table whose genesis "
                "differs from ours (same session id)"
            )
            return
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
        session.frames.append(envelope.frame)
        acks = session.acks
        if acks.claims:  # (none to compare in most games: `check_claims` would return at once)
            acks.check_claims(envelope)
        acks.read(envelope)
        if envelope.kind in SIDE_KINDS:
            self._side_frame(envelope, chain)
        else:
            self._game_frame(envelope)

    def _side_frame(self, envelope: Envelope, chain: Chain) -> None:
        session = self._session
        session.acks.appended(envelope)
        session.halt_claims.seen(envelope.seat, envelope.seq)
        if envelope.seat != session.me:
            # another seat's side frame is on record (the transcript) once handled: keep its
            # digest only, so what a seat floods within its quotas is not held in memory
            del chain.frames[envelope.seq]
            chain.digests[envelope.seq] = envelope.digest
            chain.side[envelope.seq] = envelope.frame
        session.quotas.side_frame(envelope)
        SIDE_HANDLERS[envelope.kind](session, envelope)

    def _game_frame(self, envelope: Envelope) -> None:
        session = self._session
        stand_in = session.stand_ins.get(envelope.seat)
        if stand_in is not None and stand_in.how == "left":
            raise Misbehaviour(
                envelope.seat, "sent a game message after leaving the table", (envelope.frame,)
            )
        session.quotas.game_frame(envelope)
        session.acks.appended(envelope)
        insurance = session.insurance
        if not (insurance.voids and insurance.void(envelope.seat, envelope.seq)):  # (no void in most games)
            session.queues[envelope.seat].append(envelope)
            session.quotas.queued(envelope)
