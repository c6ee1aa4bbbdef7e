"""Lines (R-A7): columns and rows, stars as wild cards, mandatory and optional removals.

A column (3 slots) or a row (4 slots; 3 once a column is gone; 3 on the 3x3 grid) is *complete*
when every card left in it is face up and it has at least 3. A complete line is

* *mandatory* when its cards are all equal numbers: it must go;
* *optional* when it is equal numbers plus stars (at least ``wild_min_numbers`` numbers, option,
  default 2), or stars only: its owner may remove or keep it.

At the end of every turn every grid is checked, the active seat's first, then clockwise. A grid
whose only candidates are mandatory lines whose removal order cannot matter (one line, or lines
sharing no card and showing the same number) is cleared at once; otherwise its owner decides
(`LINES`): remove one line, with the order its cards go onto the discard pile (then the grid is
checked again), or keep the optional lines (once no mandatory line is left). A kept line is not
offered again while its cards stay the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import permutations

from ..core.errors import IllegalMove
from ..core.events import Event, LineRemoved
from ..core.moves import Move
from ..grid import EMPTY, GridShape, Line
from .cards import STAR
from .decisions import PickLine
from .facts import LinesKept
from .state import ActionState, Step

NONE, MANDATORY, OPTIONAL = 0, 1, 2


def classify(values: Sequence[int], wild_min: int) -> int:
    """What a complete line of these values is: NONE, MANDATORY or OPTIONAL (R-A7)."""
    first = None
    numbers = 0
    for v in values:
        if v == STAR:
            continue
        if v > STAR:  # never in a grid face up; never part of a line
            return NONE
        if first is None:
            first = v
        elif v != first:
            return NONE
        numbers += 1
    if numbers == len(values):
        return MANDATORY
    if numbers == 0 or numbers >= wild_min:
        return OPTIONAL
    return NONE


def candidates(state: ActionState, seat: int, skip_kept: bool = True) -> list[tuple[Line, bool]]:
    """The complete lines of `seat` that may or must go: (line with its remaining slots, mandatory).

    Runs for every grid at the end of every turn, so it is written for speed: one pass per line,
    reading the public values of face-up cards (face-up cards are public once no request is
    pending, which is when lines are checked).
    """
    size = state.size
    base = seat * size
    cards = state.grid[base : base + size]
    up = state.face_up[base : base + size]
    if up.count(True) < 3:
        return []
    values, seen, full = state.values, state.seen, state.everyone
    wild_min = state.options.wild_min_numbers
    out: list[tuple[Line, bool]] = []
    for line in state.shape.lines(True):
        slots = []
        line_values = []
        for s in line.slots:
            handle = cards[s]
            if handle == EMPTY:
                continue
            if not up[s]:
                break
            value = values[handle]
            if value is None or seen[handle] != full:
                raise AssertionError(f"the rules read card {handle} before it was made public")
            slots.append(s)
            line_values.append(value)
        else:
            if len(slots) < 3:
                continue
            kind = classify(line_values, wild_min)
            if kind == NONE:
                continue
            found = Line(line.kind, line.index, tuple(slots))
            if kind == OPTIONAL and skip_kept and state.kept and line_key(state, seat, found) in state.kept:
                continue
            out.append((found, kind == MANDATORY))
    return out


def line_key(state: ActionState, seat: int, line: Line) -> tuple[int, ...]:
    base = seat * state.size
    return tuple(state.grid[base + s] for s in line.slots)


def check(state: ActionState, seat: int, events: list[Event]) -> bool:
    """Clear `seat`'s grid of lines that need no decision; True if its owner must decide now.

    A grid whose cards and faces are as they were when it was last found clear is skipped: its
    candidates can only have been kept since (``lines_clear``, a plain cache kept in the state).
    """
    if state.lines_clear[seat] == _signature(state, seat):
        return False
    while True:
        found = candidates(state, seat)
        if not found:
            clear = state.lines_clear
            state.lines_clear = (*clear[:seat], _signature(state, seat), *clear[seat + 1 :])
            return False
        if all(mandatory for _, mandatory in found) and _order_free(state, seat, [ln for ln, _ in found]):
            remove_line(state, seat, found[0][0], found[0][0].slots, events)
            continue
        state.decide(Step.LINES, seat, PickLine(tuple(found)))
        return True


def _signature(state: ActionState, seat: int) -> tuple[int, ...]:
    size = state.size
    base = seat * size
    return (*state.grid[base : base + size], *state.face_up[base : base + size])


def _order_free(state: ActionState, seat: int, lines: list[Line]) -> bool:
    """Lines whose removal order changes nothing: disjoint, and all of one number."""
    if len(lines) == 1:
        return True
    base = seat * state.size
    values = {state.public_value(state.grid[base + ln.slots[0]]) for ln in lines}
    used: set[int] = set()
    for ln in lines:
        if used.intersection(ln.slots):
            return False
        used.update(ln.slots)
    return len(values) == 1


def remove_line(state: ActionState, seat: int, line: Line, order: Sequence[int], events: list[Event]) -> None:
    """Put the line's cards on the discard pile in `order` (slots, the last on top)."""
    base = seat * state.size
    values = []
    for slot in order:
        handle = state.grid[base + slot]
        values.append(state.public_value(handle))
        state.discard.append(handle)
        state.grid[base + slot] = EMPTY
        state.face_up[base + slot] = False
    events.append(LineRemoved(seat, line.kind, tuple(order), tuple(values)))


