"""Which addresses of this machine a table is reachable on, and reaching a table that has several.

A machine on a home LAN often has more than one IPv4 address (Ethernet and Wi-Fi, a VPN, a
container bridge), and sometimes no default route at all (two laptops on a switch, a travel router
without uplink). Guessing "the" address from the default route gets it wrong in each of those
cases, so the host announces every usable address of the interfaces it listens on
(`announced_addresses`), and the joiner tries them all, a quarter of a second apart, happy-eyeballs
style (`dial_first`): the first one whose authenticated handshake completes wins, because only the
handshake proves that the machine answering is the table (an address of another network can reach
another machine, even the joiner's own one). Host names typed by the user are resolved with a
deadline (`resolve`): getaddrinfo can hang for a long time on a broken resolver.

IPv4 only: IPv6 link-local addresses need a scope id (an interface index), which is a property of
the machine that uses the address, not of the address, so one the host sees could not be handed to
the other seats in the table's list of addresses, and the listeners are IPv4 sockets.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import trio

from .framing import FramingError
from .hints import REFUSED, TIMED_OUT, UNREACHABLE
from .link import HANDSHAKE_TIMEOUT, Refused
from .linkproto import LinkError, unpack

log = logging.getLogger("skyjo_lan.addresses")

STAGGER = 0.25
"""Seconds between starting attempts at successive addresses (RFC 8305's recommended delay)."""
CONNECT_TIMEOUT = 10.0
"""Seconds a TCP connection may take to open (a silently dropped SYN would take minutes)."""
RESOLVE_TIMEOUT = 10.0
"""Seconds a host name may take to resolve."""
MAX_ADDRESSES = 16
"""At most this many addresses are announced, and tried by a joiner (an announcement is untrusted)."""

# Interfaces whose addresses are usually not the home LAN: announced too, but after the others, so
# a joiner tries the likely address first and loses at most a stagger per unlikely one.
VIRTUAL_PREFIXES = (
    "docker",
    "br-",
    "veth",
    "virbr",
    "vmnet",
    "vboxnet",
    "lxc",
    "lxd",
    "podman",
    "cni",
    "flannel",
    "tun",
    "tap",
    "wg",
    "tailscale",
    "zt",
    "utun",
    "ppp",
)

IFF_UP = 0x1
NO_CARRIER = ("down", "lowerlayerdown", "notpresent")
"""Operational states (RFC 2863, as Linux shows them) in which an interface carries nothing."""

T = TypeVar("T")


@dataclass(frozen=True)
class LocalAddress:
    """One IPv4 address of one interface of this machine."""

    interface: str
    address: str
    up: bool = True
    """The interface is up and has a carrier (False: its address would only cost joiners a try)."""
    prefix: int = 32
    """The length of the interface's network prefix (24 for a /24: 255.255.255.0)."""


def _interface_up(name: str, sys_class_net: Path = Path("/sys/class/net")) -> bool:
    """Whether a Linux interface is up and has a carrier; True where that cannot be read (other
    systems). The flags file has the administrative state only; ``operstate`` says whether a
    cable, a radio or a peer is there ("unknown" for loopback, tunnels and dummies: usable)."""
    folder = sys_class_net / name.split(":")[0]  # "eth0:1" is an alias of eth0
    try:
        flags = int((folder / "flags").read_text().strip(), 16)
        state = (folder / "operstate").read_text().strip()
    except (OSError, ValueError):
        return True
    return bool(flags & IFF_UP) and state not in NO_CARRIER


def local_ipv4() -> list[LocalAddress]:
    """Every IPv4 address of every interface of this machine, in the system's order."""
    import ifaddr  # imported here: only the host needs it, and it reads the system's tables

    found: list[LocalAddress] = []
    try:
        adapters = list(ifaddr.get_adapters())
    except OSError as exc:
        log.warning("could not list the network interfaces: %s", exc)
        return found
    for adapter in adapters:
        for ip in adapter.ips:
            if ip.is_IPv4 and isinstance(ip.ip, str):
                up = _interface_up(adapter.name)
                found.append(LocalAddress(adapter.name, ip.ip, up, int(ip.network_prefix)))
    return found


def usable_ipv4(candidates: Iterable[LocalAddress]) -> list[str]:
    """The addresses other machines could reach us on, likeliest first, without duplicates.

    Loopback, unspecified, multicast, broadcast and reserved addresses are dropped, and so are the
    addresses of interfaces that are down. Link-local addresses (169.254/16) are kept: two machines
    on a cable or a switch with no DHCP server get only those. Addresses of interfaces that are
    usually virtual (containers, VPNs) come last, link-local ones after the others of their kind."""
    ranked: list[tuple[bool, bool, int, str]] = []
    seen: set[str] = set()
    for index, candidate in enumerate(candidates):
        try:
            ip = ipaddress.IPv4Address(candidate.address)
        except ValueError:
            continue
        if (
            not candidate.up
            or ip.is_loopback
            or ip.is_unspecified
            or ip.is_multicast
            or ip.is_reserved
            or ip == ipaddress.IPv4Address("255.255.255.255")
            or str(ip) in seen
        ):
            continue
        seen.add(str(ip))
        virtual = candidate.interface.lower().startswith(VIRTUAL_PREFIXES)
        ranked.append((virtual, ip.is_link_local, index, str(ip)))
    return [address for *_, address in sorted(ranked)][:MAX_ADDRESSES]


def announced_addresses(interface: str, found: Iterable[LocalAddress] | None = None) -> list[str]:
    """The addresses a host listening on `interface` announces and shows.

    `--interface IP` restricts listening to that address, so only it is announced, even a loopback
    one. On 0.0.0.0 every usable address (`usable_ipv4`) of this machine's interfaces (`found`,
    default: `local_ipv4()`); loopback only when there is nothing else, so that a table on a
    machine with no network at all can still be joined from the machine itself."""
    if interface not in ("0.0.0.0", ""):
        return [interface]
    usable = usable_ipv4(local_ipv4() if found is None else found)
    return usable or ["127.0.0.1"]


def on_our_networks_first(
    endpoints: Sequence[tuple[str, int]], found: Iterable[LocalAddress] | None = None
) -> list[tuple[str, int]]:
    """`endpoints` with those in a subnet of one of our own interfaces (`found`, default:
    `local_ipv4()`) first, and among the others link-local ones last, the order otherwise kept:
    the likeliest to answer are tried first, whatever order the announcement came in (mDNS does
    not keep the host's order)."""
    networks = []
    for local in local_ipv4() if found is None else found:
        if local.up:
            with contextlib.suppress(ValueError):
                networks.append(ipaddress.IPv4Network(f"{local.address}/{local.prefix}", strict=False))

    def rank(endpoint: tuple[str, int]) -> tuple[bool, bool]:
        try:
            ip = ipaddress.IPv4Address(endpoint[0])
        except ValueError:
            return True, True
        return not any(ip in network for network in networks), ip.is_link_local

    return sorted(endpoints, key=rank)


def shown_addresses(addresses: Sequence[str], port: int, most: int = 3) -> str:
    """``a:P, b:P (+2 more)``: the first few addresses, for a line a person reads."""
    parts = [f"{address}:{port}" for address in addresses[:most]]
    more = len(addresses) - most
    return ", ".join(parts) + (f" (+{more} more)" if more > 0 else "")


# --- resolving a host name ----------------------------------------------------------------------


class Unresolved(LinkError):
    """A host name that does not resolve (a typo, most of the time): told in one line."""


async def resolve(host: str, port: int, timeout: float = RESOLVE_TIMEOUT) -> list[tuple[str, int]]:
    """The addresses of `host` (a name or an address literal), IPv4 first, within `timeout`.

    Raises `Unresolved` with a one-line reason when the name does not resolve, or not in time
    (trio runs getaddrinfo in a thread it can abandon, so the deadline holds even when the system
    resolver hangs)."""
    if not 0 < port < 65536:
        raise LinkError(f"port {port} is not between 1 and 65535")
    try:
        with trio.fail_after(timeout):
            infos = await trio.socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except trio.TooSlowError:
        raise Unresolved(f"the name {host!r} did not resolve within {timeout:g} s") from None
    except socket.gaierror as exc:
        raise Unresolved(f"the name {host!r} does not resolve ({exc.strerror or exc})") from None
    except (OSError, UnicodeError) as exc:
        raise Unresolved(f"the name {host!r} cannot be resolved ({exc})") from None
    found: list[tuple[str, int]] = []
    for family, _type, _proto, _name, sockaddr in sorted(infos, key=lambda i: i[0] != socket.AF_INET):
        if family in (socket.AF_INET, socket.AF_INET6):
            entry = (str(sockaddr[0]), int(sockaddr[1]))
            if entry not in found:
                found.append(entry)
    if not found:
        raise Unresolved(f"the name {host!r} has no IP address")
    return found[:MAX_ADDRESSES]


# --- dialing several addresses ------------------------------------------------------------------


class NoAddressAnswered(LinkError):
    """No address of the table completed a handshake; `tried` says what each attempt met."""

    def __init__(self, tried: Sequence[tuple[tuple[str, int], str]]) -> None:
        listed = "; ".join(f"{host}:{port} ({why})" for (host, port), why in tried)
        super().__init__(f"could not reach the table at any of its {len(tried)} addresses: {listed}")
        self.tried = list(tried)


def _why(exc: BaseException) -> str:
    """A few words on why one attempt failed."""
    if isinstance(exc, OSError) and exc.errno:
        return os.strerror(exc.errno).lower()
    cause = exc.__cause__
    if isinstance(cause, BaseExceptionGroup) and cause.exceptions:  # trio's "all attempts failed"
        return _why(cause.exceptions[0])
    return str(exc) or type(exc).__name__


def attempts_failed(exc: OSError, address: tuple[str, int]) -> OSError:
    """trio's "all attempts to connect to HOST:PORT failed" with the reason of each attempt
    (refused, timed out, no route: from each attempt's OSError, its cause), as one OSError that
    keeps `exc` as its cause (so `hints.reach_hint` still finds the failure's kind)."""
    cause = exc.__cause__
    attempts = list(cause.exceptions) if isinstance(cause, BaseExceptionGroup) else [exc]
    reasons = list(dict.fromkeys(_reason(a) for a in attempts[:8]))
    host, port = address
    failed = OSError(f"could not connect to {host}:{port}: {', '.join(reasons)}")
    failed.__cause__ = exc
    return failed


def _reason(exc: BaseException) -> str:
    """One attempt's failure in a few words."""
    code = getattr(exc, "winerror", None) or (exc.errno if isinstance(exc, OSError) else None)
    if code in REFUSED:
        return "connection refused (nothing listens on that port)"
    if code in UNREACHABLE:
        return "no route to that address"
    if code in TIMED_OUT or isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, OSError) and exc.errno:
        return os.strerror(exc.errno).lower()
    return str(exc) or type(exc).__name__


