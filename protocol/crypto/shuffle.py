"""Verifiable re-encryption shuffle: the Terelius-Wikstrom proof, as written by Haenni et al.

Reference: R. Haenni, P. Locher, R. Koenig, E. Dubuis, "Pseudo-code algorithms for verifiable
re-encryption mix-nets", Financial Cryptography 2017 workshops (Voting'17), LNCS 10323, Section 4:
GenShuffle (Alg. 4.1), GenPermutation (Alg. 4.2), GenShuffleProof (Alg. 4.3),
GenPermutationCommitment (Alg. 4.4), GenCommitmentChain (Alg. 4.5), CheckShuffleProof (Alg. 4.6)
(the algorithm names are the paper's; the numbers could not be checked against the PDF here).
The proof system is B. Terelius, D. Wikstrom, "Proofs of restricted shuffles", AFRICACRYPT 2010,
in the optimised form of D. Wikstrom, "A commitment-consistent proof of a shuffle", ACISP 2009.
The same algorithms are in the CHVote protocol specification (Haenni et al., IACR ePrint 2017/325;
Algorithms 5.41-5.47 in the version implemented by chvote-protocol-poc, whose
MixingAuthorityAlgorithms.java was used to check the equations below).

Translation to this group (additive notation, ours <- paper's multiplicative notation):
  g^x -> x*G,  pk -> Y,  a*b -> a + b,  a^-1 -> -a,  prod -> sum.
  The paper's ElGamal pair e = (a, b) = (m*pk^r, g^r) is our Ciphertext (c1, c2) = (rG, M + rY),
  i.e. a <-> c2 and b <-> c1, so t4 = (t4,1, t4,2) pairs with (c2, c1).
  The permutation psi = (j_1..j_N) says output i re-encrypts input j_i: e'_i = e_{j_i} + Enc(0, r'_i).
  Generators: h (the chain seed c^_0) and h_1..h_N come from `hash_to_point` on fixed labels
  (GetGenerators), so nobody knows a discrete logarithm between them or to G.
  GetChallenges(N, (e, e', c, pk)) -> u_j = H(H(label, statement, context), j);
  GetNIZKPChallenge(y, t) -> `hashing.challenge(label, statement, t, context)`.

Re-encryption randomness is kept output-indexed (r'_i goes with e'_i, as GenShuffle returns it),
so the aggregate is r' = sum_i r'_i * u'_i (with u'_i = u_{j_i}); this equals the paper's
sum over inputs of r'_j u_j written with input-indexed randomness.

Proof form (protocol version 4, issue 29): the paper's commitment form. The proof is
pi = (t, s, c, c^) with t = (t1, t2, t3, t4, t^_1..t^_N), every commitment sent, plus the
challenge e (redundant: the verifier recomputes it from the statement and t, and refuses a proof
whose e differs, before any multiplication). Sending the N chain commitments t^_i (version 3
recomputed them from t^_i = s^_i G + s'_i c^_{i-1} - e c^_i, 2N multiplications per proof) makes
the proof N points longer but lets every equation of CheckShuffleProof, the N chain equations
included, join one random linear combination: `ShuffleChainVerifier` checks all the shuffles of a
deck as one multi-scalar multiplication, where the ciphertexts output by one shuffle and input
to the next, and the generators h_i, occur once.

Costs (variable-base multiplications, N cards): GenShuffle N, GenPermutationCommitment 0,
GenCommitmentChain N, GenShuffleProof 4N more (t3 N, t4 2N - only N when every input c1 is G, as
in the public deck -, t^ N); of these 6N, `prepare_shuffle` does the 2N that do not depend on the
input deck (the re-encryption's r'_i Y and t3) before the seat's turn. CheckShuffleProof 8N + 4;
in `ShuffleChainVerifier`, no multiplication: one multi-scalar multiplication of about 7N terms
per shuffle plus about 3N once (on the pure-Python path: 5N + 6 multiplications per shuffle and
3N once). With the compiled extension the prover's multiplications (secret scalars) are its
constant-time ones (`group.mul_fixed_secret` over tables of G, h and Y; `group.lincomb_secret`
for t3 and t4), and the chain is unrolled so that every c^_i and t^_i is a sum over G and h
(`_prove_with`): the same points, for about half the prover's time. See docs/crypto.md.
"""

from __future__ import annotations

import hashlib
import itertools
import operator
import secrets
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Final

from protocol.crypto.elgamal import Ciphertext, reencrypt
from protocol.crypto.errors import CryptoError, InvalidProof, MalformedData
from protocol.crypto.group import (
    BASE,
    IDENTITY,
    LITTLE,
    POINT_BYTES,
    SCALAR_BYTES,
    L,
    Point,
    add,
    add_secret_forms,
    decode_point,
    decode_points,
    decode_scalar,
    encode_scalar,
    keep_decoded,
    lincomb,
    lincomb_public,
    lincomb_public_terms,
    lincomb_secret,
    msm_available,
    mul_fixed_secret,
    mul_fixed_secret_forms,
    point_sum,
    random_scalar,
    random_scalars,
    scalar_chain,
    scalar_dot,
    scalar_muladd,
    scalar_sub,
    scalars_muladd,
    sub,
    system_or,
)
from protocol.crypto.hashing import (
    Encoded,
    HashItem,
    challenge,
    encoded,
    hash512,
    hash_to_point,
    indexed_scalars,
)
from protocol.crypto.randomness import SYSTEM, RandomSource

GENERATORS_LABEL: Final[str] = "skyjo-lan/v1/shuffle/generators"
CHALLENGES_LABEL: Final[str] = "skyjo-lan/v1/shuffle/challenges"
SHUFFLE_LABEL: Final[str] = "skyjo-lan/v1/shuffle/proof"
WEIGHTS_LABEL: Final[str] = "skyjo-lan/v1/shuffle/batch-weights"
"""The verifier's own weights of the chain equations (never sent: not part of the protocol)."""
BATCH_TERMS: Final[int] = 2500
"""`ShuffleChainVerifier`'s default: sum the waiting terms once this many wait (about three
150-card proofs), so that the last sum, which the end of a deal waits for, stays small."""

# --- generators (GetGenerators), cached once per process ---------------------------------------

_generators: list[Point] = []
_generator_sums: dict[int, Point] = {}
_chain_seed: list[Point] = []
# The client runs each seat's session in its own worker thread (a host with bot seats runs
# several in one process), and every seat prepares its shuffle when the job begins: two threads
# extending the cache at once would append the same h_i twice and shift the rest.
_cache_lock = threading.Lock()


def chain_generator() -> Point:
    """h, the independent generator that seeds the commitment chain (c^_0 = h)."""
    with _cache_lock:
        if not _chain_seed:
            _chain_seed.append(hash_to_point(GENERATORS_LABEL, "h"))
        return _chain_seed[0]


