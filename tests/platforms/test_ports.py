"""A fixed range of ports, so one firewall rule covers an evening (client/net/ports.py), the free
port check that does not rely on SO_REUSEADDR on Windows, and the hints a failed connection gets
(client/net/hints.py): issue 27. Only loopback is used."""

from __future__ import annotations

import errno
import socket
from collections.abc import Iterator
from typing import Any

import pytest
import trio

from client import cli
from client.net import hints, ports
from client.net.ports import DEFAULT_RANGE, PortRange, parse_range, probe_option


@pytest.fixture(autouse=True)
def _no_range_left_behind() -> Iterator[None]:
    yield
    ports.use(None)


def test_the_default_range_is_documented_and_below_the_ephemeral_ports() -> None:
    assert str(DEFAULT_RANGE) == "28700-28899"
    assert DEFAULT_RANGE.high < 32768  # Linux's ephemeral ports start there, Windows' and macOS' at 49152


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("28700-28899", PortRange(28700, 28899)),
        (" 40000-40000 ", PortRange(40000, 40000)),
        ("any", None),
        ("0", None),
    ],
)
def test_a_range_is_read(text: str, expected: PortRange | None) -> None:
    assert parse_range(text) == expected


@pytest.mark.parametrize("text", ["28700", "a-b", "5000-4000", "80-90", "60000-70000", "-", ""])
def test_a_bad_range_is_one_line(text: str) -> None:
    with pytest.raises(ValueError, match=r"range|LOW-HIGH"):
        parse_range(text)


async def test_the_first_free_port_of_the_range_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    taken = {30001, 30002}
    tried: list[int] = []

    async def listeners(port: int, host: str) -> list[Any]:
        tried.append(port)
        if port in taken:
            raise OSError(errno.EADDRINUSE, "Address already in use")
        return [port]

    monkeypatch.setattr(trio, "open_tcp_listeners", listeners)
    monkeypatch.setattr(PortRange, "order", lambda self, rng=None: list(range(self.low, self.high + 1)))
    ports.use(PortRange(30001, 30003))
    opened: Any = await ports.open_listener("127.0.0.1")
    assert opened == 30003
    assert tried == [30001, 30002, 30003]
    opened = await ports.open_listener("127.0.0.1", 4242)
    assert opened == 4242  # a port given is that port
    taken.add(30003)
    with pytest.raises(OSError, match="every port of 30001-30003 is in use") as failed:
        await ports.open_listener("127.0.0.1")
    assert failed.value.errno == errno.EADDRINUSE
    ports.use(None)
    opened = await ports.open_listener("127.0.0.1")
    assert opened == 0  # no range: any free port


async def test_windows_reserved_ports_are_skipped_too(monkeypatch: pytest.MonkeyPatch) -> None:
    async def listeners(port: int, host: str) -> list[Any]:
        if port == 30001:
            raise PermissionError(errno.EACCES, "An attempt was made to access a socket in a way forbidden")
        return [port]

    monkeypatch.setattr(trio, "open_tcp_listeners", listeners)
    monkeypatch.setattr(PortRange, "order", lambda self, rng=None: list(range(self.low, self.high + 1)))
    opened: Any = await ports.open_listener("127.0.0.1", ports=PortRange(30001, 30002))
    assert opened == 30002


async def test_a_real_listener_in_a_one_port_range() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    one = PortRange(free, free)
    listener = await ports.open_listener("127.0.0.1", ports=one)
    try:
        assert listener.socket.getsockname()[1] == free
        with pytest.raises(OSError, match=f"every port of {free}-{free}"):
            await ports.open_listener("127.0.0.1", ports=one)
    finally:
        await listener.aclose()


