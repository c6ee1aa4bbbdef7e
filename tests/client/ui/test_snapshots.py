"""The screens, drawn by the pure render function, compared with reviewed text snapshots.

Each snapshot file under `snapshots/` holds the screen's characters and, below them, one letter
per cell naming its style (the legend is at the top of the file). After a deliberate change of
the screens, rewrite them with

    SKYJO_LAN_UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/client/ui/test_snapshots.py

and review the diff: the snapshots are the screens people will see.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import pytest

from client.ui.caps import Caps
from client.ui.render import render

from .scenes import Scene, all_scenes

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("SKYJO_LAN_UPDATE_SNAPSHOTS") == "1"

STYLE_CODES = {
    "text": ".",
    "dim": "d",
    "bold": "b",
    "title": "t",
    "header": "H",
    "header.title": "H",
    "header.turn": "T",
    "status": ".",
    "status.keys": "d",
    "card": "c",
    "card.neg": "N",
    "card.zero": "Z",
    "card.low": "L",
    "card.mid": "M",
    "card.high": "X",
    "card.sb1": "1",
    "card.sb5": "5",
    "card.sb9": "9",
    "card.wild": "W",
    "card.star": "S",
    "card.action": "A",
    "card.back": "#",
    "card.known": "K",
    "fg.neg": "n",
    "fg.zero": "z",
    "fg.low": "l",
    "fg.mid": "m",
    "fg.high": "x",
    "fg.sb1": "1",
    "fg.sb5": "5",
    "fg.sb9": "9",
    "fg.wild": "w",
    "fg.star": "s",
    "fg.action": "a",
    "cursor": "@",
    "selected": "v",
    "key": "k",
    "frame": "f",
    "active": "!",
    "name.me": "Y",
    "prompt": "P",
    "prompt.mark": ">",
    "button": "B",
    "button.cursor": "@",
    "link.ok": "+",
    "link.wait": "~",
    "link.bad": "x",
    "chat": "C",
    "error": "E",
    "warn": "w",
    "recent": "r",
    "good": "g",
    "dialog": "D",
    "dialog.body": " ",
    "dialog.title": "D",
    "dialog.footer": "d",
    "input": "i",
    **{
        f"logo.{band}": "O"
        for band in ("neg", "zero", "low", "mid", "high", "sb1", "sb5", "sb9", "wild", "action")
    },
    **{f"p{i}": str(i) for i in range(8)},
}
LEGEND = "styles: " + " ".join(
    f"{code}={name}" for name, code in sorted(STYLE_CODES.items(), key=lambda kv: kv[1])
)

VARIANTS = {
    "main": (80, 24, Caps(color=True, unicode=True), "en"),
    "ascii": (80, 24, Caps(color=False, unicode=False), "en"),
    "wide": (200, 60, Caps(color=True, unicode=True), "en"),
    "fr": (80, 24, Caps(color=True, unicode=True), "fr"),
    "de": (80, 24, Caps(color=True, unicode=True), "de"),
    "mono": (80, 24, Caps(color=False, unicode=True), "en"),
    "colour-ascii": (80, 24, Caps(color=True, unicode=False), "en"),
}
MONO = {"skyjo-turn", "action-steal", "skipbo-hand-card", "links"}
WIDE = {"skyjo-turn", "skyjo-result", "skipbo-turn", "action-choose", "action-exchange", "lobby"}
FRENCH = {"skyjo-turn", "skyjo-round-over", "skipbo-hand-card", "action-swap", "lobby", "too-small"}
FRENCH |= {"lobby-again", "skyjo-evening"}  # play again (issue 18)
FRENCH |= {"skyjo-rules", "action-rules", "skipbo-rules", "action-card-hint", "action-no-effect"}  # issue 30
FRENCH |= {"action-round-end", "lobby-mute", "lobby-remove", "game-mute", "game-muted"}


@cache
def scenes(lang: str) -> dict[str, Scene]:
    return {scene.name: scene for scene in all_scenes(lang)}


def cases() -> list[tuple[str, str]]:
    names = [scene.name for scene in all_scenes("en")]
    out = [(name, "main") for name in names] + [(name, "ascii") for name in names]
    out += [(name, "wide") for name in names if name in WIDE]
    out += [(name, "fr") for name in names if name in FRENCH]
    out += [(name, "de") for name in names if name in FRENCH]  # German: the same screens
    out += [(name, "mono") for name in names if name in MONO]
    out += [(name, "colour-ascii") for name in names if name in MONO]
    return out


def draw(name: str, variant: str) -> str:
    width, height, caps, lang = VARIANTS[variant]
    if name == "too-small":
        width, height = 60, 20
    scene = scenes(lang)[name]
    ui = scene.make()  # a fresh controller for each drawing
    draw_fn = scene.render or render
    frame = draw_fn(ui.screen(), width, height, caps)
    ui.on_frame(frame)
    for key in scene.keys:
        ui.handle_key(key)
        frame = draw_fn(ui.screen(), width, height, caps)
        ui.on_frame(frame)
    text = [line.rstrip() for line in frame.text()]
    styles = [line.rstrip(".") for line in frame.styles(STYLE_CODES)]
    head = f"# {name} · {variant} · {width}x{height} · colour {'on' if caps.color else 'off'} · " + (
        "unicode" if caps.unicode else "ascii"
    )
    return "\n".join([head, *text, "", f"# {LEGEND}", *styles]) + "\n"


@pytest.mark.parametrize(("name", "variant"), cases(), ids=[f"{n}-{v}" for n, v in cases()])
def test_screen(name: str, variant: str) -> None:
    path = SNAPSHOTS / f"{name}--{variant}.txt"
    got = draw(name, variant)
    if UPDATE or not path.exists():
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(got, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"new snapshot {path.name} written: review it")
        return
    want = path.read_text(encoding="utf-8")
    assert got == want, f"{path.name} differs (SKYJO_LAN_UPDATE_SNAPSHOTS=1 rewrites it after review)"


def test_every_style_has_a_code() -> None:
    from client.ui.terminal import COLOUR_STYLES

    missing = set(COLOUR_STYLES) - set(STYLE_CODES)
    assert not missing


def test_ascii_screens_are_ascii() -> None:
    for name in ("skyjo-turn", "skipbo-turn", "action-choose", "lobby"):
        text = draw(name, "ascii")
        body = text.split("\n# styles")[0].split("\n", 1)[1]  # the screen, without the file's title
        assert all(ord(ch) < 128 for ch in body), name
