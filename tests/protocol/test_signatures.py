"""Frame signatures (issue 29, point 2: the fastest safe verifier). A frame is checked by
protocol version 6's cofactored rule (PROTOCOL.md 12.11): with the compiled extension by the rule
itself with per-key tables, without it by libsodium first and, when libsodium refuses it, by the
cofactored equation; a whole file's signatures are checked at once (`SignatureBatch`, used by
`verify`): the same decisions every way. Frames are signed by libsodium too (`FrameSigner`): the
very same signature bytes."""

from __future__ import annotations

import copy
import pickle

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.crypto import signatures
from protocol.crypto.signatures import FrameSigner, SodiumEd25519PublicKey, identity_key
from protocol.loopback import make_table
from protocol.messages import open_frame, seal, verifiers_for
from protocol.session import Session


def _pair() -> tuple[Ed25519PrivateKey, bytes]:
    key = Ed25519PrivateKey.generate()
    return key, key.public_key().public_bytes_raw()


def test_libsodium_checks_what_cryptography_signs() -> None:
    key, raw = _pair()
    public = identity_key(raw)
    assert isinstance(public, SodiumEd25519PublicKey)
    assert public == key.public_key() and public.public_bytes_raw() == raw
    for message in (b"", b"frame", bytes(range(256)) * 40):
        signature = key.sign(message)
        public.verify(signature, message)
        public.verify(bytearray(signature), memoryview(message))
        with pytest.raises(InvalidSignature):
            public.verify(signature, message + b"!")
        for i in (0, 31, 32, 63):  # R and S
            bad = bytearray(signature)
            bad[i] ^= 1
            with pytest.raises(InvalidSignature):
                public.verify(bytes(bad), message)
        with pytest.raises(InvalidSignature):
            public.verify(signature[:63], message)
        with pytest.raises(InvalidSignature):
            identity_key(_pair()[1]).verify(signature, message)


def test_a_small_order_key_and_a_non_canonical_s_are_refused() -> None:
    key, raw = _pair()
    signature = key.sign(b"m")
    s = int.from_bytes(signature[32:], "little") + 2**252 + 27742317777372353535851937790883648493
    if s < 2**256:  # S + L: the same signature equation, a second encoding, refused
        with pytest.raises(InvalidSignature):
            identity_key(raw).verify(signature[:32] + s.to_bytes(32, "little"), b"m")
    small = (1).to_bytes(32, "little")  # the neutral point as a public key
    with pytest.raises(InvalidSignature):
        identity_key(small).verify(bytes(32) + bytes(32), b"m")
    with pytest.raises(ValueError):
        identity_key(b"short")


def test_the_session_checks_frames_with_it() -> None:
    config, _ = make_table("skyjo", 2)
    assert all(isinstance(k, SodiumEd25519PublicKey) for k in verifiers_for(config).values())


@settings(max_examples=60, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), message=st.binary(max_size=3000))
def test_libsodium_signs_exactly_as_cryptography(seed: bytes, message: bytes) -> None:
    key = Ed25519PrivateKey.from_private_bytes(seed)
    signer = FrameSigner(key)
    assert signer.libsodium
    assert signer.sign(message) == key.sign(message)
    assert FrameSigner(key, use_libsodium=False).sign(message) == key.sign(message)


def test_without_libsodium_signing_the_signer_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    key, raw = _pair()
    monkeypatch.setattr(signatures, "_signing", None)
    signer = FrameSigner(key)
    assert not signer.libsodium
    assert signer.sign(b"frame") == key.sign(b"frame")
    identity_key(raw).verify(signer.sign(b"frame"), b"frame")


def test_the_signer_never_shows_its_secret() -> None:
    key, raw = _pair()
    signer = FrameSigner(key)
    seed = key.private_bytes_raw()
    assert seed.hex() not in repr(signer) and raw.hex() in repr(signer)
    with pytest.raises(TypeError):
        pickle.dumps(signer)
    assert copy.deepcopy(signer) is signer and copy.copy(signer) is signer
    assert not hasattr(signer, "__dict__")  # nothing beside its slots


def test_a_session_signs_its_frames_as_seal_with_the_key_does() -> None:
    config, keys = make_table("skyjo", 2)
    session = Session(config, 0, keys[0])
    session.start()
    assert session.frames, "the session signed its first frame"
    for frame in session.frames:
        envelope = open_frame(frame, config, verifiers_for(config))
        again = seal(
            config, keys[0], 0, envelope.seq, envelope.prev, envelope.kind, envelope.data, envelope.acks
        )
        assert again.frame == frame


# --- protocol version 6: the cofactored rule, one at a time and in a batch --------------------------

import json  # noqa: E402
from pathlib import Path  # noqa: E402

