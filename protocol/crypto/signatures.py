"""Ed25519 signature checks by libsodium (`crypto_sign_ed25519_verify_detached`), issue 29.

Every frame's signature is checked on receipt and again by `verify`, `replay` and `history`; it
is 11-16 % of `verify`'s time. libsodium's check is about twice as fast here as the one of
`cryptography` (OpenSSL) used before (49 against 107 us, benchmarks/crypto_micro.py), and
libsodium is already loaded: rbcl bundles it and `group` loads it (no new dependency).

`identity_key(raw)` returns an `Ed25519PublicKey` (the `cryptography` type the rest of the code
uses) whose `verify` calls libsodium and raises `cryptography`'s `InvalidSignature` when it
refuses. libsodium is the stricter of the two (RFC 8032 verification, cofactorless, as OpenSSL;
in addition it refuses a public key or an R that is not canonical or of small order, and S >= L
as OpenSSL does): every signature an honest signer makes passes both, and every peer of this
version decides the same way on every signature. When the library lacks the function (a rbcl
built without it), `identity_key` returns `cryptography`'s own key.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from protocol.crypto import group  # loads rbcl's libsodium

SIGNATURE_BYTES = 64
KEY_BYTES = 32


def _libsodium_verify() -> Callable[[bytes, bytes, int, bytes], int] | None:
    holder = sys.modules.get("rbcl._sodium")
    library = getattr(holder, "_sodium", None)
    function = getattr(library, "crypto_sign_ed25519_verify_detached", None)
    if function is None:
        return None
    function.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulonglong, ctypes.c_char_p]
    function.restype = ctypes.c_int
    checker: Callable[[bytes, bytes, int, bytes], int] = function
    return checker


_LOADED_BY = group.rbcl  # `group`'s import is what loads the library this module calls
_verify = _libsodium_verify()


class SodiumEd25519PublicKey(Ed25519PublicKey):
    """An Ed25519 public key whose `verify` is libsodium's (see the module docstring)."""

    def __init__(self, raw: bytes) -> None:
        self._key = Ed25519PublicKey.from_public_bytes(raw)  # the same refusals as before
        self._raw = bytes(raw)

    def verify(self, signature: bytes | bytearray | memoryview, data: bytes | bytearray | memoryview) -> None:
        """Raise `InvalidSignature` unless `signature` is this key's signature of `data`."""
        assert _verify is not None
        signature, data = bytes(signature), bytes(data)
        if len(signature) != SIGNATURE_BYTES or _verify(signature, data, len(data), self._raw) != 0:
            raise InvalidSignature

    def public_bytes(self, encoding: serialization.Encoding, format: serialization.PublicFormat) -> bytes:
        """As `cryptography`'s key."""
        return self._key.public_bytes(encoding, format)

    def public_bytes_raw(self) -> bytes:
        """The 32-byte key."""
        return self._raw

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SodiumEd25519PublicKey):
            return self._raw == other._raw
        return isinstance(other, Ed25519PublicKey) and other.public_bytes_raw() == self._raw

    def __hash__(self) -> int:
        return hash(self._raw)

    def __copy__(self) -> SodiumEd25519PublicKey:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> SodiumEd25519PublicKey:
        return self


def identity_key(raw: bytes) -> Ed25519PublicKey:
    """A seat's identity key for checking its signatures (libsodium's check when available).
    Raises `ValueError` for bytes that are not an Ed25519 public key, as `cryptography` does."""
    if _verify is None:
        return Ed25519PublicKey.from_public_bytes(raw)
    return SodiumEd25519PublicKey(raw)
