"""R-S6 (and the rows option, S11): `equal_lines`, written as one pass a line that stops at the
first face-down card (issue 29: it runs at the end of every turn), finds exactly the lines the
rule's direct reading finds, and refuses a face-up card whose value is not public as it did (the
same error)."""

from __future__ import annotations

from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from skyjo_p2p.grid import CLASSIC, EMPTY, SMALL, GridShape, Line
from skyjo_p2p.skyjo.options import SkyjoOptions
from skyjo_p2p.skyjo.rules import equal_lines
from skyjo_p2p.skyjo.state import SkyjoState


def _direct(state: SkyjoState, seat: int) -> list[Line]:
    """The lines R-S6 names, read directly (`equal_lines` as it was first written)."""
    size = state.shape.size
    base = seat * size
    grid, face_up = state.grid, state.face_up
    found: list[Line] = []
    for line in state.shape.lines(state.options.rows):
        slots = tuple(s for s in line.slots if grid[base + s] != EMPTY)
        if len(slots) < 3 or not all(face_up[base + s] for s in slots):
            continue
        first = state.public_value(grid[base + slots[0]])
        if all(state.public_value(grid[base + s]) == first for s in slots[1:]):
            found.append(Line(line.kind, line.index, slots))
    return found


@st.composite
def _tables(draw: st.DrawFn) -> tuple[SkyjoState, int]:
    """A state whose grids hold few distinct values (equal lines are common), some slots empty,
    some cards face down, and now and then a face-up card whose value is not public."""
    players = draw(st.integers(2, 4))
    shape: GridShape = draw(st.sampled_from([CLASSIC, SMALL]))
    state = SkyjoState(players, SkyjoOptions(rows=draw(st.booleans())), shape)
    cells = players * shape.size
    state.grid = list(range(cells))
    state.face_up = draw(st.lists(st.sampled_from([True, True, True, False]), min_size=cells, max_size=cells))
    values: list[int | None] = draw(st.lists(st.sampled_from([5, 5, 5, 0]), min_size=cells, max_size=cells))
    hidden: set[int] = set()
    if draw(st.integers(0, 9)) == 0:  # a card read before it was made public: refused
        hidden.add(draw(st.integers(0, cells - 1)))
        if draw(st.booleans()):
            values[min(hidden)] = None
    state.values = values
    state.seen = [1 if h in hidden else state.everyone for h in range(cells)]
    state.deck_of = ["cards"] * cells
    for slot in draw(st.sets(st.integers(0, cells - 1), max_size=cells // 3)):
        state.grid[slot] = EMPTY
    return state, draw(st.integers(0, players - 1))


def _outcome(find: Any, state: SkyjoState, seat: int) -> Any:
    try:
        return find(state, seat)
    except AssertionError as exc:  # a card read before it was made public: the same refusal
        return ("refused", str(exc))


@settings(max_examples=600, deadline=None)
@given(table=_tables())
def test_s6_equal_lines_finds_what_the_direct_reading_finds(table: tuple[SkyjoState, int]) -> None:
    state, seat = table
    expected = _outcome(_direct, state, seat)
    assert _outcome(equal_lines, state, seat) == expected
    event("refused" if isinstance(expected, tuple) else f"{min(len(expected), 2)} lines")
