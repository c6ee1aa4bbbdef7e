"""The `skyjo-lan` command line."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from skyjo_p2p.core.errors import EngineError, OptionError
from skyjo_p2p.core.options import parse_assignments
from skyjo_p2p.engine import games, new_game

GAMES = ("skyjo", "skyjo-action", "skip-bo")


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=None, separators=(", ", ": ")) + "\n")


def cmd_scenario(args: argparse.Namespace) -> int:
    from skyjo_p2p.scenario import MalformedScenario, run

    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as exc:
        print(f"skyjo-lan scenario: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"skyjo-lan scenario: {args.file} is not UTF-8 text", file=sys.stderr)
        return 2
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        print(
            f"skyjo-lan scenario: bad JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
            file=sys.stderr,
        )
        return 2
    try:
        report, code = run(document)
    except MalformedScenario as exc:
        print(f"skyjo-lan scenario: {exc}", file=sys.stderr)
        return 2
    _print_json(report)
    return code


def _options(args: argparse.Namespace) -> dict[str, str]:
    return parse_assignments(args.option or [])


def cmd_simulate(args: argparse.Namespace) -> int:
    from skyjo_p2p.simulate import simulate

    options = _options(args)
    new_game(args.game, args.players, options)  # checks game, player count and options up front
    started = time.perf_counter()
    result = simulate(args.game, args.players, args.games, args.seed, options)
    wall = time.perf_counter() - started
    report = result.as_dict()
    if not args.no_timing:
        report["wall_seconds"] = round(wall, 3)
        report["moves_per_second"] = round(result.moves / wall) if wall > 0 else None
    _print_json(report)
    return 0


def cmd_tournament(args: argparse.Namespace) -> int:
    from . import tournament

    seats = [s.strip() for s in args.seats.split(",") if s.strip()]
    options = _options(args)
    new_game(args.game, len(seats), options)  # checks the table before any game is played
    if args.games < 1 or args.jobs < 1:
        print("skyjo-lan tournament: --games and --jobs must be at least 1", file=sys.stderr)
        return 2

    def progress(done: int, total: int) -> None:
        if not args.json and sys.stderr.isatty():
            print(f"\r{done}/{total} games", end="", file=sys.stderr, flush=True)

    try:
        report = tournament.run(args.game, seats, args.games, args.seed, options, args.jobs, progress)
    except ValueError as exc:
        print(f"skyjo-lan tournament: {exc}", file=sys.stderr)
        return 2
    if not args.json and sys.stderr.isatty():
        print(file=sys.stderr)
    if args.csv:
        tournament.write_csv(report, args.csv)
    print(tournament.dumps(report) if args.json else tournament.table(report))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from protocol.errors import MalformedMessage
    from protocol.verify import verify_bytes

    try:
        with open(args.file, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        print(f"skyjo-lan verify: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        verdict = verify_bytes(data)
    except MalformedMessage as exc:
        print(f"skyjo-lan verify: {args.file} is not a readable transcript: {exc.reason}", file=sys.stderr)
        return 2
    if args.json:
        _print_json(verdict.as_dict())
    else:
        names = verdict.names or tuple(f"seat {s}" for s in range(verdict.players))
        if verdict.valid:
            state = "finished" if verdict.finished else f"in progress (round {verdict.round})"
            print(
                f"valid: {verdict.game}, {verdict.players} players, {verdict.frames} frames, "
                f"{verdict.rounds_signed} round(s) signed by every seat, game {state}"
            )
            if verdict.truncated:
                print("  note: the file ends with an incomplete record (a crash?); checked up to it")
            for seat, total in enumerate(verdict.totals):
                mark = "  winner" if seat in verdict.winners else ""
                print(f"  seat {seat} ({names[seat]}): {total}{mark}")
        else:
            who = (
                f"seat {verdict.blame} ({names[verdict.blame]})"
                if verdict.blame is not None
                else "no seat named"
            )
            print(f"INVALID: {verdict.fault}")
            print(f"  to blame: {who}")
    return 0 if verdict.valid else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="skyjo-lan",
        description="SKYJO, SKYJO ACTION and SKIP-BO with friends on a home network.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("scenario", help="play a scripted game from a JSON file and print the table")
    p.add_argument("file", help="the scenario file, or - for standard input")
    p.set_defaults(func=cmd_scenario)

    p = sub.add_parser("simulate", help="play many games with random legal moves and print statistics")
    p.add_argument("--game", choices=GAMES, default="skyjo")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--option", action="append", metavar="NAME=VALUE", help="a game option (repeatable)")
    p.add_argument(
        "--no-timing",
        action="store_true",
        help="leave out wall time and speed (output depends on the seed only)",
    )
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("tournament", help="play bots against each other and print win rates and scores")
    p.add_argument("--game", choices=GAMES, default="skyjo")
    p.add_argument(
        "--seats", default="strong,greedy,greedy,greedy", help="bot level per seat, comma-separated"
    )
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="worker processes (use 2 for both cores)")
    p.add_argument("--option", action="append", metavar="NAME=VALUE", help="a game option (repeatable)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--csv", metavar="FILE", help="also write the table to FILE as CSV")
    p.set_defaults(func=cmd_tournament)

    p = sub.add_parser("verify", help="re-check a saved game: every signature, proof, move and score")
    p.add_argument("file", help="a transcript file (saved games are under $XDG_DATA_HOME/skyjo-lan/games/)")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")
    p.set_defaults(func=cmd_verify)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    if hasattr(args, "game") and args.game not in games():
        print(f"skyjo-lan: the game {args.game!r} is not available yet", file=sys.stderr)
        return 2
    try:
        code: int = args.func(args)
    except (OptionError, EngineError) as exc:
        print(f"skyjo-lan {args.command}: {exc.reason}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return code
