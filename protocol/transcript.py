"""The saved transcript: the table's genesis and every signed frame, as one msgpack stream.

File layout (protocol/PROTOCOL.md): first a map ``{"skyjo-lan": "transcript", "v": 1,
"genesis": <genesis bytes>}``, then each frame as a msgpack byte string, in the order this peer
accepted them. Order between senders does not matter: a verifier re-derives the game's order from
each sender's hash chain, exactly as the peers did. The file is append-only; a crash loses at
most the frame being written, and `valid_prefix` finds where the last whole, valid record ends so
a resumed peer cuts a torn or corrupt tail off before appending.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import msgpack

from .config import TableConfig
from .errors import BadSignature, MalformedMessage
from .messages import BODY_ITEMS, MAX_FRAME, open_frame, verifiers_for

MAGIC = "transcript"
TRANSCRIPT_VERSION = 1


def transcript_start(config: TableConfig) -> bytes:
    """Global transcript hash before any message: bound to the genesis."""
    return hashlib.sha256(b"skyjo-lan/v1/transcript" + config.genesis_hash).digest()


def extend(transcript_hash: bytes, body_digest: bytes) -> bytes:
    """The transcript hash after one more game message (in the game's order)."""
    return hashlib.sha256(transcript_hash + body_digest).digest()


def header(config: TableConfig) -> bytes:
    """The first record of a transcript file."""
    return bytes(
        msgpack.packb(
            {"skyjo-lan": MAGIC, "v": TRANSCRIPT_VERSION, "genesis": config.encode()}, use_bin_type=True
        )
    )


def record(frame: bytes) -> bytes:
    """One frame as a file record."""
    return bytes(msgpack.packb(frame, use_bin_type=True))


def dump(config: TableConfig, frames: Iterable[bytes]) -> bytes:
    return header(config) + b"".join(record(f) for f in frames)


def load(data: bytes) -> tuple[TableConfig, list[bytes]]:
    """Parse a transcript file. Raises `MalformedMessage` if it is not one.

    A file whose last record is incomplete (a crash while writing it) loads up to that record;
    `load_checked` also says whether that happened."""
    config, frames, _ = load_checked(data)
    return config, frames


def load_checked(data: bytes) -> tuple[TableConfig, list[bytes], bool]:
    """Like `load`, plus True if the file ends with an incomplete record."""
    unpacker = msgpack.Unpacker(
        raw=False,
        max_buffer_size=max(len(data), 1),
        max_bin_len=MAX_FRAME,
        max_str_len=64,
        max_array_len=8,
        max_map_len=8,
        max_ext_len=0,
    )
    unpacker.feed(data)
    items: Iterator[object] = iter(unpacker)
    try:
        first = next(items)
    except StopIteration:
        raise MalformedMessage("empty file") from None
    except Exception as exc:
        raise MalformedMessage(f"not a transcript ({type(exc).__name__})") from None
    config = _config_of(first)
    frames: list[bytes] = []
    try:
        for item in items:
            if not isinstance(item, bytes):
                raise MalformedMessage("a transcript record is a frame (bytes)")
            frames.append(item)
    except MalformedMessage:
        raise
    except Exception as exc:
        raise MalformedMessage(
            f"transcript is corrupt after {len(frames)} frames ({type(exc).__name__})"
        ) from None
    return config, frames, unpacker.tell() != len(data)


@dataclass(frozen=True)
class Prefix:
    """The longest prefix of a transcript file made of whole, valid records (`valid_prefix`).

    `length` is its size in bytes and `frames` the frames it holds; `cut_bytes` and
    `cut_records` say what follows it (a torn record counts as one)."""

    config: TableConfig
    frames: list[bytes]
    length: int
    cut_bytes: int
    cut_records: int
    reason: str | None
    """Why the first cut record is not kept (None when nothing is cut)."""
    cut_seats: frozenset[int | None] = frozenset()
    """The seats that the *complete* records cut claim to be from (None: one that cannot be
    read that far). A torn last record is not among them: it was never whole, so never sent;
    a complete one may be a frame its seat already sent (see `client.table.resume`)."""


def valid_prefix(data: bytes) -> Prefix:
    """Where the last whole, valid record of a transcript file ends.

    A record is kept if it is complete, is a frame (bytes) and that frame opens: it parses, is
    of this session and its signature verifies under the genesis' identity of the seat it names.
    Everything from the first record that is not is cut: a crash mid-write leaves a torn record,
    a bad sector or a stray write a corrupt one, and anything after such a record cannot be
    trusted to be where this peer put it. Appending after a cut file leaves a file `verify`
    reads as a whole. Raises `MalformedMessage` if even the header is not a transcript's."""
    unpacker = _unpacker(len(data))
    unpacker.feed(data)
    try:
        first = unpacker.unpack()
    except msgpack.OutOfData:
        raise MalformedMessage("the file ends inside its header (no table saved)") from None
    except Exception as exc:
        raise MalformedMessage(f"not a transcript ({type(exc).__name__})") from None
    config = _config_of(first)
    keys = verifiers_for(config)
    frames: list[bytes] = []
    length = unpacker.tell()
    reason: str | None = None
    while length < len(data):
        try:
            item = unpacker.unpack()
        except msgpack.OutOfData:
            reason = "an incomplete record (a crash while writing it)"
            break
        except Exception as exc:
            reason = f"a record that is not msgpack ({type(exc).__name__})"
            break
        if not isinstance(item, bytes):
            reason = "a record that is not a frame"
            break
        try:
            open_frame(item, config, keys)
        except (MalformedMessage, BadSignature) as exc:
            reason = f"a frame that does not check ({exc.reason})"
            break
        frames.append(item)
        length = unpacker.tell()
    cut = data[length:]
    records, seats = _cut_records(cut, config.players)
    return Prefix(config, frames, length, len(cut), records, reason, seats)


def _cut_records(data: bytes, players: int) -> tuple[int, frozenset[int | None]]:
    """How many records `data` (the cut) holds, a torn or garbled end counting as one, and the
    seats its complete records claim (`Prefix.cut_seats`)."""
    unpacker = _unpacker(len(data))
    unpacker.feed(data)
    count = 0
    seats: set[int | None] = set()
    while unpacker.tell() < len(data):
        count += 1
        try:
            item = unpacker.unpack()
        except msgpack.OutOfData:  # torn: never whole, never sent
            break
        except Exception:  # garbled: whose it was cannot be told
            seats.add(None)
            break
        seats.add(_claimed_seat(item, players))
    return count, frozenset(seats)


def _claimed_seat(item: object, players: int) -> int | None:
    """The seat a (possibly damaged) frame names in its body, if that much can be read."""
    try:
        outer = msgpack.unpackb(item, raw=False) if isinstance(item, bytes) else None
        head = msgpack.unpackb(outer[0], raw=False) if isinstance(outer, list) and outer else None
        seat = head[2] if isinstance(head, list) and len(head) == BODY_ITEMS else None
    except Exception:  # damaged beyond reading
        return None
    return seat if type(seat) is int and 0 <= seat < players else None


def _unpacker(size: int) -> msgpack.Unpacker:
    return msgpack.Unpacker(
        raw=False,
        max_buffer_size=max(size, 1),
        max_bin_len=MAX_FRAME,
        max_str_len=64,
        max_array_len=8,
        max_map_len=8,
        max_ext_len=0,
    )


def _config_of(first: object) -> TableConfig:
    """The table of a transcript's header record (`MalformedMessage` if it is not one)."""
    if (
        not isinstance(first, dict)
        or first.get("skyjo-lan") != MAGIC
        or set(first) != {"skyjo-lan", "v", "genesis"}
    ):
        raise MalformedMessage("not a skyjo-lan transcript (bad header)")
    if first["v"] != TRANSCRIPT_VERSION or not isinstance(first["genesis"], bytes):
        raise MalformedMessage(f"unsupported transcript version {first['v']!r}")
    return TableConfig.decode(first["genesis"])
