"""Ed25519 signatures a key's holder can make but an honest signer never does (R moved by a point
of small order), for the tests of protocol version 6's signature rule and the adversary model.
libsodium's one-by-one check refuses them; the protocol's cofactored rule accepts them."""

from __future__ import annotations

import secrets

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tools.vectors.signature_section import ORDER_2, ORDER_8, L, add_points, times_base, twisted_sign

__all__ = ["ORDER_2", "ORDER_8", "L", "add_points", "sign_twisted", "times_base"]


def sign_twisted(key: Ed25519PrivateKey, message: bytes, torsion: bytes = ORDER_8) -> bytes:
    """`twisted_sign` with a fresh random nonce."""
    return twisted_sign(key, message, secrets.randbelow(L - 1) + 1, torsion)
