"""Finding tables on the LAN with mDNS / DNS-SD (python-zeroconf).

A host announces ``<table name>._skyjo-lan._tcp.local.`` with its addresses and port and a TXT
record (``v`` protocol version, ``game``, ``seats`` "taken/total", ``pw`` "1" if a password is
needed, ``key`` the host's identity key in base64, which the joiner's handshake then requires,
``state`` "lobby" or "playing"). The host keeps the seat count up to date as people come and go,
and keeps announcing the table while a game is played (``state=playing``: spectators find it
by name; a joiner is told it is playing).
`browse` lists what answers within a few seconds. python-zeroconf runs its own threads: its calls
go through `trio.to_thread.run_sync`, and browser callbacks come back into trio through the trio
token. IPv4 only by default; `interfaces` restricts announcing and listening to given addresses.
The announcement carries every address the table listens on (`addresses.announced_addresses`),
and the joiner tries each (`addresses.dial_first`). A service of our type that does not carry a
valid TXT record is reported as incompatible, never trusted and never a crash.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import ipaddress
import logging
import secrets
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import trio

from protocol.config import PROTOCOL_VERSION
from skyjo_p2p.registry import names as game_names

from .addresses import MAX_ADDRESSES

if TYPE_CHECKING:
    # zeroconf is imported where mDNS is used (about 50 ms at every start otherwise): a
    # `--no-mdns` table, `join HOST:PORT`, `play` and `verify` never load it
    from zeroconf import ServiceInfo, ServiceStateChange, Zeroconf

log = logging.getLogger("skyjo_lan.discovery")

SERVICE = "_skyjo-lan._tcp.local."
GAMES = game_names()


@dataclass
class TableAd:
    """A table seen on the LAN."""

    name: str
    host: str = ""
    port: int = 0
    game: str = ""
    taken: int = 0
    seats: int = 0
    password: bool = False
    version: str = ""
    compatible: bool = True
    problem: str = ""
    addresses: list[str] = field(default_factory=list)
    """Every address the table announced, in its order (`host` is the first)."""
    key: bytes = b""
    """The host's identity key, when the announcement states it (b"": an older host)."""
    playing: bool = False
    """A game is being played at the table (it can be watched; its lobby is not open)."""

    @property
    def endpoints(self) -> list[tuple[str, int]]:
        """Where to dial: each announced address with the table's port."""
        return [(address, self.port) for address in self.addresses]

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "game": self.game,
            "seats": f"{self.taken}/{self.seats}",
            "password": self.password,
            "address": f"{self.host}:{self.port}" if self.host else None,
            "addresses": [f"{a}:{self.port}" for a in self.addresses],
            "compatible": self.compatible,
            "problem": self.problem or None,
            "playing": self.playing,
        }


def _zeroconf(interfaces: Sequence[str] | None) -> Zeroconf:
    """The mDNS responder, on `interfaces` (default: every interface), IPv4 only."""
    from zeroconf import IPVersion, Zeroconf

    if interfaces:
        return Zeroconf(interfaces=list(interfaces), ip_version=IPVersion.V4Only)
    return Zeroconf(ip_version=IPVersion.V4Only)


def parse_service(name: str, info: ServiceInfo | None) -> TableAd:
    """Read a resolved service defensively; anything odd makes it `compatible=False`."""
    from zeroconf import IPVersion

    label = name.removesuffix("." + SERVICE).removesuffix(SERVICE)
    ad = TableAd(name=label[:64] or "?")
    if info is None:
        ad.compatible, ad.problem = False, "did not resolve"
        return ad
    try:
        ad.addresses = _dialable(info.parsed_addresses(IPVersion.V4Only))
        ad.host = ad.addresses[0] if ad.addresses else ""
        ad.port = int(info.port or 0)
        props = {
            (k.decode("utf-8", "replace") if isinstance(k, bytes) else str(k)): (
                v.decode("utf-8", "replace") if isinstance(v, bytes) else ""
            )
            for k, v in (info.properties or {}).items()
        }
        ad.version = props.get("v", "")
        ad.game = props.get("game", "")
        ad.password = props.get("pw") == "1"
        ad.playing = props.get("state") == "playing"
        if props.get("key"):
            ad.key = base64.b64decode(props["key"], validate=True)
            if len(ad.key) != 32:
                raise ValueError("an identity key is 32 bytes")
        if ad.version != str(PROTOCOL_VERSION):  # a foreign or future service: say so first
            ad.compatible = False
            ad.problem = f"protocol version {ad.version or '?'} (we speak {PROTOCOL_VERSION})"
            return ad
        taken, _, total = props.get("seats", "").partition("/")
        ad.taken, ad.seats = int(taken), int(total)
    except (ValueError, TypeError, UnicodeError) as exc:
        ad.compatible, ad.problem = False, f"malformed announcement ({type(exc).__name__})"
        return ad
    if ad.version != str(PROTOCOL_VERSION):
        ad.compatible, ad.problem = (
            False,
            f"protocol version {ad.version or '?'} (we speak {PROTOCOL_VERSION})",
        )
    elif ad.game not in GAMES:
        ad.compatible, ad.problem = False, f"unknown game {ad.game!r}"
    elif not 0 <= ad.taken <= ad.seats <= 8 or ad.seats < 1:
        ad.compatible, ad.problem = False, "bad seat count"
    elif not ad.host or not 0 < ad.port < 65536:
        ad.compatible, ad.problem = False, "no usable address"
    return ad


