"""LAN benchmarks: move latency, start-up time, and a load run (not tests; figures in docs/performance.md).

    python benchmarks/lan.py latency [--games 3]   # 4 peers, 4 processes, loopback
    python benchmarks/lan.py load [--games 50] [--peers 8]
    python benchmarks/lan.py rounds [--target 700] [--runs 2] [--code CHECKOUT] [--trace DIR]

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

*rounds*: one long game (SKYJO to `--target` points: 700 gives about 30 rounds and 1,900 draws)
among 4 peer processes on 127.0.0.1, each started through benchmarks/memory_rounds.py, which
records the peer's resident memory, Python heap and objects at the end of every round (issue 12).
Per peer: the series, and the least-squares slope after the first round (MiB per round), and
from round `--settled` on (4: once the first rounds' allocations have settled); medians over
peers and `--runs`, and for the host's process (seat 0: it also serves spectators) and the
joiners' apart. `--code` runs the peers from another checkout (the code before a change),
`--trace DIR` adds tracemalloc snapshots (`memory_rounds.py diff` compares two, by line).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_listening(port: int, host: subprocess.Popen[bytes], most: float = 60.0) -> None:
    """Wait until the host accepts connections on `port` (a joiner dialling earlier fails at
    once; a loaded machine, or tracemalloc, can make the host slower than a fixed pause)."""
    deadline = time.time() + most
    while time.time() < deadline and host.poll() is None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the host never listened")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def one_game(
    folder: Path,
    options: list[str],
    *,
    program: tuple[str, ...] = ("-m", "client"),
    code: Path = ROOT,
    extra_env: dict[str, str] | None = None,
    timeout: float = 600,
) -> tuple[list[float], float]:
    """Run one 4-peer game as 4 processes (`program` is what follows `python`: the client, or a
    wrapper of it) on the code of the checkout `code`; each peer gets `extra_env`, in which
    "{i}" is replaced by its process number (0 is the host)."""
    trace = folder / "trace.txt"
    port = free_port()
    env = {**os.environ, "SKYJO_LAN_TRACE": str(trace), "PYTHONPATH": str(code)}

    def home(i: int) -> dict[str, str]:
        more = {k: v.replace("{i}", str(i)) for k, v in (extra_env or {}).items()}
        return {
            **env,
            "XDG_CONFIG_HOME": str(folder / f"c{i}"),
            "XDG_DATA_HOME": str(folder / f"d{i}"),
            **more,
        }

    started = time.time()
    processes = [
        subprocess.Popen(
            [
                sys.executable,
                *program,
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
    wait_listening(port, processes[0])
    for i in (1, 2, 3):
        processes.append(
            subprocess.Popen(
                [
                    sys.executable,
                    *program,
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
        if process.wait(timeout=timeout) != 0:
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

    from client.table.host import Host, HostOptions

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


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of y over x."""
    if len(points) < 2:
        return 0.0
    mx = statistics.fmean(x for x, _ in points)
    my = statistics.fmean(y for _, y in points)
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0


def read_samples(folder: Path) -> dict[int, list[dict[str, Any]]]:
    """The end-of-round samples of benchmarks/memory_rounds.py, by seat, in round order."""
    by_seat: dict[int, list[dict[str, Any]]] = {}
    for path in sorted(folder.glob("mem*.jsonl")):
        for line in path.read_text().splitlines():
            record = json.loads(line)
            if record["event"] == "round":
                by_seat.setdefault(int(record["seat"]), []).append(record)
    for samples in by_seat.values():
        samples.sort(key=lambda r: r["round"])
    return by_seat


