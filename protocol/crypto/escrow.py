"""Key escrow (seat insurance): a seat's key share, shared among the other seats, usable only card by card.

Why: a seat that vanishes mid-game takes its key share x_i with it, and without x_i no card can be
read again. At the keys step each seat i (the *dealer*) therefore shares x_i among the *holders*
(the other human seats) so that, after a takeover, any t of them can jointly produce the
decryption shares x_i*c1 of exactly the cards the rules need, each holder with a proof, and never
x_i itself.

Construction: Feldman's verifiable secret sharing (P. Feldman, "A practical scheme for
non-interactive verifiable secret sharing", FOCS 1987) over Shamir's scheme
(A. Shamir, "How to share a secret", CACM 22(11), 1979):

* the dealer picks f(z) = x_i + a_1 z + ... + a_{t-1} z^{t-1} (a_k uniform from `rng`, evaluated
  with `group.scalar_muladd` only) and publishes the commitments C_k = a_k G for k = 1..t-1.
  C_0 = X_i is the dealer's public key share, already public: it is never sent, so it cannot
  differ from X_i;
* holder h, with public index idx(h) (the session passes seat + 1), gets s_h = f(idx(h)) in a
  *box*: the hashed-ElGamal KEM of `private_share` in our group (fresh ephemeral E = eG with a
  Schnorr proof of e, Z = e X_h = x_h E, K = HKDF-SHA256(Z, info binding the box context and E),
  ChaCha20-Poly1305 with the box context as associated data). The box context binds the caller's
  context, the dealer's seat, the holder's index and key;
* every peer checks the deal publicly (`check_deal`): point validity, t - 1 commitments, one box
  per holder of the exact size, and the Schnorr proof of each box's ephemeral;
* the holder opens its box (`open_share`) and checks s_h G == sum_k idx(h)^k C_k (Feldman's
  check). If the box does not open or the check fails, it *complains* publicly: Z = x_h E with a
  Chaum-Pedersen proof that log_G X_h = log_E Z (`make_escrow_complaint`), so anyone can open the
  box and decide (`judge_escrow_complaint`): the dealer cheated, or the complaint was false.

What "publicly verifiable" means here. It is the complaint-resolution form of verifiable sharing
used in T. P. Pedersen's distributed key generation ("A threshold cryptosystem without a trusted
party", EUROCRYPT 1991) and in Gennaro, Jarecki, Krawczyk, Rabin ("Secure distributed key
generation for discrete-log based cryptosystems", J. Cryptology 20(1), 2007, Section 4, step 1 of
the protocol New-DKG: shares are checked by their holders, a holder complains, the complaint is
resolved in public). It is NOT publicly verifiable secret sharing in the sense of Stadler
(EUROCRYPT 1996) or Schoenmakers (CRYPTO 1999), where anyone checks the encrypted shares
themselves: here nobody but holder h can tell whether box h holds a correct share. What anyone
(every peer, any later verifier of the transcript) can decide from public data alone is:
(1) whether the deal is well-formed (`check_deal`); (2) after a complaint, who is at fault; (3)
whether a holder's partial decryption is x_i's share of that card (`verify_partials`). So once the
keys step ends with no complaint, every honest holder holds a share consistent with the public
commitments, and any t holders' verified partials necessarily combine to x_i*c1 (C_0 = X_i). The
one difference from GJKR: there the dealer answers a complaint by broadcasting the share; here the
complainer opens the box itself (Z with its proof, as in `private_share`), so the dealer need not
be present, and the Schnorr proof of E keeps a dealer from choosing E = c1 of a card to turn a
complaint into a decryption oracle on x_h.

Reconstruction card by card (threshold ElGamal decryption: Desmedt, Frankel, "Threshold
cryptosystems", CRYPTO 1989; shares with Chaum-Pedersen proofs as in Shoup, Gennaro, "Securing
threshold cryptosystems against chosen ciphertext attack", J. Cryptology 15(2), 2002):
holder h publishes E_{h,k} = s_h c1_k for the needed cards with ONE batched Chaum-Pedersen proof
(`dleq.ShareBatch`) that log_G S_h = log_{c1_k} E_{h,k}, where S_h = s_h G = sum_k idx(h)^k C_k is
public (`share_point`). Any t verified partials combine with Lagrange coefficients at 0 into
x_i c1_k (`lagrange_at_zero`, `combine_partials`), which is what the card's reveal needs from seat i.

Who learns what (details in docs/crypto.md, "Key escrow"): fewer than t holders learn nothing
about x_i (Shamir's perfect secrecy; the commitments add only discrete-logarithm images of the
coefficients, simulatable from X_i); t holders together can compute x_i (so t = all the holders
by default); partials reveal x_i c1 of the cards they are made for, and nothing about other cards.
With two human seats t = 1 and the one holder gets x_i itself: escrow is only meaningful from three.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from protocol.crypto.dleq import (
    DLEQProof,
    ShareBatch,
    make_share_batch,
    prove_dleq,
    verify_dleq,
    verify_share_batch,
)
from protocol.crypto.elgamal import Ciphertext
from protocol.crypto.errors import CryptoError, InvalidProof, InvalidScalar, MalformedData
from protocol.crypto.group import (
    IDENTITY,
    POINT_BYTES,
    SCALAR_BYTES,
    L,
    Point,
    decode_point,
    decode_scalar,
    encode_scalar,
    lincomb,
    lincomb_public,
    mul,
    mul_base,
    random_scalar,
    scalar_muladd,
)
from protocol.crypto.hashing import hash512
from protocol.crypto.private_share import _NONCE, TAG_BYTES, _key
from protocol.crypto.randomness import SYSTEM, RandomSource
from protocol.crypto.schnorr import SchnorrProof, prove_key, verify_key

BOX_LABEL: Final[str] = "skyjo-lan/v1/escrow/box"
COMPLAINT_LABEL: Final[str] = "skyjo-lan/v1/escrow/complaint"
PARTIAL_LABEL: Final[str] = "skyjo-lan/v1/escrow/partial"
SEALED_BYTES: Final[int] = SCALAR_BYTES + TAG_BYTES
"""A box's AEAD output: the 32-byte share and the 16-byte tag."""
MAX_INDEX: Final[int] = 255
"""Holder indices are in [1, MAX_INDEX] (the session uses seat + 1, at most 8)."""


