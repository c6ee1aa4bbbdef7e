"""Judging a complaint about private shares: the checks every peer makes the same way.

A keeper sends its decryption shares of a card sealed to each recipient (`crypto.seal_shares`);
a recipient whose packet does not open or check publishes a `complaint` with the disputed frame,
its key material Z = x_t*E and a DLEQ proof. Every peer then decides, from public data only, who
is at fault: the sender (the packet is bad) or the complainer (it is not).

Why a module of its own: the judgment is a pure function of the frames and the keys; the Session
keeps only the bookkeeping (which packets it consumed, which complaints wait for them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple, Protocol

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from . import crypto
from .config import TableConfig
from .crypto import CryptoError
from .errors import BadSignature, MalformedMessage, Misbehaviour
from .escrows import Escrows
from .jobs.base import crypto_fault
from .messages import Envelope, open_frame
from .quotas import Quotas, job_of
from .relays import Relays


class SealedPacket(NamedTuple):
    """A consumed packet of private shares, kept until its round is signed (a complaint may come)."""

    packet: crypto.PrivateShares
    ciphertexts: list[crypto.Ciphertext]
    context: bytes
    frame: bytes


def disputed_frame(
    complaint: Envelope, config: TableConfig, verifiers: Mapping[int, Ed25519PublicKey]
) -> Envelope:
    """The frame a complaint disputes, opened; `Misbehaviour` of the complainer if it is not a
    frame, or one that sent it no private shares (a false complaint)."""
    try:
        disputed = open_frame(complaint.data["frame"], config, verifiers)
    except (MalformedMessage, BadSignature) as exc:
        raise Misbehaviour(
            complaint.seat,
            f"complained about something that is not a frame: {exc.reason}",
            (complaint.frame,),
        ) from None
    if disputed.kind == "escrow" and disputed.seat != complaint.seat:
        return disputed  # a holder's complaint about its escrow box (`Session._judge_escrow_complaint`)
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
    return disputed


def verdict(
    complaint: Envelope,
    sender: int,
    sealed: SealedPacket,
    config: TableConfig,
    verifiers: Mapping[int, Ed25519PublicKey],
    public_keys: Sequence[crypto.Point],
) -> Misbehaviour:
    """Who is at fault, `sender` or the complainer: the fault to blame (there always is one)."""
    packet, ciphertexts, context, frame = sealed
    try:
        z = crypto.decode_point(complaint.data["key"])
        proof = crypto.DLEQProof.from_wire(complaint.data["proof"])
    except CryptoError as exc:
        return crypto_fault(complaint.seat, "malformed complaint", exc, complaint.frame)
    judged = crypto.judge_complaint(
        z,
        proof,
        crypto.complaint_context(
            config.session_id, complaint.seat, open_frame(frame, config, verifiers).digest
        ),
        public_keys[complaint.seat],
        packet,
        public_keys[sender],
        ciphertexts,
        context,
        sender,
    )
    if judged == "sender":
        return Misbehaviour(
            sender,
            f"sent seat {complaint.seat + 1} private shares that do not check (its complaint proves it)",
            (frame, complaint.frame),
        )
    return Misbehaviour(
        complaint.seat,
        f"complained about private shares from seat {sender + 1} that do check",
        (complaint.frame, frame),
    )


def stale(complaint: Envelope, disputed: Envelope, done: int) -> None:
    """`Misbehaviour` of the complainer if its complaint comes after it did a later job than the
    disputed frame's (`done`: the highest job of its game frames before the complaint in its
    chain; a round signature is one). An honest seat complains while it consumes the frame, in
    that job, before it makes a message for any later one (it blames the sender and stops): so a
    complaint that comes later can no longer be judged (its packet may be forgotten) and is never
    honest. Decided from the complainer's chain alone: every peer and `verify` agree."""
    job = job_of(disputed)
    if done > job:
        raise Misbehaviour(
            complaint.seat,
            f"complained about a frame of job {job} after its own message for job {done} "
            "(a complaint that can no longer be judged)",
            (complaint.frame,),
        )


