"""signatures.json: protocol version 6's rule for frame signatures (PROTOCOL.md 12.11), case by case.

Also the one way to make a signature an honest signer never makes but the rule accepts
(`twisted_sign`: R moved by a point of small order), used by the tests of the rule and by the
adversary model (tests/protocol/signature_support.py)."""

from __future__ import annotations

import ctypes
import hashlib
import sys
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.crypto import group, signatures
from tools.vectors.common import IDENTITY_SEEDS, STREAM_PREFIX
from tools.vectors.jsonform import hx

L = group.L
P = 2**255 - 19
ORDER_8 = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
"""A point of order 8 of edwards25519 (its encoding)."""
ORDER_2 = (P - 1).to_bytes(32, "little")
"""(0, -1), the point of order 2."""

_library: Any = sys.modules["rbcl._sodium"]._sodium  # loaded by `group`
_add = _library.crypto_core_ed25519_add
_base = _library.crypto_scalarmult_ed25519_base_noclamp
for _f in (_add, _base):
    _f.restype = ctypes.c_int


def add_points(p: bytes, q: bytes) -> bytes:
    """p + q on edwards25519 (encodings; libsodium's addition)."""
    out = ctypes.create_string_buffer(32)
    if _add(out, p, q) != 0:
        raise ValueError("not points")
    return out.raw


def times_base(k: int) -> bytes:
    """[k]B for k not a multiple of L."""
    out = ctypes.create_string_buffer(32)
    if _base(out, (k % L).to_bytes(32, "little")) != 0:
        raise ValueError("k is a multiple of L")
    return out.raw


def secret_scalar(key: Ed25519PrivateKey) -> int:
    """The signing scalar a of RFC 8032, 5.1.5: SHA-512 of the seed, its first half clamped."""
    digest = bytearray(hashlib.sha512(key.private_bytes_raw()).digest()[:32])
    digest[0] &= 248
    digest[31] &= 127
    digest[31] |= 64
    return int.from_bytes(digest, "little")


def twisted_sign(key: Ed25519PrivateKey, message: bytes, r: int, torsion: bytes = ORDER_8) -> bytes:
    """`key`'s signature of `message` with nonce `r` whose R is [r]B + `torsion`: the cofactored
    equation holds, the cofactorless one (libsodium's) does not."""
    public = key.public_key().public_bytes_raw()
    big_r = add_points(times_base(r), torsion)
    k = int.from_bytes(hashlib.sha512(big_r + public + message).digest(), "little") % L
    s = (r + k * secret_scalar(key)) % L
    return big_r + s.to_bytes(32, "little")


def _nonce(label: str) -> int:
    block = hashlib.sha512(STREAM_PREFIX + b"signatures/" + label.encode()).digest()
    return int.from_bytes(block, "big") % (L - 1) + 1


def _libsodium(key: bytes, signature: bytes, message: bytes) -> bool:
    verify = signatures._verify
    assert verify is not None, "rbcl's libsodium has crypto_sign_ed25519_verify_detached"
    return verify(signature, message, len(message), key) == 0


def signature_vector() -> dict[str, Any]:
    """signatures.json (PROTOCOL.md 15)."""
    key = Ed25519PrivateKey.from_private_bytes(IDENTITY_SEEDS[0])
    public = key.public_key().public_bytes_raw()
    message = b"skyjo-lan/v1/test-vectors/signatures/message"
    honest = key.sign(message)
    s_plus_l = int.from_bytes(honest[32:], "little") + L
    y_not_below_p = (P + 2).to_bytes(32, "little")  # y = p + 2, i.e. 2 read without reduction
    not_a_point = next(
        y.to_bytes(32, "little") for y in range(2, 100) if not _decodes(y.to_bytes(32, "little"))
    )
    cases: list[tuple[str, bytes, bytes, str]] = [
        ("honest", public, honest, "an RFC 8032 signature"),
        (
            "R + order 8",
            public,
            twisted_sign(key, message, _nonce("order8")),
            "R = [r]B + a point of order 8",
        ),
        ("R + order 2", public, twisted_sign(key, message, _nonce("order2"), ORDER_2), "R = [r]B + (0, -1)"),
        ("S + L", public, honest[:32] + s_plus_l.to_bytes(32, "little"), "S not below L"),
        ("small-order R", public, ORDER_8 + honest[32:], "R of order 8"),
        ("R's y not below p", public, y_not_below_p + honest[32:], "R's y is p + 2"),
        ("R not a point", public, not_a_point + honest[32:], "no x for R's y"),
        ("flipped bit", public, honest[:40] + bytes([honest[40] ^ 1]) + honest[41:], "S changed"),
        ("small-order key", ORDER_8, honest, "A of order 8"),
    ]
    out = []
    for name, a, signature, why in cases:
        out.append(
            {
                "case": name,
                "key": hx(a),
                "message": hx(message),
                "signature": hx(signature),
                "valid": _rule(a, signature, message),
                "libsodium": _libsodium(a, signature, message),
                "why": why,
            }
        )
    return {
        "about": (
            "PROTOCOL.md 12.11: which signatures verify (valid) under version 6's rule, and what "
            "libsodium's crypto_sign_verify_detached (cofactorless) says of each."
        ),
        "cases": out,
    }


def _rule(key: bytes, signature: bytes, message: bytes) -> bool:
    try:
        signatures.identity_key(key).verify(signature, message)
    except Exception:
        return False
    return True


def _decodes(encoding: bytes) -> bool:
    out = ctypes.create_string_buffer(32)
    return bool(_add(out, encoding, encoding) == 0)
