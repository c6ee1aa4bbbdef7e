"""Long run of the secrecy property (issue 12): many random games through the protocol.

    python benchmarks/secrecy_property.py --games 200 --seed 1
    python benchmarks/secrecy_property.py --games 50 --seed 7 --game skyjo-action --max-players 8
    python benchmarks/secrecy_property.py --replay 1234 --game skyjo-action   # one game, by seed

Game i is `sample_spec(seed + i)` from tests/protocol/secrecy.py: a game (or `--game`), a
variant, options, a seat count (2 to 8 where the game allows, small ones more often), bots and a
policy, all drawn from that one number, and the game's crypto randomness seeded from it too; so a
finding is replayed exactly with `--replay SEED` (and `--game` if one was given). Every state
change of every seat and of an observer is checked (see the checker's docstring), then the saved
transcript is read by a fresh observer.

Prints the games run per game / variant / seat count, the reveal paths reached (how many reveals
of each kind), and every finding with its seed. Exit status 1 if there was any finding. No clock
decides anything; `--budget` only stops starting new games after that many CPU seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.protocol.secrecy import GAMES, SecrecyViolation, play, sample_spec


def main(argv: list[str] | None = None) -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game (default 1)")
    parser.add_argument("--game", choices=GAMES, help="only this game (default: all three)")
    parser.add_argument("--max-players", type=int, default=8, help="largest seat count drawn (default 8)")
    parser.add_argument("--replay", type=int, help="play the one game of this seed, verbosely")
    parser.add_argument("--budget", type=float, help="start no new game after this many CPU seconds")
    parser.add_argument("--verbose", action="store_true", help="one line per game")
    parser.add_argument("--no-transcript", action="store_true", help="skip the saved-transcript check")
    args = parser.parse_args(argv)

    seeds = [args.replay] if args.replay is not None else [args.seed + i for i in range(args.games)]
    runs: Counter[tuple[str, str, int]] = Counter()
    paths: Counter[str] = Counter()
    findings: list[tuple[int, str]] = []
    checks = 0
    start = time.process_time()
    for seed in seeds:
        if args.budget is not None and time.process_time() - start > args.budget:
            print(f"budget of {args.budget:.0f} CPU seconds spent: stopping before seed {seed}")
            break
        spec = sample_spec(seed, args.game, max_players=args.max_players)
        if args.replay is not None:
            print(f"seed {seed}: {spec.describe()}")
        runs[(spec.game, spec.variant, spec.players)] += 1
        try:
            report = play(spec, transcript=not args.no_transcript)
        except SecrecyViolation as finding:
            findings.append((seed, str(finding)))
            print(f"FINDING seed {seed}: {finding}", flush=True)
            continue
        checks += report.checks
        if args.verbose or args.replay is not None:
            print(f"seed {seed}: {spec.variant}, {spec.players} seats, {report.moves} moves: ok", flush=True)
        for path, count in report.paths.items():
            paths[f"{spec.game}: {path}"] += count
    elapsed = time.process_time() - start

    played = sum(runs.values())
    print(f"\n{played} games, {checks} viewer checks, {elapsed:.1f} CPU seconds")
    print("\ngames run (game / variant / seats):")
    for (_, variant, seats), count in sorted(runs.items()):
        print(f"  {count:5d}  {variant:50s} {seats} seats")
    print("\nreveal paths reached (requests counted by the observer, games without findings):")
    for path, count in sorted(paths.items()):
        print(f"  {count:7d}  {path}")
    print(f"\n{len(findings)} finding(s)")
    for seed, text in findings:
        print(f"  seed {seed}: {text}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
