"""Frame signatures: which Ed25519 signatures verify (protocol version 6's rule), checked one at a
time or a whole file's at once; and frames signed by libsodium. Issue 29.

Every frame's signature is checked on receipt and again by `verify`, `replay` and `history`.
`identity_key(raw)` returns an `Ed25519PublicKey` (the `cryptography` type the rest of the code
uses) whose `verify` decides by the rule below and raises `cryptography`'s `InvalidSignature`
when it refuses. libsodium is the one rbcl bundles and `group` loads (no new dependency).

Signing (issue 29, a flip signs five frames): `FrameSigner(key)` signs with libsodium's
`crypto_sign_ed25519_detached` (about 20 us here, against 32 us for `cryptography`'s), built once
per identity key by the session. Ed25519 signing is deterministic (RFC 8032, 5.1.6), so both give
the very same 64 bytes; without the function the signer calls `cryptography`'s key.

Protocol version 6 (PROTOCOL.md 12.11; docs/crypto.md, "Signatures"): the rule is RFC 8032's
*cofactored* equation (section 5.1.7, "sufficient but not required": [8][S]B = [8]R + [8][k]A)
with libsodium's refusals of encodings (S >= L; A or R not a point, with y >= p, or of small
order). It accepts every signature libsodium accepts, plus signatures whose R differs from
[S]B - [k]A by a point of order 8 or less: only the key's holder can make those (an honest signer
never does), and they forge nothing. What it buys is that a whole file's signatures can be
checked in one sum (`SignatureBatch`, Bernstein et al. 2012, section 5) and give exactly the
decisions of checking them one at a time, which the cofactorless equation cannot promise
(Chalkias, Garillot, Nikolaenko, "Taming the many EdDSAs", 2020). One signature is checked, with
the compiled extension, by the rule itself with tables kept per key (`_msm.ed25519_check`: S and
k cut in eight 32-bit pieces, less than half the time of libsodium's check); without it, by
libsodium first (any signature it accepts holds under the rule) and, only for one it refuses, by the
cofactored equation with libsodium's point functions (`cofactored_holds`): the same decisions.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import itertools
import secrets
import sys
from collections.abc import Callable
from typing import Any, Final

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
        """Raise `InvalidSignature` unless `signature` is this key's signature of `data` under the
        protocol's rule (the module docstring): by the extension with this key's tables, else by
        libsodium's check, then the cofactored equation for a signature it refuses."""
        signature, data = bytes(signature), bytes(data)
        if len(signature) != SIGNATURE_BYTES:
            raise InvalidSignature
        if group._msm is None and _verify is not None and _verify(signature, data, len(data), self._raw) == 0:
            return  # libsodium's check first: whatever it accepts holds under the rule
        if not cofactored_holds(self._raw, signature, data):
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


def identity_key(raw: bytes) -> SodiumEd25519PublicKey:
    """A seat's identity key for checking its signatures under the protocol's rule. Raises
    `ValueError` for bytes that are not an Ed25519 public key, as `cryptography` does."""
    return SodiumEd25519PublicKey(raw)


class _CollectingKey(SodiumEd25519PublicKey):
    """A key whose `verify` puts the signature in a `SignatureBatch` instead of checking it."""

    def __init__(self, raw: bytes, batch: SignatureBatch) -> None:
        super().__init__(raw)
        self._batch = batch

    def verify(self, signature: bytes | bytearray | memoryview, data: bytes | bytearray | memoryview) -> None:
        """Collect (see `SignatureBatch.collecting`); never raises for a 64-byte signature."""
        signature = bytes(signature)
        if len(signature) != SIGNATURE_BYTES:
            raise InvalidSignature
        self._batch.add(self._raw, signature, bytes(data))


# --- the rule, one signature at a time and many in one sum -----------------------------------------

_L = group.L
_P = 2**255 - 19
_IDENTITY = (1).to_bytes(32, "little")
BATCH_SIZE = 4096
"""Signatures summed at once by `SignatureBatch.holds` (bounded memory for any file)."""


