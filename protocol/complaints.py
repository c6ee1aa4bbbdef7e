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
from typing import NamedTuple

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from . import crypto
from .config import TableConfig
from .crypto import CryptoError
from .errors import BadSignature, MalformedMessage, Misbehaviour
from .jobs.base import crypto_fault
from .messages import Envelope, open_frame


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
