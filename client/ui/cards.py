"""Cards as boxes: a value, a colour band, a face-down pattern, and three sizes.

=====  =====  ==============================================================
size   cells  look (Unicode; ASCII uses + - | and / for the back)
=====  =====  ==============================================================
S      4x1    ``[12]``  ``[░░]``  (opponents' grids on small screens, fans)
M      6x3    a rounded box with the value in the middle
L      8x5    a taller box, the value in the middle, a second line below
=====  =====  ==============================================================

Colour follows the physical cards (SKYJO: dark blue negatives, light blue 0, green 1-4, yellow
5-8, red 9-12; SKIP-BO: blue 1-4, green 5-8, red 9-12, the wild orange). Without colour the
shapes still tell everything apart: backs are patterned, stars and action cards have a double
border, the cursor card a heavy one (and reverse video), chosen cards a check mark.
"""

from __future__ import annotations

from dataclasses import dataclass

from .canvas import Canvas, Rect, Target, clip, text_width

SIZES: dict[str, tuple[int, int]] = {"S": (4, 1), "M": (6, 3), "L": (8, 5)}


@dataclass(frozen=True)
class CardView:
    """One card as a viewer sees it.

    `kind`: "face" (value shown), "back" (face down; `known` holds its value if this viewer alone
    has seen it), "empty" (a removed card's place), "none" (an empty pile).
    """

    kind: str
    text: str = ""
    band: str = ""
    short: str = ""
    sub: str = ""
    known: str = ""
    special: bool = False
    title: str = ""

    @property
    def tiny(self) -> str:
        return self.short or self.text


BACK = CardView("back")
EMPTY_SLOT = CardView("empty")
NO_CARD = CardView("none")


def skyjo_band(value: int) -> str:
    if value < 0:
        return "neg"
    if value == 0:
        return "zero"
    if value <= 4:
        return "low"
    if value <= 8:
        return "mid"
    return "high"


def skyjo_card(value: int | None) -> CardView:
    if value is None:
        return BACK
    return CardView("face", str(value), skyjo_band(value))


def skipbo_band(value: int) -> str:
    if value == 0:
        return "wild"
    if value <= 4:
        return "sb1"
    if value <= 8:
        return "sb5"
    return "sb9"


def skipbo_card(value: int | None) -> CardView:
    if value is None:
        return BACK
    if value == 0:
        return CardView("face", "SB", "wild", special=True)
    return CardView("face", str(value), skipbo_band(value))


def card_style(card: CardView) -> str:
    if card.kind == "face":
        return f"card.{card.band}" if card.band else "card"
    if card.kind == "back":
        return "card.back"
    return "dim"


def draw_card(
    canvas: Canvas,
    x: int,
    y: int,
    size: str,
    card: CardView,
    *,
    cursor: bool = False,
    selected: bool = False,
    key: str | None = None,
    target: Target | None = None,
    dim: bool = False,
) -> Rect:
    """Draw `card` with its top-left corner at (x, y); return (and mark) its rectangle."""
    w, h = SIZES[size]
    rect = Rect(x, y, w, h)
    if target is not None:
        canvas.mark(target, rect)
    style = "dim" if dim and card.kind == "face" else card_style(card)
    if size == "S":
        _draw_small(canvas, x, y, card, style, cursor, selected)
        return rect
    if card.kind in ("empty", "none"):
        inner = "dim"
        kind = "dotted" if card.kind == "none" or cursor else None
        if cursor:
            canvas.box(rect, "cursor", "heavy")
        elif kind:
            canvas.box(rect, inner, kind)
        else:
            canvas.fill(rect, " ", "text")
        canvas.put_center(x + 1, y + h // 2, w - 2, canvas.g("dot"), inner)
        if key:
            canvas.put(x + 1, y, key, "key")
        return rect
    kind = "heavy" if cursor else ("double" if card.special else "round")
    canvas.box(rect, "cursor" if cursor else style, kind, fill=style)
    inner_w = w - 2
    mid = y + h // 2
    if card.kind == "back":
        pattern = canvas.g("back")
        for row in range(y + 1, y + h - 1):
            canvas.put(x + 1, row, pattern * inner_w, style)
        if card.known:
            canvas.put_center(x + 1, mid, inner_w, card.known, "card.known")
    else:
        canvas.put_center(x + 1, mid, inner_w, card.text, style)
        if card.sub and h >= 5:
            canvas.put_center(x + 1, mid + 1, inner_w, card.sub, style)
    if selected:
        canvas.put(x + w - 2, y, canvas.g("check"), "selected")
    if key:
        canvas.put(x + 1, y, key, "key")
    return rect


def _draw_small(
    canvas: Canvas, x: int, y: int, card: CardView, style: str, cursor: bool, selected: bool
) -> None:
    left, right = ("[", "]")
    if cursor:
        left, right = (">", "<")
    elif selected:
        left, right = ("*", "*")
    if card.kind == "back":
        inner = card.known[:2].rjust(2) if card.known else canvas.g("back") * 2
    elif card.kind == "face":
        inner = clip(card.tiny, 2, "").rjust(2)
    elif card.kind == "none":
        inner = "  "
    else:
        canvas.put(x, y, f" {canvas.g('dot')}{canvas.g('dot')} " if not cursor else ">  <", "dim")
        return
    if card.special and card.kind == "face" and not cursor and not selected:
        left, right = ("{", "}")
    edge = "cursor" if cursor else style
    canvas.put(x, y, left, edge)
    canvas.put(x + 1, y, inner, style if not (card.known and card.kind == "back") else "card.known")
    canvas.put(x + 1 + text_width(canvas.text(inner)), y, right, edge)
