"""Where a flip's CPU goes, in place: each compiled call timed where it runs, the rest Python.

    python benchmarks/flip_parts.py                 # 60 flips among 4 peers
    python benchmarks/flip_parts.py --flips 200 --json

Why: issue 29's flip figure (`benchmarks/protocol.py --compare`, "reveal (4 peers): CPU total")
is one number. To know how far it can fall, it must be split into the arithmetic it cannot
avoid and the Python around it. cProfile cannot do that: it doubles the cost of every Python
call and so shifts the shares; `benchmarks/instructions.py` counts instructions, and the
interpreter's instructions retire at a third of the rate of the field arithmetic's, so its
shares are not the time's either.

This script plays the flips of `benchmarks/protocol.py` (`reveal_samples`: 4 peers, greedy bots
between the measured flips) and, only inside each measured flip, times every call into the
compiled extension (`protocol/crypto/_msm.c`), libsodium's two multiplications and the frame
signer with `time.perf_counter`, as they run: with the caches as the sessions' Python left them
("in place"). It then calls each of the first calls again with the same arguments in a loop
("warm": the caches full of that call's tables), so the gap between the two is the cost of the
caches the rest of the program evicts. Everything in u (one `group.mul`, calibrated after the
run, as `benchmarks/protocol.py` does). What the compiled calls do not cover is the sessions'
Python: their frame bookkeeping, the engine, hashing and msgpack.

It also splits the flip by what a session was handling (`submit_move`, a received `move`, a
received `shares` frame), the same CPU as the figure, per call.

The compiled calls are timed with `time.perf_counter` (about 0.2 us a wrapper, some 60 a flip),
the session calls and the flip with `time.process_time`, as `benchmarks/protocol.py` does (about
0.6 us a wrapper, 16 a flip): one process, one thread and no sleep, so the two clocks agree, and
the wrappers add about 20 us (0.4 u) to a flip's total, which comes out that much higher than
`benchmarks/protocol.py`'s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import protocol as bp  # noqa: E402
from protocol.crypto import group, signatures  # noqa: E402
from protocol.loopback import frame_kind  # noqa: E402
from protocol.session import Session  # noqa: E402

WARM_REPEATS = 10
"""Calls of each replayed sample in its warm loop (after 3 not timed)."""
SAMPLES_KEPT = 20
"""First calls of each function kept to be replayed warm."""


class Recorder:
    """The timings of the wrapped calls, taken only while `on` (inside a measured flip)."""

    def __init__(self) -> None:
        self.on = False
        self.times: defaultdict[str, list[float]] = defaultdict(list)
        self.samples: defaultdict[str, list[tuple[Callable[..., Any], tuple[Any, ...]]]] = defaultdict(list)
        self.handling: defaultdict[str, list[float]] = defaultdict(list)
        self.spent = 0.0
        """Seconds in the wrapped calls so far (a flip's share: the difference around it)."""

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        clock = time.perf_counter
        times = self.times[name]
        samples = self.samples[name]

        def timed(*args: Any) -> Any:
            if not self.on:
                return fn(*args)
            start = clock()
            result = fn(*args)
            spent = clock() - start
            times.append(spent)
            self.spent += spent
            if len(samples) < SAMPLES_KEPT:
                samples.append((fn, args))
            return result

        return timed


class _Extension:
    """The extension module, its functions timed (constants and tables passed through)."""

    def __init__(self, module: Any, recorder: Recorder) -> None:
        self._module = module
        self._recorder = recorder
        self._wrapped: dict[str, Callable[..., Any]] = {}

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._module, name)
        if not callable(value) or name.isupper():
            return value
        wrapped = self._wrapped.get(name)
        if wrapped is None:
            wrapped = self._wrapped[name] = self._recorder.wrap(f"_msm.{name}", value)
        return wrapped


