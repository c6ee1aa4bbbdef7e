"""The prover's constant-time path of protocol/crypto/_msm.c and the received points decoded once
(issue 29, the deal's speed): fixed-base and Straus multiplications for secret scalars equal to
libsodium's bit for bit (random scalars, zero, one, L - 1, repeated points, identity terms) and to
the pure-Python fallback; no branch or memory index on a secret scalar under valgrind (ctgrind);
`decode_points` refusing exactly what `decode_point` refuses, with its error, and a received deck
or proof giving the same error as before, extension on or off."""

from __future__ import annotations

import random
import shutil
import subprocess
import sysconfig
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from protocol.crypto import group
from protocol.crypto.elgamal import Ciphertext, deck_from_wire, deck_to_wire, joint_key
from protocol.crypto.errors import CryptoError, InvalidPoint
from protocol.crypto.group import BASE, IDENTITY, L, Point, add, decode_point, mul
from protocol.crypto.shuffle import ShuffleChainVerifier, ShuffleProof, chain_generator, shuffle
from tests.protocol.msm_support import naive_sum as _naive
from tests.protocol.msm_support import random_points as _points

from .test_msm import _invalid_encodings

built = pytest.mark.skipif(group._msm_module is None, reason="the C extension is not built here")
ROOT = Path(__file__).resolve().parents[2]
EDGE_SCALARS = [0, 1, 2, 7, 8, 9, 15, 16, 17, L - 1, L - 2, L - 8, 2**252, 2**252 - 1, (L - 1) // 2]


def test_fixed_base_multiplications_equal_libsodium(backend: bool) -> None:
    rng = random.Random(29)
    key = group.mul_base(rng.randrange(1, L))
    scalars = [*EDGE_SCALARS, *(rng.randrange(L) for _ in range(40))]
    assert group.mul_fixed_secret([BASE], [scalars]) == [group.mul_base(k) for k in scalars]
    for base in (key, chain_generator()):
        assert group.mul_fixed_secret([base], [scalars]) == [mul(k, base) for k in scalars]
    other = scalars[::-1]
    addends = _points(rng, len(scalars))
    assert group.mul_fixed_secret([BASE, key], [scalars, other], addends) == [
        _naive([(k, BASE), (j, key), (1, a)]) for k, j, a in zip(scalars, other, addends, strict=True)
    ]
    # an identity result is the identity's encoding (k G + (L - k) G)
    assert group.mul_fixed_secret([BASE, BASE], [[5, 0], [L - 5, 0]]) == [IDENTITY, IDENTITY]
    assert group.mul_fixed_secret([BASE], [[]]) == []
    with pytest.raises(ValueError):
        group.mul_fixed_secret([BASE], [[1, 2]], [BASE])


@pytest.mark.parametrize("n", [1, 2, 7, 150])
def test_secret_sums_equal_libsodium(n: int, backend: bool) -> None:
    rng = random.Random(n)
    points = _points(rng, n)
    scalars = [rng.randrange(L) for _ in range(n)]
    scalars[: len(EDGE_SCALARS)] = EDGE_SCALARS[:n]
    terms = list(zip(scalars, points, strict=True))
    assert group.lincomb_secret(terms) == _naive(terms)


def test_secret_sums_merge_repeated_points_and_drop_the_identity(backend: bool) -> None:
    rng = random.Random(3)
    p, q = _points(rng, 2)
    assert group.lincomb_secret([(3, p), (L - 3, p)]) == IDENTITY
    assert group.lincomb_secret([(3, p), (4, p), (5, q), (9, IDENTITY)]) == _naive([(7, p), (5, q)])
    assert group.lincomb_secret([(k, BASE) for k in range(1, 151)]) == group.mul_base(150 * 151 // 2)
    assert group.lincomb_secret([]) == IDENTITY
    assert group.lincomb_secret([(0, p)]) == IDENTITY
    assert group.lincomb_secret([(L - 1, BASE)]) == group.mul_base(L - 1)


@built
def test_a_shuffle_is_the_same_with_the_extension_off_and_on() -> None:
    rng = random.Random(5)
    key = joint_key(_points(rng, 3))
    deck = [Ciphertext(BASE, p) for p in _points(rng, 12)]

    class Seeded:
        def __init__(self) -> None:
            self.inner = random.Random(42)

        def randbelow(self, n: int, /) -> int:
            return self.inner.randrange(n)

        def token_bytes(self, n: int, /) -> bytes:
            return self.inner.randbytes(n)

    made = []
    for enabled in (True, False):
        was = group.use_extension(enabled)
        try:
            first = shuffle(deck, key, b"c0", rng=Seeded())
            made.append((first, shuffle(first[0], key, b"c1", rng=Seeded())))
        finally:
            group.use_extension(was)
    assert made[0] == made[1]


@built
def test_encryptions_of_zero_left_unencoded_add_like_libsodium() -> None:
    # a prepared shuffle keeps r'_i G and r'_i Y in the extension's own form and adds the deck's
    # ciphertexts to them on the turn: the sums must be libsodium's, received points (decoded
    # forms kept) and local ones (encodings) alike, and an identity sum the identity's encoding
    rng = random.Random(30)
    key = group.mul_base(rng.randrange(1, L))
    scalars = [*EDGE_SCALARS, *(rng.randrange(L) for _ in range(20))]
    local = _points(rng, len(scalars))
    received = group.decode_points(_points(rng, len(scalars)))
    for base in (BASE, key):
        forms = group.mul_fixed_secret_forms(base, scalars)
        assert forms is not None and len(forms) == len(scalars) * group._msm_module.DECODED_SIZE
        for addends in (local, received):
            assert group.add_secret_forms(forms, addends) == [
                add(mul(k, base), a) for k, a in zip(scalars, addends, strict=True)
            ]
    # the sums' forms are kept for the sums that will take them (the next seat's checks): the same
    # results from them as from the encodings
    sums = group.add_secret_forms(forms, local)
    assert all(p in group._decoded for p in sums)
    weights = [rng.randrange(L) for _ in sums]
    assert group.msm_public_vartime(weights, sums) == _naive(list(zip(weights, sums, strict=True)))
    # and the constant-time sums take kept forms as well as encodings
    assert group.lincomb_secret(list(zip(scalars, sums, strict=True))) == _naive(
        list(zip(scalars, sums, strict=True))
    )
    assert group.mul_fixed_secret([BASE], [scalars], sums) == [
        add(group.mul_base(k), a) for k, a in zip(scalars, sums, strict=True)
    ]
    cancel = group.mul_fixed_secret_forms(BASE, [5])
    assert cancel is not None
    assert group.add_secret_forms(cancel, [group.mul_base(L - 5)]) == [IDENTITY]
    assert group.add_secret_forms(group.mul_fixed_secret_forms(BASE, []) or b"", []) == []
    for bad in _invalid_encodings():
        if isinstance(bad, bytes) and len(bad) == 32:
            with pytest.raises(InvalidPoint) as expected:
                decode_point(bad)
            with pytest.raises(InvalidPoint) as refused:
                group.add_secret_forms(cancel, [Point(bad)])
            assert str(refused.value) == str(expected.value)
    was = group.use_extension(False)
    try:
        assert group.mul_fixed_secret_forms(BASE, [1]) is None  # the caller takes libsodium's path
    finally:
        group.use_extension(was)


def test_pairs_of_points_add_like_libsodium(backend: bool) -> None:
    # the public deck M_k + Y is built by `add_pairs`: libsodium's sums, kept forms or not
    rng = random.Random(31)
    a, b = _points(rng, 40), _points(rng, 40)
    expected = [add(p, q) for p, q in zip(a, b, strict=True)]
    assert group.add_pairs(a, b) == expected
    assert group.add_pairs(group.decode_points(a), b) == expected
    assert group.add_pairs([a[0]], [group.mul_base(L - 1) if a[0] == BASE else a[0]]) == [add(a[0], a[0])]
    assert group.add_pairs([BASE], [group.mul_base(L - 1)]) == [IDENTITY]
    assert group.add_pairs([], []) == []
    with pytest.raises(InvalidPoint):
        group.add_pairs([Point(b"\x01" * 32)], [BASE])


@pytest.mark.parametrize("n", [1, 2, 150])
def test_secret_scalar_vectors_equal_python_integers(n: int, backend: bool) -> None:
    # the prover's scalars (constant-time Montgomery arithmetic in the extension, libsodium's
    # calls without it): the same integers as Python's own arithmetic mod L
    rng = random.Random(n)
    a, b, c = (
        [rng.choice(EDGE_SCALARS) if rng.random() < 0.3 else rng.randrange(L) for _ in range(n)]
        for _ in "abc"
    )
    assert group.scalars_muladd(a, b, c) == [(x * y + z) % L for x, y, z in zip(a, b, c, strict=True)]
    assert group.scalars_muladd(a, b) == [x * y % L for x, y in zip(a, b, strict=True)]
    assert group.scalars_muladd(L - 1, b, c) == [((L - 1) * y + z) % L for y, z in zip(b, c, strict=True)]
    assert group.scalar_dot(a, b) == sum(x * y for x, y in zip(a, b, strict=True)) % L
    links_a, links_b = group.scalar_chain(a, b)
    x, y = 1, 0
    for k, (u, r) in enumerate(zip(a, b, strict=True)):
        x, y = u * x % L, (u * y + r) % L
        assert (links_a[k], links_b[k]) == (x, y)
    assert group.scalars_muladd(5, []) == [] and group.scalar_dot([], []) == 0
    assert group.scalar_chain([], []) == ([], [])
    with pytest.raises(ValueError):
        group.scalars_muladd([1, 2], [3])


@built
def test_the_compiled_scalar_code_refuses_unreduced_scalars() -> None:
    module = group._msm_module
    one = (1).to_bytes(32, "little")
    for bad in (L, L + 1, 2**255, 2**256 - 1):
        raw = bad.to_bytes(32, "little")
        for name, args in (
            ("sc_muladd", (raw, one, b"")),
            ("sc_muladd", (one, one, raw)),
            ("sc_dot", (one, raw)),
            ("sc_chain", (raw, one)),
        ):
            with pytest.raises(ValueError, match="reduced"):
                getattr(module, name)(*args)
    with pytest.raises(ValueError):
        module.sc_dot(one + one, one * 3)


@pytest.mark.skipif(
    shutil.which("valgrind") is None
    or shutil.which("cc") is None
    or not Path("/usr/include/valgrind/memcheck.h").exists(),
    reason="valgrind (with its headers) or a C compiler missing",
)
@pytest.mark.parametrize("flags", ["-O2 -fpeel-loops"])  # what setup.py builds with
def test_the_prover_path_has_no_branch_or_index_on_a_secret_scalar(tmp_path: Path, flags: str) -> None:
    # ctgrind (tools/ctgrind/ct_check.c): the scalars are marked undefined for memcheck, which
    # reports any branch or address computed from them; the control run (the verifier's
    # variable-time Straus) must be reported, or the check sees nothing
    binary = tmp_path / "ct_check"
    subprocess.run(
        [
            "cc",
            *flags.split(),
            "-Wno-unused-function",
            f"-I{sysconfig.get_paths()['include']}",
            str(ROOT / "tools" / "ctgrind" / "ct_check.c"),
            "-o",
            str(binary),
        ],
        check=True,
        timeout=120,
    )
    rng = random.Random(flags)
    for scalars in ([rng.randrange(L) for _ in range(3)], [0, 1, L - 1]):
        stdin = "".join(k.to_bytes(32, "little").hex() + "\n" for k in scalars)
        run = ["valgrind", "-q", "--error-exitcode=9", str(binary)]
        done = subprocess.run(run, input=stdin, capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        k0, k1, k2 = scalars
        assert done.stdout.split() == [
            "fixed1",
            group.mul_base(k0).hex(),
            "fixed2",
            group.mul_base(k0 + 2 * k1).hex(),
            "straus",
            group.mul_base(k0 + 2 * k1 + 5 * k2).hex(),
            "scalar",
            ((k0 * k1 + k2) % L).to_bytes(32, "little").hex(),
            "reduced",
            "1",
        ]
        control = subprocess.run(
            [*run, "control"], input=stdin, capture_output=True, text=True, timeout=300, check=False
        )
        assert control.returncode == 9
        assert "uninitialised value" in control.stderr


@pytest.mark.parametrize("bad", _invalid_encodings())
def test_decode_points_refuses_what_decode_point_refuses(bad: object, backend: bool) -> None:
    with pytest.raises(InvalidPoint) as expected:
        decode_point(bad)
    good = _points(random.Random(1), 3)
    for where in range(4):
        items: list[object] = [*good]
        items.insert(where, bad)
        items.append(b"\xff" * 32)  # a later bad item never hides the first one
        with pytest.raises(InvalidPoint) as refused:
            group.decode_points(items)
        assert str(refused.value) == str(expected.value)
    assert group.decode_points(good) == good


@built
def test_a_received_point_is_decoded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # the verifier's sum gets the decoded form kept by decode_points, not the encoding again
    was = group.use_extension(True)
    try:
        rng = random.Random(8)
        key = joint_key(_points(rng, 2))
        deck = [Ciphertext(BASE, p) for p in _points(rng, 6)]
        first, proof0 = shuffle(deck, key, b"c0")
        second, proof1 = shuffle(first, key, b"c1")
        received_deck = deck_from_wire(deck_to_wire(second))
        received_proof = ShuffleProof.from_wire(proof1.to_wire())
        assert group._msm_module is not None
        real: ModuleType = group._msm_module
        seen: list[int] = []

        class Spy:
            DECODED_SIZE = real.DECODED_SIZE

            def __getattr__(self, name: str) -> Any:
                return getattr(real, name)

            def lincomb_public_vartime(self, scalars: bytes, points: list[bytes]) -> bytes:
                seen.extend(len(p) for p in points)
                result: bytes = real.lincomb_public_vartime(scalars, points)
                return result

        monkeypatch.setattr(group, "_msm", Spy())
        verifier = ShuffleChainVerifier(deck, key)
        verifier.add(first, proof0, b"c0")
        verifier.add(received_deck, received_proof, b"c1")
        verifier.finish()
        received = {p for c in received_deck for p in (c.c1, c.c2)}
        received |= {*received_proof.commitments, *received_proof.chain, *received_proof.t_hat}
        assert seen.count(real.DECODED_SIZE) >= len(received)
        assert received <= set(group._decoded)  # kept (bounded) for any later sum
    finally:
        group.use_extension(was)


def _deck_error(obj: object) -> str:
    with pytest.raises(CryptoError) as refused:
        deck_from_wire(obj)
    return f"{type(refused.value).__name__}: {refused.value}"


def test_a_received_deck_is_refused_for_its_first_bad_card(backend: bool) -> None:
    rng = random.Random(2)
    points = _points(rng, 20)
    wire: list[Any] = [
        list(c)
        for c in deck_to_wire([Ciphertext(p, q) for p, q in zip(points[::2], points[1::2], strict=True)])
    ]
    twin = bytes([*wire[0][0][:31], wire[0][0][31] | 0x80])
    cases = {
        "bad point, then bad shape": [*wire[:3], [wire[3][0], IDENTITY], *wire[4:6], [wire[6][0]], *wire[7:]],
        "bad shape, then bad point": [*wire[:3], (wire[3][0],), [wire[4][0], twin], *wire[5:]],
        "second point bad": [*wire[:8], [wire[8][0], b"\x01" * 32], wire[9]],
    }
    expected = {
        "bad point, then bad shape": "InvalidPoint: the identity point is not allowed",
        "bad shape, then bad point": "MalformedData: a ciphertext is a pair (c1, c2)",
        "second point bad": "InvalidPoint: non-canonical point encoding (s is negative, i.e. odd)",
    }
    for name, obj in cases.items():
        assert _deck_error(obj) == expected[name], name


def test_a_received_proof_is_refused_for_its_first_bad_item(backend: bool) -> None:
    rng = random.Random(4)
    key = joint_key(_points(rng, 2))
    deck = [Ciphertext(BASE, p) for p in _points(rng, 5)]
    _, proof = shuffle(deck, key, b"c")
    wire = proof.to_wire()

    def refused(changes: dict[tuple[int, int | None], bytes]) -> str:
        obj: list[Any] = [list(part) if isinstance(part, list) else part for part in wire]
        for (part, index), value in changes.items():
            if index is None:
                obj[part] = value
            else:
                obj[part][index] = value
        with pytest.raises(CryptoError) as error:
            ShuffleProof.from_wire(obj)
        return f"{type(error.value).__name__}: {error.value}"

    big = (L + 1).to_bytes(32, "little")
    # t comes first on the wire, then the scalars, then c, c^ and t^: the first bad one is named
    assert refused({(7, 2): IDENTITY, (2, 1): big}) == "InvalidScalar: scalar is not reduced modulo L"
    assert refused({(0, 4): b"\x01" * 32, (2, 1): big}).startswith("InvalidPoint: non-canonical")
    assert refused({(1, None): big, (5, 0): IDENTITY}) == "InvalidScalar: scalar is not reduced modulo L"
    assert refused({(6, 3): IDENTITY}) == "InvalidPoint: the identity point is not allowed"
    assert ShuffleProof.from_wire(wire) == proof


@built
@pytest.mark.parametrize("n", [5, 300])
def test_sums_of_points_decoded_on_receipt_equal_the_naive_sum(n: int) -> None:
    was = group.use_extension(True)
    try:
        rng = random.Random(n)
        points = _points(rng, n)
        assert group.decode_points(points[::2]) == points[::2]  # kept decoded, used by the sum
        scalars = [rng.randrange(L) for _ in range(n)]
        assert group.msm_public_vartime(scalars, points) == _naive(list(zip(scalars, points, strict=True)))
    finally:
        group.use_extension(was)
