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
from collections.abc import Callable, Iterable, Iterator
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
    stream = Records(reader(data), limit=None)
    frames = list(stream)
    return stream.config, frames, stream.truncated


CHUNK = 1 << 16
"""Bytes `Records` asks its reader for at a time."""
MAX_TRANSCRIPT = 256 << 20
"""Bytes a saved game may have (a long game of 8 players is a few MB): `Records` refuses a larger
file once its header is read, before any frame (`TooLarge`)."""
Read = Callable[[int], bytes]
"""Where `Records` reads from: a binary file's `read(n)` (at most n bytes; empty at the end)."""


class TooLarge(MalformedMessage):
    """A transcript larger than `MAX_TRANSCRIPT` (or the limit given to `Records`)."""


def reader(data: bytes) -> Read:
    """A `Read` over bytes already in memory (no copy)."""
    view = memoryview(data)
    position = 0

    def read(size: int) -> bytes:
        nonlocal position
        chunk = bytes(view[position : position + size])
        position += len(chunk)
        return chunk

    return read


class Records:
    """A transcript read as a stream, in bounded memory: its table (`config`, read at once), then
    its frames one by one (iterate), each read when asked for.

    The reader stops at the first record that proves the file is not a transcript: the first
    byte of a transcript opens a map (its header), so a file of zeros is refused after one
    byte; a record that is not a frame, or larger than any frame can be (`MAX_FRAME`), stops
    the reading there (`MalformedMessage`). At most one record and one chunk are held: memory
    does not grow with the file. `size` (the file's size, when known) is checked against
    `limit` as soon as the header is read, and the bytes read are counted against it in any
    case (`TooLarge`); `limit=None` reads any size. After the last frame, `truncated` says
    whether the file ends inside a record (a crash while writing it) and `read_bytes` how many
    bytes were read."""

    def __init__(self, read: Read, *, size: int | None = None, limit: int | None = MAX_TRANSCRIPT) -> None:
        self._read = read
        self._limit = limit
        self._unpacker = _unpacker(MAX_FRAME + CHUNK + 64)
        self._done = False
        self.read_bytes = 0
        self.records = 0
        """Frames handed out so far."""
        self.truncated = False
        self.config = self._header(size)

    def _big(self, size: int) -> TooLarge:
        return TooLarge(
            f"too large for a saved game ({size:,} bytes; a saved game has at most {self._limit:,})"
        )

    def _more(self) -> bool:
        """Feed the next chunk; False at the end of the file."""
        chunk = self._read(CHUNK)
        if not chunk:
            return False
        self._feed(chunk)
        return True

    def _feed(self, chunk: bytes) -> None:
        self.read_bytes += len(chunk)
        if self._limit is not None and self.read_bytes > self._limit:
            raise self._big(self.read_bytes)
        try:
            self._unpacker.feed(chunk)
        except msgpack.BufferFull:
            raise MalformedMessage(
                f"transcript is corrupt after {self.records} frames (a record larger than any frame)"
            ) from None

    def _next(self) -> tuple[bool, object]:
        """(True, the next record) or (False, None) at the end of the file."""
        while True:
            try:
                return True, self._unpacker.unpack()
            except msgpack.OutOfData:
                if not self._more():
                    self.truncated = self._unpacker.tell() != self.read_bytes
                    return False, None

    def _header(self, size: int | None) -> TableConfig:
        chunk = self._read(CHUNK)
        if not chunk:
            raise MalformedMessage("empty file")
        if not (0x80 <= chunk[0] <= 0x8F or chunk[0] in (0xDE, 0xDF)):
            # a header is a map: the first byte of anything else proves it is not a transcript
            raise MalformedMessage("not a skyjo-lan transcript (bad header)")
        self._feed(chunk)
        try:
            found, first = self._next()
        except MalformedMessage:
            raise
        except Exception as exc:
            raise MalformedMessage(f"not a transcript ({type(exc).__name__})") from None
        if not found:
            raise MalformedMessage("the file ends inside its header (no table saved)")
        config = _config_of(first)
        if self._limit is not None and size is not None and size > self._limit:
            raise self._big(size)
        return config

    def __iter__(self) -> Iterator[bytes]:
        while not self._done:
            try:
                found, item = self._next()
            except MalformedMessage:
                raise
            except Exception as exc:
                raise MalformedMessage(
                    f"transcript is corrupt after {self.records} frames ({type(exc).__name__})"
                ) from None
            if not found:
                self._done = True
                return
            if not isinstance(item, bytes):
                raise MalformedMessage("a transcript record is a frame (bytes)")
            self.records += 1
            yield item


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
