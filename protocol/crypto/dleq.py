"""Decryption shares with Chaum-Pedersen (DLEQ) proofs, single and batched; combining shares.

Why: the deck is encrypted under Y = sum X_i, so a card is read only when every peer publishes its
share D_i = x_i*c1, and M = c2 - sum D_i. A share comes with a proof that it was made with the same
x_i as the peer's public key X_i (log_G X_i = log_c1 D_i); without it a peer could publish a wrong
share and make the card decrypt to garbage, or to a card of its choice.

Public reveal: every peer publishes its share and everyone combines. Private reveal to seat j: the
other peers publish their shares, j computes its own share locally (`decryption_share`) and
combines all of them (`combine_shares`); later j can prove the card to everyone by publishing its
own share with a proof. Nothing else is needed: it is the same combination.
"""

from __future__ import annotations

import hashlib
import operator
import secrets
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Final

from protocol.crypto.elgamal import Ciphertext, Codebook
from protocol.crypto.errors import InvalidProof, MalformedData
from protocol.crypto.group import (
    BASE,
    IDENTITY,
    POINT_BYTES,
    L,
    Point,
    decode_point,
    decode_points,
    decode_scalar,
    encode_scalar,
    kept_forms,
    lincomb_public,
    lincomb_public_merged,
    lincomb_secret,
    msm_available,
    mul,
    mul_base,
    nonzero_terms,
    point_sum,
    random_scalar,
    scalar_mul,
    scalar_muladd,
    sub,
    sum_public,
)
from protocol.crypto.hashing import FIAT_SHAMIR_LABEL, HashItem, challenge, encode, indexed_scalars
from protocol.crypto.randomness import SYSTEM, RandomSource

DLEQ_LABEL: Final[str] = "skyjo-lan/v1/dleq"
BATCH_LABEL: Final[str] = "skyjo-lan/v1/dleq-batch"
BATCH_COEFFICIENTS_LABEL: Final[str] = "skyjo-lan/v1/dleq-batch/coefficients"


@dataclass(frozen=True, slots=True)
class DLEQProof:
    """Chaum-Pedersen proof that log_G X = log_B D, in (challenge, response) form.

    Chaum and Pedersen, "Wallet databases with observers", CRYPTO 1992 (the protocol proving
    log_g h = log_m z); presented as "the Chaum-Pedersen protocol for DH-triples" in Boneh and
    Shoup, "A Graduate Course in Applied Cryptography", Section 19.5.2; made non-interactive with
    Fiat-Shamir (`hashing.challenge`). Prover: w random, A = wG, C = wB,
    e = H(label, [G, X, B, D], [A, C], context), s = w + e*x. Verifier: A' = sG - eX,
    C' = sB - eD, accept iff the hash of (A', C') is e. Cost: prove 1 fixed + 1 variable-base
    multiplication, verify 1 fixed + 3 variable-base.
    """

    challenge: int
    response: int

    def __post_init__(self) -> None:
        for name in ("challenge", "response"):
            value = getattr(self, name)
            if not isinstance(value, int) or not 0 <= value < L:
                raise MalformedData(f"{name} must be an integer in [0, L)")

    def to_wire(self) -> tuple[bytes, bytes]:
        """(e, s) as two 32-byte little-endian scalars."""
        return (encode_scalar(self.challenge), encode_scalar(self.response))

    @classmethod
    def from_wire(cls, obj: object) -> DLEQProof:
        """Parse a received proof; both scalars must be canonical (< L)."""
        if not isinstance(obj, list | tuple) or len(obj) != 2:
            raise MalformedData("a DLEQ proof is a pair (challenge, response)")
        return cls(decode_scalar(obj[0]), decode_scalar(obj[1]))


def prove_dleq(
    secret: int, public_key: Point, base: Point, image: Point, context: bytes, *, rng: RandomSource = SYSTEM
) -> DLEQProof:
    """Prove log_G(public_key) = log_base(image) = secret, bound to `context` (nonce from `rng`)."""
    w = random_scalar(rng=rng)
    e = challenge(DLEQ_LABEL, [BASE, public_key, base, image], [mul_base(w), mul(w, base)], context)
    return DLEQProof(e, scalar_muladd(e, secret, w))  # secret operands: libsodium's scalar code


