"""Every module of the three packages imports where the Unix-only modules do not exist (Windows:
no `resource`, `fcntl`, `termios`, `curses` without windows-curses, `pwd`, `grp`): the platform
code is chosen when it runs, not at import (issue 27).

The import runs in a fresh interpreter in which those modules are made unimportable (a `None`
in `sys.modules` makes `import x` raise ImportError). The third-party dependencies are imported
first, with everything available, since their own platform support is theirs to test.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

UNIX_ONLY = ("resource", "fcntl", "termios", "curses", "_curses", "tty", "pty", "pwd", "grp")

PROBE = f"""
import importlib, pkgutil, sys
for dependency in ("trio", "msgpack", "cryptography.hazmat.primitives.asymmetric.ed25519",
                   "zeroconf", "zeroconf.asyncio", "ifaddr", "spake2", "openskill", "platformdirs"):
    importlib.import_module(dependency)
for name in {UNIX_ONLY!r}:
    sys.modules[name] = None
imported = []
failed = []
for package in ("skyjo_p2p", "protocol", "client"):
    root = importlib.import_module(package)
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        if info.name.endswith("__main__"):
            continue
        try:
            importlib.import_module(info.name)
        except ImportError as exc:
            failed.append(f"{{info.name}}: {{exc}}")
        else:
            imported.append(info.name)
print(len(imported))
print("\\n".join(failed))
for name in {UNIX_ONLY!r}:
    assert sys.modules[name] is None, name
"""


def test_every_module_imports_without_the_unix_only_modules() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    count, *failed = done.stdout.splitlines()
    assert [line for line in failed if line] == []
    assert int(count) > 150  # the three packages, every module


def test_the_screen_without_curses_says_what_to_install() -> None:
    code = (
        "import sys; sys.modules['curses'] = None; sys.modules['_curses'] = None\n"
        "from client.ui import terminal\n"
        "try:\n    terminal.curses.initscr()\n"
        "except Exception as exc:\n    print(type(exc).__name__, exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("CursesMissing")
    assert "windows-curses" in done.stdout
