"""The compiled multi-scalar multiplication (protocol/crypto/_msm.c) against libsodium's own
arithmetic (issue 29, point 1): random sums against the naive sum of rbcl multiplications, the
edge cases (identity terms, repeated points, zero scalars, one term, up to 600 terms), every
invalid encoding refused with `decode_point`'s own error, the same results with the extension
switched off and on, and the fallback that says once that it is missing."""

from __future__ import annotations

import logging
import random
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from client import cli
from protocol.crypto import group
from protocol.crypto.errors import InvalidPoint
from protocol.crypto.group import BASE, IDENTITY, L, add, decode_point, lincomb_public, mul

from .msm_support import naive_sum, random_points

built = pytest.mark.skipif(group._msm_module is None, reason="the C extension is not built here")
SOURCE = Path(group.__file__).with_name("_msm.c")


@pytest.fixture
def extension_on() -> object:
    was = group.use_extension(True)
    yield
    group.use_extension(was)


@built
@pytest.mark.parametrize("n", [1, 2, 3, 5, 16, 40, 97, 150, 256, 600])
def test_random_sums_equal_the_naive_sum(n: int, extension_on: object) -> None:
    rng = random.Random(n)
    points = random_points(rng, n)
    scalars = [rng.randrange(L) for _ in range(n)]
    assert group.msm_public_vartime(scalars, points) == naive_sum(list(zip(scalars, points, strict=True)))


@built
def test_edge_cases(extension_on: object) -> None:
    rng = random.Random(7)
    p, q = random_points(rng, 2)
    msm = group.msm_public_vartime
    assert msm([], []) == IDENTITY
    assert msm([1], [p]) == p
    assert msm([0], [p]) == IDENTITY
    assert msm([0, 0, 0], [p, q, BASE]) == IDENTITY
    assert msm([L - 1], [p]) == group.neg(p)
    assert msm([5, L - 5], [p, p]) == IDENTITY  # a sum that cancels: the identity, encoded as zeros
    assert msm([3, 4], [p, p]) == mul(7, p)  # a repeated point, not merged
    assert msm([2**252, 2**252 - 1], [q, q]) == mul((2**253 - 1) % L, q)
    assert msm([L + 3], [p]) == mul(3, p)  # reduced mod L
    assert msm([1, 1], [BASE, BASE]) == group.mul_base(2)
    big = [rng.randrange(L) for _ in range(30)]
    assert msm(big, [p] * 30) == mul(sum(big) % L, p)
    for k in (1, 2, 8, 9, 2**250 + 12345, L - 2):  # digits at the edges of the signed windows
        assert msm([k], [q]) == mul(k, q)
        assert msm([k] * 80, random_points(random.Random(k % 1000), 80)) == naive_sum(
            [(k, x) for x in random_points(random.Random(k % 1000), 80)]
        )


@built
def test_lincomb_public_drops_identity_terms_and_merges(extension_on: object) -> None:
    rng = random.Random(3)
    p, q = random_points(rng, 2)
    assert lincomb_public([(5, IDENTITY), (3, p)]) == mul(3, p)
    assert lincomb_public([(5, IDENTITY)]) == IDENTITY
    assert lincomb_public([(4, p), (-4, p), (2, BASE)]) == group.mul_base(2)
    assert lincomb_public([(2, p), (3, q), (4, p)]) == add(mul(6, p), mul(3, q))


def _invalid_encodings() -> list[object]:
    p = group.mul_base(12345)
    twin = bytes([*p[:31], p[31] | 0x80])  # the top-bit twin libsodium itself accepts
    field_p = (2**255 - 19).to_bytes(32, "little")
    above_p = (int.from_bytes(p, "little") + 2**255 - 19).to_bytes(32, "little")  # s + p: not reduced
    not_square = next(
        enc
        for s in range(2, 400, 2)
        if not group._is_valid_point(enc := s.to_bytes(32, "little"))  # an even s with no point
    )
    return [
        IDENTITY,
        twin,
        field_p,
        (2**255 - 18).to_bytes(32, "little"),
        (2**255 - 1).to_bytes(32, "little"),
        above_p,
        bytes([p[0] | 1, *p[1:]]),
        (1).to_bytes(32, "little"),
        not_square,
        p[:31],
        p + b"\0",
        "not bytes",
        bytearray(p),
    ]