def instrument(recorder: Recorder) -> None:
    """Wrap the compiled calls a flip makes, and the two session calls it goes through
    (`submit_move`, `receive_frame`)."""
    if group._msm is None:
        raise SystemExit("the compiled extension is not built: this script splits its calls")
    group._msm = _Extension(group._msm, recorder)  # type: ignore[assignment]
    group._scalarmult = recorder.wrap("libsodium scalarmult (secret x, w)", group._scalarmult)
    group._scalarmult_base = recorder.wrap("libsodium scalarmult_base (secret w)", group._scalarmult_base)
    signer = signatures.FrameSigner.sign
    signatures.FrameSigner.sign = recorder.wrap("Ed25519 sign (libsodium)", signer)  # type: ignore[method-assign]

    clock = time.process_time

    def metered(kind_of: Callable[..., str], fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            if not recorder.on:
                return fn(*args)
            start = clock()
            try:
                return fn(*args)
            finally:
                recorder.handling[kind_of(*args)].append(clock() - start)

        return call

    Session.receive_frame = metered(  # type: ignore[method-assign]
        lambda _self, frame: f"received {frame_kind(frame)}", Session.receive_frame
    )
    Session.submit_move = metered(lambda *_: "submit_move", Session.submit_move)  # type: ignore[method-assign]


def measure(flips: int, seed: int) -> dict[str, Any]:
    recorder = Recorder()
    instrument(recorder)
    measure_flip = bp._measure_flip

    def measured(*args: Any) -> dict[str, float]:
        recorder.on = True
        before = recorder.spent
        try:
            run = measure_flip(*args)
        finally:
            recorder.on = False
        run["compiled"] = recorder.spent - before
        return run

    bp._measure_flip = measured
    try:
        runs = bp.reveal_samples(flips, seed=seed)
    finally:
        bp._measure_flip = measure_flip
    unit = min(bp.calibrate_mul() for _ in range(3))
    n = len(runs)
    parts = []
    called = {name: times for name, times in recorder.times.items() if times}
    for name, times in sorted(called.items(), key=lambda item: -sum(item[1])):
        warm = []
        for fn, args in recorder.samples[name]:
            for _ in range(3):
                fn(*args)
            start = time.perf_counter()
            for _ in range(WARM_REPEATS):
                fn(*args)
            warm.append((time.perf_counter() - start) / WARM_REPEATS)
        parts.append(
            {
                "call": name,
                "calls_per_flip": len(times) / n,
                "in_place_us": statistics.median(times) * 1e6,
                "warm_us": statistics.median(warm) * 1e6,
                "u_per_flip": sum(times) / n / unit,
            }
        )
    total = statistics.median(r["cpu_total"] for r in runs) / unit
    mean_total = statistics.mean(r["cpu_total"] for r in runs) / unit
    compiled = statistics.median(r["compiled"] for r in runs) / unit
    python = statistics.median(r["cpu_total"] - r["compiled"] for r in runs) / unit
    handling = [
        {
            "handling": kind,
            "per_flip": len(times) / n,
            "median_u": statistics.median(times) / unit,
            "u_per_flip": sum(times) / n / unit,
        }
        for kind, times in sorted(recorder.handling.items())
    ]
    return {
        "flips": n,
        "unit_us": unit * 1e6,
        "flip_total_median_u": total,
        "flip_total_mean_u": mean_total,
        "compiled_u_median": compiled,
        "python_u_median": python,
        "parts": parts,
        "handling": handling,
    }


def report(result: dict[str, Any]) -> None:
    print(f"{result['flips']} flips among 4 peers; u = {result['unit_us']:.1f} us")
    median, mean = result["flip_total_median_u"], result["flip_total_mean_u"]
    print(f"flip, CPU in total: median {median:.1f} u, mean {mean:.1f} u")
    print()
    print(f"  {'call':44s} {'a flip':>7s} {'in place':>9s} {'warm':>8s} {'u a flip':>9s}")
    for p in result["parts"]:
        print(
            f"  {p['call']:44s} {p['calls_per_flip']:7.2f} {p['in_place_us']:7.1f}us "
            f"{p['warm_us']:6.1f}us {p['u_per_flip']:9.2f}"
        )
    print(f"  {'(means; a few flips do more: see the medians)':44s}")
    blank = " " * 28
    print(f"  {'compiled calls, median of the flips':44s} {blank} {result['compiled_u_median']:9.2f}")
    print(f"  {'the rest (Python), median of the flips':44s} {blank} {result['python_u_median']:9.2f}")
    print()
    title = "handling (CPU of the call, all it triggers)"
    print(f"  {title:44s} {'a flip':>7s} {'median':>9s} {'u a flip':>18s}")
    for h in result["handling"]:
        print(f"  {h['handling']:44s} {h['per_flip']:7.2f} {h['median_u']:7.2f} u {h['u_per_flip']:18.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flips", type=int, default=60, help="flips measured (default 60)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()
    result = measure(args.flips, args.seed)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        report(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