def generators(n: int) -> tuple[Point, ...]:
    """h_1..h_n, the Pedersen commitment generators (hash-to-group, cached and extended on demand).

    Thread-safe: sessions of several seats may run in threads of one process.
    """
    with _cache_lock:
        while len(_generators) < n:
            _generators.append(hash_to_point(GENERATORS_LABEL, "h_i", len(_generators) + 1))
        return tuple(_generators[:n])


def _generators_sum(n: int) -> Point:
    hs = generators(n)
    with _cache_lock:
        total = _generator_sums.get(n)
        if total is None:
            total = point_sum(hs)
            _generator_sums[n] = total
        return total


# --- the proof object --------------------------------------------------------------------------


def _points_ok(values: object) -> bool:
    # map/set run at C speed: a proof holds about 3N points and 2N scalars, checked on every proof
    return (
        isinstance(values, tuple)
        and all(map(isinstance, values, itertools.repeat(bytes)))
        and set(map(len, values)) <= {POINT_BYTES}
    )


def _scalars_ok(values: tuple[object, ...]) -> bool:
    if not all(map(isinstance, values, itertools.repeat(int))):
        return False
    ints: tuple[int, ...] = values  # type: ignore[assignment]  # all ints, checked above
    return not ints or (min(ints) >= 0 and max(ints) < L)


@dataclass(frozen=True, slots=True)
class ShuffleProof:
    """The output of GenShuffleProof (Haenni et al. 2017, Alg. 4.3), additive notation.

    t1, t2, t3, t41, t42: the prover's aggregate commitments (t4 = (t41, t42) pairs with (c2, c1));
    challenge: e, the Fiat-Shamir hash of the statement, of t1..t4 and of the chain commitments
    t^_1..t^_N; s1..s4, s_hat, s_prime: the responses; commitments: the permutation commitment c
    (indexed by input position); chain: the commitment chain c^_1..c^_N; t_hat: the chain
    commitments t^_1..t^_N (the commitment form: see the module docstring). N >= 1.
    """

    t1: Point
    t2: Point
    t3: Point
    t41: Point
    t42: Point
    challenge: int
    s1: int
    s2: int
    s3: int
    s4: int
    s_hat: tuple[int, ...]
    s_prime: tuple[int, ...]
    commitments: tuple[Point, ...]
    chain: tuple[Point, ...]
    t_hat: tuple[Point, ...]

    def __post_init__(self) -> None:
        n = len(self.chain) if isinstance(self.chain, tuple) else -1
        if n < 1:
            raise MalformedData("a shuffle proof covers at least one ciphertext")
        if not _points_ok((self.t1, self.t2, self.t3, self.t41, self.t42)):
            raise MalformedData("t1..t4 must be 32-byte points")
        for name in ("commitments", "chain", "t_hat"):
            value = getattr(self, name)
            if not _points_ok(value) or len(value) != n:
                raise MalformedData(f"{name} must be a tuple of {n} points")
        for name in ("s_hat", "s_prime"):
            value = getattr(self, name)
            if not isinstance(value, tuple) or len(value) != n or not _scalars_ok(value):
                raise MalformedData(f"{name} must be a tuple of {n} scalars in [0, L)")
        if not _scalars_ok((self.challenge, self.s1, self.s2, self.s3, self.s4)):
            raise MalformedData("the challenge and s1..s4 must be scalars in [0, L)")

    @property
    def n(self) -> int:
        """Number of ciphertexts shuffled."""
        return len(self.chain)

    def to_wire(self) -> list[list[bytes] | bytes]:
        """[[t1,t2,t3,t41,t42], e, [s1..s4], [s^_i], [s'_i], [c_j], [c^_i], [t^_i]], all bytes.

        Points are 32-byte encodings; scalars are 32-byte little-endian (msgpack integers stop at
        64 bits, so scalars travel as bytes).
        """
        return [
            [self.t1, self.t2, self.t3, self.t41, self.t42],
            encode_scalar(self.challenge),
            [encode_scalar(k) for k in (self.s1, self.s2, self.s3, self.s4)],
            [encode_scalar(k) for k in self.s_hat],
            [encode_scalar(k) for k in self.s_prime],
            list(self.commitments),
            list(self.chain),
            list(self.t_hat),
        ]

    @classmethod
    def from_wire(cls, obj: object, expected_len: int | None = None) -> ShuffleProof:
        """Parse and validate a received proof: shape, counts, every point, every scalar < L."""
        if not isinstance(obj, list | tuple) or len(obj) != 8:
            raise MalformedData("a shuffle proof is a list of 8 items")
        t, e, s, s_hat, s_prime, commitments, chain, t_hat = obj
        for part in (t, s, s_hat, s_prime, commitments, chain, t_hat):
            if not isinstance(part, list | tuple):
                raise MalformedData("a shuffle proof holds 7 lists and a challenge")
        n = len(chain)
        if n < 1:
            raise MalformedData("a shuffle proof covers at least one ciphertext")
        if expected_len is not None and n != expected_len:
            raise MalformedData(f"shuffle proof covers {n} ciphertexts, expected {expected_len}")
        if len(t) != 5 or len(s) != 4:
            raise MalformedData("a shuffle proof has 5 commitments t and 4 responses s")
        if not len(s_hat) == len(s_prime) == len(commitments) == len(t_hat) == n:
            raise MalformedData("shuffle proof vectors have inconsistent lengths")
        try:
            # every point in one call of the batch decoder (kept decoded for the verifier's sum)
            points = decode_points([*t, *commitments, *chain, *t_hat])
            scalars = _decode_scalars((*s, e, *s_hat, *s_prime))
        except CryptoError:
            return cls._from_wire_in_order(t, e, s, s_hat, s_prime, commitments, chain, t_hat)
        return cls(
            t1=points[0],
            t2=points[1],
            t3=points[2],
            t41=points[3],
            t42=points[4],
            challenge=scalars[4],
            s1=scalars[0],
            s2=scalars[1],
            s3=scalars[2],
            s4=scalars[3],
            s_hat=tuple(scalars[5 : 5 + n]),
            s_prime=tuple(scalars[5 + n :]),
            commitments=tuple(points[5 : 5 + n]),
            chain=tuple(points[5 + n : 5 + 2 * n]),
            t_hat=tuple(points[5 + 2 * n :]),
        )

    @classmethod
    def _from_wire_in_order(
        cls,
        t: Sequence[object],
        e: object,
        s: Sequence[object],
        s_hat: Sequence[object],
        s_prime: Sequence[object],
        commitments: Sequence[object],
        chain: Sequence[object],
        t_hat: Sequence[object],
    ) -> ShuffleProof:
        """Each item decoded in the wire's order: after the batch refused something, this raises
        the error of the first bad item, the one a proof has always been refused with."""
        t1, t2, t3, t41, t42 = (decode_point(p) for p in t)
        s1, s2, s3, s4 = (decode_scalar(k) for k in s)
        return cls(
            t1=t1,
            t2=t2,
            t3=t3,
            t41=t41,
            t42=t42,
            challenge=decode_scalar(e),
            s1=s1,
            s2=s2,
            s3=s3,
            s4=s4,
            s_hat=tuple(decode_scalar(k) for k in s_hat),
            s_prime=tuple(decode_scalar(k) for k in s_prime),
            commitments=tuple(decode_point(p) for p in commitments),
            chain=tuple(decode_point(p) for p in chain),
            t_hat=tuple(decode_point(p) for p in t_hat),
        )