class EscrowShareInvalid(CryptoError):
    """A holder's box does not open, or its share fails Feldman's check: the holder must complain."""


# --- the terms of one escrow ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EscrowTerms:
    """Everything public that one escrow is about, fixed by the session before the deal.

    `dealer` is the dealer's seat and `public_key` its key share X_i (= C_0); holder number p
    (its *position*, the order of the boxes) has key share `holder_keys[p]` and Shamir index
    `holder_indices[p]` (distinct, in [1, MAX_INDEX]; the session uses seat + 1); any
    `threshold` holders can reconstruct, fewer learn nothing. `context` is the caller's proof
    context (session, dealer, transcript): every box, complaint and partial binds it with the
    dealer and the holder. Raises `ValueError` for inconsistent terms (a caller's error).
    """

    dealer: int
    public_key: Point
    holder_keys: tuple[Point, ...]
    holder_indices: tuple[int, ...]
    threshold: int
    context: bytes

    def __post_init__(self) -> None:
        if not isinstance(self.dealer, int) or isinstance(self.dealer, bool) or self.dealer < 0:
            raise ValueError("the dealer is a seat number")
        if not isinstance(self.context, bytes):
            raise ValueError("context must be bytes")
        keys, indices = self.holder_keys, self.holder_indices
        if not isinstance(keys, tuple) or not isinstance(indices, tuple):
            raise ValueError("holder keys and indices are tuples")
        if not keys or len(keys) != len(indices):
            raise ValueError("one key and one index per holder, at least one holder")
        for point in (self.public_key, *keys):
            if not isinstance(point, bytes) or len(point) != POINT_BYTES or point == IDENTITY:
                raise ValueError("keys are non-identity 32-byte points")
        if self.public_key in keys:
            raise ValueError("the dealer cannot hold its own escrow")
        for index in indices:
            if not isinstance(index, int) or isinstance(index, bool) or not 1 <= index <= MAX_INDEX:
                raise ValueError(f"holder indices are integers in [1, {MAX_INDEX}]")
        if len(set(indices)) != len(indices):
            raise ValueError("holder indices must be distinct")
        t = self.threshold
        if not isinstance(t, int) or isinstance(t, bool) or not 1 <= t <= len(keys):
            raise ValueError("the threshold is between 1 and the number of holders")

    @property
    def holders(self) -> int:
        """The number of holders (of boxes)."""
        return len(self.holder_keys)

    def box_context(self, position: int) -> bytes:
        """The context of holder `position`'s box: caller's context, dealer, holder index and key."""
        return hash512(
            BOX_LABEL, self.context, self.dealer, self.holder_indices[position], self.holder_keys[position]
        )

    def commitments(self, deal: EscrowDeal) -> tuple[Point, ...]:
        """C_0..C_{t-1}, with C_0 = X_i (the deal carries C_1..C_{t-1} only)."""
        return (self.public_key, *deal.commitments)

    def share_point(self, deal: EscrowDeal, position: int) -> Point:
        """S_h = s_h G of holder `position` (see `share_point`)."""
        return share_point(self.commitments(deal), self.holder_indices[position])