def verify_dleq(public_key: Point, base: Point, image: Point, proof: DLEQProof, context: bytes) -> None:
    """Raise `InvalidProof` unless log_G(public_key) = log_base(image) is proven under `context`."""
    if IDENTITY in (public_key, base, image):  # decode_point refuses these; cheap safeguard
        raise InvalidProof("DLEQ statement contains the identity")
    e, s = proof.challenge, proof.response
    a = lincomb_public([(s, BASE), (-e, public_key)])
    c = lincomb_public([(s, base), (-e, image)])
    if challenge(DLEQ_LABEL, [BASE, public_key, base, image], [a, c], context) != e:
        raise InvalidProof("DLEQ proof does not verify")


# --- decryption shares -------------------------------------------------------------------------


def decryption_share(secret: int, ciphertext: Ciphertext) -> Point:
    """D_i = x_i * c1 (one variable-base multiplication); use it for one's own share."""
    return mul(secret, ciphertext.c1)


@dataclass(frozen=True, slots=True)
class DecryptionShare:
    """A share D = x*c1 of one card with its DLEQ proof."""

    share: Point
    proof: DLEQProof

    def __post_init__(self) -> None:
        if not isinstance(self.share, bytes) or len(self.share) != POINT_BYTES:
            raise MalformedData(f"a share is a {POINT_BYTES}-byte point")
        if not isinstance(self.proof, DLEQProof):
            raise MalformedData("a share carries a DLEQProof")

    def to_wire(self) -> tuple[bytes, bytes, bytes]:
        """(D, e, s)."""
        return (bytes(self.share), *self.proof.to_wire())

    @classmethod
    def from_wire(cls, obj: object) -> DecryptionShare:
        """Parse and validate a received share (point validity, scalar ranges)."""
        if not isinstance(obj, list | tuple) or len(obj) != 3:
            raise MalformedData("a decryption share is (share, challenge, response)")
        return cls(decode_point(obj[0]), DLEQProof.from_wire(obj[1:]))


def make_share(
    secret: int, public_key: Point, ciphertext: Ciphertext, context: bytes, *, rng: RandomSource = SYSTEM
) -> DecryptionShare:
    """Our share of `ciphertext` with its proof (2 variable-base + 1 fixed-base multiplications)."""
    d = decryption_share(secret, ciphertext)
    return DecryptionShare(d, prove_dleq(secret, public_key, ciphertext.c1, d, context, rng=rng))


def verify_share(public_key: Point, ciphertext: Ciphertext, share: DecryptionShare, context: bytes) -> None:
    """Raise `InvalidProof` unless `share` is the holder of `public_key`'s share of `ciphertext`."""
    verify_dleq(public_key, ciphertext.c1, share.share, share.proof, context)


# --- batched shares ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BatchProof:
    """The Chaum-Pedersen proof of a `ShareBatch`, in commitment form (A, B, s).

    The prover sends its commitments A = wG and B = wC instead of the challenge; the verifier
    recomputes e = H(label, statement, [A, B], context) from them and checks the two equations
    sG = A + eX and sC = B + eD (`ShareBatch`). The same proof as the challenge form (e, s) of
    protocol version 4, with one more point on the wire (96 bytes instead of 64), in the form whose
    equations can be checked together with other proofs' (`verify_share_batches`).
    """

    commit_a: Point
    commit_b: Point
    response: int

    def __post_init__(self) -> None:
        a, b, s = self.commit_a, self.commit_b, self.response
        if (  # the common case, checked at once; any other gets the checks below, and their error
            isinstance(a, bytes)
            and isinstance(b, bytes)
            and isinstance(s, int)
            and len(a) == len(b) == POINT_BYTES
            and 0 <= s < L
        ):
            return
        for name in ("commit_a", "commit_b"):
            value = getattr(self, name)
            if not isinstance(value, bytes) or len(value) != POINT_BYTES:
                raise MalformedData(f"{name} must be a {POINT_BYTES}-byte point")
        if not isinstance(self.response, int) or not 0 <= self.response < L:
            raise MalformedData("response must be an integer in [0, L)")

    def to_wire(self) -> tuple[bytes, bytes, bytes]:
        """(A, B, s): two points and a 32-byte little-endian scalar."""
        return (bytes(self.commit_a), bytes(self.commit_b), encode_scalar(self.response))

    @classmethod
    def from_wire(cls, obj: object) -> BatchProof:
        """Parse a received proof: A and B valid points (not the identity), s canonical (< L)."""
        if not isinstance(obj, list | tuple) or len(obj) != 3:
            raise MalformedData("a share batch proof is (A, B, response)")
        return cls(decode_point(obj[0]), decode_point(obj[1]), decode_scalar(obj[2]))