class TimedOut(LinkError):
    """One attempt got no connection, or no handshake, in time."""


FAILURES = (OSError, LinkError, FramingError, trio.BrokenResourceError, trio.ClosedResourceError)
"""What one attempt at one address may fail with, without ending the others."""


async def dial_first(
    candidates: Sequence[tuple[str, int]],
    handshake: Callable[[trio.SocketStream], Awaitable[T]],
    close: Callable[[T], Awaitable[None]],
    *,
    stagger: float = STAGGER,
    connect_timeout: float = CONNECT_TIMEOUT,
    local_address: str | None = None,
) -> tuple[T, tuple[str, int]]:
    """Connect to the first of `candidates` that completes `handshake`; returns its result and
    address.

    Attempts start `stagger` seconds apart (at once when the previous one fails); each opens a TCP
    connection (within `connect_timeout`) and runs `handshake` on it. The first handshake to
    complete wins: the other attempts are cancelled and their connections closed (a result that
    completes in the same instant is handed to `close`). `local_address` binds the connections'
    source address (a joiner restricted to one interface must be seen by the table at the address
    it listens on). With one candidate its own error is raised (a timeout names the address and
    the step); with several, a `Refused`
    answer if one came (the table said why: a wrong password, a full table), otherwise
    `NoAddressAnswered` listing every attempt."""
    candidates = list(dict.fromkeys(candidates))[:MAX_ADDRESSES]
    if not candidates:
        raise LinkError("the table announced no address")
    won: list[tuple[T, tuple[str, int]]] = []
    failures: dict[int, BaseException] = {}

    async def attempt(index: int, address: tuple[str, int], failed: trio.Event) -> None:
        stream: trio.SocketStream | None = None
        result: Any = None
        done = False
        try:
            try:
                with trio.fail_after(connect_timeout):
                    stream = await trio.open_tcp_stream(*address, local_address=local_address)
            except trio.TooSlowError:
                raise TimedOut(f"no connection within {connect_timeout:g} s") from None
            try:
                result = await handshake(stream)
            except trio.TooSlowError:
                raise TimedOut(f"no answer to the handshake within {HANDSHAKE_TIMEOUT:g} s") from None
            done = True
        except FAILURES as exc:
            log.info("no table at %s:%d: %s", *address, _why(exc))
            failures[index] = exc
            failed.set()
        finally:
            if not done and stream is not None:
                with trio.CancelScope(shield=True), trio.move_on_after(1):
                    await stream.aclose()
        if not done:
            return
        if won:
            with trio.CancelScope(shield=True), trio.move_on_after(1):
                await close(result)
            return
        won.append((result, address))
        nursery.cancel_scope.cancel()

    async with trio.open_nursery() as nursery:
        for index, address in enumerate(candidates):
            failed = trio.Event()
            nursery.start_soon(attempt, index, address, failed)
            if index + 1 < len(candidates):
                with trio.move_on_after(stagger):
                    await failed.wait()
    if won:
        return won[0]
    ordered = [failures[i] for i in sorted(failures)]
    if len(candidates) == 1:
        if isinstance(ordered[0], TimedOut):
            host, port = candidates[0]
            raise TimedOut(f"{host}:{port}: {ordered[0]}")
        if isinstance(ordered[0], OSError) and ordered[0].errno is None:  # trio's "all attempts ... failed"
            raise attempts_failed(ordered[0], candidates[0])
        raise ordered[0]
    for exc in ordered:
        if isinstance(exc, Refused):
            raise exc
    raise NoAddressAnswered([(candidates[i], _why(failures[i])) for i in sorted(failures)])


