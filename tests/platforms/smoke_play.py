"""A scripted `skyjo-lan play` against bots that must reach the table: CI's check on each platform
(.github/workflows/ci.yml), runnable by hand: ``python -m tests.platforms.smoke_play``.

`play` needs a terminal. On Linux and macOS it runs in a pseudo-terminal (pexpect, read with pyte
as tests/client/ui/pty_driver.py does) until the table is on the screen (the bots' names and the
prompt). Windows has no pseudo-terminal for pexpect: the program gets a console of its own
(CREATE_NEW_CONSOLE), so curses (windows-curses) opens a real screen. Either way the table was
reached when the saved game holds the deal: its transcript verifies (`skyjo-lan verify --json`)
with the frames of the keys, the shuffles and the first reveals. Exit status 0 when it did.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOTS = ("Ada", "Bob", "Cyd")
DEAL_FRAMES = 12
"""At least this many frames: each seat's key commitment and reveal (8 at four seats) and shuffles."""
TIMEOUT = 240.0


def _environ(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        XDG_STATE_HOME=str(home / "state"),
        XDG_CACHE_HOME=str(home / "cache"),
        SKYJO_LAN_BOT_THINK="0",
        LANG="C.UTF-8" if sys.platform != "darwin" else "en_US.UTF-8",
    )
    (home / "config" / "skyjo-lan").mkdir(parents=True, exist_ok=True)
    (home / "config" / "skyjo-lan" / "name").write_text("Zoe\n", encoding="utf-8")  # no name asked
    return env


def _saved_game(home: Path) -> Path | None:
    games = sorted((home / "data" / "skyjo-lan" / "games").glob("*.skyjo"))
    return games[-1] if games else None


def _verdict(path: Path, env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "client", "verify", "--json", str(path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    try:
        verdict: dict[str, object] = json.loads(done.stdout)
    except ValueError:
        return {"valid": False, "frames": 0, "error": done.stdout + done.stderr}
    return verdict


def _dealt(home: Path, env: dict[str, str]) -> dict[str, object] | None:
    path = _saved_game(home)
    if path is None:
        return None
    verdict = _verdict(path, env)
    frames = verdict.get("frames")
    return verdict if verdict.get("valid") and isinstance(frames, int) and frames >= DEAL_FRAMES else None


def _posix(home: Path, env: dict[str, str]) -> dict[str, object] | None:
    import pexpect  # type: ignore[import-untyped]
    import pyte

    screen = pyte.Screen(100, 30)
    stream = pyte.ByteStream(screen)
    child = pexpect.spawn(
        sys.executable, ["-m", "client", "play", "--bots", "3"], env=env, dimensions=(30, 100), cwd=str(ROOT)
    )
    try:
        end = time.monotonic() + TIMEOUT
        while time.monotonic() < end:
            with contextlib.suppress(pexpect.TIMEOUT):
                stream.feed(child.read_nonblocking(1 << 16, timeout=0.2))
            text = "\n".join(screen.display)
            if all(name in text for name in BOTS):
                verdict = None
                while verdict is None and time.monotonic() < end:
                    verdict = _dealt(home, env)
                    with contextlib.suppress(pexpect.TIMEOUT):
                        stream.feed(child.read_nonblocking(1 << 16, timeout=0.5))
                print("\n".join(screen.display))
                return verdict
        print("\n".join(screen.display))
        return None
    finally:
        child.terminate(force=True)


def _windows(home: Path, env: dict[str, str]) -> dict[str, object] | None:
    flags = getattr(subprocess, "CREATE_NEW_CONSOLE", 0)
    child = subprocess.Popen(
        [sys.executable, "-m", "client", "play", "--bots", "3"], env=env, cwd=ROOT, creationflags=flags
    )
    try:
        end = time.monotonic() + TIMEOUT
        while time.monotonic() < end:
            verdict = _dealt(home, env)
            if verdict is not None:
                return verdict
            if child.poll() is not None:
                print(f"play ended with status {child.returncode} before the table", file=sys.stderr)
                log = sorted((home / "state").rglob("*.log"))
                for path in log:
                    print(path.read_text(encoding="utf-8", errors="replace"), file=sys.stderr)
                return None
            time.sleep(1.0)
        return None
    finally:
        child.kill()
        child.wait(30)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="skyjo-lan-smoke-") as folder:
        home = Path(folder)
        env = _environ(home)
        verdict = _windows(home, env) if sys.platform == "win32" else _posix(home, env)
        if verdict is None:
            print("smoke: play did not reach the table", file=sys.stderr)
            return 1
        print(f"smoke: play reached the table: {verdict.get('game')}, {verdict.get('frames')} frames, valid")
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