def test_the_free_port_check_uses_exclusive_binding_on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    assert probe_option("linux") == (socket.SOL_SOCKET, socket.SO_REUSEADDR)
    assert probe_option("darwin") == (socket.SOL_SOCKET, socket.SO_REUSEADDR)
    monkeypatch.setattr(
        socket, "SO_EXCLUSIVEADDRUSE", -5, raising=False
    )  # its value on Windows is ~SO_REUSEADDR
    assert probe_option("win32") == (socket.SOL_SOCKET, -5)
    monkeypatch.delattr(socket, "SO_EXCLUSIVEADDRUSE")
    assert probe_option("win32") is None  # never SO_REUSEADDR there


def test_hosting_on_a_port_in_use_is_refused() -> None:
    from client import cmdline

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        with pytest.raises(cmdline.InputError, match="already in use"):
            cmdline.port_is_free("127.0.0.1", port)


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (OSError(errno.ECONNREFUSED, "Connection refused"), "refused"),
        (OSError(errno.EHOSTUNREACH, "No route to host"), "unreachable"),
        (OSError(errno.ENETUNREACH, "Network is unreachable"), "unreachable"),
        (OSError(errno.ETIMEDOUT, "Connection timed out"), "timeout"),
        (trio.TooSlowError(), "timeout"),
        (ValueError("something else"), None),
        (OSError(errno.EADDRINUSE, "in use"), None),
    ],
)
def test_how_a_connection_failed(exc: BaseException, kind: str | None) -> None:
    assert hints.kind_of(exc) == kind


def test_windows_socket_errors_and_trio_s_wrapped_attempts() -> None:
    windows = OSError(errno.EINVAL, "unreachable")
    windows.winerror = 10065  # type: ignore[attr-defined]  # WSAEHOSTUNREACH
    assert hints.kind_of(windows) == "unreachable"
    attempts = ExceptionGroup("attempts", [OSError(errno.ECONNREFUSED, "refused"), windows])
    wrapped = OSError("all attempts to connect to 10.0.0.2:28700 failed")
    wrapped.__cause__ = attempts
    assert hints.kind_of(wrapped) == "unreachable"  # the most telling of the causes
    hint = hints.reach_hint(wrapped) or ""
    assert "Local Network" in hint and "guest Wi-Fi" in hint and hints.TROUBLESHOOTING in hint
    assert "28700-28899" in (hints.reach_hint(trio.TooSlowError()) or "")
    assert "firewall" in (hints.reach_hint(trio.TooSlowError()) or "")


def test_join_takes_its_range_and_a_refused_connection_says_what_to_check(
    capsys: pytest.CaptureFixture[str], tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]  # nothing listens there once closed
    code = cli.main(["join", "--port-range", "31000-31010", f"127.0.0.1:{closed}", "--bot", "random"])
    err = capsys.readouterr().err
    assert code == 1
    assert ports.in_force() == PortRange(31000, 31010)
    assert "nothing answered on that port" in err and hints.TROUBLESHOOTING in err
    assert cli.main(["join", "--port-range", "5-3", "127.0.0.1:1", "--bot", "random"]) == 2
    assert "is not a range of ports" in capsys.readouterr().err


def test_the_default_range_is_in_force_for_host_and_join() -> None:
    parser = cli.build_parser()
    for command in (["host"], ["join"]):
        args = parser.parse_args(command)
        assert args.port_range == "28700-28899"


def test_the_join_screen_says_what_to_check_when_the_table_cannot_be_reached() -> None:
    # issue 27: the screens of `join` told a failed connection without the hint the line output has
    import errno

    from client.net.hints import TROUBLESHOOTING
    from client.ui.network import _with_hint

    unreachable = _with_hint(OSError(errno.EHOSTUNREACH, "No route to host"))
    assert unreachable.startswith("[Errno") and "Wi-Fi" in unreachable and TROUBLESHOOTING in unreachable
    assert TROUBLESHOOTING in _with_hint(ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"))
    assert _with_hint(ValueError("the lobby ended")) == "the lobby ended"  # not a reach failure: as it was
