"""Issue 25, point 3: nothing a remote end does with its socket ends or stalls a player's program.

Real programs on loopback (127.0.0.1, no mDNS), one test per link role; in each, the other end
of that role's connections resets them (kill -9, or a close with SO_LINGER 0: RST), half-closes
them (shutdown of its writing side) or stops (SIGSTOP, then kill -9). The host's game finishes,
the host ends with 0, and its saved game verifies as finished.

* watch: `watch --plain` programs stopped then killed, or killed; spectators of this test that
  reset their connection while the host writes to them, or half-close it; one well-behaved
  spectator follows the game to the end meanwhile.
* lobby: players seated in the lobby reset their connection, half-close it, or stop and are
  killed; then two players join and the game is played.
* seat: the link between two seats of the game is reset (`ss -K`: the kernel destroys the
  joiner's socket, the host receives a RST), half-closed (the joiner's program made to call
  shutdown(SHUT_WR) through gdb, where gdb is installed and may attach), and the joiner is
  stopped, killed, and resumed (`--resume`). Skipped where `ss -K` cannot run (not root).

Every wait is bounded and waits for what the programs say, never for a delay: the few sleeps
only give a stopped program time to be stopped, and nothing depends on their length.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import struct
import subprocess
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.net.link import dial
from client.table.seat import LOBBY_TABLE
from client.table.spectators import WATCH_ROLE
from protocol.verify import verify_bytes
from tests.client.test_again_loopback import start, text

LIMIT = 300  # seconds: a short game on a loaded machine ends well within
SHORT = ["--option", "target_score=20", "--interface", "127.0.0.1"]


async def said(process: subprocess.Popen[bytes], pattern: str, limit: float = 120) -> re.Match[str]:
    """Wait (bounded) until the program's output matches `pattern`."""
    with trio.move_on_after(limit):
        while True:
            found = re.search(pattern, text(process))
            if found:
                return found
            assert process.poll() is None, f"ended before saying {pattern!r}:\n{text(process)[-3000:]}"
            await trio.sleep(0.1)
    raise AssertionError(f"never said {pattern!r}:\n{text(process)[-3000:]}")


async def ended(process: subprocess.Popen[bytes], limit: float = LIMIT) -> int:
    with trio.move_on_after(limit):
        while process.poll() is None:
            await trio.sleep(0.2)
    code = process.poll()
    assert code is not None, f"still running after {limit} s:\n{text(process)[-3000:]}"
    return code


async def progressed(process: subprocess.Popen[bytes], line: str, more: int = 2, limit: float = 120) -> None:
    """Wait (bounded) until the program printed `more` lines starting with `line` beyond those it
    printed already (the game goes on)."""
    pattern = re.compile(rf"^{re.escape(line)}", re.MULTILINE)
    goal = len(pattern.findall(text(process))) + more
    with trio.move_on_after(limit):
        while len(pattern.findall(text(process))) < goal:
            assert process.poll() is None, text(process)[-3000:]
            await trio.sleep(0.1)
        return
    raise AssertionError(f"no progress ({line!r}):\n{text(process)[-3000:]}")


async def logged(tmp_path: Path, who: str, pattern: str, limit: float = 60) -> None:
    """Wait (bounded) until the program's log file has a line matching `pattern`."""
    logs = tmp_path / f"state-{who}" / "skyjo-lan" / "logs"
    with trio.move_on_after(limit):
        while not any(re.search(pattern, p.read_text(errors="replace")) for p in logs.glob("*.log")):
            await trio.sleep(0.1)
        return
    raise AssertionError(f"{who} never logged {pattern!r}")


def finished_game(tmp_path: Path, who: str) -> None:
    files = sorted((tmp_path / f"data-{who}" / "skyjo-lan" / "games").glob("*.skyjo"))
    assert files, f"no saved game for {who}"
    verdict = verify_bytes(files[-1].read_bytes())
    assert verdict.valid and verdict.finished, (who, verdict.fault)


def healthy(process: subprocess.Popen[bytes]) -> None:
    out = text(process)
    assert "Traceback" not in out and "closed by the other end" not in out, out[-3000:]


