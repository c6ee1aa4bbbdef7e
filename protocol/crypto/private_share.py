"""Decryption shares sent privately to one seat, with a proof it checks and a public dispute path.

Why: a card some seats already know privately must be shown to one more seat without any share
being published that, with the shares already public, would open the card to everyone. The seat
whose share is still unpublished (the *keeper*) sends it to the recipient only, encrypted.

Construction (hybrid encryption in the game's own group, then an AEAD from `cryptography`):

* the sender picks an ephemeral scalar e (from `secrets`), publishes E = eG with a Schnorr proof of
  knowledge of e (RFC 8235, Section 3.2; see `schnorr.SchnorrProof`) bound to the packet's
  context. The proof is checked by every peer: without it a sender could choose E = c1 of a card
  and trick the recipient's dispute into publishing x_t*c1, the recipient's share of that card.
* both ends derive Z = e*X_t = x_t*E (Diffie-Hellman in the prime-order group), then the key
  K = HKDF-SHA256(Z, info) (RFC 5869) with `info` binding session, sender, recipient, job and E.
* the plaintext is the sender's shares of the cards with one batched Chaum-Pedersen proof in
  commitment form (`dleq.ShareBatch`: D_1..D_m, A, B, s; context bound to the recipient too),
  sealed with ChaCha20-Poly1305 (RFC 8439) under K; K is used for exactly one message, so the
  nonce is fixed at zero.

The recipient decrypts and checks the batch proof against the sender's public key share X_k and
the cards' c1. If anything fails it *complains*: it publishes Z with a Chaum-Pedersen proof that
log_G X_t = log_E Z (so Z is the true key material, not a value chosen to make the box fail). Then
any peer and any verifier can open the box and decide: a box that does not open or a batch that
does not verify proves the sender cheated; a box whose shares verify proves the complaint was
false (the recipient is blamed). Either way the shares in that box become public; the game halts
with a blamed seat, so that disclosure never happens in a game that goes on.

References: ElGamal-style KEM ("hashed ElGamal", Abdalla, Bellare, Rogaway, "The oracle
Diffie-Hellman assumptions and an analysis of DHIES", CT-RSA 2001, Section 4); verifiable
decryption of the key by a DLEQ proof as in Chaum and Pedersen, CRYPTO 1992.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from protocol.crypto.dleq import (
    BatchProof,
    DLEQProof,
    ShareBatch,
    make_share_batch,
    prove_dleq,
    verify_dleq,
    verify_share_batch,
)
from protocol.crypto.elgamal import Ciphertext
from protocol.crypto.errors import InvalidProof, MalformedData
from protocol.crypto.group import (
    POINT_BYTES,
    Point,
    decode_point,
    decode_scalar,
    mul,
    mul_base,
    random_scalar,
)
from protocol.crypto.hashing import hash512
from protocol.crypto.randomness import SYSTEM, RandomSource
from protocol.crypto.schnorr import SchnorrProof, prove_key, verify_key

PRIVATE_LABEL: Final[str] = "skyjo-lan/v1/private-share"
COMPLAINT_LABEL: Final[str] = "skyjo-lan/v1/private-share/complaint"
_NONCE: Final[bytes] = bytes(12)
TAG_BYTES: Final[int] = 16
MAX_BOX: Final[int] = POINT_BYTES * (4096 + 3) + TAG_BYTES


@dataclass(frozen=True, slots=True)
class PrivateShares:
    """A sender's shares of some cards, encrypted to seat `to`: (E, proof of e, AEAD box)."""

    to: int
    ephemeral: Point
    proof: SchnorrProof
    box: bytes

    def to_wire(self) -> list[object]:
        """[to, E, [e, s], box]."""
        return [self.to, bytes(self.ephemeral), list(self.proof.to_wire()), self.box]

    @classmethod
    def from_wire(cls, obj: object) -> PrivateShares:
        """Parse a received packet: E a valid point, the proof canonical, the box a sane size."""
        if not isinstance(obj, list | tuple) or len(obj) != 4:
            raise MalformedData("private shares are [to, E, proof, box]")
        to, ephemeral, proof, box = obj
        if not isinstance(to, int) or isinstance(to, bool) or not 0 <= to < 8:
            raise MalformedData("private shares name a seat")
        if not isinstance(box, bytes) or not TAG_BYTES + 4 * POINT_BYTES <= len(box) <= MAX_BOX:
            raise MalformedData("private share box has an impossible size")
        return cls(to, decode_point(ephemeral), SchnorrProof.from_wire(proof), box)


def packet_context(context: bytes, sender: int, to: int) -> bytes:
    """The context of one packet: the sender's proof context (session, seat, transcript hash)
    extended with the sender and the recipient, so a packet never fits another pair."""
    return hash512(PRIVATE_LABEL, context, sender, to)


