"""Rendering: `render(model, width, height, caps) -> Frame`, a pure function.

The screen, top to bottom: a header (game, round, whose turn), the table (drawn by the game's
`GameScreen.draw`, from the registry in `games`), the prompt (what to do now, with its
buttons), and a status line (the other players' links and the main keys). Overlays (help, score
sheet, round summary, result, quit confirmation) are boxes drawn over the table. Below 80x24 the
whole screen is a "terminal too small" notice.
"""

from __future__ import annotations

from dataclasses import replace

from . import games
from .canvas import Canvas, Frame, Rect, Span, clip, text_width, wrap
from .caps import Caps
from .evening import evening_lines
from .i18n import tr
from .model import ScreenModel
from .widgets import MIN_HEIGHT, MIN_WIDTH, ROUND_PANEL, dialog, draw_buttons, draw_log, too_small

WIDE = 150
"""From this width on, the log has its own panel on the right."""


def render(model: ScreenModel, width: int, height: int, caps: Caps) -> Frame:
    canvas = Canvas(width, height, caps)
    if width < MIN_WIDTH or height < MIN_HEIGHT:
        quit = model.overlay == "quit"
        ask = (tr(model.lang, "quit.title"), tr(model.lang, "quit.keys")) if quit else None
        too_small(canvas, model.lang, ask)
        return canvas.frame()
    header(canvas, model)
    area = Rect(0, 1, width, height - 4)
    if model.notice or model.table is None:
        notice(canvas, area, model)
    else:
        game = games.SCREENS.get(model.game)
        if width >= WIDE:
            # a wide screen: the table on the left, the log in a panel on the right
            log_w = min(90, max(50, width - 130))
            table = Rect(0, 1, width - log_w - 1, height - 4)
            panel = Rect(table.right, 2, log_w, height - 6)
            canvas.box(panel, "frame", "round", tr(model.lang, "log.title"), "dim")
            draw_log(canvas, Rect(panel.x + 2, panel.y + 1, panel.w - 4, panel.h - 2), model)
            if game is not None:
                game.draw(canvas, table, replace(model, log=[]))
        elif game is not None:
            game.draw(canvas, area, model)
        mark_changes(canvas, model)
    prompt(canvas, model)
    status(canvas, model)
    overlay(canvas, model)
    return canvas.frame()


# --- the frame around the table --------------------------------------------------------------------


def logo(c: Canvas, x: int, game: str) -> int:
    """The game's name in the header, its letters in the cards' colours."""
    look = games.logo(game)
    text, bands = look.text, look.bands
    for i, ch in enumerate(text):
        c.put(x + i, 0, ch, f"logo.{bands[i]}" if c.caps.color else "header.title")
    return x + len(text)


def header(c: Canvas, m: ScreenModel) -> None:
    c.fill(Rect(0, 0, c.width, 1), " ", "header")
    x = logo(c, 0, m.game)
    right = c.width - 1
    if m.turn_text:
        mine = m.turn_text == tr(m.lang, "header.your_turn")
        text = m.turn_text
        if m.countdown is not None:  # the move countdown, by the turn marker
            key = "header.countdown_paused" if m.countdown_paused else "header.countdown"
            text = tr(m.lang, key, turn=text, s=m.countdown)
        right = c.put_right(c.width - 1, 0, f" {text} ", "header.turn" if mine else "header")
    if m.banner:  # a spectator: what is watched, before the round
        x += 1 + c.put(x + 1, 0, m.banner, "header.title", max(0, right - x - 2))
    c.put(x + 1, 0, m.subtitle, "header", max(0, right - x - 2))


