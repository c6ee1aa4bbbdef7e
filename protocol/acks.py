"""Acknowledgements and disputed echoes: what each seat says it holds of the others.

Every frame a peer sends carries, in its signed body, the hash of the latest game frame it holds
of each other seat whose latest changed since its previous frame (the hash chain makes one
acknowledgement cover every earlier frame of that seat). So a peer never acts visibly on a frame
before acknowledging it: the frame that acts carries the acknowledgement, and a peer always gets
another's acknowledgement of a frame with (or before) anything that other peer did because of it.
When a game frame we hold stays unacknowledged and no frame of ours carried it within
`ACK_DELAY`, a stand-alone `echo` frame does (an `ack:<n>` timer; a frame of ours sent meanwhile
makes it of no use).

An acknowledged hash that differs from ours opens a *dispute*: our version and the disagreeing
frame are relayed to all at once, and no job runs (the frame that carried it is not consumed
either), no move is taken and nobody is timed out until either the other version arrives (two
signed frames: the author equivocated; or two frames of the acknowledger with one number: it
did) or the `echo:<seat>:<seq>` timer runs out: then the game stops naming the acknowledger
absent, blaming nobody (nothing signed shows who lied).

`Acknowledgements` is one session's bookkeeping of all that; it reads and changes the session
only through `AckContext`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from .chains import Chain
from .config import TableConfig, named_seats
from .events import SessionEvent, TimerRequest
from .messages import SIDE_KINDS, Ack, Envelope

ACK_DELAY = 0.25
"""Seconds a game frame we hold may stay unacknowledged before a stand-alone `echo` frame
acknowledges it (when no frame of ours carried the acknowledgement meanwhile)."""
CLAIM_WINDOW = 1024
"""Acknowledgement claims are kept only about frames at most this far past what we hold of their
chain."""


class AckContext(Protocol):
    """What the acknowledgements need of their session."""

    me: int | None
    players: int
    config: TableConfig
    chains: list[Chain]
    replaying: bool
    halted: str | None
    step_timeout: float

    def report(self, event: SessionEvent) -> None: ...

    def emit(self, kind: str, data: dict[str, Any]) -> Envelope | None: ...

    def publish(self, frames: Iterable[bytes]) -> None: ...

    def want_later(self, seat: int) -> None: ...

    def stop(self, reason: str, culprit: int | None = None, absent: tuple[int, ...] = ()) -> None: ...


class Acknowledgements:
    """What each seat acknowledged of the others, what we owe, and the disputes."""

    def __init__(self, ctx: AckContext) -> None:
        self.ctx = ctx
        players = ctx.players
        self.latest: list[tuple[int, bytes] | None] = [None] * players
        """Each seat's latest game frame we hold: (seq, digest)."""
        self.acked = [-1] * players
        """The sequence number our latest acknowledgement of each seat named (-1: none yet)."""
        self.timer_number = 0
        """The number of the last `ack:<n>` timer asked for (only that one is of use)."""
        self.armed = False
        self.in_chain: list[dict[int, int]] = [{} for _ in range(players)]
        """seat -> other seat -> the highest frame of it this seat's chain acknowledged so far."""
        self.marks: dict[tuple[int, int], dict[int, int]] = {}
        """(seat, seq) of a game frame not consumed yet -> what its chain acknowledged up to it."""
        self.consumed: list[dict[int, int]] = [{} for _ in range(players)]
        """What each seat's chain acknowledged up to its last game frame consumed: the same on
        every peer at the same point of the game (a return is witnessed there)."""
        self.claims: dict[tuple[int, int], dict[int, bytes]] = {}
        """(owner, seq) -> acknowledger -> the digest it named, for frames we do not hold yet or
        hold with another digest."""
        self.claim_frames: dict[tuple[int, int, int], bytes] = {}
        """(owner, seq, acknowledger) -> the frame that made an unsettled claim (shared bytes)."""
        self.disputes: set[tuple[int, int]] = set()
        """(seat, seq) of frames some peer acknowledged with another hash than ours: no job runs."""
        self.echo_max: dict[tuple[int, int], int] = {}
        """(acknowledger, owner) -> the highest sequence number of owner's frames it acknowledged."""
        self.own_latest = -1
        """The sequence number of our latest frame the others acknowledge (a game frame, a vote
        or a return), as `latest` is for theirs (-1: none yet)."""

    # --- frames in ----------------------------------------------------------------------------

    def read(self, envelope: Envelope) -> None:
        """The acknowledgements a frame carries (every frame does).

        One that names a frame we lack asks for it shortly (`want`); one whose digest differs
        from our copy opens a dispute (`check_claims`); one about a frame we do not hold yet is
        kept until that frame comes. Ours (read back after a restart) say what we acknowledged.
        """
        ctx = self.ctx
        echoer = envelope.seat
        if echoer == ctx.me:
            if _acknowledged(envelope.kind):
                self.own_latest = max(self.own_latest, envelope.seq)
            for seat, seq, _ in envelope.acks:
                self.acked[seat] = max(self.acked[seat], seq)
            return
        chains, me, echo_max, claims = ctx.chains, ctx.me, self.echo_max, self.claims
        for seat, seq, digest in envelope.acks:
            chain = chains[seat]
            next_seq = chain.next_seq
            if seq >= next_seq + (1 if seat == me else CLAIM_WINDOW):
                continue  # about a frame that cannot exist yet: nothing to keep
            key = (echoer, seat)
            if seq > echo_max.get(key, -1):
                echo_max[key] = seq
            known = chain.frames.get(seq)
            if known is None:
                if seq < next_seq:
                    continue  # from a round every seat signed: nothing left to dispute
            elif known.digest == digest and (not claims or (seat, seq) not in claims):
                continue  # agrees with what we hold: nothing to keep
            claims.setdefault((seat, seq), {})[echoer] = digest
            self.claim_frames[(seat, seq, echoer)] = envelope.frame
            if known is not None:
                self.check_claims(known)
            elif seat != ctx.me:
                ctx.want_later(seat)

    def appended(self, envelope: Envelope) -> None:
        """A frame took its place in its chain: what its chain acknowledged so far, and (a game
        frame, or a vote or return: acknowledged as game frames are) the latest we hold."""
        acked = self.in_chain[envelope.seat]
        for seat, seq, _ in envelope.acks:
            if seq > acked.get(seat, -1):
                acked[seat] = seq
        kind = envelope.kind
        game = kind not in SIDE_KINDS
        if game:
            self.marks[(envelope.seat, envelope.seq)] = dict(acked)
        if envelope.seat != self.ctx.me and (game or _acknowledged(kind)):
            # a vote or return is acknowledged like a game frame: a witness of a return; a voted
            # seat that acknowledges a vote shows it is there (`SeatInsurance`)
            self.latest[envelope.seat] = (envelope.seq, envelope.digest)

    def consumed_frame(self, envelope: Envelope) -> None:
        """A step consumed a game frame: what its chain acknowledged up to it is now common."""
        marks = self.marks.pop((envelope.seat, envelope.seq), None)
        if marks is not None:
            self.consumed[envelope.seat] = marks

    # --- frames out ---------------------------------------------------------------------------

    def pending(self) -> list[Ack]:
        """The acknowledgements our next frame carries: each other seat's latest game frame we
        hold, if newer than the one we last acknowledged (the chain covers the ones between)."""
        out: list[Ack] = []
        for seat, latest in enumerate(self.latest):
            if latest is not None and latest[0] > self.acked[seat]:
                out.append((seat, latest[0], latest[1]))
        return out

    def sent(self, envelope: Envelope, acks: list[Ack]) -> None:
        """One of our frames carried `acks`: they are owed no more (and its timer is of no use)."""
        me = envelope.seat
        acked = self.in_chain[me]
        for seat, seq, _ in acks:
            self.acked[seat] = seq
            acked[seat] = max(acked.get(seat, -1), seq)
        if envelope.kind not in SIDE_KINDS:
            self.marks[(me, envelope.seq)] = dict(acked)
        if _acknowledged(envelope.kind):
            self.own_latest = envelope.seq
        self.armed = False

    def behind(self) -> list[int]:
        """The other seats whose acknowledgements we hold do not reach the latest frame we hold
        of every seat, ours included: their programs may lack part of what we hold. At the end
        of a game the others' last frames are acknowledged by `echo` frames within `ACK_DELAY`,
        so a seat still behind then most likely lost its link as the game ended
        (`client.net.mesh` waits a while for it to come back for the end)."""
        me = self.ctx.me
        held = {seat: latest[0] for seat, latest in enumerate(self.latest) if latest is not None}
        if me is not None and self.own_latest >= 0:
            held[me] = self.own_latest
        get = self.echo_max.get
        return [
            seat
            for seat in range(self.ctx.players)
            if seat != me and any(get((seat, owner), -1) < n for owner, n in held.items() if owner != seat)
        ]

    def arm_timer(self) -> None:
        """Ask for the stand-alone acknowledgement's timer if something waits for one."""
        ctx = self.ctx
        if ctx.me is None or ctx.replaying or ctx.halted or self.armed:
            return
        if self.pending():
            self.armed = True
            self.timer_number += 1
            ctx.report(TimerRequest(f"ack:{self.timer_number}", ACK_DELAY))

    def ack_timer(self, name: str) -> None:
        """`ack:<n>` ran out: if nothing carried what we owe, a stand-alone `echo` does."""
        if self.armed and name == f"ack:{self.timer_number}":
            self.armed = False
            if self.pending():
                self.ctx.emit("echo", {})

    def timer_needed(self, kind: str, rest: str) -> bool:
        """Whether an `ack:` or `echo:` timer is still of use."""
        if kind == "ack":
            return self.armed and rest == str(self.timer_number)
        seat_text, _, seq_text = rest.partition(":")
        try:
            return (int(seat_text), int(seq_text)) in self.disputes
        except ValueError:
            return False

    # --- disputes -----------------------------------------------------------------------------

    def check_claims(self, envelope: Envelope) -> None:
        """Compare what others acknowledged of this frame with the frame itself."""
        if not self.claims:  # (asked at every frame appended: the common answer)
            return
        key = (envelope.seat, envelope.seq)
        claims = self.claims.get(key)
        if not claims:
            return
        liars = [echoer for echoer, digest in claims.items() if digest != envelope.digest]
        if not liars:
            del self.claims[key]  # settled: keep nothing
            for echoer in claims:
                self.claim_frames.pop((envelope.seat, envelope.seq, echoer), None)
            return
        if key not in self.disputes:
            # Either its author equivocated or an echoer lies. Stop acting on anything until the
            # signed frame the echoer has comes (proof of equivocation). Show everyone, at once,
            # our version and the echo that disagrees: an echoer that told others otherwise is
            # then caught equivocating its own echoes, by every peer.
            self.disputes.add(key)
            shown = [envelope.frame]
            for echoer in liars:
                echo = self.claim_frames.get((envelope.seat, envelope.seq, echoer))
                if echo is not None:
                    shown.append(echo)
            self.ctx.publish(shown)
            self.ctx.report(TimerRequest(f"echo:{envelope.seat}:{envelope.seq}", self.ctx.step_timeout))

    def echo_timeout(self, name: str) -> None:
        """`echo:<seat>:<seq>` ran out with the dispute open: stop, naming the echoers absent."""
        _, seat_text, seq_text = name.split(":")
        seat, seq = int(seat_text), int(seq_text)
        known = self.ctx.chains[seat].frames.get(seq)
        claims = self.claims.get((seat, seq), {})
        liars = sorted(e for e, digest in claims.items() if known is not None and digest != known.digest)
        if liars and (seat, seq) in self.disputes:
            # Nobody can prove who lied (the author may have signed another version for the
            # echoer only): the game stops, naming nobody.
            who = named_seats(self.ctx.config, liars)
            self.ctx.stop(
                f"{who} echoed a frame #{seq} of {named_seats(self.ctx.config, [seat])} other than ours "
                "and showed no signed version",
                absent=tuple(liars),
            )

    def echoed(self, echoer: int, owner: int, seq: int) -> bool:
        """Whether `echoer` acknowledged `owner`'s frame `seq` (or a later one)."""
        return self.echo_max.get((echoer, owner), -1) >= seq


__all__ = ["ACK_DELAY", "CLAIM_WINDOW", "AckContext", "Acknowledgements"]


def _acknowledged(kind: str) -> bool:
    """Whether the others acknowledge a frame of this kind (`Acknowledgements.appended`)."""
    return kind not in SIDE_KINDS or kind in ("return", "vacate")
