"""Drawing SKYJO-style grids (classic and ACTION): the player's own, large, and the others' boxes."""

from __future__ import annotations

from collections.abc import Sequence

from ...canvas import Canvas, Rect, Target
from ...cards import SIZES, CardView, draw_card
from ...i18n import tr
from ...model import ScreenModel
from ...targets import GridTarget, HeldTarget
from .model import GridSeat


def grid_size(seat: GridSeat, size: str, gap: int = 1) -> tuple[int, int]:
    """Cells taken by a grid of `size` cards."""
    w, h = SIZES[size]
    if size == "S":
        return seat.cols * w, seat.rows * h
    return seat.cols * (w + gap) - gap, seat.rows * h


def draw_cards(c: Canvas, x: int, y: int, seat: GridSeat, size: str, m: ScreenModel, gap: int = 1) -> None:
    """A grid's cards, row by row, each marked as the target GridTarget(seat, slot)."""
    w, h = SIZES[size]
    step = w if size == "S" else w + gap
    ui = m.ui
    mine_live = any(isinstance(t, GridTarget) and t.seat == seat.seat for t in ui.candidates)
    for slot, card in enumerate(seat.cards):
        row, col = divmod(slot, seat.cols)
        target: Target = GridTarget(seat.seat, slot)
        live = target in ui.candidates
        draw_card(
            c,
            x + col * step,
            y + row * h,
            size,
            card,
            cursor=ui.cursor == target,
            selected=target in ui.chosen or target in ui.focus,
            key=ui.keys.get(target) if live and size != "S" else None,
            target=target,
            dim=mine_live and not live,
        )


def seat_title(c: Canvas, seat: GridSeat, lang: str) -> str:
    marks = []
    if seat.active:
        marks.append(c.g("turn"))
    name = seat.name if not seat.me else tr(lang, "You")
    marks.append(name)
    if seat.ender:
        marks.append(c.g("flag"))
    if seat.waiting:
        marks.append(c.g("ellipsis"))
    marks.extend(seat.badges)
    return " ".join(marks)


def seat_style(seat: GridSeat) -> str:
    return "name.me" if seat.me else f"p{seat.seat % 8}"


def box_size(seat: GridSeat, size: str, boxed: int) -> tuple[int, int]:
    """Outer size of another player's grid: `boxed` 2 in a box with a margin, 1 in a tight box,
    0 without a box (the name on a line above)."""
    gw, gh = grid_size(seat, size)
    extra_h = 1 if seat.held or seat.held_row else 0
    if boxed:
        return gw + 2 * boxed, gh + 2 + extra_h
    return gw, gh + 1 + extra_h


def draw_seat_box(c: Canvas, x: int, y: int, seat: GridSeat, size: str, boxed: int, m: ScreenModel) -> Rect:
    """Another player's grid in a box titled with their name, their total in the bottom border."""
    w, h = box_size(seat, size, boxed)
    rect = Rect(x, y, w, h)
    title = seat_title(c, seat, m.lang)
    total = tr(m.lang, "seat.total", n=seat.total)
    if boxed:
        style = "active" if seat.active else "frame"
        c.box(rect, style, "heavy" if seat.active else "round", title, seat_style(seat), total, "dim")
        gx, gy = x + boxed, y + 1
    else:
        c.put(x, y, title, seat_style(seat), w - len(total) - 1)
        c.put_right(x + w, y, total, "dim")
        gx, gy = x, y + 1
    draw_cards(c, gx, gy, seat, size, m)
    if seat.held:
        draw_held(c, gx, gy + grid_size(seat, size)[1], seat.seat, seat.held, m, w - 2 * boxed)
    return rect


def draw_held(
    c: Canvas, x: int, y: int, seat: int, held: Sequence[CardView], m: ScreenModel, width: int
) -> None:
    """ACTION: the action cards a seat holds, as short labels (targets HeldTarget(seat, index))."""
    ui = m.ui
    tiny = sum(len(card.text) + 1 for card in held) > width
    start = x
    for index, card in enumerate(held):
        target: Target = HeldTarget(seat, index)
        on = ui.cursor == target
        text = card.tiny if tiny else card.text
        if on and not c.caps.color:
            text = f">{text}<"
        if x + len(text) > start + width:
            c.put(x, y, "+", "dim")
            break
        style = "cursor" if on else ("card.action" if target in ui.candidates or not ui.candidates else "dim")
        written = c.put(x, y, text, style, width)
        c.mark(target, Rect(x, y, written, 1))
        x += written + 1
