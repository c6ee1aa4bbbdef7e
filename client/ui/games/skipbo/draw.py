"""The SKIP-BO table: the others across the top, the building piles, your stock, hand and
discard piles, then the log."""

from __future__ import annotations

from ...canvas import Canvas, Rect, Target, clip, text_width
from ...cards import SIZES, CardView, draw_card
from ...i18n import tr
from ...model import ScreenModel
from ...targets import BuildingTarget, HandTarget, SeatDiscardTarget, StockTarget
from ...widgets import draw_log, round_panel
from .model import SkipBoSeat, SkipBoTable


def _title(c: Canvas, seat: SkipBoSeat, t: SkipBoTable, lang: str) -> str:
    parts = []
    if seat.active:
        parts.append(c.g("turn"))
    parts.append(tr(lang, "You") if seat.me else seat.name)
    if t.me is not None and seat.partner == t.me:
        parts.append(tr(lang, "skipbo.partner"))
    return " ".join(parts)


def _style(seat: SkipBoSeat) -> str:
    return "name.me" if seat.me else f"p{seat.seat % 8}"


def _small(c: Canvas, x: int, y: int, card: CardView, target: Target | None, m: ScreenModel) -> int:
    ui = m.ui
    draw_card(
        c,
        x,
        y,
        "S",
        card,
        cursor=target is not None and ui.cursor == target,
        selected=target is not None and target in ui.chosen,
        target=target,
    )
    return 4


def draw_other(
    c: Canvas, x: int, y: int, w: int, seat: SkipBoSeat, t: SkipBoTable, m: ScreenModel, boxed: bool
) -> None:
    lang = m.lang
    title = _title(c, seat, t, lang)
    total = tr(lang, "seat.total", n=seat.total)
    if boxed:
        style = "active" if seat.active else "frame"
        c.box(Rect(x, y, w, 4), style, "heavy" if seat.active else "round", title, _style(seat), total, "dim")
        ix, iy = x + 2, y + 1
    else:
        c.put(x, y, title, _style(seat), 14)
        c.put(x + 15, y, total, "dim")
        ix, iy = x + 24, y
    lx = ix + c.put(ix, iy, tr(lang, "skipbo.stock") + " ", "dim")
    lx += _small(c, lx, iy, seat.stock_top, StockTarget(seat.seat), m)
    lx += c.put(lx, iy, f" {seat.stock_count}", "bold")
    lx += c.put(lx + 2, iy, f"{tr(lang, 'skipbo.hand')} {len(seat.hand)}", "dim") + 2
    if boxed:
        ix, iy = x + 2, y + 2
    else:
        ix = lx + 2
    for pile, cards in enumerate(seat.discards):
        top = cards[-1] if cards else CardView("none")
        _small(c, ix + pile * 5, iy, top, SeatDiscardTarget(seat.seat, pile), m)


def draw_card_at(
    c: Canvas, x: int, y: int, size: str, card: CardView, target: Target, m: ScreenModel
) -> None:
    ui = m.ui
    live = target in ui.candidates
    draw_card(
        c,
        x,
        y,
        size,
        card,
        cursor=ui.cursor == target,
        selected=target in ui.chosen,
        key=ui.keys.get(target) if live else None,
        target=target,
        dim=bool(ui.candidates) and not live and target not in ui.chosen and target.kind != "building",
    )


