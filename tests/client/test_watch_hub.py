"""Issue 18, point 2: the host's spectator hub (`client.table.spectators`) without sockets.

The queue's bounds, what a spectator is sent and in which order, catching up from an index, a
stalled spectator dropped without slowing anyone (MockClock: no real time), garbage from a
spectator closing its link. Spectators sit on in-memory streams (`trio.testing`): a lockstep
pair blocks the host's writes until the spectator reads, so "stalled" is exact, never timing.
"""

from __future__ import annotations

from typing import Any

import pytest
import trio
import trio.testing

from client.net.framing import FrameReader, encode_frame
from client.net.link import Link
from client.net.linkproto import PeerIdentity, pack, unpack
from client.table.spectators import SpectatorLimits, SpectatorQueue, Spectators

FRAMES = [bytes([i]) * (10 + i) for i in range(12)]


# --- the queue (sans-IO) ------------------------------------------------------------------------


def test_the_catch_up_is_free_and_what_is_made_since_is_bounded() -> None:
    queue = SpectatorQueue(0, backlog=8, most_frames=2, most_bytes=1 << 20)
    assert queue.offer(FRAMES[:8]) and queue.waiting == 0  # eight frames of catch-up: free
    assert queue.offer(FRAMES[:10]) and queue.waiting == 2  # two made since: at the bound
    assert not queue.offer(FRAMES[:11]), "a third overflows"
    assert not queue.offer(FRAMES[:11]), "and it stays overflowed"


def test_frames_are_taken_in_order_in_bounded_batches() -> None:
    queue = SpectatorQueue(3, backlog=3, most_frames=100, most_bytes=1 << 20)
    assert queue.offer(FRAMES)
    first, batch = queue.take(FRAMES, most_frames=4)
    assert first == 3 and batch == FRAMES[3:7]
    first, batch = queue.take(FRAMES, most_bytes=len(FRAMES[7]) + len(FRAMES[8]))
    assert first == 7 and batch == FRAMES[7:9]
    first, batch = queue.take(FRAMES, most_bytes=1)  # a frame bigger than a batch goes alone
    assert first == 9 and batch == [FRAMES[9]]
    assert queue.take(FRAMES) == (10, FRAMES[10:]) and queue.take(FRAMES) == (12, [])
    assert queue.waiting == 0 and queue.waiting_bytes == 0


def test_bytes_bound_too() -> None:
    queue = SpectatorQueue(0, backlog=0, most_frames=100, most_bytes=25)
    assert queue.offer(FRAMES[:2])  # 10 + 11 bytes
    assert not queue.offer(FRAMES[:3])  # + 12 > 25


# --- the hub with in-memory spectators ------------------------------------------------------------