class ComplaintContext(Protocol):
    """What the complaint bookkeeping needs of its session."""

    me: int | None
    config: TableConfig
    public_keys: list[crypto.Point]

    @property
    def verifiers(self) -> Mapping[int, Ed25519PublicKey]: ...

    escrows: Escrows
    relays: Relays
    quotas: Quotas

    def accept(self, envelope: Envelope) -> None: ...


class Complaints:
    """Which packets of private shares a session consumed, and the complaints that wait for them.

    A complaint about a frame this peer has not consumed yet (it is behind in the game's order)
    waits for it; it is judged when the packet (or the escrow box) is consumed."""

    def __init__(self, ctx: ComplaintContext) -> None:
        self.ctx = ctx
        self.sealed: dict[tuple[int, int], dict[int, SealedPacket]] = {}
        """(sender, seq) -> recipient -> the consumed packet (until its round is signed)."""
        self.waiting: dict[tuple[int, int], list[Envelope]] = {}
        """Complaints about packets or escrow boxes this peer has not consumed yet."""

    def sealed_packet(
        self,
        envelope: Envelope,
        packet: crypto.PrivateShares,
        ciphertexts: list[crypto.Ciphertext],
        context: bytes,
    ) -> None:
        """Remember a consumed packet of private shares, so a complaint about it can be judged."""
        key = (envelope.seat, envelope.seq)
        sealed = SealedPacket(packet, ciphertexts, context, envelope.frame)
        self.sealed.setdefault(key, {})[packet.to] = sealed
        for complaint in self.waiting.pop(key, []):
            if complaint.seat == packet.to:
                self.judge(complaint, key)

    def escrow_kept(self, dealer: int, seq: int) -> None:
        """`dealer`'s escrow box (its frame `seq`) was consumed: judge the complaints about it."""
        for waiting in self.waiting.pop((dealer, seq), []):
            self.judge_escrow(waiting, dealer)

    def complaint(self, complaint: Envelope) -> None:
        """A seat says the private shares sent to it in a frame do not check: judge it.

        The disputed frame travels inside the complaint and is taken in as if received directly.
        A complaint about a frame that holds no packet for its author is false.
        """
        ctx = self.ctx
        disputed = disputed_frame(complaint, ctx.config, ctx.verifiers)
        stale(complaint, disputed, ctx.quotas.last_job[complaint.seat])
        if disputed.seat != ctx.me:
            with ctx.relays.taking():
                ctx.accept(disputed)
        key = (disputed.seat, disputed.seq)
        if disputed.kind == "escrow":
            kept = ctx.escrows.boxes.get(disputed.seat)
            if kept is not None and kept[2].seq == disputed.seq:
                self.judge_escrow(complaint, disputed.seat)
            else:
                self.waiting.setdefault(key, []).append(complaint)
        elif complaint.seat in self.sealed.get(key, {}):
            self.judge(complaint, key)
        else:
            self.waiting.setdefault(key, []).append(complaint)

    def judge_escrow(self, complaint: Envelope, dealer: int) -> None:
        """A holder says its escrow box from `dealer` does not check: anyone can tell who lies
        (`crypto.judge_escrow_complaint`); either way a seat is blamed and the game stops."""
        ctx = self.ctx
        deal, terms, escrow = ctx.escrows.boxes[dealer]
        holders = ctx.config.escrow_holders(dealer)
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

    def judge(self, complaint: Envelope, key: tuple[int, int]) -> None:
        """Judge a complaint about a consumed packet: raises the verdict (`Misbehaviour`)."""
        ctx = self.ctx
        sealed = self.sealed[key][complaint.seat]
        raise verdict(complaint, key[0], sealed, ctx.config, ctx.verifiers, ctx.public_keys)

    def round_signed(self) -> None:
        """A round was signed: no complaint about its packets can come any more (one about a frame
        of that round is refused: `stale`)."""
        self.sealed.clear()