from protocol.crypto import group  # noqa: E402
from protocol.crypto.signatures import SignatureBatch, cofactored_holds  # noqa: E402
from tests.protocol.signature_support import ORDER_2, ORDER_8, L, add_points, sign_twisted, times_base  # noqa: E402

VECTORS = json.loads((Path(group.__file__).parents[1] / "vectors" / "signatures.json").read_text())["cases"]


@pytest.fixture(params=["compiled", "pure"])
def extension(request: pytest.FixtureRequest) -> object:
    """Each test below runs with the compiled extension and without it (libsodium's point
    functions): the decisions must be the same."""
    if request.param == "compiled" and not group.msm_available():
        pytest.skip("the extension is not built here")
    was = group.use_extension(request.param == "compiled")
    yield request.param
    group.use_extension(was)


def _holds(raw: bytes, signature: bytes, message: bytes) -> bool:
    try:
        identity_key(raw).verify(signature, message)
    except InvalidSignature:
        return False
    return True


def test_the_signature_vectors_decide_as_stored(extension: object) -> None:
    seen = set()
    for case in VECTORS:
        key, message, signature = (bytes.fromhex(case[k]) for k in ("key", "message", "signature"))
        assert _holds(key, signature, message) is case["valid"], case["case"]
        assert cofactored_holds(key, signature, message) is case["valid"], case["case"]
        assert (signatures._verify(signature, message, len(message), key) == 0) is case["libsodium"]
        seen.add((case["valid"], case["libsodium"]))
    assert seen == {(True, True), (True, False), (False, False)}  # libsodium is never laxer
    valid, every = SignatureBatch(), SignatureBatch()
    for case in VECTORS:
        item = (bytes.fromhex(case["key"]), bytes.fromhex(case["signature"]), bytes.fromhex(case["message"]))
        every.add(*item)
        if case["valid"]:
            valid.add(*item)
    assert valid.holds() and not every.holds()


def test_a_signature_off_by_a_small_order_point_verifies_and_nothing_else_changes(extension: object) -> None:
    key, raw = _pair()
    for torsion in (ORDER_8, ORDER_2):
        twisted = sign_twisted(key, b"frame", torsion)
        assert signatures._verify(twisted, b"frame", 5, raw) != 0, "libsodium refuses it"
        identity_key(raw).verify(twisted, b"frame")  # the rule accepts it
        with pytest.raises(InvalidSignature):
            identity_key(raw).verify(twisted, b"frame!")  # for its own message only
        with pytest.raises(InvalidSignature):
            identity_key(_pair()[1]).verify(twisted, b"frame")  # and its own key only
    # nobody but the key's holder can move R: the same S with R + T no longer verifies
    honest = key.sign(b"frame")
    moved = add_points(honest[:32], ORDER_8) + honest[32:]
    with pytest.raises(InvalidSignature):
        identity_key(raw).verify(moved, b"frame")
    # a small-order key or R, S + L, R's y not below p: refused as libsodium refuses them
    s_plus_l = int.from_bytes(honest[32:], "little") + L
    for bad_raw, bad in (
        (ORDER_8, bytes(64)),
        (raw, ORDER_8 + honest[32:]),
        (raw, honest[:32] + s_plus_l.to_bytes(32, "little") if s_plus_l < 2**256 else b"x" * 64),
        (raw, (2**255 - 17).to_bytes(32, "little") + honest[32:]),
    ):
        assert not _holds(bad_raw, bad, b"frame")


