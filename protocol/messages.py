"""Wire messages: msgpack bodies signed with Ed25519 over their exact bytes.

A *frame* is the msgpack array ``[body, signature]``: `body` is a msgpack byte string and
`signature` is the 64-byte Ed25519 signature of exactly those bytes by the sender's identity key
(from the `TableConfig`). The body is a msgpack array of exactly eight items::

    [v, sid <32 bytes>, seat, seq, prev <32 bytes>, kind <int>, acks, data <array>]

`seq` numbers the sender's frames from 0; `prev` is the SHA-256 of the sender's previous body
(for seq 0, the genesis hash of the table). So each sender's frames form a hash chain: a
replayed, reordered, dropped or truncated frame breaks it. `kind` is the index of the message
kind in `KINDS`; `data` holds the kind's fields (see `SCHEMAS`) as an array, in schema order (an
array, not a map: the field names are the schema's, never sent); every field is checked for type,
length and range before use, and a wrong count of fields is refused. Cryptographic contents
(points, proofs) are checked again, fully, where they are used.

`acks` are the sender's acknowledgements, carried in every frame it sends: `[seat, seq, digest]`
for each other seat whose latest game frame the sender holds is newer than the one its previous
acknowledgement of that seat named, in increasing seat order (see `Session` for what they are
for). The hash chain makes an acknowledgement of frame #q cover all earlier frames of that seat.

protocol/PROTOCOL.md describes each kind for other implementations.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from typing import Any

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .config import PROTOCOL_VERSION, TableConfig
from .crypto.signatures import FrameSigner, identity_key
from .errors import BadSignature, MalformedMessage, MalformedSignedFrame

MAX_FRAME = 1 << 20
"""No frame may exceed 1 MiB (a 150-card shuffle with its proof is about 30 KiB)."""
SIGNATURE_BYTES = 64
HASH_BYTES = 32
MAX_SEQ = 1 << 40
MAX_LIST = 4096
MAX_TEXT = 500
MAX_SEATS = 8

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
ACK = _tuple_of(SEAT, UINT, BIN32)


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
    # side messages (not part of the game's order): a stand-alone acknowledgement (its acks are
    # in the body, as in every frame), table talk, evidence
    "echo": {},
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
    # the sender leaves the table for good, with its ElGamal key share x (32 bytes; checked:
    # xG is its public key share) so the others play its seat with the common bot; empty before
    # the keys were agreed (then the game stops, blaming nobody)
    "leave": {"reason": _text, "key": lambda v: isinstance(v, bytes) and len(v) in (0, 32)},
    # the sender's player is away (their own program plays their moves with its bot: autopilot)
    # or back (False); shown to every seat, part of the transcript, no effect on the game
    "away": {"away": lambda v: isinstance(v, bool)},
    # seat insurance (issue 17): the sender's key share escrowed among the other programs at the
    # keys step (Feldman VSS; `deal` is `crypto.EscrowDeal.to_wire()`)
    "escrow": {"deal": _is_list},
    # the sender votes, on its own observation (its wait for them ran past the grace period),
    # that the table play the seats of program `owner`; `held`: for each of those seats, how many
    # of its frames the sender holds and the digest of the last one (it consumes none beyond);
    # `attempt`: the vote's attempt (10.9: one withdrawal ends an attempt, the next vote opens
    # the next)
    "vacate": {"owner": SEAT, "held": _list_of(_tuple_of(SEAT, UINT, BIN32), 8, 1), "attempt": UINT},
    # a holder's partial decryptions, from its escrow share of `dealer`'s key, of the cards a
    # reveal needs of that seat (the table plays it), with one batched proof
    "partials": {"job": UINT, "dealer": SEAT, "batch": _is_list},
    # the sender's player is back after the table played its seat: it plays again from its
    # next turn once every other seat acknowledged this frame (it is acknowledged like a game frame)
    "return": {},
    # a voter that holds every vote of the attempt and no frame of the program signed after them
    # agrees that the table play it (every required voter must), or withdraws its vote (it holds
    # such a frame: the seat is there); the first of the two in its chain is its answer
    "uphold": {"owner": SEAT, "attempt": UINT},
    "withdraw": {"owner": SEAT, "attempt": UINT},
    # the sender's player stepped out (Ctrl-C, a closed program): at an insured table the others
    # vote at once to play its seats (its own signed word is their observation, 10.9), instead of
    # waiting out the grace; a frame of its program after this one refutes their votes as any
    # frame does, and `--resume` takes the seats back (`return`)
    "stepout": {},
    # removing a player (issue 30, PROTOCOL.md 10.9 "Removing a player"): the sender asks, or
    # agrees, that the table play the seats of program `owner` although it is there ("agree",
    # with `held` as a vote's: it consumes none of their frames beyond), then, holding every
    # other program's agreement, confirms it ("confirm") or takes it back / lets it expire
    # ("refuse"; `held` empty for both); decided only when every other program confirmed
    "remove": {
        "owner": SEAT,
        "attempt": UINT,
        "say": lambda v: v in ("agree", "confirm", "refuse"),
        "held": _list_of(_tuple_of(SEAT, UINT, BIN32), 8),
    },
}

SIDE_KINDS = frozenset(
    {
        "echo",
        "chat",
        "evidence",
        "complaint",
        "want",
        "halt",
        "leave",
        "away",
        "vacate",
        "return",
        "uphold",
        "withdraw",
        "stepout",
        "remove",
    }
)
"""Kinds handled on arrival; every other kind is a step of the game, consumed in order."""

KINDS: tuple[str, ...] = (
    "keycommit",
    "key",
    "shuffle",
    "shares",
    "coincommit",
    "coin",
    "move",
    "roundsig",
    "echo",
    "chat",
    "evidence",
    "complaint",
    "want",
    "halt",
    "leave",
    "away",
    "escrow",
    "vacate",
    "partials",
    "return",
    "uphold",
    "withdraw",
    "stepout",
    "remove",
)
"""The wire code of each kind is its index here (fixed: a new kind goes at the end)."""
_KIND_CODES = {kind: code for code, kind in enumerate(KINDS)}
assert set(KINDS) == set(SCHEMAS) and len(KINDS) == len(SCHEMAS)

BODY_ITEMS = 8
"""v, sid, seat, seq, prev, kind, acks, data."""

Ack = tuple[int, int, bytes]
"""(seat, seq, digest): the latest game frame the sender holds of that seat."""


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
    acks: tuple[Ack, ...] = ()
    digest: bytes = field(init=False, repr=False, compare=False)
    """SHA-256 of the body: what `prev` and acknowledgements refer to (computed once, with the
    envelope: a frame's digest is read by its chain, the acknowledgements, the transcript hash...)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "digest", body_digest(self.body))


_ENVELOPE_SLOTS = ("seat", "seq", "prev", "kind", "data", "body", "frame", "acks", "digest")
assert tuple(f.name for f in dataclass_fields(Envelope)) == _ENVELOPE_SLOTS  # `_envelope` sets each of them
_sha256 = hashlib.sha256


def body_digest(body: bytes) -> bytes:
    return _sha256(body).digest()


def encode_body(
    config: TableConfig,
    seat: int,
    seq: int,
    prev: bytes,
    kind: str,
    data: Mapping[str, Any],
    acks: Sequence[Ack] = (),
) -> bytes:
    """The canonical body bytes (data fields in schema order)."""
    schema = SCHEMAS[kind]
    return bytes(
        msgpack.packb(
            [
                PROTOCOL_VERSION,
                config.session_id,
                seat,
                seq,
                prev,
                _KIND_CODES[kind],
                [list(ack) for ack in acks],
                [data[key] for key in schema],
            ],
            use_bin_type=True,
        )
    )


def seal(
    config: TableConfig,
    key: Ed25519PrivateKey | FrameSigner,
    seat: int,
    seq: int,
    prev: bytes,
    kind: str,
    data: Mapping[str, Any],
    acks: Sequence[Ack] = (),
) -> Envelope:
    """Build and sign a frame. `data` must already satisfy the kind's schema; `acks` are in
    increasing seat order, at most one per other seat. `key` signs: the identity key or its
    `FrameSigner` (the same signature, faster: `crypto.signatures`)."""
    if kind not in SCHEMAS:
        raise ValueError(f"unknown message kind {kind!r}")
    body = encode_body(config, seat, seq, prev, kind, data, acks)
    frame = msgpack.packb([body, key.sign(body)], use_bin_type=True)
    if len(frame) > MAX_FRAME:
        raise ValueError(f"a {kind} frame of {len(frame)} bytes exceeds the {MAX_FRAME} byte cap")
    # Our own frame, decoded the way a receiver decodes it (no need to check our own signature).
    decoded = _unpack(body, "body")
    fields = dict(zip(SCHEMAS[kind], decoded[7], strict=True))
    return _envelope(seat, seq, prev, kind, fields, body, bytes(frame), tuple((s, q, d) for s, q, d in acks))


def open_frame(
    frame: bytes, config: TableConfig, verifiers: Mapping[int, Ed25519PublicKey] | None = None
) -> Envelope:
    """Decode, verify and check a frame. Raises `MalformedMessage` or `BadSignature`.

    The signature is checked before the contents are interpreted: a frame nobody signed is
    refused without looking further. A frame whose signature verifies but whose contents are
    malformed raises `MalformedSignedFrame` (a `MalformedMessage` naming the signer).
    """
    if type(frame) is not bytes:
        if not isinstance(frame, bytes | bytearray):
            raise MalformedMessage("a frame is bytes")
        frame = bytes(frame)
    if len(frame) > MAX_FRAME:
        raise MalformedMessage(f"frame of {len(frame)} bytes exceeds the {MAX_FRAME} byte cap")
    outer = _unpack(frame, "frame")
    if not (type(outer) is list and len(outer) == 2):
        raise MalformedMessage("a frame is [body, signature]")
    body, signature = outer
    if type(body) is not bytes or type(signature) is not bytes:
        raise MalformedMessage("a frame is [body, signature]")
    if len(signature) != SIGNATURE_BYTES:
        raise MalformedMessage(f"a signature is {SIGNATURE_BYTES} bytes")
    head = _unpack(body, "body")
    if not isinstance(head, list) or len(head) != BODY_ITEMS:
        raise MalformedMessage(f"a body is an array of exactly {BODY_ITEMS} items")
    version = head[0]
    if type(version) is not int or version != PROTOCOL_VERSION:
        raise MalformedMessage(f"protocol version {_brief(version)} is not {PROTOCOL_VERSION}")
    if head[1] != config.session_id:
        raise MalformedMessage("frame belongs to another session")
    seat = head[2]
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < config.players:
        raise MalformedMessage(f"no seat {_brief(seat)} at this table")
    if verifiers is not None and seat in verifiers:
        public = verifiers[seat]
    else:
        public = identity_key(config.identities[seat])
    try:
        public.verify(signature, body)
    except InvalidSignature:
        raise BadSignature(f"signature of a frame claiming seat {seat + 1} does not verify") from None
    _, _, _, seq, prev, code, acks, data = head
    opened = _exact_contents(seq, prev, code, acks, data, seat, config.players)
    if opened is None:  # not the exact types of a well-formed frame: the general check decides
        reason = _contents_error(head, config.players)
        if reason is not None:
            raise MalformedSignedFrame(f"seat {seat + 1} signed a malformed frame: {reason}", seat, frame)
        kind, fields_of, _ = _SCHEMA_BY_CODE[code]
        # (each acknowledgement was checked to be a 3-item array)
        return Envelope(
            seat,
            seq,
            prev,
            kind,
            dict(zip(fields_of, data, strict=True)),
            body,
            frame,
            tuple(map(tuple, acks)),
        )
    kind, fields, ack_tuple = opened
    return _envelope(seat, seq, prev, kind, fields, body, frame, ack_tuple)


def _exact_contents(
    seq: Any, prev: Any, code: Any, acks: Any, data: Any, sender: int, players: int
) -> tuple[str, dict[str, Any], tuple[Ack, ...]] | None:
    """(kind, fields, acknowledgements) of a body whose fields are the exact types msgpack decodes
    to and that `_contents_error` accepts; None for any other (it then decides). One pass over
    the acknowledgements checks them and builds their tuples (every frame has some)."""
    if not (type(seq) is int and 0 <= seq < MAX_SEQ and type(prev) is bytes and len(prev) == HASH_BYTES):
        return None
    if not (type(code) is int and 0 <= code < len(KINDS)) or type(acks) is not list or len(acks) >= players:
        return None
    out: list[Ack] = []
    last = -1
    for ack in acks:
        if type(ack) is not list or len(ack) != 3:
            return None
        seat, number, digest = ack
        if not (type(seat) is int and type(number) is int and type(digest) is bytes):
            return None
        if not (
            last < seat < players and seat != sender and 0 <= number < MAX_SEQ and len(digest) == HASH_BYTES
        ):
            return None
        last = seat
        out.append((seat, number, digest))
    kind, names, checks = _EXACT_BY_CODE[code]
    if type(data) is not list or len(data) != len(checks):
        return None
    for (how, check), value in zip(checks, data, strict=True):
        # (`UINT` and `_is_list` for the exact types, tested here: most fields, and a call each)
        if how == _UINT:
            if not (type(value) is int and 0 <= value < MAX_SEQ):
                return None
        elif how == _LIST:
            if not (type(value) is list and len(value) <= MAX_LIST):
                return None
        elif not check(value):
            return None
    return kind, dict(zip(names, data, strict=True)), tuple(out)


_new = object.__new__
_SET_SLOTS = tuple(Envelope.__dict__[name].__set__ for name in _ENVELOPE_SLOTS)


def _envelope(
    seat: int,
    seq: int,
    prev: bytes,
    kind: str,
    data: dict[str, Any],
    body: bytes,
    frame: bytes,
    acks: tuple[Ack, ...],
) -> Envelope:
    """`Envelope(seat, seq, prev, kind, data, body, frame, acks)`, the same object, built faster
    (a frozen dataclass's `__init__` sets each field through `object.__setattr__`): for the
    frames `open_frame` opens, every frame of a file `verify` checks."""
    envelope = _new(Envelope)
    s_seat, s_seq, s_prev, s_kind, s_data, s_body, s_frame, s_acks, s_digest = _SET_SLOTS
    s_seat(envelope, seat)
    s_seq(envelope, seq)
    s_prev(envelope, prev)
    s_kind(envelope, kind)
    s_data(envelope, data)
    s_body(envelope, body)
    s_frame(envelope, frame)
    s_acks(envelope, acks)
    s_digest(envelope, _sha256(body).digest())
    return envelope


def _exact_deck(v: Any) -> bool:
    """`DECK` for the exact types msgpack decodes to: a list of 1..MAX_LIST [32 bytes, 32 bytes]."""
    if type(v) is not list or not 0 < len(v) <= MAX_LIST:
        return False
    for pair in v:
        if type(pair) is not list or len(pair) != 2:
            return False
        a, b = pair
        if type(a) is not bytes or type(b) is not bytes or len(a) != HASH_BYTES or len(b) != HASH_BYTES:
            return False
    return True


def _deck(v: Any) -> bool:
    # the general check decides whatever the fast one does not accept: the same verdicts, and a
    # shuffle's 150-card deck checked in about a fifth of the time
    return _exact_deck(v) or DECK(v)


_FAST_CHECKS: dict[Check, Check] = {DECK: _deck}
"""Checks replaced in `_contents_error` by one with the same verdicts and a fast path."""

_SCHEMA_BY_CODE: tuple[tuple[str, tuple[str, ...], tuple[tuple[str, Check], ...]], ...] = tuple(
    (kind, tuple(SCHEMAS[kind]), tuple((name, _FAST_CHECKS.get(c, c)) for name, c in SCHEMAS[kind].items()))
    for kind in KINDS
)
"""For each kind's code: its name, its field names and its (field, check) pairs, in schema order."""

_CALL, _UINT, _LIST = 0, 1, 2
_EXACT_BY_CODE: tuple[tuple[str, tuple[str, ...], tuple[tuple[int, Check], ...]], ...] = tuple(
    (kind, names, tuple(({UINT: _UINT, _is_list: _LIST}.get(c, _CALL), c) for _, c in checks))
    for kind, names, checks in _SCHEMA_BY_CODE
)
"""`_SCHEMA_BY_CODE` for `_exact_contents`: each check tagged `_UINT` or `_LIST` when it is
`UINT` or `_is_list` (tested inline on the exact types), else `_CALL`."""


def _contents_error(head: list[Any], players: int) -> str | None:
    """What is wrong with a body's fields besides v, sid and seat (None if nothing)."""
    _, _, sender, seq, prev, code, acks, data = head
    # Each test below takes a fast path for the exact types msgpack decodes to and otherwise falls
    # back on the general check: the same verdicts for any input, less Python per frame.
    if not (type(seq) is int and 0 <= seq < MAX_SEQ) and not UINT(seq):
        return "sequence number out of range"
    if not (type(prev) is bytes and len(prev) == HASH_BYTES) and not BIN32(prev):
        return "prev is a 32-byte hash"
    if not (type(code) is int and 0 <= code < len(KINDS)) and not _uint(len(KINDS))(code):
        return f"unknown message kind {_brief(code)}"
    kind, names, checks = _SCHEMA_BY_CODE[code]
    reason = _acks_error(acks, sender, players)
    if reason is not None:
        return reason
    if not isinstance(data, list) or len(data) != len(checks):
        got = len(data) if isinstance(data, list) else type(data).__name__
        return f"{kind} data must be an array of the {len(checks)} fields {list(names)}, got {got}"
    for (name, check), value in zip(checks, data, strict=True):
        if not check(value):
            return f"{kind}.{name} is malformed"
    return None


def _acks_error(acks: Any, sender: int, players: int) -> str | None:
    """What is wrong with a body's acknowledgements (None if nothing): at most one per other seat
    of this table, in increasing seat order, each [seat, seq, 32-byte digest]."""
    if not isinstance(acks, list) or len(acks) >= players:
        return "acks is an array of at most one acknowledgement per other seat"
    last = -1
    for ack in acks:
        if type(ack) is list and len(ack) == 3:
            seat, seq, digest = ack
            fast = type(seat) is int and type(seq) is int and type(digest) is bytes
            valid = (0 <= seat < 8 and 0 <= seq < MAX_SEQ and len(digest) == HASH_BYTES) if fast else ACK(ack)
        else:
            valid = ACK(ack)
        if not valid:
            return "an acknowledgement is [seat, seq, 32-byte digest]"
        seat = ack[0]
        if not last < seat < players or seat == sender:
            return "acknowledgements name other seats of the table, each once, in increasing order"
        last = seat
    return None


def _brief(value: Any) -> str:
    """A short repr for error messages (a received value may be large)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _unpack(data: bytes, what: str) -> Any:
    """Decode msgpack within the wire's limits (keywords written out: twice per frame, a
    dictionary spread into the call cost a third of the decoding)."""
    try:
        return msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            max_bin_len=MAX_FRAME,
            max_str_len=4 * MAX_TEXT,
            max_array_len=MAX_LIST,
            max_map_len=64,  # a move's dictionary form; bodies and data are arrays
            max_ext_len=0,
        )
    except Exception as exc:  # msgpack raises ValueError, ExtraData, FormatError, StackError...
        raise MalformedMessage(f"{what} is not valid msgpack ({type(exc).__name__})") from None


def peek_kind(frame: bytes) -> str:
    """The kind of a frame, read without any check (for bookkeeping only; raises on junk)."""
    body = msgpack.unpackb(msgpack.unpackb(frame)[0])
    return str(KINDS[body[5]])


def peek_seat(frame: bytes) -> Any:
    """The seat a frame names, read without any check (None if unreadable)."""
    try:
        head = msgpack.unpackb(msgpack.unpackb(frame, raw=False)[0], raw=False)
        return head[2] if isinstance(head, list) and len(head) == BODY_ITEMS else None
    except Exception:  # damaged beyond reading
        return None


def peek_place(frame: bytes) -> tuple[int, int] | None:
    """The (seat, seq) a frame names, read without any check (None if unreadable): for counting
    only, never for trusting it."""
    try:
        head = msgpack.unpackb(msgpack.unpackb(frame, raw=False)[0], raw=False)
    except Exception:  # damaged beyond reading
        return None
    if not isinstance(head, list) or len(head) != BODY_ITEMS:
        return None
    seat, seq = head[2], head[3]
    return (seat, seq) if type(seat) is int and type(seq) is int else None


def verifiers_for(config: TableConfig) -> dict[int, Ed25519PublicKey]:
    """Each seat's identity key, parsed once (its `verify` is libsodium's: `crypto.signatures`)."""
    return {seat: identity_key(key) for seat, key in enumerate(config.identities)}
