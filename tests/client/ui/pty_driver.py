"""Run `skyjo-lan` in a real pseudo-terminal (pexpect) and read its screen as a person would (pyte).

Every wait is bounded; a failed wait raises with the screen as it was, to see what went wrong.
A wait returns as soon as its condition holds, so its timeout is only an upper bound: bounds are
generous (tens of seconds), because a loaded machine may take that long to redraw, and nothing
is ever asserted after a fixed delay.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pexpect
import pyte

ROOT = Path(__file__).resolve().parents[3]

KEYS = {
    "enter": "\r",
    "esc": "\x1b",
    "left": "\x1bOD",
    "right": "\x1bOC",
    "up": "\x1bOA",
    "down": "\x1bOB",
    "tab": "\t",
    "pgdn": "\x1b[6~",
    "pgup": "\x1b[5~",
}


class ScreenTimeout(AssertionError):
    pass


class Pty:
    def __init__(
        self,
        args: Sequence[str],
        home: Path,
        *,
        cols: int = 80,
        rows: int = 24,
        env: dict[str, str] | None = None,
        netns: str | None = None,
        preexec_fn: Callable[[], None] | None = None,
    ) -> None:
        """`netns`: run the program inside that network namespace (`ip netns exec`, as root);
        `preexec_fn`: called in the child before the program starts (its signals, say)."""
        environ = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            # xterm-color's terminfo has neither "rep" (repeat a character) nor "indn" (scroll up
            # by n lines), two things pyte does not emulate: with them the test would read a
            # screen that differs from what a real terminal shows
            "TERM": "xterm-color",
            "LANG": "C.UTF-8",
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "SKYJO_LAN_BOT_THINK": "0",
            "PYTHONPATH": str(ROOT),
        }
        environ.update(env or {})
        if not (home / "config" / "skyjo-lan" / "name").exists() and "SKYJO_LAN_FIRST_RUN" not in environ:
            # a returning player: `play` asks a new one for a name before its screen opens
            (home / "config" / "skyjo-lan").mkdir(parents=True, exist_ok=True)
            (home / "config" / "skyjo-lan" / "name").write_text("Zoé\n", encoding="utf-8")
        environ.pop("SKYJO_LAN_FIRST_RUN", None)
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        command = [sys.executable, "-m", "client", *args]
        if netns is not None:
            command = ["ip", "netns", "exec", netns, *command]
        self.child = pexpect.spawn(
            command[0],
            command[1:],
            env=environ,
            dimensions=(rows, cols),
            cwd=str(ROOT),
            preexec_fn=preexec_fn,
        )
        self.raw = bytearray()

    # --- reading -----------------------------------------------------------------------------------

    def pump(self, seconds: float = 0.05) -> None:
        end = time.monotonic() + seconds
        while True:
            try:
                data = self.child.read_nonblocking(
                    1 << 16, timeout=max(0.0, min(0.05, end - time.monotonic()))
                )
            except pexpect.TIMEOUT:
                data = b""
            except pexpect.EOF:
                return
            if data:
                self.raw.extend(data)
                self.stream.feed(data)
            if time.monotonic() >= end:
                return

    @property
    def text(self) -> str:
        return "\n".join(self.screen.display)

    def wait(self, check: str | Callable[[str], bool], timeout: float = 30.0, what: str = "") -> str:
        """Pump until `check` (a string on screen, or a predicate on the text) holds."""
        predicate = (lambda t: check in t) if isinstance(check, str) else check
        end = time.monotonic() + timeout
        while True:
            self.pump(0.05)
            text = self.text
            if predicate(text):
                return text
            if time.monotonic() > end or (not self.child.isalive() and not self._pending()):
                raise ScreenTimeout(f"waited {timeout}s for {what or check!r}; the screen:\n{text}")

    def _pending(self) -> bool:
        try:
            data = self.child.read_nonblocking(1 << 16, timeout=0)
        except (pexpect.TIMEOUT, pexpect.EOF):
            return False
        self.raw.extend(data)
        self.stream.feed(data)
        return bool(data)

    def first(self, options: dict[str, Callable[[str], bool]], timeout: float = 30.0) -> str:
        """Wait until one of the named conditions holds; return its name."""
        end = time.monotonic() + timeout
        while True:
            self.pump(0.05)
            text = self.text
            for name, predicate in options.items():
                if predicate(text):
                    return name
            if time.monotonic() > end:
                raise ScreenTimeout(f"waited {timeout}s for one of {list(options)}; the screen:\n{text}")

    # --- writing -----------------------------------------------------------------------------------

    def send(self, *keys: str) -> None:
        for key in keys:
            self.child.send(KEYS.get(key, key))

    def press(self, key: str, timeout: float = 30.0, settle: float = 0.2) -> str:
        """Send `key`, wait for the screen to change, then for it to stay still a moment."""
        before = self.text
        self.send(key)
        self.wait(lambda t: t != before, timeout, f"the screen to change after {key!r}")
        last = self.text
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.pump(settle)
            if self.text == last:
                break
            last = self.text
        return last

    def resize(self, cols: int, rows: int) -> None:
        self.screen.resize(rows, cols)
        self.child.setwinsize(rows, cols)

    def close(self) -> int | None:
        if self.child.isalive():
            self.child.terminate(force=True)
        self.child.close()
        return self.child.exitstatus

    def finish(self, timeout: float = 30.0) -> int | None:
        """Wait for the program to exit by itself; its exit status."""
        end = time.monotonic() + timeout
        while self.child.isalive() and time.monotonic() < end:
            self.pump(0.1)
        if self.child.isalive():
            raise ScreenTimeout(f"the program did not exit; the screen:\n{self.text}")
        self.child.close()
        return self.child.exitstatus


LOBBY_ADDRESS = re.compile(r"join 127\.0\.0\.1:(\d+)")


def loopback_host(home: Path, *extra: str, env: dict[str, str] | None = None) -> Pty:
    """`skyjo-lan host` as ana at the "Kitchen table", on 127.0.0.1 with no mDNS, in English,
    with `extra` arguments (seats, bots, a password...): the host of the LAN screen tests."""
    args = ["--no-mdns", "--interface", "127.0.0.1", "--table", "Kitchen table", "--name", "ana"]
    return Pty(["host", *extra, *args, "--lang", "en"], home, env=env)


QUICK_TWO_SEATS = ("--seats", "2", "--turn", "1", "--option", "target_score=1", "--option", "setup_reveals=2")
"""A host's table for two whose games end without keystrokes: one round, her own program playing
her moves at the end of a one-second countdown (issue 17's autopilot)."""


def at_game_over(host: Pty) -> str:
    """Wait for the game-over screen whose keys say `q back to the lobby` (the last round's end
    comes first, "any key: the result": Enter shows the result); return it."""
    end = host.wait(
        lambda t: "Game over" in t and ("back to the lobby" in t or "any key: the result" in t),
        240,
        "the end of the game",
    )
    if "back to the lobby" in end:
        return end
    host.send("enter")
    return host.wait(lambda t: "back to the lobby" in t, 60, "the result after the round's end")


def headless_joiner(
    port: str, home: Path, *extra: str, name: str = "ben", env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """`skyjo-lan join 127.0.0.1:PORT --bot greedy` as `name`, its files under `home`, with `extra`
    arguments (`--games N`...) and environment (`env`, a test hook's): the other player of a
    loopback host's screen test, with no screen of its own."""
    return subprocess.Popen(
        [
            *(sys.executable, "-m", "client", "join", f"127.0.0.1:{port}"),
            *("--bot", "greedy", "--name", name, "--interface", "127.0.0.1", *extra),
        ],
        cwd=str(ROOT),
        env={
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(ROOT),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_STATE_HOME": str(home / "state"),
            **(env or {}),
        },
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def lobby_address(host: Pty, timeout: float = 30.0) -> tuple[str, str]:
    """Wait for a loopback host's lobby to show its address and keys; return (screen, port).

    The port is the one the host's lobby shows (chosen by the system: a port picked here and freed
    before the host binds it could be taken by another test in the meantime), read once the line
    under it is drawn too, so the number is whole."""
    shown = host.wait(
        lambda t: LOBBY_ADDRESS.search(t) is not None and "Check each key" in t,
        timeout,
        "the host's lobby and its address",
    )
    found = LOBBY_ADDRESS.search(shown)
    assert found is not None, shown
    return shown, found.group(1)


def on_screen(
    screens: Sequence[Pty], check: Callable[[str], bool], on: Pty, timeout: float, what: str
) -> str:
    """Wait until `check` holds on `on`'s screen, reading every screen meanwhile (a program whose
    terminal is not read would stall); its text, or `ScreenTimeout`."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for screen in screens:
            screen.pump(0.05)
        if check(on.text):
            return on.text
    raise ScreenTimeout(f"waited {timeout}s for {what}; the screen:\n{on.text}")


def start_two_screens(host: Pty, guest: Pty, third: str) -> None:
    """ana's lobby (`host`) holds ben (`guest`, a screen) and `third` (headless): ben says he is
    ready if he is not, ana starts the game, and both screens show the deal."""
    screens = [host, guest]
    ready = re.compile(r"\bben\b.*(✓ ready|not yet)")
    shown = on_screen(
        screens, lambda t: ready.search(t) is not None and third in t, host, 60, f"ben and {third}"
    )
    found = ready.search(shown)
    if found is not None and found.group(1) == "not yet":
        guest.send("r")
        on_screen(screens, lambda t: re.search(r"\bben\b.*✓ ready", t) is not None, host, 30, "ben ready")
    on_screen(screens, lambda t: "s starts the game" in t, host, 30, "the host may start")
    host.send("s")
    for screen in screens:
        on_screen(screens, lambda t: "cards face up" in t, screen, 120, "the deal")


@dataclass
class Table:
    """ana (hosting, a screen), ben (a screen) and cat (headless, a bot; its output in `told`)."""

    host: Pty
    guest: Pty
    cat: subprocess.Popen[bytes]
    told: Path


@contextmanager
def three_programs(
    tmp_path: Path, env: dict[str, str], grace: int, options: Sequence[str] = ()
) -> Iterator[Table]:
    """A table of three on loopback (ana hosts with `options`), the game started on both
    screens; every program ended on the way out."""
    table = ["--seats", "3", "--grace", str(grace), "--no-mdns", "--interface", "127.0.0.1", "--name", "T"]
    host = Pty(
        ["host", *table, *options, "--nick", "ana", "--lang", "en"], tmp_path / "host", cols=160, env=env
    )
    guest: Pty | None = None
    cat: subprocess.Popen[bytes] | None = None
    told = tmp_path / "cat.out"
    try:
        port = lobby_address(host)[1]
        joining = ["join", f"127.0.0.1:{port}", "--nick", "ben", "--lang", "en"]
        guest = Pty(joining, tmp_path / "ben", cols=160, env=env)
        joining = ["join", f"127.0.0.1:{port}", "--nick", "cat", "--bot", "greedy"]
        home = tmp_path / "cat"
        with told.open("wb") as out:
            cat = subprocess.Popen(
                [sys.executable, "-m", "client", *joining],
                cwd=ROOT,
                env={
                    "PATH": "/usr/bin:/bin",
                    "HOME": str(home),
                    "XDG_DATA_HOME": str(home / "data"),
                    "PYTHONPATH": str(ROOT),
                    "SKYJO_LAN_BOT_THINK": "0",
                    **env,
                },
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        start_two_screens(host, guest, "cat")
        yield Table(host, guest, cat, told)
    finally:
        host.close()
        if guest is not None:
            guest.close()
        if cat is not None and cat.poll() is None:
            cat.kill()
