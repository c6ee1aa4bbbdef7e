"""`skyjo-lan replay FILE`: step through a saved game, forward and back.

The transcript is fed to an observer `Session` (as `skyjo-lan verify` does: every signature and
proof is checked on the way), and the table is kept after every move: each step shows the table
as everyone saw it once that move was played and its cards revealed (hands and private cards stay
hidden, as they were). Keys: → n l Space next, ← p h back, Home/End first/last, PgUp/PgDn a
round back/forward, s the score sheet, q quit.

The file is checked as `skyjo-lan verify` checks it, beside the replay (issue 29): once the file
is read and its signatures checked, the game is replayed into steps and the first screen shows
as soon as the deal is in, more steps arriving as the replay goes on ("Checking the saved game"
in the title until the verdict); then the verdict's check runs, and the title says it
("verified", or "INVALID"). An invalid file is still shown,
but only as far as it can be trusted (the steps the observer accepted before the fault), with
the verdict's reason on every step once it is known; `replay` then exits 1, as `verify` does.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import trio

from client.logs import interrupted, is_interrupt
from protocol.config import TableConfig
from protocol.events import (
    AwayChanged,
    Blamed,
    ChatReceived,
    Halted,
    Left,
    RoundSigned,
    SeatReturned,
    SeatTakenOver,
    Updated,
)
from protocol.session import Session
from protocol.transcript import reader
from protocol.verify import Verified, unconfirmed_chats, verify_stream
from skyjo_p2p.core.events import Moved, RoundEnded
from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.state import TableState

from .app import GameUI, Quit
from .caps import detect_caps, detect_lang
from .i18n import tr
from .model import LinkView, ScreenModel
from .roundend import ended_round


@dataclass
class LogItem:
    """A log entry as `client.table.peer.LogEntry` has it (without importing the runtime)."""

    kind: str
    fact: Any = None
    seat: int | None = None
    text: str = ""
    disclosed: int = 0
    unconfirmed: bool = False
    """A chat the table never confirmed (`protocol.verify.unconfirmed_chats`)."""


@dataclass
class Step:
    state: TableState
    log_len: int
    round: int
    ended: bool = False
    """The table as a round ended, every card up (rebuilt by `roundend`): shown with the summary."""


@dataclass
class Replay:
    game: str
    names: list[str]
    steps: list[Step] = field(default_factory=list)
    log: list[LogItem] = field(default_factory=list)
    problem: str = ""
    fault: str | None = None
    """Why `skyjo-lan verify` finds the file invalid (None: valid); the steps stop at the fault."""
    foreign: bool = False
    """The file's genesis does not match its frames (verify exits 2 for it)."""
    checked: bool = True
    """False while the verdict is not known yet (the steps shown before the check is done)."""

    def judged(self, checked: Verified) -> None:
        """Take the verdict of `skyjo-lan verify`'s check."""
        verdict = checked.verdict
        if not verdict.valid:
            self.fault = verdict.fault or "invalid"
            self.foreign = verdict.not_this_game
        self.checked = True


def load_replay(data: bytes, progress: Callable[[int, int], None] | None = None) -> Replay:
    """Check then replay a transcript file's bytes into steps. Raises `MalformedMessage` if it is
    not one. An invalid file keeps the steps that check up to its fault, and the fault."""
    return replay_of(verify_stream(reader(data), limit=None, keep_order=True), progress)


def replay_of(checked: Verified, progress: Callable[[int, int], None] | None = None) -> Replay:
    """Replay a checked file (`verify_stream(..., keep_order=True)`) into steps: its distinct
    frames in the file's order, each opened once by the check (copies are not fed again)."""
    replay = new_replay(checked.config)
    replay.judged(checked)
    replay_frames(replay, checked.config, checked.order, progress)
    return replay


def new_replay(config: TableConfig) -> Replay:
    """An empty replay of a game of this table, its verdict not known yet."""
    names = list(config.names) or [f"#{s + 1}" for s in range(config.players)]
    return Replay(config.game, names, checked=False)


REBUILD_EVERY = 100
"""Frames between two publications of the steps built so far (`replay_frames`)."""