# --- wire objects -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EscrowBox:
    """One holder's encrypted share: ephemeral E = eG, Schnorr proof of e (RFC 8235, Section 3.2,
    see `schnorr.SchnorrProof`), and `sealed` = ChaCha20-Poly1305 of the 32-byte share (RFC 8439)."""

    ephemeral: Point
    proof: SchnorrProof
    sealed: bytes

    def __post_init__(self) -> None:
        if not isinstance(self.ephemeral, bytes) or len(self.ephemeral) != POINT_BYTES:
            raise MalformedData(f"an escrow box's ephemeral is a {POINT_BYTES}-byte point")
        if not isinstance(self.proof, SchnorrProof):
            raise MalformedData("an escrow box carries a SchnorrProof")
        if not isinstance(self.sealed, bytes) or len(self.sealed) != SEALED_BYTES:
            raise MalformedData(f"an escrow box seals exactly {SEALED_BYTES} bytes")

    def to_wire(self) -> list[object]:
        """[E, [e, s], sealed]."""
        return [bytes(self.ephemeral), list(self.proof.to_wire()), self.sealed]

    @classmethod
    def from_wire(cls, obj: object) -> EscrowBox:
        """Parse a received box: E a valid point, the proof canonical, the sealed bytes 48 long."""
        if not isinstance(obj, list | tuple) or len(obj) != 3:
            raise MalformedData("an escrow box is [E, proof, sealed]")
        ephemeral, proof, sealed = obj
        if not isinstance(sealed, bytes) or len(sealed) != SEALED_BYTES:
            raise MalformedData(f"an escrow box seals exactly {SEALED_BYTES} bytes")
        return cls(decode_point(ephemeral), SchnorrProof.from_wire(proof), sealed)