def _decode_scalars(items: tuple[object, ...]) -> list[int]:
    """`decode_scalar` of every item (the 2N + 5 scalars of a proof), checked together; on a
    refusal each item is decoded in turn, for the first bad item's own error."""
    if all(map(isinstance, items, itertools.repeat(bytes))):
        raw: tuple[bytes, ...] = items  # type: ignore[assignment]  # all bytes, checked above
        if set(map(len, raw)) <= {SCALAR_BYTES}:
            values = list(map(int.from_bytes, raw, LITTLE))
            if not values or max(values) < L:
                return values
    return [decode_scalar(k) for k in items]


# --- hashing of the statement ------------------------------------------------------------------


def _flat(deck: Sequence[Ciphertext]) -> list[HashItem]:
    """c1, c2 of every card, in order."""
    return list(itertools.chain.from_iterable(map(_BOTH_POINTS, deck)))


def _deck_code(deck: Sequence[Ciphertext]) -> Encoded:
    """The encoding of a deck in the statements of the shuffle proofs (`_flat`), made once for the
    two challenges of each of the (one or two) proofs whose statement holds the deck."""
    return encoded(_flat(deck))


_BOTH_POINTS: Final[Callable[[Ciphertext], tuple[Point, Point]]] = operator.attrgetter("c1", "c2")
_FIRST_POINT: Final[Callable[[Ciphertext], Point]] = operator.attrgetter("c1")


def _get_challenges(
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
    commitments: Sequence[Point],
    public_key: Point,
    context: bytes,
    codes: tuple[Encoded, Encoded] | None = None,
) -> list[int]:
    """GetChallenges(N, (e, e', c, pk)), bound to `context`: u_1..u_N (input-indexed). `codes`:
    the two decks' `deck_code`s, if the caller has them (the same hash)."""
    n = len(inputs)
    in_code, out_code = (_flat(inputs), _flat(outputs)) if codes is None else codes
    statement: list[HashItem] = [GENERATORS_LABEL, n, public_key, in_code, out_code, list(commitments)]
    seed = hash512(CHALLENGES_LABEL, statement, context)
    return indexed_scalars(seed, n)


def _get_nizkp_challenge(
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
    commitments: Sequence[Point],
    chain: Sequence[Point],
    public_key: Point,
    t: Sequence[Point],
    t_hat: Sequence[Point],
    context: bytes,
    codes: tuple[Encoded, Encoded] | None = None,
) -> int:
    """GetNIZKPChallenge(y, t): y = (generators' label, N, Y, e, e', c, c^), every t, context.
    `codes`: as for `_get_challenges`."""
    in_code, out_code = (_flat(inputs), _flat(outputs)) if codes is None else codes
    statement: list[HashItem] = [
        GENERATORS_LABEL,
        len(inputs),
        public_key,
        in_code,
        out_code,
        list(commitments),
        list(chain),
    ]
    return challenge(SHUFFLE_LABEL, statement, [list(t), list(t_hat)], context)


# --- prover ------------------------------------------------------------------------------------


def gen_permutation(n: int, *, rng: RandomSource = SYSTEM) -> list[int]:
    """GenPermutation (Alg. 4.2): a uniform permutation of 0..n-1 by Knuth's shuffle, from `rng`."""
    if n < 1:
        raise ValueError("nothing to permute")
    source = system_or(rng, secrets)
    if source is _SYSTEM_SECRETS:
        offsets = _uniform_below_each(range(n, 0, -1))  # n - i for each i, drawn in bulk
    else:
        offsets = [source.randbelow(n - i) for i in range(n)]  # a seeded stand-in: in order
    pool = list(range(n))
    psi: list[int] = []
    for i, offset in enumerate(offsets):
        k = i + offset
        psi.append(pool[k])
        pool[k] = pool[i]
    return psi


def _uniform_below_each(bounds: Iterable[int]) -> list[int]:
    """For each bound m >= 1, a uniform integer in [0, m), independent of the others, from the
    system's generator: 4 bytes of one `secrets.token_bytes` call a candidate, cut to the bits
    that m - 1 needs, drawn again while it is not below m (the rejection `secrets.randbelow`
    makes, at most half the candidates refused), without one `os.urandom` call a number."""
    bounds = list(bounds)
    if bounds and not 1 <= min(bounds) <= max(bounds) < 1 << 32:
        raise ValueError("bounds must be in [1, 2^32)")
    out: list[int] = []
    raw = b""
    at = 0
    for m in bounds:
        mask = (1 << (m - 1).bit_length()) - 1
        while True:
            if at == len(raw):
                raw, at = _SYSTEM_SECRETS.token_bytes(8 * len(bounds) + 32), 0
            value = int.from_bytes(raw[at : at + 4], "little") & mask
            at += 4
            if value < m:
                out.append(value)
                break
    return out


_SYSTEM_SECRETS: Final[ModuleType] = secrets
"""The `secrets` module itself (tests replace the name `secrets` here with seeded stand-ins)."""


def gen_shuffle(
    ciphertexts: Sequence[Ciphertext], public_key: Point, *, rng: RandomSource = SYSTEM
) -> tuple[list[Ciphertext], list[int], list[int]]:
    """GenShuffle (Alg. 4.1): permute and re-encrypt; returns (e', r' output-indexed, psi)."""
    psi = gen_permutation(len(ciphertexts), rng=rng)
    randomness = random_scalars(len(psi), rng=rng)
    outputs = [reencrypt(ciphertexts[j], public_key, r) for j, r in zip(psi, randomness, strict=True)]
    return outputs, randomness, psi


def gen_permutation_commitment(
    psi: Sequence[int], hs: Sequence[Point], *, rng: RandomSource = SYSTEM
) -> tuple[list[Point], list[int]]:
    """GenPermutationCommitment (Alg. 4.4): c_{j_i} = r_{j_i} G + h_i (column commitments).

    Written for any map psi (column j commits to every h_i with psi(i) = j), which for a
    permutation is exactly the paper's formula; tests use it to build cheating proofs.
    """
    n = len(psi)
    r = random_scalars(n, rng=rng)
    if sorted(psi) == list(range(n)):
        owner = [0] * n  # column j holds h_i for the one i with psi(i) = j
        for i, j in enumerate(psi):
            owner[j] = i
        return mul_fixed_secret([BASE], [r], [hs[i] for i in owner]), r
    columns: list[list[Point]] = [[g] for g in mul_fixed_secret([BASE], [r])]
    for i, j in enumerate(psi):
        columns[j].append(hs[i])
    return [point_sum(col) for col in columns], r


