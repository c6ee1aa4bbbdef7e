"""Which TCP ports this program listens on: a fixed range, so one firewall rule covers an evening.

Every listener of `host` and `join` (the lobby unless `--port` names one, each seat's game port,
the host's bots) takes the first free port of the range in force, starting from a random place
in it (two programs on one machine rarely try the same port first). The range is `DEFAULT_RANGE`
unless `--port-range LOW-HIGH` gives another (or `--port-range any`: any free port, as before).
docs/troubleshooting.md says which rule to add on each platform.

The check that a typed port is free (`probe_option`) binds as the listener will: with
SO_REUSEADDR on Unix (a port whose only connections are in TIME_WAIT is free), but with
SO_EXCLUSIVEADDRUSE on Windows, where SO_REUSEADDR would let the bind succeed on a port another
program listens on (and so call it free).
"""

from __future__ import annotations

import errno
import random
import socket
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import trio


@dataclass(frozen=True)
class PortRange:
    """The TCP ports `low` to `high`, both included."""

    low: int
    high: int

    def __post_init__(self) -> None:
        if not 1024 <= self.low <= self.high <= 65535:
            raise ValueError(f"{self.low}-{self.high} is not a range of ports from 1024 to 65535")

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"

    def __len__(self) -> int:
        return self.high - self.low + 1

    def __contains__(self, port: object) -> bool:
        return isinstance(port, int) and self.low <= port <= self.high

    def order(self, rng: random.Random | None = None) -> list[int]:
        """Every port of the range, from a random one on, wrapping around."""
        start = (rng or random).randrange(len(self))
        ports = list(range(self.low, self.high + 1))
        return ports[start:] + ports[:start]


DEFAULT_RANGE = PortRange(28700, 28899)
"""The ports used when no `--port-range` is given: 200 ports, below every system's range of
ephemeral ports (Linux 32768-60999, Windows and macOS 49152-65535), so outgoing connections
never hold them."""

_in_force: list[PortRange | None] = [None]


def parse_range(text: str) -> PortRange | None:
    """``LOW-HIGH`` as a range (ValueError with one line otherwise); ``any`` or ``0``: None (any
    free port)."""
    cleaned = text.strip().lower()
    if cleaned in ("any", "0"):
        return None
    low, dash, high = cleaned.partition("-")
    if not dash or not low.strip().isdigit() or not high.strip().isdigit():
        raise ValueError(f"--port-range takes LOW-HIGH (such as {DEFAULT_RANGE}) or 'any', not {text!r}")
    return PortRange(int(low), int(high))


def use(ports: PortRange | None) -> None:
    """Listen in `ports` from now on in this process (None: any free port)."""
    _in_force[0] = ports


def in_force() -> PortRange | None:
    """The range listeners take their ports from (None: any free port)."""
    return _in_force[0]


_TAKEN = {errno.EADDRINUSE, errno.EACCES, 10013, 10048}
"""A port another program holds (10048: WSAEADDRINUSE), or one Windows keeps for itself
(10013: WSAEACCES, the ranges Hyper-V reserves): try the next."""


def taken(exc: OSError) -> bool:
    """Whether a bind failed because the port is held (by another program, or Windows)."""
    return exc.errno in _TAKEN or getattr(exc, "winerror", None) in _TAKEN


async def open_listener(host: str, port: int = 0, ports: PortRange | None = None) -> trio.SocketListener:
    """A TCP listener on `host`: on `port` if one is given, else on the first free port of
    `ports` (default: the range in force; none: any free port). OSError (EADDRINUSE) naming the
    range when every port of it is taken."""
    import trio  # here, not at the top: the command line reads DEFAULT_RANGE without loading trio

    ports = in_force() if ports is None else ports
    if port or ports is None:
        return (await trio.open_tcp_listeners(port, host=host))[0]
    for candidate in ports.order():
        try:
            return (await trio.open_tcp_listeners(candidate, host=host))[0]
        except OSError as exc:
            if not taken(exc):
                raise
    raise OSError(errno.EADDRINUSE, f"every port of {ports} is in use (choose others with --port-range)")


def probe_option(platform: str | None = None) -> tuple[int, int] | None:
    """The socket option (level, name) the free-port check sets before binding: SO_REUSEADDR on
    Unix, as trio's listeners; SO_EXCLUSIVEADDRUSE on Windows (where SO_REUSEADDR means "share a
    port someone else listens on"). None where neither is known."""
    if (sys.platform if platform is None else platform) == "win32":
        name = getattr(socket, "SO_EXCLUSIVEADDRUSE", None)
        return None if name is None else (socket.SOL_SOCKET, int(name))
    return socket.SOL_SOCKET, socket.SO_REUSEADDR
