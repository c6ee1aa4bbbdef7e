"""What one peer holds of each seat's hash chain of signed frames (`Chain`), and the bounds on
what it buffers ahead of a gap.

Why a module of its own: the chain is plain bookkeeping (the frames since the last signed round,
those ahead of a gap, the digests that tell a second version), with no say in what a frame
means; the Session decides that (see `Session._accept`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
