"""The SKYJO table: the others' grids across the top, yours below with the piles, then the log."""

from __future__ import annotations

from ...canvas import Canvas, Rect, Target, clip, text_width
from ...cards import SIZES, CardView, draw_card
from ...i18n import tr
from ...model import ScreenModel
from ...widgets import draw_log, round_panel
from .grid import box_size, draw_cards, draw_seat_box, grid_size, seat_style
from .model import DISCARD, DRAW, GridSeat, SkyjoTable

COUNT_WIDTH = 888
"""A pile count as wide as any (three digits): the columns after it keep their place."""


def plan_others(others: list[GridSeat], width: int, height_budget: int) -> tuple[str, int, int, int]:
    """Card size, box kind (see `box_size`), boxes per row and the height of the others' block."""
    if not others:
        return "S", 2, 1, 0
    for size, boxed in (("M", 2), ("S", 2), ("S", 1), ("S", 0)):
        if boxed < 2 and size == "S":
            w, h = box_size(others[0], size, boxed)
            if len(others) * (w + 1) - 1 > width and boxed == 1:
                continue
        w, h = box_size(others[0], size, boxed)
        per_row = max(1, (width + 1) // (w + 1))
        rows = -(-len(others) // per_row)
        total = rows * h
        if total <= height_budget:
            return size, boxed, per_row, total
    w, h = box_size(others[0], "S", 0)
    per_row = max(1, (width + 1) // (w + 1))
    return "S", 0, per_row, -(-len(others) // per_row) * h


def draw_others(
    c: Canvas, area: Rect, others: list[GridSeat], size: str, boxed: int, per_row: int, m: ScreenModel
) -> int:
    """The other players' grids in rows, centred; returns the height used."""
    if not others:
        return 0
    w, h = box_size(others[0], size, boxed)
    y = area.y
    for start in range(0, len(others), per_row):
        row = others[start : start + per_row]
        gap = 2 if len(row) * (w + 2) - 2 <= area.w else 1
        used = len(row) * w + (len(row) - 1) * gap
        x = area.x + max(0, (area.w - used) // 2)
        for seat in row:
            draw_seat_box(c, x, y, seat, size, boxed, m)
            x += w + gap
        y += h
    return y - area.y


def draw_piles(c: Canvas, x: int, y: int, t: SkyjoTable, size: str, m: ScreenModel) -> int:
    """Draw pile, discard pile and the drawn card, labelled; returns the width used."""
    lang = m.lang
    ui = m.ui
    labels = [tr(lang, "pile.draw"), tr(lang, "pile.discard"), tr(lang, "pile.drawn")]
    w, h = SIZES[size]
    items: list[tuple[str, CardView | None, Target | None, str]] = [
        (
            labels[0],
            CardView("back") if t.draw_count else CardView("none"),
            DRAW,
            tr(lang, "pile.count", n=t.draw_count),
        ),
        (labels[1], t.discard, DISCARD, ""),
    ]
    if t.holding is not None:
        who = "" if t.holder == t.me else (m.names[t.holder] if t.holder is not None else "")
        items.append((labels[2], t.holding, None, who))
    px = x
    widest = tr(lang, "pile.count", n=COUNT_WIDTH)  # columns that do not move as the pile shrinks
    for label, card, target, below in items:
        room = widest if target == DRAW else below
        col = max(w + 2, text_width(c.text(label)) + 2, text_width(c.text(room)) + 1)
        live = target is not None and target in ui.candidates
        c.put(px, y, label, "title" if live else "dim", col - 1)
        if card is not None:
            draw_card(
                c,
                px,
                y + 1,
                size,
                card,
                cursor=target is not None and ui.cursor == target,
                key=ui.keys.get(target) if live and target is not None else None,
                target=target,
            )
        if below:
            c.put(px, y + 1 + h, below, "dim", col - 1)
        px += col
    return px - x


def draw_scores_panel(c: Canvas, rect: Rect, t: SkyjoTable, m: ScreenModel) -> None:
    lang = m.lang
    c.put(rect.x, rect.y, tr(lang, "panel.scores"), "title")
    head_round, head_total = tr(lang, "panel.shown"), tr(lang, "panel.total")
    c.put_right(rect.right - 7, rect.y, head_round, "dim")
    c.put_right(rect.right, rect.y, head_total, "dim")
    name_w = rect.w - 16
    for i, seat in enumerate(t.seats[: rect.h - 1]):
        y = rect.y + 1 + i
        mark = c.g("turn") if seat.active else (c.g("flag") if seat.ender else " ")
        c.put(rect.x, y, mark, "active" if seat.active else "warn")
        name = tr(lang, "you") if seat.me else seat.name
        c.put(rect.x + 2, y, clip(c.text(name), name_w), seat_style(seat))
        c.put_right(rect.right - 7, y, str(seat.shown), "dim")
        c.put_right(rect.right, y, str(seat.total), "bold")


def draw_table(c: Canvas, area: Rect, m: ScreenModel) -> None:
    t: SkyjoTable = m.table
    mine = next((s for s in t.seats if s.me), None)
    others = [s for s in t.seats if not s.me]
    lang = m.lang

    # the sizes: the largest own cards that leave the others' grids and 3 log lines room
    best = None
    for own in ("L", "M", "S"):
        own_h = 1 + (grid_size(mine, own)[1] if mine else SIZES[own][1] + 2)
        budget = area.h - own_h - 2
        size, boxed, per_row, others_h = plan_others(others, area.w - 2, budget - 3)
        if others_h + own_h + 1 <= area.h and (own != "L" or area.h >= 40):
            best = (own, own_h, size, boxed, per_row, others_h)
            break
    if best is None:
        own_h = 1 + (grid_size(mine, "S")[1] if mine else 3)
        size, boxed, per_row, others_h = plan_others(others, area.w - 2, area.h - own_h - 1)
        best = ("S", own_h, size, boxed, per_row, others_h)
    own, own_h, size, boxed, per_row, others_h = best

    if not m.log:  # the log has its own panel (a wide screen): centre the table a little
        spare = area.h - (others_h + own_h + 1)
        if spare > 8:
            area = Rect(area.x, area.y + spare // 3, area.w, area.h - spare // 3)
    draw_others(c, Rect(area.x + 1, area.y, area.w - 2, others_h), others, size, boxed, per_row, m)
    y = area.y + others_h + (1 if area.h - others_h - own_h >= 2 else 0)

    x = area.x + 2
    pile_size = own if own != "L" or not mine else "L"
    if mine is not None:
        gw = grid_size(mine, own)[0]
        px = x + gw + 4
        label = f"{tr(lang, 'You')}"
        c.put(x, y, label, "name.me")
        info = tr(lang, "seat.summary", total=mine.total, shown=mine.shown)
        lx = x + text_width(c.text(label)) + 1
        if mine.ender:
            lx += c.put(lx, y, f"{c.g('flag')} ", "warn")
        c.put(lx, y, f"{c.g('dot')} {info}", "dim", px - 2 - lx)
        draw_cards(c, x, y + 1, mine, own, m)
    else:
        px = x
        pile_size = "M"
    log_rect = Rect(area.x + 2, y + own_h + 1, area.w - 4, area.bottom - (y + own_h + 1))
    summary = (
        round_panel(c, Rect(px, y, area.right - px - 1, area.bottom - y), m) if m.overlay == "round" else None
    )
    if summary is not None:  # the round is over: its summary where the piles were
        if summary.bottom > log_rect.y:
            log_rect = Rect(log_rect.x, log_rect.y, summary.x - 2 - log_rect.x, log_rect.h)
        draw_log(c, log_rect, m)
        return
    used = draw_piles(c, px, y, t, pile_size, m)
    panel_x = px + used + 2
    room_right = area.right - panel_x - 1
    if log_rect.h >= 2:
        if room_right >= 20:
            draw_scores_panel(c, Rect(panel_x, y, min(room_right, 30), min(own_h, len(t.seats) + 1)), t, m)
        draw_log(c, log_rect, m)
    else:
        # no room below: the log goes to the right of the piles
        ly = y + (SIZES[pile_size][1] + 3 if mine is None else 0)
        draw_log(c, Rect(panel_x, ly, area.right - panel_x - 1, area.bottom - ly), m)
