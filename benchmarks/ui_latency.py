"""Key-to-screen latency of `skyjo-lan play`, in a real pseudo-terminal, while bots play.

A measurement, not a test. The program runs under pexpect with three bot peers doing the real
protocol (key proofs, shuffle proofs, decryption shares) in worker threads; from the first screen
on (so during the deal's shuffles too), between its own turns, the script opens and closes the
help overlay (`?`, then any key) and times each key from the write to the moment the terminal
emulator (pyte) shows the change. When it is the script's turn it plays
(draw, discard, turn a card), unmeasured, so the game goes on.

    python benchmarks/ui_latency.py [--samples 60] [--think 0.2]

Target: a median under 50 ms.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pexpect
import pyte

ROOT = Path(__file__).resolve().parents[1]


class Screen:
    def __init__(self, child: pexpect.spawn, cols: int = 80, rows: int = 24) -> None:
        self.child = child
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)

    def pump(self, timeout: float) -> None:
        with contextlib.suppress(pexpect.TIMEOUT):
            self.stream.feed(self.child.read_nonblocking(1 << 16, timeout=timeout))

    @property
    def text(self) -> str:
        return "\n".join(self.screen.display)

    def until(self, predicate, timeout: float = 30.0) -> float:  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        while not predicate(self.text):
            if time.perf_counter() - start > timeout:
                raise TimeoutError(self.text)
            self.pump(0.002)
        return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--think", type=float, default=0.2, help="the bots' think time, seconds")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="skyjo-latency-"))
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TERM": "xterm-color",  # no "rep" nor "indn", which pyte does not emulate
        "LANG": "C.UTF-8",
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "SKYJO_LAN_BOT_THINK": str(args.think),
        "PYTHONPATH": str(ROOT),
    }
    child = pexpect.spawn(
        sys.executable,
        ["-m", "client", "play", "--bots", "3", "--lang", "en", "--option", "target_score=200"],
        env=env,
        dimensions=(24, 80),
        cwd=str(ROOT),
    )
    screen = Screen(child)
    screen.until(lambda t: "? help" in t, 60)  # measuring starts with the keys and the deal's shuffles
    samples: list[float] = []
    moves = 0
    while len(samples) < args.samples:
        text = screen.text
        if "Your turn: take the top card" in text:
            child.send("1")
            screen.until(lambda t: "Your turn: take the top card" not in t)
            moves += 1
            continue
        if "You drew a" in text and "choose the card" in text:
            child.send("2")
            screen.until(lambda t: "You drew a" not in t or "Turn one of" in t)
            continue
        if "Turn one of your face-down cards" in text:
            child.send("\r")
            screen.until(lambda t: "Turn one of your face-down cards" not in t)
            continue
        if "Turn 2 of your cards" in text:
            child.send("\r\r")
            screen.until(lambda t: "Turn 2 of your cards" not in t)
            continue
        if "is over" in text or "Game over" in text:
            child.send("\x1b")
            screen.pump(0.2)
            continue
        child.send("?")
        samples.append(screen.until(lambda t: "any key closes" in t, 5))
        child.send("x")
        samples.append(screen.until(lambda t: "any key closes" not in t, 5))
        screen.pump(0.05)
    child.send("q")
    screen.pump(0.2)
    child.send("y")
    child.terminate(force=True)
    ms = sorted(s * 1000 for s in samples)
    print(f"key-to-screen latency over {len(ms)} keys, 3 bot peers playing, {moves} of our own turns:")
    p90 = ms[int(len(ms) * 0.9) - 1]
    print(f"  median {statistics.median(ms):.1f} ms   p90 {p90:.1f} ms   max {ms[-1]:.1f} ms")
    print(f"  target: median under 50 ms -> {'met' if statistics.median(ms) < 50 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
