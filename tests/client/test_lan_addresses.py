"""A table reachable on every address of the host, whatever the LAN (issue 13, point 1 and the
host-name part of point 5).

The host used to announce one address guessed from the default route: on a LAN without one it
announced 127.0.0.1 and nobody could join by name; with a VPN holding the default route, or a
second network, it announced the wrong one. Now it announces every usable address and the joiner
tries each, a quarter of a second apart, the first completed handshake winning.

Unit tests (no network but loopback): which addresses are announced, the staggered dialer, one
seat however many addresses reach the host, a host name that never resolves (on trio's MockClock:
no real time). Whole games in network namespaces (nothing touches a real interface): no default
route; a second host interface the joiner cannot reach, listed first; the default route on a
VPN-like interface.
"""

from __future__ import annotations

import base64
import ipaddress
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given
from hypothesis import strategies as st
from zeroconf import ServiceInfo

import client.table.host as hosting
import client.table.join as joining
from client.net.addresses import (
    LocalAddress,
    NoAddressAnswered,
    OneSeatGate,
    _interface_up,
    announced_addresses,
    dial_first,
    local_ipv4,
    on_our_networks_first,
    resolve,
    shown_addresses,
    usable_ipv4,
)
from client.net.discovery import SERVICE, Advertiser, parse_service
from client.net.framing import encode_frame
from client.net.link import Link, LinkError, Refused, accept, dial
from client.net.linkproto import pack
from client.table.host import Host, HostOptions
from client.table.join import JoinOptions, find_table
from client.ui.network import HostLobby
from protocol.config import PROTOCOL_VERSION
from tests.client.netlab import NetLab, _ip, env_for, open_lab, output, wait_all
from tests.client.saved_games import verify_json

TABLE = b"skyjo-lan/lobby"


# --- which addresses a host announces ---------------------------------------------------------


def test_loopback_down_interfaces_and_junk_are_not_announced():
    found = [
        LocalAddress("lo", "127.0.0.1"),
        LocalAddress("docker0", "172.17.0.1"),
        LocalAddress("wlan0", "192.168.1.20"),
        LocalAddress("eth1", "10.0.0.5", up=False),  # a cable that is not plugged in
        LocalAddress("eth0", "169.254.7.7"),  # no DHCP server: link-local, still a LAN
        LocalAddress("eth0", "192.168.1.20"),  # the same address twice (an alias)
        LocalAddress("eth2", "0.0.0.0"),
        LocalAddress("eth3", "not an address"),
        LocalAddress("enp3s0", "10.1.2.3"),
    ]
    assert usable_ipv4(found) == ["192.168.1.20", "10.1.2.3", "169.254.7.7", "172.17.0.1"]
    assert announced_addresses("0.0.0.0", found) == ["192.168.1.20", "10.1.2.3", "169.254.7.7", "172.17.0.1"]


def test_interface_restricts_and_loopback_is_the_last_resort():
    found = [LocalAddress("lo", "127.0.0.1"), LocalAddress("eth0", "192.168.1.20")]
    assert announced_addresses("192.168.1.20", found) == ["192.168.1.20"]  # --interface: that one only
    assert announced_addresses("127.0.0.1", found) == ["127.0.0.1"]  # even a loopback one
    # a machine with no network at all: the table can still be joined from the machine itself
    assert announced_addresses("0.0.0.0", [LocalAddress("lo", "127.0.0.1")]) == ["127.0.0.1"]
    assert announced_addresses("0.0.0.0", []) == ["127.0.0.1"]


interfaces = st.sampled_from(["lo", "eth0", "wlan0", "docker0", "tun0", "veth1a", "enp0s3"])
addresses = st.one_of(
    st.ip_addresses(v=4).map(str), st.sampled_from(["127.0.0.1", "0.0.0.0", "224.0.0.251", "x"])
)


@given(st.lists(st.builds(LocalAddress, interfaces, addresses, st.booleans()), max_size=30))
def test_announced_addresses_are_unique_reachable_unicast_ones(found):
    usable = usable_ipv4(found)
    assert len(usable) == len(set(usable)) <= 16
    for text in usable:
        ip = ipaddress.IPv4Address(text)
        assert not (ip.is_loopback or ip.is_multicast or ip.is_unspecified or ip.is_reserved)
        assert any(c.address == text and c.up for c in found)
    # interfaces that are usually containers or VPNs come after the others
    first = {a: next(c for c in found if c.address == a and c.up) for a in usable}
    virtual = [first[a].interface.startswith(("docker", "tun", "veth")) for a in usable]
    assert virtual == sorted(virtual)
    assert announced_addresses("0.0.0.0", found) == (usable or ["127.0.0.1"])


