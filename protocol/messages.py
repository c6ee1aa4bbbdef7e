"""Wire messages: msgpack bodies signed with Ed25519 over their exact bytes.

A *frame* is the msgpack array ``[body, signature]``: `body` is a msgpack byte string and
`signature` is the 64-byte Ed25519 signature of exactly those bytes by the sender's identity key
(from the `TableConfig`). The body is a msgpack map with exactly these keys::

    {"v": 1, "sid": <32 bytes>, "seat": int, "seq": int, "prev": <32 bytes>, "kind": str, "data": map}

`seq` numbers the sender's frames from 0; `prev` is the SHA-256 of the sender's previous body
(for seq 0, the genesis hash of the table). So each sender's frames form a hash chain: a
replayed, reordered, dropped or truncated frame breaks it. `data` has a fixed schema per `kind`
(see `SCHEMAS`); every field is checked for type, length and range before use, and unknown fields
are refused. Cryptographic contents (points, proofs) are checked again, fully, where they are used.

protocol/PROTOCOL.md describes each kind for other implementations.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .config import PROTOCOL_VERSION, TableConfig
from .errors import BadSignature, MalformedMessage, MalformedSignedFrame

MAX_FRAME = 1 << 20
"""No frame may exceed 1 MiB (a 150-card shuffle with its proof is about 30 KiB)."""
SIGNATURE_BYTES = 64
HASH_BYTES = 32
MAX_SEQ = 1 << 40
MAX_LIST = 4096
MAX_TEXT = 500
MAX_ACKS = 256

_UNPACK_LIMITS: dict[str, Any] = {
    "raw": False,
    "strict_map_key": True,
    "max_bin_len": MAX_FRAME,
    "max_str_len": 4 * MAX_TEXT,
    "max_array_len": MAX_LIST,
    "max_map_len": 64,
    "max_ext_len": 0,
}

Check = Callable[[Any], bool]


def _bin(size: int) -> Check:
    return lambda v: isinstance(v, bytes) and len(v) == size


def _uint(limit: int) -> Check:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v < limit


def _list_of(item: Check, most: int, least: int = 0) -> Check:
    return lambda v: isinstance(v, list) and least <= len(v) <= most and all(item(x) for x in v)


def _tuple_of(*items: Check) -> Check:
    return lambda v: (
        isinstance(v, list) and len(v) == len(items) and all(c(x) for c, x in zip(items, v, strict=True))
    )


BIN32 = _bin(32)
UINT = _uint(MAX_SEQ)
SEAT = _uint(8)
PAIR = _tuple_of(BIN32, BIN32)
DECK = _list_of(PAIR, MAX_LIST, 1)


def _is_list(v: Any) -> bool:
    return isinstance(v, list) and len(v) <= MAX_LIST


def _is_map(v: Any) -> bool:
    return isinstance(v, dict) and len(v) <= 32


def _text(v: Any) -> bool:
    return isinstance(v, str) and 0 < len(v) <= MAX_TEXT


def _frame_bytes(v: Any) -> bool:
    return isinstance(v, bytes) and 0 < len(v) <= MAX_FRAME


SCHEMAS: Mapping[str, Mapping[str, Check]] = {
    # keys (the joint ElGamal key): commit first, then reveal with a proof of knowledge
    "keycommit": {"commit": BIN32},
    "key": {"key": BIN32, "proof": PAIR},
    # the deck: one shuffle per seat, in seat order
    "shuffle": {"job": UINT, "deck": DECK, "proof": _is_list},
    # reveals: this seat's decryption shares for a batch of cards, with one batched proof
    # (and, for cards some seats already know privately, shares encrypted to one recipient)
    "shares": {"job": UINT, "batch": _is_list, "private": _is_list},
    # joint random numbers: commit, then reveal
    "coincommit": {"job": UINT, "commit": BIN32},
    "coin": {"job": UINT, "reveal": PAIR},
    # a move of the game, in its dictionary form (checked by the rules core)
    "move": {"job": UINT, "move": _is_map},
    # the transcript hash every seat signs at the end of each round
    "roundsig": {"job": UINT, "round": UINT, "hash": BIN32},
    # side messages (not part of the game's order): echoes, table talk, evidence
    "echo": {"acks": _list_of(_tuple_of(SEAT, UINT, BIN32), MAX_ACKS, 1)},
    "chat": {"text": _text},
    "evidence": {"frame": _frame_bytes},
    # a recipient's proof that the private shares sent to it in `frame` do not check
    "complaint": {"frame": _frame_bytes, "key": BIN32, "proof": PAIR},
    # the sender lacks `seat`'s frames from number `from` on (an echo showed they exist)
    "want": {"seat": SEAT, "from": UINT},
    # the sender stopped the game: the seat it proved cheated (at most one) with the signed
    # frames that prove it, or the seats that stopped answering
    "halt": {
        "reason": _text,
        "culprit": _list_of(SEAT, 1),
        "absent": _list_of(SEAT, 8),
        "evidence": _list_of(_frame_bytes, 8),
    },
    # the sender leaves the table for good: the game stops for everyone, blaming nobody (a
    # later version may add fields, such as a key share with its proof, so others play on)
    "leave": {"reason": _text},
}

SIDE_KINDS = frozenset({"echo", "chat", "evidence", "complaint", "want", "halt", "leave"})
"""Kinds handled on arrival; every other kind is a step of the game, consumed in order."""

_BODY_KEYS = ("v", "sid", "seat", "seq", "prev", "kind", "data")


@dataclass(frozen=True, slots=True)
class Envelope:
    """A received or sent frame, checked: who sent it, where it sits in their chain, what it says."""

    seat: int
    seq: int
    prev: bytes
    kind: str
    data: dict[str, Any]
    body: bytes
    frame: bytes

    @property
    def digest(self) -> bytes:
        """SHA-256 of the body: what `prev` and echoes refer to."""
        return body_digest(self.body)


def body_digest(body: bytes) -> bytes:
    return hashlib.sha256(body).digest()


def encode_body(
    config: TableConfig, seat: int, seq: int, prev: bytes, kind: str, data: Mapping[str, Any]
) -> bytes:
    """The canonical body bytes (keys in a fixed order; data keys in schema order)."""
    schema = SCHEMAS[kind]
    ordered = {key: data[key] for key in schema}
    return bytes(
        msgpack.packb(
            {
                "v": PROTOCOL_VERSION,
                "sid": config.session_id,
                "seat": seat,
                "seq": seq,
                "prev": prev,
                "kind": kind,
                "data": ordered,
            },
            use_bin_type=True,
        )
    )


def seal(
    config: TableConfig,
    key: Ed25519PrivateKey,
    seat: int,
    seq: int,
    prev: bytes,
    kind: str,
    data: Mapping[str, Any],
) -> Envelope:
    """Build and sign a frame. `data` must already satisfy the kind's schema."""
    if kind not in SCHEMAS:
        raise ValueError(f"unknown message kind {kind!r}")
    body = encode_body(config, seat, seq, prev, kind, data)
    frame = msgpack.packb([body, key.sign(body)], use_bin_type=True)
    if len(frame) > MAX_FRAME:
        raise ValueError(f"a {kind} frame of {len(frame)} bytes exceeds the {MAX_FRAME} byte cap")
    # Our own frame, decoded the way a receiver decodes it (no need to check our own signature).
    decoded = _unpack(body, "body")
    return Envelope(seat, seq, prev, kind, decoded["data"], body, bytes(frame))


