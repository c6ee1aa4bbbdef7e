"""The screen between a finished game and the table's next lobby.

At a table that plays again, `q` on the game-over screen goes back to the lobby. The lobby
comes once this program's part of the game is over: the last round's signatures are in, and
the others are told goodbye. That usually takes a moment; it takes up to a minute when a
program's link dropped as the game ended and the table waits for it to get the end
(`client.net.mesh.Mesh._wait_for_returning`). Meanwhile this screen says so, with what the
table's log says about the wait, instead of leaving the last game screen standing still; `q`
leaves the table at once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

import trio

from .canvas import Canvas, Frame, Rect, clip, wrap
from .caps import Caps, detect_lang
from .i18n import tr
from .run import run_screen
from .terminal import Terminal

T = TypeVar("T")

SHOWN_AFTER = 0.3
"""Seconds the wait may take before the screen shows it (an ordinary end takes less: no flash)."""


class SettlingRunner(Protocol):
    """What the screen reads of the table (`client.table.peer.PeerRunner`)."""

    @property
    def end_wait(self) -> list[str]: ...
    @property
    def changed(self) -> trio.Event: ...


@dataclass
class SettlingModel:
    """What the screen shows: its language, the table's lines about the wait (oldest first), and
    whether the table's lobby comes next (else the program ends)."""

    lang: str
    lines: list[str]
    lobby: bool = True


def wait_lines(runner: SettlingRunner, most: int = 4) -> list[str]:
    """What the network said last of its end-of-game wait (at most `most` lines, oldest first)."""
    return runner.end_wait[-most:]


def render_settling(model: SettlingModel, width: int, height: int, caps: Caps) -> Frame:
    """A box in the middle of the screen: the title, what happens, the wait's lines, the key."""
    c = Canvas(width, height, caps)
    inner = max(10, min(76, width - 6))
    body = wrap(tr(model.lang, "settle.body" if model.lobby else "settle.body_end"), inner)
    for line in model.lines:
        body += ["", *wrap(line, inner)]
    h = min(height, len(body) + 4)
    w = min(width, inner + 4)
    box = Rect(max(0, (width - w) // 2), max(0, (height - h) // 2), w, h)
    c.box(box, title=tr(model.lang, "settle.title"), footer=tr(model.lang, "settle.keys"), kind="round")
    for i, line in enumerate(body[: max(0, h - 4)]):
        c.put(box.x + 2, box.y + 2 + i, clip(c.text(line), w - 4), "text" if i < 1 else "dim")
    return c.frame()


class _Screen:
    """The controller: the model from what the network said of its wait; `q` leaves."""

    def __init__(self, runner: SettlingRunner, lang: str, lobby: bool) -> None:
        self.runner = runner
        self.lang = lang
        self.lobby = lobby

    def screen(self) -> SettlingModel:
        return SettlingModel(self.lang, wait_lines(self.runner), self.lobby)

    def handle_key(self, key: str) -> list[str]:
        return ["leave"] if key == "q" else []

    def on_frame(self, frame: Frame) -> None:
        """Nothing to remember of what was drawn."""


async def while_settling(
    terminal: Terminal,
    runner: SettlingRunner,
    lang: str | None,
    wait: Callable[[], Awaitable[T]],
    *,
    lobby: bool = True,
) -> tuple[bool, T | None]:
    """Run `wait()` to its end, showing this screen if it takes more than `SHOWN_AFTER` seconds
    (`lobby`: the table's lobby follows, else the program ends). Returns (True, its result), or
    (False, None) when the person pressed `q` first (the wait is cancelled: the caller leaves
    the table)."""
    result: list[T] = []

    async def waiting(cancel: trio.CancelScope) -> None:
        result.append(await wait())
        cancel.cancel()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(waiting, nursery.cancel_scope)
        await trio.sleep(SHOWN_AFTER)

        async def on_effect(effect: str) -> bool:
            return effect == "leave"

        await run_screen(
            terminal,
            _Screen(runner, detect_lang(lang), lobby),
            on_effect,
            changed=lambda: runner.changed,
            render_fn=render_settling,
        )
        nursery.cancel_scope.cancel()  # `q`: the wait ends here
    return (True, result[0]) if result else (False, None)
