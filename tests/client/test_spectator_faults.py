"""Issue 25, point 3, in process (deterministic, no real time): what a spectator does with its
socket never ends the host, and the spectator limit holds when many dial at once.

* A spectator's connection reset while the host writes to it: the writer and the reader both
  meet the reset, trio raises them as an exception group, and before the fix that group climbed
  out of `Spectators.serve` to the host's program ("the connection was closed by the other end",
  exit 1). Now the spectator is counted out and the table goes on.
* Any handler a listener runs (`link.serve`): an exception group of network errors from one
  connection ends that connection only; the listener serves the next.
* 16 spectators dialling at once with 15 watching: one is admitted (the limit is 16), however
  the handshakes interleave (before the fix: every one of them).
"""

from __future__ import annotations

import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.net.framing import FrameReader
from client.net.guard import Admission
from client.net.link import Handshake, Link, serve
from client.net.linkproto import PeerIdentity
from client.table.spectators import SpectatorLimits, Spectators


class ResetStream(trio.abc.Stream):
    """A spectator's connection that the other end reset: the next write and the pending read
    both fail, in the same instant (as a RST wakes both on a real socket)."""

    def __init__(self) -> None:
        self.reset = trio.Event()
        self.closed = False

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await trio.lowlevel.checkpoint()
        self.reset.set()
        raise trio.BrokenResourceError("[Errno 104] Connection reset by peer")

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def send_eof(self) -> None:
        await trio.lowlevel.checkpoint()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        await self.reset.wait()
        raise trio.BrokenResourceError("[Errno 104] Connection reset by peer")

    async def aclose(self) -> None:
        self.closed = True
        await trio.lowlevel.checkpoint()


def spectator_link(stream: trio.abc.Stream) -> Link:
    return Link(stream, FrameReader(stream), PeerIdentity(b"\x01" * 32, "spectator", 0, ""))


async def test_a_spectator_reset_while_the_host_writes_never_ends_the_host() -> None:
    counts: list[int] = []
    hub = Spectators(on_count=counts.append)
    hub.begin(b"genesis", b"s" * 64)
    for frame in (b"a" * 40, b"b" * 40):
        hub.append(frame)
    stream = ResetStream()
    assert hub.admit() is None
    with trio.fail_after(10):
        await hub.serve(spectator_link(stream), {"t": "hello"})  # returns: it raises nothing
    assert stream.closed and hub.count == 0 and counts == [1, 0]
    hub.append(b"c" * 40)  # the table goes on
    assert hub.admit() is None, "its place is free again"


async def test_a_listener_outlives_a_connection_that_ends_in_an_exception_group() -> None:
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    served: list[int] = []

    async def handler(stream: trio.SocketStream, handshake: Handshake) -> None:
        served.append(len(served))
        if len(served) == 1:  # the first connection: its two tasks meet a reset at once
            raise BaseExceptionGroup(
                "reset",
                [trio.BrokenResourceError("reset while writing"), ConnectionResetError(104, "reset")],
            )
        await stream.send_all(b"ok")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: serve(listener, handler, Admission(), what="test"))
        for _ in range(2):
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            with trio.fail_after(10):
                got = await stream.receive_some(10)
            await stream.aclose()
        assert got == b"ok" and served == [0, 1]
        nursery.cancel_scope.cancel()


async def test_sixteen_spectators_dialling_at_once_with_fifteen_watching_admit_one() -> None:
    hub = Spectators(SpectatorLimits(most=16))
    async with trio.open_nursery() as nursery:
        for _ in range(15):
            assert hub.admit() is None
            ours, _theirs = trio.testing.memory_stream_pair()
            nursery.start_soon(hub.serve, spectator_link(ours), {"t": "hello"})
        await trio.testing.wait_all_tasks_blocked()
        assert hub.count == 15
        admitted: list[int] = []
        refused: list[str] = []

        async def dial(i: int) -> None:
            """The host's side of one spectator's handshake: admitted, then the awaits of the
            rest of the handshake (`accepted` written, ...), then served."""
            why = hub.admit()
            if why is not None:
                refused.append(why)
                return
            admitted.append(i)
            for _ in range(3):
                await trio.lowlevel.checkpoint()
            ours, _theirs = trio.testing.memory_stream_pair()
            nursery.start_soon(hub.serve, spectator_link(ours), {"t": "hello"})

        async with trio.open_nursery() as dialling:
            for i in range(16):
                dialling.start_soon(dial, i)
        await trio.testing.wait_all_tasks_blocked()
        assert len(admitted) == 1 and len(refused) == 15, (admitted, refused)
        assert hub.count == 16
        assert all("too many spectators already (16/16)" in why for why in refused)
        nursery.cancel_scope.cancel()


async def test_a_place_given_to_a_handshake_that_fails_is_given_back() -> None:
    hub = Spectators(SpectatorLimits(most=1))
    assert hub.admit() is None
    assert hub.admit() is not None  # the place is taken while its handshake runs
    hub.release()  # the handshake failed
    assert hub.admit() is None


async def test_the_host_lobby_gives_back_the_place_of_a_spectator_whose_handshake_fails() -> None:
    """Through the host's lobby: a spectator admitted whose handshake then breaks does not keep
    its place (`Host` releases it)."""
    from client.net import link as link_module
    from client.net.link import dial
    from client.table.host import Host, HostOptions
    from client.table.seat import LOBBY_TABLE
    from client.table.spectators import WATCH_ROLE

    host = Host(
        HostOptions(game="skyjo", seats=4, headless="greedy", advertise=False, interface="127.0.0.1"),
        Ed25519PrivateKey.generate(),
        lambda line: None,
    )
    host.spectators.limits = SpectatorLimits(most=1)
    real_accepted = link_module._send_now
    broken = 0

    async def send_now(stream: trio.abc.Stream, message: dict[str, object]) -> None:
        nonlocal broken
        if message.get("t") == "accepted" and broken == 0:  # after `admit`: the handshake breaks
            broken += 1
            raise trio.BrokenResourceError("reset during the handshake")
        await real_accepted(stream, message)

    link_module._send_now = send_now  # type: ignore[assignment]
    try:
        async with trio.open_nursery() as nursery:
            lobby = await nursery.start(host.run)
            for attempt in range(2):
                stream = await trio.open_tcp_stream("127.0.0.1", lobby)
                try:
                    with trio.fail_after(10):
                        link, accepted = await dial(
                            stream,
                            Ed25519PrivateKey.generate(),
                            name="x",
                            role=WATCH_ROLE,
                            table=LOBBY_TABLE,
                            port=0,
                        )
                except Exception as exc:
                    assert attempt == 0, exc  # the first one's handshake broke on the host's side
                    await stream.aclose()
                    continue
                assert accepted.get("watch") is True, "the place of the broken one was given back"
                await link.aclose()
            nursery.cancel_scope.cancel()
    finally:
        link_module._send_now = real_accepted  # type: ignore[assignment]
    assert broken == 1