def open_frame(
    frame: bytes, config: TableConfig, verifiers: Mapping[int, Ed25519PublicKey] | None = None
) -> Envelope:
    """Decode, verify and check a frame. Raises `MalformedMessage` or `BadSignature`.

    The signature is checked before the contents are interpreted: a frame nobody signed is
    refused without looking further. A frame whose signature verifies but whose contents are
    malformed raises `MalformedSignedFrame` (a `MalformedMessage` naming the signer).
    """
    if not isinstance(frame, bytes | bytearray):
        raise MalformedMessage("a frame is bytes")
    if len(frame) > MAX_FRAME:
        raise MalformedMessage(f"frame of {len(frame)} bytes exceeds the {MAX_FRAME} byte cap")
    frame = bytes(frame)
    outer = _unpack(frame, "frame")
    if not (
        isinstance(outer, list)
        and len(outer) == 2
        and isinstance(outer[0], bytes)
        and isinstance(outer[1], bytes)
    ):
        raise MalformedMessage("a frame is [body, signature]")
    body, signature = outer
    if len(signature) != SIGNATURE_BYTES:
        raise MalformedMessage(f"a signature is {SIGNATURE_BYTES} bytes")
    head = _unpack(body, "body")
    if not isinstance(head, dict) or tuple(head) != _BODY_KEYS:
        raise MalformedMessage(
            f"a body is a map with exactly the keys {', '.join(_BODY_KEYS)}, in that order"
        )
    version = head["v"]
    if type(version) is not int or version != PROTOCOL_VERSION:
        raise MalformedMessage(f"protocol version {_brief(version)} is not {PROTOCOL_VERSION}")
    if head["sid"] != config.session_id:
        raise MalformedMessage("frame belongs to another session")
    seat = head["seat"]
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < config.players:
        raise MalformedMessage(f"no seat {_brief(seat)} at this table")
    if verifiers is not None and seat in verifiers:
        public = verifiers[seat]
    else:
        public = Ed25519PublicKey.from_public_bytes(config.identities[seat])
    try:
        public.verify(signature, body)
    except InvalidSignature:
        raise BadSignature(f"signature of a frame claiming seat {seat + 1} does not verify") from None
    reason = _contents_error(head)
    if reason is not None:
        raise MalformedSignedFrame(f"seat {seat + 1} signed a malformed frame: {reason}", seat, frame)
    return Envelope(seat, head["seq"], head["prev"], head["kind"], head["data"], body, frame)


def _contents_error(head: dict[str, Any]) -> str | None:
    """What is wrong with a body's fields besides v, sid and seat (None if nothing)."""
    if not UINT(head["seq"]):
        return "sequence number out of range"
    if not BIN32(head["prev"]):
        return "prev is a 32-byte hash"
    kind = head["kind"]
    schema = SCHEMAS.get(kind) if isinstance(kind, str) else None
    if schema is None:
        return f"unknown message kind {_brief(kind)}"
    data = head["data"]
    if not isinstance(data, dict) or set(data) != set(schema):
        got = sorted(map(_brief, data)) if isinstance(data, dict) else type(data).__name__
        return f"{kind} data must have exactly {sorted(schema)}, got {got}"
    for name, check in schema.items():
        if not check(data[name]):
            return f"{kind}.{name} is malformed"
    return None


def _brief(value: Any) -> str:
    """A short repr for error messages (a received value may be large)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _unpack(data: bytes, what: str) -> Any:
    try:
        return msgpack.unpackb(data, **_UNPACK_LIMITS)
    except Exception as exc:  # msgpack raises ValueError, ExtraData, FormatError, StackError...
        raise MalformedMessage(f"{what} is not valid msgpack ({type(exc).__name__})") from None


def verifiers_for(config: TableConfig) -> dict[int, Ed25519PublicKey]:
    """Each seat's identity key, parsed once."""
    return {seat: Ed25519PublicKey.from_public_bytes(key) for seat, key in enumerate(config.identities)}
