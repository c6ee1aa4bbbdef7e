"""The SKYJO ACTION table: the SKYJO table, plus the market, the action piles, held action cards,
draw-three's cards and the action discard to replay from."""

from __future__ import annotations

from ...canvas import Canvas, Rect, Span, Target, text_width
from ...cards import SIZES, CardView, draw_card
from ...i18n import tr
from ...model import ScreenModel
from ...targets import Drawn3Target, MarketTarget, MenuTarget
from ...widgets import dialog, draw_log, round_panel
from ..skyjo.draw import COUNT_WIDTH, draw_others, plan_others
from ..skyjo.grid import draw_cards, draw_held, grid_size
from ..skyjo.model import DISCARD, DRAW
from .model import ACTION_DISCARD, ACTION_PILE, ActionTable


def _card(
    c: Canvas, x: int, y: int, size: str, card: CardView, target: Target | None, m: ScreenModel
) -> None:
    ui = m.ui
    live = target is not None and target in ui.candidates
    draw_card(
        c,
        x,
        y,
        size,
        card,
        cursor=target is not None and ui.cursor == target,
        selected=target is not None and target in ui.chosen,
        key=ui.keys.get(target) if live and target is not None else None,
        target=target,
    )


def draw_piles(c: Canvas, x: int, y: int, t: ActionTable, size: str, m: ScreenModel) -> int:
    """Two rows: draw, discard, the drawn card(s); then the market and the action piles."""
    lang = m.lang
    ui = m.ui
    w, h = SIZES[size]
    px = x
    row: list[tuple[str, CardView | list[CardView], Target | None, str]] = [
        (
            tr(lang, "pile.draw"),
            CardView("back") if t.draw_count else CardView("none"),
            DRAW,
            tr(lang, "pile.count", n=t.draw_count),
        ),
        (tr(lang, "pile.discard"), t.discard, DISCARD, ""),
    ]
    if t.drawn:
        row.append((tr(lang, "action.drawn3"), t.drawn, None, ""))
    elif t.holding is not None:
        who = "" if t.holder == t.me else (m.names[t.holder] if t.holder is not None else "")
        row.append((tr(lang, "pile.drawn"), t.holding, None, who))
    if t.in_play:
        row.append((tr(lang, "action.in_play"), t.in_play[-1], None, ""))
    widest = tr(lang, "pile.count", n=COUNT_WIDTH)  # columns that do not move as the pile shrinks
    for label, card, target, below in row:
        cards = card if isinstance(card, list) else [card]
        span = len(cards) * (w + 1) - 1
        room = widest if target == DRAW else below
        col = max(span + 2, text_width(c.text(label)) + 2, text_width(c.text(room)) + 1)
        live = target is not None and target in ui.candidates
        c.put(
            px,
            y,
            label,
            "title"
            if live or (cards is card and any(Drawn3Target(i) in ui.candidates for i in range(3)))
            else "dim",
            col - 1,
        )
        for i, one in enumerate(cards):
            _card(
                c,
                px + i * (w + 1),
                y + 1,
                size,
                one,
                target if target is not None else (Drawn3Target(i) if len(cards) > 1 else None),
                m,
            )
        if below:
            c.put(px, y + 1 + h, below, "dim", col - 1)
        px += col
    used = px - x
    if not t.has_market:
        return used
    y2 = y + h + 2
    c.put(
        x,
        y2,
        tr(lang, "action.market"),
        "title" if any(MarketTarget(i) in ui.candidates for i in range(4)) else "dim",
    )
    for i, card in enumerate(t.market):
        _card(c, x + i * (w + 1), y2 + 1, size, card, MarketTarget(i), m)
    ax = x + 4 * (w + 1) + 1
    c.put(ax, y2, tr(lang, "action.deck"), "title" if ACTION_PILE in ui.candidates else "dim")
    _card(c, ax, y2 + 1, size, CardView("back") if t.action_deck else CardView("none"), ACTION_PILE, m)
    c.put(ax, y2 + 1 + h, str(t.action_deck), "dim")
    dx = ax + w + 2
    c.put(dx, y2, tr(lang, "action.discard"), "dim")
    top = t.action_discard[-1] if t.action_discard else CardView("none")
    _card(c, dx, y2 + 1, size, top, ACTION_DISCARD, m)
    if t.action_discard:
        c.put(dx, y2 + 1 + h, str(len(t.action_discard)), "dim")
    return max(used, dx + w + 1 - x)


