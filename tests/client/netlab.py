"""A private LAN of network namespaces for tests (as ../shared/tools/netns-lan does).

`NetLab(n)` makes hosts 1..n on one bridge, 10.<subnet>.0.<i>/24, multicast routed on their eth0,
nothing connected to any real interface. `run(i, argv)` starts a process inside host i.
`avahi(i)` starts an avahi-daemon (with a private D-Bus and a private /run/avahi-daemon, so
several can run at once) and returns the environment for avahi-browse/avahi-publish there.
Everything is torn down by `close` (the programs' logs stay in the lab's folder, /tmp/netlab-*,
when $NETLAB_KEEP is set: to read a run's timeline). Tests skip (with the reason) where
namespaces cannot be made.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class NetLabUnavailable(Exception):
    pass


def _ip(*args: str) -> None:
    result = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=20)
    if result.returncode != 0:
        raise NetLabUnavailable(f"`ip {' '.join(args)}` failed: {result.stderr.strip()}")


DBUS_CONF = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>unix:path={sock}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/>
<allow send_type="method_call"/><allow send_type="signal"/>
<allow send_type="method_return"/><allow send_type="error"/>
<allow receive_type="method_call"/><allow receive_type="signal"/><allow receive_type="method_return"/>
<allow receive_type="error"/></policy></busconfig>
"""

AVAHI_CONF = """[server]
use-ipv4=yes
use-ipv6=no
allow-interfaces=eth0
enable-dbus=yes
[publish]
publish-addresses=yes
"""


