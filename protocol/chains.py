"""What one peer holds of each seat's hash chain of signed frames (`Chain`), and the bounds on
what it buffers ahead of a gap.

Why a module of its own: the chain is plain bookkeeping (the frames since the last signed round,
those ahead of a gap, the digests that tell a second version), with no say in what a frame
means; the session decides that (see `protocol.intake.Intake.accept`). The one rule it enforces itself: two
different signed frames with one sequence number are proof that their signer equivocated.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from .errors import Misbehaviour
from .messages import Envelope

MAX_BUFFERED = 256
"""Frames buffered ahead of a gap in one sender's chain before further ones are dropped."""
MAX_BUFFERED_BYTES = 4 << 20
"""Bytes buffered ahead of a gap in one sender's chain before further frames are dropped.

Dropping is safe: a dropped frame is sent again after a reconnection or on a `want`. Nobody is
blamed for it: a gap may be a lost link, and only the frames' signer could be named."""


@dataclass
class Chain:
    """What we have of one seat's hash chain."""

    next_seq: int
    last_digest: bytes
    frames: dict[int, Envelope] = field(default_factory=dict)
    """Frames since the last round every seat signed (older ones are on disk, see `compact`)."""
    ahead: dict[int, Envelope] = field(default_factory=dict)
    """Frames received ahead of a gap, waiting for the frames before them."""
    ahead_bytes: int = 0
    parked: Envelope | None = None
    """The next game frame of the chain, held back: its seat's game messages queued (not yet
    consumed) would pass `quotas.MAX_QUEUED_BYTES` with it. It takes its place once they are
    consumed; the frames after it wait ahead of it."""
    digests: dict[int, bytes] = field(default_factory=dict)
    """The digests of another seat's side frames since the last compaction (enough to tell a
    second version)."""
    side: dict[int, bytes] = field(default_factory=dict)
    """Another seat's side frames since the last compaction, as bytes only (the evidence if it
    signs a second version); what it may flood is bounded by the round quotas."""

    def first_version(self, seq: int) -> tuple[bytes, ...]:
        """Our copy of frame `seq`, if we still hold its bytes (evidence beside a second one)."""
        known = self.frames.get(seq) or self.parked_at(seq)
        if known is not None:
            return (known.frame,)
        side = self.side.get(seq)
        return () if side is None else (side,)

    def check_held(self, envelope: Envelope) -> None:
        """A frame at a number we already hold: a duplicate (a resend), or `Misbehaviour` of its
        signer if it differs from ours (our copy, or its digest, is the evidence beside it)."""
        known = self.frames.get(envelope.seq)
        if known is not None:
            if known.digest != envelope.digest:
                raise _equivocation(envelope, (known.frame,))
            return
        recorded = self.digests.get(envelope.seq)  # a side frame, or from rounds long signed
        if recorded is not None and recorded != envelope.digest:
            raise _equivocation(envelope, self.first_version(envelope.seq))

    def parked_at(self, seq: int) -> Envelope | None:
        """The parked frame, if it has this sequence number."""
        parked = self.parked
        return parked if parked is not None and parked.seq == seq else None

    def check_parked(self, envelope: Envelope) -> None:
        """Another copy of the parked frame: a duplicate, or `Misbehaviour` (equivocation)."""
        parked = self.parked
        assert parked is not None and parked.seq == envelope.seq
        if parked.digest != envelope.digest:
            raise _equivocation(envelope, (parked.frame,))

    def hold_ahead(self, envelope: Envelope, max_frames: int, max_bytes: int) -> bool:
        """Keep a frame that came ahead of a gap; False (dropped) if the bounds are reached.
        Two versions ahead are equivocation too (`Misbehaviour`)."""
        waiting = self.ahead.get(envelope.seq)
        if waiting is not None:
            if waiting.digest != envelope.digest:
                raise _equivocation(envelope, (waiting.frame,))
            return True
        size = len(envelope.frame)
        if len(self.ahead) >= max_frames or self.ahead_bytes + size > max_bytes:
            return False
        self.ahead[envelope.seq] = envelope
        self.ahead_bytes += size
        return True

    def take_ahead(self) -> Iterator[Envelope]:
        """The frames ahead that now follow the chain, in order (the caller appends each)."""
        while self.next_seq in self.ahead:
            waiting = self.ahead.pop(self.next_seq)
            self.ahead_bytes -= len(waiting.frame)
            yield waiting

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


def _equivocation(envelope: Envelope, ours: tuple[bytes, ...]) -> Misbehaviour:
    return Misbehaviour(
        envelope.seat,
        f"equivocation: two different signed frames #{envelope.seq}",
        (*ours, envelope.frame),
    )
