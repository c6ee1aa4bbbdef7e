"""Frame signatures are checked by libsodium (issue 29, point 2: the fastest safe verifier
already shipped): it accepts what an honest `cryptography` signer makes and refuses the rest.
Frames are signed by libsodium too (`FrameSigner`): the very same signature bytes."""

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