def test_an_interface_is_usable_only_when_up_with_a_carrier(tmp_path):
    def interface(name: str, flags: str, state: str) -> None:
        (tmp_path / name).mkdir()
        (tmp_path / name / "flags").write_text(flags + "\n")
        (tmp_path / name / "operstate").write_text(state + "\n")

    interface("eth0", "0x1003", "up")
    interface("eth1", "0x1003", "down")  # up, but no cable
    interface("eth2", "0x1002", "down")  # administratively down
    interface("tun0", "0x1091", "unknown")  # tunnels and loopback say "unknown": usable
    assert _interface_up("eth0", tmp_path)
    assert not _interface_up("eth1", tmp_path)
    assert not _interface_up("eth2", tmp_path)
    assert _interface_up("tun0", tmp_path)
    assert _interface_up("eth0:1", tmp_path)  # an alias is its interface
    assert _interface_up("en0", tmp_path)  # cannot tell (not Linux): assume usable


def test_this_machine_lists_its_loopback_address():
    assert any(a.address == "127.0.0.1" for a in local_ipv4())


def test_the_announcement_carries_every_address_and_the_host_key():
    key = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    advertiser = Advertiser("Kitchen", "skyjo", 4000, ["10.0.0.5", "192.168.1.20"], 4, False, key=key)
    info = advertiser._make_info(1)
    ad = parse_service(f"Kitchen.{SERVICE}", info)
    assert ad.compatible, ad.problem
    assert ad.addresses == ["10.0.0.5", "192.168.1.20"] and ad.host == "10.0.0.5"
    assert ad.endpoints == [("10.0.0.5", 4000), ("192.168.1.20", 4000)]
    assert ad.key == key
    assert ad.as_dict()["addresses"] == ["10.0.0.5:4000", "192.168.1.20:4000"]
    with pytest.raises(ValueError, match="at least one address"):
        Advertiser("Kitchen", "skyjo", 4000, [], 4, False)


def test_the_table_is_announced_under_a_host_name_of_its_own():
    """Not the machine's bare ``<hostname>.local.``, which the machine's own responder (avahi)
    answers with its own addresses: a browser then resolved the table to another namespace."""
    key = bytes(range(32))
    advertiser = Advertiser("T", "skyjo", 4000, ["10.0.0.5"], 4, False, key=key)
    bare = socket.gethostname().split(".")[0] + ".local."
    assert advertiser._make_info(1).server != bare
    assert advertiser.server.endswith("-skyjo-00010203.local.")  # stable for one host key
    assert len(advertiser.server.split(".")[0]) <= 63


def _info(addresses: list[str], key: str | None = None, version: str = str(PROTOCOL_VERSION)) -> ServiceInfo:
    props = {"v": version, "game": "skyjo", "seats": "1/4", "pw": "0"}
    if key is not None:
        props["key"] = key
    return ServiceInfo(
        SERVICE,
        f"T.{SERVICE}",
        addresses=[socket.inet_aton(a) for a in addresses],
        port=4000,
        properties=props,
        server="h.local.",
    )


def test_a_joiner_drops_announced_addresses_nobody_can_dial():
    ad = parse_service(f"T.{SERVICE}", _info(["0.0.0.0", "224.0.0.251", "10.0.0.5", "10.0.0.5", "250.1.1.1"]))
    assert ad.compatible and ad.addresses == ["10.0.0.5"]
    ad = parse_service(f"T.{SERVICE}", _info(["0.0.0.0"]))
    assert not ad.compatible and ad.problem == "no usable address"
    many = parse_service(f"T.{SERVICE}", _info([f"10.0.{i // 250}.{i % 250 + 1}" for i in range(300)]))
    assert len(many.addresses) == 16  # an announcement is anybody's: a few attempts at most


def test_a_malformed_key_makes_the_announcement_incompatible():
    for bad in ["not base64!", base64.b64encode(b"short").decode()]:
        ad = parse_service(f"T.{SERVICE}", _info(["10.0.0.5"], key=bad))
        assert not ad.compatible and "malformed" in ad.problem
    assert parse_service(f"T.{SERVICE}", _info(["10.0.0.5"])).key == b""  # an older host: no key


