"""Issue 30.4: a connection that fails says why (refused, timed out, no route), not only "all
attempts to connect to HOST:PORT failed". Loopback only."""

from __future__ import annotations

import errno
import socket

import pytest
import trio

from client.net import hints
from client.net.addresses import attempts_failed, dial_first


async def _no_handshake(stream: trio.SocketStream) -> None:
    raise AssertionError("no connection can succeed here")


async def _discard(result: None) -> None:
    return None


async def test_a_refused_connection_says_it_was_refused() -> None:
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    with trio.fail_after(30), pytest.raises(OSError) as failed:
        await dial_first([("127.0.0.1", port)], _no_handshake, _discard)
    assert (
        str(failed.value)
        == f"could not connect to 127.0.0.1:{port}: connection refused (nothing listens on that port)"
    )
    assert hints.kind_of(failed.value) == "refused"  # the hint still finds the kind


def test_each_attempt_s_reason_is_named_once() -> None:
    group = ExceptionGroup(
        "attempts",
        [
            OSError(errno.EHOSTUNREACH, "No route to host"),
            OSError(errno.ETIMEDOUT, "Connection timed out"),
            OSError(errno.EHOSTUNREACH, "No route to host"),
        ],
    )
    trio_error = OSError("all attempts to connect to 10.77.0.1:9 failed")
    trio_error.__cause__ = group
    text = str(attempts_failed(trio_error, ("10.77.0.1", 9)))
    assert text == "could not connect to 10.77.0.1:9: no route to that address, timed out"
