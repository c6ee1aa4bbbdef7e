"""Length-prefixed frames on a trio stream: a 4-byte big-endian length, then that many bytes.

Reading is defensive: a length above the cap is refused before anything is read, and a frame
that starts but does not finish within `frame_timeout` (a stalled half frame) is an error, so a
broken or hostile peer cannot pin a reader or make it allocate.
"""

from __future__ import annotations

import struct

import trio

MAX_LINK_FRAME = (1 << 20) + 4096
"""A session frame (at most 1 MiB) plus the link message around it."""
_LENGTH = struct.Struct(">I")


class FramingError(Exception):
    """The stream does not carry well-formed frames (oversized, truncated, stalled)."""


class FrameReader:
    def __init__(
        self, stream: trio.abc.ReceiveStream, max_frame: int = MAX_LINK_FRAME, frame_timeout: float = 10.0
    ) -> None:
        self._stream = stream
        self._buffer = bytearray()
        self.max_frame = max_frame
        self.frame_timeout = frame_timeout

    async def _fill(self, size: int) -> bool:
        """Read until `size` bytes are buffered; False on a clean end of stream at a frame boundary."""
        while len(self._buffer) < size:
            chunk = await self._stream.receive_some(65536)
            if not chunk:
                if self._buffer:
                    raise FramingError(
                        f"connection closed inside a frame ({len(self._buffer)} of {size} bytes)"
                    )
                return False
            self._buffer += chunk
        return True

    async def read(self) -> bytes | None:
        """The next frame, or None when the peer closed the stream cleanly."""
        if not await self._fill(1):
            return None
        with trio.move_on_after(self.frame_timeout) as scope:
            await self._fill(_LENGTH.size)
            (length,) = _LENGTH.unpack_from(self._buffer)
            if length > self.max_frame:
                raise FramingError(f"announced frame of {length} bytes exceeds the {self.max_frame} byte cap")
            if length == 0:
                raise FramingError("empty frame")
            await self._fill(_LENGTH.size + length)
        if scope.cancelled_caught:
            raise FramingError(f"frame not completed within {self.frame_timeout} s (stalled)")
        frame = bytes(self._buffer[_LENGTH.size : _LENGTH.size + length])
        del self._buffer[: _LENGTH.size + length]
        return frame


def encode_frame(payload: bytes) -> bytes:
    if len(payload) > MAX_LINK_FRAME:
        raise FramingError(f"frame of {len(payload)} bytes exceeds the cap")
    return _LENGTH.pack(len(payload)) + payload
