"""What a takeover costs over a whole game (issue 17): the table playing a seat with the common bot.

    python benchmarks/takeover.py                       # 3 and 4 peers, 5 games each
    python benchmarks/takeover.py --peers 3 --games 9 --json

Whole SKYJO games (greedy bots, target 100) among real `Session` objects in one process
(`protocol.loopback.Loopback`, FIFO, metered with `time.process_time`), on insured tables, three
ways for the same number of peers:

* **nobody**: every seat plays to the end (the baseline: insurance costs only the escrow at the
  keys step);
* **left**: the last seat leaves with `q` after `--after` moves (its key share in the `leave`
  frame; every peer computes its decryption shares itself);
* **vanished**: the last seat goes silent after `--after` moves; the others' waits run out (the
  timers are fired, no real time passes), they vote, and they rebuild its decryption shares
  from the key escrow for the rest of the game (each holder sends `partials` with a batched
  Chaum-Pedersen proof, every peer checks and combines them).

For each: CPU per remaining peer for the whole game and per move, the bytes and frames delivered
per move, and (vanished) the frames and CPU of the partials. Games differ (the deals are random),
so each figure is the median over `--games` games; per-move figures compare best.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol.loopback import Loopback, bots_for, make_table, seats

SCENARIOS = ("nobody", "left", "vanished")


def one_game(players: int, scenario: str, after: int) -> dict[str, Any]:
    """One whole insured SKYJO game in which the last seat plays, leaves or vanishes."""
    config, keys = make_table("skyjo", players, {"target_score": 100}, table={"insured": True})
    net = Loopback(
        seats(config, keys), bots_for("skyjo", ["greedy"] * players, "takeover"), meter=time.process_time
    )
    gone = players - 1
    others = list(range(gone))
    for session in net.sessions:
        session.move_timeout = 300.0  # only protocol steps are timed out below (as in the tests)
    net.start(until=lambda: net.moves >= after)
    takeover_cpu = 0.0
    if scenario == "left":
        net.run(bots=False)
        net.call(gone, net.sessions[gone].leave)
        net.collect(gone)
        net.silent.add(gone)
    elif scenario == "vanished":
        net.run(bots=False)
        net.silent.add(gone)
        net.run()
        before = sum(net.cpu[s] for s in others)
        net.fire_timers(others, prefix="job:", until=lambda: all(net.sessions[s].taken_over for s in others))
        takeover_cpu = (sum(net.cpu[s] for s in others) - before) / len(others)
    net.run(until=lambda: all(net.sessions[s].settled for s in others))
    for seat in others:
        state = net.sessions[seat].state
        if state is None or state.phase != "game_over" or net.sessions[seat].halted is not None:
            raise RuntimeError(f"{scenario}: seat {seat} did not finish the game")
        if scenario != "nobody" and gone not in net.sessions[seat].taken_over:
            raise RuntimeError(f"{scenario}: the table did not play seat {gone}")
    moves = max(net.moves, 1)
    cpu = [net.cpu[s] for s in others]
    return {
        "moves": net.moves,
        "cpu_per_peer": statistics.mean(cpu),
        "cpu_per_peer_per_move_ms": statistics.mean(cpu) / moves * 1000,
        "bytes_per_move": net.delivered_bytes / moves,
        "frames_per_move": net.delivered / moves,
        "partials_frames": net.frames_delivered.get("partials", 0),
        "partials_bytes": net.bytes_delivered.get("partials", 0),
        "partials_cpu_per_peer": net.cpu_by_kind.get("partials", 0.0) / len(others),
        "takeover_cpu_per_peer": takeover_cpu,
    }


def bench(peers: list[int], games: int, after: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for players in peers:
        for scenario in SCENARIOS:
            runs = [one_game(players, scenario, after) for _ in range(games)]
            out[f"{players}:{scenario}"] = {
                key: statistics.median(run[key] for run in runs) for key in runs[0]
            }
            print(f"  {players} peers, {scenario}: done", file=sys.stderr)
    return out


def print_table(results: dict[str, Any]) -> None:
    print(
        "| peers | last seat | moves | CPU/peer, game | CPU/peer/move | bytes/move | frames/move "
        "| partials (frames, kB) | partials CPU/peer | vote + takeover CPU/peer |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for key, r in results.items():
        players, scenario = key.split(":")
        cells = [
            players,
            scenario,
            f"{r['moves']:.0f}",
            f"{r['cpu_per_peer']:.2f} s",
            f"{r['cpu_per_peer_per_move_ms']:.2f} ms",
            f"{r['bytes_per_move']:.0f}",
            f"{r['frames_per_move']:.1f}",
            f"{r['partials_frames']:.0f}, {r['partials_bytes'] / 1000:.1f}",
            f"{r['partials_cpu_per_peer']:.2f} s",
            f"{r['takeover_cpu_per_peer'] * 1000:.0f} ms",
        ]
        print("| " + " | ".join(cells) + " |")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--peers", type=int, action="append", help="table sizes (default 3 and 4)")
    parser.add_argument("--games", type=int, default=5, help="games per figure (median)")
    parser.add_argument("--after", type=int, default=8, help="moves before the last seat leaves or vanishes")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = bench(args.peers or [3, 4], max(1, args.games), args.after)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_table(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
