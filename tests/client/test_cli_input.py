"""What people type on the `host` and `join` command lines (issue 13, points 5 and 6).

Every mistake ends in one line on standard error and exit status 2, before anything listens,
dials or browses: ports out of range or in use, an --interface that is not this machine's, an
address without its port, table names and nicknames mDNS or the lobby cannot carry, an empty
$SKYJO_LAN_PASSWORD, a password nobody can be asked for. A host without a terminal waits for
its seats instead of reading the end of its input as "start now", and a host asked for a
password without one gets a word code that joiners may type loosely.

Network rule: everything here talks to loopback only; no test browses mDNS (`join NAME` is only
run with `browse` replaced, see `test_join_address_without_port_never_browses`).
"""

from __future__ import annotations

import errno
import os
import queue
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest
import trio
from hypothesis import given
from hypothesis import strategies as st
from zeroconf import ServiceInfo
from zeroconf._utils.name import service_type_name

import client.table.join as joining
from client import cmdline
from client.cli import main
from client.net import wordcode
from client.net.discovery import SERVICE
from client.table.commands import _network_errors, run_host
from client.table.host import HostOptions
from skyjo_p2p.core.errors import OptionError

ROOT = Path(__file__).resolve().parents[2]
CODE = re.compile(r"table password: (\d+(?:-[a-z]+)+) ")


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    """The environment of a user with a fresh identity and data directory, no password set."""
    env = {k: v for k, v in os.environ.items() if k != "SKYJO_LAN_PASSWORD"}
    env.update(
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
        SKYJO_LAN_STEP_TIMEOUT="20",
    )
    return env


