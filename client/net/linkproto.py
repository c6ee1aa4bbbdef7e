"""Link messages: what two programs say on one TCP connection, around the session's frames.

Every link message is a msgpack map with a type ``"t"``, sent as one length-prefixed frame
(`framing`). A connection starts with a handshake that authenticates both ends by their long-term
identity keys (each signs both fresh nonces, so a recorded handshake cannot be replayed), with an
optional password proven by SPAKE2 (a PAKE: an eavesdropper learns nothing it could test password
guesses against offline; a wrong password only fails the key confirmation):

    dialer                                    listener
    hello {v, role, name, key, nonce, port, table}  ->
                                    <-  welcome {v, key, nonce, name, pake: bool, table}
    [pake {msg}]                    ->  <- [pake {msg}]            (only when a password is set)
    auth {sig, [confirm]}           ->  <- auth {sig, [confirm]}
                                    <-  accepted {...} | refused {reason}

After that: ``frame`` (a session frame), ``ping`` / ``pong`` (heartbeats), ``resend`` (after a
reconnection: "send me your frames from seq n on", which also tells the other end how much of its
own chain we hold), ``mine`` (after a restore whose file lost its tail: "send me my own frames
from seq n on"), lobby messages (``lobby``, ``start``) and
``bye``. Unknown types and malformed maps are refused and the connection closed.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

LINK_VERSION = 1
AUTH_LABEL = b"skyjo-lan/v1/link-auth"
PAKE_LABEL = b"skyjo-lan/v1/pake-confirm"

_LIMITS: dict[str, Any] = {
    "raw": False,
    "strict_map_key": True,
    "max_bin_len": 1 << 21,
    "max_str_len": 4096,
    "max_array_len": 1024,
    "max_map_len": 64,
    "max_ext_len": 0,
}


class LinkError(Exception):
    """A link message that is malformed, unexpected, or fails authentication."""


def pack(message: dict[str, Any]) -> bytes:
    return bytes(msgpack.packb(message, use_bin_type=True))


def unpack(data: bytes) -> dict[str, Any]:
    try:
        message = msgpack.unpackb(data, **_LIMITS)
    except Exception as exc:  # msgpack raises many types
        raise LinkError(f"not a link message ({type(exc).__name__})") from None
    if not isinstance(message, dict) or not isinstance(message.get("t"), str):
        raise LinkError("a link message is a map with a type")
    return message


def field(
    message: dict[str, Any], name: str, kind: type, size: int | None = None, most: int | None = None
) -> Any:
    """A checked field of a link message."""
    value = message.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise LinkError(f"{message.get('t')}.{name} must be {kind.__name__}")
    if size is not None and isinstance(value, str | bytes | list) and len(value) != size:
        raise LinkError(f"{message.get('t')}.{name} must be {size} bytes")
    if most is not None and isinstance(value, str | bytes | list) and len(value) > most:
        raise LinkError(f"{message.get('t')}.{name} is too long")
    if most is not None and isinstance(value, int) and not 0 <= value <= most:
        raise LinkError(f"{message.get('t')}.{name} is out of range")
    return value


def nonce() -> bytes:
    return secrets.token_bytes(32)


def auth_payload(
    dialer_key: bytes,
    dialer_nonce: bytes,
    listener_key: bytes,
    listener_nonce: bytes,
    table: bytes,
    pake_key: bytes,
) -> bytes:
    """What both ends sign: both identities, both fresh nonces, the table, the PAKE key's hash."""
    return hashlib.sha256(
        AUTH_LABEL
        + dialer_key
        + dialer_nonce
        + listener_key
        + listener_nonce
        + table
        + hashlib.sha256(pake_key).digest()
    ).digest()


def sign(key: Ed25519PrivateKey, payload: bytes, role: bytes) -> bytes:
    return key.sign(role + payload)


def check_signature(public: bytes, signature: bytes, payload: bytes, role: bytes) -> None:
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, role + payload)
    except (InvalidSignature, ValueError):
        raise LinkError("the peer could not prove its identity key") from None


def confirm(pake_key: bytes, payload: bytes, role: bytes) -> bytes:
    """Key confirmation for the password: only someone who ran SPAKE2 with the same password
    derives the same key, so only they can compute this MAC of the handshake."""
    return hmac.new(pake_key, PAKE_LABEL + role + payload, hashlib.sha256).digest()


@dataclass(frozen=True)
class PeerIdentity:
    """Who is at the other end of an authenticated link."""

    key: bytes
    name: str
    port: int
    host: str
