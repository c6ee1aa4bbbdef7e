"""Relays: passing on signed frames of other seats, as evidence or because a peer lacks them.

A frame one seat signed is taken by every peer exactly as if received directly, whoever relays
it (`take`): so two different signed frames with one sequence number meet, whichever came first,
and a peer that was sent another version of a frame reaches the same verdict as the others.
Three things relay:

* **Evidence** (`publish`): the signed frames that prove a fault, or that a waited seat may lack,
  are sent to every peer once each, inside our own `evidence` frames.
* **Gaps** (`want_later`, `serve_want`): an acknowledgement that shows a frame we lack starts a
  short `want:<seat>:<seq>` timer; when it runs out we ask with a `want`, and any peer answers by
  relaying the frames (at most 64 at a time, each frame at most `MAX_SERVED` times); a want for
  our own frames is answered with the frames themselves, sent again as they are (inside our own
  `evidence` frames they would sit behind the very gap they fill, and lengthen it).
* **Who may lack what** (`unacknowledged`): the frames a seat we wait for has not acknowledged.

Every relay is within our own relay budget (`Quotas.may_relay`), which is below every quota the
others apply to us, so relaying never makes an honest peer look like a flooder.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol

from .acks import Acknowledgements
from .chains import Chain
from .errors import BadSignature, MalformedMessage, MalformedSignedFrame, Misbehaviour
from .events import FrameRejected, SessionEvent, TimerRequest
from .messages import SIDE_KINDS, Envelope, peek_kind
from .quotas import Quotas

WANT_DELAY = 1.0
"""Seconds to wait for a frame an acknowledgement showed exists before asking the others for it."""
MAX_SERVED = 3
"""How often one frame is relayed in answer to `want`s (a flood of wants amplifies nothing)."""


class RelayContext(Protocol):
    """What the relays need of their session."""

    me: int | None
    players: int
    chains: list[Chain]
    final: bool
    replaying: bool

    @property
    def recovering(self) -> bool: ...

    @property
    def quotas(self) -> Quotas: ...

    def report(self, event: SessionEvent) -> None: ...

    def emit(self, kind: str, data: dict[str, Any]) -> Envelope | None: ...

    def resend(self, frame: bytes) -> None: ...

    def accept(self, envelope: Envelope) -> None: ...

    def open(self, frame: bytes) -> Envelope: ...

    acks: Acknowledgements


DECISION_KINDS = frozenset({"vacate", "uphold", "withdraw", "remove", "leave"})
"""The frames an offline check reads before it replays (`with_relayed`): votes and their answers,
removals, and leaves."""


def with_relayed(envelopes: Iterable[Envelope], open_frame: Callable[[bytes], Envelope]) -> list[Envelope]:
    """A file's frames in their order, with each decision frame (`DECISION_KINDS`) it holds only
    inside another seat's `evidence` frame placed right after the first such `evidence` frame
    (`open_frame` checks it as any frame: one that fails is left out here, and is found again when
    the evidence is fed).

    A player's file holds a frame only as a relay when its signer's link never brought it: the
    vote of a host whose link to the player was down while the others relayed it. An offline
    check must know the table's decision to play a seat before it replays that seat's frames
    (`SeatInsurance.foresee`): without the relayed vote, `verify` counted a frame the table had not
    counted, and named the honest host a cheat for its shares of the game the table played (seen
    on real programs: tests/client/test_lan_lid_missing_vote.py)."""
    envelopes = list(envelopes)
    seen: set[tuple[int, int, bytes]] | None = None  # (made once a relayed decision is found)
    out: list[Envelope] = []
    for envelope in envelopes:
        out.append(envelope)
        if envelope.kind != "evidence":
            continue
        frame = envelope.data["frame"]
        try:
            if peek_kind(frame) not in DECISION_KINDS:
                continue
            inner = open_frame(frame)
        except (MalformedMessage, BadSignature, MalformedSignedFrame, ValueError, LookupError, TypeError):
            continue  # (`peek_kind` raises the last three on junk that does not even parse)
        key = (inner.seat, inner.seq, inner.digest)
        if seen is None:
            seen = {(e.seat, e.seq, e.digest) for e in envelopes}
        if key not in seen:
            seen.add(key)
            out.append(inner)
    return out


class Relays:
    """One session's relays: what it published, asked for and served."""

    def __init__(self, ctx: RelayContext) -> None:
        self.ctx = ctx
        self.published: set[bytes] = set()
        """SHA-256 of every frame we relayed as evidence (each goes out once)."""
        self.wanted: set[tuple[int, int]] = set()
        """(seat, seq) we asked a `want:` timer for."""
        self.served: dict[tuple[int, int], int] = {}
        """(seat, seq) -> how often we relayed it in answer to `want`s."""
        self.relaying = False
        """True while a relayed frame is taken in (evidence inside it is only compared)."""
        self.deferred: dict[bytes, bytes] = {}
        """(A session reading its own file back) mark -> frame it would relay: our relays of then
        are in the file, as our own `evidence` frames, read back after it (`take` strikes those
        off); the rest are relayed once the file is read and its tail recovered (`flush_deferred`)."""

    @contextmanager
    def taking(self) -> Iterator[None]:
        """Take frames in as relayed ones (see `take`)."""
        outer, self.relaying = self.relaying, True
        try:
            yield
        finally:
            self.relaying = outer

    def take(self, sender: int, frame: bytes) -> None:
        """A frame of another seat that `sender` relays as evidence: taken as if received directly.

        Evidence relayed inside relayed evidence is only compared, not taken in (no deeper
        nesting); a frame of ours is ignored (we know what we signed).
        """
        ctx = self.ctx
        try:
            other = ctx.open(frame)
        except MalformedSignedFrame as exc:
            if exc.seat == ctx.me:
                return  # we know what we signed (the relayer only passed on what it got)
            raise Misbehaviour(exc.seat, exc.reason, (exc.frame,)) from None
        except (MalformedMessage, BadSignature) as exc:
            raise Misbehaviour(sender, f"sent evidence that is not a valid frame: {exc.reason}") from None
        if other.seat == ctx.me:
            return
        if sender == ctx.me:  # our own relay, read back from our file: it went out then
            mark = hashlib.sha256(frame).digest()
            self.published.add(mark)
            self.deferred.pop(mark, None)
        if not (self.relaying and other.kind == "evidence"):
            with self.taking():
                ctx.accept(other)
            return
        chain = ctx.chains[other.seat]
        known = chain.frames.get(other.seq) or chain.ahead.get(other.seq) or chain.parked_at(other.seq)
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

    def publish(self, frames: Iterable[bytes]) -> None:
        """Relay signed frames that prove a fault to the other peers, once each."""
        ctx = self.ctx
        for frame in frames:
            mark = hashlib.sha256(frame).digest()
            if ctx.me is None or mark in self.published:
                continue
            if ctx.replaying or ctx.recovering:
                # reading our own file back (or waiting for the others' word on its tail): what
                # we relayed then follows in it; a relay signed now would give one of our
                # sequence numbers a second frame (equivocation)
                self.deferred.setdefault(mark, frame)
                continue
            if not ctx.quotas.may_relay(len(frame)):
                self._refused()
                continue
            self.published.add(mark)
            try:
                ctx.emit("evidence", {"frame": frame})
            except ValueError:  # too large to wrap: the others received it directly
                continue

    def flush_deferred(self) -> None:
        """Our file is read back: relay what we would have relayed and the file shows we did not
        (the program stopped in between)."""
        frames, self.deferred = list(self.deferred.values()), {}
        self.publish(frames)

    def _refused(self) -> None:
        """Our relay budget is spent: say so (once per window), relay nothing more."""
        reason = self.ctx.quotas.relay_refused()
        if reason is not None:
            self.ctx.report(FrameRejected(reason))

    def unacknowledged(self, seats: Iterable[int]) -> list[bytes]:
        """Frames that one of `seats` may lack and need, in chain order (ours included).

        A seat that acknowledged a seat's game frame #q holds all of that seat's frames up to q
        (a chain is taken in order); it may lack the frames after the last one it acknowledged,
        up to that seat's last game frame (side frames between included: the chain needs them).
        Ours too: a link that stalled may have held back what we sent, and the waited seat may be
        waiting for it.
        """
        waited = tuple(seats)
        missing: list[bytes] = []
        for owner, chain in enumerate(self.ctx.chains):
            games = [q for q, e in chain.frames.items() if e.kind not in SIDE_KINDS]
            if not games:
                continue
            start = max(games) + 1
            for seat in waited:
                if seat != owner:
                    echoed = max((q for q in games if self.ctx.acks.echoed(seat, owner, q)), default=-1)
                    start = min(start, echoed + 1)
            for q in range(start, max(games) + 1):
                missing.extend(chain.first_version(q))
        return missing

    # --- gaps ---------------------------------------------------------------------------------

    def want_later(self, seat: int) -> None:
        """An acknowledgement showed that a frame of `seat` exists that we lack: ask for it shortly."""
        ctx = self.ctx
        if ctx.me is None:
            return
        key = (seat, ctx.chains[seat].next_seq)
        if key not in self.wanted:
            self.wanted.add(key)
            ctx.report(TimerRequest(f"want:{seat}:{key[1]}", WANT_DELAY))

    def want_needed(self, rest: str) -> bool:
        """Whether a `want:<seat>:<seq>` timer is still of use (the frame has not come)."""
        seat_text, _, seq_text = rest.partition(":")
        try:
            seat, seq = int(seat_text), int(seq_text)
        except ValueError:
            return False
        ctx = self.ctx
        return not ctx.final and 0 <= seat < ctx.players and ctx.chains[seat].next_seq <= seq

    def want_timeout(self, name: str) -> None:
        """`want:<seat>:<seq>` ran out: if the frame has not come, ask every peer for it."""
        _, seat_text, seq_text = name.split(":")
        seat, seq = int(seat_text), int(seq_text)
        ctx = self.ctx
        if ctx.final or ctx.me is None or ctx.chains[seat].next_seq > seq:
            return  # it came meanwhile
        if ctx.recovering:
            # (a restored session, its tail not back yet) we sign nothing now: ask once we may.
            # Dropped, it was lost for good: the gap is asked about once (`wanted`), and a seat the
            # table plays was left behind it, never seeing the vote that took its seat (found on
            # real programs: a player back with `--resume` while another program's lid closed)
            ctx.report(TimerRequest(name, WANT_DELAY))
            return
        if ctx.emit("want", {"seat": seat, "from": seq}) is None:
            self.wanted.discard((seat, seq))  # not sent (our quotas): the next acknowledgement asks again

    def serve_want(self, asker: int, seat: int, start: int) -> None:
        """Relay the frames of `seat` that `asker` lacks (at most 64 at a time, each a few times,
        within our relay budget). Our own frames are sent again as they are: wrapped in our own
        `evidence` frames they would be new frames of our chain, after the gap the asker has in
        it, held behind that gap, of no use to it, and more frames it lacks (seed 9283 of the
        adversary model: thousands of such relays, two honest peers that never caught up, and the
        others stopped naming one of them absent)."""
        ctx = self.ctx
        if ctx.me is None or seat >= ctx.players or seat == asker or ctx.replaying:
            return  # (a `want` read back from our file was answered then)
        chain = ctx.chains[seat]
        own = seat == ctx.me
        quotas = ctx.quotas
        for seq in range(start, min(chain.next_seq, start + 64)):
            key = (seat, seq)
            # side frames too (their bytes are kept until compaction): a seat the table voted to
            # play cannot send them again, and its later frames cannot be taken without them
            held = chain.first_version(seq)
            if self.served.get(key, 0) >= MAX_SERVED or not held:
                continue
            frame = held[0]
            if own:
                allowed = quotas.within_relay_budget(len(frame))
            else:
                allowed = quotas.free_relay(seat, seq, len(frame)) or quotas.may_relay(len(frame))
            if not allowed:
                self._refused()
                return
            self.served[key] = self.served.get(key, 0) + 1
            if own:
                quotas.spend_relay_budget(len(frame))
                ctx.resend(frame)
                continue
            try:
                ctx.emit("evidence", {"frame": frame})
            except ValueError:  # too large to wrap: it went out directly
                continue

    def compact(self, signed: Mapping[int, int]) -> None:
        """A round was signed: forget the serve counts of frames nobody will ask for again."""
        self.served = {k: n for k, n in self.served.items() if k[1] >= signed.get(k[0], 0)}


__all__ = ["MAX_SERVED", "WANT_DELAY", "RelayContext", "Relays"]