@built
@pytest.mark.parametrize("bad", _invalid_encodings())
def test_every_invalid_encoding_is_refused_with_decode_points_error(
    bad: object, extension_on: object
) -> None:
    with pytest.raises(InvalidPoint) as expected:
        decode_point(bad)
    good = random_points(random.Random(1), 3)
    for where in range(3):
        points: list[object] = [*good]
        points.insert(where, bad)
        with pytest.raises(InvalidPoint) as refused:
            group.msm_public_vartime([1, 2, 3, 4], points)  # type: ignore[arg-type]
        assert str(refused.value) == str(expected.value)


@built
@pytest.mark.parametrize("n", [0, 1, 3, 15, 16, 40])
def test_decode_list_gives_decode_points_forms_one_by_one_or_none(n: int) -> None:
    # `decode_list` (the points of a share batch, one call) and `decode_points` (bytes joined) give
    # the same forms; any refused item (each invalid encoding, a bytes subclass, a str) gives None
    module = group._msm_module
    assert module is not None
    good = random_points(random.Random(n), n)
    forms = module.decode_list(good)
    assert b"".join(forms) == (module.decode_points(b"".join(good)) if good else b"")
    assert all(len(form) == module.DECODED_SIZE for form in forms)
    assert module.decode_list(tuple(good)) == forms

    class Subclass(bytes):
        pass

    for bad in [*_invalid_encodings(), Subclass(random_points(random.Random(2), 1)[0])]:
        for where in sorted({0, n // 2, n}):
            items: list[object] = [*good]
            items.insert(where, bad)
            assert module.decode_list(items) is None


@built
def test_the_exponentiation_of_the_decoding_agrees_with_libsodium_on_random_strings() -> None:
    # the four-lane exponentiation of the decoding (compiled twice, with and without BMI2's
    # mulx, the processor choosing): libsodium's validation of random even canonical strings
    # (about half are points) is the extension's, one at a time and four at a time, and each
    # accepted string's form encodes again to the string (through the general code)
    module = group._msm_module
    assert module is not None
    rng = random.Random(29)
    strings = [bytes([rng.randrange(256) & 0xFE, *rng.randbytes(30), rng.randrange(128)]) for _ in range(400)]
    valid = []
    for s in strings:
        try:
            decode_point(s)
            valid.append(True)
        except InvalidPoint:
            valid.append(False)
    assert 100 < sum(valid) < 300
    one = (1).to_bytes(32, "little")
    size = module.DECODED_SIZE
    for s, ok in zip(strings, valid, strict=True):
        if ok:
            assert module.lincomb_public_vartime(one, [module.decode_points(s)]) == s
        else:
            with pytest.raises(ValueError):
                module.decode_points(s)
    good = [s for s, ok in zip(strings, valid, strict=True) if ok]
    forms = module.decode_points(b"".join(good))
    assert [forms[i * size : (i + 1) * size] for i in range(len(good))] == [
        module.decode_points(s) for s in good
    ]
    for start in range(0, 400, 7):
        chunk = strings[start : start + 9]
        if all(valid[start : start + 9]):
            continue
        with pytest.raises(ValueError) as refused:
            module.decode_points(b"".join(chunk))
        assert refused.value.args == ("invalid point", valid[start : start + 9].index(False))


@built
@pytest.mark.parametrize("n", range(1, 10))
def test_points_decoded_side_by_side_are_each_its_own(n: int) -> None:
    # the extension decodes up to four points at a time, their exponentiations interleaved:
    # each form is its own point's (encoded again, it is the point), whatever its place in the
    # group of four, and the first refused point is named, whatever the others
    module = group._msm_module
    assert module is not None
    rng = random.Random(n)
    good = random_points(rng, n)
    size = module.DECODED_SIZE
    forms = module.decode_points(b"".join(good))
    one = (1).to_bytes(32, "little")
    for i, p in enumerate(good):
        form = forms[i * size : (i + 1) * size]
        assert form == module.decode_points(p)
        assert module.lincomb_public_vartime(one, [form]) == p
    bad = (2).to_bytes(32, "little")  # canonical, no ristretto255 encoding
    for first in range(n + 1):
        for second in [None, *range(first, n + 1)]:
            items = list(good)
            items.insert(first, bad)
            if second is not None:
                items.insert(second + 1, b"\xff" * 32)
            with pytest.raises(ValueError) as refused:
                module.decode_points(b"".join(items))
            assert refused.value.args == ("invalid point", first)
            assert module.decode_list(items) is None


@built
@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(min_value=-(2**260), max_value=2**260), st.integers(min_value=0, max_value=40)),
        max_size=60,
    )
)
def test_the_same_sums_with_the_extension_off_and_on(raw: list[tuple[int, int]]) -> None:
    pool = [IDENTITY, BASE, *random_points(random.Random(11), 39)]
    terms = [(k, pool[i]) for k, i in raw]
    was = group.use_extension(False)
    try:
        off = lincomb_public(terms)
        assert group.backend().startswith("pure Python")
        group.use_extension(True)
        on = lincomb_public(terms)
        assert group.backend() == "compiled multi-scalar multiplication"
    finally:
        group.use_extension(was)
    assert on == off == group.lincomb(terms)


