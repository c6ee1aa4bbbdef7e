"""The saved transcript: the table's genesis and every signed frame, as one msgpack stream.

File layout (protocol/PROTOCOL.md): first a map ``{"skyjo-lan": "transcript", "v": 1,
"genesis": <genesis bytes>}``, then each frame as a msgpack byte string, in the order this peer
accepted them. Order between senders does not matter: a verifier re-derives the game's order from
each sender's hash chain, exactly as the peers did. The file is append-only; a crash loses at
most the frame being written.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator

import msgpack

from .config import TableConfig
from .errors import MalformedMessage
from .messages import MAX_FRAME

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
    if (
        not isinstance(first, dict)
        or first.get("skyjo-lan") != MAGIC
        or set(first) != {"skyjo-lan", "v", "genesis"}
    ):
        raise MalformedMessage("not a skyjo-lan transcript (bad header)")
    if first["v"] != TRANSCRIPT_VERSION or not isinstance(first["genesis"], bytes):
        raise MalformedMessage(f"unsupported transcript version {first['v']!r}")
    config = TableConfig.decode(first["genesis"])
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
