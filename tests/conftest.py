"""Every test: the program's log files (`client.logs`) go to the test's own directory, and the
log handlers a command set up are removed after it (so no test writes to the real home).

On Windows, the tests that drive the program in a pseudo-terminal (pexpect's `spawn`, the
`Pty` driver) are skipped: Windows has none (tests/platforms/smoke_play.py drives `play` there
in a console of its own instead)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# The bytecode cache is written even when PYTHONDONTWRITEBYTECODE is set (as it is on some CI
# machines). Without it each worker compiles every test module and the whole project again
# (collecting the suite: about 18 s of CPU per worker against 5 s on the 2-core machine of
# docs/dependencies.md), and so does every program a test starts. `__pycache__` is ignored by git.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: two workers more than the cores this process may use.

    Many tests run real programs and wait on real time (a grace, a move countdown, a link cut for
    seconds): with one worker per core the cores sat idle a fifth of the time (2 workers on the
    2-core machine of docs/dependencies.md: 18 min 47 s; 3 workers: 16 min 44 s, 1.63 cores busy
    on average). Later, with more tests on real programs, the same suite took 15 min 28 s with 3
    workers and 14 min 10 s with 4 (2026-11-30, idle machine, every test passed). The tests hold
    on a loaded machine (CI has run with a second whole suite beside it).
    `PYTEST_XDIST_AUTO_NUM_WORKERS` still decides when it is set (None: xdist's own rule)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores + 2


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if sys.platform != "win32":
        return
    skip = pytest.mark.skip(reason="needs a pseudo-terminal (pexpect.spawn), which Windows does not have")
    for item in items:
        module = getattr(item, "module", None)
        if module is not None and ("pexpect" in vars(module) or "Pty" in vars(module)):
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _log_files_in_the_test_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    yield
    from client import logs

    logs.reset()