def test_a_table_of_another_protocol_version_is_listed_as_incompatible():
    # version 1 (edwards25519, before issue 16), 2 (the vote before issue 25), 3 (the shuffle
    # proof before its commitment form), 4 (the share proofs before theirs, issue 29) and 5 (frame
    # signatures checked by libsodium's cofactorless equation) cannot play with version 6, nor can
    # a later one: say so, do not join
    assert PROTOCOL_VERSION == 6
    for other in ("1", "2", "3", "4", "5", "7", ""):
        ad = parse_service(f"T.{SERVICE}", _info(["10.0.0.5"], version=other))
        assert not ad.compatible
        assert ad.problem == f"protocol version {other or '?'} (we speak {PROTOCOL_VERSION})"
    assert parse_service(f"T.{SERVICE}", _info(["10.0.0.5"], version="6")).compatible


def test_a_joiner_tries_addresses_on_its_own_networks_first():
    mine = [LocalAddress("lo", "127.0.0.1", True, 8), LocalAddress("wlan0", "192.168.1.7", True, 24)]
    mine.append(LocalAddress("eth0", "10.0.0.7", False, 24))  # down: not a network we are on
    announced = [("169.254.1.1", 1), ("10.0.0.5", 1), ("172.17.0.1", 1), ("192.168.1.20", 1)]
    announced += [("junk", 1), ("192.168.1.21", 1)]
    assert on_our_networks_first(announced, mine) == [
        ("192.168.1.20", 1),
        ("192.168.1.21", 1),
        ("10.0.0.5", 1),
        ("172.17.0.1", 1),
        ("169.254.1.1", 1),
        ("junk", 1),
    ]
    assert on_our_networks_first(announced, [])[:3] == [
        ("10.0.0.5", 1),
        ("172.17.0.1", 1),
        ("192.168.1.20", 1),
    ]
    # a machine with only a link-local address (no DHCP server): the table's link-local one first
    alone = [LocalAddress("eth0", "169.254.9.9", True, 16)]
    assert on_our_networks_first(announced, alone)[0] == ("169.254.1.1", 1)


def test_shown_addresses_name_the_first_few():
    assert shown_addresses(["10.0.0.5"], 4000) == "10.0.0.5:4000"
    assert shown_addresses(["a", "b", "c", "d", "e"], 1) == "a:1, b:1, c:1 (+2 more)"


# --- the staggered dialer on loopback ----------------------------------------------------------


class Table:
    """A lobby listener on loopback that completes the real handshake (as a host's would)."""

    def __init__(self, identity: Ed25519PrivateKey | None = None, password: str | None = None) -> None:
        self.identity = identity or Ed25519PrivateKey.generate()
        self.password = password
        self.admitted: list[bytes] = []
        self.port = 0

    async def serve(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]

        async def handle(stream: trio.SocketStream) -> None:
            def admit(peer, hello):
                self.admitted.append(peer.key)
                return None

            try:
                _link, _ = await accept(
                    stream,
                    self.identity,
                    name="table",
                    table=TABLE,
                    password=self.password,
                    admit=admit,
                    accepted=lambda peer, hello: {"seat": len(self.admitted)},
                )
            except (LinkError, trio.BrokenResourceError, OSError):
                await stream.aclose()
                return
            await trio.sleep_forever()

        task_status.started(self.port)
        await trio.serve_listeners(handle, listeners)