def rounds(args: argparse.Namespace) -> dict[str, object]:
    code = Path(args.code).resolve()
    runs: list[dict[str, Any]] = []
    for run in range(args.runs):
        folder = Path(tempfile.mkdtemp(prefix="skyjo-rounds-"))
        extra = {"SKYJO_LAN_MEMLOG": str(folder / "mem{i}.jsonl")}
        if args.trace:
            trace_dir = Path(args.trace) / f"run{run + 1}"
            trace_dir.mkdir(parents=True, exist_ok=True)
            extra |= {"SKYJO_LAN_MEMTRACE": str(trace_dir), "SKYJO_LAN_MEMTRACE_ROUNDS": args.trace_rounds}
        started = time.time()
        one_game(
            folder,
            ["--option", f"target_score={args.target}"],
            program=(str(ROOT / "benchmarks" / "memory_rounds.py"),),
            code=code,
            extra_env=extra,
            timeout=args.timeout,
        )
        by_seat = read_samples(folder)
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
        seats = sorted(by_seat)
        last = {seat: by_seat[seat][-1] for seat in seats}
        summary: dict[str, Any] = {
            "run": run + 1,
            "wall_s": round(time.time() - started, 1),
            "rounds": max(r["round"] for r in last.values()),
            "draws": max(r["draws"] for r in last.values()),
            "moves": max(r["moves"] for r in last.values()),
            "frames_accepted": max(r["frames_accepted"] for r in last.values()),
            "code": next(iter(last.values()))["code"],
            "seats": {},
        }
        for seat in seats:
            samples = by_seat[seat]
            after_first = [s for s in samples if s["round"] >= 1]

            def fit(key: str, scale: float = 1.0, samples: list[dict[str, Any]] = after_first) -> float:
                return slope([(s["round"], s[key] * scale) for s in samples])

            summary["seats"][seat] = {
                "rss_mib": [s["rss_mib"] for s in samples],
                "python_blocks": [s["python_blocks"] for s in samples],
                "gc_objects": [s["gc_objects"] for s in samples],
                "frames_held": [s["frames_held"] for s in samples],
                "chain_frames_held": [s["chain_frames_held"] for s in samples],
                "traced_mib": [s["traced_mib"] for s in samples if "traced_mib" in s],
                "rss_slope_mib_per_round": round(fit("rss_mib"), 3),
                "rss_slope_mib_per_round_from_settled": round(
                    fit("rss_mib", samples=[s for s in samples if s["round"] >= args.settled]), 3
                ),
                "python_blocks_slope_per_round": round(fit("python_blocks"), 1),
                "gc_objects_slope_per_round": round(fit("gc_objects"), 1),
            }
        runs.append(summary)
        seat_rss = {seat: v["rss_mib"] for seat, v in summary["seats"].items()}
        print(
            f"run {run + 1}: {summary['rounds']} rounds, {summary['draws']} draws, "
            f"{summary['frames_accepted']} frames, {summary['wall_s']} s; RSS after round 1 / last: "
            + ", ".join(f"seat {seat} {v[0]:.1f} / {v[-1]:.1f}" for seat, v in seat_rss.items())
            + "; slope MiB/round: "
            + ", ".join(f"{v['rss_slope_mib_per_round']:+.2f}" for v in summary["seats"].values()),
            file=sys.stderr,
        )
    every_slope = [v["rss_slope_mib_per_round"] for r in runs for v in r["seats"].values()]
    # seat 0 is the host's process (it also keeps the transcript for spectators); 1-3 join
    host_slope = [r["seats"][0]["rss_slope_mib_per_round"] for r in runs if 0 in r["seats"]]
    joiner_slope = [v["rss_slope_mib_per_round"] for r in runs for s, v in r["seats"].items() if s != 0]
    host_settled = [r["seats"][0]["rss_slope_mib_per_round_from_settled"] for r in runs if 0 in r["seats"]]
    joiner_settled = [
        v["rss_slope_mib_per_round_from_settled"] for r in runs for s, v in r["seats"].items() if s != 0
    ]
    host_blocks = [r["seats"][0]["python_blocks_slope_per_round"] for r in runs if 0 in r["seats"]]
    joiner_blocks = [
        v["python_blocks_slope_per_round"] for r in runs for s, v in r["seats"].items() if s != 0
    ]
    blocks_slope = [v["python_blocks_slope_per_round"] for r in runs for v in r["seats"].values()]
    first_rss = [v["rss_mib"][0] for r in runs for v in r["seats"].values()]
    last_rss = [v["rss_mib"][-1] for r in runs for v in r["seats"].values()]
    return {
        "peers": 4,
        "target_score": args.target,
        "code": str(code),
        "runs": runs,
        "median_over_peers_and_runs": {
            "rss_after_round_1_mib": round(statistics.median(first_rss), 1),
            "rss_at_end_mib": round(statistics.median(last_rss), 1),
            "rss_slope_mib_per_round": round(statistics.median(every_slope), 3),
            "python_blocks_slope_per_round": round(statistics.median(blocks_slope), 1),
        },
        "host_median_over_runs": {
            "rss_slope_mib_per_round": round(statistics.median(host_slope), 3),
            f"rss_slope_mib_per_round_from_round_{args.settled}": round(statistics.median(host_settled), 3),
            "python_blocks_slope_per_round": round(statistics.median(host_blocks), 1),
            "runs": host_slope,
        },
        "joiners_median_over_peers_and_runs": {
            "rss_slope_mib_per_round": round(statistics.median(joiner_slope), 3),
            f"rss_slope_mib_per_round_from_round_{args.settled}": round(statistics.median(joiner_settled), 3),
            "python_blocks_slope_per_round": round(statistics.median(joiner_blocks), 1),
            "runs": joiner_slope,
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("latency")
    p.add_argument("--games", type=int, default=3)
    p = sub.add_parser("load")
    p.add_argument("--games", type=int, default=50)
    p.add_argument("--peers", type=int, default=8)
    p = sub.add_parser("rounds")
    p.add_argument("--target", type=int, default=500, help="target_score: the game's length")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--code", default=str(ROOT), help="the checkout the peers run (default: this one)")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per game")
    p.add_argument("--settled", type=int, default=4, help="also fit the slope from this round on")
    p.add_argument("--trace", metavar="DIR", help="tracemalloc snapshots into DIR (slower)")
    p.add_argument("--trace-rounds", default="2,10", help="rounds to snapshot, with --trace")
    p.add_argument("--keep", action="store_true", help="keep each run's folder (samples, transcripts)")
    p.add_argument("--json-file", help="also write the result there")
    args = parser.parse_args()
    modes = {"latency": latency, "load": load, "rounds": rounds}
    result = modes[args.what](args)
    if getattr(args, "json_file", None):
        Path(args.json_file).write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