class NetLab:
    def __init__(self, hosts: int, subnet: int = 77) -> None:
        if os.geteuid() != 0:
            raise NetLabUnavailable("network namespaces need root")
        if shutil.which("ip") is None:
            raise NetLabUnavailable("iproute2 (`ip`) is not installed")
        self.prefix = "sk" + uuid.uuid4().hex[:6]
        self.subnet = subnet
        self.hosts = hosts
        self.dir = Path(tempfile.mkdtemp(prefix="netlab-"))
        self.processes: list[subprocess.Popen[bytes]] = []
        self._made: list[str] = []
        try:
            self._up()
        except Exception:
            self.close()
            raise

    def ns(self, i: int) -> str:
        return f"{self.prefix}{i}"

    def address(self, i: int) -> str:
        return f"10.{self.subnet}.0.{i}"

    def _up(self) -> None:
        hub = f"{self.prefix}h"
        _ip("netns", "add", hub)
        self._made.append(hub)
        _ip("-n", hub, "link", "add", "br0", "type", "bridge")
        _ip("-n", hub, "link", "set", "br0", "up")
        for i in range(1, self.hosts + 1):
            ns = self.ns(i)
            _ip("netns", "add", ns)
            self._made.append(ns)
            outer, inner = f"{self.prefix}b{i}", f"{self.prefix}v{i}"
            _ip("link", "add", inner, "type", "veth", "peer", "name", outer)
            _ip("link", "set", inner, "netns", ns)
            _ip("link", "set", outer, "netns", hub)
            _ip("-n", hub, "link", "set", outer, "master", "br0")
            _ip("-n", hub, "link", "set", outer, "up")
            _ip("-n", ns, "link", "set", inner, "name", "eth0")
            _ip("-n", ns, "addr", "add", f"{self.address(i)}/24", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("-n", ns, "route", "add", "224.0.0.0/4", "dev", "eth0")

    def cut(self, i: int) -> None:
        """Host i's link drops both ways (its cable leaves the bridge; its programs run on)."""
        _ip("-n", f"{self.prefix}h", "link", "set", f"{self.prefix}b{i}", "nomaster")

    def heal(self, i: int) -> None:
        """Host i's link is back on the bridge."""
        _ip("-n", f"{self.prefix}h", "link", "set", f"{self.prefix}b{i}", "master", "br0")

    def run(
        self, i: int, argv: list[str], env: dict[str, str] | None = None, log: str | None = None
    ) -> subprocess.Popen[bytes]:
        """Start `argv` inside host i; stdout+stderr go to `log` (a file under the lab's folder)."""
        path = self.dir / (log or f"host{i}-{len(self.processes)}.log")
        handle = open(path, "wb")  # noqa: SIM115 - closed with the process
        process = subprocess.Popen(
            ["ip", "netns", "exec", self.ns(i), *argv],
            stdout=handle,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
            start_new_session=True,
        )
        process.log_path = path  # type: ignore[attr-defined]
        self.processes.append(process)
        return process

    def python(
        self, i: int, args: list[str], env: dict[str, str] | None = None, log: str | None = None
    ) -> subprocess.Popen[bytes]:
        return self.run(i, [sys.executable, *args], env, log)

    def avahi(self, i: int) -> dict[str, str]:
        """Start avahi-daemon in host i; the environment for avahi-browse / avahi-publish there."""
        for tool in ("avahi-daemon", "avahi-browse", "dbus-daemon"):
            if shutil.which(tool) is None:
                raise NetLabUnavailable(f"{tool} is not installed (Debian: avahi-daemon avahi-utils dbus)")
        folder = self.dir / f"avahi{i}"
        folder.mkdir()
        sock = folder / "bus.sock"
        (folder / "dbus.conf").write_text(DBUS_CONF.format(sock=sock))
        (folder / "avahi.conf").write_text(AVAHI_CONF)
        env = {"DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={sock}"}
        self.run(i, ["dbus-daemon", "--nofork", f"--config-file={folder / 'dbus.conf'}"], log=f"dbus{i}.log")
        deadline = time.monotonic() + 10
        while not sock.exists():
            if time.monotonic() > deadline:
                raise NetLabUnavailable("dbus-daemon did not start")
            time.sleep(0.05)
        script = folder / "avahi.sh"
        script.write_text(
            "mkdir -p /run/avahi-daemon\nmount -t tmpfs tmpfs /run/avahi-daemon\n"
            f"exec avahi-daemon --no-drop-root --no-chroot --no-rlimits -f {folder / 'avahi.conf'}\n"
        )
        daemon = self.run(i, ["unshare", "-m", "sh", str(script)], env=env, log=f"avahi{i}.log")
        # ready when it says so (a loaded machine can take seconds), not after a fixed delay
        deadline = time.monotonic() + 30
        while "Server startup complete" not in output(daemon):
            if time.monotonic() > deadline or daemon.poll() is not None:
                raise NetLabUnavailable(f"avahi-daemon did not start: {output(daemon)[-500:]}")
            time.sleep(0.05)
        return env

    def close(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=5)
        for ns in reversed(self._made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)
        if not os.environ.get("NETLAB_KEEP"):
            shutil.rmtree(self.dir, ignore_errors=True)


def wait_all(processes: list[subprocess.Popen[bytes]], timeout: float) -> list[int | None]:
    """Wait for every process (bounded); None for one still running at the deadline."""
    deadline = time.monotonic() + timeout
    codes: list[int | None] = []
    for process in processes:
        left = max(0.0, deadline - time.monotonic())
        try:
            codes.append(process.wait(timeout=left))
        except subprocess.TimeoutExpired:
            codes.append(None)
    return codes


def wait_for(process: subprocess.Popen[bytes], text: str | re.Pattern[str], timeout: float) -> bool:
    """Whether `text` (a string, or a pattern to search for) shows in the program's output within
    `timeout` seconds (or by its end)."""

    def shown() -> bool:
        said = output(process)
        return bool(text.search(said)) if isinstance(text, re.Pattern) else text in said

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if shown():
            return True
        if process.poll() is not None:
            return shown()
        time.sleep(0.2)
    return False


def output(process: subprocess.Popen[bytes]) -> str:
    return Path(process.log_path).read_text(errors="replace")  # type: ignore[attr-defined]


def open_lab(request: Any, base: int) -> Iterator[NetLab]:
    """The body of a test file's `lab` fixture: `request.param` hosts (3 by default) on a subnet
    from `base` on (each file its own range); skips, saying why, where namespaces cannot be made."""
    import pytest

    hosts = getattr(request, "param", 3)
    try:
        # each lab is its own bridge in its own namespaces, so labs never share a subnet's
        # traffic; the number only has to be a valid octet (str's hash() differs per process)
        lab = NetLab(hosts, subnet=(base + zlib.crc32(request.node.name.encode()) % 50) % 254 + 1)
    except NetLabUnavailable as exc:
        pytest.skip(f"network namespaces unavailable: {exc}")
    try:
        yield lab
    finally:
        lab.close()


def env_for(tmp_path: Path, i: int, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of the program in host i: its own identity and saved games."""
    return {
        "XDG_CONFIG_HOME": str(tmp_path / f"config{i}"),
        "XDG_DATA_HOME": str(tmp_path / f"data{i}"),
        "PYTHONUNBUFFERED": "1",
        **(extra or {}),
    }