def replay_frames(
    replay: Replay,
    config: TableConfig,
    frames: Sequence[Any],
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """Feed `frames` (a file's distinct frames, opened, in order) to an observer session and
    build `replay.steps`, published as they grow: as soon as the first table is there, then every
    `REBUILD_EVERY` frames and at the end (a new list each time, so a screen in another thread
    always reads a whole one)."""
    observer = Session(config, None, None)
    observer.start()
    log = replay.log
    unconfirmed = {(e.seat, e.seq) for e in unconfirmed_chats(frames)}
    snapshots: list[tuple[TableState, int]] = []
    ended: list[Step] = []
    for number, frame in enumerate(frames):
        if isinstance(frame, bytes):  # a malformed frame its seat signed: the check blames it
            observer.receive_frame(frame)
        else:
            observer.receive_opened(frame)
        for event in observer.next_events():
            if isinstance(event, Updated):
                log.extend(LogItem("fact", fact) for fact in event.facts)
            elif isinstance(event, ChatReceived):
                late = (event.seat, event.seq) in unconfirmed
                log.append(LogItem("chat", seat=event.seat, text=event.text, unconfirmed=late))
            elif isinstance(event, RoundSigned):
                log.append(LogItem("info", text=f"round {event.round} signed by every seat"))
            elif isinstance(event, Blamed):
                log.append(LogItem("blame", seat=event.seat, text=event.reason))
            elif isinstance(event, Left):
                log.append(LogItem("left", seat=event.seat, text=event.reason))
            elif isinstance(event, AwayChanged):
                log.append(LogItem("away", seat=event.seat, text="away" if event.away else "back"))
            elif isinstance(event, SeatTakenOver):
                log.append(LogItem("takeover", seat=event.seat, text=event.how, disclosed=event.disclosed))
            elif isinstance(event, SeatReturned):
                log.append(LogItem("returned", seat=event.seat))
            elif isinstance(event, Halted):
                replay.problem = event.reason
        if observer.state is not None and (not snapshots or snapshots[-1][0] is not observer.state):
            if snapshots:
                ended.extend(_ended_rounds(snapshots[-1], observer.state, log))
            snapshots.append((observer.state, len(log)))
        if (snapshots and not replay.steps) or number % REBUILD_EVERY == 0:
            replay.steps = _steps(snapshots, log, ended)
        if progress is not None and number % 25 == 0:
            progress(number, len(frames))
        if observer.halted or observer.culprit is not None:
            break
    replay.steps = _steps(snapshots, log, ended)
    if progress is not None:
        progress(len(frames), len(frames))


def _steps(snapshots: list[tuple[TableState, int]], log: list[LogItem], ended: list[Step]) -> list[Step]:
    """The steps of what was replayed so far: the table before the first move, then after each
    move (before the next one), and each ended round between its last step and the next."""
    steps: list[Step] = []
    moves = [i for i, item in enumerate(log) if isinstance(item.fact, Moved)]
    boundaries = [*moves, len(log) + 1]
    cursor = 0
    rounds = 0
    counted = 0
    for limit in boundaries:
        best: tuple[TableState, int] | None = None
        while cursor < len(snapshots) and snapshots[cursor][1] <= limit:
            best = snapshots[cursor]
            cursor += 1
        if best is None:
            continue
        state, length = best
        rounds += sum(1 for item in log[counted:length] if isinstance(item.fact, RoundEnded))
        counted = length
        if not steps or steps[-1].state is not state:
            steps.append(Step(state, length, rounds))
    for step in ended:  # each between the last step of its round and the first of the next
        at = next((i for i, s in enumerate(steps) if s.log_len >= step.log_len), len(steps))
        steps.insert(at, step)
    return steps


def _ended_rounds(before: tuple[TableState, int], now: TableState, log: list[LogItem]) -> list[Step]:
    """The ended round's table (cards up) when `now` is past a round end that did not end the game."""
    state, length = before
    rounds = sum(1 for r in now.history if isinstance(r, RoundEnded))
    if now.phase == "game_over" or rounds <= sum(1 for r in state.history if isinstance(r, RoundEnded)):
        return []
    facts = [item.fact for item in log[length:]]
    table = ended_round(state, [f for f in facts if f is not None])
    if table is None:
        return []
    end = next(i for i in range(length, len(log)) if isinstance(log[i].fact, RoundEnded))
    return [Step(table, end + 1, rounds, ended=True)]


class ReplaySource:
    """One step of a replay, seen as a table source by `GameUI`."""

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.game = replay.game
        self.seat: int | None = None
        self.names: Sequence[str] = replay.names
        self.index = 0

    def state(self) -> TableState | None:
        return self.replay.steps[self.index].state if self.replay.steps else None

    def log(self) -> Sequence[LogItem]:
        if not self.replay.steps:
            return self.replay.log
        return self.replay.log[: self.replay.steps[self.index].log_len]

    def legal_moves(self) -> list[Move]:
        return []

    def links(self) -> list[LinkView]:
        return []

    def halted(self) -> str | None:
        if self.replay.problem and self.index == len(self.replay.steps) - 1:
            return self.replay.problem
        return None

    def away(self) -> frozenset[int]:
        return seat_marks(self.log())[0]

    def taken_over(self) -> Mapping[int, str]:
        return seat_marks(self.log())[1]

    def time_left(self) -> float | None:
        return None


def seat_marks(log: Sequence[LogItem]) -> tuple[frozenset[int], dict[int, str]]:
    """Who is away, and which seats a bot plays (and why), after `log`."""
    away: set[int] = set()
    taken: dict[int, str] = {}
    for item in log:
        if item.seat is None:
            continue
        if item.kind == "away":
            (away.add if item.text == "away" else away.discard)(item.seat)
        elif item.kind == "takeover":
            taken[item.seat] = item.text
            away.discard(item.seat)
        elif item.kind == "returned":
            taken.pop(item.seat, None)
    return frozenset(away), taken


class ReplayUI:
    """Replay keys around a `GameUI` that shows the current step."""

    def __init__(self, replay: Replay, lang: str) -> None:
        self.replay = replay
        self.lang = lang
        self.source = ReplaySource(replay)
        self.game = GameUI(self.source, lang)
        self.game.ui.rounds_seen = 0

    def _fresh(self) -> None:
        # the narrator reads the log from the start: a step back needs a new one
        self.game.narrator = None

    def go(self, index: int) -> None:
        last = max(0, len(self.replay.steps) - 1)
        index = max(0, min(index, last))
        if index < self.source.index:
            self._fresh()
            self.game.ui.rounds_seen = self.replay.steps[index].round if self.replay.steps else 0
        self.source.index = index
        if index < last:
            self.game.ui.result_closed = False
            if self.game.ui.overlay == "result":
                self.game.ui.overlay = None
        step = self.replay.steps[index] if self.replay.steps else None
        if step is not None and step.ended:
            # the replay stops on every round's end: the grids turned up, with the summary
            self.game.ui.rounds_seen = step.round
            if self.game.ui.overlay is None:
                self.game.ui.overlay = "round"
        elif self.game.ui.overlay == "round":
            self.game.ui.overlay = None

    def round_jump(self, direction: int) -> None:
        steps = self.replay.steps
        here = steps[self.source.index].round if steps else 0
        if direction > 0:
            target = next((i for i, s in enumerate(steps) if s.round > here), len(steps) - 1)
        else:
            start = next((i for i, s in enumerate(steps) if s.round >= here), 0)
            if start >= self.source.index and here > 0:
                start = next((i for i, s in enumerate(steps) if s.round >= here - 1), 0)
            target = start
        self.go(target)

    def screen(self) -> ScreenModel:
        model = self.game.screen()
        total = len(self.replay.steps)
        label = tr(self.lang, "replay.step", n=self.source.index + 1 if total else 0, total=total)
        head = tr(self.lang, "header.replay")
        if not self.replay.checked:
            head = f"{head} · {tr(self.lang, 'replay.loading')}"
        if self.replay.fault is not None:
            head = f"{head} · {tr(self.lang, 'replay.invalid_mark')}"
        elif self.replay.checked:  # the verdict said: every signature and proof holds
            head = f"{head} · {tr(self.lang, 'replay.valid_mark')}"
        model.subtitle = f"{head} · {label} · {model.subtitle}"
        model.footer = tr(self.lang, "replay.keys")
        model.ui = replace(model.ui, candidates=frozenset(), cursor=None, focus=frozenset())
        if not model.prompt or model.prompt_style != "error":
            model.prompt = tr(self.lang, "replay.prompt")
            model.prompt_style = "dim"
        model.buttons = []
        if self.replay.fault is not None:
            self._invalid(model, total)
        return model

    def _invalid(self, model: ScreenModel, total: int) -> None:
        """The verdict of an invalid file on every step: the reason, and how far it is trusted."""
        lang, fault = self.lang, self.replay.fault
        model.flash = tr(lang, "replay.invalid", reason=fault)
        last = self.source.index >= total - 1
        model.prompt = tr(lang, "replay.invalid_end" if last else "replay.invalid_prompt")
        model.prompt_style = "error" if last else "dim"
        if model.table is None:
            model.notice = "\n".join(
                [tr(lang, "replay.invalid_title"), fault or "", tr(lang, "replay.invalid_end")]
            )

    def on_frame(self, frame: Any) -> None:
        self.game.on_frame(frame)

    def handle_key(self, key: str) -> list[Any]:
        game = self.game
        if game.ui.overlay in ("help", "scores", "quit") or key in ("s", "?", "t"):
            if key == "t":
                return []
            effects = game.handle_key(key)
            return effects
        if game.ui.overlay == "result" and key not in ("q",):
            game.ui.overlay = None
            game.ui.result_closed = True
            return []
        if key == "q":
            return [Quit()]
        index = self.source.index
        if key in ("right", "n", "l", "space", "enter", "down", "j"):
            self.go(index + 1)
        elif key in ("left", "p", "h", "up", "k", "backspace"):
            self.go(index - 1)
        elif key in ("home", "g"):
            self.go(0)
        elif key in ("end", "G"):
            self.go(len(self.replay.steps) - 1)
        elif key in ("pgdn", "N"):
            self.round_jump(1)
        elif key in ("pgup", "P"):
            self.round_jump(-1)
        return []


def replay_beside_check(
    path: str, shown: Callable[[Replay], None], progress: Callable[[int, int], None] | None = None
) -> Replay:
    """Replay a saved game for the screen before its verdict is known: once the file is read and
    its signatures checked, `shown` gets the replay, whose steps then grow as the frames are
    replayed (`replay_frames`); then `skyjo-lan verify`'s check runs and its verdict goes into
    the same replay (`Replay.judged`), which is returned. Raises `OSError`, `MalformedMessage`."""
    from client.storage import verify_file

    holder: list[Replay] = []

    def surveyed(config: TableConfig, frames: list[Any]) -> None:
        holder.append(new_replay(config))
        shown(holder[0])
        replay_frames(holder[0], config, frames, progress)

    checked = verify_file(path, keep_order=True, surveyed=surveyed)
    if not holder:  # (cannot happen: `verify_file` reads the whole file first)
        holder.append(new_replay(checked.config))
        shown(holder[0])
    holder[0].judged(checked)
    return holder[0]


def replay(path: str, *, lang: str | None, no_color: bool, ascii_only: bool) -> int:
    from protocol.errors import MalformedMessage

    from .render import render
    from .run import run_screen
    from .terminal import open_terminal

    language = detect_lang(lang)
    try:
        with open(path, "rb"):  # read (streaming, bounded) by `verify_file` once on screen
            pass
    except OSError as exc:
        print(f"skyjo-lan replay: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        print("skyjo-lan replay: needs a terminal", file=sys.stderr)
        return 2
    caps = detect_caps(no_color=no_color, ascii_only=ascii_only)
    outcome: dict[str, Any] = {}

    async def main() -> None:
        async with open_terminal(caps) as terminal:
            done, total = [0], [1]

            def progress(n: int, of: int) -> None:
                done[0], total[0] = n, max(of, 1)

            def replay_then_judge() -> None:
                outcome["replay"] = replay_beside_check(path, lambda r: outcome.update(replay=r), progress)

            async def load() -> None:
                try:
                    await trio.to_thread.run_sync(replay_then_judge, abandon_on_cancel=True)
                except MalformedMessage as exc:
                    outcome["error"] = exc.reason
                except OSError as exc:
                    outcome["error"] = f"cannot read it: {exc.strerror or exc}"
                outcome["done"] = True

            def ready() -> bool:
                shown = outcome.get("replay")
                return shown is not None and (bool(shown.steps) or shown.checked)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(load)
                while not ready() and "error" not in outcome:
                    width, height = terminal.size
                    model = ScreenModel(language, "skyjo", "", tr(language, "header.replay"), "", None, [])
                    model.notice = "\n".join(
                        [
                            tr(language, "replay.loading"),
                            tr(language, "replay.progress", n=done[0], total=total[0]),
                        ]
                    )
                    terminal.draw(render(model, width, height, terminal.caps))
                    for key in terminal.read_keys():
                        if key in ("q", "esc"):
                            nursery.cancel_scope.cancel()
                            outcome["error"] = ""
                    await trio.sleep(0.1)
                if "error" in outcome or not ready():
                    return
                ui = ReplayUI(outcome["replay"], language)

                async def on_effect(effect: Any) -> bool:
                    return isinstance(effect, Quit)

                await run_screen(terminal, ui, on_effect, tick=0.5)
                if not outcome.get("done"):
                    nursery.cancel_scope.cancel()  # quit before the verdict: stop checking

    try:
        trio.run(main)
    except BaseException as exc:  # Ctrl-C: one line (the terminal is given back already)
        if not is_interrupt(exc):
            raise
        print(interrupted("replay"), file=sys.stderr, flush=True)
        return 130
    if outcome.get("error"):
        print(f"skyjo-lan replay: {path} is not a readable transcript: {outcome['error']}", file=sys.stderr)
        return 2
    loaded: Replay | None = outcome.get("replay")
    if loaded is not None and not loaded.checked:
        print(
            f"skyjo-lan replay: quit before the check of {path} was done (skyjo-lan verify checks it)",
            file=sys.stderr,
        )
        return 0
    if loaded is not None and loaded.fault is not None:
        print(f"skyjo-lan replay: {path} is INVALID: {loaded.fault}", file=sys.stderr)
        return 2 if loaded.foreign else 1
    return 0