def gen_commitment_chain(
    c0: Point, u_prime: Sequence[int], *, rng: RandomSource = SYSTEM
) -> tuple[list[Point], list[int]]:
    """GenCommitmentChain (Alg. 4.5): c^_i = r^_i G + u'_i c^_{i-1}, starting from c^_0 = c0."""
    chain: list[Point] = []
    r_hat: list[int] = []
    prev = c0
    for u in u_prime:
        r = random_scalar(rng=rng)
        prev = lincomb([(r, BASE), (u, prev)])
        chain.append(prev)
        r_hat.append(r)
    return chain, r_hat


def _check_permutation(psi: Sequence[int], n: int) -> None:
    if sorted(psi) != list(range(n)):
        raise ValueError("psi is not a permutation of the inputs")


def gen_shuffle_proof(
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
    r_prime: Sequence[int],
    psi: Sequence[int],
    public_key: Point,
    context: bytes,
    *,
    rng: RandomSource = SYSTEM,
) -> ShuffleProof:
    """GenShuffleProof (Alg. 4.3): prove outputs = permuted re-encryption of inputs.

    `r_prime[i]` is the randomness of output i and `psi[i]` its input index, as `gen_shuffle`
    returns them; `context` binds the proof to the session, the shuffling seat and the transcript.
    """
    n = len(inputs)
    if n < 1 or len(outputs) != n or len(r_prime) != n or len(psi) != n:
        raise ValueError("inputs, outputs, randomness and permutation must have the same length")
    _check_permutation(psi, n)
    return _prove(inputs, outputs, r_prime, psi, public_key, context, rng=rng)


@dataclass(frozen=True, slots=True)
class ShuffleSetup:
    """Everything of one shuffle and its proof that does not depend on the deck shuffled.

    Drawn and computed by `prepare_shuffle` while the seat waits for its turn, so that its turn
    (the critical path of a deal) costs 4N variable-base multiplications instead of 6N: the
    permutation psi and re-encryption randomness r' (GenShuffle, Alg. 4.1) with the encryptions
    of zero (r'_i G, r'_i Y); the permutation commitment c with its randomness r (Alg. 4.4); the
    chain randomness r^ (Alg. 4.5); the prover's nonces w1..w4, w^, w' with t1, t2, t3
    (Alg. 4.3). Secret: use it for one shuffle, never twice. `zeros` is empty when only the proof
    is prepared (tests that prove a chosen shuffle), and when the extension keeps the encryptions
    of zero unencoded in `zero_forms` (added to the deck in one call on the turn: 2N encodings
    instead of 2N additions of libsodium, each decoding both operands and encoding the sum).
    """

    public_key: Point
    psi: tuple[int, ...]
    r_prime: tuple[int, ...]
    zeros: tuple[Ciphertext, ...]
    commitments: tuple[Point, ...]
    r: tuple[int, ...]
    r_hat: tuple[int, ...]
    w: tuple[int, int, int, int]
    w_hat: tuple[int, ...]
    w_prime: tuple[int, ...]
    t1: Point
    t2: Point
    t3: Point
    zero_forms: bytes | None = None
    """With the compiled extension, the encryptions of zero instead of `zeros`: r'_i G for every i,
    then r'_i Y, in the extension's unencoded form (`group.mul_fixed_secret_forms`)."""

    @property
    def n(self) -> int:
        """Number of cards this setup shuffles."""
        return len(self.psi)

    @property
    def ready(self) -> bool:
        """Whether the encryptions of zero are prepared too (a whole shuffle, not only a proof)."""
        return self.zero_forms is not None or len(self.zeros) == self.n


def prepare_shuffle(n: int, public_key: Point, *, rng: RandomSource = SYSTEM) -> ShuffleSetup:
    """Draw and compute the deck-independent part of a shuffle of n cards (`ShuffleSetup`).

    The draws from `rng` come in the order `shuffle` has always made them (psi, r', r, r^, w),
    so a shuffle with or without a prepared setup is the same for the same `rng`.
    """
    psi = gen_permutation(n, rng=rng)
    r_prime = random_scalars(len(psi), rng=rng)
    forms = mul_fixed_secret_forms(BASE, r_prime)
    if forms is not None:
        # never encoded: added to the deck in the extension on the turn (`shuffle`)
        y_forms = mul_fixed_secret_forms(public_key, r_prime)
        assert y_forms is not None
        return _setup(psi, r_prime, (), public_key, rng, forms + y_forms)
    zeros = tuple(
        Ciphertext(c1, c2)
        for c1, c2 in zip(
            mul_fixed_secret([BASE], [r_prime]), mul_fixed_secret([public_key], [r_prime]), strict=True
        )
    )
    return _setup(psi, r_prime, zeros, public_key, rng)


def _setup(
    psi: Sequence[int],
    r_prime: Sequence[int],
    zeros: tuple[Ciphertext, ...],
    public_key: Point,
    rng: RandomSource,
    zero_forms: bytes | None = None,
) -> ShuffleSetup:
    n = len(psi)
    hs = generators(n)
    keep_decoded([*hs, BASE, public_key])  # decoded once, for the constant-time sums below
    c, r = gen_permutation_commitment(psi, hs, rng=rng)
    # r^, w1..w4, w^, w' in one draw (the same values, in the same order, from a seeded source)
    drawn = random_scalars(3 * n + 4, rng=rng)
    r_hat, (w1, w2, w3, w4) = drawn[:n], drawn[n : n + 4]
    w_hat, w_prime = drawn[n + 4 : 2 * n + 4], drawn[2 * n + 4 :]
    t1, t2 = mul_fixed_secret([BASE], [[w1, w2]])
    return ShuffleSetup(
        public_key=public_key,
        psi=tuple(psi),
        r_prime=tuple(r_prime),
        zeros=zeros,
        commitments=tuple(c),
        r=tuple(r),
        r_hat=tuple(r_hat),
        w=(w1, w2, w3, w4),
        w_hat=tuple(w_hat),
        w_prime=tuple(w_prime),
        t1=t1,
        t2=t2,
        t3=lincomb_secret([(w3, BASE), *zip(w_prime, hs, strict=True)]),
        zero_forms=zero_forms,
    )


