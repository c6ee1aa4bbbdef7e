"""The user guide's screenshots are real: each is the text of a reviewed snapshot.

A screenshot in docs/user-guide.md is a fenced block right after a marker
``<!-- screen: NAME VARIANT -->``; `SKYJO_LAN_UPDATE_SNAPSHOTS=1` rewrites the blocks from
`snapshots/NAME--VARIANT.txt`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .test_snapshots import SNAPSHOTS

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "user-guide.md"
BLOCK = re.compile(r"<!-- screen: (\S+) (\S+) -->\n```text\n(.*?)```\n", re.S)


def screen_text(name: str, variant: str) -> str:
    text = (SNAPSHOTS / f"{name}--{variant}.txt").read_text(encoding="utf-8")
    body = text.split("\n\n# styles", 1)[0].split("\n", 1)[1]
    return body.rstrip("\n") + "\n"


def test_screenshots_are_the_snapshots() -> None:
    guide = GUIDE.read_text(encoding="utf-8")
    blocks = BLOCK.findall(guide)
    assert len(blocks) >= 10
    if os.environ.get("SKYJO_LAN_UPDATE_SNAPSHOTS") == "1":
        updated = BLOCK.sub(
            lambda m: f"<!-- screen: {m[1]} {m[2]} -->\n```text\n{screen_text(m[1], m[2])}```\n", guide
        )
        GUIDE.write_text(updated, encoding="utf-8")
        return
    for name, variant, text in blocks:
        assert text == screen_text(name, variant), f"the screenshot {name} {variant} is out of date"
