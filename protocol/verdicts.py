"""Halts sent by other seats: checking their evidence ourselves before adopting their verdict.

Every stop is announced in a signed `halt` side frame carrying its evidence. A peer that receives
one takes the evidence in as if received directly (`Relays.take`), so it reaches the same
verdict itself, and until then stops too but keeps checking what arrives, quietly (no game
message of its own, no timers). A halt whose evidence, once fully checked, proves nothing blames
its sender: nobody can stop a game by naming an honest seat.

`HaltClaims` keeps the halts naming a culprit we have not confirmed yet, with the frames of their
evidence still to be consumed here; it reads and changes the session only through
`VerdictContext`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any, Protocol

from .chains import Chain
from .config import TableConfig, seat_names
from .errors import BadSignature, MalformedMessage, MalformedSignedFrame, Misbehaviour
from .insurance import SeatInsurance
from .messages import MAX_TEXT, SIDE_KINDS, Envelope
from .relays import Relays
from .steps import StepWatch

MAX_HALT_EVIDENCE = 900_000
"""Bytes of evidence a halt frame carries (the rest was relayed as `evidence` frames already)."""


class VerdictContext(Protocol):
    """What the halt claims need of their session."""

    me: int | None
    players: int
    config: TableConfig
    final: bool
    replaying: bool
    chains: list[Chain]
    queues: list[deque[Envelope]]
    steps: StepWatch
    insurance: SeatInsurance

    def open(self, frame: bytes) -> Envelope: ...

    relays: Relays

    def blocked_seats(self) -> tuple[int, ...]: ...

    def stop_counts(self, seat: int, seq: int) -> bool: ...

    def check_postponed(self) -> None: ...

    def advance(self) -> None: ...

    def blame(self, fault: Misbehaviour, halt: bool = True) -> None: ...

    def halt(
        self,
        reason: str,
        culprit: int | None = None,
        absent: tuple[int, ...] = (),
        evidence: tuple[bytes, ...] = (),
        announce: bool = True,
        left: int | None = None,
    ) -> None: ...


Claim = tuple[int, int, bytes, set[tuple[int, int]]]
"""(sender, culprit it names, its halt frame, frames of its evidence not yet consumed here)."""


class HaltClaims:
    """The halts of other seats naming a culprit we have not confirmed."""

    def __init__(self, ctx: VerdictContext) -> None:
        self.ctx = ctx
        self.claims: list[Claim] = []

    def announcement(
        self, reason: str, culprit: int | None, absent: tuple[int, ...], evidence: tuple[bytes, ...]
    ) -> dict[str, Any]:
        """The body of our `halt` frame. With a culprit, the frames the others may lack to check
        the evidence themselves (ahead of it, not echoed) are relayed first, so every honest peer
        reaches this same verdict."""
        ctx = self.ctx
        if culprit is not None:
            ctx.relays.publish(ctx.relays.unacknowledged(s for s in range(ctx.players) if s != ctx.me))
        shown: list[bytes] = []
        room = MAX_HALT_EVIDENCE
        for frame in evidence[:8]:
            if len(frame) <= room:
                shown.append(frame)
                room -= len(frame)
        return {
            "reason": reason[:MAX_TEXT] or "stopped",
            "culprit": [] if culprit is None else [culprit],
            "absent": sorted(set(absent))[:8],
            "evidence": shown,
        }

    def seen(self, seat: int, seq: int) -> None:
        """A frame took its place (a side frame) or was consumed (a game frame)."""
        for _, _, _, pending in self.claims:
            pending.discard((seat, seq))

    def halt_frame(self, envelope: Envelope) -> None:
        """Another seat stopped the game. Check its evidence ourselves and adopt the verdict.

        The evidence is taken in as if received directly: a fault it proves becomes our own
        verdict, the same. Until then we stop too (we may be behind), but keep checking what
        arrives; a halt whose evidence, once we reach it, proves nothing names its sender.
        """
        ctx = self.ctx
        sender, data = envelope.seat, envelope.data
        if sender == ctx.me:
            if ctx.replaying:  # our own halt, read back after a restart
                claimed = data["culprit"][0] if data["culprit"] else None
                ctx.halt(data["reason"], claimed, tuple(data["absent"]), announce=False)
            return
        if not data["culprit"] and not ctx.stop_counts(sender, envelope.seq):
            # a stop without proof signed while the table played the sender's seat (it was cut
            # off, or crashed and came back): not the table's; it comes back by its `return`
            return
        for frame in data["evidence"]:
            ctx.relays.take(sender, frame)
        claimed = data["culprit"][0] if data["culprit"] else None
        if claimed is not None:
            ctx.check_postponed()  # a batch of proofs we put off may hold the fault it names
        if ctx.final:
            return
        # The seats it names absent that we saw silent for a whole wait ourselves: a halt held
        # back, or relayed late, may name a seat that has only just received what it needed, as
        # we have (the adversary model's seed 16663); an adversary may stop naming a seat it
        # kept from answering (seed 18497: its false echoes held that seat's jobs back) when we
        # have waited for that seat a little only. Never ourselves: a job may be blocked on a
        # message of our own still to be made.
        blocked = ctx.blocked_seats()
        absent = tuple(
            seat for seat in data["absent"] if seat in blocked and seat != ctx.me and self._seen_silent(seat)
        )
        who = seat_names(ctx.config)[sender]
        if claimed is None or (claimed == ctx.me and not self._all_ours(data["evidence"])):
            # A stop without proof, or one naming us with frames signed by our key that we never
            # sent (then our key is not ours alone): we stop, blaming nobody.
            ctx.halt(f"{who} (seat {sender + 1}) stopped the game: {data['reason']}", absent=absent)
            return
        pending: set[tuple[int, int]] = set()
        for frame in data["evidence"]:
            try:
                other = ctx.open(frame)
            except (MalformedMessage, BadSignature):
                continue
            if other.seq > ctx.chains[other.seat].next_seq and other.seat != ctx.me:
                ctx.relays.want_later(other.seat)  # the frames before it: ask whoever has them
            if other.kind not in SIDE_KINDS and self._not_consumed(other):
                pending.add((other.seat, other.seq))  # until a step consumes it
            elif other.kind in SIDE_KINDS and other.seq >= ctx.chains[other.seat].next_seq:
                pending.add((other.seat, other.seq))  # until it takes its place in its chain
        ctx.halt(f"{who} (seat {sender + 1}) stopped the game, blaming seat {claimed + 1}: {data['reason']}")
        if data["evidence"]:
            self.claims.append((sender, claimed, envelope.frame, pending))
            ctx.advance()
            self.settle()

    def _seen_silent(self, seat: int) -> bool:
        """Whether we saw `seat` silent for a whole wait ourselves: our first wait for the current
        step, which waits for it, ran out (`StepWatch`), or we voted that the table play its
        program (a vote is an observation, PROTOCOL.md 10.9). Always, for an observer: it times
        nobody and goes by the players' signed word."""
        ctx = self.ctx
        if ctx.me is None:
            return True
        blocked = ctx.steps.blocked
        if blocked is not None and seat in blocked.seats and ctx.steps.first_wait_over(blocked.name):
            return True
        return ctx.insurance.my_vote(ctx.config.owners[seat]) is not None

    def _all_ours(self, frames: Iterable[Any]) -> bool:
        """Every frame here signed with our key is one we sent (it is in our chain)."""
        ctx = self.ctx
        mine = ctx.chains[ctx.me] if ctx.me is not None else None
        for frame in frames:
            try:
                other = ctx.open(frame)
            except MalformedSignedFrame as exc:
                if exc.seat == ctx.me:
                    return False
                continue
            except (MalformedMessage, BadSignature):
                continue
            if other.seat == ctx.me and (mine is None or mine.digest_of(other.seq) != other.digest):
                return False
        return True

    def _not_consumed(self, envelope: Envelope) -> bool:
        chain = self.ctx.chains[envelope.seat]
        if envelope.seq >= chain.next_seq:
            return True
        return any(e.seq == envelope.seq for e in self.ctx.queues[envelope.seat])

    def settle(self) -> None:
        """A halt claim whose evidence we have fully checked without finding the fault is false."""
        if not self.claims or any(pending for _, _, _, pending in self.claims):
            # one claim may rest on another (a halt relaying a halt): judge none while any waits
            return
        claims, self.claims = self.claims, []
        for sender, claimed, frame, pending in claims:
            if self.ctx.final:
                continue
            if pending:
                self.claims.append((sender, claimed, frame, pending))
                continue
            self.ctx.blame(
                Misbehaviour(
                    sender,
                    f"halted the game blaming seat {claimed + 1} with evidence that proves nothing",
                    (frame,),
                )
            )


__all__ = ["MAX_HALT_EVIDENCE", "Claim", "HaltClaims", "VerdictContext"]
