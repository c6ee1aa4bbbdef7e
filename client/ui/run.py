"""The screen loop: keys and table changes in, frames out, under trio.

`run_screen` drives any controller (an object with `screen()`, `handle_key(key)` and
`on_frame(frame)`): a redraw follows every key at once, and changes of the table at most about
thirty times a second. `run_game_ui` plays one seat of a live table through its `PeerRunner`.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol, TypeVar, cast

import trio

from client.table.evening import Evening
from client.table.peer import warn_before
from skyjo_p2p.core.errors import IllegalMove
from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.state import TableState

from .app import Back, Chat, Effect, GameUI, GoOn, Quit, Remove, Submit
from .canvas import Frame
from .caps import Caps, detect_caps, detect_lang
from .i18n import tr
from .paste import pasted
from .render import render
from .runner import GameRunner, RunnerSource
from .terminal import Terminal, TurnAlert, open_terminal, watch_resize

REDRAW_INTERVAL = 1 / 30
"""Table changes (not keys) redraw at most this often."""


Model = TypeVar("Model")
Effect_ = TypeVar("Effect_")
Model_co = TypeVar("Model_co", covariant=True)
Effect_co = TypeVar("Effect_co", covariant=True)


class Controller(Protocol[Model_co, Effect_co]):
    """A screen's controller: the model to draw now, and the effects of a key."""

    def screen(self) -> Model_co: ...

    def handle_key(self, key: str) -> Sequence[Effect_co]: ...

    def on_frame(self, frame: Frame) -> None: ...


EffectHandler = Callable[[Effect_], Awaitable[bool]]
"""Carries out one effect; True stops the screen."""


async def run_screen(
    terminal: Terminal,
    controller: Controller[Model, Effect_],
    on_effect: EffectHandler[Effect_],
    changed: Callable[[], trio.Event] | None = None,
    tick: float = 1.0,
    draw_hook: Callable[[Frame], None] | None = None,
    render_fn: Callable[[Model, int, int, Caps], Frame] | None = None,
) -> None:
    """Run one screen until an effect says stop. `render_fn` draws the controller's model (by
    default `render.render`, for a `ScreenModel`)."""
    draw = render_fn if render_fn is not None else cast(Callable[[Model, int, int, Caps], Frame], render)
    state = _LoopState()

    async def keys() -> None:
        async for batch in terminal.keys():
            for key in batch:
                if key == "redraw":
                    terminal.clear()
                    continue
                text = pasted(key)
                if text is not None:
                    # a paste is text for the field being typed in, never keys (issue 28)
                    paste = getattr(controller, "paste", None)
                    effects = paste(text) if callable(paste) else []
                else:
                    effects = controller.handle_key(key)
                for effect in effects:
                    state.wake(True)  # what the key changed is drawn while the effect runs
                    if await on_effect(effect):
                        state.stop = True
                        state.wake(True)
                        return
            state.wake(True)

    async def watch() -> None:
        assert changed is not None
        while True:
            await changed().wait()
            state.wake()

    async def ticks() -> None:
        while True:
            await trio.sleep(tick)
            state.wake()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(keys)
        nursery.start_soon(watch_resize, terminal, lambda: state.wake(True))
        nursery.start_soon(ticks)
        if changed is not None:
            nursery.start_soon(watch)
        while not state.stop:
            width, height = terminal.size
            frame = draw(controller.screen(), width, height, terminal.caps)
            controller.on_frame(frame)
            terminal.draw(frame)
            if draw_hook is not None:
                draw_hook(frame)
            last = time.monotonic()
            await state.event.wait()
            state.event = trio.Event()
            if not state.key and not state.stop:
                # a change of the table: let a burst of frames settle (a key cuts the wait short)
                delay = last + REDRAW_INTERVAL - time.monotonic()
                if delay > 0:
                    with trio.move_on_after(delay):
                        while not state.key and not state.stop:
                            await state.event.wait()
                            state.event = trio.Event()
            state.key = False
        nursery.cancel_scope.cancel()