def draw_table(c: Canvas, area: Rect, m: ScreenModel) -> None:
    t: SkipBoTable = m.table
    lang = m.lang
    mine = next((s for s in t.seats if s.me), None)
    others = [s for s in t.seats if not s.me]
    big = area.h >= 36 and area.w >= 100
    size = "L" if big else "M"
    cw, ch = SIZES[size]
    y = area.y

    # the others
    box_w = 25
    per_row = max(1, (area.w - 2 + 1) // (box_w + 1))
    boxed = len(others) <= per_row or area.h >= 30
    if boxed:
        rows = -(-len(others) // per_row)
        for i, seat in enumerate(others):
            row, col = divmod(i, per_row)
            count = min(per_row, len(others) - row * per_row)
            used = count * box_w + (count - 1)
            x0 = area.x + max(1, (area.w - used) // 2)
            draw_other(c, x0 + col * (box_w + 1), y + row * 4, box_w, seat, t, m, True)
        y += rows * 4
    else:
        for seat in others:
            draw_other(c, area.x + 2, y, area.w - 4, seat, t, m, False)
            y += 1
    if big:
        y += 1

    # building piles and the draw pile
    table_y = y
    step = cw + 3
    bx = area.x + 2 + (cw + 3 + 5 * (cw + 1))  # above the hand
    bx = min(bx, area.right - 4 * step - 14)
    c.put(bx, y, tr(lang, "skipbo.building"), "title")
    for pile, view in enumerate(t.building):
        x = bx + pile * step
        draw_card_at(c, x, y + 1, size, view.top, BuildingTarget(pile), m)
        c.put(x, y + 1 + ch, tr(lang, "skipbo.next", n=view.needs), "dim", cw + 2)
    dx = bx + 4 * step + 2
    c.put(dx, y, tr(lang, "pile.draw"), "dim")
    draw_card(c, dx, y + 1, size, CardView("back") if t.draw_count else CardView("none"))
    c.put(dx + cw + 1, y + 2, str(t.draw_count), "bold")
    if t.set_aside:
        c.put(dx, y + 1 + ch, tr(lang, "skipbo.set_aside", n=t.set_aside), "dim")
    y += ch + 2 + (1 if big else 0)

    # mine
    if mine is not None:
        c.put(area.x + 2, y, tr(lang, "You"), "name.me")
        info = f" {c.g('dot')} " + tr(lang, "seat.total", n=mine.total)
        c.put(area.x + 2 + text_width(c.text(tr(lang, "You"))), y, info, "dim")
        y += 1
        x = area.x + 2
        c.put(x, y, clip(f"{tr(lang, 'skipbo.stock')} {mine.stock_count}", cw + 2), "dim")
        draw_card_at(c, x, y + 1, size, mine.stock_top, StockTarget(mine.seat), m)
        hx = x + cw + 3
        c.put(hx, y, tr(lang, "skipbo.hand"), "dim")
        for index, card in enumerate(mine.hand):
            draw_card_at(c, hx + index * (cw + 1), y + 1, size, card, HandTarget(mine.seat, index), m)
        dx = hx + 5 * (cw + 1) + 2
        c.put(dx, y, tr(lang, "skipbo.discards"), "dim")
        fan_rows = max(1, min(6, area.bottom - (y + 1 + ch) - 4)) if big else 1
        for pile, cards in enumerate(mine.discards):
            px = dx + pile * (cw + 1)
            top = cards[-1] if cards else CardView("none")
            draw_card_at(c, px, y + 1, size, top, SeatDiscardTarget(mine.seat, pile), m)
            under = list(reversed(cards[:-1]))
            if under:
                if big:
                    for row, card in enumerate(under[:fan_rows]):
                        draw_card(c, px + (cw - 4) // 2, y + 1 + ch + row, "S", card)
                else:
                    shown = " ".join(card.text for card in under[:2])
                    more = c.g("ellipsis") if len(under) > 2 else ""
                    c.put(px, y + 1 + ch, clip(f"{c.g('up')}{shown}{more}", cw + 1), "dim")
        y += 1 + ch + (fan_rows if big else 1)
    draw_log(c, Rect(area.x + 2, y, area.w - 4, area.bottom - y), m)
    if m.overlay == "round":  # the round is over: its summary beside the stock piles
        sx = area.x + 2 + (cw + 3 if mine is not None else 0)
        round_panel(c, Rect(sx, table_y, area.right - sx - 1, area.bottom - table_y), m)