def _key(z: Point, ephemeral: Point, context: bytes) -> bytes:
    info = hash512(PRIVATE_LABEL, "key", context, ephemeral)
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(bytes(z))


def _encode(batch: ShareBatch) -> bytes:
    shares, a, b, s = batch.to_wire()
    return b"".join(shares) + a + b + s


def _decode(plain: bytes, expected: int) -> ShareBatch:
    if len(plain) != POINT_BYTES * (expected + 3):
        raise MalformedData(f"private box holds {len(plain)} bytes, expected {expected} shares")
    chunks = [plain[i : i + POINT_BYTES] for i in range(0, len(plain), POINT_BYTES)]
    return ShareBatch(
        tuple(decode_point(c) for c in chunks[:-3]),
        BatchProof(decode_point(chunks[-3]), decode_point(chunks[-2]), decode_scalar(chunks[-1])),
    )


def seal_shares(
    secret: int,
    public_key: Point,
    recipient: int,
    recipient_key: Point,
    ciphertexts: Sequence[Ciphertext],
    context: bytes,
    sender: int,
    *,
    rng: RandomSource = SYSTEM,
) -> PrivateShares:
    """Our shares of `ciphertexts`, proven and encrypted to `recipient` (whose key share is
    `recipient_key`). `context` is our usual proof context for this job. Draws from `rng`, in
    order: the batch proof's nonce, the ephemeral e, the proof of e's nonce."""
    ctx = packet_context(context, sender, recipient)
    batch = make_share_batch(secret, public_key, ciphertexts, ctx, rng=rng)
    e = random_scalar(rng=rng)
    ephemeral = mul_base(e)
    proof = prove_key(e, ephemeral, ctx, rng=rng)
    box = ChaCha20Poly1305(_key(mul(e, recipient_key), ephemeral, ctx)).encrypt(_NONCE, _encode(batch), ctx)
    return PrivateShares(recipient, ephemeral, proof, box)


def check_packet(packet: PrivateShares, context: bytes, sender: int) -> None:
    """What every peer checks of a packet it cannot open: the proof of knowledge of e."""
    verify_key(packet.ephemeral, packet.proof, packet_context(context, sender, packet.to))


def _open_with(
    z: Point,
    packet: PrivateShares,
    sender_key: Point,
    ciphertexts: Sequence[Ciphertext],
    context: bytes,
    sender: int,
) -> ShareBatch:
    ctx = packet_context(context, sender, packet.to)
    try:
        plain = ChaCha20Poly1305(_key(z, packet.ephemeral, ctx)).decrypt(_NONCE, packet.box, ctx)
    except InvalidTag:
        raise InvalidProof("private share box does not open") from None
    batch = _decode(plain, len(ciphertexts))
    verify_share_batch(sender_key, ciphertexts, batch, ctx)
    return batch


def open_shares(
    secret: int,
    packet: PrivateShares,
    sender_key: Point,
    ciphertexts: Sequence[Ciphertext],
    context: bytes,
    sender: int,
) -> ShareBatch:
    """The recipient's side: decrypt and check. Raises a `CryptoError` if anything fails."""
    return _open_with(mul(secret, packet.ephemeral), packet, sender_key, ciphertexts, context, sender)


def complaint_context(session_id: bytes, complainer: int, frame_digest: bytes) -> bytes:
    """A complaint's proof is bound to the session, the complainer and the disputed frame."""
    return hash512(COMPLAINT_LABEL, session_id, complainer, frame_digest)


def make_complaint(
    secret: int, public_key: Point, packet: PrivateShares, context: bytes, *, rng: RandomSource = SYSTEM
) -> tuple[Point, DLEQProof]:
    """The recipient's opening of a packet's key material: Z = x_t*E and a proof that it is."""
    z = mul(secret, packet.ephemeral)
    return z, prove_dleq(secret, public_key, packet.ephemeral, z, context, rng=rng)


def judge_complaint(
    z: Point,
    proof: DLEQProof,
    complaint_ctx: bytes,
    recipient_key: Point,
    packet: PrivateShares,
    sender_key: Point,
    ciphertexts: Sequence[Ciphertext],
    context: bytes,
    sender: int,
) -> str:
    """Decide a complaint: "complainer" (its opening is false, or the shares do check) or
    "sender" (the box does not open or its shares do not verify under the true key)."""
    try:
        verify_dleq(recipient_key, packet.ephemeral, z, proof, complaint_ctx)
    except InvalidProof:
        return "complainer"
    try:
        _open_with(z, packet, sender_key, ciphertexts, context, sender)
    except (InvalidProof, MalformedData):
        return "sender"
    return "complainer"