@pytest.fixture(autouse=True)
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("SKYJO_LAN_PASSWORD", raising=False)


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port another program listens on (on loopback)."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        yield other.getsockname()[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run(argv: list[str | bytes], env: dict[str, str], stdin: Any = subprocess.DEVNULL) -> tuple[int, str]:
    """The program as a person runs it; its exit status and standard error."""
    done = subprocess.run(
        [sys.executable, "-m", "client", *argv],
        stdin=stdin,
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    return done.returncode, done.stderr.decode("utf-8", "replace")


class ReachedTheTable(Exception):
    """Raised by the stand-ins for `run_host` and `run_join`: a mistake got past the checks."""


def refused_in_process(argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: Any) -> tuple[int, str]:
    """`main(argv)` in this process (the same code as the program, without starting one: some 0.4 s
    of CPU each, 28 times): its exit status and standard error. The table's entry points are
    replaced by stand-ins that raise, so a mistake that got past the checks fails the test instead
    of opening a table. `run` and `test_start_imports` still run the command as its own program."""
    import client.table.commands as commands

    def reached(*args: object, **kwargs: object) -> int:
        raise ReachedTheTable(argv)

    monkeypatch.setattr(commands, "run_host", reached)
    monkeypatch.setattr(commands, "run_join", reached)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code if isinstance(exc.code, int) else 2
    return code, capsys.readouterr().err


def assert_one_line(code: int, err: str, command: str, *expected: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"skyjo-lan {command}: "), err
    for part in expected:
        assert part in lines[0], err


HOST = ["host", "--no-mdns", "--interface", "127.0.0.1", "--bot", "greedy"]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--port", "99999"], "--port '99999' is not a port (1 to 65535, or 0 for any free port)"),
        (["--port", "-5"], "--port '-5' is not a port"),
        (["--port", "65536"], "is not a port"),
        (["--port", "http"], "--port 'http' is not a port"),
        (["--interface", "192.0.2.1"], "--interface 192.0.2.1 is not an address of this machine"),
        (["--interface", "eth0"], "--interface 'eth0' is not an IPv4 address"),
        (["--interface", "224.0.0.251"], "multicast"),
        (["--table", "x" * 64], "the table name is 64 bytes in UTF-8; at most 63"),
        (["--table", "é" * 32], "the table name is 64 bytes in UTF-8"),
        (["--table", "k" * 10_000], "10000 bytes"),
        (["--table", "tab\there"], "U+0009"),
        (["--table", "bell\x07"], "U+0007"),
        (["--table", "   "], "the table name is empty"),
        (["--table", "v1.2 table"], "cannot contain '.'"),
        (["--table", "Anna:2"], "cannot contain ':'"),
        (["--nick", "n" * 33], "--nick: the name has 33 characters; at most 32"),
        (["--nick", "line\nbreak"], "U+000A"),
        (["--nick", ""], "--nick: the name is empty"),
    ],
)
def test_host_input_mistakes_are_one_line_and_exit_2(
    argv: list[str], expected: str, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    code, err = refused_in_process([*HOST, *argv], monkeypatch, capsys)
    assert_one_line(code, err, "host", expected)


def test_host_table_name_that_is_not_utf8_is_refused(home: dict[str, str]) -> None:
    """argv bytes that are not UTF-8 reach Python as lone surrogates: they used to crash the host
    when the first joiner arrived (the lobby could not encode the name)."""
    code, err = run([*HOST, "--table", b"caf\xe9 \xff"], home)
    assert_one_line(code, err, "host", "is not valid UTF-8 text", "\\xe9")


def test_host_port_in_use_is_one_line(busy_port: int, home: dict[str, str]) -> None:
    code, err = run([*HOST, "--port", str(busy_port)], home)
    assert_one_line(code, err, "host", f"port {busy_port} is already in use")


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("127.0.0.1", "127.0.0.1 is an address: give its port too (HOST:PORT)"),
        ("192.168.1.20", "192.168.1.20 is an address: give its port too (HOST:PORT)"),
        ("::1", "::1 is an address: give its port too ([ADDRESS]:PORT)"),
        ("[fe80::1]", "is an address: give its port too ([ADDRESS]:PORT)"),
        ("127.0.0.1:0", "'0' is not a port (1 to 65535)"),
        ("127.0.0.1:99999", "'99999' is not a port"),
        ("127.0.0.1:port", "'port' is not a port"),
        (":5000", "is not HOST:PORT"),
        ("[nothost]:5000", "is not [IPv6 ADDRESS]:PORT"),
        ("x" * 70, "the table name is 70 bytes"),
    ],
)
def test_join_input_mistakes_are_one_line_and_exit_2(
    target: str, expected: str, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    code, err = refused_in_process(["join", target, "--bot", "greedy"], monkeypatch, capsys)
    assert_one_line(code, err, "join", expected)


def test_discover_interface_that_is_not_local_is_one_line(home: dict[str, str]) -> None:
    code, err = run(["discover", "--interface", "192.0.2.1", "--seconds", "0.1"], home)
    assert_one_line(code, err, "discover", "not an address of this machine")


class Browsed(Exception):
    """Raised by the stand-in for mDNS browsing: something tried to browse."""


def test_join_address_without_port_never_browses(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """`join 127.0.0.1` used to be taken as a table name and browse mDNS on every interface."""
    from client.net import discovery

    async def browse(*args: object, **kwargs: object) -> list[Any]:
        raise Browsed

    def no_zeroconf(*args: object, **kwargs: object) -> None:
        raise Browsed

    monkeypatch.setattr(discovery, "browse", browse)
    monkeypatch.setattr(joining, "browse", browse)
    monkeypatch.setattr(discovery, "_zeroconf", no_zeroconf)
    for argv in (["join", "127.0.0.1", "--bot", "greedy"], ["join", "::1", "--bot", "greedy"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "give its port too" in err
    # the stand-in is the one `join NAME` would call: a table name does reach it
    with pytest.raises(Browsed):
        main(["join", "Kitchen table", "--bot", "greedy"])


@pytest.mark.parametrize("command", ["host", "join"])
def test_empty_password_variable_is_refused(command: str, home: dict[str, str]) -> None:
    argv = HOST if command == "host" else ["join", "127.0.0.1:9", "--bot", "greedy"]
    code, err = run([*argv, "--password"], {**home, "SKYJO_LAN_PASSWORD": ""})
    assert_one_line(code, err, command, "SKYJO_LAN_PASSWORD is empty")


@pytest.mark.parametrize("stdin", ["devnull", "closed"])
def test_joiner_without_terminal_or_variable_is_told_how_to_give_the_password(
    stdin: str, home: dict[str, str]
) -> None:
    """It used to end in getpass's EOFError traceback."""
    argv = ["join", "127.0.0.1:9", "--bot", "greedy", "--password"]
    done = subprocess.run(
        [sys.executable, "-m", "client", *argv],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=home,
        cwd=ROOT,
        timeout=60,
        check=False,
        preexec_fn=(lambda: os.close(0)) if stdin == "closed" else None,
    )
    assert_one_line(
        done.returncode,
        done.stderr.decode(),
        "join",
        "there is no terminal to ask it: set SKYJO_LAN_PASSWORD",
    )


# --- the host without a terminal -------------------------------------------------------------


class Lines:
    """A process's standard output, line by line, read on a thread (bounded waits only)."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.seen: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def until(self, wanted: Callable[[str], bool], limit: float = 60.0) -> str:
        """The first line (from now on) for which `wanted` holds; fails if the output ends first."""
        for _ in range(10_000):
            line = self._queue.get(timeout=limit)
            if line is None:
                raise AssertionError("the output ended; seen:\n" + "\n".join(self.seen))
            self.seen.append(line)
            if wanted(line):
                return line
        raise AssertionError("too many lines:\n" + "\n".join(self.seen))


def spawn(argv: list[str], env: dict[str, str], *, close_stdin: bool = False) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "client", *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=ROOT,
        preexec_fn=(lambda: os.close(0)) if close_stdin else None,
    )


def stop(*processes: subprocess.Popen[str]) -> None:
    for process in processes:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)


@pytest.mark.parametrize("stdin", ["devnull", "closed"])
def test_host_without_terminal_waits_for_every_seat(stdin: str, home: dict[str, str], tmp_path: Path) -> None:
    """End of input is not "start now": with 2 of 3 seats taken (host and a bot), a host whose
    standard input is at its end used to start at once without the third player; it now starts
    when the joiner takes the last seat, with all three at the table."""
    port = free_port()
    host = spawn(
        ["host", "--no-mdns", "--interface", "127.0.0.1", "--port", str(port), "--seats", "3", "--bots", "1"],
        home,
        close_stdin=stdin == "closed",
    )
    joiner: subprocess.Popen[str] | None = None
    try:
        out = Lines(host)
        # these lines come from concurrent tasks: wait for each, in whatever order they come
        for wanted in (
            "open on",
            "no terminal: the game starts when every seat is taken",
            # nobody could make the host seat's moves without a terminal: a bot plays it
            "no terminal to play on: a greedy bot plays your seat",
        ):
            if not any(wanted in line for line in out.seen):
                out.until(lambda line, wanted=wanted: wanted in line)
        joiner_env = {**home, "XDG_CONFIG_HOME": str(tmp_path / "joiner")}
        joiner = spawn(["join", f"127.0.0.1:{port}", "--bot", "greedy", "--nick", "latecomer"], joiner_env)
        started = out.until(lambda line: line.startswith(("game starts", "cannot start")))
        assert started.startswith("game starts") and "latecomer" in started, out.seen
        assert not any("cannot start" in line or "Traceback" in line for line in out.seen), out.seen
    finally:
        stop(host, *([joiner] if joiner else []))


# --- generated passwords -------------------------------------------------------------------------


def test_host_without_terminal_prints_a_word_code_that_joiners_may_type_loosely(
    home: dict[str, str], tmp_path: Path
) -> None:
    port = free_port()
    host = spawn(
        [*HOST, "--port", str(port), "--seats", "2", "--password", "--option", "target_score=5"],
        home,
        close_stdin=True,
    )
    try:
        out = Lines(host)
        shown = out.until(lambda line: line.startswith("table password: "))
        match = CODE.match(shown)
        assert match is not None, shown
        code = match.group(1)
        assert wordcode.looks_like_code(code) and code == wordcode.canonical(code)
        out.until(lambda line: "open on" in line)

        def join(password: str, nick: str) -> subprocess.CompletedProcess[str]:
            env = {**home, "XDG_CONFIG_HOME": str(tmp_path / nick), "SKYJO_LAN_PASSWORD": password}
            return subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "client",
                    "join",
                    f"127.0.0.1:{port}",
                    "--bot",
                    "greedy",
                    "--password",
                ],
                input="",
                capture_output=True,
                text=True,
                env={**env, "SKYJO_LAN_MOVE_TIMEOUT": "60", "XDG_DATA_HOME": str(tmp_path / f"{nick}-data")},
                cwd=ROOT,
                timeout=180,
                check=False,
            )

        wrong = join(code + "-tonic", "guesser")
        assert wrong.returncode == 1 and "wrong password" in wrong.stderr, wrong
        assert "Traceback" not in wrong.stderr
        spoken = "  " + code.replace("-", "  ").upper() + " "
        right = join(spoken, "friend")
        assert "seated at" in right.stdout and "wrong password" not in right.stderr, right
        assert right.returncode == 0, right  # both seats are bots: the game plays to its end
    finally:
        stop(host)


def test_host_prompt_offers_a_code_and_a_joiner_prompt_takes_it(home: dict[str, str], tmp_path: Path) -> None:
    """At a terminal, Enter at the host's prompt takes the offered code; a joiner typing it with
    spaces and capitals at its own prompt is seated."""
    port = free_port()
    host = pexpect.spawn(
        sys.executable,
        [
            "-m",
            "client",
            *HOST,
            "--port",
            str(port),
            "--seats",
            "2",
            "--password",
            "--option",
            "target_score=5",
        ],
        env=home,
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=60,
    )
    joiner = None
    try:
        host.expect(r"press Enter to use the code (\d+(?:-[a-z]+)+)\): ")
        offered = host.match.group(1)
        host.sendline("")
        host.expect(r"table password: (\S+) ")
        assert host.match.group(1) == offered
        host.expect("open on")
        joiner = pexpect.spawn(
            sys.executable,
            ["-m", "client", "join", f"127.0.0.1:{port}", "--bot", "greedy", "--password"],
            env={**home, "XDG_CONFIG_HOME": str(tmp_path / "joiner"), "XDG_DATA_HOME": str(tmp_path / "jd")},
            cwd=str(ROOT),
            encoding="utf-8",
            timeout=60,
        )
        joiner.expect("table password: ")
        joiner.sendline(offered.replace("-", " ").title())
        joiner.expect("seated at")
    finally:
        for child in (host, joiner):
            if child is not None:
                child.close(force=True)


def test_joiner_prompt_left_empty_is_one_line(home: dict[str, str]) -> None:
    joiner = pexpect.spawn(
        sys.executable,
        ["-m", "client", "join", "127.0.0.1:9", "--bot", "greedy", "--password"],
        env=home,
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=60,
    )
    joiner.expect("table password: ")
    joiner.sendline("")
    joiner.expect(pexpect.EOF)
    joiner.close()
    assert joiner.exitstatus == 2
    assert "skyjo-lan join: no password given" in joiner.before and "Traceback" not in joiner.before


# --- errors raised inside trio nurseries ---------------------------------------------------------


def test_port_taken_after_the_check_is_still_one_line(busy_port: int, capsys: Any) -> None:
    """The library path (no command-line check): the OSError is raised inside the host's nursery
    as an exception group, and used to print a 44-line traceback."""
    opts = HostOptions(seats=2, port=busy_port, interface="127.0.0.1", advertise=False, headless="greedy")
    assert run_host(opts, lambda line: None) == 2
    err = capsys.readouterr().err
    assert err == "skyjo-lan host: a port it needs is already in use\n"


@pytest.mark.parametrize(
    ("raised", "code", "line"),
    [
        (
            ExceptionGroup("g", [OSError(errno.EADDRNOTAVAIL, "Cannot assign requested address")]),
            2,
            "this machine",
        ),
        (ExceptionGroup("g", [ExceptionGroup("h", [OptionError("skyjo is played by 2 to 8")])]), 2, "2 to 8"),
        (ExceptionGroup("g", [OSError(errno.ECONNREFUSED, "Connection refused")]), 1, "Connection refused"),
        # a handshake reset by a flooded host used to escape as a trio traceback
        (ExceptionGroup("g", [trio.BrokenResourceError()]), 1, "closed by the other end"),
        # Ctrl-C: one line, "Interrupted" (issue 15 asks for it; it used to leave quietly)
        (BaseExceptionGroup("g", [KeyboardInterrupt(), OSError("x")]), 130, "Interrupted"),
        (KeyboardInterrupt(), 130, "Interrupted"),
    ],
)
def test_errors_in_exception_groups_are_one_line(
    raised: BaseException, code: int, line: str | None, capsys: Any
) -> None:
    def fail() -> int:
        raise raised

    assert _network_errors(fail, "host") == code
    err = capsys.readouterr().err
    if line is None:
        assert err == ""
    else:
        assert err.count("\n") == 1 and err.startswith("skyjo-lan host: ") and line in err


def test_a_bug_inside_a_group_keeps_its_traceback() -> None:
    """Only known network and option errors are summarised: anything else is a bug, shown."""

    def fail() -> int:
        raise ExceptionGroup("g", [OSError("lost"), ZeroDivisionError("bug")])

    with pytest.raises(ExceptionGroup):
        _network_errors(fail, "host")


# --- table names: the command line, the library, and zeroconf agree --------------------------------


def test_library_refuses_a_table_name_mdns_cannot_carry() -> None:
    for bad in ("x" * 64, "a\nb", "", "caf\udce9"):
        with pytest.raises(OptionError):
            HostOptions(table=bad, seats=2, advertise=False)
    assert HostOptions(table="Anna's table ♠", seats=2, advertise=False).table == "Anna's table ♠"


def test_library_refuses_a_port_getaddrinfo_would_wrap() -> None:
    for bad in (65536, 99999, -5):
        with pytest.raises(OptionError, match="is not a port"):
            HostOptions(port=bad, seats=2, advertise=False)


@given(st.text(min_size=1, max_size=80))
def test_every_accepted_table_name_can_be_announced(name: str) -> None:
    """Whatever `table_name` accepts, zeroconf accepts as a service instance (the check that
    raised BadTypeInNameException in the lobby) and fits one DNS label; the rest is refused."""
    try:
        accepted = cmdline.table_name(name)
    except cmdline.InputError:
        stripped = name.strip()
        assert (
            not stripped
            or len(name.encode("utf-8", "surrogatepass")) > 63
            or any(not c.isprintable() and c != " " for c in stripped)
            or "." in stripped
            or ":" in stripped
            or any(0xD800 <= ord(c) <= 0xDFFF for c in name)
        )
        return
    assert 0 < len(accepted.encode("utf-8")) <= 63
    service_type_name(f"{accepted}.{SERVICE}")
    info = ServiceInfo(SERVICE, f"{accepted}.{SERVICE}", port=1, addresses=[bytes([127, 0, 0, 1])])
    assert info.name == f"{accepted}.{SERVICE}"


async def test_generated_code_spoken_loosely_still_opens_the_table() -> None:
    """The normalisation runs on both sides before SPAKE2, so the same code in another spelling
    proves the same password (in process, on loopback)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from client.table.host import Host
    from client.table.join import Joiner, JoinOptions

    code = wordcode.generate()
    opts = HostOptions(seats=2, interface="127.0.0.1", advertise=False, password=code, save=False)
    host = Host(opts, Ed25519PrivateKey.generate(), lambda line: None)
    async with trio.open_nursery() as nursery:
        port = await nursery.start(host.run)
        typed = wordcode.canonical(" " + code.replace("-", " ").upper())
        joiner = Joiner(
            JoinOptions(target=f"127.0.0.1:{port}", password=typed, save=False),
            Ed25519PrivateKey.generate(),
            lambda line: None,
        )
        nursery.start_soon(joiner.run)
        with trio.fail_after(30):
            while len(host.seats) < 2:
                await host.lobby_changed.wait()
        nursery.cancel_scope.cancel()


def test_a_host_name_that_does_not_resolve_is_one_line_and_status_2(
    capsys: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`join kitchen-pc.lan:4000` with a typo: no DNS query leaves this machine (trio's
    getaddrinfo is replaced), the answer is one line and the status of a typing mistake."""
    import socket

    from client.cli import main

    asked: list[object] = []

    async def no_such_name(host: object, *args: object, **kwargs: object) -> object:
        asked.append(host)
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(trio.socket, "getaddrinfo", no_such_name)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    code = main(["join", "kitchen-pc.lan:4000", "--bot", "greedy"])
    err = capsys.readouterr().err
    assert asked and code == 2
    assert err.endswith(
        "skyjo-lan join: the name 'kitchen-pc.lan' does not resolve (Name or service not known)\n"
    )
    assert err.count("\n") <= 2  # the line above, after the note that a bot plays the seat at most