@functools.lru_cache(maxsize=64)
def _key_table(key: bytes) -> bytes | None:
    """The extension's tables of -A for checking `key`'s signatures (40 kB, built in about 0.2 ms,
    kept for the table's few keys: at most 2.6 MB for the 64 kept), or None for a key no signature
    verifies under (not a point, or of small order)."""
    extension = group._msm
    assert extension is not None
    table: bytes | None = extension.ed25519_key_table(key)
    return table


def _challenge(r: bytes, key: bytes, data: bytes) -> int:
    """k = SHA-512(R || A || M) mod L (RFC 8032, 5.1.7, step 2)."""
    return int.from_bytes(hashlib.sha512(r + key + data).digest(), "little") % _L


def cofactored_holds(key: bytes, signature: bytes, data: bytes) -> bool:
    """Whether `signature` is `key`'s signature of `data` under the protocol's rule (the module
    docstring): S < L, A and R points not of small order, [8]([S]B - R - [k]A) the identity. By
    the compiled extension when it is built, else by libsodium's point functions: the same
    decisions (tests/protocol/test_signatures.py compares them)."""
    if len(signature) != SIGNATURE_BYTES or len(key) != KEY_BYTES:
        return False
    r = signature[:32]
    s = int.from_bytes(signature[32:], "little")
    if s >= _L:
        return False
    k = _challenge(r, key, data)
    extension = group._msm
    if extension is not None:  # with this key's kept tables (`_key_table`)
        table = _key_table(key)
        holds: bool = table is not None and extension.ed25519_check(
            table, r, k.to_bytes(32, "little"), signature[32:]
        )
        return holds
    return _cofactored_by_libsodium(r, key, s, k)


def _cofactored_by_libsodium(r: bytes, key: bytes, s: int, k: int) -> bool:
    """`cofactored_holds` without the extension: [8S]B = [8]R + [k]([8]A), with libsodium's
    `crypto_core_ed25519_*` and `crypto_scalarmult_ed25519_*_noclamp` (an [8]A is in the
    prime-order group, as its multiplication requires)."""
    if _points is None:  # pragma: no cover (rbcl's libsodium has them all)
        return False
    add, multiply, multiply_base = _points
    eights = []
    for point in (r, key):
        if int.from_bytes(point, "little") & ((1 << 255) - 1) >= _P:
            return False  # y not below p
        eight = point
        for _ in range(3):
            doubled = ctypes.create_string_buffer(32)
            if add(doubled, eight, eight) != 0:
                return False  # not a point
            eight = doubled.raw
        if eight == _IDENTITY:
            return False  # of small order
        eights.append(eight)
    r8, a8 = eights
    left = ctypes.create_string_buffer(32)
    if multiply_base(left, ((8 * s) % _L).to_bytes(32, "little")) != 0:
        left.raw = _IDENTITY  # (libsodium refuses a zero result)
    ka8 = ctypes.create_string_buffer(32)
    if multiply(ka8, k.to_bytes(32, "little"), a8) != 0:
        ka8.raw = _IDENTITY  # k = 0: [8]A is of prime order, so nothing else is refused
    right = ctypes.create_string_buffer(32)
    if add(right, r8, ka8.raw) != 0:  # pragma: no cover (both are points)
        return False
    return left.raw == right.raw


def _libsodium_points() -> tuple[Callable[..., int], Callable[..., int], Callable[..., int]] | None:
    library = getattr(sys.modules.get("rbcl._sodium"), "_sodium", None)
    names = (
        "crypto_core_ed25519_add",
        "crypto_scalarmult_ed25519_noclamp",
        "crypto_scalarmult_ed25519_base_noclamp",
    )
    functions: list[Any] = [getattr(library, name, None) for name in names]
    if any(f is None for f in functions):
        return None
    add, multiply, multiply_base = functions
    add.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
    multiply.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
    multiply_base.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    for f in functions:
        f.restype = ctypes.c_int
    return add, multiply, multiply_base


