"""Grid geometry shared by SKYJO and SKYJO ACTION (R-S2, R-A7, R-A13).

Slots are numbered row-major: slot = cols * row + col. A removed card leaves its slot empty and
slot numbers never shift. Column c holds slots {c, c + cols, c + 2 * cols, ...}; row r holds
slots {cols * r, ..., cols * r + cols - 1}.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

EMPTY = -1
"""Marks a grid slot whose card was removed."""


@dataclass(frozen=True, slots=True)
class Line:
    """A row or column of a grid: `kind` is "column" or "row", `index` its number."""

    kind: str
    index: int
    slots: tuple[int, ...]


@dataclass(frozen=True)
class GridShape:
    rows: int = 3
    cols: int = 4

    @property
    def size(self) -> int:
        return self.rows * self.cols

    def column(self, col: int) -> Line:
        return Line("column", col, tuple(col + self.cols * r for r in range(self.rows)))

    def row(self, row: int) -> Line:
        return Line("row", row, tuple(self.cols * row + c for c in range(self.cols)))

    @cached_property
    def columns(self) -> tuple[Line, ...]:
        return tuple(self.column(c) for c in range(self.cols))

    @cached_property
    def rows_lines(self) -> tuple[Line, ...]:
        return tuple(self.row(r) for r in range(self.rows))

    def lines(self, with_rows: bool) -> tuple[Line, ...]:
        """Columns left to right, then (if asked) rows top to bottom."""
        return self.columns + self.rows_lines if with_rows else self.columns

    def line(self, kind: str, index: int) -> Line | None:
        if kind == "column" and 0 <= index < self.cols:
            return self.column(index)
        if kind == "row" and 0 <= index < self.rows:
            return self.row(index)
        return None

    def __str__(self) -> str:
        return f"{self.rows}x{self.cols}"


CLASSIC = GridShape(3, 4)
SMALL = GridShape(3, 3)


def remaining(line: Line, grid: list[int], base: int) -> tuple[int, ...]:
    """The slots of `line` that still hold a card, in the grid starting at `base`."""
    return tuple(s for s in line.slots if grid[base + s] != EMPTY)