@dataclass(frozen=True, slots=True)
class ShareBatch:
    """Shares of several ciphertexts by one key, with ONE proof for all of them.

    Batching by random linear combination (the "composite" DLEQ proof of RFC 9497, "Oblivious
    Pseudorandom Functions (OPRFs) Using Prime-Order Groups", Section 2.2, used there to prove many
    evaluations under one key, as in Davidson et al., "Privacy Pass: bypassing internet challenges
    anonymously", PoPETs 2018). Coefficients e_j = H(G, X, all c1_j, all D_j, context, j) are derived from
    the whole statement, then one Chaum-Pedersen proof is made for (G, X) and
    (C, D) = (sum e_j c1_j, sum e_j D_j), sent in commitment form (`BatchProof`: A = wG,
    B = wC, s = w + e x with e = H(statement, [A, B], context)).

    Soundness: if some D_j != x*c1_j, write D_j = x*c1_j + E_j with E_j != 0. Then
    D - x*C = sum e_j E_j, which is zero for at most one value of the coefficient of a nonzero E_j
    once the others are fixed; since the e_j are random-oracle outputs computed after every D_j is
    fixed, the batch proof can verify only with probability about q/L for q hash queries (the
    random-linear-combination argument of Bellare, Garay, Rabin, "Fast batch verification for
    modular exponentiation and digital signatures", EUROCRYPT 1998).

    Cost for m shares: prove 2m variable-base multiplications (like m single proofs), verify
    2m + 1 instead of 3m (fewer with the compiled multi-scalar multiplication, and less again when
    several batches are checked together: `verify_share_batches`); the message carries 96 bytes of
    proof instead of 96m.
    """

    shares: tuple[Point, ...]
    proof: BatchProof

    def __post_init__(self) -> None:
        if not isinstance(self.shares, tuple) or not self.shares:
            raise MalformedData("a share batch holds a non-empty tuple of shares")
        for d in self.shares:
            if not isinstance(d, bytes) or len(d) != POINT_BYTES:
                raise MalformedData(f"a share is a {POINT_BYTES}-byte point")
        if not isinstance(self.proof, BatchProof):
            raise MalformedData("a share batch carries a BatchProof")

    def to_wire(self) -> tuple[list[bytes], bytes, bytes, bytes]:
        """([D_1..D_m], A, B, s)."""
        return ([bytes(d) for d in self.shares], *self.proof.to_wire())

    @classmethod
    def from_wire(cls, obj: object, expected_len: int | None = None) -> ShareBatch:
        """Parse and validate a received batch (each share and commitment a valid point, s < L)."""
        if not isinstance(obj, list | tuple) or len(obj) != 4:
            raise MalformedData("a share batch is (shares, A, B, response)")
        raw = obj[0]
        if not isinstance(raw, list | tuple) or not raw:
            raise MalformedData("a share batch holds a non-empty list of shares")
        if expected_len is not None and len(raw) != expected_len:
            raise MalformedData(f"share batch has {len(raw)} shares, expected {expected_len}")
        # the shares, A and B validated by one call (`decode_points`: the same errors, in the same
        # order, as decoding them one by one), which keeps their decoded forms for the check's sum
        *shares, commit_a, commit_b = decode_points([*raw, obj[1], obj[2]])
        response = decode_scalar(obj[3])
        if cls is not ShareBatch:
            return cls(tuple(shares), BatchProof(commit_a, commit_b, response))
        # every field is validated above (what `__post_init__` would check again: 32-byte points,
        # s in [0, L), a non-empty tuple): the two objects are made without it (a verify parses
        # 1,400 batches)
        proof = _new_object(BatchProof)
        _SET_COMMIT_A(proof, commit_a)
        _SET_COMMIT_B(proof, commit_b)
        _SET_RESPONSE(proof, response)
        batch = _new_object(ShareBatch)
        _SET_SHARES(batch, tuple(shares))
        _SET_PROOF(batch, proof)
        return batch


