"""What the screen needs of a live table (`GameRunner`), and how it reads one (`RunnerSource`).

`client.table.peer.PeerRunner` is the runner of every live table (`skyjo-lan play`, `host`, `join`);
the screen sees it through this protocol only, so the path of a move is typed from the key
(`app.GameUI.handle_key` -> `app.Submit`) to the session (`GameRunner.submit_move`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import trio

from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.state import TableState
from skyjo_p2p.engine import legal_moves

from .model import LinkView
from .narrate import LogLike


class RunnerConfig(Protocol):
    """The table's configuration, as far as the screen reads it (`protocol.config.TableConfig`)."""

    @property
    def game(self) -> str: ...

    @property
    def players(self) -> int: ...

    @property
    def names(self) -> Sequence[str]: ...


class RunnerStatus(Protocol):
    """Whether the game stopped (why) or finished (`client.table.peer.PeerStatus`)."""

    @property
    def halted(self) -> str | None: ...

    @property
    def finished(self) -> bool: ...


class RunnerLink(Protocol):
    """How this peer sees another seat's link (`client.net.mesh.LinkState`)."""

    @property
    def status(self) -> str: ...

    @property
    def retry_in(self) -> float | None: ...


class GameRunner(Protocol):
    """One seat of a live table, run by something else (`client.table.peer.PeerRunner`).

    The screen reads `view`, `log`, `status` and `links`, waits on `changed` (a fresh trio event
    set at the next visible change), and plays with `submit_move` (which raises
    `skyjo_p2p.core.errors.IllegalMove` for a move the table refuses) and `send_chat`.
    """

    @property
    def config(self) -> RunnerConfig: ...

    @property
    def seat(self) -> int | None: ...

    @property
    def view(self) -> TableState | None: ...

    @property
    def log(self) -> Sequence[LogLike]: ...

    @property
    def status(self) -> RunnerStatus: ...

    @property
    def links(self) -> Mapping[int, RunnerLink]: ...

    @property
    def changed(self) -> trio.Event: ...

    async def submit_move(self, move: Move) -> None: ...

    async def send_chat(self, text: str) -> None: ...

    async def leave(self) -> bool:
        """Leave the table for good (a signed leave to every seat); False if the game is over."""
        ...

    async def wait_closed(self) -> None:
        """Return once the links are closed (what was sent has gone out)."""
        ...

    @property
    def away(self) -> frozenset[int]:
        """The seats whose player is away (their own program plays for them)."""
        ...

    @property
    def taken_over(self) -> Mapping[int, str]:
        """The seats a bot plays for everyone, and why ("left" or "vanished")."""
        ...

    @property
    def turn_seconds(self) -> float:
        """This seat's move countdown, seconds (0: none)."""
        ...

    def time_left(self) -> float | None:
        """Seconds left on this seat's move countdown (None: none runs now)."""
        ...

    async def come_back(self) -> bool:
        """The away player is back: the autopilot stops and the others are told."""
        ...


class RunnerSource:
    """A live table: one `GameRunner` as a `app.Source`."""

    def __init__(self, runner: GameRunner) -> None:
        self.runner = runner
        config = runner.config
        self.game: str = config.game
        self.seat: int | None = runner.seat
        self.names: Sequence[str] = list(config.names) or [f"#{s + 1}" for s in range(config.players)]
        self._retry_seen: dict[int, tuple[tuple[str, float], float]] = {}

    def state(self) -> TableState | None:
        state: TableState | None = self.runner.view
        return state

    def log(self) -> Sequence[LogLike]:
        entries: Sequence[LogLike] = self.runner.log
        return entries

    def legal_moves(self) -> list[Move]:
        state = self.runner.view
        if state is None or self.seat is None or self.runner.status.halted or self.runner.status.finished:
            return []
        return legal_moves(state, self.seat)

    def links(self) -> list[LinkView]:
        """Each other seat's link; a reconnection's `retry_in` counts down from when it was set."""
        out = []
        now = time.monotonic()
        for seat, link in sorted(self.runner.links.items()):
            retry = link.retry_in
            if retry is not None:
                key = (link.status, retry)
                seen = self._retry_seen.get(seat)
                if seen is None or seen[0] != key:
                    self._retry_seen[seat] = seen = (key, now)
                retry = max(0.0, retry - (now - seen[1]))
            else:
                self._retry_seen.pop(seat, None)
            out.append(LinkView(seat, self.names[seat], link.status, retry))
        return out

    def halted(self) -> str | None:
        halted: str | None = self.runner.status.halted
        return halted

    def away(self) -> frozenset[int]:
        return frozenset(self.runner.away)

    def taken_over(self) -> Mapping[int, str]:
        return dict(self.runner.taken_over)

    def time_left(self) -> float | None:
        return self.runner.time_left()

    def table_wait(self) -> tuple[Any, float | None] | None:
        """What the table waits for from other seats, and the seconds until it stops waiting
        (`PeerRunner.table_wait`); None when it waits for no one else."""
        wait = getattr(self.runner, "table_wait", None)
        value = wait() if callable(wait) else None
        return value if isinstance(value, tuple) else None

    def leave_ends_spares(self) -> bool:
        """Whether this seat's leave would leave the table unable to replace anyone else."""
        ends = getattr(self.runner, "leave_ends_spares", None)
        return bool(ends()) if callable(ends) else False

    def countdown_waits(self) -> tuple[int, ...] | None:
        """The seats the stopped countdown waits for (None: it runs, or none runs)."""
        waits = getattr(self.runner, "countdown_waits", None)
        value = waits() if callable(waits) else None
        return value if isinstance(value, tuple) else None

    def may_go_on(self) -> tuple[int, ...]:
        """The seats this player may ask the table to go on without now (`g`; issue 28 point 3)."""
        may = getattr(self.runner, "may_go_on", None)
        value = may() if callable(may) else ()
        return value if isinstance(value, tuple) else ()

    def removals(self) -> tuple[Any, ...]:
        """The open proposals to remove a program from the game (`K`; issue 30 point 5)."""
        found = getattr(self.runner, "removals", None)
        value = found() if callable(found) else ()
        return value if isinstance(value, tuple) else ()

    def may_remove(self) -> tuple[tuple[int, ...], str | None]:
        """The programs this player may propose to remove now, and why none when none."""
        may = getattr(self.runner, "may_remove", None)
        value = may() if callable(may) else ((), "no-game")
        return value if isinstance(value, tuple) and len(value) == 2 else ((), "no-game")

    def watching(self) -> int:
        """How many spectators watch the table (0 from a runner that is not told)."""
        count = getattr(self.runner, "watching", 0)
        return count if isinstance(count, int) else 0