@dataclass(frozen=True, slots=True)
class EscrowDeal:
    """A dealer's escrow: Feldman commitments C_1..C_{t-1} (C_0 = X_i is not repeated) and one
    `EscrowBox` per holder, in holder order."""

    commitments: tuple[Point, ...]
    boxes: tuple[EscrowBox, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.commitments, tuple) or not isinstance(self.boxes, tuple):
            raise MalformedData("an escrow deal holds tuples of commitments and boxes")
        for c in self.commitments:
            if not isinstance(c, bytes) or len(c) != POINT_BYTES:
                raise MalformedData(f"a commitment is a {POINT_BYTES}-byte point")
        if not self.boxes or not all(isinstance(b, EscrowBox) for b in self.boxes):
            raise MalformedData("an escrow deal holds at least one EscrowBox")

    @property
    def threshold(self) -> int:
        """t: the number of commitments, C_0 included."""
        return len(self.commitments) + 1

    def to_wire(self) -> list[object]:
        """[[C_1..C_{t-1}], [box_1..box_n]] (each box [E, [e, s], sealed])."""
        return [[bytes(c) for c in self.commitments], [b.to_wire() for b in self.boxes]]

    @classmethod
    def from_wire(cls, obj: object, threshold: int, holders: int) -> EscrowDeal:
        """Parse a received deal for `threshold` and `holders`: exactly t - 1 commitments, each a
        valid non-identity point, and one well-formed box per holder."""
        if not isinstance(obj, list | tuple) or len(obj) != 2:
            raise MalformedData("an escrow deal is [commitments, boxes]")
        commitments, boxes = obj
        if not isinstance(commitments, list | tuple) or len(commitments) != threshold - 1:
            raise MalformedData(f"an escrow deal for threshold {threshold} has {threshold - 1} commitments")
        if not isinstance(boxes, list | tuple) or len(boxes) != holders:
            raise MalformedData(f"an escrow deal for {holders} holders has {holders} boxes")
        return cls(tuple(decode_point(c) for c in commitments), tuple(EscrowBox.from_wire(b) for b in boxes))


@dataclass(frozen=True, slots=True)
class EscrowComplaint:
    """A holder's opening of its box's key material: Z = x_h E, with a Chaum-Pedersen proof
    (Chaum, Pedersen, CRYPTO 1992; see `dleq.DLEQProof`) that log_G X_h = log_E Z, bound to the box."""

    key: Point
    proof: DLEQProof

    def __post_init__(self) -> None:
        if not isinstance(self.key, bytes) or len(self.key) != POINT_BYTES:
            raise MalformedData(f"a complaint's key is a {POINT_BYTES}-byte point")
        if not isinstance(self.proof, DLEQProof):
            raise MalformedData("a complaint carries a DLEQProof")

    def to_wire(self) -> list[bytes]:
        """[Z, e, s]."""
        return [bytes(self.key), *self.proof.to_wire()]

    @classmethod
    def from_wire(cls, obj: object) -> EscrowComplaint:
        """Parse a received complaint: Z a valid point, the proof's scalars canonical."""
        if not isinstance(obj, list | tuple) or len(obj) != 3:
            raise MalformedData("an escrow complaint is [Z, e, s]")
        return cls(decode_point(obj[0]), DLEQProof.from_wire(obj[1:]))


# --- dealing ----------------------------------------------------------------------------------


def _evaluate(coefficients: Sequence[int], index: int) -> int:
    """f(index) by Horner's rule, with the secret coefficients only in libsodium's scalar code."""
    acc = coefficients[-1]
    for a in reversed(coefficients[:-1]):
        acc = scalar_muladd(acc, index, a)
    return acc


def _seal(share: int, terms: EscrowTerms, position: int, rng: RandomSource) -> EscrowBox:
    ctx = terms.box_context(position)
    e = random_scalar(rng=rng)
    ephemeral = mul_base(e)
    proof = prove_key(e, ephemeral, ctx, rng=rng)
    key = _key(mul(e, terms.holder_keys[position]), ephemeral, ctx)
    return EscrowBox(ephemeral, proof, ChaCha20Poly1305(key).encrypt(_NONCE, encode_scalar(share), ctx))


def deal_polynomial(
    coefficients: Sequence[int], terms: EscrowTerms, *, rng: RandomSource = SYSTEM
) -> EscrowDeal:
    """The deal of the polynomial with `coefficients` (a_0 = x_i first): commitments to a_1.. and
    the boxes. Honest dealers call `deal_escrow`; this is its second half, public so that tests
    can deal a chosen (weak or wrong) polynomial. Draws per box, in holder order: e, the proof's
    nonce."""
    if len(coefficients) != terms.threshold:
        raise ValueError("a polynomial of degree t - 1 has t coefficients")
    commitments = tuple(mul_base(a) for a in coefficients[1:])
    boxes = tuple(
        _seal(_evaluate(coefficients, index), terms, p, rng) for p, index in enumerate(terms.holder_indices)
    )
    return EscrowDeal(commitments, boxes)