async def open_link(port: int, role: str, name: str, small: bool = False) -> trio.SocketStream:
    """A connection of `role` to the lobby at `port`, through the handshake; its stream."""
    sock = trio.socket.socket()
    if small:  # a small window: what the host writes piles up unread on both sides
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    await sock.connect(("127.0.0.1", port))
    stream = trio.SocketStream(sock)
    with trio.fail_after(30):
        await dial(
            stream,
            Ed25519PrivateKey.generate(),
            name=name,
            role=role,
            table=LOBBY_TABLE,
            port=1,
            extra={"from": 0} if role == WATCH_ROLE else None,
        )
    return stream


def reset(stream: trio.SocketStream) -> None:
    """Close with SO_LINGER 0: the other end gets a RST."""
    stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    stream.socket.close()


def host_argv(*extra: str) -> list[str]:
    return ["host", "--no-mdns", "--bot", "greedy", *SHORT, *extra]


def lobby_port(host: subprocess.Popen[bytes]) -> int:
    found = re.search(r" open on 127\.0\.0\.1:(\d+)", text(host))
    assert found, text(host)
    return int(found.group(1))


# --- watch ----------------------------------------------------------------------------------------


async def test_spectators_that_reset_half_close_or_stop_never_end_the_host(tmp_path: Path) -> None:
    # the host's seat and a bot; the game starts when a player joins (the spectators come first)
    host = start(tmp_path, "host", host_argv("--seats", "3", "--bots", "1", "--think-time", "0.15"))
    watchers: list[subprocess.Popen[bytes]] = []
    joiner = None
    try:
        await said(host, r" open on 127\.0\.0\.1:\d+")
        port = lobby_port(host)
        target = f"127.0.0.1:{port}"
        names = ("stopped", "killed", "good", "asleep")
        watchers = [start(tmp_path, who, ["watch", target, "--plain"]) for who in names]
        stopped, killed, good, asleep = watchers
        for watcher in watchers:
            await said(watcher, r"watching .* at 127\.0\.0\.1:")
        # issue 26, point 5: stopped in the lobby, it is dropped during the game (it reads nothing)
        asleep.send_signal(signal.SIGSTOP)
        joiner = start(tmp_path, "ben", ["join", target, "--bot", "greedy", "--nick", "ben"])
        for watcher in (stopped, killed, good):
            await said(watcher, "the game has started")
        # this test's own spectators: each takes the catch-up unread, then resets or half-closes
        streams = [await open_link(port, WATCH_ROLE, "spectator", small=True) for _ in range(6)]
        for stream in streams[:3]:
            with trio.fail_after(30):
                await stream.receive_some(1)  # the host is writing to it
            reset(stream)
        for stream in streams[3:]:
            await stream.send_eof()
        stopped.send_signal(signal.SIGSTOP)
        await said(host, r": (flip|replace|discard)")
        await trio.sleep(3)  # stopped while the game goes on: frames pile up for it
        assert "game over" not in text(host), "the game ended before the faults: nothing was tested"
        stopped.kill()
        killed.kill()
        assert await ended(host) == 0, text(host)[-3000:]
        healthy(host)
        finished_game(tmp_path, "host")
        assert await ended(joiner) == 0, text(joiner)[-3000:]
        assert await ended(good) == 0, text(good)[-3000:]
        assert "game over: " in text(good)
        for stream in streams[3:]:
            stream.socket.close()
        # woken after the host is gone: it shows the game it was sent, then says what happened:
        # the host cut it off (the usual case: what waited for it did not fit in the sockets'
        # buffers), or the whole game waited for it, "end" included, and it finished
        asleep.send_signal(signal.SIGCONT)
        code = await ended(asleep, 120)
        seen = text(asleep)
        assert "the game has started" in seen and "before the game started" not in seen, seen[-3000:]
        told = "game over: " if code == 0 else "lost the connection to the host: "
        assert told in seen, seen[-3000:]
    finally:
        for process in (host, joiner, *watchers):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.kill()


# --- lobby ----------------------------------------------------------------------------------------


