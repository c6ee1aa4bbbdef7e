"""Handshake floods on real processes with a common descriptor limit (`prlimit --nofile=1024`).

Three peers (the host and two joiners, each a `skyjo-lan` process limited to 1,024 descriptors)
play over loopback while this test holds about 1,100 idle connections from another loopback
address (127.0.0.2) to the lobby and to every peer's game port, opening again those the peers
close. A joiner is stopped for longer than the links' silence limit, so its links are re-dialled
during the flood. The game must finish with every transcript valid, and the logs must hold no
traceback and only a few refusal lines (once per source and interval, not one per connection).
Only loopback is used.
"""

from __future__ import annotations

import errno
import json
import os
import re
import resource
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

HELD = 1100
ATTACKER = "127.0.0.2"
GAME = ["--option", "target_score=30"]  # one or two rounds: the stop and the re-dials come in the first
ENV = {"SKYJO_LAN_STEP_TIMEOUT": "90", "SKYJO_LAN_MOVE_TIMEOUT": "180", "PYTHONUNBUFFERED": "1"}

pytestmark = pytest.mark.skipif(shutil.which("prlimit") is None, reason="prlimit (util-linux) is needed")


@pytest.fixture
def many_descriptors():
    """This test process holds a few thousand sockets: raise its own soft limit meanwhile."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 4 * HELD + 512
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"this test needs {wanted} descriptors (hard limit {hard})")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def start(tmp_path: Path, name: str, args: list[str]) -> subprocess.Popen[bytes]:
    log = open(tmp_path / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process below
    process = subprocess.Popen(
        ["prlimit", "--nofile=1024", sys.executable, "-m", "client", *args],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={
            **os.environ,
            **ENV,
            "XDG_CONFIG_HOME": str(tmp_path / f"config-{name}"),
            "XDG_DATA_HOME": str(tmp_path / f"data-{name}"),
        },
        start_new_session=True,
    )
    log.close()
    process.log_path = tmp_path / f"{name}.log"  # type: ignore[attr-defined]
    process.name = name  # type: ignore[attr-defined]
    return process


def output(process: subprocess.Popen[bytes]) -> str:
    return Path(process.log_path).read_text(errors="replace")  # type: ignore[attr-defined]


def wait_for(process: subprocess.Popen[bytes], pattern: str, timeout: float) -> re.Match[str] | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(pattern, output(process))
        if found or process.poll() is not None:
            return found or re.search(pattern, output(process))
        time.sleep(0.2)
    return None


def listening_ports(pid: int) -> set[int]:
    """The TCP ports process `pid` listens on (from /proc: no tool needed)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as lines:
            next(lines)
            for line in lines:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in inodes:
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def ports_of(process: subprocess.Popen[bytes], least: int, timeout: float = 30) -> set[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        ports = listening_ports(process.pid)
        if len(ports) >= least:
            return ports
        time.sleep(0.1)
    raise AssertionError(f"{process.name} never listened on {least} ports: {output(process)[-2000:]}")  # type: ignore[attr-defined]


class Flood:
    """Holds about `HELD` idle connections from ATTACKER to each target port, in a thread; the
    ones the other end closes are opened again at each round (a patient attacker)."""

    def __init__(self) -> None:
        self.targets: list[int] = []
        self.held: dict[int, list[socket.socket]] = {}
        self.opened = 0
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def add(self, port: int) -> None:
        with self.lock:
            if port not in self.targets:
                self.targets.append(port)
                self.held[port] = []

    def _connect(self, port: int) -> socket.socket | None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.bind((ATTACKER, 0))
            code = sock.connect_ex(("127.0.0.1", port))
        except OSError:
            sock.close()
            return None
        if code not in (0, errno.EINPROGRESS):
            sock.close()
            return None
        self.opened += 1
        return sock

    @staticmethod
    def _still_open(socks: list[socket.socket]) -> list[socket.socket]:
        """The sockets the other end has not closed (poll: select cannot see fds past 1023)."""
        poller = select.poll()
        for sock in socks:
            poller.register(sock, select.POLLIN | select.POLLRDHUP)
        gone = set()
        for fd, events in poller.poll(0):
            if events & (select.POLLHUP | select.POLLERR | select.POLLRDHUP | select.POLLNVAL):
                gone.add(fd)
        alive = []
        for sock in socks:
            if sock.fileno() in gone:
                sock.close()
            else:
                alive.append(sock)
        return alive

    def _run(self) -> None:
        for _ in range(100_000):  # bounded: one round every 2 s
            if self.stop.is_set():
                break
            with self.lock:
                targets = list(self.targets)
            for port in targets:
                alive = self._still_open(self.held[port])
                while len(alive) < HELD and not self.stop.is_set():
                    sock = self._connect(port)
                    if sock is None:
                        break
                    alive.append(sock)
                self.held[port] = alive
            self.stop.wait(2.0)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=30)
        for socks in self.held.values():
            for sock in socks:
                sock.close()