class OneSeatGate:
    """Lets one attempt at a time send the message that takes a seat.

    Attempts at several addresses of one table run concurrently; when two of them reach the same
    host (Ethernet and Wi-Fi on one network), both could be seated, and the host, seeing the loser
    leave, would announce a player who joined and left (or start a full table with it). Every
    attempt's stream goes through `wrap`; the frame of type `kind` (the dialer's ``auth``, after
    which the host admits) waits for the gate, which the attempt keeps if it wins and gives back
    (`release`) if it fails."""

    def __init__(self, kind: str = "auth") -> None:
        self.kind = kind
        self._free = trio.Semaphore(1)  # not a Lock: the winner keeps it when its task ends

    def wrap(self, stream: trio.SocketStream) -> GatedStream:
        return GatedStream(stream, self)

    def release(self, stream: GatedStream) -> None:
        if stream.holding:
            stream.holding = False
            self._free.release()


class GatedStream(trio.abc.Stream):
    """A stream whose seat-taking frame waits for its `OneSeatGate` (see there)."""

    def __init__(self, inner: trio.SocketStream, gate: OneSeatGate) -> None:
        self.inner = inner
        self.gate = gate
        self.holding = False
        self.passed = False

    @property
    def socket(self) -> trio.socket.SocketType:
        """The underlying socket (its local and remote addresses)."""
        return self.inner.socket

    def _is_gated(self, data: bytes | bytearray | memoryview) -> bool:
        try:
            message = unpack(bytes(data[4:]))
        except (LinkError, ValueError, TypeError):
            return False
        return bool(message.get("t") == self.gate.kind)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if not self.passed and self._is_gated(data):
            await self.gate._free.acquire()
            self.holding = True
            self.passed = True
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(max_bytes)

    async def send_eof(self) -> None:
        await self.inner.send_eof()

    async def aclose(self) -> None:
        await self.inner.aclose()


__all__ = [
    "CONNECT_TIMEOUT",
    "RESOLVE_TIMEOUT",
    "STAGGER",
    "LocalAddress",
    "NoAddressAnswered",
    "OneSeatGate",
    "announced_addresses",
    "dial_first",
    "local_ipv4",
    "on_our_networks_first",
    "resolve",
    "shown_addresses",
    "usable_ipv4",
]