# --- the owner's decision -------------------------------------------------------------------


def legal(state: ActionState, seat: int) -> list[Move]:
    moves = []
    base = seat * state.size
    any_mandatory = False
    for line, mandatory in state.decision_as(PickLine).options:
        any_mandatory = any_mandatory or mandatory
        values = [state.public_value(state.grid[base + s]) for s in line.slots]
        for order in distinct_orders(line.slots, values):
            moves.append(
                Move(seat, "remove-line", line=line.kind, index=line.index, order=order)
                if order != line.slots
                else Move(seat, "remove-line", line=line.kind, index=line.index)
            )
    if not any_mandatory:
        moves.append(Move(seat, "keep-lines"))
    return moves


def distinct_orders(slots: tuple[int, ...], values: list[int]) -> list[tuple[int, ...]]:
    """One order of the slots per distinct sequence of values onto the pile (slot order first)."""
    if len(set(values)) == 1:
        return [slots]
    seen: dict[tuple[int, ...], tuple[int, ...]] = {}
    for perm in permutations(range(len(slots))):
        key = tuple(values[i] for i in perm)
        if key not in seen:
            seen[key] = tuple(slots[i] for i in perm)
    return list(seen.values())


def remove_move(state: ActionState, move: Move, events: list[Event]) -> None:
    seat = move.seat
    offered = state.decision_as(PickLine).options
    chosen = next((ln for ln, _ in offered if ln.kind == move.line and ln.index == move.index), None)
    if chosen is None:
        options = ", ".join(f"{ln.kind} {ln.index}" for ln, _ in offered)
        raise IllegalMove(f"remove one of: {options}")
    order = move.order or chosen.slots
    if sorted(order) != sorted(chosen.slots):
        raise IllegalMove(
            f"the order must list the slots of {chosen.kind} {chosen.index} once each: {list(chosen.slots)}"
        )
    state.done()
    remove_line(state, seat, chosen, order, events)  # the grid is checked again (rules._lines)


def keep_move(state: ActionState, move: Move, events: list[Event]) -> None:
    offered = state.decision_as(PickLine).options
    if any(mandatory for _, mandatory in offered):
        must = [f"{ln.kind} {ln.index}" for ln, mandatory in offered if mandatory]
        raise IllegalMove(f"{', '.join(must)} must be removed: equal numbers always go (R-A7)")
    lines = [ln for ln, _ in offered]
    state.kept = state.kept + tuple(line_key(state, move.seat, ln) for ln in lines)
    events.append(LinesKept(move.seat, tuple((ln.kind, ln.index) for ln in lines)))
    state.done()


# --- the end-of-round reveal (R-A8) ---------------------------------------------------------


def best_removals(
    values: tuple[int | None, ...], shape: GridShape, wild_min: int
) -> tuple[int, tuple[Line, ...]]:
    """The lowest grid score reachable by removing lines (mandatory ones must go), and the
    removals that reach it, in order. `values` has None for an empty slot; all cards face up."""
    return _best(values, shape, wild_min)


@lru_cache(maxsize=2048)
def _best(values: tuple[int | None, ...], shape: GridShape, wild_min: int) -> tuple[int, tuple[Line, ...]]:
    found = _pure_candidates(values, shape, wild_min)
    best: tuple[int, tuple[Line, ...]] | None = None
    if not any(mandatory for _, mandatory in found):
        best = (grid_points(values, shape), ())  # keeping every optional line
    for line, _ in found:
        trial = list(values)
        for s in line.slots:
            trial[s] = None
        score, rest = _best(tuple(trial), shape, wild_min)
        if best is None or score < best[0]:
            best = (score, (line, *rest))
    assert best is not None
    return best


def _pure_candidates(
    values: tuple[int | None, ...], shape: GridShape, wild_min: int
) -> list[tuple[Line, bool]]:
    out = []
    for line in shape.lines(True):
        slots = tuple(s for s in line.slots if values[s] is not None)
        if len(slots) < 3:
            continue
        kind = classify([v for s in slots if (v := values[s]) is not None], wild_min)
        if kind != NONE:
            out.append((Line(line.kind, line.index, slots), kind == MANDATORY))
    return out


def grid_points(values: tuple[int | None, ...], shape: GridShape) -> int:
    """Numbers at face value, stars 0, minus the best bonus of kept star lines (R-A8)."""
    total = sum(v for v in values if v is not None and v != STAR)
    return total - star_bonus(values, shape)


def star_bonus(values: tuple[int | None, ...], shape: GridShape) -> int:
    """10 per complete line of 3 stars, 15 per line of 4; a star counts in one line at most, and
    the assignment giving the most is taken (R-A8)."""
    lines: list[tuple[frozenset[int], int]] = []
    for line in shape.lines(True):
        present = [s for s in line.slots if values[s] is not None]
        if len(present) >= 3 and all(values[s] == STAR for s in present):
            lines.append((frozenset(present), 15 if len(present) >= 4 else 10))
    best = 0
    for mask in range(1, 1 << len(lines)):
        used: set[int] = set()
        total = 0
        for i, (stars, points) in enumerate(lines):
            if mask >> i & 1:
                if used & stars:
                    break
                used |= stars
                total += points
        else:
            best = max(best, total)
    return best
