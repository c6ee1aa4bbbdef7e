"""Issue 29 point 2: a program of another protocol version is refused at the link, with a reason
that says so (before: the handshake passed, and the other version's table or frames failed later).

On loopback only: a real listener and a real dialer of this version, the other side made older
through the handshake's own fields (`pv` left out, as version 3 did, or another number)."""

from __future__ import annotations

from typing import Any

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.net import link
from client.net.framing import FrameReader
from client.net.link import Refused, accept, dial
from client.net.linkproto import LINK_VERSION, nonce
from client.table.join import refusal_of
from client.table.seat import LOBBY_TABLE
from protocol.config import PROTOCOL_VERSION


async def _listener() -> tuple[trio.SocketListener, int]:
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    listener = listeners[0]
    assert isinstance(listener, trio.SocketListener)
    return listener, listener.socket.getsockname()[1]


async def _accept_one(listener: trio.SocketListener) -> trio.SocketStream:
    """Accept one dialer and run this version's listener side of the handshake with it."""
    stream = await listener.accept()
    try:
        await accept(
            stream,
            Ed25519PrivateKey.generate(),
            name="anna",
            table=LOBBY_TABLE,
            password=None,
            admit=lambda peer, hello: None,
            accepted=lambda peer, hello: {"seat": 1},
        )
    except BaseException:
        await stream.aclose()
        raise
    return stream


async def _dial(port: int, extra: dict[str, Any] | None = None) -> None:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    with trio.fail_after(30):
        async with stream:  # closed on the way out, as a refused program does
            await dial(
                stream,
                Ed25519PrivateKey.generate(),
                name="ben",
                role="player",
                table=LOBBY_TABLE,
                port=1,
                extra=extra,
            )


@pytest.mark.parametrize("theirs", [None, 3, PROTOCOL_VERSION + 1])
async def test_a_dialer_of_another_protocol_version_is_refused_and_told_why(theirs: int | None) -> None:
    listener, port = await _listener()
    outcome: list[BaseException] = []

    async def host() -> None:
        try:
            await _accept_one(listener)
        except Refused as exc:
            outcome.append(exc)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(host)
        with pytest.raises(Refused) as refused:
            await _dial(port, {"pv": theirs})
    await listener.aclose()
    said = str(refused.value)
    assert f"protocol version {PROTOCOL_VERSION}" in said and "same version" in said, said
    assert (str(theirs) if theirs else "or older") in said, said
    assert refusal_of(said, "Anna's table").kind == "version"
    assert outcome and "protocol version" in str(outcome[0]), "the host says why it refused"


async def test_a_listener_of_an_older_protocol_version_is_refused_by_the_dialer() -> None:
    listener, port = await _listener()

    async def old_host() -> None:  # version 3's welcome: no `pv`
        stream = await listener.accept()
        reader = FrameReader(stream)
        await reader.read()  # the hello
        await link._send_now(
            stream,
            {
                "t": "welcome",
                "v": LINK_VERSION,
                "key": Ed25519PrivateKey.generate().public_key().public_bytes_raw(),
                "nonce": nonce(),
                "name": "anna",
                "pake": False,
                "table": LOBBY_TABLE,
            },
        )
        with trio.move_on_after(30):
            await reader.read()  # the dialer hangs up
        await stream.aclose()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(old_host)
        with pytest.raises(Refused) as refused:
            await _dial(port)
    await listener.aclose()
    said = str(refused.value)
    assert "another version of skyjo-lan" in said and f"{PROTOCOL_VERSION - 1} or older" in said, said
    assert refusal_of(said, "Anna's table").kind == "version"


async def test_programs_of_this_version_still_shake_hands() -> None:
    listener, port = await _listener()

    async def host() -> None:
        stream = await _accept_one(listener)
        await stream.aclose()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(host)
        await _dial(port)
    await listener.aclose()
