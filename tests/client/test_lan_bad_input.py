"""Bad input on the sockets: each is refused with a logged reason, the connection is closed, and
the game goes on for everyone else. Three headless peers play over loopback in this process while
an intruder connects to the lobby and, during the game, to a seat's mesh listener."""

from __future__ import annotations

import logging
import struct

import msgpack
import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.net import link as link_module
from client.net.link import Refused, dial
from client.table.host import Host, HostOptions
from client.table.join import JoinOptions, join
from client.table.seat import LOBBY_TABLE
from protocol.config import PROTOCOL_VERSION

GAME = {"target_score": 30}


@pytest.fixture(autouse=True)
def private_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(link_module, "HANDSHAKE_TIMEOUT", 2.0)


async def raw(port: int, data: bytes, then_wait: float = 0.0, eof: bool = False) -> bytes:
    """Send raw bytes to 127.0.0.1:port (then close our side if `eof`); return what came back
    before the server closed."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    received = b""
    with trio.move_on_after(8):
        await stream.send_all(data)
        if eof:
            await stream.send_eof()
        if then_wait:
            await trio.sleep(then_wait)
        while True:
            try:
                chunk = await stream.receive_some(65536)
            except trio.BrokenResourceError:
                break
            if not chunk:
                break
            received += chunk
    await stream.aclose()
    return received


def frame(message: dict) -> bytes:
    body = msgpack.packb(message, use_bin_type=True)
    return struct.pack(">I", len(body)) + body


def refusal(reply: bytes) -> str:
    """The `refused` reason in a reply, if any."""
    unpacker = msgpack.Unpacker(raw=False)
    offset = 0
    while offset + 4 <= len(reply):
        (length,) = struct.unpack(">I", reply[offset : offset + 4])
        message = msgpack.unpackb(reply[offset + 4 : offset + 4 + length], raw=False)
        offset += 4 + length
        if message.get("t") == "refused":
            return str(message.get("reason"))
    del unpacker
    return ""


async def test_bad_input_is_refused_and_the_game_goes_on(caplog):
    caplog.set_level(logging.INFO)
    lines: list[str] = []
    host = Host(
        HostOptions(
            game="skyjo",
            options=GAME,
            seats=3,
            headless="greedy",
            advertise=False,
            interface="127.0.0.1",
            name="host",
            password="open sesame",
        ),
        Ed25519PrivateKey.generate(),
        lines.append,
    )
    results = {}
    async with trio.open_nursery() as nursery:
        lobby = await nursery.start(host.run)

        # --- at the lobby, before anyone is seated -----------------------------------------
        assert await raw(lobby, b"\x00\x00\x00\x05garbage, not a frame at all") == b""  # garbage
        assert await raw(lobby, struct.pack(">I", 50_000_000)) == b""  # an oversized length
        assert await raw(lobby, struct.pack(">I", 100) + b"only ten b", eof=True) == b""  # truncated
        assert await raw(lobby, struct.pack(">I", 100) + b"half", then_wait=3) == b""  # a stalled half
        assert await raw(lobby, frame({"t": "hello", "v": 1, "key": b"short"})) == b""  # a bad message
        stranger = Ed25519PrivateKey.generate()
        with pytest.raises(Refused, match="wrong password"):
            stream = await trio.open_tcp_stream("127.0.0.1", lobby)
            await dial(stream, stranger, name="eve", role="join", table=LOBBY_TABLE, port=1, password="guess")
        assert host.seats and len(host.seats) == 1, "nobody was seated by bad input"

        # --- two players join with the password; the game starts --------------------------
        async def player(i: int) -> None:
            opts = JoinOptions(
                target=f"127.0.0.1:{lobby}",
                name=f"p{i}",
                headless="greedy",
                interface="127.0.0.1",
                password="open sesame",
            )
            results[i] = await join(opts, Ed25519PrivateKey.generate(), lines.append)

        nursery.start_soon(player, 1)
        nursery.start_soon(player, 2)
        with trio.fail_after(60):
            while not host.addresses:
                await trio.sleep(0.05)
        host_port = host.addresses[0][1]
        seat2_port = host.addresses[2][1]

        # --- during the game: a stranger and a replayed handshake at a seat's listener ------
        assert host.config is not None
        with pytest.raises(Refused, match="not seated"):
            stream = await trio.open_tcp_stream("127.0.0.1", seat2_port)
            await dial(stream, stranger, name="eve", role="peer", table=host.config.session_id, port=1)
        # replay: a recorded hello + auth from a real dialer cannot answer a fresh nonce
        seated = Ed25519PrivateKey.generate()
        recorded = frame(
            {
                "t": "hello",
                "v": 1,
                "pv": PROTOCOL_VERSION,
                "role": "peer",
                "name": "replay",
                "key": seated.public_key().public_bytes_raw(),
                "nonce": b"\x01" * 32,
                "port": 1,
                "table": host.config.session_id,
            }
        )
        recorded += frame({"t": "auth", "sig": b"\x02" * 64})
        reply = await raw(seat2_port, recorded)
        assert b"welcome" in reply  # it got the fresh challenge, and then the connection was closed
        assert await raw(host_port, b"\xff" * 64) == b""  # garbage to a mesh listener too

    assert all(
        runner is not None and runner.status.finished and not runner.status.halted
        for runner in results.values()
    )
    assert host.runner is not None and host.runner.status.finished
    text = caplog.text + "\n".join(lines)
    for reason in (
        "exceeds the",
        "closed inside a frame",
        "stalled",
        "must be",
        "wrong password",
        "not seated",
        "could not prove its identity",
    ):
        assert reason in text, f"no logged reason mentioning {reason!r}"