def deal_escrow(secret: int, terms: EscrowTerms, *, rng: RandomSource = SYSTEM) -> EscrowDeal:
    """Share `secret` (x_i, with X_i = terms.public_key) among the holders of `terms`.

    Draws from `rng`, in order: a_1..a_{t-1}, then per box in holder order e and the Schnorr
    proof's nonce. Cost: t - 1 + 2n fixed-base and n variable-base multiplications for n holders.
    """
    coefficients = [secret, *(random_scalar(rng=rng) for _ in range(terms.threshold - 1))]
    return deal_polynomial(coefficients, terms, rng=rng)


def check_deal(deal: EscrowDeal, terms: EscrowTerms) -> None:
    """What every peer checks of a deal it holds no box of: t - 1 commitments (C_0 is X_i by
    construction), one box per holder (points, sizes: `from_wire`), each ephemeral's Schnorr proof
    under its box context. Raises `MalformedData` (counts) or `InvalidProof` (with the position)."""
    if len(deal.commitments) != terms.threshold - 1:
        raise MalformedData(
            f"an escrow deal for threshold {terms.threshold} has {terms.threshold - 1} commitments"
        )
    if len(deal.boxes) != terms.holders:
        raise MalformedData(f"an escrow deal for {terms.holders} holders has {terms.holders} boxes")
    for position, box in enumerate(deal.boxes):
        try:
            verify_key(box.ephemeral, box.proof, terms.box_context(position))
        except InvalidProof:
            raise InvalidProof("escrow box ephemeral proof does not verify", index=position) from None


def share_point(commitments: Sequence[Point], index: int) -> Point:
    """S = sum_k index^k C_k (C_0 = X_i first), which equals s G for the holder's true share s.

    Public: it is the key a holder's partials are checked against. Cost: t variable-base
    multiplications (compute it once per dealer and holder).
    """
    if not commitments:
        raise ValueError("at least C_0")
    return lincomb_public((pow(index, k, L), c) for k, c in enumerate(commitments))


def _open_with(z: Point, deal: EscrowDeal, terms: EscrowTerms, position: int) -> int:
    """The share in box `position` under key material z, Feldman-checked; `EscrowShareInvalid` otherwise."""
    box = deal.boxes[position]
    ctx = terms.box_context(position)
    try:
        plain = ChaCha20Poly1305(_key(z, box.ephemeral, ctx)).decrypt(_NONCE, box.sealed, ctx)
    except InvalidTag:
        raise EscrowShareInvalid("escrow box does not open") from None
    try:
        share = decode_scalar(plain)
    except InvalidScalar:
        raise EscrowShareInvalid("escrow box holds a non-canonical scalar") from None
    if share == 0:  # an honest dealer: probability 1/L; a zero share could not prove its partials
        raise EscrowShareInvalid("escrow share is zero")
    if mul_base(share) != terms.share_point(deal, position):
        raise EscrowShareInvalid("escrow share fails the Feldman check")
    return share


def open_share(deal: EscrowDeal, terms: EscrowTerms, position: int, holder_secret: int) -> int:
    """Holder `position`'s side: its share s_h, decrypted and Feldman-checked against the deal.

    Raises `EscrowShareInvalid` if the box does not open or the share is wrong: the holder then
    publishes `make_escrow_complaint`. Cost: t + 1 variable-base, 1 fixed-base multiplication.
    """
    return _open_with(mul(holder_secret, deal.boxes[position].ephemeral), deal, terms, position)


# --- complaints -------------------------------------------------------------------------------


def _complaint_context(terms: EscrowTerms, position: int) -> bytes:
    return hash512(COMPLAINT_LABEL, terms.box_context(position))


def make_escrow_complaint(
    deal: EscrowDeal, terms: EscrowTerms, position: int, holder_secret: int, *, rng: RandomSource = SYSTEM
) -> EscrowComplaint:
    """Holder `position`'s complaint about its box: Z = x_h E and the proof (nonce from `rng`).
    It makes the box's content public (the game halts on any complaint)."""
    ephemeral = deal.boxes[position].ephemeral
    z = mul(holder_secret, ephemeral)
    proof = prove_dleq(
        holder_secret, terms.holder_keys[position], ephemeral, z, _complaint_context(terms, position), rng=rng
    )
    return EscrowComplaint(z, proof)