def mark_changes(c: Canvas, m: ScreenModel) -> None:
    """Each seat's last change on the drawn table: a mark on every card it touched (a dot in the
    corner of a large card, ‹ › around a small one), a removed line's cards struck out in their
    empty places. Drawn over the game's drawing, from where it marked each target."""
    for target in m.ui.recent:
        rect = c.targets.get(target)
        if rect is None or target == m.ui.cursor:
            continue
        if rect.h == 1:
            c.put(rect.x, rect.y, c.g("recent_l"), "recent")
            c.put(rect.right - 1, rect.y, c.g("recent_r"), "recent")
        else:
            c.put(rect.right - 2, rect.bottom - 1, c.g("recent"), "recent")
    for target, value in m.ui.gone.items():
        rect = c.targets.get(target)
        if rect is None or target == m.ui.cursor:
            continue
        text = f"{c.g('times')}{value}"
        if rect.h == 1:
            c.put(rect.x, rect.y, text.rjust(rect.w)[: rect.w], "recent")
        else:
            c.put_center(rect.x + 1, rect.y + rect.h // 2, rect.w - 2, text, "recent")


def notice(c: Canvas, area: Rect, m: ScreenModel) -> None:
    lines = m.notice.split("\n") if m.notice else [tr(m.lang, "notice.starting")]
    top = area.y + max(0, (area.h - len(lines)) // 2)
    for i, text in enumerate(lines):
        c.put_center(area.x, top + i, area.w, text, "title" if i == 0 else "dim")
    if m.log:
        y = area.bottom - min(len(m.log), 4)
        draw_log(c, Rect(2, y, area.w - 4, area.bottom - y), m)


def prompt(c: Canvas, m: ScreenModel) -> None:
    """Two lines above the status line: what to do now, and its buttons (or the chat input)."""
    y = c.height - 3
    c.fill(Rect(0, y, c.width, 2), " ", "text")
    if m.chat is not None:
        label = tr(m.lang, "chat.label")
        x = c.put(1, y, label, "title") + 2
        text = m.chat[-(c.width - x - 2) :] if text_width(m.chat) > c.width - x - 2 else m.chat
        end = x + c.put(x, y, text, "input")
        c.put(end, y, "_", "cursor")
        c.put(1, y + 1, tr(m.lang, "chat.hint"), "dim")
        return
    c.put(0, y, c.g("turn") + " " if m.ui.candidates else "  ", "prompt.mark")
    room = c.width - 3
    lines = wrap(m.prompt, room) if m.prompt else []
    buttons_width = sum(text_width(c.text(b.label)) + 5 for b in m.buttons)
    if m.buttons and buttons_width + 2 > room:
        c.put(2, y, m.prompt, m.prompt_style, room)
        button_menu(c, m)  # too many choices for one line: a list over the table
    elif m.buttons:
        if len(lines) <= 1 and text_width(m.prompt) + 3 + buttons_width <= room:
            c.put(2, y, m.prompt, m.prompt_style, room)
            draw_buttons(c, 2 + text_width(c.text(m.prompt)) + 3, y, m.buttons, m)
        else:
            c.put(2, y, m.prompt, m.prompt_style, room)  # one line (cut if need be): buttons below
            draw_buttons(c, 2, y + 1, m.buttons, m)
    else:
        for offset, line in enumerate(lines[:2]):
            c.put(
                2,
                y + offset,
                line if offset == 0 or len(lines) <= 2 else " ".join(lines[1:]),
                m.prompt_style,
                room,
            )
    if m.flash:
        c.fill(Rect(0, y - 1, c.width, 1))
        c.put(2, y - 1, m.flash, "error", room)
    elif m.hint:  # the card under the cursor (a warning before a move without effect): over the
        # log's last lines, two at most
        parts = wrap(m.hint, room)[:2]
        top = y - len(parts)
        c.fill(Rect(0, top, c.width, len(parts)))
        for offset, part in enumerate(parts):
            c.put(2, top + offset, part, "warn" if m.hint_style == "warn" else "dim", room)


def button_menu(c: Canvas, m: ScreenModel) -> None:
    """The buttons as a vertical list in a box (when they do not fit on the prompt's line)."""
    lines = []
    for button in m.buttons:
        on = m.ui.cursor == button.target
        key = m.ui.keys.get(button.target, button.key or " ")
        lines.append(
            [
                Span(f"{c.g('turn') if on else ' '} ", "prompt.mark"),
                Span(key, "key"),
                Span(" "),
                Span(button.label, "button.cursor" if on else "dialog.body"),
            ]
        )
    title = clip(c.text(m.prompt), c.width - 10)
    rect = dialog(c, title, lines, tr(m.lang, "menu.keys"))
    for i, button in enumerate(m.buttons):
        c.mark(button.target, Rect(rect.x + 2, rect.y + 2 + i, rect.w - 4, 1))


def status(c: Canvas, m: ScreenModel) -> None:
    y = c.height - 1
    c.fill(Rect(0, y, c.width, 1), " ", "status")
    keys = m.footer or tr(m.lang, "status.keys")
    links = [link for link in m.links if link.seat != m.me]
    need = sum(
        text_width(c.text(link.name)) + 6 for link in links if link.status not in ("connected", "local")
    )
    need += sum(text_width(c.text(link.name)) + 4 for link in links if link.status in ("connected", "local"))
    if not m.footer and need + text_width(c.text(keys)) + 14 > c.width:
        keys = tr(m.lang, "status.keys_short")
    right = c.put_right(c.width - 1, y, keys, "status.keys")
    if m.watching:  # players see that others watch (never who: spectators are nobody)
        right = c.put_right(right - 2, y, tr(m.lang, "status.watching", n=m.watching), "status")
    x = 1
    for link in m.links:
        if link.seat == m.me:
            continue
        symbol, style, extra = _link_look(c, m.lang, link.status, link.retry_in)
        piece = f"{link.name} {symbol}{extra}"
        if x + text_width(c.text(piece)) + 2 >= right:
            break
        x += c.put(x, y, link.name + " ", "status")
        x += c.put(x, y, symbol + extra, style)
        x += c.put(x, y, "  ", "status")


def _link_look(c: Canvas, lang: str, status: str, retry_in: float | None) -> tuple[str, str, str]:
    if status in ("connected", "local"):
        return c.g("ok"), "link.ok", ""
    if status in ("reconnecting", "connecting"):
        # steady: no per-attempt counter jumping back and forth (the prompt counts the time)
        return c.g("wait"), "link.wait", f" {tr(lang, 'link.reconnecting')}"
    if status == "blamed":  # proven by signed evidence, never for a timeout or a leave
        return c.g("bad"), "link.bad", f" {tr(lang, 'link.blamed')}"
    if status in ("left", "absent"):
        return c.g("bad"), "link.wait", f" {tr(lang, f'link.{status}')}"
    return c.g("bad"), "link.bad", f" {tr(lang, 'link.gone')}"


# --- overlays --------------------------------------------------------------------------------------


def overlay(c: Canvas, m: ScreenModel) -> None:
    if m.overlay in ("help", "mute", "remove") and m.help is not None:
        rows = [(k, d) for k, d in m.help.rows]
        key_w = max((text_width(c.text(k)) for k, _ in rows), default=4)
        desc_w = min(max((text_width(c.text(d)) for k, d in rows if k), default=10), c.width - key_w - 10)
        desc_w = max(desc_w, 50)
        lines = _help_lines(rows, key_w, desc_w)
        if len(lines) > c.height - 6:  # too long: the keys of every moment on a few shared lines
            first = next((i for i, (k, _) in enumerate(rows) if k in _EVERY_MOMENT), len(rows))
            lines = _help_lines(rows[:first], key_w, desc_w)
            lines += _packed([r for r in rows[first:] if r[0] != "?"], key_w + 2 + desc_w)  # (in it)
        footer = tr(m.lang, {"mute": "mute.keys", "remove": "remove.keys"}.get(m.overlay, "help.close"))
        room = max(3, c.height - 6)
        if len(lines) > room:  # still too long: it scrolls, and the footer says where
            total = len(lines)
            top = max(0, min(m.help_top, total - room))
            lines = lines[top : top + room]
            footer = tr(m.lang, "rules.keys_more", a=top + 1, b=top + room, n=total)
        dialog(c, m.help.title, lines, footer)
    elif m.overlay == "rules" and m.rules:
        rules(c, m)
    elif m.overlay == "scores" and m.scores is not None:
        score_sheet(c, m)
    elif m.overlay == "round" and m.round_over is not None and ROUND_PANEL not in c.targets:
        title, summary = m.round_over
        dialog(c, title, [[Span(r)] for r in summary], (m.round_keys or tr(m.lang, "round.continue")))
    elif m.overlay == "quit":
        dialog(
            c,
            tr(m.lang, "quit.title"),
            [[Span(line)] for line in tr(m.lang, "quit.text").split("\n")]
            + [[Span(part, "warn")] for part in wrap(m.quit_note, 56) if m.quit_note],
            tr(m.lang, "quit.keys"),
            style="warn",
        )
    elif m.overlay == "result" and m.result is not None:
        result(c, m)


_EVERY_MOMENT = frozenset({"s", "r", "t", "m", "b", "q", "?"})
"""The help's keys that do not depend on the decision (listed last)."""


def _help_lines(rows: list[tuple[str, str]], key_w: int, desc_w: int) -> list[list[Span]]:
    """Help rows as lines: a key, then its text wrapped beside it; a row without key: a sentence."""
    lines: list[list[Span]] = []
    for key, desc in rows:
        if not key:  # a sentence: the whole width
            lines.extend([Span(part)] for part in wrap(desc, key_w + 2 + desc_w))
            continue
        parts = wrap(desc, desc_w)
        lines.append([Span(key.ljust(key_w), "key"), Span("  "), Span(parts[0])])
        for extra in parts[1:]:
            lines.append([Span(" " * (key_w + 2)), Span(extra)])
    return lines


def _packed(rows: list[tuple[str, str]], width: int) -> list[list[Span]]:
    """Rows as "KEY text" pieces side by side, as many per line as fit in `width`."""
    lines: list[list[Span]] = []
    line: list[Span] = []
    used = 0
    for key, desc in rows:
        if not key:
            continue
        size = text_width(key) + 1 + text_width(desc)
        if line and used + 3 + size > width:
            lines.append(line)
            line, used = [], 0
        if line:
            line.append(Span(" · ", "dim"))
            used += 3
        line += [Span(key, "key"), Span(" " + desc)]
        used += size
    if line:
        lines.append(line)
    return lines


def rules(c: Canvas, m: ScreenModel) -> None:
    """The game's rules page, as many lines as fit; the arrows scroll it, the footer says where."""
    width = min(72, c.width - 10)
    lines: list[str] = []
    for line in m.rules:
        if not line or (line.startswith("  ") and text_width(line) <= width):
            lines.append(line)  # an illustration: cards drawn as text, kept whole
        elif line.startswith("  "):  # a table's row too long: its text under its text
            label = len(line) - len(line.lstrip(" "))
            label += len(line[label:].split(" ", 1)[0])
            label += len(line[label:]) - len(line[label:].lstrip(" "))
            parts = wrap(line[label:], max(10, width - label))
            lines.append(line[:label] + parts[0])
            lines.extend(" " * label + part for part in parts[1:])
        else:
            lines.extend(wrap(line, width))
    room = max(3, c.height - 6)
    top = max(0, min(m.rules_top, len(lines) - room))
    shown = lines[top : top + room]
    styled = [[Span(line, "title" if line.isupper() and line.strip() else "dialog.body")] for line in shown]
    footer = tr(m.lang, "rules.keys")
    if len(lines) > room:
        footer = tr(m.lang, "rules.keys_more", a=top + 1, b=top + len(shown), n=len(lines))
    game = games.SCREENS.get(m.game)
    title = tr(m.lang, "rules.title", game=game.title if game is not None else m.title)
    dialog(c, title, styled, footer, width=width)


def score_sheet(c: Canvas, m: ScreenModel) -> None:
    sheet = m.scores
    assert sheet is not None
    lang = m.lang
    names = [clip(c.text(n), 10) for n in sheet.names]
    col = max([6] + [text_width(n) + 1 for n in names])
    label_w = max(text_width(tr(lang, "scores.round", n=99)), text_width(tr(lang, "scores.total")), 8) + 1
    lines: list[list[Span]] = []
    head = [Span(" " * label_w)] + [
        Span(n.rjust(col), f"p{i % 8}" if i != m.me else "name.me") for i, n in enumerate(names)
    ]
    lines.append(head)
    max_rows = max(c.height - 12, 3)
    rounds = sheet.rounds[-max_rows:]
    for number, cells in rounds:
        row = [Span(tr(lang, "scores.round", n=number).ljust(label_w), "dim")]
        for cell in cells:
            mark = c.g("flag") if cell.ender else ""  # the round's ender, doubled or not
            style = "dialog.body"
            if cell.doubled:
                mark += c.g("times")
                style = "warn"
            row.append(Span(f"{mark}{cell.points}".rjust(col), style))
        lines.append(row)
    if sheet.live and any(v is not None for v in sheet.live):
        row = [Span(tr(lang, "scores.now").ljust(label_w), "dim")]
        row += [Span(("" if v is None else str(v)).rjust(col), "dim") for v in sheet.live]
        lines.append(row)
    best = (min if sheet.lowest_wins else max)(sheet.totals) if sheet.totals else 0
    total_row = [Span(tr(lang, "scores.total").ljust(label_w), "title")]
    total_row += [Span(str(t).rjust(col), "good" if t == best else "title") for t in sheet.totals]
    lines.append([Span(c.g("hline") * (label_w + col * len(names)), "dim")])
    lines.append(total_row)
    notes = []
    if any(cell.doubled for _, cells in sheet.rounds for cell in cells):
        notes.append(tr(lang, "scores.doubled_note", mark=c.g("times")))
    if any(cell.ender for _, cells in sheet.rounds for cell in cells):
        notes.append(tr(lang, "scores.ender_note", mark=c.g("flag")))
    notes.append(tr(lang, "scores.lowest" if sheet.lowest_wins else "scores.highest"))
    lines.append([])
    lines.extend([[Span(n, "dim")] for n in notes])
    dialog(c, tr(lang, "scores.title"), lines, tr(lang, "scores.close"))


def result(c: Canvas, m: ScreenModel) -> None:
    res = m.result
    assert res is not None
    lang = m.lang
    lines: list[list[Span]] = []
    if res.me_won and len(res.winners) == 1:
        lines.append([Span(tr(lang, "result.you_win"), "good")])
    elif len(res.winners) == 1:
        lines.append([Span(tr(lang, "result.winner", who=res.winners[0]), "good")])
    else:
        lines.append([Span(tr(lang, "result.tie", names=", ".join(res.winners)), "good")])
    lines.append([])
    place = 0
    for index, (name, total, won) in enumerate(res.ranking):
        if index == 0 or total != res.ranking[index - 1][1]:
            place = index + 1  # equal totals share a place: 1, 1, 3
        crown = c.g("crown") if won else " "
        lines.append(
            [
                Span(f" {place}. ", "dim"),
                Span(crown + " ", "good" if won else "dialog.body"),
                Span(clip(c.text(name), 16).ljust(17), "title" if won else "dialog.body"),
                Span(str(total).rjust(5), "good" if won else "dialog.body"),
            ]
        )
    # the scores of the evening, as many players as the dialog has room for (the saved path after)
    room = c.height - 6 - len(lines) - 3 - (3 if res.saved else 0)
    if res.evening and room >= 1:
        lines.append([])
        lines.extend(evening_lines(res.evening, lang, res.games, most=room))
    if res.saved:
        lines.append([])
        for part in wrap(tr(lang, "result.saved", path=res.saved), 56):
            lines.append([Span(part, "dim")])
    keys = tr(lang, "evening.result_keys" if res.again else "result.keys")
    dialog(c, tr(lang, "result.title"), lines, keys, width=40)
