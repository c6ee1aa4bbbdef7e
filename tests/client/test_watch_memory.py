"""Issue 29, point 5: the host keeps the transcript for spectators on disk, not in memory.

Before, `Spectators.frames` was a list of every frame of the game: the host's memory grew by the
size of the transcript (about 0.3 MiB a round), for the whole game. Now the frames go to a
temporary file (`client.table.framelog.FrameLog`); memory holds the newest ones only, and a
spectator catching up from the start still gets every frame, in order.
"""

from __future__ import annotations

import tempfile
import tracemalloc
from typing import Any

import pytest
import trio
import trio.testing

from client.net.framing import FrameReader, encode_frame
from client.net.link import Link
from client.net.linkproto import PeerIdentity, unpack
from client.table import framelog
from client.table.framelog import FrameLog
from client.table.spectators import Spectators


def frame(i: int, size: int = 300) -> bytes:
    return i.to_bytes(4, "big") * (size // 4) + bytes([i % 251]) * (i % 7)


def test_frames_come_back_in_order_and_memory_holds_only_the_newest() -> None:
    frames = FrameLog(recent=8)
    for i in range(200):
        frames.append(frame(i))
        if i % 37 == 0:  # a read of an old frame between writes does not disturb the next write
            assert frames[i // 2] == frame(i // 2)
    assert len(frames) == 200 and frames.in_memory == 8
    assert list(frames) == [frame(i) for i in range(200)]
    assert frames[-1] == frame(199) and frames[3:6] == [frame(3), frame(4), frame(5)]
    with pytest.raises(IndexError):
        frames[200]
    frames.close()


def test_the_hub_memory_does_not_grow_with_the_transcript() -> None:
    """4,000 frames of 1 KiB (a long game's transcript is about ten times that): the hub's memory
    grows by far less than their size. Fails on the list the hub kept before."""
    hub = Spectators()
    hub.begin(b"g", b"s" * 64)
    hub.append(frame(0, 1024))  # the temporary file is made before measuring
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(1, 4001):
            hub.append(frame(i, 1024))
        grew = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    sent = 4000 * 1024
    assert grew < sent // 8, f"the hub kept {grew} bytes for {sent} bytes of frames"
    assert len(hub.frames) == 4001 and hub.frames[1] == frame(1, 1024)


_REAL_TEMPORARY_FILE = tempfile.TemporaryFile


class _Failing:
    """A temporary file whose writes fail after `good` of them (a full disk)."""

    def __init__(self, good: int) -> None:
        self.file = _REAL_TEMPORARY_FILE(buffering=0)
        self.good = good

    def write(self, data: Any) -> int:
        if self.good <= 0:
            raise OSError(28, "No space left on device")
        self.good -= 1
        return int(self.file.write(data))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.file, name)


@pytest.mark.parametrize("good", [0, 5, 50])
def test_a_failing_file_keeps_every_frame_in_memory(monkeypatch: pytest.MonkeyPatch, good: int) -> None:
    monkeypatch.setattr(framelog.tempfile, "TemporaryFile", lambda **kwargs: _Failing(good))
    frames = FrameLog(recent=4)
    for i in range(80):
        frames.append(frame(i))
    assert list(frames) == [frame(i) for i in range(80)]
    assert frames.in_memory == 80  # everything, as before: spectators still get it all


class _Unreadable(_Failing):
    """Writes fail after `good` of them, and nothing written can be read back."""

    def read(self, size: int = -1) -> bytes:
        raise OSError(5, "Input/output error")


def test_frames_lost_with_their_file_stop_spectators_not_the_game(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(framelog.tempfile, "TemporaryFile", lambda **kwargs: _Unreadable(300))
    hub = Spectators()
    hub.frames = FrameLog(recent=4)
    hub.begin(b"g", b"s" * 64)
    assert hub.admit() is None
    hub.release()
    for i in range(310):
        hub.append(frame(i))  # never raises: the host's game goes on
    assert len(hub.frames) == 310 and hub.frames.lost
    with pytest.raises(OSError):
        hub.frames[309]
    assert hub.admit() == "the host lost the transcript it keeps for spectators"


def _frames_of(messages: list[dict[str, Any]]) -> list[bytes]:
    out: list[bytes] = []
    for message in messages:
        if message["t"] == "frames":
            assert message["from"] == len(out)
            out += message["f"]
    return out


async def test_a_late_spectator_catches_up_from_the_disk() -> None:
    hub = Spectators()
    hub.frames = FrameLog(recent=16)
    hub.begin(b"genesis", b"s" * 64)
    for i in range(600):
        hub.append(frame(i))
    assert hub.frames.in_memory == 16
    ours, theirs = trio.testing.memory_stream_pair()
    link = Link(ours, FrameReader(ours), PeerIdentity(b"\x01" * 32, "spectator", 0, ""))
    reader = FrameReader(theirs)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(hub.serve, link, {"t": "hello"})
        messages: list[dict[str, Any]] = []
        for _ in range(100):
            data = await reader.read()
            assert data is not None
            messages.append(unpack(data))
            if len(_frames_of(messages)) >= 600:
                break
        hub.append(frame(600))  # and goes on with the live frames
        for _ in range(10):
            data = await reader.read()
            assert data is not None
            messages.append(unpack(data))
            if len(_frames_of(messages)) >= 601:
                break
        assert _frames_of(messages) == [frame(i) for i in range(601)]
        await theirs.send_all(encode_frame(b"\x81\xa1t\xa3bye"))
        nursery.cancel_scope.cancel()


async def test_a_spectator_watching_when_the_frames_are_lost_is_told_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(framelog.tempfile, "TemporaryFile", lambda **kwargs: _Unreadable(20))
    hub = Spectators()
    hub.frames = FrameLog(recent=4)
    hub.begin(b"genesis", b"s" * 64)
    ours, theirs = trio.testing.memory_stream_pair()
    link = Link(ours, FrameReader(ours), PeerIdentity(b"\x01" * 32, "spectator", 0, ""))
    reader = FrameReader(theirs)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(hub.serve, link, {"t": "hello"})
        await trio.testing.wait_all_tasks_blocked()
        for i in range(30):
            hub.append(frame(i))
        kinds = []
        for _ in range(100):
            data = await reader.read()
            assert data is not None
            kinds.append(unpack(data)["t"])
            if kinds[-1] == "dropped":
                break
        assert kinds[-1] == "dropped"
        nursery.cancel_scope.cancel()