class Spectator:
    """The spectator's end of an in-memory link."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.reader = FrameReader(stream)

    async def next(self) -> dict[str, Any]:
        data = await self.reader.read()
        assert data is not None
        return unpack(data)

    async def until(self, kind: str) -> list[dict[str, Any]]:
        seen = []
        for _ in range(100):
            message = await self.next()
            seen.append(message)
            if message["t"] == kind:
                return seen
        raise AssertionError(f"no {kind} in {seen}")


def connect(
    nursery: trio.Nursery, hub: Spectators, hello: dict[str, Any], lockstep: bool = False
) -> Spectator:
    ours, theirs = trio.testing.lockstep_stream_pair() if lockstep else trio.testing.memory_stream_pair()
    link = Link(ours, FrameReader(ours), PeerIdentity(b"\x01" * 32, "spectator", 0, ""))
    nursery.start_soon(hub.serve, link, hello)
    return Spectator(theirs)


def frames_of(messages: list[dict[str, Any]]) -> list[tuple[int, bytes]]:
    out = []
    for message in messages:
        if message["t"] == "frames":
            out += [(message["from"] + i, frame) for i, frame in enumerate(message["f"])]
    return out


async def test_a_spectator_gets_the_count_the_table_then_the_transcript_in_order() -> None:
    counts: list[int] = []
    hub = Spectators(on_count=counts.append)
    async with trio.open_nursery() as nursery:
        watcher = connect(nursery, hub, {"t": "hello"})
        assert (await watcher.next()) == {"t": "watching", "n": 1}
        hub.begin(b"genesis", b"s" * 64)
        for frame in FRAMES[:5]:
            hub.append(frame)
        got = await watcher.until("table")
        assert got[-1] == {"t": "table", "genesis": b"genesis", "gsig": b"s" * 64}
        messages: list[dict[str, Any]] = []
        while len(frames_of(messages)) < 5:
            messages.append(await watcher.next())
        assert frames_of(messages) == list(enumerate(FRAMES[:5]))
        # a second spectator comes in mid-game and catches up from frame 3
        late = connect(nursery, hub, {"t": "hello", "from": 3})
        seen = await late.until("table")
        assert seen[0] == {"t": "watching", "n": 2}
        hub.append(FRAMES[5])
        messages = []
        while len(frames_of(messages)) < 3:
            messages.append(await late.next())
        assert frames_of(messages) == [(3, FRAMES[3]), (4, FRAMES[4]), (5, FRAMES[5])]
        await hub.finish()  # both take what is left, then "end"; the hub waits for them
        assert (await late.until("end"))[-1] == {"t": "end"}
        rest = await watcher.until("end")
        assert frames_of(rest) == [(5, FRAMES[5])]
        nursery.cancel_scope.cancel()
    assert counts[:2] == [1, 2] and hub.count == 0
    assert hub.admit() == "the game is over"


async def test_an_index_never_sent_starts_from_the_beginning() -> None:
    hub = Spectators()
    hub.begin(b"g", b"s" * 64)
    for frame in FRAMES[:3]:
        hub.append(frame)
    async with trio.open_nursery() as nursery:
        watcher = connect(nursery, hub, {"t": "hello", "from": 99})
        messages = await watcher.until("frames")
        assert frames_of(messages) == list(enumerate(FRAMES[:3]))
        nursery.cancel_scope.cancel()


async def test_a_stalled_spectator_is_dropped_and_never_slows_the_table(autojump_clock: object) -> None:
    # MockClock (pytest-trio's autojump_clock): the drain's ten seconds pass without real time
    counts: list[int] = []
    hub = Spectators(SpectatorLimits(queue_frames=2, drain=10.0), on_count=counts.append)
    hub.begin(b"g", b"s" * 64)
    async with trio.open_nursery() as nursery:
        stalled = connect(nursery, hub, {"t": "hello"}, lockstep=True)  # never reads
        await trio.testing.wait_all_tasks_blocked()
        assert hub.count == 1
        before = trio.current_time()
        for frame in FRAMES:  # the table goes on: append never waits
            hub.append(frame)
        assert trio.current_time() == before
        # its writer is stuck on the stalled stream: after `drain` it is cut off
        with trio.fail_after(60):
            while hub.count:
                await trio.sleep(1)
        assert trio.current_time() - before >= 10.0
        assert counts == [1, 0]
        del stalled
        nursery.cancel_scope.cancel()


async def test_a_slow_spectator_is_told_why_it_is_dropped() -> None:
    hub = Spectators(SpectatorLimits(queue_frames=1))
    hub.begin(b"g", b"s" * 64)
    async with trio.open_nursery() as nursery:
        slow = connect(nursery, hub, {"t": "hello"}, lockstep=True)
        assert (await slow.next())["t"] == "watching"
        await trio.testing.wait_all_tasks_blocked()  # its writer waits on the table message
        for frame in FRAMES[:4]:
            hub.append(frame)  # more than one waits: dropped
        messages = await slow.until("dropped")
        assert "too far behind" in messages[-1]["reason"]
        with trio.fail_after(5):
            while hub.count:
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize(
    "said",
    [
        pack({"t": "chat", "text": "hi"}),
        pack({"t": "frame", "f": b"forged"}),
        b"\xc1\xc1 not msgpack",
    ],
)
async def test_anything_a_spectator_says_closes_its_link(said: bytes) -> None:
    hub = Spectators()
    async with trio.open_nursery() as nursery:
        watcher = connect(nursery, hub, {"t": "hello"})
        assert (await watcher.next())["t"] == "watching"
        await watcher.stream.send_all(encode_frame(said))
        with trio.fail_after(5):
            while hub.count:
                await trio.sleep(0.01)
        hub.begin(b"g", b"s" * 64)
        hub.append(FRAMES[0])  # the table goes on
        assert list(hub.frames) == [FRAMES[0]]
        nursery.cancel_scope.cancel()


def test_admission_cap_and_refusal() -> None:
    assert Spectators(SpectatorLimits(most=0)).admit() == "this table takes no spectators"
    hub = Spectators(SpectatorLimits(most=1))
    assert hub.admit() is None
