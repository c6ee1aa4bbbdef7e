"""One LAN peer's memory at the end of every round of a long game (issue 12; benchmarks/lan.py rounds).

    python benchmarks/memory_rounds.py host ARGS...   # exactly `skyjo-lan host ARGS...`
    python benchmarks/memory_rounds.py join ARGS...   # exactly `skyjo-lan join ARGS...`
    python benchmarks/memory_rounds.py diff A.snap B.snap [--top 25]   # tracemalloc, by line

As a peer it is the real client (`client.cli.main`, from whatever checkout $PYTHONPATH names, so
the same script measures the code before and after a change) with one hook: when its runner
handles `RoundSigned` (every seat signed the round: by then the session has compacted its chains
and the runner has saved and released the frames) or `Finished`, it appends a JSON line to
$SKYJO_LAN_MEMLOG: resident memory (read before anything else), the draws and moves applied so
far, the frames the session still holds, then after a `gc.collect()` the Python heap
(`sys.getallocatedblocks()`) and the objects the garbage collector tracks. Nothing else in the
client changes; the collection once a round is the only thing the real program does not do.

With $SKYJO_LAN_MEMTRACE set to a folder, tracemalloc runs from the start (1 frame per
allocation: by line; it slows the peer down) and a snapshot is dumped there at the end of the
rounds listed in $SKYJO_LAN_MEMTRACE_ROUNDS (default "2,10") and at the end of the game
(``seat<S>-round<R>.snap``, ``seat<S>-finished<R>.snap``); `diff` prints what grew between two of
them, by file:line.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# benchmarks/protocol.py must not shadow the `protocol` package of the checkout being measured
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]


def rss_mib() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def install(log_path: Path, trace_dir: Path | None, trace_rounds: set[int]) -> None:
    """Wrap `PeerRunner._handle` so that the end of every round is sampled."""
    import protocol.session
    from client.table.peer import PeerRunner
    from protocol.events import Finished, RoundSigned, SessionEvent, Updated
    from skyjo_p2p.core.events import Moved

    original = PeerRunner._handle
    counts = {"draws": 0, "moves": 0}
    started = time.time()

    def sample(runner: PeerRunner, label: str, round_number: int) -> None:
        rss = rss_mib()
        session = runner.session
        chains = getattr(session, "chains", [])
        record: dict[str, Any] = {
            "seat": runner.seat,
            "event": label,
            "round": round_number,
            "t": round(time.time() - started, 2),
            "rss_mib": round(rss, 2),
            **counts,
            "frames_accepted": getattr(session, "frame_count", len(session.frames)),
            "frames_held": len(session.frames),
            "chain_frames_held": sum(len(chain.frames) for chain in chains),
        }
        gc.collect()
        record["python_blocks"] = sys.getallocatedblocks()
        record["gc_objects"] = len(gc.get_objects())
        if trace_dir is not None:
            record["traced_mib"] = round(tracemalloc.get_traced_memory()[0] / 2**20, 2)
        if trace_dir is not None and (label == "finished" or round_number in trace_rounds):
            snapshot = tracemalloc.take_snapshot()
            snapshot.dump(str(trace_dir / f"seat{runner.seat}-{label}{round_number}.snap"))
        record["code"] = str(Path(protocol.session.__file__).resolve().parent.parent)
        with open(log_path, "a") as handle:
            handle.write(json.dumps(record) + "\n")

    def handle(self: PeerRunner, event: SessionEvent) -> None:
        if isinstance(event, Updated):
            for fact in event.facts:
                if isinstance(fact, Moved):
                    counts["moves"] += 1
                    counts["draws"] += fact.move.kind == "draw"
        original(self, event)
        if isinstance(event, RoundSigned):
            sample(self, "round", event.round)
        elif isinstance(event, Finished):
            state = self.session.state
            sample(self, "finished", state.round if state is not None else -1)

    PeerRunner._handle = handle  # type: ignore[method-assign]


def diff(first: Path, second: Path, top: int) -> None:
    """What grew from snapshot `first` to `second`, by file:line (largest first)."""
    keep = [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen*>")]
    a = tracemalloc.Snapshot.load(str(first)).filter_traces(keep)
    b = tracemalloc.Snapshot.load(str(second)).filter_traces(keep)
    total_a = sum(s.size for s in a.statistics("filename"))
    total_b = sum(s.size for s in b.statistics("filename"))
    grew = (total_b - total_a) / 2**10
    print(f"traced: {total_a / 2**20:.2f} MiB -> {total_b / 2**20:.2f} MiB ({grew:+.0f} KiB)")
    for stat in b.compare_to(a, "lineno")[:top]:
        frame = stat.traceback[0]
        print(
            f"{stat.size_diff / 2**10:+9.1f} KiB {stat.count_diff:+7d} blocks  "
            f"(now {stat.size / 2**10:8.1f} KiB)  {frame.filename}:{frame.lineno}"
        )


def main() -> int:
    if len(sys.argv) >= 4 and sys.argv[1] == "diff":
        top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 25
        diff(Path(sys.argv[2]), Path(sys.argv[3]), top)
        return 0
    trace = os.environ.get("SKYJO_LAN_MEMTRACE")
    if trace:
        tracemalloc.start(int(os.environ.get("SKYJO_LAN_MEMTRACE_FRAMES", "1")))
    rounds = {int(r) for r in os.environ.get("SKYJO_LAN_MEMTRACE_ROUNDS", "2,10").split(",") if r.strip()}
    log_path = Path(os.environ.get("SKYJO_LAN_MEMLOG", "memory_rounds.jsonl"))
    install(log_path, Path(trace) if trace else None, rounds)
    from client.cli import main as client_main

    return client_main(sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