def _prove(
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
    r_prime: Sequence[int],
    psi: Sequence[int],
    public_key: Point,
    context: bytes,
    *,
    rng: RandomSource = SYSTEM,
) -> ShuffleProof:
    """GenShuffleProof for given outputs, r' and psi (psi is not checked: tests feed it cheats)."""
    setup = _setup(psi, r_prime, (), public_key, rng)
    return _prove_with(setup, inputs, outputs, context)


def _prove_with(
    setup: ShuffleSetup, inputs: Sequence[Ciphertext], outputs: Sequence[Ciphertext], context: bytes
) -> ShuffleProof:
    """The body of GenShuffleProof (Alg. 4.3), line by line, from a prepared setup."""
    n = len(inputs)
    psi, r_prime, r, c = setup.psi, setup.r_prime, setup.r, setup.commitments
    public_key = setup.public_key
    h = chain_generator()
    codes = (_deck_code(inputs), _deck_code(outputs))  # each deck encoded once for both hashes
    u = _get_challenges(inputs, outputs, c, public_key, context, codes)
    u_prime = [u[psi[i]] for i in range(n)]
    r_hat = setup.r_hat

    # Every scalar below involves a secret (r, r^, r', w, or u' = u in psi's order): constant-time
    # scalar code (the extension's, or libsodium's one call a scalar), not Python integers.
    r_bar = scalar_dot(r, [1] * n)
    r_tilde = scalar_dot(r, u)
    r_prime_agg = scalar_dot(r_prime, u_prime)

    w1, w2, w3, w4 = setup.w
    w_hat, w_prime = setup.w_hat, setup.w_prime
    # GenCommitmentChain (Alg. 4.5) with the prepared r^, c^_i = r^_i G + u'_i c^_{i-1}, and the
    # chain commitments t^_i = w^_i G + w'_i c^_{i-1}, both from c^_0 = h. Unrolled, every c^_i is
    # b_i G + a_i h (a_0 = 1, b_0 = 0, a_i = u'_i a_{i-1}, b_i = r^_i + u'_i b_{i-1}), so each of
    # the 2N points is a sum over the two fixed bases G and h: `mul_fixed_secret`, whose tables
    # make it several times cheaper than a multiplication by the previous link.
    a_links, b_links = scalar_chain(u_prime, r_hat)
    a, b = [1, *a_links], [0, *b_links]
    # the paper's aggregate r^ = sum_i r^_i v_i, v_i = prod_{k > i} u'_k, is b_N
    r_hat_agg = b[n]
    g_coefs = b[1:] + scalars_muladd(w_prime, b[:n], w_hat)
    h_coefs = a[1:] + scalars_muladd(w_prime, a[:n])
    chain_points = mul_fixed_secret([BASE, h], [g_coefs, h_coefs])
    c_hat, t_hat = chain_points[:n], chain_points[n:]
    # t4 = (sum w'_i c2'_i - w4 Y, sum w'_i c1'_i - w4 G). With e'_i = e_{j_i} + r'_i (G, Y) this
    # is sum w'_i e_{j_i} + (sum w'_i r'_i - w4) (G, Y): the same points, computed from the inputs
    # so that lincomb_secret can merge equal inputs (the public deck has c1 = G everywhere).
    k = scalar_sub(scalar_dot(w_prime, r_prime), w4)
    t41 = lincomb_secret([*((w_prime[i], inputs[psi[i]].c2) for i in range(n)), (k, public_key)])
    t42 = lincomb_secret([*((w_prime[i], inputs[psi[i]].c1) for i in range(n)), (k, BASE)])

    t = (setup.t1, setup.t2, setup.t3, t41, t42)
    e = _get_nizkp_challenge(inputs, outputs, c, c_hat, public_key, t, t_hat, context, codes)
    return ShuffleProof(
        t1=setup.t1,
        t2=setup.t2,
        t3=setup.t3,
        t41=t41,
        t42=t42,
        challenge=e,
        s1=scalar_muladd(e, r_bar, w1),
        s2=scalar_muladd(e, r_hat_agg, w2),
        s3=scalar_muladd(e, r_tilde, w3),
        s4=scalar_muladd(e, r_prime_agg, w4),
        s_hat=tuple(scalars_muladd(e, r_hat, w_hat)),
        s_prime=tuple(scalars_muladd(e, u_prime, w_prime)),
        commitments=tuple(c),
        chain=tuple(c_hat),
        t_hat=tuple(t_hat),
    )


def shuffle(
    ciphertexts: Sequence[Ciphertext],
    public_key: Point,
    context: bytes,
    *,
    rng: RandomSource = SYSTEM,
    setup: ShuffleSetup | None = None,
) -> tuple[list[Ciphertext], ShuffleProof]:
    """Shuffle and re-encrypt a deck (fresh permutation and randomness from `rng`), with proof.

    GenShuffle then GenShuffleProof (Haenni et al. 2017, Alg. 4.1 and 4.3): the outputs hide the
    permutation (re-encryption is semantically secure under DDH) and the proof, bound to
    `context`, shows that no card was added, dropped or changed. Works for any length >= 1 (a
    one-card shuffle only re-randomises). About 6 variable-base multiplications per card, 4 with
    a `setup` prepared beforehand (`prepare_shuffle`, same size and key; used once).
    """
    if not ciphertexts:
        raise ValueError("cannot shuffle an empty deck")
    if setup is None:
        setup = prepare_shuffle(len(ciphertexts), public_key, rng=rng)
    elif setup.n != len(ciphertexts) or setup.public_key != public_key or not setup.ready:
        raise ValueError("the prepared shuffle is for another deck size or key")
    if setup.zero_forms is not None:
        # e'_i = e_{j_i} + (r'_i G, r'_i Y), both halves in one call of the extension
        moved = [ciphertexts[j] for j in setup.psi]
        sums = add_secret_forms(setup.zero_forms, [c.c1 for c in moved] + [c.c2 for c in moved])
        n = len(moved)
        outputs = [Ciphertext(c1, c2) for c1, c2 in zip(sums[:n], sums[n:], strict=True)]
    else:
        outputs = [_rerandomise(ciphertexts[j], zero) for j, zero in zip(setup.psi, setup.zeros, strict=True)]
    return outputs, _prove_with(setup, ciphertexts, outputs, context)


def _rerandomise(ciphertext: Ciphertext, zero: Ciphertext) -> Ciphertext:
    """ciphertext + Enc(0, r') = `reencrypt(ciphertext, Y, r')`, the same encoding."""
    return Ciphertext(add(ciphertext.c1, zero.c1), add(ciphertext.c2, zero.c2))


# --- verifier ----------------------------------------------------------------------------------


def _shape_error(
    inputs: Sequence[Ciphertext], outputs: Sequence[Ciphertext], proof: ShuffleProof
) -> str | None:
    if not inputs:
        return "empty input deck"
    if len(outputs) != len(inputs):
        return f"{len(outputs)} outputs for {len(inputs)} inputs"
    if proof.n != len(inputs):
        return f"proof covers {proof.n} ciphertexts, deck has {len(inputs)}"
    return None


