"""The scores of the evening on the screen: the lobby between games and the game-over dialog.

One table of `client.table.evening.EveningRow`s as lines of spans (`evening_lines`): per player,
by name and fingerprint, the games played, the wins, the total and the average score.
"""

from __future__ import annotations

from collections.abc import Sequence

from client.table.evening import EveningRow

from .canvas import Span, clip
from .i18n import tr

_WIDTHS = (14, 20, 8, 10, 7, 8)
"""Name, key, games, wins, total, average: the columns' widths (the key is 19 characters)."""


def average_text(value: float, lang: str) -> str:
    """An average with one decimal, as the language writes it (11.5, 11,5)."""
    text = f"{value:.1f}"
    return text.replace(".", ",") if lang in ("fr", "de") else text


def evening_lines(rows: Sequence[EveningRow], lang: str, games: int, *, most: int = 8) -> list[list[Span]]:
    """The evening's title, its column heads and (at most `most` of) its rows."""
    if not rows:
        return []
    count = tr(lang, "evening.games_one" if games == 1 else "evening.games_many", n=games)
    lines = [[Span(tr(lang, "evening.title"), "title"), Span(f"  ({count})", "dim")]]
    heads = [
        "evening.player",
        "evening.key",
        "evening.played",
        "evening.wins",
        "evening.total",
        "evening.average",
    ]
    lines.append(
        [
            Span(_cell(tr(lang, h), w, i >= 2), "dim")
            for i, (h, w) in enumerate(zip(heads, _WIDTHS, strict=True))
        ]
    )
    hidden = len(rows) - most if len(rows) > most else 0
    if hidden:
        hidden += 1  # the last line says how many are not shown, and where they all are
    for row in rows[: len(rows) - hidden] if hidden else rows:
        cells = (
            row.name,
            row.fingerprint,
            str(row.played),
            str(row.wins),
            str(row.total),
            average_text(row.average, lang),
        )
        lines.append(
            [
                Span(_cell(text, width, index >= 2), "title" if index == 0 and row.wins else "text")
                for index, (text, width) in enumerate(zip(cells, _WIDTHS, strict=True))
            ]
        )
    if hidden:
        key = "evening.more.one" if hidden == 1 else "evening.more.many"
        lines.append([Span(tr(lang, key, n=hidden), "dim")])
    return lines


def _cell(text: str, width: int, right: bool) -> str:
    text = clip(text, width - 1)
    return (text.rjust(width - 1) + " ") if right else text.ljust(width)