_points = _libsodium_points()


class SignatureBatch:
    """Signatures checked together, for a file read whole (`protocol/verify.py`).

    `holds()` is True when every signature collected holds under the protocol's rule, False when
    at least one does not (which one: check them one by one, `SodiumEd25519PublicKey.verify`).
    With the extension: one sum per `BATCH_SIZE` signatures, sum z_i ([S_i]B - R_i - [k_i]A_i)
    times 8 with secret random z_i in [1, 2^128) drawn after the signatures are fixed
    (Bernstein et al. 2012, section 5): every signature holding makes it the identity, and one
    that does not makes it the identity with probability at most 2^-128. The keys are summed
    once each (their scalars added up). Without the extension, each signature is checked alone:
    the same decisions."""

    def __init__(self) -> None:
        self._items: list[tuple[bytes, bytes, bytes]] = []

    def __len__(self) -> int:
        return len(self._items)

    def add(self, key: bytes, signature: bytes, data: bytes) -> None:
        """Collect `key`'s `signature` of `data` (checked by `holds`)."""
        self._items.append((key, signature, data))

    def collecting(self, key: Ed25519PublicKey) -> SodiumEd25519PublicKey:
        """A stand-in for `key` whose `verify` collects into this batch instead of checking."""
        return _CollectingKey(key.public_bytes_raw(), self)

    def holds(self) -> bool:
        """Whether every signature collected holds (see the class docstring)."""
        extension = group._msm
        items = self._items
        if extension is None:
            return all(_holds_alone(*item) for item in items)
        return all(_sum_holds(extension, items[i : i + BATCH_SIZE]) for i in range(0, len(items), BATCH_SIZE))


def _holds_alone(key: bytes, signature: bytes, data: bytes) -> bool:
    try:
        identity_key(key).verify(signature, data)
    except (InvalidSignature, ValueError):
        return False
    return True


def _sum_holds(extension: Any, items: list[tuple[bytes, bytes, bytes]]) -> bool:
    """One batch's sum (`SignatureBatch`; Bernstein et al. 2012, section 5): z_i S_i summed into
    B's scalar, z_i k_i into each key's (its keys in the order first seen), R_i's scalar z_i.
    Each k_i = SHA-512(R_i || A_i || M_i) enters its key's sum unreduced: the sum is reduced once,
    the same scalar mod L as the sum of the k_i mod L (RFC 8032, 5.1.7)."""
    if not items:
        return True
    randomness = _SYSTEM_SECRETS.token_bytes(16 * len(items))
    key_sums: dict[bytes, int] = {}
    get = key_sums.get
    sha512 = hashlib.sha512
    from_bytes = int.from_bytes
    rs: list[bytes] = []
    zs: list[int] = []
    base = 0
    for (key, signature, data), at in zip(items, range(0, 16 * len(items), 16), strict=True):
        s = from_bytes(signature[32:], "little")
        if s >= _L or len(key) != KEY_BYTES:
            return False
        r = signature[:32]
        z = from_bytes(randomness[at : at + 16], "little") or 1
        key_sums[key] = get(key, 0) + z * from_bytes(sha512(r + key + data).digest(), "little")
        base += z * s
        rs.append(r)
        zs.append(z)
    points = b"".join(rs) + b"".join(key_sums)
    zs += [c % _L for c in key_sums.values()]
    scalars = b"".join(map(int.to_bytes, zs, itertools.repeat(32), group.LITTLE))
    holds: bool = extension.ed25519_cofactored_sum(points, scalars, ((-base) % _L).to_bytes(32, "little"))
    return holds


_SYSTEM_SECRETS = secrets
"""Where the batch's multipliers come from (a test may script it)."""

_SIGNATURE_BUFFER: Final = ctypes.c_char * SIGNATURE_BYTES


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
        signature = _SIGNATURE_BUFFER()  # (`create_string_buffer(SIGNATURE_BYTES)`, its type made once)
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