_new_object: Final = object.__new__
# the slots' own setters (the frozen dataclasses' `__setattr__` refuses every assignment)
_SET_COMMIT_A: Final = BatchProof.__dict__["commit_a"].__set__
_SET_COMMIT_B: Final = BatchProof.__dict__["commit_b"].__set__
_SET_RESPONSE: Final = BatchProof.__dict__["response"].__set__
_SET_SHARES: Final = ShareBatch.__dict__["shares"].__set__
_SET_PROOF: Final = ShareBatch.__dict__["proof"].__set__


def _batch_statement(
    public_key: Point, ciphertexts: Sequence[Ciphertext], shares: Sequence[Point]
) -> list[HashItem]:
    return [BASE, public_key, [c.c1 for c in ciphertexts], list(shares)]


def _batch_coefficients(statement: list[HashItem], context: bytes, m: int) -> list[int]:
    return _coefficients(encode(statement), context, m)


# The statement is hashed twice (coefficients, challenge): it is encoded once, and the hash inputs
# are put together from its encoding (`encode` of several items is their encodings one after the
# other, so the bytes hashed are the same).
_COEFFICIENTS_PREFIX: Final[bytes] = encode(BATCH_COEFFICIENTS_LABEL)
_CHALLENGE_PREFIX: Final[bytes] = encode(FIAT_SHAMIR_LABEL, BATCH_LABEL)


def _coefficients(encoded_statement: bytes, context: bytes, m: int) -> list[int]:
    """e_j = HS(H512(label, statement, context), j), from the statement's encoding."""
    seed = hashlib.sha512(_COEFFICIENTS_PREFIX + encoded_statement + _encode_bytes(context)).digest()
    if m == 1:  # a flip: hash_to_scalar(seed, 0), whose encoding of 0 is b"I" and a zero length
        return [int.from_bytes(hashlib.sha512(_SEED_PREFIX + seed + _INDEX_0).digest(), "little") % L]
    return indexed_scalars(seed, m)  # [hash_to_scalar(seed, j) for j in range(m)]


def _challenge(encoded_statement: bytes, commit_a: Point, commit_b: Point, context: bytes) -> int:
    """challenge(BATCH_LABEL, statement, [A, B], context), from the statement's encoding."""
    if type(commit_a) is bytes and type(commit_b) is bytes and len(commit_a) == len(commit_b) == 32:
        tail = b"".join((_COMMITMENTS_HEAD, commit_a, _PREFIX_32, commit_b, _encode_bytes(context)))
    else:
        tail = encode([commit_a, commit_b], context)
    digest = hashlib.sha512(_CHALLENGE_PREFIX + encoded_statement + tail)
    return int.from_bytes(digest.digest(), "little") % L


# `encode`'s bytes for the items of a batch's hash inputs, put together directly (the same bytes:
# checked against `encode` in tests/protocol/test_msm_flip.py): a tag, an 8-byte big-endian
# length, the payload; a list's length is its item count.
_PREFIX_32: Final[bytes] = b"B" + (32).to_bytes(8, "big")
_SEED_PREFIX: Final[bytes] = b"B" + (64).to_bytes(8, "big")
_INDEX_0: Final[bytes] = b"I" + bytes(8)
_STATEMENT_HEAD: Final[bytes] = b"L" + (4).to_bytes(8, "big") + _PREFIX_32 + BASE + _PREFIX_32
_COMMITMENTS_HEAD: Final[bytes] = b"L" + (2).to_bytes(8, "big") + _PREFIX_32
_ONE_HEAD: Final[bytes] = b"L" + (1).to_bytes(8, "big") + _PREFIX_32
"""A list of one 32-byte point: its count, then the point's prefix (a one-card statement)."""


