"""An in-memory table of sessions joined by byte pipes, for tests and benchmarks.

Every frame a session emits is delivered to every other session (optionally through a filter
that lets a test drop, delay, tamper with or replay frames). Bots choose moves from each
session's own view. Timers are recorded, never waited for: a test fires them explicitly.
"""

from __future__ import annotations

import secrets
from collections import deque
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.config import TableConfig
from protocol.events import Blamed, Halted, TimerRequest, YourMove
from protocol.session import Session
from skyjo_p2p.bots import make_bot

Filter = Callable[[int, int, bytes], list[bytes]]
"""(sender seat, receiver seat, frame) -> the frames actually delivered (default: [frame])."""


def make_table(
    game: str, players: int, options: dict[str, Any] | None = None, seed: bytes | None = None
) -> tuple[TableConfig, list[Ed25519PrivateKey]]:
    keys = [Ed25519PrivateKey.generate() for _ in range(players)]
    config = TableConfig(
        session_id=seed or secrets.token_bytes(32),
        game=game,
        players=players,
        identities=tuple(k.public_key().public_bytes_raw() for k in keys),
        options=options or {},
        names=tuple(f"p{s}" for s in range(players)),
    )
    return config, keys


class Net:
    def __init__(
        self,
        game: str = "skyjo",
        players: int = 2,
        options: dict[str, Any] | None = None,
        bots: list[str] | None = None,
        observers: int = 0,
        session_factory: Callable[[TableConfig, int, Ed25519PrivateKey], Session] | None = None,
    ) -> None:
        self.config, self.keys = make_table(game, players, options)
        factory = session_factory or (lambda c, s, k: Session(c, s, k))
        self.sessions = [factory(self.config, s, self.keys[s]) for s in range(players)]
        self.observers = [Session(self.config, None, None) for _ in range(observers)]
        levels = bots or ["greedy"] * players
        self.bots = [make_bot(level, game, f"net:{s}") for s, level in enumerate(levels)]
        self.events: list[list[Any]] = [[] for _ in range(players)]
        self.timers: list[list[TimerRequest]] = [[] for _ in range(players)]
        self.filter: Filter | None = None
        self.silent: set[int] = set()
        self.queue: deque[tuple[int, int, bytes]] = deque()
        self.delivered = 0
        self.bytes = 0
        self.moves = 0

    def start(self) -> None:
        for session in self.sessions:
            session.start()
        self.pump()

    def _collect(self) -> None:
        for seat, session in enumerate(self.sessions):
            for frame in session.data_to_send():
                if seat in self.silent:
                    continue
                for other in range(len(self.sessions)):
                    if other != seat:
                        self.queue.append((seat, other, frame))
                for observer in self.observers:
                    observer.receive_frame(frame)
            for event in session.next_events():
                self.events[seat].append(event)
                if isinstance(event, TimerRequest):
                    self.timers[seat].append(event)

    def pump(self, max_frames: int = 2_000_000) -> None:
        """Deliver frames until nothing moves; bots play whenever their seat may."""
        while True:
            self._collect()
            while self.queue:
                sender, receiver, frame = self.queue.popleft()
                frames = self.filter(sender, receiver, frame) if self.filter else [frame]
                for delivered in frames:
                    self.delivered += 1
                    self.bytes += len(delivered)
                    self.sessions[receiver].receive_frame(delivered)
                if self.delivered > max_frames:
                    raise RuntimeError("too many frames: the table does not settle")
                self._collect()
            if not self._bots_play():
                return

    def _bots_play(self) -> bool:
        played = False
        for seat, session in enumerate(self.sessions):
            if seat in self.silent or session.halted or session.state is None:
                continue
            if session.legal_moves() and any(isinstance(e, YourMove) for e in self.events[seat][-6:]):
                move = self.bots[seat].choose(session.state, seat)
                session.submit_move(move)
                self.moves += 1
                played = True
        return played

    def run_game(self) -> None:
        self.start()
        self.pump()

    def blamed(self, seat: int | None = None) -> list[Blamed]:
        out = []
        for index, events in enumerate(self.events):
            if seat is None or index == seat:
                out.extend(e for e in events if isinstance(e, Blamed))
        return out

    def halted(self, seat: int) -> list[Halted]:
        return [e for e in self.events[seat] if isinstance(e, Halted)]
