"""A grid of styled cells that the renderers draw on, and the `Frame` they produce.

Nothing here knows curses. A cell holds one character and one *style name* ("text", "dim",
"card.high", "cursor" ...); the curses layer turns style names into colours and attributes, the
snapshot tests write them as one letter per cell. Renderers also record where each choosable
thing was drawn (`Canvas.targets`), which the controller uses to move the cursor with the arrows.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field

from .caps import Caps
from .targets import Target as Target


@dataclass(frozen=True)
class Rect:
    x: int
    y: int
    w: int
    h: int

    @property
    def right(self) -> int:
        return self.x + self.w

    @property
    def bottom(self) -> int:
        return self.y + self.h

    @property
    def center(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h / 2)


@dataclass(frozen=True)
class Span:
    text: str
    style: str = "text"


@dataclass
class Frame:
    """One rendered screen: `lines` of styled spans, exactly `height` lines of `width` cells."""

    width: int
    height: int
    lines: list[list[Span]]
    targets: dict[Target, Rect] = field(default_factory=dict)

    def text(self) -> list[str]:
        return ["".join(span.text for span in line) for line in self.lines]

    def styles(self, codes: dict[str, str]) -> list[str]:
        """One code letter per cell (wide characters count for two cells)."""
        out = []
        for line in self.lines:
            row = []
            for span in line:
                code = codes.get(span.style, "?")
                row.append(code * text_width(span.text))
            out.append("".join(row))
        return out


# --- text width ------------------------------------------------------------------------------


def char_width(ch: str) -> int:
    if unicodedata.combining(ch) or ch in "\u200b\u200c\u200d\ufe0f":
        return 0
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return 2
    return 1


def text_width(text: str) -> int:
    return sum(char_width(c) for c in text)


def to_ascii(text: str) -> str:
    """Text for a terminal without UTF-8: accents dropped, anything else non-ASCII as '?'."""
    if text.isascii():
        return text
    text = text.replace("« ", '"').replace(" »", '"').replace("\u00a0»", '"').replace("«\u00a0", '"')
    out = []
    for ch in unicodedata.normalize("NFKD", text):
        if ch.isascii():
            out.append(ch)
        elif unicodedata.combining(ch):
            continue
        else:
            out.append(_ASCII_FALLBACK.get(ch, "?"))
    return "".join(out)


_ASCII_FALLBACK = {
    "…": "...",
    "·": ".",
    "—": "-",
    "–": "-",
    "→": "->",
    "←": "<-",
    "↑": "^",
    "↓": "v",
    "×": "x",
    "★": "*",
    "É": "E",
    "’": "'",
    "«": '"',
    "»": '"',
    "\u00a0": " ",
    "\u202f": " ",
}


def clip(text: str, width: int, ellipsis: str = "…") -> str:
    """`text` cut to at most `width` cells, ending with `ellipsis` if it was cut."""
    if width <= 0:
        return ""
    if text_width(text) <= width:
        return text
    room = width - text_width(ellipsis)
    out, used = [], 0
    for ch in text:
        w = char_width(ch)
        if used + w > room:
            break
        out.append(ch)
        used += w
    return "".join(out) + (ellipsis if room >= 0 else "")


def wrap(text: str, width: int) -> list[str]:
    """Words of `text` in lines of at most `width` cells (a long word is cut)."""
    if width <= 0:
        return []
    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}" if current else word
        if text_width(candidate) <= width:
            current = candidate
            continue
        if current:
            lines.append(current)
        while text_width(word) > width:
            lines.append(clip(word, width, ""))
            word = word[len(lines[-1]) :]
        current = word
    if current or not lines:
        lines.append(current)
    return lines


# --- glyphs ------------------------------------------------------------------------------------

# Box sets: top-left, horizontal, top-right, vertical, bottom-left, bottom-right.
_BOXES = {
    "light": ("┌─┐│└┘", "+-+|++"),
    "round": ("╭─╮│╰╯", "+-+|++"),
    "heavy": ("┏━┓┃┗┛", "#=#|##"),
    "double": ("╔═╗║╚╝", "+=+|++"),
    "dotted": ("┌┄┐┆└┘", "+-+:++"),
}

GLYPHS: dict[str, tuple[str, str]] = {
    "back": ("░", "/"),
    "turn": ("▶", ">"),
    "check": ("✓", "*"),
    "flag": ("⚑", "!"),
    "star": ("★", "*"),
    "dot": ("·", "."),
    "ok": ("●", "+"),
    "wait": ("◌", "~"),
    "bad": ("✗", "x"),
    "ellipsis": ("…", "..."),
    "hline": ("─", "-"),
    "vline": ("│", "|"),
    "arrow": ("→", "->"),
    "times": ("×", "x"),
    "up": ("↑", "^"),
    "down": ("↓", "v"),
    "left": ("←", "<"),
    "right": ("→", ">"),
    "crown": ("♛", "#"),
    "block": ("█", "#"),
    "shade": ("▒", "#"),
    "recent": ("•", "*"),
    "recent_l": ("‹", "("),
    "recent_r": ("›", ")"),
}


def glyph(caps: Caps, name: str) -> str:
    uni, asc = GLYPHS[name]
    return uni if caps.unicode else asc


def box_chars(caps: Caps, kind: str) -> str:
    uni, asc = _BOXES[kind]
    return uni if caps.unicode else asc


# --- the canvas --------------------------------------------------------------------------------


class Canvas:
    """`width` x `height` cells; drawing outside is clipped silently."""

    def __init__(self, width: int, height: int, caps: Caps) -> None:
        self.width = width
        self.height = height
        self.caps = caps
        self.chars: list[list[str]] = [[" "] * width for _ in range(height)]
        self.cell_styles: list[list[str]] = [["text"] * width for _ in range(height)]
        self.targets: dict[Target, Rect] = {}

    def g(self, name: str) -> str:
        return glyph(self.caps, name)

    def text(self, text: str) -> str:
        """`text` as this screen can show it."""
        return text if self.caps.unicode else to_ascii(text)

    def put(self, x: int, y: int, text: str, style: str = "text", width: int | None = None) -> int:
        """Write `text` at (x, y), at most `width` cells; returns the cells written."""
        if not 0 <= y < self.height:
            return text_width(self.text(text)) if width is None else min(width, text_width(text))
        text = self.text(text)
        if width is not None:
            text = clip(text, width, self.g("ellipsis") if width > 3 else "")
        row, styles = self.chars[y], self.cell_styles[y]
        col = x
        for ch in text:
            w = char_width(ch)
            if w == 0:
                if 0 < col <= self.width and col - 1 >= 0:
                    row[col - 1] += ch
                continue
            if col >= self.width:
                col += w
                continue
            if col >= 0:
                if w == 2 and col + 1 >= self.width:
                    row[col], styles[col] = " ", style
                else:
                    self._clear_wide(y, col)
                    row[col], styles[col] = ch, style
                    if w == 2:
                        self._clear_wide(y, col + 1)
                        row[col + 1], styles[col + 1] = "", style
            col += w
        return col - x

    def _clear_wide(self, y: int, col: int) -> None:
        """Before overwriting a cell, undo a wide character it was part of."""
        row = self.chars[y]
        if row[col] == "" and col > 0:
            row[col - 1] = " "
        elif col + 1 < self.width and row[col + 1] == "" and char_width(row[col][:1] or " ") == 2:
            row[col + 1] = " "

    def put_center(self, x: int, y: int, width: int, text: str, style: str = "text") -> None:
        """Centred; an odd leftover space goes on the left (numbers line up on their last digit)."""
        text = clip(self.text(text), width)
        self.put(x + (width - text_width(text) + 1) // 2, y, text, style)

    def put_right(self, right: int, y: int, text: str, style: str = "text") -> int:
        text = self.text(text)
        start = right - text_width(text)
        self.put(start, y, text, style)
        return start

    def fill(self, rect: Rect, ch: str = " ", style: str = "text") -> None:
        for y in range(max(rect.y, 0), min(rect.bottom, self.height)):
            for x in range(max(rect.x, 0), min(rect.right, self.width)):
                self._clear_wide(y, x)
                self.chars[y][x] = ch
                self.cell_styles[y][x] = style

    def restyle(self, rect: Rect, style: str) -> None:
        for y in range(max(rect.y, 0), min(rect.bottom, self.height)):
            for x in range(max(rect.x, 0), min(rect.right, self.width)):
                self.cell_styles[y][x] = style

    def hline(self, x: int, y: int, width: int, style: str = "dim", ch: str | None = None) -> None:
        self.put(x, y, (ch or self.g("hline")) * max(width, 0), style)

    def box(
        self,
        rect: Rect,
        style: str = "text",
        kind: str = "round",
        title: str = "",
        title_style: str | None = None,
        footer: str = "",
        footer_style: str | None = None,
        fill: str | None = None,
    ) -> None:
        """A frame around `rect` (its outer size), with an optional title in the top border."""
        if rect.w < 2 or rect.h < 2:
            return
        chars = box_chars(self.caps, kind)
        tl, h, tr, v, bl, br = chars[0], chars[1], chars[2], chars[3], chars[4], chars[5]
        self.put(rect.x, rect.y, tl + h * (rect.w - 2) + tr, style)
        for y in range(rect.y + 1, rect.bottom - 1):
            self.put(rect.x, y, v, style)
            self.put(rect.right - 1, y, v, style)
            if fill is not None:
                self.put(rect.x + 1, y, " " * (rect.w - 2), fill)
        self.put(rect.x, rect.bottom - 1, bl + h * (rect.w - 2) + br, style)
        if title:
            self.put(rect.x + 1, rect.y, f" {self.text(title)} ", title_style or style, rect.w - 2)
        if footer:
            text = clip(f" {self.text(footer)} ", rect.w - 2)
            self.put(rect.right - 1 - text_width(text) - 1, rect.bottom - 1, text, footer_style or style)

    def mark(self, target: Target, rect: Rect) -> None:
        """Remember that `target` was drawn in `rect`."""
        self.targets[target] = rect

    def spans(self) -> Iterator[list[Span]]:
        for y in range(self.height):
            line: list[Span] = []
            run: list[str] = []
            style = self.cell_styles[y][0] if self.width else "text"
            for x in range(self.width):
                ch, st = self.chars[y][x], self.cell_styles[y][x]
                if ch == "":
                    continue
                if st != style and run:
                    line.append(Span("".join(run), style))
                    run = []
                style = st
                run.append(ch)
            if run:
                line.append(Span("".join(run), style))
            yield line

    def frame(self) -> Frame:
        return Frame(self.width, self.height, list(self.spans()), dict(self.targets))