def draw_menu(c: Canvas, m: ScreenModel) -> None:
    """A list of choices that are not on the table (replay-discard: the action discard's cards)."""
    t: ActionTable = m.table
    ui = m.ui
    menu = sorted((tgt for tgt in ui.candidates if isinstance(tgt, MenuTarget)), key=lambda tgt: tgt.place)
    if not menu:
        return
    lines = []
    for target in menu:
        index = target.place
        card = t.action_discard[index] if index < len(t.action_discard) else CardView("none")
        name = card.title or card.text
        key = ui.keys.get(target, " ")
        on = ui.cursor == target
        lines.append(
            [
                Span(f"{c.g('turn') if on else ' '} ", "prompt.mark"),
                Span(key, "key"),
                Span(" "),
                Span(name, "button.cursor" if on else "dialog.body"),
            ]
        )
    rect = dialog(c, tr(m.lang, "action.menu.replay"), lines, tr(m.lang, "action.menu.keys"))
    for i, target in enumerate(menu):
        c.mark(target, Rect(rect.x + 2, rect.y + 2 + i, rect.w - 4, 1))


def draw_table(c: Canvas, area: Rect, m: ScreenModel) -> None:
    t: ActionTable = m.table
    lang = m.lang
    mine = next((s for s in t.seats if s.me), None)
    others = [s for s in t.seats if not s.me]
    best = None
    for own in ("L", "M", "S"):
        own_h = 1 + (grid_size(mine, own)[1] if mine else 0)
        piles_h = 2 * (SIZES[own][1] + 2) if t.has_market else SIZES[own][1] + 2
        block = max(own_h, piles_h)
        size, boxed, per_row, others_h = plan_others(others, area.w - 2, area.h - block - 3)
        if others_h + block + 1 <= area.h and (own != "L" or area.h >= 44):
            best = (own, block, size, boxed, per_row, others_h)
            break
    if best is None:
        block = 1 + (grid_size(mine, "S")[1] if mine else 0)
        size, boxed, per_row, others_h = plan_others(others, area.w - 2, area.h - block - 1)
        best = ("S", max(block, 8), size, boxed, per_row, others_h)
    own, block, size, boxed, per_row, others_h = best
    if not m.log:  # the log has its own panel (a wide screen): centre the table a little
        spare = area.h - (others_h + block + 1)
        if spare > 8:
            area = Rect(area.x, area.y + spare // 3, area.w, area.h - spare // 3)
    draw_others(c, Rect(area.x + 1, area.y, area.w - 2, others_h), others, size, boxed, per_row, m)
    y = area.y + others_h + (1 if area.h - others_h - block >= 2 else 0)
    x = area.x + 2
    if mine is not None:
        c.put(x, y, tr(lang, "You"), "name.me")
        lx = x + text_width(c.text(tr(lang, "You"))) + 1
        lx += c.put(
            lx, y, f"{c.g('dot')} {tr(lang, 'seat.summary', total=mine.total, shown=mine.shown)}", "dim"
        )
        for badge in mine.badges:
            lx += c.put(lx + 1, y, badge, "active") + 1
        if mine.ender:
            lx += c.put(lx + 1, y, f"{c.g('flag')} {tr(lang, 'seat.ender')}", "warn") + 1
        gw = grid_size(mine, own)[0]
        if mine.held:
            hx = max(lx + 2, x + gw + 4)
            hx += c.put(hx, y, tr(lang, "action.held") + " ", "dim")
            draw_held(c, hx, y, mine.seat, mine.held, m, area.right - hx - 1)
        draw_cards(c, x, y + 1, mine, own, m)
        px = x + gw + 4
        pile_size = "M" if own == "L" else own
        py = y + 1 if mine.held else y
    else:
        px, pile_size, py = x, "M", y
    log_top = y + block + 1
    log_rect = Rect(area.x + 2, log_top, area.w - 4, area.bottom - log_top)
    summary = (
        round_panel(c, Rect(px, py, area.right - px - 1, area.bottom - py), m)
        if m.overlay == "round"
        else None
    )
    if summary is None:
        draw_piles(c, px, py, t, pile_size, m)
    elif summary.bottom > log_top:  # the round is over: its summary where the piles were
        log_rect = Rect(log_rect.x, log_top, summary.x - 2 - log_rect.x, log_rect.h)
    if area.bottom - log_top >= 2:
        draw_log(c, log_rect, m)
    draw_menu(c, m)
