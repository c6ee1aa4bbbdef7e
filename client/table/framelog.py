"""The host's transcript for spectators, kept on disk rather than in memory (issue 29 point 5).

A spectator may connect at any time and is sent the whole transcript from the start, so the host
must keep every frame of the game. Kept as a list of bytes it grew by the transcript's size, about
0.33 MiB a round of four-seat SKYJO, for the whole game: most of the host's growth over a long
game (docs/performance.md, "Memory over a long game"). `FrameLog` writes each frame to an
anonymous temporary file as it comes (one unbuffered write, as the saved game does) and keeps in
memory only the newest frames (what live spectators read next) and one 8-byte offset per frame;
a catch-up reads the older frames back from the file (from the page cache, mostly).

If the temporary file cannot be made or written (no room, no /tmp), the frames are kept in
memory as before, and that is logged once: spectators still get everything. If what it held
cannot be read back either, the frames are lost: reading any raises `LostFrames` (an `OSError`),
the spectators are dropped, and the game goes on.
"""

from __future__ import annotations

import contextlib
import logging
import tempfile
from array import array
from collections import deque
from collections.abc import Sequence
from typing import IO, overload

log = logging.getLogger("skyjo_lan.watch")

RECENT_FRAMES = 256
"""Frames kept in memory besides the file: the newest, which live spectators read next (one
``frames`` message holds at most 256)."""


class LostFrames(OSError):
    """The frames asked for were lost with the temporary file (see `FrameLog`)."""


class FrameLog(Sequence[bytes]):
    """An append-only list of frames: the newest `recent` in memory, every one on disk."""

    def __init__(self, recent: int = RECENT_FRAMES) -> None:
        self.recent = max(1, recent)
        self._tail: deque[bytes] = deque(maxlen=self.recent)
        """The newest frames (also on disk)."""
        self._offsets = array("q", [0])
        """Where frame i starts in the file is `_offsets[i]`, where it ends `_offsets[i + 1]`."""
        self._file: IO[bytes] | None = None
        self._memory: list[bytes] | None = None
        """Every frame, in memory: only once the file failed."""
        self._lost: int | None = None
        """How many frames there are, once some could be neither written nor read back: then
        none is given any more (`LostFrames`), and spectators are dropped."""

    def __len__(self) -> int:
        if self._lost is not None:
            return self._lost
        if self._memory is not None:
            return len(self._memory)
        return len(self._offsets) - 1

    @property
    def lost(self) -> bool:
        """The frames were lost with the temporary file: none can be given any more."""
        return self._lost is not None

    @property
    def in_memory(self) -> int:
        """How many frames are held in memory (for tests and benchmarks)."""
        return len(self._memory) if self._memory is not None else len(self._tail)

    def append(self, frame: bytes) -> None:
        """One more frame, at the end."""
        if self._lost is not None:
            self._lost += 1
            return
        if self._memory is None:
            try:
                if self._file is None:
                    # closed by `close` (or its finalizer): it lives as long as the game
                    self._file = tempfile.TemporaryFile(prefix="skyjo-lan-watch-", buffering=0)  # noqa: SIM115
                self._file.seek(self._offsets[-1])
                view = memoryview(frame)
                while view:
                    written = self._file.write(view)
                    if not written:
                        raise OSError("nothing written")
                    view = view[written:]
            except OSError as exc:
                if not self._to_memory(exc):
                    assert self._lost is not None
                    self._lost += 1
                    return
            else:
                self._offsets.append(self._offsets[-1] + len(frame))
                self._tail.append(frame)
                return
        assert self._memory is not None
        self._memory.append(frame)

    def _to_memory(self, exc: OSError) -> bool:
        """The file failed: every frame so far is read back (or was never written) into memory.
        False if that failed too: the frames are lost (the game goes on without spectators)."""
        log.warning("spectators' transcript kept in memory: its temporary file failed (%s)", exc)
        frames: list[bytes] | None = list(self._tail) if len(self._tail) == len(self) else None
        if frames is None:
            try:
                frames = [self._read(i) for i in range(len(self))]
            except (OSError, ValueError) as again:
                log.error("spectators' transcript lost: its temporary file cannot be read (%s)", again)
                self._lost = len(self)
        self._memory = frames
        self._tail.clear()
        with contextlib.suppress(OSError):
            self.close()
        return frames is not None

    @overload
    def __getitem__(self, index: int) -> bytes: ...
    @overload
    def __getitem__(self, index: slice) -> list[bytes]: ...
    def __getitem__(self, index: int | slice) -> bytes | list[bytes]:
        if self._lost is not None:
            raise LostFrames("the spectators' transcript was lost (its temporary file failed)")
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if self._memory is not None:
            return self._memory[index]
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("frame index out of range")
        first_recent = size - len(self._tail)
        if index >= first_recent:
            return self._tail[index - first_recent]
        return self._read(index)

    def _read(self, index: int) -> bytes:
        if self._file is None:
            raise ValueError("the frames' file is closed")
        start, end = self._offsets[index], self._offsets[index + 1]
        self._file.seek(start)
        data = self._file.read(end - start)
        if len(data) != end - start:
            raise OSError(f"the spectators' transcript file is short at frame {index}")
        return data

    def close(self) -> None:
        """Remove the temporary file (the frames in it are gone: call once nobody reads)."""
        if self._file is not None:
            self._file.close()
            self._file = None