def _encode_bytes(data: bytes) -> bytes:
    """`encode(data)` of one bytes item."""
    return b"B" + len(data).to_bytes(8, "big") + data


def _encode_statement(public_key: Point, ciphertexts: Sequence[Ciphertext], shares: Sequence[Point]) -> bytes:
    """`encode(_batch_statement(public_key, ciphertexts, shares))`, put together directly when every
    point is 32 bytes (always, for points that were validated)."""
    c1s = [c.c1 for c in ciphertexts]
    m = len(c1s)
    points = [public_key, *c1s, *shares]
    if m and len(shares) == m and all(type(p) is bytes and len(p) == 32 for p in points):
        count = b"L" + m.to_bytes(8, "big") + _PREFIX_32
        return b"".join(
            (_STATEMENT_HEAD, public_key, count, _PREFIX_32.join(c1s), count, _PREFIX_32.join(shares))
        )
    return encode(_batch_statement(public_key, ciphertexts, shares))


def make_share_batch(
    secret: int,
    public_key: Point,
    ciphertexts: Sequence[Ciphertext],
    context: bytes,
    *,
    rng: RandomSource = SYSTEM,
) -> ShareBatch:
    """Our shares of `ciphertexts` with one batched proof (see `ShareBatch`)."""
    if not ciphertexts:
        raise ValueError("nothing to share")
    shares = [decryption_share(secret, c) for c in ciphertexts]
    encoded = _encode_statement(public_key, ciphertexts, shares)
    coefs = _coefficients(encoded, context, len(ciphertexts))
    w = random_scalar(rng=rng)
    a = mul_base(w)
    # B = sum (w e_j) c1_j, the secret w in libsodium's constant-time scalar code; one card (a
    # flip) is one libsodium multiplication, several the extension's constant-time Straus sum
    weights = [scalar_mul(w, e_j) for e_j in coefs]
    if len(ciphertexts) == 1:
        b = mul(weights[0], ciphertexts[0].c1)
    else:
        b = lincomb_secret(list(zip(weights, (ct.c1 for ct in ciphertexts), strict=True)))
    e = _challenge(encoded, a, b, context)
    return ShareBatch(tuple(shares), BatchProof(a, b, scalar_muladd(e, secret, w)))


@dataclass(frozen=True, slots=True)
class ShareCheck:
    """One share batch to verify: the prover's key, the ciphertexts, the batch, its context."""

    public_key: Point
    ciphertexts: Sequence[Ciphertext]
    batch: ShareBatch
    context: bytes


def _equations(check: ShareCheck) -> tuple[list[tuple[int, Point]], list[tuple[int, Point]]]:
    """The batch's two verification equations as sums that must be the identity:
    sG - eX - A = 0 and sum_j (s e_j) c1_j - sum_j (e e_j) D_j - B = 0."""
    batch = check.batch
    if len(batch.shares) != len(check.ciphertexts):
        raise InvalidProof("share batch does not match the number of ciphertexts")
    encoded = _encode_statement(check.public_key, check.ciphertexts, batch.shares)
    coefs = _coefficients(encoded, check.context, len(check.ciphertexts))
    proof = batch.proof
    e = _challenge(encoded, proof.commit_a, proof.commit_b, check.context)
    s = proof.response
    first = [(s, BASE), (L - e, check.public_key), (L - 1, proof.commit_a)]
    second = [(s * e_j % L, ct.c1) for e_j, ct in zip(coefs, check.ciphertexts, strict=True)]
    second += [(L - e * e_j % L, d) for e_j, d in zip(coefs, batch.shares, strict=True)]
    second.append((L - 1, proof.commit_b))
    return first, second


