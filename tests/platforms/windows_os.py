"""A stand-in for the `os` module that writes files as Windows does: a file opened without
`O_BINARY` is in text mode, where every 0x0A byte written becomes 0x0D 0x0A. Everything else is
the real `os`. A module under test gets it in place of its `os` (monkeypatch)."""

from __future__ import annotations

import os
from types import TracebackType
from typing import IO, Any

O_BINARY = 0x1000_0000
"""A bit no Linux flag uses; taken off before the real `os.open` is called."""


def _text_mode(data: bytes) -> bytes:
    return bytes(data).replace(b"\n", b"\r\n")


class _TextFile:
    """What `fdopen(fd, "wb")` gives on a text-mode descriptor: the translation still applies."""

    def __init__(self, handle: IO[bytes]) -> None:
        self._handle = handle

    def write(self, data: bytes) -> int:
        self._handle.write(_text_mode(data))
        return len(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)

    def __enter__(self) -> _TextFile:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._handle.close()


class WindowsOs:
    """`os`, with Windows' text mode for descriptors opened without `O_BINARY`."""

    O_BINARY = O_BINARY

    def __init__(self) -> None:
        self.text: dict[int, bool] = {}
        self.opened: list[int] = []
        """The flags of every `open`, in order."""

    def open(self, path: Any, flags: int, mode: int = 0o777) -> int:
        self.opened.append(flags)
        fd = os.open(path, flags & ~O_BINARY, mode)
        self.text[fd] = not flags & O_BINARY
        return fd

    def write(self, fd: int, data: Any) -> int:
        if self.text.get(fd, False):
            os.write(fd, _text_mode(data))
            return len(data)
        return os.write(fd, data)

    def fdopen(self, fd: int, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = os.fdopen(fd, mode, *args, **kwargs)
        return _TextFile(handle) if self.text.get(fd, False) and "b" in mode and "w" in mode else handle

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)