def judge_escrow_complaint(
    complaint: EscrowComplaint, deal: EscrowDeal, terms: EscrowTerms, position: int
) -> bool:
    """Decide holder `position`'s complaint, from public data: True if the dealer cheated (the box
    does not open under the proven Z, or its share fails Feldman's check), False if the complaint
    is false (the share checks). Raises `InvalidProof` if the complaint's own proof does not
    verify: the complainer is then at fault, whatever the box holds."""
    verify_dleq(
        terms.holder_keys[position],
        deal.boxes[position].ephemeral,
        complaint.key,
        complaint.proof,
        _complaint_context(terms, position),
    )
    try:
        _open_with(complaint.key, deal, terms, position)
    except EscrowShareInvalid:
        return True
    return False


# --- partial decryptions and their combination --------------------------------------------------


def partial_context(context: bytes, dealer: int, holder_index: int) -> bytes:
    """The context of a holder's partials for one dealer: the caller's context (session, holder,
    transcript at the takeover), the dealer's seat and the holder's index."""
    return hash512(PARTIAL_LABEL, context, dealer, holder_index)


def make_partials(
    share: int,
    point: Point,
    ciphertexts: Sequence[Ciphertext],
    context: bytes,
    dealer: int,
    holder_index: int,
    *,
    rng: RandomSource = SYSTEM,
) -> ShareBatch:
    """E_k = s_h c1_k for each ciphertext, with ONE batched Chaum-Pedersen proof that
    log_G S_h = log_{c1_k} E_k (`dleq.ShareBatch`, RFC 9497 Section 2.2), S_h = `point`
    (`share_point`). The wire form is `ShareBatch.to_wire()`. One draw from `rng` (the nonce)."""
    return make_share_batch(
        share, point, ciphertexts, partial_context(context, dealer, holder_index), rng=rng
    )


def verify_partials(
    point: Point,
    ciphertexts: Sequence[Ciphertext],
    batch: ShareBatch,
    context: bytes,
    dealer: int,
    holder_index: int,
) -> list[Point]:
    """The holder's partials E_k, once the batch proof verifies against S_h = `point`; raises
    `InvalidProof` otherwise. Cost: 2m + 1 variable-base multiplications for m cards."""
    verify_share_batch(point, ciphertexts, batch, partial_context(context, dealer, holder_index))
    return list(batch.shares)


def lagrange_at_zero(indices: Sequence[int]) -> list[int]:
    """lambda_j = prod_{m != j} x_m / (x_m - x_j) mod L: sum_j lambda_j f(x_j) = f(0) for any f of
    degree < len(indices). Public arithmetic on public indices; raises `ValueError` unless the
    indices are distinct and non-zero modulo L."""
    xs = [x % L for x in indices]
    if not xs or 0 in xs or len(set(xs)) != len(xs):
        raise ValueError("Lagrange interpolation needs distinct, non-zero indices")
    out = []
    for j, xj in enumerate(xs):
        num, den = 1, 1
        for m, xm in enumerate(xs):
            if m != j:
                num = num * xm % L
                den = den * (xm - xj) % L
        out.append(num * pow(den, -1, L) % L)
    return out


def combine_partials(indices: Sequence[int], partials_per_holder: Sequence[Sequence[Point]]) -> list[Point]:
    """x_i c1_k for each card k, from t holders' verified partials (holder j's list in the order
    of `indices`): sum_j lambda_j E_{j,k}. With fewer than t holders the result is a wrong point.
    Cost: t variable-base multiplications per card."""
    if len(indices) != len(partials_per_holder):
        raise ValueError("one list of partials per index")
    lambdas = lagrange_at_zero(indices)
    cards = {len(p) for p in partials_per_holder}
    if len(cards) != 1:
        raise ValueError("every holder's partials cover the same cards")
    return [
        lincomb((lam, partials[k]) for lam, partials in zip(lambdas, partials_per_holder, strict=True))
        for k in range(cards.pop())
    ]
