"""Pieces of drawing every screen shares: the "too small" notice, the log, buttons and dialog boxes.

The game screens (`games.*.draw`), the game screen's frame (`render`) and the lobby draw with
these; this module imports no screen, so none of them import each other in a circle.
"""

from __future__ import annotations

from .canvas import Canvas, Rect, Span, clip, text_width, wrap
from .i18n import tr
from .model import Button, ScreenModel
from .targets import ButtonTarget

MIN_WIDTH, MIN_HEIGHT = 80, 24

ROUND_PANEL = ButtonTarget("round-summary")
"""Marked on the canvas when a game drew the round summary in its table (`round_panel`): the
frame then does not draw it again as a box over the table."""


def too_small(c: Canvas, lang: str, question: tuple[str, str] | None = None) -> None:
    """The notice that fills a screen below the minimum size. `question`: the title and keys of
    a dialog open now (the leave question after `q`), shown here since the box cannot be."""
    lines = [
        (tr(lang, "small.title"), "title"),
        ("", "text"),
        (tr(lang, "small.size", w=c.width, h=c.height, mw=MIN_WIDTH, mh=MIN_HEIGHT), "text"),
    ]
    if question is None:
        lines.append((tr(lang, "small.hint"), "dim"))
    else:
        lines += [("", "text"), (question[0], "warn"), (question[1], "text")]
    top = max(0, (c.height - len(lines)) // 2)
    for i, (text, style) in enumerate(lines):
        for j, part in enumerate(wrap(text, max(c.width - 2, 1))[:2]):
            c.put_center(0, top + i + j, c.width, part, style)


def draw_log(c: Canvas, rect: Rect, m: ScreenModel, title: bool = False) -> None:
    if rect.h <= 0 or rect.w <= 4:
        return
    y = rect.y
    rows = rect.h
    if title:
        c.put(rect.x, y, tr(m.lang, "log.title"), "dim")
        y += 1
        rows -= 1
    log = m.log
    if m.since is not None and m.since[0] > rows:
        # too short for every line since the player's last turn: one line per other player
        log = [*m.log[: len(m.log) - m.since[0]], *m.since[1]]
    lines = log[-rows:] if rows > 0 else []
    for offset, line in enumerate(lines):
        x = rect.x
        for span in line:
            room = rect.right - x
            if room <= 0:
                break
            x += c.put(x, y + offset, span.text, span.style, room)


def draw_buttons(c: Canvas, x: int, y: int, buttons: list[Button], m: ScreenModel) -> None:
    for button in buttons:
        on = m.ui.cursor == button.target
        live = button.target in m.ui.candidates
        key = m.ui.keys.get(button.target, button.key or "")
        left, right = ("▶", "◀") if on else ("[", "]")
        if not c.caps.unicode and on:
            left, right = (">", "<")
        style = "button.cursor" if on else ("button" if live else "dim")
        start = x
        x += c.put(x, y, left, style)
        if key:
            x += c.put(x, y, key, "key" if not on else style)
            x += c.put(x, y, " ", style)
        x += c.put(x, y, button.label, style)
        x += c.put(x, y, right, style)
        c.mark(button.target, Rect(start, y, x - start, 1))
        x += 2


def dialog(
    c: Canvas, title: str, lines: list[list[Span]], footer: str = "", style: str = "dialog", width: int = 0
) -> Rect:
    inner = max(
        [sum(text_width(c.text(s.text)) for s in line) for line in lines]
        + [text_width(c.text(title)) + 4, text_width(c.text(footer)) + 4, width]
    )
    inner = min(inner, c.width - 6)
    height = min(len(lines), c.height - 6)
    w, h = inner + 4, height + 4
    rect = Rect((c.width - w) // 2, max(1, (c.height - h) // 2), w, h)
    c.fill(rect, " ", "dialog.body")
    c.box(rect, style, "double" if style == "warn" else "round", title, "dialog.title")
    for i, line in enumerate(lines[:height]):
        x = rect.x + 2
        for span in line:
            room = rect.right - 2 - x
            if room <= 0:
                break
            x += c.put(
                x, rect.y + 2 + i, span.text, span.style if span.style != "text" else "dialog.body", room
            )
    if footer:
        text = clip(f" {c.text(footer)} ", w - 4)
        c.put(rect.right - 2 - text_width(text), rect.bottom - 1, text, "dialog.footer")
    return rect


def round_panel_lines(m: ScreenModel, width: int) -> list[str]:
    """The round summary's lines, wrapped to `width` (empty when no summary is shown)."""
    if m.overlay != "round" or m.round_over is None:
        return []
    out: list[str] = []
    for row in m.round_over[1]:
        out.extend([row] if text_width(row) <= width else wrap(row, width))  # keep the columns
    return out


def round_panel(c: Canvas, rect: Rect, m: ScreenModel) -> Rect | None:
    """The round summary in a box at the top of `rect`, beside the ended round's grids (never over
    them); returns the box, or None when there is no summary or it does not fit."""
    if m.round_over is None or rect.w < 30:
        return None
    lines = round_panel_lines(m, rect.w - 4)
    if not lines or len(lines) + 2 > rect.h:
        return None
    width = min(rect.w, max(text_width(c.text(line)) for line in lines) + 4)
    width = max(
        width,
        text_width(c.text(m.round_over[0])) + 6,
        text_width(c.text(m.round_keys or tr(m.lang, "round.continue"))) + 6,
    )
    box = Rect(rect.x, rect.y, min(width, rect.w), len(lines) + 2)
    c.fill(box, " ", "dialog.body")
    c.box(
        box,
        "dialog",
        "round",
        m.round_over[0],
        "dialog.title",
        (m.round_keys or tr(m.lang, "round.continue")),
        "dialog.footer",
    )
    for i, line in enumerate(lines):
        c.put(box.x + 2, box.y + 1 + i, line, "dialog.body", box.w - 4)
    c.mark(ROUND_PANEL, box)
    return box