def test_a_missing_extension_falls_back_and_says_so_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(group, "_msm", None)
    monkeypatch.setattr(group, "_msm_module", None)
    monkeypatch.setattr(group, "_missing", {"reason": "No module named 'protocol.crypto._msm'"})
    p = group.mul_base(99)
    with caplog.at_level(logging.WARNING, logger="skyjo_lan.crypto"):
        assert lincomb_public([(3, p), (4, BASE)]) == add(mul(3, p), group.mul_base(4))
        assert lincomb_public([(5, p)]) == mul(5, p)
    said = [r for r in caplog.records if "compiled multi-scalar multiplication is not built" in r.message]
    assert len(said) == 1
    assert group.backend() == "pure Python over libsodium, no compiled extension"
    with pytest.raises(RuntimeError):
        group.use_extension(True)


def test_version_names_the_backend(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(group, "_msm", None)
    monkeypatch.setattr(group, "_msm_module", None)
    with pytest.raises(SystemExit):
        cli.main(["--version"])
    assert capsys.readouterr().out.strip() == (
        f"skyjo-lan {cli.version()} (crypto: pure Python over libsodium, no compiled extension)"
    )


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler here")
def test_a_compiler_without_int128_stops_the_build_cleanly(tmp_path: Path) -> None:
    # what MSVC meets: the source stops with #error, so the optional extension is skipped
    done = subprocess.run(
        ["cc", "-fsyntax-only", "-U__SIZEOF_INT128__", f"-I{sysconfig.get_paths()['include']}", str(SOURCE)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0
    assert "needs unsigned __int128" in done.stderr


@built
def test_the_store_of_decoded_forms_drops_exactly_the_oldest(
    extension_on: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store against a model of it: the oldest forms go first, as many as the new points make
    it exceed its bound (a point it holds counted too, and keeping its place)."""
    from collections import OrderedDict

    monkeypatch.setattr(group, "DECODED_KEPT", 8)
    group._decoded.clear()
    model: OrderedDict[bytes, None] = OrderedDict()
    pool = [mul(k, BASE) for k in range(1, 15)]
    rng = random.Random(29)
    for _ in range(60):
        batch = [pool[rng.randrange(len(pool))] for _ in range(rng.choice([1, 2, 3, 5, 9, 12]))]
        group.decode_points(batch)
        kept = batch[-8:]
        excess = len(model) + len(kept) - 8
        if excess >= len(model):
            model.clear()
        else:
            for _ in range(max(excess, 0)):
                model.popitem(last=False)
        model.update(dict.fromkeys(kept))
        assert list(group._decoded) == list(model)
        assert all(
            group._decoded[p] == group._msm.decode_list([p])[0] for p in batch[-len(model) :] if p in model
        )


def _nonzero_terms_by_loop(coefs: dict[bytes, int]) -> tuple[list[int], list[bytes]]:
    scalars, points = [], []
    for p, k in coefs.items():
        if k % L:
            scalars.append(k % L)
            points.append(p)
    return scalars, points


@pytest.mark.parametrize("zeros", [0, 1, 3])
def test_the_nonzero_terms_are_those_of_the_plain_loop(zeros: int) -> None:
    rng = random.Random(zeros)
    points = [mul(k, BASE) for k in range(1, 12)]
    coefs = {p: rng.randrange(-(L**2), L**2) for p in points}
    for p in rng.sample(points, zeros):
        coefs[p] = rng.choice([0, L, -3 * L])
    assert group.nonzero_terms(coefs) == _nonzero_terms_by_loop(coefs)
    assert all(0 < k < L for k in group.nonzero_terms(coefs)[0])


@built
@pytest.mark.parametrize("zeros", [0, 2])
def test_a_merged_sum_drops_the_identity_and_the_zero_terms(extension_on: object, zeros: int) -> None:
    rng = random.Random(zeros)
    points = [mul(k, BASE) for k in range(1, 7)]
    coefs = {p: rng.randrange(-(L**2), L**2) for p in points}
    coefs[IDENTITY] = 12345
    for p in points[:zeros]:
        coefs[p] = 5 * L
    scalars, kept = _nonzero_terms_by_loop({p: k for p, k in coefs.items() if p != IDENTITY})
    expected = naive_sum(list(zip(scalars, kept, strict=True)))
    assert group.lincomb_public_merged(dict(coefs)) == expected
    assert group.lincomb_public_merged(dict(coefs), lasting={points[-1]}) == expected


def _edge_scalars() -> list[int]:
    """Scalars whose bits end at, start at or fill a window of any width: the recoding's corners."""
    out = [L - 1, L - 2, 2**252, 2**252 - 1, 2**253 - 1 - 2**252 + 2**200, 1, 2, 3]
    for c in range(2, 17):
        out += [2**c - 1, 2 ** (c - 1), 2 ** (c - 1) + 1, sum(1 << (j * c) for j in range(253 // c)) % L]
        out += [(2**c - 1) << (248 - c), ((2**c - 1) << (252 - c)) % L, (2 ** (c - 1)) << (253 - c) % L]
    return [k % L or 1 for k in out]


@built
@pytest.mark.parametrize("n", [700, 1500, 3000, 5000, 9000])
def test_large_sums_of_repeated_points_equal_the_merged_products(n: int, extension_on: object) -> None:
    """Pippenger's windows of 8 to 11 bits (the sizes of a verify's sums) against libsodium's
    products of the merged scalars: the terms are not merged by the sum, so each is recoded."""
    rng = random.Random(n)
    points = [mul(k, BASE) for k in range(3, 23)]
    edges = _edge_scalars()
    scalars = [edges[i] if i < len(edges) else rng.randrange(1, L) for i in range(n)]
    terms = [points[rng.randrange(len(points))] for _ in range(n)]
    merged: dict[bytes, int] = {}
    for k, p in zip(scalars, terms, strict=True):
        merged[p] = (merged.get(p, 0) + k) % L
    expected = naive_sum([(k, p) for p, k in merged.items() if k])
    assert group.msm_public_vartime(scalars, terms) == expected


_P = 2**255 - 19


def _widest_form(form: bytes, keep_z: bool, rng: random.Random) -> bytes:
    """The same point with limbs as wide as a kept value's may be (below 2^52): its coordinates
    times a random lambda (unless `keep_z`: Z stays 1), then in each a random choice of limbs
    moved up by 2^51 and taken from the next limb (from limb 0, times 19, for limb 4)."""
    limbs = [int.from_bytes(form[8 * i : 8 * i + 8], "little") for i in range(20)]
    values = [sum(limb << (51 * i) for i, limb in enumerate(limbs[5 * c : 5 * c + 5])) % _P for c in range(4)]
    if not keep_z:
        scale = rng.randrange(2, _P)
        values = [v * scale % _P for v in values]
    out = []
    for v in values:
        part = [(v >> (51 * i)) & (2**51 - 1) for i in range(5)]
        for i in range(5):
            if rng.random() < 0.7:
                nxt, borrow = ((i + 1) % 5, 1) if i < 4 else (0, 19)
                if part[nxt] >= borrow and part[i] < 2**51:
                    part[i] += 2**51
                    part[nxt] -= borrow
        assert sum(limb << (51 * i) for i, limb in enumerate(part)) % _P == v
        out += part
    assert max(out) < 2**52
    return b"".join(limb.to_bytes(8, "little") for limb in out)


@built
@pytest.mark.parametrize("n", [3, 40, 600, 3000])
@pytest.mark.parametrize("keep_z", [True, False])
def test_sums_of_points_with_the_widest_limbs_are_exact(n: int, keep_z: bool, extension_on: object) -> None:
    """The additions skip carries on the bounds of limbs below 2^52 (_msm.c, ge_add_cached_any):
    points whose every limb is near 2^52 still give libsodium's sum (Straus's and Pippenger's)."""
    rng = random.Random(n)
    points = [mul(rng.randrange(1, L), BASE) for _ in range(12)]
    forms = dict(zip(points, group._msm.decode_list(points), strict=True))
    wide = {p: _widest_form(form, keep_z, rng) for p, form in forms.items()}
    scalars = [rng.randrange(1, L) for _ in range(n)]
    terms = [points[i % len(points)] for i in range(n)]
    merged: dict[bytes, int] = {}
    for k, p in zip(scalars, terms, strict=True):
        merged[p] = (merged.get(p, 0) + k) % L
    expected = naive_sum([(k, p) for p, k in merged.items() if k])
    assert group.msm_public_vartime(scalars, terms, forms=forms) == expected
    assert group.msm_public_vartime(scalars, terms, forms=wide) == expected
