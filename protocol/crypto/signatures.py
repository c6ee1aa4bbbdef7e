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

Signing (issue 29, a flip signs five frames): `FrameSigner(key)` signs with libsodium's
`crypto_sign_ed25519_detached` (about 20 us here, against 32 us for `cryptography`'s), built once
per identity key by the session. Ed25519 signing is deterministic (RFC 8032, 5.1.6), so both give
the very same 64 bytes; without the function the signer calls `cryptography`'s key.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from protocol.crypto import group  # loads rbcl's libsodium

SIGNATURE_BYTES = 64
KEY_BYTES = 32
SECRET_KEY_BYTES = 64
"""libsodium's Ed25519 secret key: the 32-byte seed, then the public key."""


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


def _libsodium_signing() -> tuple[Callable[..., int], Callable[..., int], Callable[..., Any] | None] | None:
    """libsodium's (seed_keypair, sign_detached, memzero), or None without the first two."""
    library = getattr(sys.modules.get("rbcl._sodium"), "_sodium", None)
    keypair = getattr(library, "crypto_sign_ed25519_seed_keypair", None)
    sign = getattr(library, "crypto_sign_ed25519_detached", None)
    if keypair is None or sign is None:
        return None
    keypair.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
    keypair.restype = ctypes.c_int
    sign.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_ulonglong, ctypes.c_char_p]
    sign.restype = ctypes.c_int
    memzero = getattr(library, "sodium_memzero", None)
    if memzero is not None:
        memzero.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        memzero.restype = None
    return keypair, sign, memzero


_LOADED_BY = group.rbcl  # `group`'s import is what loads the library this module calls
_verify = _libsodium_verify()
_signing = _libsodium_signing()


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


class FrameSigner:
    """Signs with one Ed25519 identity key (see the module docstring): the same signature bytes
    as `key.sign`, by libsodium when it has the function. The 64-byte libsodium secret key lives
    only in this object's buffer (wiped when the object goes); it is never shown (`repr` names
    the public key only) and the object cannot be pickled."""

    __slots__ = ("_key", "_secret", "_sign", "public")

    def __init__(self, key: Ed25519PrivateKey, *, use_libsodium: bool = True) -> None:
        self._key = key
        self.public = key.public_key().public_bytes_raw()
        self._secret: ctypes.Array[ctypes.c_char] | None = None
        self._sign: Callable[..., int] | None = None
        if use_libsodium and _signing is not None:
            keypair, sign, _ = _signing
            public = ctypes.create_string_buffer(KEY_BYTES)
            secret = ctypes.create_string_buffer(SECRET_KEY_BYTES)
            if keypair(public, secret, key.private_bytes_raw()) == 0 and public.raw == self.public:
                self._secret, self._sign = secret, sign
            else:
                _wipe(secret)

    @property
    def libsodium(self) -> bool:
        """Whether this signer signs with libsodium (else with `cryptography`)."""
        return self._sign is not None

    def sign(self, data: bytes) -> bytes:
        """The Ed25519 signature of `data` (64 bytes)."""
        sign = self._sign
        if sign is None:
            return self._key.sign(data)
        data = bytes(data)  # (the same object for bytes)
        signature = ctypes.create_string_buffer(SIGNATURE_BYTES)
        if sign(signature, None, data, len(data), self._secret) != 0:  # pragma: no cover (never fails)
            return self._key.sign(data)
        return signature.raw

    def __repr__(self) -> str:
        return f"FrameSigner(public={self.public.hex()})"

    def __copy__(self) -> FrameSigner:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrameSigner:
        return self

    def __reduce__(self) -> Any:
        raise TypeError("a FrameSigner holds a secret key: it is not pickled")

    def __del__(self) -> None:
        secret = getattr(self, "_secret", None)
        if secret is not None:
            try:
                _wipe(secret)
            except Exception:  # (at interpreter exit the modules may be gone: nothing to do)
                return


def _wipe(buffer: ctypes.Array[ctypes.c_char]) -> None:
    memzero = _signing[2] if _signing is not None else None
    if memzero is not None:
        memzero(buffer, len(buffer))
    else:
        ctypes.memset(buffer, 0, len(buffer))