def _chain_commitments(proof: ShuffleProof, h: Point) -> list[Point]:
    """t^'_i = s^_i G + s'_i c^_{i-1} - e c^_i (c^_0 = h): 2 variable-base multiplications each."""
    e = proof.challenge
    out: list[Point] = []
    prev = h
    for s_hat, s_prime, link in zip(proof.s_hat, proof.s_prime, proof.chain, strict=True):
        out.append(lincomb_public([(s_hat, BASE), (s_prime, prev), (-e, link)]))
        prev = link
    return out


def _challenge_error(
    proof: ShuffleProof,
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
    public_key: Point,
    context: bytes,
    codes: tuple[Encoded, Encoded] | None = None,
) -> str | None:
    """Recompute the Fiat-Shamir challenge from the statement and the sent t; None if it matches
    the proof's (hashing only: no multiplication). `codes`: as for `_get_challenges`."""
    t = (proof.t1, proof.t2, proof.t3, proof.t41, proof.t42)
    e = _get_nizkp_challenge(
        inputs, outputs, proof.commitments, proof.chain, public_key, t, proof.t_hat, context, codes
    )
    if e != proof.challenge:
        return "challenge (the statement or a commitment t does not match)"
    return None


def _chain_error(proof: ShuffleProof) -> str | None:
    """The N chain equations t^_i = s^_i G + s'_i c^_{i-1} - e c^_i, each checked exactly."""
    for i, (sent, expected) in enumerate(
        zip(proof.t_hat, _chain_commitments(proof, chain_generator()), strict=True)
    ):
        if sent != expected:
            return f"t^_{i + 1} (step {i + 1} of the commitment chain)"
    return None


def _check(
    proof: ShuffleProof,
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
    public_key: Point,
    context: bytes,
) -> str | None:
    """CheckShuffleProof (Alg. 4.6); returns None if valid, else the failing equation's name."""
    shape = _shape_error(inputs, outputs, proof)
    if shape is not None:
        return shape
    bad_challenge = _challenge_error(proof, inputs, outputs, public_key, context)
    if bad_challenge is not None:
        return bad_challenge
    bad_chain = _chain_error(proof)
    if bad_chain is not None:
        return bad_chain
    n = len(inputs)
    hs = generators(n)
    h = chain_generator()
    e = proof.challenge
    u = _get_challenges(inputs, outputs, proof.commitments, public_key, context)
    s_prime = proof.s_prime

    c_bar = sub(point_sum(proof.commitments), _generators_sum(n))
    u_prod = 1
    for uj in u:
        u_prod = u_prod * uj % L
    c_hat_bar = lincomb_public([(1, proof.chain[-1]), (-u_prod, h)])
    if lincomb_public([(proof.s1, BASE), (-e, c_bar)]) != proof.t1:
        return "t1 (sum of permutation commitments)"
    if lincomb_public([(proof.s2, BASE), (-e, c_hat_bar)]) != proof.t2:
        return "t2 (end of the commitment chain)"
    neg_eu = [(-e * uj) % L for uj in u]
    t3 = lincomb_public(
        [
            (proof.s3, BASE),
            *zip(s_prime, hs, strict=True),
            *zip(neg_eu, proof.commitments, strict=True),
        ]
    )
    if t3 != proof.t3:
        return "t3 (permutation commitment opening)"
    t41 = lincomb_public(
        [
            *zip(s_prime, (c.c2 for c in outputs), strict=True),
            *zip(neg_eu, (c.c2 for c in inputs), strict=True),
            (-proof.s4, public_key),
        ]
    )
    if t41 != proof.t41:
        return "t4,1 (re-encryption of the c2 components)"
    t42 = lincomb_public(
        [
            *zip(s_prime, (c.c1 for c in outputs), strict=True),
            *zip(neg_eu, (c.c1 for c in inputs), strict=True),
            (-proof.s4, BASE),
        ]
    )
    if t42 != proof.t42:
        return "t4,2 (re-encryption of the c1 components)"
    return None


def check_shuffle_proof(
    proof: ShuffleProof,
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
    public_key: Point,
    context: bytes,
) -> bool:
    """CheckShuffleProof (Haenni et al. 2017, Alg. 4.6): True iff the proof verifies.

    Inputs, outputs and proof must come from `from_wire` (validated points) or local computation.
    Cost: 8N + 4 variable-base multiplications (fewer when inputs repeat a point, e.g. c1 = G).
    """
    return _check(proof, inputs, outputs, public_key, context) is None


def verify_shuffle(
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
    public_key: Point,
    proof: ShuffleProof,
    context: bytes,
) -> None:
    """Raise `InvalidProof` unless `outputs` is proven to be a permutation and re-encryption of
    `inputs` under `public_key`, by a proof made for `context`.

    This is CheckShuffleProof (Haenni et al. 2017, Alg. 4.6; Terelius-Wikstrom 2010), each
    equation checked exactly, so the error names the failing one. Use it to check each shuffle
    before the next one is made; `verify_shuffle_chain` checks several at once, cheaper.
    """
    reason = _check(proof, inputs, outputs, public_key, context)
    if reason is not None:
        raise InvalidProof(f"shuffle proof does not verify: {reason}")


def verify_shuffle_chain(
    decks: Sequence[Sequence[Ciphertext]],
    proofs: Sequence[ShuffleProof],
    public_key: Point,
    contexts: Sequence[bytes],
    *,
    rng: RandomSource = SYSTEM,
) -> None:
    """Verify consecutive shuffles decks[k] -> decks[k+1] (proof k, context k) in one batch.

    `ShuffleChainVerifier` fed every proof, then `finish`: see there for the batch (Bellare,
    Garay, Rabin 1998) and its cost. On failure `InvalidProof.index` names the first bad proof
    (for blame).
    """
    m = len(proofs)
    if m < 1 or len(decks) != m + 1 or len(contexts) != m:
        raise ValueError("need k proofs, k contexts and k + 1 decks")
    verifier = ShuffleChainVerifier(decks[0], public_key, rng=rng, batch_terms=None)
    for k in range(m):
        verifier.add(decks[k + 1], proofs[k], contexts[k])
    verifier.finish()