class Silent:
    """Accepts connections and never says a word; notes when the other end closes one."""

    def __init__(self) -> None:
        self.closed = trio.Event()
        self.port = 0

    async def serve(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
        self.port = listeners[0].socket.getsockname()[1]

        async def handle(stream: trio.SocketStream) -> None:
            try:
                while await stream.receive_some(4096):
                    pass
            except trio.BrokenResourceError:
                pass
            self.closed.set()

        task_status.started(self.port)
        await trio.serve_listeners(handle, listeners)


def refused_port() -> int:
    """A loopback port nobody listens on (bound, then closed: connecting is refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def joiner_handshake(identity: Ed25519PrivateKey, expect: bytes | None = None, password: str | None = None):
    async def handshake(stream: trio.SocketStream) -> tuple[Link, dict]:
        return await dial(
            stream,
            identity,
            name="me",
            role="join",
            table=TABLE,
            port=1,
            expect_key=expect,
            password=password,
        )

    return handshake


async def discard(result: tuple[Link, dict]) -> None:
    await result[0].aclose()


async def test_the_first_address_whose_handshake_completes_wins_and_the_others_are_closed():
    table, silent = Table(), Silent()
    async with trio.open_nursery() as nursery:
        await nursery.start(table.serve)
        await nursery.start(silent.serve)
        candidates = [("127.0.0.1", silent.port), ("127.0.0.1", refused_port()), ("127.0.0.1", table.port)]
        me = Ed25519PrivateKey.generate()
        with trio.fail_after(30):
            (link, accepted), winner = await dial_first(
                candidates, joiner_handshake(me, table.identity.public_key().public_bytes_raw()), discard
            )
            assert winner == ("127.0.0.1", table.port)
            assert link.peer.key == table.identity.public_key().public_bytes_raw()
            assert accepted["seat"] == 1
            await silent.closed.wait()  # the attempt at the silent address was cancelled and closed
        assert table.admitted == [me.public_key().public_bytes_raw()]
        await link.aclose()
        nursery.cancel_scope.cancel()


async def test_an_address_that_reaches_another_program_is_not_the_table():
    """A second skyjo-lan (another table, another key) at one address: its handshake proves the
    wrong key, so it loses to the table's own address even when tried first."""
    other, table = Table(), Table()
    async with trio.open_nursery() as nursery:
        await nursery.start(other.serve)
        await nursery.start(table.serve)
        key = table.identity.public_key().public_bytes_raw()
        with trio.fail_after(30):
            (link, _), winner = await dial_first(
                [("127.0.0.1", other.port), ("127.0.0.1", table.port)],
                joiner_handshake(Ed25519PrivateKey.generate(), key),
                discard,
            )
        assert winner == ("127.0.0.1", table.port) and link.peer.key == key
        await link.aclose()
        nursery.cancel_scope.cancel()


async def test_when_every_address_fails_one_message_lists_them_all(autojump_clock):
    silent = Silent()
    async with trio.open_nursery() as nursery:
        await nursery.start(silent.serve)
        dead = refused_port()
        with pytest.raises(NoAddressAnswered) as failed:
            await dial_first(
                [("127.0.0.1", silent.port), ("127.0.0.1", dead)],
                joiner_handshake(Ed25519PrivateKey.generate()),
                discard,
            )
        nursery.cancel_scope.cancel()
    message = str(failed.value)
    assert message.startswith("could not reach the table at any of its 2 addresses: ")
    assert f"127.0.0.1:{silent.port} (no answer to the handshake within 10 s)" in message
    assert f"127.0.0.1:{dead} (connection refused)" in message


async def test_a_refusal_from_the_table_is_what_the_player_hears():
    """A wrong password is the table's answer: said as such, not buried in a list of addresses."""
    table = Table(password="open sesame")
    async with trio.open_nursery() as nursery:
        await nursery.start(table.serve)
        with trio.fail_after(30), pytest.raises(Refused, match="wrong password"):
            await dial_first(
                [("127.0.0.1", refused_port()), ("127.0.0.1", table.port)],
                joiner_handshake(Ed25519PrivateKey.generate(), password="guess"),
                discard,
            )
        nursery.cancel_scope.cancel()


async def test_one_address_fails_with_its_own_error(autojump_clock):
    with pytest.raises(OSError):
        await dial_first(
            [("127.0.0.1", refused_port())], joiner_handshake(Ed25519PrivateKey.generate()), discard
        )
    silent = Silent()
    async with trio.open_nursery() as nursery:
        await nursery.start(silent.serve)
        with pytest.raises(LinkError) as stalled:
            await dial_first(
                [("127.0.0.1", silent.port)], joiner_handshake(Ed25519PrivateKey.generate()), discard
            )
        nursery.cancel_scope.cancel()
    assert str(stalled.value) == f"127.0.0.1:{silent.port}: no answer to the handshake within 10 s"
    with pytest.raises(LinkError, match="no address"):
        await dial_first([], joiner_handshake(Ed25519PrivateKey.generate()), discard)


async def test_only_one_attempt_at_a_time_may_send_the_message_that_takes_a_seat():
    gate = OneSeatGate()
    (a, a_far), (b, b_far) = trio.testing.memory_stream_pair(), trio.testing.memory_stream_pair()
    first, second = gate.wrap(a), gate.wrap(b)  # type: ignore[arg-type]
    hello, auth = encode_frame(pack({"t": "hello"})), encode_frame(pack({"t": "auth", "sig": b"x"}))
    sent: list[str] = []

    async def send(stream, name: str) -> None:
        await stream.send_all(hello)
        await stream.send_all(auth)
        sent.append(name)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(send, first, "first")
        await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(send, second, "second")
        await trio.testing.wait_all_tasks_blocked()
        assert sent == ["first"]  # the second one's hello went out, its auth waits
        assert await b_far.receive_some() == hello
        gate.release(first)  # the first attempt failed: the second may go on
        await trio.testing.wait_all_tasks_blocked()
        assert sent == ["first", "second"]
        assert await b_far.receive_some() == auth
    assert await a_far.receive_some() == hello + auth


class SlowAdmission:
    """Wraps the host's `accept`: after admitting a player, the host holds its answer until a
    second attempt has been admitted too (at most 2 s), so that two handshakes of one player
    overlap at the host, the case `OneSeatGate` is there for, whatever the scheduling."""

    def __init__(self) -> None:
        self.admitted = 0
        self.both = trio.Event()

    def __call__(self, real):
        async def accept_slowly(stream, identity, *, admit, **kwargs):
            def counting(peer, hello):
                reason = admit(peer, hello)
                if reason is None:
                    self.admitted += 1
                    if self.admitted >= 2:
                        self.both.set()
                return reason

            return await real(Held(stream, self.both), identity, admit=counting, **kwargs)

        return accept_slowly


class Held(trio.abc.Stream):
    """The host's side of a lobby connection whose ``auth`` answer waits for `event` (2 s at most)."""

    def __init__(self, inner, event: trio.Event) -> None:
        self.inner, self.event, self.socket = inner, event, inner.socket

    async def send_all(self, data) -> None:
        if b"\xa1t\xa4auth" in bytes(data[4:]):  # the msgpack of {"t": "auth", ...}
            with trio.move_on_after(2):
                await self.event.wait()
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes=None):
        return await self.inner.receive_some(max_bytes)

    async def send_eof(self) -> None:
        await self.inner.send_eof()

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_two_addresses_of_one_host_seat_the_player_once(monkeypatch, tmp_path):
    """127.0.0.1 and "localhost" both reach the host (as Ethernet and Wi-Fi on one network would),
    tried at the same moment: the host seats the player once and never sees them leave."""
    slow = SlowAdmission()
    monkeypatch.setattr(hosting, "accept", slow(hosting.accept))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    lines: list[str] = []
    host = Host(
        HostOptions(game="skyjo", seats=3, advertise=False, interface="127.0.0.1", name="host", save=False),
        Ed25519PrivateKey.generate(),
        lines.append,
    )

    async def at_once(*args, **kwargs):
        return await dial_first(*args, **{**kwargs, "stagger": 0})

    monkeypatch.setattr(joining, "dial_first", at_once)
    async with trio.open_nursery() as nursery:
        port = await nursery.start(host.run)
        opts = JoinOptions(name="p1", interface="127.0.0.1", save=False)
        opts.found = joining.Destination([("127.0.0.1", port), ("localhost", port)])
        joiner = joining.Joiner(opts, Ed25519PrivateKey.generate(), lines.append)
        nursery.start_soon(joiner.run)
        with trio.fail_after(30):
            while len(host.seats) < 2 or joiner.link is None:
                await trio.sleep(0.01)
            await trio.testing.wait_all_tasks_blocked(0.2)  # a second seat or a departure would show
        assert [s.name for s in host.seats] == ["host", "p1"], lines
        assert slow.admitted == 1
        assert not any("left" in line for line in lines), lines
        assert HostLobby(host).lobby().address == f"127.0.0.1:{port}"
        nursery.cancel_scope.cancel()


