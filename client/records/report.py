"""What `skyjo-lan history` and `skyjo-lan ranking` print: text for people, JSON for programs.

The JSON keys are stable (docs/user-guide.md lists them); a seat number in them counts from 1,
as people count seats.
"""

from __future__ import annotations

import datetime
import time
from typing import Any

from skyjo_p2p import registry

from .history import GameEntry, ScanResult, SeatResult
from .ranking import SETTLED_AFTER, Ranking, order

METHOD = "openskill Plackett-Luce; rating = mu - 3 sigma"


def title(game: str) -> str:
    """A game's title for people ("SKYJO ACTION"), or its name if this version does not know it."""
    known = registry.game(game)
    return known.title if known is not None else game or "?"


def _in_order(rankings: dict[str, Ranking]) -> list[str]:
    """The games in the registry's order (SKYJO, SKYJO ACTION, SKIP-BO), unknown ones last."""
    known = registry.names()
    return sorted(rankings, key=lambda g: (known.index(g) if g in known else len(known), g))


def printable(text: str) -> str:
    """`text` safe to print on a terminal: a control or format character (an escape sequence, a
    right-to-left override in a player's name or a file's) becomes "?"."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def _date(when: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(when))


def _iso(when: float) -> str:
    return datetime.datetime.fromtimestamp(when).astimezone().isoformat(timespec="seconds")


def _notes(seat: SeatResult) -> str:
    notes = []
    if seat.winner:
        notes.append("winner")
    if seat.bot:
        notes.append("the host's bot, not ranked")
    if seat.taken_over:
        notes.append(f"played by the table's bot at the end: {seat.taken_over}")
    return ", ".join(notes)


def _by_place(game: str, seats: tuple[SeatResult, ...]) -> list[tuple[int | None, SeatResult]]:
    """The seats of a game with their places, best first (a shared place once per seat, equal);
    a game without final totals keeps the seat order, without places (they would read as ones)."""
    if not seats or any(s.total is None for s in seats):
        return [(None, s) for s in seats]
    places = order(game, [s.total or 0 for s in seats])
    if any(s.winner for s in seats):  # the game's result names the winners: they come first
        places = [1 if s.winner else max(p, 2) for s, p in zip(seats, places, strict=True)]
    ranked = sorted(zip(places, seats, strict=True), key=lambda pair: (pair[0], pair[1].seat))
    return [(place, seat) for place, seat in ranked]


def history_lines(result: ScanResult, games: list[GameEntry], shown: int) -> list[str]:
    """The listing for people: `games` (newest first), `shown` of them."""
    if result.missing or not games:
        where = f"in {result.folder}" if not result.missing else f"({result.folder} does not exist)"
        return [printable(f"no saved games yet {where}")]
    counted = sum(g.counts for g in games)
    lines = [f"{len(games)} saved game(s) in {result.folder}, {counted} counting for the ranking"]
    for entry in games[:shown]:
        checked = entry.checked
        lines.append("")
        head = f"{_date(entry.when)}  {title(checked.game) if checked.game else '?'}"
        if checked.seats:
            head += f"  {len(checked.seats)} players"
        lines.append(f"{head}  {entry.path.name}")
        width = max((len(s.name) for s in checked.seats), default=0)
        previous: int | None = None
        for place, seat in _by_place(checked.game, checked.seats):
            total = "" if seat.total is None else str(seat.total)
            notes = _notes(seat)
            shown_place = f"{place}." if place is not None and place != previous else ""
            previous = place
            line = f"  {shown_place:<3}{seat.name:<{width}}  {seat.fingerprint}  {total:>5}"
            lines.append(f"{line}  {notes}".rstrip())
        why = entry.why_not
        lines.append("  counts" if why is None else f"  does not count: {why}")
    if shown < len(games):
        lines.append("")
        lines.append(f"({len(games) - shown} older game(s) not shown: --all, or --limit N)")
    return [printable(line) for line in lines]


def history_json(result: ScanResult, games: list[GameEntry], shown: int) -> dict[str, Any]:
    """The listing as JSON-ready data (`history --json`)."""
    return {
        "folder": str(result.folder),
        "missing": result.missing,
        "total": len(games),
        "shown": min(shown, len(games)),
        "games": [_game_json(g) for g in games[:shown]],
    }


def _game_json(entry: GameEntry) -> dict[str, Any]:
    checked = entry.checked
    return {
        "file": entry.path.name,
        "path": str(entry.path),
        "time": _iso(entry.when),
        "timestamp": entry.when,
        "game": checked.game,
        "title": title(checked.game) if checked.game else "",
        "status": checked.status,
        "counts": entry.counts,
        "reason": entry.why_not,
        "copy_of": None if entry.copy_of is None else entry.copy_of.name,
        "resumable": entry.resumable,
        "session": checked.session,
        "round": checked.round,
        "rounds_signed": checked.rounds_signed,
        "seats": [{**s.as_dict(), "seat": s.seat + 1} for s in checked.seats],
        "winners": [s.name for s in entry.winners],
    }


def ranking_lines(result: ScanResult, rankings: dict[str, Ranking]) -> list[str]:
    """The rankings for people, one table per game."""
    if not rankings:
        if result.missing:
            return [printable(f"no saved games yet ({result.folder} does not exist)")]
        return [
            printable(
                f"no game counts yet in {result.folder}: only verified, finished games do "
                "(`skyjo-lan history` says why each one does not)"
            )
        ]
    lines: list[str] = []
    for game in _in_order(rankings):
        table = rankings[game]
        if lines:
            lines.append("")
        lines.append(f"{title(game)}: {table.games} game(s) counted, {table.rated_games} rated")
        width = max([len("name"), *(len(s.name) for s in table.standings)])
        lines.append(f"  rank  {'name':<{width}}  fingerprint          games  wins  average   rating")
        for s in table.standings:
            mark = "?" if s.provisional else " "
            lines.append(
                f"  {s.rank:>4}  {s.name:<{width}}  {s.fingerprint}  {s.games:>5}  {s.wins:>4}  "
                f"{s.average:>7.1f}  {s.rating:>6.2f}{mark}".rstrip()
            )
    lines.append("")
    if any(s.provisional for t in rankings.values() for s in t.standings):
        lines.append(
            f"?: provisional, fewer than {SETTLED_AFTER} rated games: placed after the others, "
            "by wins, then average"
        )
    lines.append(
        f"rating: {METHOD} (docs/ranking.md); from verified, finished games only; "
        "the host's bots are not ranked"
    )
    return [printable(line) for line in lines]


def ranking_json(result: ScanResult, rankings: dict[str, Ranking]) -> dict[str, Any]:
    """The rankings as JSON-ready data (`ranking --json`)."""
    return {
        "folder": str(result.folder),
        "missing": result.missing,
        "method": METHOD,
        "rankings": [
            {
                "game": game,
                "title": title(game),
                "games": rankings[game].games,
                "rated_games": rankings[game].rated_games,
                "standings": [s.as_dict() for s in rankings[game].standings],
            }
            for game in _in_order(rankings)
        ],
    }