class ShuffleChainVerifier:
    """Checks the shuffles of one deck, fed one by one as they arrive, as a single batch.

    `add(outputs, proof, context)` takes shuffle k (decks[k] -> outputs). It checks that proof's
    Fiat-Shamir challenge exactly, from the sent commitments t (hashing only: a wrong challenge
    raises at once), then adds every equation t = t' of CheckShuffleProof (t1, t2, t3, t4,1, t4,2
    and the N chain equations t^_i), each multiplied by its own secret random weight (five
    fresh 252-bit scalars from `rng` per proof, the N 128-bit chain weights derived from them), to one
    running linear combination that must be the identity (random-linear-combination
    batch verification, the small exponents test of M. Bellare, J. Garay, T. Rabin, "Fast batch
    verification for modular exponentiation and digital signatures", EUROCRYPT 1998, Section 3;
    a false equation survives with probability about 1/L). `finish` evaluates what is left and
    checks the sum; only then is any proof of the chain accepted.

    In the sum each distinct point occurs once, whatever the number of equations it occurs in:
    the ciphertexts of an intermediate deck (outputs of proof k, inputs of proof k+1), h_1..h_N,
    h, G and the key (shared by every proof). A point is evaluated as soon as no later proof can
    add to its coefficient (the input deck of proof k, its commitments c_j, c^_i, t^_i and t1..t4,
    when proof k arrives): its term then waits with the others, and the waiting terms are summed
    in one multi-scalar multiplication (`group.lincomb_public_terms`) once there are
    `batch_terms` of them, so most of the work is done while the next seats shuffle, in sums
    large enough to be cheap per term (Pippenger's method: a sum of 2,700 terms costs about 13 %
    less per term than one of 900, a proof's; 6,300 terms, 16 %); `check` sums whatever waits
    (the last deck and h_1..h_N at least). `batch_terms=None` leaves everything to `check`, the
    cheapest when nobody waits on the deal (an observer, `verify`). On the pure-Python path every
    distinct point is one multiplication: N (c_j) + 2N (c^, t^) + 2N (a deck) per shuffle, plus N
    (h_i) and N or 2N (the first deck) once; exactly, `verify_shuffle`, 8N + 4.

    `trusted=True` marks our own shuffle: its equations are not added (we made it), but its output
    deck still links the proofs before and after it. `check` tests the sum of what was added so
    far (a seat stopped mid-deal: its earlier shuffles are judged without it). On failure of the
    sum every unchecked proof is checked on its own, in order, and `InvalidProof.index` names the
    first bad one (0 for the first `add`), for blame.
    """

    def __init__(
        self,
        deck: Sequence[Ciphertext],
        public_key: Point,
        *,
        rng: RandomSource = SYSTEM,
        batch_terms: int | None = BATCH_TERMS,
    ) -> None:
        self._key = public_key
        self._rng = rng
        self._batch_terms = batch_terms
        self._waiting_scalars: list[int] = []
        self._waiting_points: list[Point] = []
        self._decks: list[Sequence[Ciphertext]] = [deck]
        self._codes: list[Encoded | None] = [None]
        """`_deck_code` of each deck of `_decks`, made when a proof's challenges first need it."""
        self._proofs: list[ShuffleProof | None] = []
        self._contexts: list[bytes] = []
        # the coefficients not yet evaluated: of the last deck's c1 and c2 (by position), of
        # h_1..h_N, and of G, h and the key
        self._deck_c1: list[int] | None = None
        self._deck_c2: list[int] | None = None
        self._hs: list[int] | None = None
        self._g = 0
        self._h = 0
        self._y = 0
        self._acc = IDENTITY
        self._checked = 0
        keep_decoded([*generators(len(deck)), BASE, chain_generator(), public_key])

    @property
    def count(self) -> int:
        """Shuffles added so far."""
        return len(self._proofs)

    def _code(self, k: int) -> Encoded:
        """`_deck_code` of the deck `_decks[k]` (made once)."""
        code = self._codes[k]
        if code is None:
            code = self._codes[k] = _deck_code(self._decks[k])
        return code

    def add(
        self,
        outputs: Sequence[Ciphertext],
        proof: ShuffleProof | None,
        context: bytes,
        *,
        trusted: bool = False,
    ) -> None:
        """Take the next shuffle (last deck -> `outputs`); `InvalidProof` if its challenge is wrong.
        A trusted one (ours, or none at all: a seat the table plays) needs no proof."""
        k = len(self._proofs)
        inputs = self._decks[-1]
        checked = None if trusted else proof
        if not trusted and checked is None:
            raise ValueError("an untrusted shuffle needs its proof")
        codes: tuple[Encoded, Encoded] | None = None
        if checked is not None:
            reason = _shape_error(inputs, outputs, checked)
            if reason is None:
                codes = (self._code(k), _deck_code(outputs))
                reason = _challenge_error(checked, inputs, outputs, self._key, context, codes)
            if reason is not None:
                raise InvalidProof(f"shuffle proof does not verify: {reason}", index=k)
        self._decks.append(outputs)
        self._codes.append(None if codes is None else codes[1])
        self._proofs.append(checked)
        self._contexts.append(context)
        in1, in2 = self._deck_c1, self._deck_c2
        self._deck_c1 = self._deck_c2 = None
        scalars: list[int] = []
        points: list[Point] = []
        if checked is not None:
            assert codes is not None
            in1, in2 = self._accumulate(checked, inputs, outputs, context, codes, in1, in2, scalars, points)
        if in1 is not None and in2 is not None:
            self._deck_terms(inputs, in1, in2, scalars, points)
        self._evaluate(scalars, points)

    def _shared_terms(self) -> tuple[list[int], list[Point]]:
        """The terms of the shared points (the last deck, h_1..h_N, G, h, the key), whose
        coefficients wait for the next shuffle, taken out (reduced): none of them wait after."""
        scalars: list[int] = []
        points: list[Point] = []
        if self._deck_c1 is not None and self._deck_c2 is not None:
            self._deck_terms(self._decks[-1], self._deck_c1, self._deck_c2, scalars, points)
        if self._hs is not None:
            scalars += [k % L for k in self._hs]
            points += generators(len(self._hs))
        for k, p in ((self._g, BASE), (self._h, chain_generator()), (self._y, self._key)):
            scalars.append(k % L)
            points.append(p)
        self._deck_c1 = self._deck_c2 = self._hs = None
        self._g = self._h = self._y = 0
        return scalars, points

    def take_terms(self) -> tuple[list[int], list[Point]]:
        """Every term of the sum `check` would check now (scalars reduced; points as received,
        the identity possible), taken out instead of summed: the verifier holds none of them
        after, as after `check`. The sum is the identity iff every proof added since the last
        `check` or `take_terms` holds (up to the batch's 2^-128; its weights are this verifier's
        own), so a caller may add the terms to other batches' and check all in one multi-scalar
        multiplication (`verify` does). Nothing here names a bad proof: a caller whose sum fails
        must check the shuffles again, with `check`."""
        scalars, points = self._shared_terms()
        scalars = [*self._waiting_scalars, *scalars]
        points = [*self._waiting_points, *points]
        self._waiting_scalars, self._waiting_points = [], []
        if self._acc != IDENTITY:
            scalars.append(1)
            points.append(self._acc)
            self._acc = IDENTITY
        return scalars, points

    def check(self) -> None:
        """Check the sum of everything added so far; `InvalidProof` (with its index) if it fails."""
        scalars, points = self._shared_terms()
        self._evaluate(scalars, points, now=True)
        if self._acc != IDENTITY:
            for k in range(self._checked, len(self._proofs)):
                proof = self._proofs[k]
                if proof is None:
                    continue
                reason = _check(proof, self._decks[k], self._decks[k + 1], self._key, self._contexts[k])
                if reason is not None:
                    raise InvalidProof(f"shuffle proof does not verify: {reason}", index=k)
            raise InvalidProof("batched shuffle verification failed")  # pragma: no cover
        self._checked = len(self._proofs)

    def finish(self) -> None:
        """After the last shuffle: check the whole chain (as `check`)."""
        self.check()

    def _evaluate(self, scalars: list[int], points: list[Point], *, now: bool = False) -> None:
        """Add sum(scalars[i] points[i]) to the running sum: the terms wait with the others until
        `batch_terms` are waiting (or `now`), then all go in one multi-scalar multiplication."""
        waiting_scalars, waiting_points = self._waiting_scalars, self._waiting_points
        waiting_scalars += scalars
        waiting_points += points
        if not waiting_points:
            return
        # without the extension a sum costs the same in any batch: nothing to wait for
        waits = self._batch_terms is None or len(waiting_points) < self._batch_terms
        if not now and waits and msm_available():
            return
        if self._acc != IDENTITY:
            waiting_scalars.append(1)
            waiting_points.append(self._acc)
        self._acc = lincomb_public_terms(waiting_scalars, waiting_points, reduced=True)
        self._waiting_scalars, self._waiting_points = [], []

    def _deck_terms(
        self,
        deck: Sequence[Ciphertext],
        c1: Sequence[int],
        c2: Sequence[int],
        scalars: list[int],
        points: list[Point],
    ) -> None:
        """The terms of a deck's points (coefficients by position); a c1 equal to G (all of the
        public deck's) joins G's coefficient instead of making a term of its own."""
        if len(c1) == len(c2) == len(deck) and BASE not in map(_FIRST_POINT, deck):
            # (every deck but the public one) the same terms in the same order, c1 then c2 of
            # each card, put together at C speed
            scalars += [k % L for k in itertools.chain.from_iterable(zip(c1, c2, strict=True))]
            points += itertools.chain.from_iterable(map(_BOTH_POINTS, deck))
            return
        g = 0
        for k1, k2, c in zip(c1, c2, deck, strict=True):
            if c.c1 == BASE:
                g += k1
            else:
                scalars.append(k1 % L)
                points.append(c.c1)
            scalars.append(k2 % L)
            points.append(c.c2)
        self._g += g

    def _accumulate(
        self,
        proof: ShuffleProof,
        inputs: Sequence[Ciphertext],
        outputs: Sequence[Ciphertext],
        context: bytes,
        codes: tuple[Encoded, Encoded],
        in1: list[int] | None,
        in2: list[int] | None,
        scalars: list[int],
        points: list[Point],
    ) -> tuple[list[int], list[int]]:
        """Add rho * (t' - t) for every equation of one proof (t1..t4 and the N chain equations),
        each with its own random rho: the terms of the proof's own points go to `scalars` and
        `points`, those of the shared points to the pending coefficients. Returns the input
        deck's coefficients (`in1`, `in2` plus this proof's)."""
        n = len(inputs)
        e = proof.challenge
        u = _get_challenges(inputs, outputs, proof.commitments, self._key, context, codes)
        u_prod = 1
        for uj in u:
            u_prod = u_prod * uj % L
        r1, r2, r3, r41, r42 = random_scalars(5, rng=self._rng)
        s_prime = proof.s_prime
        r1e, r2e, r3e, r41e, r42e = (r * e % L for r in (r1, r2, r3, r41, r42))
        # t^'_i = s^_i G + s'_i c^_{i-1} - e c^_i (c^_0 = h), one weight per step of the chain,
        # derived from the five secret random weights above: as unpredictable to the prover, and
        # the verifier's draws from `rng` stay five per proof (what the seeded tests replay).
        # 128 bits each (the small exponents test's error is then 2^-128, PROTOCOL.md 12.7), cut
        # from one SHAKE256 output: one hash call for the N weights, not N SHA-512 digests.
        stream = hashlib.shake_256(hash512(WEIGHTS_LABEL, [r1, r2, r3, r41, r42])).digest(16 * n)
        rhos = [int.from_bytes(stream[i : i + 16], "little") for i in range(0, 16 * n, 16)]
        # t1' = s1 G - e (sum c_j - sum h_i)          t2' = s2 G - e (c^_N - u h)
        # t3' = s3 G + sum s'_i h_i - e sum u_j c_j    t4' = sum s'_i e'_i - s4 (Y, G) - e sum u_j e_j
        # The shared points' coefficients wait (unreduced) for the last proof that adds to them:
        # the input deck's are complete now, the output deck's when the next shuffle comes.
        if in1 is None or in2 is None:
            in1 = [-r42e * uj for uj in u]
            in2 = [-r41e * uj for uj in u]
        else:
            in1 = [k - r42e * uj for k, uj in zip(in1, u, strict=True)]
            in2 = [k - r41e * uj for k, uj in zip(in2, u, strict=True)]
        self._deck_c1 = [r42 * sp for sp in s_prime]
        self._deck_c2 = [r41 * sp for sp in s_prime]
        if self._hs is None:
            self._hs = [r1e + r3 * sp for sp in s_prime]
        else:
            self._hs = [k + r1e + r3 * sp for k, sp in zip(self._hs, s_prime, strict=True)]
        chain_g = sum(map(operator.mul, rhos, proof.s_hat))
        self._g += r1 * proof.s1 + r2 * proof.s2 + r3 * proof.s3 - r42 * proof.s4 + chain_g
        self._h += r2e * u_prod + rhos[0] * s_prime[0]
        self._y -= r41 * proof.s4
        # the proof's own points, whose coefficients are complete: c_j, c^_i, t^_i, t1..t4
        scalars += [(-r1e - r3e * uj) % L for uj in u]
        points += proof.commitments
        neg_e = L - e
        scalars += [
            (rho * neg_e + rho_next * sp_next) % L
            for rho, rho_next, sp_next in zip(rhos, rhos[1:], s_prime[1:], strict=False)
        ]
        scalars.append((rhos[-1] * neg_e - r2e) % L)
        points += proof.chain
        scalars += [-rho % L for rho in rhos]
        points += proof.t_hat
        scalars += [-r % L for r in (r1, r2, r3, r41, r42)]
        points += (proof.t1, proof.t2, proof.t3, proof.t41, proof.t42)
        return in1, in2
