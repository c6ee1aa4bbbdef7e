"""Engine speed and memory: moves per second, whole games per second, memory over many games.

    python benchmarks/engine.py                  # every available game, default sizes
    python benchmarks/engine.py --game skyjo --memory-games 10000

"Moves per second" counts the moves players make (each one `legal_moves` + `apply`, with the local
dealer answering the requests the move raises) with the random policy, on one core, in one
process. Figures are medians of --repeats runs. Memory: resident set size sampled every
1,000 games; "flat" means the last sample is within 5% of the sample after the first 1,000 games.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from skyjo_p2p.bots.random_bot import RandomBot
from skyjo_p2p.engine import games as available_games
from skyjo_p2p.simulate import play_game

CONFIGS = {
    "skyjo": {"players": 4, "options": {}},
    "skyjo-action": {"players": 4, "options": {}},
    "skip-bo": {"players": 4, "options": {"single_round": True}},
}


def rss_mib() -> float:
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def speed_run(game: str, players: int, options: dict, count: int, seed: int) -> tuple[float, float, int]:
    moves = 0
    started = time.process_time()
    for number in range(count):
        label = f"bench:{seed}:{number}"
        bots = [RandomBot(f"{label}:{s}") for s in range(players)]
        _, played = play_game(game, players, options, label, list(bots), use_views=False)
        moves += played
    elapsed = time.process_time() - started
    return moves / elapsed, count / elapsed, moves


def memory_run(game: str, players: int, options: dict, count: int) -> list[tuple[int, float]]:
    samples = []
    for number in range(count):
        label = f"mem:{number}"
        bots = [RandomBot(f"{label}:{s}") for s in range(players)]
        play_game(game, players, options, label, list(bots), use_views=False)
        if (number + 1) % 1000 == 0:
            gc.collect()
            samples.append((number + 1, round(rss_mib(), 1)))
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", action="append", help="game(s) to measure (default: all available)")
    parser.add_argument("--games", type=int, default=200, help="games per speed run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--memory-games", type=int, default=10_000, help="0 to skip the memory run")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    chosen = args.game or [g for g in CONFIGS if g in available_games()]
    results = {}
    for game in chosen:
        config = CONFIGS[game]
        runs = [
            speed_run(game, config["players"], config["options"], args.games, r) for r in range(args.repeats)
        ]
        entry = {
            "players": config["players"],
            "options": config["options"],
            "moves_per_second_median": round(statistics.median(r[0] for r in runs)),
            "moves_per_second_runs": [round(r[0]) for r in runs],
            "games_per_second_median": round(statistics.median(r[1] for r in runs), 2),
            "moves_per_game": round(runs[0][2] / args.games, 1),
        }
        if args.memory_games:
            samples = memory_run(game, config["players"], config["options"], args.memory_games)
            entry["rss_mib_every_1000_games"] = samples
            if len(samples) >= 2:
                first, last = samples[0][1], samples[-1][1]
                entry["memory_flat"] = last <= first * 1.05
        results[game] = entry
        if not args.json:
            print(
                f"{game:13} {config['players']} players: {entry['moves_per_second_median']:>7} moves/s "
                f"(runs {entry['moves_per_second_runs']}), {entry['games_per_second_median']} games/s, "
                f"{entry['moves_per_game']} moves/game"
            )
            if "rss_mib_every_1000_games" in entry:
                print(
                    f"{'':13} RSS MiB every 1000 games: {[s[1] for s in entry['rss_mib_every_1000_games']]}"
                    f" flat={entry.get('memory_flat')}"
                )
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
