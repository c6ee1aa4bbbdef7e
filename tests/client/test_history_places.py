"""Issue 30.4: `history` lists a game's players by place (not numbered in seat order, which reads
as placings); a shared place is shown once; an unfinished game has no places."""

from __future__ import annotations

from pathlib import Path

from client.records.history import Checked, GameEntry, ScanResult, SeatResult
from client.records.report import history_lines


def _lines(game: str, totals: list[int | None], winners: set[int], status: str = "finished") -> list[str]:
    names = ["Anna", "Ben", "Cleo"][: len(totals)]
    seats = tuple(
        SeatResult(s, names[s], "k", f"fp{s}", total=t, winner=s in winners) for s, t in enumerate(totals)
    )
    checked = Checked(status, None if status == "finished" else "unfinished: x", game=game, seats=seats)  # type: ignore[arg-type]
    entry = GameEntry(Path("g.skyjo"), 0.0, checked)
    lines = history_lines(ScanResult(Path("/saved"), [entry]), [entry], 1)
    return [line for line in lines if "fp" in line]


def test_skyjo_lists_the_lowest_total_first() -> None:
    rows = _lines("skyjo", [190, 12, 40], {1})
    assert [r.split()[:2] for r in rows] == [["1.", "Ben"], ["2.", "Cleo"], ["3.", "Anna"]], rows


def test_skip_bo_lists_the_winner_first() -> None:
    rows = _lines("skip-bo", [0, 75], {1})
    assert [r.split()[:2] for r in rows] == [["1.", "Ben"], ["2.", "Anna"]], rows


def test_a_shared_place_is_numbered_once() -> None:
    rows = _lines("skyjo", [30, 12, 12], {1, 2})
    assert (
        rows[0].startswith("  1. Ben ")
        and rows[1].startswith("     Cleo ")
        and rows[2].startswith("  3. Anna ")
    )


def test_an_unfinished_game_has_no_places() -> None:
    rows = _lines("skyjo", [None, None], set(), status="unfinished")
    assert [r.split()[0] for r in rows] == ["Anna", "Ben"], rows