# --- host names --------------------------------------------------------------------------------


class HangingResolver(trio.abc.HostnameResolver):
    """A resolver that never answers (a DNS server that drops queries)."""

    async def getaddrinfo(self, host, port, family=0, type=0, proto=0, flags=0):
        await trio.sleep_forever()

    async def getnameinfo(self, sockaddr, flags):
        await trio.sleep_forever()


class NoSuchName(trio.abc.HostnameResolver):
    async def getaddrinfo(self, host, port, family=0, type=0, proto=0, flags=0):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    async def getnameinfo(self, sockaddr, flags):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


async def test_a_host_name_that_never_resolves_fails_in_bounded_time(autojump_clock):
    previous = trio.socket.set_custom_hostname_resolver(HangingResolver())
    try:
        start = trio.current_time()
        with (
            trio.fail_after(60),
            pytest.raises(LinkError, match=r"'table\.example' did not resolve within 10 s"),
        ):
            await find_table(JoinOptions(target="table.example:4000"), print)
        assert trio.current_time() - start == pytest.approx(10)  # simulated seconds: the bound, no more
    finally:
        trio.socket.set_custom_hostname_resolver(previous)


async def test_a_host_name_that_does_not_exist_is_one_clear_line(autojump_clock):
    previous = trio.socket.set_custom_hostname_resolver(NoSuchName())
    try:
        with pytest.raises(LinkError, match=r"the name 'nosuch\.example' does not resolve \(Name or service"):
            await find_table(JoinOptions(target="nosuch.example:4000"), print)
    finally:
        trio.socket.set_custom_hostname_resolver(previous)