def _add_weighted(coefs: dict[Point, int], check: ShareCheck, r: int, t: int) -> None:
    """Add r times the first equation of `check` and t times its second (`_equations`, the same
    sums) to `coefs` (point -> scalar, not reduced)."""
    batch = check.batch
    ciphertexts = check.ciphertexts
    if len(batch.shares) != len(ciphertexts):
        raise InvalidProof("share batch does not match the number of ciphertexts")
    encoded = _encode_statement(check.public_key, ciphertexts, batch.shares)
    e_js = _coefficients(encoded, check.context, len(ciphertexts))
    proof = batch.proof
    e = _challenge(encoded, proof.commit_a, proof.commit_b, check.context)
    s = proof.response
    get = coefs.get
    coefs[BASE] = get(BASE, 0) + r * s
    key = check.public_key
    coefs[key] = get(key, 0) - r * e
    coefs[proof.commit_a] = get(proof.commit_a, 0) - r
    coefs[proof.commit_b] = get(proof.commit_b, 0) - t
    ts, te = t * s, t * e
    for e_j, ct, d in zip(e_js, ciphertexts, batch.shares, strict=True):
        c1 = ct.c1
        coefs[c1] = get(c1, 0) + ts * e_j
        coefs[d] = get(d, 0) - te * e_j


def share_batch_challenge(check: ShareCheck) -> int:
    """The challenge e of a batch in commitment form, as its verifier recomputes it from
    (statement, [A, B], context) (for test vectors and worked examples)."""
    batch = check.batch
    statement = _batch_statement(check.public_key, check.ciphertexts, batch.shares)
    return challenge(BATCH_LABEL, statement, [batch.proof.commit_a, batch.proof.commit_b], check.context)


def _holds_alone(check: ShareCheck) -> bool:
    """The batch's equations, checked on their own (the cost of protocol version 4's check)."""
    first, second = _equations(check)
    a = lincomb_public(first[:2])
    b = lincomb_public(second[:-1])
    return a == check.batch.proof.commit_a and b == check.batch.proof.commit_b


def _weight() -> int:
    """A random 128-bit weight, never zero (Bellare-Garay-Rabin's small exponents)."""
    return secrets.randbelow(WEIGHT_BOUND - 1) + 1


def _weights(count: int) -> Iterator[int]:
    """`count` independent `_weight()`s: uniform in [1, WEIGHT_BOUND), drawn after every proof of
    the batch is fixed. From the `secrets` module itself, all of them are cut from one
    `token_bytes` call (16 bytes each, a zero drawn again: uniform in [1, 2^128) as
    `randbelow(2^128 - 1) + 1` is); from a test's stand-in, `_weight()` as each is taken (the
    draws a seeded run has always made, in the same order)."""
    if secrets is not _SYSTEM_SECRETS:
        return (_weight() for _ in range(count))
    raw = _SYSTEM_SECRETS.token_bytes(_WEIGHT_BYTES * count)
    out = [int.from_bytes(raw[i : i + _WEIGHT_BYTES], "little") for i in range(0, len(raw), _WEIGHT_BYTES)]
    while 0 in out:  # probability count * 2^-128
        out[out.index(0)] = int.from_bytes(_SYSTEM_SECRETS.token_bytes(_WEIGHT_BYTES), "little")
    return iter(out)


_SYSTEM_SECRETS: Final[ModuleType] = secrets
"""The `secrets` module itself (tests replace the name `secrets` here with seeded stand-ins)."""


WEIGHT_BOUND: Final[int] = 1 << 128
"""Random weights of a batch check are drawn in [1, 2^128): a batch holding a false equation
passes with probability at most 2^-128."""
_WEIGHT_BYTES: Final[int] = 16
"""Bytes of one weight (WEIGHT_BOUND is 2^(8 * _WEIGHT_BYTES))."""


def share_check_forms(checks: Iterable[ShareCheck]) -> dict[Point, bytes]:
    """The decoded forms `decode_points` keeps now of the checks' points (each share, A, B, and the
    ciphertexts' c1), for a batch checked later (`verify_share_batches`' `forms`): its sum then
    decodes none of them again, however many points were received meanwhile."""
    points: list[Point] = []
    for check in checks:
        batch = check.batch
        points += batch.shares
        points += (batch.proof.commit_a, batch.proof.commit_b)
        points += map(_FIRST, check.ciphertexts)
    return kept_forms(points)