def _dialable(raw: Sequence[str]) -> list[str]:
    """The announced addresses a joiner may dial: unicast IPv4, no duplicates, at most a few (an
    announcement is anybody's, and each address costs the joiner an attempt)."""
    out: list[str] = []
    for text in raw:
        try:
            ip = ipaddress.IPv4Address(text)
        except ValueError:
            continue
        if ip.is_unspecified or ip.is_multicast or ip.is_reserved or str(ip) in out:
            continue
        out.append(str(ip))
    return out[:MAX_ADDRESSES]


class Advertiser:
    """Announces one table while the lobby is open; `update` changes the seat count.

    `addresses` are all put in the announcement (one A record each): a host with several
    networks, or none with a default route, cannot tell which one its players are on."""

    def __init__(
        self,
        table: str,
        game: str,
        port: int,
        addresses: Sequence[str],
        seats: int,
        password: bool,
        interfaces: Sequence[str] | None = None,
        key: bytes = b"",
    ) -> None:
        if not addresses:
            raise ValueError("a table is announced with at least one address")
        self.table, self.game, self.port = table, game, port
        self.addresses = list(addresses)[:MAX_ADDRESSES]
        self.key = key
        self.seats, self.password, self.interfaces = seats, password, interfaces
        self._zc: Zeroconf | None = None
        self._info: ServiceInfo | None = None

    def _make_info(self, taken: int, playing: bool = False) -> ServiceInfo:
        from zeroconf import ServiceInfo

        return ServiceInfo(
            SERVICE,
            f"{self.table}.{SERVICE}",
            addresses=[ipaddress.ip_address(address).packed for address in self.addresses],
            port=self.port,
            properties={
                "v": str(PROTOCOL_VERSION),
                "game": self.game,
                "seats": f"{taken}/{self.seats}",
                "pw": "1" if self.password else "0",
                "state": "playing" if playing else "lobby",
                **({"key": base64.b64encode(self.key).decode()} if self.key else {}),
            },
            server=self.server,
        )

    @functools.cached_property
    def server(self) -> str:
        """The mDNS host name the table's addresses are announced under: the machine's name
        plus a tag of its own, never the bare ``<hostname>.local.``. That name belongs to the
        machine's own responder (avahi, Bonjour), which announces its own set of addresses for
        it; two responders answering for one name disagree, and a browser may resolve the table
        to the wrong machine (network namespaces, or two laptops both called "raspberrypi",
        share a host name)."""
        raw = socket.gethostname().split(".")[0]
        host = "".join(ch if ch.isascii() and (ch.isalnum() or ch == "-") else "-" for ch in raw)
        tag = self.key.hex()[:8] if self.key else secrets.token_hex(4)
        return f"{host.strip('-')[:40] or 'skyjo-lan'}-skyjo-{tag}.local."

    @property
    def running(self) -> bool:
        """Whether the table is announced now."""
        return self._zc is not None

    async def start(self, taken: int, playing: bool = False) -> None:
        """Announce the table (an announced one is updated instead)."""
        if self._zc is not None:
            await self.update(taken, playing)
            return

        def go() -> None:
            self._zc = _zeroconf(self.interfaces)
            self._info = self._make_info(taken, playing)
            self._zc.register_service(self._info, allow_name_change=True)

        await trio.to_thread.run_sync(go)

    async def update(self, taken: int, playing: bool = False) -> None:
        """Announce a new seat count, or that a game is being played."""
        if self._zc is None:
            return
        zc = self._zc

        def go() -> None:
            self._info = self._make_info(taken, playing)
            zc.update_service(self._info)

        await trio.to_thread.run_sync(go)

    async def stop(self) -> None:
        zc, info = self._zc, self._info
        self._zc = None
        if zc is None:
            return

        def go() -> None:
            if info is not None:
                zc.unregister_service(info)
            zc.close()

        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(go)


async def browse(seconds: float = 3.0, interfaces: Sequence[str] | None = None) -> list[TableAd]:
    """Listen for tables for `seconds`; every service seen, compatible or not."""
    from zeroconf import ServiceBrowser, ServiceStateChange

    token = trio.lowlevel.current_trio_token()
    send, receive = trio.open_memory_channel[tuple[str, ServiceStateChange]](1000)
    zc = await trio.to_thread.run_sync(_zeroconf, interfaces)
    found: dict[str, TableAd] = {}

    def on_change(zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        with contextlib.suppress(trio.RunFinishedError, trio.WouldBlock, trio.ClosedResourceError):
            trio.from_thread.run_sync(send.send_nowait, (name, state_change), trio_token=token)

    browser = await trio.to_thread.run_sync(lambda: ServiceBrowser(zc, SERVICE, handlers=[on_change]))
    try:
        with trio.move_on_after(seconds):
            async for name, change in receive:
                if change is ServiceStateChange.Removed:
                    found.pop(name, None)
                    continue

                def resolve(n: str = name) -> ServiceInfo | None:
                    info = zc.get_service_info(SERVICE, n, timeout=1500)
                    return info

                try:
                    info = await trio.to_thread.run_sync(resolve)
                except Exception as exc:  # a foreign responder can send anything
                    log.info("could not resolve %s: %s", name, exc)
                    info = None
                found[name] = parse_service(name, info)
    finally:

        def close() -> None:
            browser.cancel()
            zc.close()

        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(close)
    return sorted(found.values(), key=lambda ad: (not ad.compatible, ad.name))