def verdict(tmp_path: Path, name: str) -> dict:
    files = sorted((tmp_path / f"data-{name}" / "skyjo-lan" / "games").glob("*.skyjo"))
    assert files, f"no transcript saved by {name}"
    result = subprocess.run(
        [sys.executable, "-m", "client", "verify", "--json", str(files[-1])],
        capture_output=True,
        text=True,
        timeout=180,
    )
    return json.loads(result.stdout)


REFUSAL = re.compile(r"refusing connections from|cannot accept a connection|refused a connection from")


def test_a_handshake_flood_under_1024_descriptors_does_not_stop_the_game(tmp_path, many_descriptors):
    flood = Flood()
    processes: list[subprocess.Popen[bytes]] = []
    try:
        host = start(
            tmp_path,
            "host",
            ["host", "--seats", "3", "--bot", "greedy", "--no-mdns", "--interface", "127.0.0.1", *GAME],
        )
        processes.append(host)
        opened = wait_for(host, r"open on \S*?127\.0\.0\.1:(\d+)", 60)
        assert opened, output(host)
        lobby = int(opened.group(1))
        for port in ports_of(host, 2):  # the lobby and the host's game port, before anyone joins
            flood.add(port)
        for _ in range(600):  # until the flood is in place (bounded)
            if sum(len(s) for s in flood.held.values()) >= 2 * HELD:
                break
            time.sleep(0.1)
        joiners = []
        for i in (1, 2):
            joiner = start(
                tmp_path,
                f"p{i}",
                [
                    "join",
                    f"127.0.0.1:{lobby}",
                    "--bot",
                    "greedy",
                    "--interface",
                    "127.0.0.1",
                    "--nick",
                    f"p{i}",
                ],
            )
            processes.append(joiner)
            joiners.append(joiner)
            for port in ports_of(joiner, 1):
                flood.add(port)
        for joiner in joiners:
            assert wait_for(joiner, "seated at ", 120), output(joiner)
        # a joiner falls silent for longer than the links allow (10 s): its links are re-dialled
        # while the flood goes on
        assert wait_for(joiners[0], r"game starts|: flip|: replace|: draw", 120), output(joiners[0])
        os.killpg(joiners[0].pid, signal.SIGSTOP)
        time.sleep(14)
        os.killpg(joiners[0].pid, signal.SIGCONT)
        codes = []
        for process in processes:
            try:
                codes.append(process.wait(timeout=420))
            except subprocess.TimeoutExpired:
                codes.append(None)
    finally:
        flood.close()
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
    logs = {p.name: output(p) for p in processes}  # type: ignore[attr-defined]
    shown = "\n".join(f"--- {name} ---\n{text[-3000:]}" for name, text in logs.items())
    assert codes == [0, 0, 0], shown
    assert flood.opened >= 4 * HELD, "the flood did not take place"
    results = [verdict(tmp_path, name) for name in ("host", "p1", "p2")]
    assert all(r["valid"] and r["finished"] for r in results), results
    for name, text in logs.items():
        assert "Traceback" not in text, f"{name}:\n{text[-5000:]}"
        assert text.count("Errno 24") + text.count("Too many open files") <= 5, f"{name}:\n{text[-5000:]}"
        refusals = [line for line in text.splitlines() if REFUSAL.search(line)]
        # once per source, kind and minute, whatever the number of connections
        assert len(refusals) <= 40, f"{name}: {len(refusals)} refusal lines:\n" + "\n".join(refusals[:60])