class _LoopState:
    """What wakes the screen loop: a key (redraw at once) or a change (redraw soon)."""

    def __init__(self) -> None:
        self.event = trio.Event()
        self.key = False
        self.stop = False

    def wake(self, from_key: bool = False) -> None:
        if from_key:
            self.key = True
        self.event.set()


LEAVE_WAIT = 5.0
"""Seconds a player who leaves waits at most for the leave to go out before the screen closes."""


async def _leave(runner: GameRunner, wait: float = LEAVE_WAIT) -> None:
    """Tell the others with a signed leave, and let it go out (at most `wait` seconds: 0 when
    the others are in this program, as in `play`) before the program closes."""
    if await runner.leave() and wait > 0:
        with trio.move_on_after(wait):
            await runner.wait_closed()


async def run_game_ui(
    runner: GameRunner,
    *,
    lang: str | None = None,
    caps: Caps | None = None,
    terminal: Terminal | None = None,
    saved: str = "",
    footer: str = "",
    read_only: bool = False,
    banner: str = "",
    players: Sequence[str] = (),
    evening: Callable[[TableState], Evening] | None = None,
    again: bool = False,
    leave_wait: float = LEAVE_WAIT,
) -> str:
    """Play `runner`'s seat in the terminal until the player closes the screen. Returns "left" when
    they left a game still on (a signed leave went to every seat), else "quit". `read_only`: a
    spectator's screen (no move, no chat; `banner` says what is watched, `players` whom, with
    their key fingerprints, in the help).

    `leave_wait`: seconds a leave may take to go out before the screen closes (the network).

    `runner` (a `client.table.peer.PeerRunner`) is a table that something else runs (a
    `LocalTable`, or the LAN mesh). With no `terminal`, one is opened (and closed) here.
    """
    language = detect_lang(lang)
    if terminal is None:
        async with open_terminal(caps or detect_caps()) as opened:
            return await run_game_ui(
                runner,
                lang=language,
                terminal=opened,
                saved=saved,
                footer=footer,
                read_only=read_only,
                banner=banner,
                players=players,
                evening=evening,
                again=again,
                leave_wait=leave_wait,
            )
    ui = GameUI(
        RunnerSource(runner),
        language,
        saved=saved,
        footer=footer,
        read_only=read_only,
        banner=banner,
        players=players,
        evening=evening,
        again=again,
    )
    ui.bell = terminal.caps.bell
    alert = TurnAlert(terminal, f"{ui.source.game.upper()} — {tr(language, 'header.your_turn').lower()}")

    outcome = "quit"
    async with trio.open_nursery() as nursery:

        async def submit(move: Move) -> None:
            try:
                await runner.submit_move(move)
            except IllegalMove as exc:
                ui.submitted(exc.reason)
            else:
                ui.submitted(None)

        async def on_effect(effect: Effect) -> bool:
            nonlocal outcome
            if isinstance(effect, Submit):
                nursery.start_soon(submit, effect.move)
            elif isinstance(effect, Chat):
                nursery.start_soon(runner.send_chat, effect.text)
            elif isinstance(effect, Back):
                nursery.start_soon(runner.come_back)
            elif isinstance(effect, GoOn):
                go_on = getattr(runner, "go_on_without", None)
                if go_on is not None:
                    nursery.start_soon(go_on)
            elif isinstance(effect, Remove):
                remove = getattr(runner, "remove_player", None)
                if remove is not None:
                    nursery.start_soon(remove, effect.owner, effect.agree)
            elif isinstance(effect, Quit):
                if effect.leave:
                    await _leave(runner, leave_wait)
                    outcome = "left"
                return True
            return False

        await run_screen(
            terminal,
            ui,
            on_effect,
            changed=lambda: runner.changed,
            draw_hook=lambda _frame: alert.update(
                ui.my_turn() and not ui.away(), ui.bell, runner.time_left(), warn_before(runner.turn_seconds)
            ),
        )
        nursery.cancel_scope.cancel()
    return outcome
