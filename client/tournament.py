"""`skyjo-lan tournament`: bots against each other, many games, with honest statistics.

Each entry of `--seats` is a bot level; in game g the entries sit rotated by g places, so no entry
keeps the first seat. Every game is seeded from (seed, g) alone, so the figures do not depend on
`--jobs` (games are split among worker processes and merged). Win rates count a shared win as a
fraction and carry a 95% Wilson score interval. Decision times are wall-clock per `choose` call,
measured here (the rules core has no clock).
"""

from __future__ import annotations

import csv
import json
import math
import multiprocessing
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from skyjo_p2p.bots import make_bot
from skyjo_p2p.bots.base import Bot
from skyjo_p2p.core.events import RoundEnded
from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.state import TableState
from skyjo_p2p.simulate import play_game


@dataclass
class EntryStats:
    level: str
    games: int = 0
    wins: float = 0.0
    round_raw_sum: int = 0
    rounds: int = 0
    total_sum: int = 0
    decisions: int = 0
    decision_seconds: float = 0.0
    slowest_decision: float = 0.0
    decision_samples: list[float] = field(default_factory=list)

    def merge(self, other: EntryStats) -> None:
        self.games += other.games
        self.wins += other.wins
        self.round_raw_sum += other.round_raw_sum
        self.rounds += other.rounds
        self.total_sum += other.total_sum
        self.decisions += other.decisions
        self.decision_seconds += other.decision_seconds
        self.slowest_decision = max(self.slowest_decision, other.slowest_decision)
        self.decision_samples.extend(other.decision_samples)

    def summary(self) -> dict[str, Any]:
        rate = self.wins / self.games if self.games else 0.0
        low, high = wilson(self.wins, self.games)
        samples = sorted(self.decision_samples)
        median = samples[len(samples) // 2] if samples else 0.0
        return {
            "bot": self.level,
            "games": self.games,
            "wins": round(self.wins, 2),
            "win_rate": round(rate, 4),
            "win_rate_ci95": [round(low, 4), round(high, 4)],
            "mean_round_score_raw": round(self.round_raw_sum / self.rounds, 3) if self.rounds else None,
            "mean_final_total": round(self.total_sum / self.games, 2) if self.games else None,
            "mean_decision_ms": round(1000 * self.decision_seconds / self.decisions, 3)
            if self.decisions
            else None,
            "median_decision_ms": round(1000 * median, 3),
            "max_decision_ms": round(1000 * self.slowest_decision, 3),
        }


def wilson(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


class _Timed:
    """Wraps a bot to time each decision."""

    def __init__(self, bot: Bot, stats: EntryStats, sample_every: int = 7) -> None:
        self.bot = bot
        self.name = bot.name
        self.stats = stats
        self.sample_every = sample_every

    def choose(self, view: TableState, seat: int) -> Move:
        started = time.perf_counter()
        move = self.bot.choose(view, seat)
        spent = time.perf_counter() - started
        stats = self.stats
        stats.decisions += 1
        stats.decision_seconds += spent
        stats.slowest_decision = max(stats.slowest_decision, spent)
        if stats.decisions % self.sample_every == 0:
            stats.decision_samples.append(spent)
        return move


def play_range(args: tuple[str, list[str], dict[str, Any], int, int, int]) -> list[EntryStats]:
    """Play games [start, stop) and return per-entry statistics (runs in a worker process)."""
    game, seats, options, seed, start, stop = args
    players = len(seats)
    stats = [EntryStats(level) for level in seats]
    for number in range(start, stop):
        rotation = number % players
        seat_of = [(entry + rotation) % players for entry in range(players)]
        bots: list[Bot] = [None] * players  # type: ignore[list-item]
        for entry, level in enumerate(seats):
            bot = make_bot(level, game, f"{seed}:{number}:{entry}")
            bots[seat_of[entry]] = _Timed(bot, stats[entry])
        state, _ = play_game(game, players, options, f"{seed}:{number}", bots)
        share = 1.0 / len(state.winners)
        for entry in range(players):
            seat = seat_of[entry]
            entry_stats = stats[entry]
            entry_stats.games += 1
            entry_stats.total_sum += state.totals[seat]
            if seat in state.winners:
                entry_stats.wins += share
            for record in state.history:
                assert isinstance(record, RoundEnded)
                entry_stats.round_raw_sum += record.raw[seat]
                entry_stats.rounds += 1
    return stats


def run(
    game: str,
    seats: Sequence[str],
    games: int,
    seed: int,
    options: dict[str, Any] | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Play the tournament; return the report (see `table` for the printed form)."""
    options = dict(options or {})
    seats = list(seats)
    for level in seats:
        make_bot(level, game, 0)  # fails early on an unknown level
    chunk = max(1, min(50, games // (jobs * 4) or 1))
    tasks = [
        (game, seats, options, seed, start, min(games, start + chunk)) for start in range(0, games, chunk)
    ]
    totals = [EntryStats(level) for level in seats]
    started = time.perf_counter()
    done = 0
    if jobs > 1:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            for part in pool.imap(play_range, tasks):
                for entry, stats in enumerate(part):
                    totals[entry].merge(stats)
                done += part[0].games
                if progress:
                    progress(done, games)
    else:
        for task in tasks:
            part = play_range(task)
            for entry, stats in enumerate(part):
                totals[entry].merge(stats)
            done += part[0].games
            if progress:
                progress(done, games)
    return {
        "game": game,
        "seats": seats,
        "games": games,
        "seed": seed,
        "options": options,
        "jobs": jobs,
        "wall_seconds": round(time.perf_counter() - started, 2),
        "entries": [stats.summary() for stats in totals],
    }


COLUMNS = [
    ("entry", "entry"),
    ("bot", "bot"),
    ("games", "games"),
    ("wins", "wins"),
    ("win_rate", "win rate"),
    ("win_rate_ci95", "95% CI"),
    ("mean_round_score_raw", "round (raw)"),
    ("mean_final_total", "final total"),
    ("mean_decision_ms", "mean ms"),
    ("median_decision_ms", "median ms"),
    ("max_decision_ms", "max ms"),
]


def table(report: dict[str, Any]) -> str:
    """The report as an aligned text table, one row per entry of --seats."""
    rows = [[title for _, title in COLUMNS]]
    for number, entry in enumerate(report["entries"]):
        low, high = entry["win_rate_ci95"]
        rows.append(
            [
                str(number),
                entry["bot"],
                str(entry["games"]),
                f"{entry['wins']:g}",
                f"{100 * entry['win_rate']:.1f}%",
                f"{100 * low:.1f}-{100 * high:.1f}%",
                _fmt(entry["mean_round_score_raw"]),
                _fmt(entry["mean_final_total"]),
                _fmt(entry["mean_decision_ms"]),
                _fmt(entry["median_decision_ms"]),
                _fmt(entry["max_decision_ms"]),
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = [
        f"{report['game']}: {report['games']} games, seats {','.join(report['seats'])}, seed {report['seed']}"
        f" ({report['wall_seconds']} s, {report['jobs']} job(s))"
    ]
    for row in rows:
        lines.append(
            "  ".join(cell.rjust(widths[i]) if i > 1 else cell.ljust(widths[i]) for i, cell in enumerate(row))
        )
    return "\n".join(lines)


def _fmt(value: Any) -> str:
    return "-" if value is None else f"{value:.2f}" if isinstance(value, float) else str(value)


def write_csv(report: dict[str, Any], path: str) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            [
                "entry",
                "bot",
                "games",
                "wins",
                "win_rate",
                "ci95_low",
                "ci95_high",
                "mean_round_score_raw",
                "mean_final_total",
                "mean_decision_ms",
                "median_decision_ms",
                "max_decision_ms",
            ]
        )
        for number, e in enumerate(report["entries"]):
            writer.writerow(
                [
                    number,
                    e["bot"],
                    e["games"],
                    e["wins"],
                    e["win_rate"],
                    *e["win_rate_ci95"],
                    e["mean_round_score_raw"],
                    e["mean_final_total"],
                    e["mean_decision_ms"],
                    e["median_decision_ms"],
                    e["max_decision_ms"],
                ]
            )


def dumps(report: dict[str, Any]) -> str:
    return json.dumps(report, indent=2)