def _mutations(
    key: Ed25519PrivateKey, raw: bytes, message: bytes, data: st.DataObject
) -> tuple[bytes, bytes, bytes]:
    """A signature made honestly, twisted or damaged in one of many ways (some verify, most not)."""
    how = data.draw(st.sampled_from(["honest", "twisted8", "twisted2", "bit", "r_point", "s", "key", "junk"]))
    if how == "honest":
        return raw, key.sign(message), message
    if how in ("twisted8", "twisted2"):
        return raw, sign_twisted(key, message, ORDER_8 if how == "twisted8" else ORDER_2), message
    signature = bytearray(key.sign(message))
    if how == "bit":
        i = data.draw(st.integers(0, 511))
        signature[i // 8] ^= 1 << (i % 8)
    elif how == "r_point":  # R any point [r]B + a torsion point: S no longer matches
        r = data.draw(st.integers(1, L - 1))
        t = data.draw(st.sampled_from([ORDER_8, ORDER_2]))
        signature[:32] = add_points(times_base(r), t)
    elif how == "s":
        signature[32:] = data.draw(st.integers(0, 2**256 - 1)).to_bytes(32, "little")
    elif how == "key":
        raw = data.draw(st.sampled_from([ORDER_8, ORDER_2, bytes(32), _pair()[1], bytes([0xFF] * 32)]))
    else:
        signature = bytearray(data.draw(st.binary(min_size=64, max_size=64)))
    return raw, bytes(signature), message


@settings(max_examples=150, deadline=None)
@given(data=st.data(), message=st.binary(max_size=200))
def test_the_compiled_and_the_pure_check_decide_alike(data: st.DataObject, message: bytes) -> None:
    key, raw = _pair()
    raw, signature, message = _mutations(key, raw, message, data)
    decisions = []
    for compiled in [True, False] if group.msm_available() else [False]:
        was = group.use_extension(compiled)
        try:
            decisions.append((_holds(raw, signature, message), cofactored_holds(raw, signature, message)))
        finally:
            group.use_extension(was)
    assert len(set(decisions)) == 1, decisions
    libsodium = signatures._verify(signature, message, len(message), raw) == 0
    assert decisions[0][0] == decisions[0][1] or libsodium, (
        "the rule is libsodium's check, or the cofactored one"
    )
    if libsodium:
        assert decisions[0] == (True, True), "every signature libsodium accepts holds under the rule"


@settings(max_examples=40, deadline=None)
@given(data=st.data(), size=st.integers(1, 40))
def test_a_batch_holds_exactly_when_each_signature_does(data: st.DataObject, size: int) -> None:
    keys = [_pair() for _ in range(3)]
    batch = SignatureBatch()
    alone = []
    for i in range(size):
        key, raw = keys[i % 3]
        item = _mutations(key, raw, i.to_bytes(2, "little"), data)
        batch.add(*item)
        alone.append(_holds(*item))
    assert len(batch) == size
    for compiled in [True, False] if group.msm_available() else [False]:
        was = group.use_extension(compiled)
        try:
            assert batch.holds() is all(alone)
        finally:
            group.use_extension(was)


def test_errors_that_cancel_in_a_plain_sum_do_not_in_the_batch(extension: object) -> None:
    # S_1 + 1 and S_2 - 1: the plain sum of the two equations holds, each equation fails; the
    # batch's random multipliers z_i keep them apart
    key, raw = _pair()
    first, second = key.sign(b"one"), key.sign(b"two")
    s1 = (int.from_bytes(first[32:], "little") + 1) % L
    s2 = (int.from_bytes(second[32:], "little") - 1) % L
    batch = SignatureBatch()
    batch.add(raw, first[:32] + s1.to_bytes(32, "little"), b"one")
    batch.add(raw, second[:32] + s2.to_bytes(32, "little"), b"two")
    assert not batch.holds()


def test_a_batch_is_summed_in_slices_and_draws_its_multipliers_at_the_check(
    extension: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(signatures, "BATCH_SIZE", 4)
    key, raw = _pair()
    batch = SignatureBatch()
    assert batch.holds()  # nothing to check
    for i in range(10):
        message = bytes([i])
        batch.add(raw, sign_twisted(key, message) if i % 3 else key.sign(message), message)
    drawn: list[int] = []

    class Scripted:
        @staticmethod
        def token_bytes(n: int) -> bytes:
            drawn.append(n)
            return bytes(n)  # every z_i 0: taken as 1, the sum still decides

    monkeypatch.setattr(signatures, "_SYSTEM_SECRETS", Scripted)
    assert batch.holds()
    if extension == "compiled":
        assert drawn == [64, 64, 32]  # three slices of 4, 4 and 2, drawn when checked
    batch.add(raw, key.sign(b"x"), b"y")
    assert not batch.holds()


@pytest.mark.parametrize("size", range(1, 10))
def test_a_batch_refuses_a_bad_point_in_every_place(extension: object, size: int) -> None:
    # the extension decodes the points four at a time: a refused R (y not below p, no point with
    # that y, a small-order point) or key fails the batch whatever its place among the others
    key, raw = _pair()
    signed = [(raw, key.sign(bytes([i])), bytes([i])) for i in range(size)]
    field, d = 2**255 - 19, -121665 * pow(121666, -1, 2**255 - 19)
    not_a_point = next(  # a y with no x: (y^2 - 1) / (d y^2 + 1) is not a square
        y.to_bytes(32, "little")
        for y in range(2, 100)
        if pow((y * y - 1) * pow(d * y * y + 1, -1, field) % field, (field - 1) // 2, field) == field - 1
    )
    for where in range(size):
        for bad in ((2**255 - 17).to_bytes(32, "little"), not_a_point, ORDER_8):
            batch = SignatureBatch()
            for i, (k, signature, message) in enumerate(signed):
                batch.add(k, bad + signature[32:] if i == where else signature, message)
            assert not batch.holds()
        batch = SignatureBatch()
        for i, (k, signature, message) in enumerate(signed):
            batch.add(bytes([0xFF] * 32) if i == where else k, signature, message)
        assert not batch.holds()
    batch = SignatureBatch()
    for item in signed:
        batch.add(*item)
    assert batch.holds()


def _former_sum_inputs(
    items: list[tuple[bytes, bytes, bytes]], randomness: bytes
) -> tuple[bytes, bytes, bytes]:
    """The sum's inputs as `_sum_holds` first put them together: each k_i reduced at once."""
    import hashlib

    key_index: dict[bytes, int] = {}
    key_scalars: list[int] = []
    rs, zs, base = [], [], 0
    for i, (key, signature, data) in enumerate(items):
        s = int.from_bytes(signature[32:], "little")
        r = signature[:32]
        z = int.from_bytes(randomness[16 * i : 16 * i + 16], "little") or 1
        j = key_index.setdefault(key, len(key_scalars))
        if j == len(key_scalars):
            key_scalars.append(0)
        k = int.from_bytes(hashlib.sha512(r + key + data).digest(), "little") % L
        key_scalars[j] += z * k
        base += z * s
        rs.append(r)
        zs.append(z.to_bytes(32, "little"))
    points = b"".join(rs) + b"".join(key_index)
    scalars = b"".join(zs) + b"".join((c % L).to_bytes(32, "little") for c in key_scalars)
    return points, scalars, ((-base) % L).to_bytes(32, "little")


@pytest.mark.parametrize("zero_at", [None, 0, 5])
def test_the_batch_sum_gets_the_inputs_of_reducing_each_challenge(
    monkeypatch: pytest.MonkeyPatch, zero_at: int | None
) -> None:
    pairs = [_pair() for _ in range(3)]
    items = []
    for i in range(11):
        key, raw = pairs[i % 3 if i % 4 else 0]
        message = bytes([i]) * (i + 1)
        items.append((raw, key.sign(message), message))
    randomness = bytes(range(256))[: 16 * len(items)]
    if zero_at is not None:  # a z_i drawn zero, taken as 1
        randomness = randomness[: 16 * zero_at] + bytes(16) + randomness[16 * zero_at + 16 :]

    class Scripted:
        @staticmethod
        def token_bytes(n: int) -> bytes:
            assert n == len(randomness)
            return randomness

    seen: list[tuple[bytes, bytes, bytes]] = []

    class Recording:
        @staticmethod
        def ed25519_cofactored_sum(points: bytes, scalars: bytes, base: bytes) -> bool:
            seen.append((points, scalars, base))
            return True

    monkeypatch.setattr(signatures, "_SYSTEM_SECRETS", Scripted)
    assert signatures._sum_holds(Recording, items)
    assert seen == [_former_sum_inputs(items, randomness)]


def _boundary_scalars() -> list[int]:
    """Scalars below 2^253 whose wNAF digits sit on every edge of the check's eight 32-bit pieces
    (a digit at 32j - 1 or 32j, a carry crossing into the next piece) and at the top."""
    out = {1, 2, L - 1, L - 2, 2**253 - 1, 2**252, (2**253 - 1) // 3}
    for j in range(1, 8):
        edge = 32 * j
        out |= {2**edge, 2**edge - 1, 2 ** (edge - 1), 2**edge + 1, (2 ** (edge + 7) - 1) << 1}
    return sorted(k for k in out if 0 < k < 2**253)


@pytest.mark.skipif(not group.msm_available(), reason="the extension is not built here")
def test_the_split_check_holds_for_scalars_on_every_piece_edge() -> None:
    """`_msm.ed25519_check` sums S and k in eight pieces: with S and k chosen on the pieces' edges
    (not drawn by a hash, as in an honest signature), [S]B - [k]A is still R exactly. R is made
    as [S - k a]B from the key's scalar a; R moved by B, or S by one, is refused."""
    extension = group._msm
    assert extension is not None
    a = 0x1234_5678_9ABC_DEF0_0FED_CBA9_8765_4321_1357_9BDF_2468_ACE0 % L
    key = times_base(a)
    table = extension.ed25519_key_table(key)
    assert table is not None
    base = times_base(1)
    scalars = _boundary_scalars()
    checked = 0
    for s in scalars:
        for k in scalars:
            if s >= L or (s - k * a) % L == 0:
                continue  # S must be reduced; R would be the identity (refused: of small order)
            r = times_base(s - k * a)
            k_bytes, s_bytes = k.to_bytes(32, "little"), s.to_bytes(32, "little")
            assert extension.ed25519_check(table, r, k_bytes, s_bytes), (hex(s), hex(k))
            assert not extension.ed25519_check(table, add_points(r, base), k_bytes, s_bytes)
            if s + 1 < L:
                assert not extension.ed25519_check(table, r, k_bytes, (s + 1).to_bytes(32, "little"))
            checked += 1
    assert checked > 1000