async def test_addresses_and_bad_ports_need_no_resolver():
    previous = trio.socket.set_custom_hostname_resolver(HangingResolver())
    try:
        with trio.fail_after(5):  # an address literal never waits for a resolver
            assert (await find_table(JoinOptions(target="10.1.2.3:4000"), print)).endpoints == [
                ("10.1.2.3", 4000)
            ]
            with pytest.raises(LinkError, match="port 0 is not between 1 and 65535"):
                await resolve("10.1.2.3", 0)
            with pytest.raises(LinkError, match="has no host"):
                await find_table(JoinOptions(target=":4000"), print)
    finally:
        trio.socket.set_custom_hostname_resolver(previous)


@pytest.fixture
def autojump_clock():
    return trio.testing.MockClock(autojump_threshold=0)


# --- whole games in network namespaces ---------------------------------------------------------


@pytest.fixture
def lab(request):
    yield from open_lab(request, base=120)


def side_link(lab: NetLab, i: int, name: str, address: str) -> None:
    """A second interface `name` in host i: a veth whose other end sits unbridged, without an
    address, in the lab's hub namespace. Up, with a carrier, and leading nowhere: nothing answers
    there, not even an "unreachable" (an address behind it is a silent black hole)."""
    hub = f"{lab.prefix}h"
    far = f"{lab.prefix}{name[:3]}{i}"
    _ip("-n", lab.ns(i), "link", "add", name, "type", "veth", "peer", "name", far, "netns", hub)
    _ip("-n", lab.ns(i), "addr", "add", address, "dev", name)
    _ip("-n", lab.ns(i), "link", "set", name, "up")
    _ip("-n", hub, "link", "set", far, "up")


ROOT = Path(__file__).resolve().parents[2]


