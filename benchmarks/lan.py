"""LAN benchmarks: move latency, start-up time, and a load run (not tests; figures in docs/performance.md).

    python benchmarks/lan.py latency [--games 3]   # 4 peers, 4 processes, loopback
    python benchmarks/lan.py load [--games 50] [--peers 8]

*latency*: `skyjo-lan host --bot greedy` and three `skyjo-lan join --bot greedy` run as separate
processes on 127.0.0.1 (no mDNS), each appending a line per move it applies to a trace file
($SKYJO_LAN_TRACE). The latency of a move is the time from the mover applying it to the last
peer applying it (one machine, one clock). Start-up is the time from launching `host` (its
three joiners launched right after) to the first turn. Medians and percentiles over every move of
`--games` games.

*load*: one process hosts `--peers` headless peers (the host's seat and its bots, every one a real
peer with its own keys and TCP links on loopback) for `--games` consecutive one-round games, and
records after each game its resident memory, its Python heap (`sys.getallocatedblocks()`, the
blocks Python's allocator holds: a leak of Python objects shows there first), the number of objects
the garbage collector tracks, and its open file descriptors: no error, no growth. Growth is judged
after a warm-up of 10 games: resident memory rises over the first games (not through Python
objects, whose count settles at once; docs/performance.md) and settles after about ten.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def one_game(folder: Path, options: list[str]) -> tuple[list[float], float]:
    trace = folder / "trace.txt"
    port = free_port()
    env = {**os.environ, "SKYJO_LAN_TRACE": str(trace), "PYTHONPATH": str(ROOT)}

    def home(i: int) -> dict[str, str]:
        return {**env, "XDG_CONFIG_HOME": str(folder / f"c{i}"), "XDG_DATA_HOME": str(folder / f"d{i}")}

    started = time.time()
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "client",
                "host",
                "--seats",
                "4",
                "--bot",
                "greedy",
                "--no-mdns",
                "--interface",
                "127.0.0.1",
                "--port",
                str(port),
                *options,
            ],
            env=home(0),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    time.sleep(0.3)
    for i in (1, 2, 3):
        processes.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "client",
                    "join",
                    f"127.0.0.1:{port}",
                    "--bot",
                    "greedy",
                    "--nick",
                    f"p{i}",
                ],
                env=home(i),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
    for process in processes:
        if process.wait(timeout=600) != 0:
            raise RuntimeError("a peer failed")
    applied: dict[int, dict[int, float]] = {}
    first_turn = None
    for line in trace.read_text().splitlines():
        parts = line.split()
        if parts[2] == "first-turn":
            first_turn = min(first_turn or float("inf"), float(parts[0]))
            continue
        stamp, seat, number, mover = float(parts[0]), int(parts[1]), int(parts[2]), int(parts[3])
        applied.setdefault(number, {})[seat] = stamp
        applied[number].setdefault(-1 - mover, 0.0)
    latencies = []
    for stamps in applied.values():
        seats = {s: t for s, t in stamps.items() if s >= 0}
        mover = -1 - next(s for s in stamps if s < 0)
        if len(seats) == 4 and mover in seats:
            latencies.append(max(seats.values()) - seats[mover])
    assert first_turn is not None
    return latencies, first_turn - started


def latency(args: argparse.Namespace) -> dict[str, object]:
    all_latencies: list[float] = []
    startups: list[float] = []
    for game in range(args.games):
        with tempfile.TemporaryDirectory() as folder:
            latencies, startup = one_game(Path(folder), ["--option", "target_score=60"])
        all_latencies += latencies
        startups.append(startup)
        print(
            f"game {game + 1}: {len(latencies)} moves, median {1000 * statistics.median(latencies):.1f} ms, "
            f"start-up {startup:.2f} s",
            file=sys.stderr,
        )
    ms = [1000 * x for x in all_latencies]
    return {
        "peers": 4,
        "moves": len(ms),
        "latency_ms": {
            "median": round(statistics.median(ms), 2),
            "p90": round(percentile(ms, 0.9), 2),
            "p99": round(percentile(ms, 0.99), 2),
            "max": round(max(ms), 2),
        },
        "startup_s": {
            "median": round(statistics.median(startups), 3),
            "runs": [round(s, 3) for s in startups],
        },
    }


def rss_mib() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


WARM_UP = 10  # games before growth is judged (see the module docstring)


def load(args: argparse.Namespace) -> dict[str, object]:
    import gc

    import trio
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from client.netgame import Host, HostOptions

    samples = []
    errors = 0
    os.environ.setdefault("XDG_CONFIG_HOME", tempfile.mkdtemp())
    os.environ.setdefault("XDG_DATA_HOME", tempfile.mkdtemp())

    async def game(number: int) -> bool:
        opts = HostOptions(
            game="skyjo",
            options={"target_score": 1},
            seats=args.peers,
            bots=args.peers - 1,
            headless="greedy",
            advertise=False,
            interface="127.0.0.1",
            save=False,
        )
        host = Host(opts, Ed25519PrivateKey.generate(), lambda line: None)
        with trio.fail_after(900):
            runner = await host.run()
        return runner is not None and runner.status.finished and not runner.status.halted

    started = time.time()
    for number in range(args.games):
        ok = trio.run(game, number)
        errors += 0 if ok else 1
        gc.collect()
        samples.append(
            {
                "game": number + 1,
                "rss_mib": round(rss_mib(), 1),
                "python_blocks": sys.getallocatedblocks(),
                "gc_objects": len(gc.get_objects()),
                "open_fds": open_fds(),
                "ok": ok,
            }
        )
        print(
            f"game {number + 1}: ok={ok} rss={samples[-1]['rss_mib']} MiB "
            f"python blocks={samples[-1]['python_blocks']} objects={samples[-1]['gc_objects']} "
            f"fds={samples[-1]['open_fds']} ({time.time() - started:.0f} s)",
            file=sys.stderr,
        )
    first, last = samples[min(WARM_UP, len(samples)) - 1], samples[-1]
    return {
        "peers": args.peers,
        "games": args.games,
        "errors": errors,
        "rss_mib": [s["rss_mib"] for s in samples],
        "python_blocks": [s["python_blocks"] for s in samples],
        "gc_objects": [s["gc_objects"] for s in samples],
        "open_fds": [s["open_fds"] for s in samples],
        "warm_up_games": min(WARM_UP, len(samples)),
        "memory_flat": last["rss_mib"] <= first["rss_mib"] * 1.10,  # type: ignore[operator]
        "python_heap_flat": last["python_blocks"] <= first["python_blocks"] * 1.02,  # type: ignore[operator]
        "fds_flat": last["open_fds"] <= first["open_fds"],  # type: ignore[operator]
        "wall_s": round(time.time() - started, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("latency")
    p.add_argument("--games", type=int, default=3)
    p = sub.add_parser("load")
    p.add_argument("--games", type=int, default=50)
    p.add_argument("--peers", type=int, default=8)
    args = parser.parse_args()
    result = latency(args) if args.what == "latency" else load(args)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
