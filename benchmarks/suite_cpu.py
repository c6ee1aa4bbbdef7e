"""The test suite's CPU, per test: what to trim when the suite nears its 15-minute budget.

    python benchmarks/suite_cpu.py                      # the whole suite (as CI runs it)
    python benchmarks/suite_cpu.py tests/client --top 20

On two cores the suite is CPU-bound (two workers more than the cores keep both busy), so its
time is about its CPU divided by the cores: the durations pytest prints say how long a test
waited, not what it cost. This runs pytest with itself as a plugin: each test's CPU is read
with `getrusage`, for the worker (`self`) and for the programs it started and reaped
(`children`), then the tests and the files that cost most are listed.

It found, 2026-11-30, a test whose three programs used 24 s of CPU in 20 s: a host at 100 % of a
core while the table waited for a killed player (docs/performance.md, "While a seat's program is
gone"). A test whose programs' CPU is far above its wall time is worth a look for that reason.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, reaped.ru_utime + reaped.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: Any, nextitem: Any) -> Iterator[None]:
    """(pytest hook, as a wrapper) One line per test: self CPU, children CPU, node id."""
    before = _cpu()
    yield
    after = _cpu()
    out = os.environ["SUITE_CPU_LOG"] + "." + os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(out, "a") as handle:
        handle.write(f"{after[0] - before[0]:.3f}\t{after[1] - before[1]:.3f}\t{item.nodeid}\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=40, help="how many tests and files to list")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (default: the whole suite)")
    args, extra = parser.parse_known_args()
    pytest_args = [*args.pytest_args, *extra]
    with tempfile.TemporaryDirectory() as folder:
        env = {
            **os.environ,
            "SUITE_CPU_LOG": str(Path(folder) / "cpu"),
            "PYTHONPATH": os.pathsep.join(
                [str(ROOT / "benchmarks"), str(ROOT), os.environ.get("PYTHONPATH", "")]
            ),
        }
        argv = [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "suite_cpu",
            "-q",
            "-p",
            "no:cacheprovider",
            *pytest_args,
        ]
        code = subprocess.run(argv, cwd=ROOT, env=env, check=False).returncode
        rows = []
        for path in Path(folder).glob("cpu.*"):
            for line in path.read_text().splitlines():
                own, reaped, node = line.split("\t", 2)
                rows.append((float(own), float(reaped), node))
    files: dict[str, float] = defaultdict(float)
    for own, reaped, node in rows:
        files[node.split("::")[0]] += own + reaped
    total_own = sum(r[0] for r in rows)
    total_reaped = sum(r[1] for r in rows)
    print(
        f"\n{len(rows)} tests: {total_own:.0f} s of CPU in pytest, "
        f"{total_reaped:.0f} s in the programs they ran"
    )
    print(f"\nthe {args.top} tests that cost most (s: all, pytest, programs)")
    for own, reaped, node in sorted(rows, key=lambda r: -(r[0] + r[1]))[: args.top]:
        print(f"{own + reaped:8.2f} {own:8.2f} {reaped:8.2f}  {node}")
    print(f"\nthe {args.top} files that cost most (s)")
    for name, cost in sorted(files.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"{cost:8.2f}  {name}")
    return code


if __name__ == "__main__":
    sys.exit(main())