def announced_in(lab: NetLab, i: int) -> list[str]:
    """What a host in namespace i announces (the program's own enumeration, run there)."""
    code = (
        "import json; from client.net.addresses import announced_addresses as a; "
        "print(json.dumps(a('0.0.0.0')))"
    )
    result = subprocess.run(
        ["ip", "netns", "exec", lab.ns(i), sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    return list(json.loads(result.stdout))


def announced_to(lab: NetLab, tmp_path: Path, i: int, table: str, tries: int = 10) -> bool:
    """Whether `discover` in namespace i lists `table` (bounded tries: an announcement takes a
    moment, longer on a loaded machine)."""
    for _ in range(tries):
        probe = lab.python(i, ["-m", "client", "discover", "--json", "--seconds", "3"], env_for(tmp_path, i))
        assert wait_all([probe], 60) == [0], output(probe)
        lines = output(probe).strip().splitlines()
        if lines and table in {t["name"] for t in json.loads(lines[-1])}:
            return True
    return False


def play_by_name(lab: NetLab, tmp_path: Path, joiners: list[int], table: str) -> list[str]:
    """The host in namespace 1 with no --interface, joiners by table name (mDNS, inside the
    namespaces only); a small game of bots to its end. Returns every process's output."""
    seats = str(len(joiners) + 1)
    argv = ["-m", "client", "host", "--game", "skyjo", "--seats", seats, "--bot", "greedy"]
    argv += ["--name", table, "--nick", "ana", "--option", "target_score=40"]
    host = lab.python(1, argv, env_for(tmp_path, 1))
    # the joiners browse once: start them when the table is announced, never after a fixed delay
    for _ in range(600):
        if " open on " in output(host) or host.poll() is not None:
            break
        time.sleep(0.1)
    assert " open on " in output(host), output(host)
    for i in joiners:
        assert announced_to(lab, tmp_path, i, table), f"namespace {i} never saw {table!r} announced"
    players = [
        lab.python(
            i, ["-m", "client", "join", table, "--bot", "greedy", "--nick", f"p{i}"], env_for(tmp_path, i)
        )
        for i in joiners
    ]
    codes = wait_all([host, *players], timeout=300)
    logs = [output(p) for p in [host, *players]]
    everything = "\n".join(f"--- process {n} ---\n{text[-3000:]}" for n, text in enumerate(logs))
    assert codes == [0] * len(codes), everything
    for text in logs:
        assert "game over" in text, everything
    for i in [1, *joiners]:
        files = sorted((tmp_path / f"data{i}" / "skyjo-lan" / "games").glob("*.skyjo"))
        result = verify_json(files[-1])[1]
        assert result["valid"] and result["finished"], result
    return logs


def test_join_by_name_on_a_lan_without_a_default_route(lab, tmp_path):
    for i in (1, 2, 3):
        routes = subprocess.run(
            ["ip", "-n", lab.ns(i), "route", "show", "default"], capture_output=True, text=True
        )
        assert routes.stdout.strip() == ""  # the lab's LAN has no default route, as a bare switch
    assert announced_in(lab, 1) == [lab.address(1)]  # not 127.0.0.1
    host, *_ = play_by_name(lab, tmp_path, [2, 3], "No route table")
    assert f"open on {lab.address(1)}:" in host  # the address to give friends, not 0.0.0.0


@pytest.mark.parametrize("lab", [2], indirect=True)
def test_a_host_address_the_joiner_cannot_reach_is_skipped(lab, tmp_path):
    """The host has a second network; the joiner has another network that happens to use the same
    numbers (10.99.0.0/24: a phone's hotspot and a travel router, say). The host's address there
    looks like the joiner's own network, so the joiner tries it first; nothing answers there, not
    even "unreachable" (ARP goes unanswered), and a quarter of a second later it tries the LAN
    address, which wins. The joiner reaches the LAN through a route rather than as its own subnet
    (a /32 address) so that its order of attempts is known."""
    side_link(lab, 1, "lan1", "10.99.0.1/24")
    side_link(lab, 2, "lan1", "10.99.0.2/24")
    lan = f"10.{lab.subnet}.0.0/24"
    _ip("-n", lab.ns(2), "addr", "del", f"{lab.address(2)}/24", "dev", "eth0")
    _ip("-n", lab.ns(2), "addr", "add", f"{lab.address(2)}/32", "dev", "eth0")
    _ip("-n", lab.ns(2), "route", "add", lan, "dev", "eth0", "src", lab.address(2))
    _ip("-n", lab.ns(2), "route", "replace", "224.0.0.0/4", "dev", "eth0")
    assert set(announced_in(lab, 1)) == {"10.99.0.1", lab.address(1)}
    _host, joiner = play_by_name(lab, tmp_path, [2], "Two networks")
    assert f"at 10.99.0.1:{lobby_port(joiner)}, {lab.address(1)}:" in joiner  # tried in that order
    assert f"seated at {lab.address(1)}:" in joiner


def lobby_port(joiner_output: str) -> str:
    return joiner_output.split("seated at ", 1)[1].split(" ", 1)[0].rsplit(":", 1)[1]


@pytest.mark.parametrize("lab", [2], indirect=True)
def test_join_by_name_with_the_default_route_on_a_vpn(lab, tmp_path):
    # a VPN-like interface holds every peer's default route (its far end drops everything): the
    # old guess announced the VPN address
    for i in (1, 2):
        side_link(lab, i, "vpn0", f"10.200.{i}.2/24")
        _ip("-n", lab.ns(i), "route", "add", "default", "dev", "vpn0")
    assert set(announced_in(lab, 1)) == {"10.200.1.2", lab.address(1)}
    _host, joiner = play_by_name(lab, tmp_path, [2], "Behind a VPN")
    assert f"seated at {lab.address(1)}:" in joiner
