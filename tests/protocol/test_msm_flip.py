"""The flip's arithmetic in protocol/crypto/_msm.c (issue 29, one public reveal): the small public
sums by interleaved wNAF (`lincomb_public_few`, with tables kept for lasting points and decoded
forms) and a public card's shares combined in one call (`sum_public`), each against libsodium's
naive arithmetic and the pure-Python fallback, bit for bit, with the edge cases and every invalid
encoding refused as before."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.crypto import dleq, group
from protocol.crypto.elgamal import Ciphertext
from protocol.crypto.errors import InvalidPoint
from protocol.crypto.group import BASE, IDENTITY, L, Point, decode_point, mul, point_sum, sub
from protocol.crypto.hashing import encode
from tests.protocol.msm_support import naive_sum as _naive
from tests.protocol.msm_support import random_points as _points

from .test_msm import _invalid_encodings

built = pytest.mark.skipif(group._msm_module is None, reason="the C extension is not built here")
EDGE_SCALARS = [0, 1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, L - 1, L - 2, L - 15, L - 16, L - 17]
EDGE_SCALARS += [2**128 - 1, L - 2**128 + 1, 2**252, 2**252 - 1, (L - 1) // 2, (L + 1) // 2, L - 2**127]


@pytest.mark.parametrize("n", [1, 2, 3, 7, 14, 30, 32, 33, 80])
def test_small_sums_equal_the_naive_sum(n: int, backend: bool) -> None:
    rng = random.Random(n)
    points = _points(rng, n)
    # full scalars and the batch weights' negatives (-r, r < 2^128: the shorter of k and L - k)
    scalars = [
        rng.choice([rng.randrange(L), L - rng.randrange(1, 2**128), rng.randrange(2**128)]) for _ in points
    ]
    terms = list(zip(scalars, points, strict=True))
    lasting = set(points[: n // 3]) | {BASE}
    assert group.lincomb_public_few(terms, lasting) == _naive(terms)
    assert group.lincomb_public_few(terms) == _naive(terms)


@built
def test_points_in_every_form_give_the_same_sum() -> None:
    # an encoding, a form kept by decode_points and a kept table: the same sum, whatever the mix
    module = group._msm_module
    assert module is not None
    rng = random.Random(5)
    for n in (1, 4, 14):
        points = _points(rng, n)
        scalars = [rng.choice([*EDGE_SCALARS, rng.randrange(L)]) for _ in points]
        packed = b"".join(k.to_bytes(32, "little") for k in scalars)
        want = _naive(list(zip(scalars, points, strict=True)))
        for _ in range(6):
            items = [rng.choice([p, module.decode_points(p), module.public_table(p)]) for p in points]
            assert module.lincomb_public_wnaf(packed, items) == want


@built
def test_edge_cases_of_the_small_sums() -> None:
    rng = random.Random(7)
    p, q = _points(rng, 2)
    few = group.lincomb_public_few
    assert few([]) == IDENTITY
    assert few([(1, p)]) == p
    assert few([(0, p)]) == IDENTITY
    assert few([(0, p), (0, q), (0, BASE)]) == IDENTITY
    assert few([(L - 1, p)]) == group.neg(p)
    assert few([(5, p), (L - 5, p)]) == IDENTITY  # merged: nothing left
    assert few([(5, p), (L - 5, q), (5, q)], {p}) == mul(5, p)
    assert few([(L + 3, p)]) == mul(3, p)  # reduced mod L
    assert few([(1, BASE), (1, BASE)], {BASE}) == group.mul_base(2)
    assert few([(5, IDENTITY), (3, p)]) == mul(3, p)
    module = group._msm_module
    assert module is not None
    # a sum that cancels without merging (the same point given twice): the identity, zeros
    assert (
        module.lincomb_public_wnaf((5).to_bytes(32, "little") + (L - 5).to_bytes(32, "little"), [p, p])
        == IDENTITY
    )
    for k in EDGE_SCALARS:  # digits at the edges of the windows, both representatives
        for lasting in ((), {q}):
            assert few([(k, q)], lasting) == mul(k, q)
            assert few([(k, q), (k, p), (L - k, BASE)], lasting) == _naive([(k, q), (k, p), (L - k, BASE)])


def _outcome(function: Any, *args: Any) -> object:
    try:
        return function(*args)
    except (InvalidPoint, TypeError) as exc:
        return (type(exc), str(exc))


@built
@pytest.mark.parametrize("bad", _invalid_encodings())
def test_every_invalid_encoding_is_refused_as_lincomb_public_refuses_it(bad: object) -> None:
    # decode_point's own error for a point that does not decode; the identity dropped
    good = _points(random.Random(1), 3)
    for where in range(3):
        points: list[Any] = [*good]
        points.insert(where, bad)
        terms = list(zip([1, 2, 3, 4], points, strict=True))
        want = _outcome(group.lincomb_public, terms)
        if isinstance(want, tuple) and want[0] is InvalidPoint:
            with pytest.raises(InvalidPoint) as expected:
                decode_point(bad)
            assert want[1] == str(expected.value)
        lastings: list[Any] = [(), {bad}] if isinstance(bad, bytes) else [()]
        for lasting in lastings:
            assert _outcome(group.lincomb_public_few, terms, lasting) == want


@built
@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(min_value=-(2**260), max_value=2**260), st.integers(min_value=0, max_value=40)),
        max_size=60,
    )
)
def test_the_same_small_sums_with_the_extension_off_and_on(raw: list[tuple[int, int]]) -> None:
    pool = [IDENTITY, BASE, *_points(random.Random(11), 39)]
    terms = [(k, pool[i]) for k, i in raw]
    lasting = set(pool[:5])
    was = group.use_extension(False)
    try:
        off = group.lincomb_public_few(terms, lasting)
        group.use_extension(True)
        on = group.lincomb_public_few(terms, lasting)
    finally:
        group.use_extension(was)
    assert on == off == group.lincomb(terms)


def test_a_public_cards_shares_combine_as_libsodium_combines_them(backend: bool) -> None:
    rng = random.Random(3)
    for n in (1, 2, 3, 7):
        c2, *shares = _points(rng, n + 1)
        if backend:
            group.decode_points(shares[:1])  # one share kept decoded, as a received one is
        assert group.sum_public(c2, shares) == sub(c2, point_sum(shares))
    p, q = _points(rng, 2)
    assert group.sum_public(p, [p]) == IDENTITY
    assert group.sum_public(p, []) == p
    assert group.sum_public(p, [IDENTITY, q]) == sub(p, q)  # libsodium's addition takes the identity


@pytest.mark.parametrize("bad", [b for b in _invalid_encodings() if b != IDENTITY])
def test_a_refused_share_gives_libsodiums_own_result_or_error(bad: Any, backend: bool) -> None:
    p, q = _points(random.Random(4), 2)
    try:
        want: object = sub(p, point_sum([q, bad]))
    except InvalidPoint as exc:
        want = str(exc)
    try:
        got: object = group.sum_public(p, [q, bad])
    except InvalidPoint as exc:
        got = str(exc)
    assert got == want


@pytest.mark.parametrize("m", [1, 2, 5])
def test_a_batchs_hash_inputs_are_the_bytes_encode_gives(m: int) -> None:
    # the share batches' statement, coefficients and challenge put together directly: the same
    # bytes as `encode` of the statement (hence the same proofs, and the test vectors unchanged)
    rng = random.Random(m)
    key, *points = _points(rng, 1 + 3 * m + 2)
    cts = [Ciphertext(points[2 * j], points[2 * j + 1]) for j in range(m)]
    shares = points[2 * m : 3 * m]
    a, b = points[3 * m :]
    context = bytes(range(64))
    statement = dleq._batch_statement(key, cts, shares)
    encoded = dleq._encode_statement(key, cts, shares)
    assert encoded == encode(statement)
    assert dleq._coefficients(encoded, context, m) == dleq._batch_coefficients(statement, context, m)
    batch = dleq.ShareBatch(tuple(shares), dleq.BatchProof(a, b, 5))
    check = dleq.ShareCheck(key, cts, batch, context)
    assert dleq._challenge(encoded, a, b, context) == dleq.share_batch_challenge(check)
    # the weighted sum the batch check adds up is the weighted sum of `_equations`
    first, second = dleq._equations(check)
    coefs: dict[Point, int] = {}
    dleq._add_weighted(coefs, check, 3, 7)
    assert group.lincomb_public_merged(coefs) == group.lincomb(
        [(3 * k, p) for k, p in first] + [(7 * k, p) for k, p in second]
    )
    # a statement with an item that is not a 32-byte point falls back to `encode`
    odd = dleq._batch_statement(Point(key + b"\0"), cts, shares)
    assert dleq._encode_statement(Point(key + b"\0"), cts, shares) == encode(odd)


class _Seeded:
    """A seeded `RandomSource`, so that two provers draw the same nonce."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def randbelow(self, n: int, /) -> int:
        return self._rng.randrange(n)

    def token_bytes(self, n: int, /) -> bytes:
        return self._rng.randbytes(n)


@pytest.mark.parametrize("m", [1, 3])
def test_a_share_batch_is_the_same_with_the_extension_off_and_on(m: int) -> None:
    # the prover's B (one libsodium multiplication for a flip, the constant-time Straus sum for
    # several cards) and the checks (one weighted sum, alone or with others) agree bit for bit
    rng = random.Random(m)
    x = rng.randrange(1, L)
    key = group.mul_base(x)
    points = _points(rng, 2 * m)
    cts = [Ciphertext(points[2 * j], points[2 * j + 1]) for j in range(m)]
    made = []
    for on in (False, True):
        if on and group._msm_module is None:
            pytest.skip("the C extension is not built here")
        was = group.use_extension(on)
        try:
            batch = dleq.make_share_batch(x, key, cts, b"context", rng=_Seeded(m))
            dleq.verify_share_batch(key, cts, batch, b"context")
            dleq.verify_share_batches([dleq.ShareCheck(key, cts, batch, b"context")] * 2)
            with pytest.raises(dleq.InvalidProof, match="does not verify"):
                dleq.verify_share_batch(key, cts, batch, b"another context")
        finally:
            group.use_extension(was)
        made.append(batch)
    assert made[0] == made[1]