async def test_players_that_reset_half_close_or_stop_in_the_lobby_never_end_the_host(tmp_path: Path) -> None:
    # three seats, no bots: one player seated at a time never fills the table
    host = start(tmp_path, "host", host_argv("--seats", "3", "--nick", "ann"))
    players: list[subprocess.Popen[bytes]] = []
    try:
        await said(host, r" open on 127\.0\.0\.1:\d+")
        port = lobby_port(host)
        target = f"127.0.0.1:{port}"
        for name, fault in (("resetter", "reset"), ("halfway", "half-close")):
            stream = await open_link(port, "join", name)
            await said(host, rf"{name} joined")
            if fault == "reset":
                reset(stream)
            else:
                await stream.send_eof()
            await said(host, rf"{name} left")
            stream.socket.close()
        sleeper = start(tmp_path, "sleeper", ["join", target, "--bot", "greedy", "--nick", "sleeper"])
        players.append(sleeper)
        await said(host, r"sleeper joined")
        sleeper.send_signal(signal.SIGSTOP)
        await trio.sleep(1)
        sleeper.kill()
        await said(host, r"sleeper left")
        for name in ("ben", "cleo"):
            players.append(start(tmp_path, name, ["join", target, "--bot", "greedy", "--nick", name]))
        assert await ended(host) == 0, text(host)[-3000:]
        healthy(host)
        finished_game(tmp_path, "host")
        for player in players[1:]:
            assert await ended(player) == 0, text(player)[-3000:]
    finally:
        for process in (host, *players):
            if process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.kill()


# --- seat -----------------------------------------------------------------------------------------


def sockets_of(pid: int) -> list[tuple[int, int, int]]:
    """The established TCP sockets of process `pid` on loopback: (local port, peer port, fd)."""
    listing = subprocess.run(
        ["ss", "-tnpH", "state", "established"], capture_output=True, text=True, timeout=20
    )
    found = []
    for line in listing.stdout.splitlines():
        users = re.search(rf"pid={pid},fd=(\d+)", line)
        ports = re.findall(r"127\.0\.0\.1:(\d+)", line)
        if users and len(ports) == 2:
            found.append((int(ports[0]), int(ports[1]), int(users.group(1))))
    return found


def link_between(joiner: int, host: int) -> tuple[int, int, int]:
    """The joiner's end of its game link to the host: (local port, peer port, fd)."""
    host_ports = {local for local, _peer, _fd in sockets_of(host)}
    links = [s for s in sockets_of(joiner) if s[1] in host_ports]
    assert links, (sockets_of(joiner), host_ports)
    return links[0]


async def test_a_seat_link_reset_half_closed_or_stopped_never_ends_the_game(tmp_path: Path) -> None:
    if shutil.which("ss") is None or os.geteuid() != 0:
        pytest.skip("`ss -K` (iproute2, as root) destroys a socket: not available here")
    gdb = shutil.which("gdb")
    host = start(tmp_path, "host", host_argv("--seats", "2", "--think-time", "0.15", "--nick", "ann"))
    joiner = resumed = None
    try:
        await said(host, r" open on 127\.0\.0\.1:\d+")
        target = f"127.0.0.1:{lobby_port(host)}"
        joiner = start(tmp_path, "ben", ["join", target, "--bot", "greedy", "--nick", "ben"])
        await said(joiner, r"ben: (flip|replace|discard)")
        # a reset: the kernel destroys the joiner's socket; the host's end receives a RST
        local, peer, _fd = link_between(joiner.pid, host.pid)
        subprocess.run(
            ["ss", "-K", "src", f"127.0.0.1:{local}", "dst", f"127.0.0.1:{peer}"],
            capture_output=True,
            timeout=20,
        )
        await logged(tmp_path, "host", "link to seat 1 lost: .*reset by peer")
        await progressed(host, "ben: ")  # the game goes on: the link is back
        if gdb is not None:  # a half-close: the joiner's program shuts its writing side down
            local, peer, fd = link_between(joiner.pid, host.pid)
            called = subprocess.run(
                [gdb, "-p", str(joiner.pid), "-batch", "-ex", f"call (int)shutdown({fd}, 1)"],
                capture_output=True,
                text=True,
                timeout=60,
            )
            if "$1 = 0" in called.stdout:  # (gdb may not be allowed to attach: then no half-close)
                await logged(tmp_path, "host", "seat 1 closed the link")
                await progressed(host, "ben: ")
        # stopped, then killed, then back with --resume
        assert "game over" not in text(host), "the game ended before the faults: nothing was tested"
        joiner.send_signal(signal.SIGSTOP)
        await trio.sleep(2)
        joiner.kill()
        await ended(joiner, 30)
        resumed = start(tmp_path, "ben", ["join", "--resume", "--bot", "greedy"], log_as="ben-resumed")
        assert await ended(host) == 0, text(host)[-3000:]
        healthy(host)
        finished_game(tmp_path, "host")
        assert await ended(resumed) == 0, text(resumed)[-3000:]
        finished_game(tmp_path, "ben")
    finally:
        for process in (host, joiner, resumed):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.kill()