_FIRST: Final = operator.attrgetter("c1")


def verify_share_batches(checks: Sequence[ShareCheck], forms: Mapping[Point, bytes] | None = None) -> None:
    """Raise `InvalidProof` (its `index` the first bad check, in order) unless every batch verifies.

    Small-exponent batch verification (Bellare, Garay, Rabin, "Fast batch verification for
    modular exponentiation and digital signatures", EUROCRYPT 1998, Section 3, the "small
    exponents test"): with the proofs in commitment form, each check i gives two equations
    P_i1 = 0 and P_i2 = 0 (`_equations`), sums of public scalars times points. They are checked as
    ONE sum, sum_i (r_i P_i1 + t_i P_i2) = 0, with r_i, t_i drawn by the verifier (`secrets`,
    128 bits, after every proof is fixed): in a group of prime order L, if some P_i != 0 the sum
    is zero for at most one value of its weight once the others are fixed, so a false batch passes
    with probability at most 2^-128. Points shared by several proofs (the key X of a seat, the c1
    of a card every seat reveals, G) count once in the sum. Each proof stays bound to its own
    context: its challenge e_i is recomputed from its own statement, commitments and context.

    The sum is one compiled multi-scalar multiplication (`group.lincomb_public_merged`: an
    interleaved wNAF for a few terms, where a weight -r costs 128 bits and G and the keys have
    kept tables; Straus's or Pippenger's method for many; variable time,
    which is safe here since every scalar is public: challenges and responses from the wire, the
    hashed coefficients and the verifier's weights, which protect only the verifier against a
    cheating prover and are never reused). When it is not the identity, or without the compiled
    extension (where a sum costs one multiplication per point, so nothing is gained), each check
    is verified alone, in order, and the first that fails is named: so a fault found in a batch
    names the same proof as checking the proofs one by one. `forms`: decoded forms of the checks'
    points kept by the caller (`share_check_forms`; the sum decodes the others).
    """
    if msm_available() and _batch_holds(checks, forms):
        return
    for index, check in enumerate(checks):
        try:
            holds = _holds_alone(check)
        except InvalidProof as exc:
            raise InvalidProof(exc.reason, index) from None
        if not holds:
            raise InvalidProof("batched DLEQ proof does not verify", index)


def _weighted_sum(checks: Sequence[ShareCheck]) -> dict[Point, int] | None:
    """The random linear combination of every check's two equations (`verify_share_batches`), as
    point -> scalar (not reduced); None when a check cannot be put in it (found again, and named,
    by a check of each proof alone).

    The same dict as `_add_weighted` of each check in turn (the same keys in the same order, the
    same integers: tests/protocol/test_share_batches.py), with the hash inputs of a check whose
    points are all 32-byte strings put together here, without a call each (a verify adds up
    about 1,400 checks, most of one card: a flip); any other check goes to `_add_weighted`."""
    coefs: dict[Point, int] = {}
    get = coefs.get
    weights = _weights(2 * len(checks))
    sha512 = hashlib.sha512
    base = 0  # G's coefficient, added up here and put in once at the end (its place: the first)
    if checks:
        coefs[BASE] = 0
    try:
        for check in checks:
            r = next(weights)
            t = next(weights)
            batch = check.batch
            proof = batch.proof
            shares = batch.shares
            ciphertexts = check.ciphertexts
            key = check.public_key
            a = proof.commit_a
            b = proof.commit_b
            context = check.context
            if len(shares) != 1 or len(ciphertexts) != 1 or type(context) is not bytes:
                _add_weighted(coefs, check, r, t)
                continue
            c1 = ciphertexts[0].c1
            d = shares[0]
            if not (
                type(key) is bytes
                and type(c1) is bytes
                and type(d) is bytes
                and type(a) is bytes
                and type(b) is bytes
                and len(key) == len(c1) == len(d) == len(a) == len(b) == POINT_BYTES
            ):
                _add_weighted(coefs, check, r, t)
                continue
            # `_encode_statement`, `_coefficients` and `_challenge` of one card, the same bytes
            encoded = b"".join((_STATEMENT_HEAD, key, _ONE_HEAD, c1, _ONE_HEAD, d))
            tail = b"B" + len(context).to_bytes(8, "big") + context
            seed = sha512(_COEFFICIENTS_PREFIX + encoded + tail).digest()
            e_1 = int.from_bytes(sha512(_SEED_PREFIX + seed + _INDEX_0).digest(), "little") % L
            hashed = sha512(b"".join((_CHALLENGE_PREFIX, encoded, _COMMITMENTS_HEAD, a, _PREFIX_32, b, tail)))
            e = int.from_bytes(hashed.digest(), "little") % L
            s = proof.response
            base += r * s
            coefs[key] = get(key, 0) - r * e
            coefs[a] = get(a, 0) - r
            coefs[b] = get(b, 0) - t
            te_1 = t * e_1  # (t s e_1 and t e e_1: the same integers, one product fewer)
            coefs[c1] = get(c1, 0) + te_1 * s
            coefs[d] = get(d, 0) - te_1 * e
    except InvalidProof:
        return None
    if coefs:
        coefs[BASE] += base
    return coefs


