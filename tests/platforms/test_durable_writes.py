"""Durable writes on macOS (client/storage.py, issue 27): fsync there does not make the drive
flush its cache, `fcntl(F_FULLFSYNC)` does. Every sync of the storage layer (the transcript before
a frame is sent, the resume file, the probe) asks for both where the platform has F_FULLFSYNC,
keeps the fsync where a file system refuses it, and is a plain fsync elsewhere. Checked with
stand-ins for `fcntl` (with and without F_FULLFSYNC) and for `os.fsync`."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from client import storage
from client.table import saved
from protocol.loopback import make_table

F_FULLFSYNC = 51  # its value on macOS


class Fcntl:
    """A stand-in for `fcntl`: records the commands, refuses them if `refuse`."""

    def __init__(self, full: bool = True, refuse: bool = False) -> None:
        if full:
            self.F_FULLFSYNC = F_FULLFSYNC
        self.refuse = refuse
        self.calls: list[tuple[str, int, int]] = []

    def fcntl(self, fd: int, command: int, arg: int = 0) -> int:
        self.calls.append(("fcntl", fd, command))
        if self.refuse:
            raise OSError(errno.ENOTSUP, "Operation not supported")
        return 0


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int, int]]:
    """Every fsync and fcntl, in order (the stand-in fcntl's list)."""
    fake = Fcntl()
    monkeypatch.setattr(storage, "_fcntl", lambda: fake)
    real = os.fsync

    def fsync(fd: int) -> None:
        fake.calls.append(("fsync", fd, 0))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return fake.calls


def test_a_mac_flushes_the_drive_after_the_fsync(calls: list[tuple[str, int, int]], tmp_path: Path) -> None:
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        storage.durable_sync(fd)
    finally:
        os.close(fd)
    assert calls == [("fsync", fd, 0), ("fcntl", fd, F_FULLFSYNC)]


def test_the_transcript_the_resume_file_and_the_probe_are_flushed(
    calls: list[tuple[str, int, int]], tmp_path: Path
) -> None:
    config, _keys = make_table("skyjo", 2)
    writer = storage.TranscriptWriter(config, tmp_path / "game.skyjo")
    calls.clear()
    writer(b"a frame")
    writer.sync()  # before a frame of ours is sent
    writer.close()
    assert [kind for kind, _fd, _command in calls] == ["fsync", "fcntl"]
    calls.clear()
    info = saved.ResumeInfo(tmp_path / "game.skyjo", b"g", 0, "127.0.0.1", 1, [])
    info.save()
    assert [(kind, command) for kind, _fd, command in calls] == [("fsync", 0), ("fcntl", F_FULLFSYNC)]
    calls.clear()
    storage.check_writable(tmp_path)
    assert [(kind, command) for kind, _fd, command in calls] == [("fsync", 0), ("fcntl", F_FULLFSYNC)]


def test_a_file_system_that_refuses_it_keeps_the_fsync(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = Fcntl(refuse=True)
    monkeypatch.setattr(storage, "_fcntl", lambda: fake)
    config, _keys = make_table("skyjo", 2)
    writer = storage.TranscriptWriter(config, tmp_path / "game.skyjo")
    writer(b"a frame")
    writer.sync()  # no SaveError: the fsync was done
    writer.close()
    assert fake.calls and all(command == F_FULLFSYNC for _kind, _fd, command in fake.calls)


@pytest.mark.parametrize("fcntl", [None, Fcntl(full=False)], ids=["windows", "linux"])
def test_elsewhere_a_plain_fsync(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fcntl: Any) -> None:
    monkeypatch.setattr(storage, "_fcntl", lambda: fcntl)
    synced: list[int] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        storage.durable_sync(fd)
    finally:
        os.close(fd)
    assert synced == [fd]
    assert fcntl is None or fcntl.calls == []
