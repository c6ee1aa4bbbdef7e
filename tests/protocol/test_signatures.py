"""Frame signatures are checked by libsodium (issue 29, point 2: the fastest safe verifier
already shipped): it accepts what an honest `cryptography` signer makes and refuses the rest."""

from __future__ import annotations

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.crypto.signatures import SodiumEd25519PublicKey, identity_key
from protocol.loopback import make_table
from protocol.messages import verifiers_for


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