def share_batch_terms(checks: Sequence[ShareCheck]) -> tuple[list[int], list[Point]] | None:
    """The terms of `verify_share_batches`' one sum (scalars reduced, none zero), the weights drawn
    now: the sum is the identity iff every check holds (up to 2^-128), so a caller may add the
    terms to other batches' and check all in one multi-scalar multiplication (`verify` does).
    None when a check cannot be put in the sum. Nothing here names a bad proof: a caller whose
    sum fails must check the proofs again (`verify_share_batches` names the first bad one)."""
    coefs = _weighted_sum(checks)
    return None if coefs is None else nonzero_terms(coefs)


def _batch_holds(checks: Sequence[ShareCheck], forms: Mapping[Point, bytes] | None = None) -> bool:
    """Whether the random linear combination of every check's two equations is the identity (see
    `verify_share_batches`), as one sum of the compiled extension (`group.lincomb_public_merged`);
    False when it is not, or when a check cannot be put in the sum (found again, and named, by the
    caller's check of each proof alone)."""
    coefs = _weighted_sum(checks)
    if coefs is None:
        return False
    # G and the seats' keys are in every flip's sums: their tables are kept
    lasting = {BASE, *(check.public_key for check in checks)}
    return lincomb_public_merged(coefs, lasting, forms) == IDENTITY


def verify_share_batch(
    public_key: Point, ciphertexts: Sequence[Ciphertext], batch: ShareBatch, context: bytes
) -> None:
    """Raise `InvalidProof` unless every share of `batch` is x*c1 for the x of `public_key`.

    With the compiled extension the two equations are first checked as one random linear
    combination (`_batch_holds`: one sum instead of two, the same 2^-128 bound as
    `verify_share_batches`); the check alone, and its error, when that sum is not the identity."""
    check = ShareCheck(public_key, ciphertexts, batch, context)
    if msm_available() and _batch_holds([check]):
        return
    if not _holds_alone(check):
        raise InvalidProof("batched DLEQ proof does not verify")


# --- combining ---------------------------------------------------------------------------------


def combine_shares(ciphertext: Ciphertext, shares: Iterable[Point], *, public: bool = False) -> Point:
    """M = c2 - sum D_i. For a private reveal, include one's own `decryption_share`.

    `public`: every share is public (a public reveal, where M is read by everyone): then the sum
    is the extension's one call (`group.sum_public`, variable time), else libsodium's additions,
    which are constant time (a private card's M and its holder's own share are secret)."""
    if public:
        return sum_public(ciphertext.c2, list(shares))
    return sub(ciphertext.c2, point_sum(shares))


def reveal_card(ciphertext: Ciphertext, shares: Iterable[Point], codebook: Codebook) -> int:
    """The card index behind `ciphertext`, given every peer's share (`UnknownCard` otherwise)."""
    return codebook.index_of(combine_shares(ciphertext, shares))
