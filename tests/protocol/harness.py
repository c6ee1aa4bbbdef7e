"""An in-memory table of sessions joined by byte pipes, for tests and benchmarks.

Every frame a session emits is delivered to every other session (optionally through a filter
that lets a test drop, delay, tamper with or replay frames). Bots choose moves from each
session's own view. Timers are recorded, never waited for: a test fires them explicitly
(`fire_timers`). For attacks: `TamperingSession` is a peer whose outgoing messages a test
rewrites before they are signed (a cheater whose own chain stays consistent); `forge` re-signs a
frame with changed fields; `Fork` is a filter by which a seat equivocates; `withhold` makes a seat
stop sending from some frame on; `clone` copies a whole table, so many attacks can start from
one expensive point of a game (after the deal, say).
"""

from __future__ import annotations

import copy
import secrets
from collections import deque
from collections.abc import Callable
from typing import Any

import msgpack  # type: ignore[import-untyped]
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.config import TableConfig
from protocol.events import Blamed, FrameRejected, Halted, TimerRequest, YourMove
from protocol.messages import Envelope, open_frame, seal
from protocol.session import Session
from skyjo_p2p.bots import make_bot

Filter = Callable[[int, int, bytes], list[bytes]]
"""(sender seat, receiver seat, frame) -> the frames actually delivered (default: [frame])."""

Tamper = Callable[[Session, str, dict[str, Any]], dict[str, Any]]
"""(the cheating session, message kind, data it is about to sign) -> the data it signs instead."""


class TamperingSession(Session):
    """A peer that rewrites some of its own messages before signing them.

    Its hash chain stays consistent (it signs what it sends), so what the others see is exactly
    a seat that *chose* to send that content: the faults it commits are attributable to it.
    `tamper` may be set or changed at any point (None: behave honestly).
    """

    def __init__(
        self,
        config: TableConfig,
        seat: int,
        identity: Ed25519PrivateKey,
        tamper: Tamper | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(config, seat, identity, **kwargs)
        self.tamper = tamper

    def _emit(self, kind: str, data: dict[str, Any]) -> Envelope:
        if self.tamper is not None:
            data = self.tamper(self, kind, data)
        return super()._emit(kind, data)


def cheater(
    seat: int, tamper: Tamper | None = None
) -> Callable[[TableConfig, int, Ed25519PrivateKey], Session]:
    """A `session_factory` that makes `seat` a `TamperingSession` and every other seat honest."""

    def factory(config: TableConfig, s: int, key: Ed25519PrivateKey) -> Session:
        return TamperingSession(config, s, key, tamper) if s == seat else Session(config, s, key)

    return factory


def frame_kind(frame: bytes) -> str:
    """The kind of a frame, read without any check (for test bookkeeping only)."""
    body = msgpack.unpackb(msgpack.unpackb(frame)[0])
    return str(body["kind"])


def forge(
    config: TableConfig,
    key: Ed25519PrivateKey,
    frame: bytes,
    *,
    seq: int | None = None,
    prev: bytes | None = None,
    kind: str | None = None,
    data: dict[str, Any] | None = None,
) -> bytes:
    """Re-sign one of a seat's frames (with that seat's key) with some fields changed."""
    old = open_frame(frame, config)
    return seal(
        config,
        key,
        old.seat,
        old.seq if seq is None else seq,
        old.prev if prev is None else prev,
        old.kind if kind is None else kind,
        old.data if data is None else data,
    ).frame


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
        self.observer_events: list[list[Any]] = [[] for _ in range(observers)]
        levels = bots or ["greedy"] * players
        self.bots = [make_bot(level, game, f"net:{s}") for s, level in enumerate(levels)]
        self.events: list[list[Any]] = [[] for _ in range(players)]
        self.timers: list[list[TimerRequest]] = [[] for _ in range(players)]
        self.filter: Filter | None = None
        self.silent: set[int] = set()
        self.withhold: Callable[[int, bytes], bool] | None = None
        """(seat, frame) -> True if that frame goes nowhere (not to peers, not to observers)."""
        self.queue: deque[tuple[int, int, bytes]] = deque()
        self.sent: list[tuple[int, bytes]] = []
        """Every frame each session emitted, in order, as (seat, frame) (silent seats' included)."""
        self._sent_kinds: set[tuple[int, str]] = set()
        self.delivered = 0
        self.bytes = 0
        self.moves = 0

    def clone(self) -> Net:
        """An independent copy of the whole table (sessions, queued frames, events, bots)."""
        return copy.deepcopy(self)

    def set_tamper(self, seat: int, tamper: Tamper | None) -> None:
        """Make `seat` (built as a `TamperingSession`, see `cheater`) rewrite its messages from now on."""
        session = self.sessions[seat]
        assert isinstance(session, TamperingSession)
        session.tamper = tamper

    def has_sent(self, seat: int, kind: str) -> bool:
        """Whether `seat` has emitted a frame of `kind` (whether or not it was delivered yet)."""
        return (seat, kind) in self._sent_kinds

    def start(self, until: Callable[[], bool] | None = None) -> None:
        for session in self.sessions:
            session.start()
        self.pump(until=until)

    def _collect(self) -> None:
        for seat, session in enumerate(self.sessions):
            for frame in session.data_to_send():
                self.sent.append((seat, frame))
                self._sent_kinds.add((seat, frame_kind(frame)))
                if seat in self.silent or (self.withhold is not None and self.withhold(seat, frame)):
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
        for index, observer in enumerate(self.observers):
            self.observer_events[index].extend(observer.next_events())

    def pump(
        self, max_frames: int = 2_000_000, until: Callable[[], bool] | None = None, play: bool = True
    ) -> None:
        """Deliver frames until nothing moves; bots play whenever their seat may (unless `play`
        is False: then only the frames already on their way are delivered, and their answers).

        With `until`, stop as soon as it returns True (checked after every delivery); frames
        still queued stay queued for the next `pump`.
        """
        while True:
            self._collect()
            if until is not None and until():
                return
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
                if until is not None and until():
                    return
            if not play or not self._bots_play():
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

    def rejected(self, seat: int) -> list[FrameRejected]:
        return [e for e in self.events[seat] if isinstance(e, FrameRejected)]

    def fire_timers(
        self, seats: list[int] | None = None, prefix: str = "", until: Callable[[], bool] | None = None
    ) -> None:
        """Let every timer the given (default: all non-silent) seats asked for run out, then pump;
        again while that makes them ask for more timers (a timer may be asked for twice).

        Each request whose name starts with `prefix` fires once, in request order. A session
        ignores a timer for something it no longer waits for, as it would in real time.
        Observers' timers fire too. `until` is passed on to `pump` (and ends the firing).
        """
        chosen = [s for s in range(len(self.sessions)) if s not in self.silent] if seats is None else seats
        fired = [0] * len(self.sessions)
        fired_observer = [0] * len(self.observers)
        for _ in range(20):
            progress = False
            for seat in chosen:
                while fired[seat] < len(self.timers[seat]):
                    timer = self.timers[seat][fired[seat]]
                    fired[seat] += 1
                    if timer.name.startswith(prefix):
                        self.sessions[seat].timer_expired(timer.name)
                        progress = True
            for index, observer in enumerate(self.observers):
                requests = [e for e in self.observer_events[index] if isinstance(e, TimerRequest)]
                while fired_observer[index] < len(requests):
                    timer = requests[fired_observer[index]]
                    fired_observer[index] += 1
                    if timer.name.startswith(prefix):
                        observer.timer_expired(timer.name)
                        progress = True
            self.pump(until=until)
            if not progress or (until is not None and until()):
                return


def honest_seats(net: Net, culprit: int) -> list[int]:
    return [s for s in range(len(net.sessions)) if s != culprit]


def assert_blamed(net: Net, culprit: int, reason: str = "", *, timers: bool = True) -> list[Blamed]:
    """Every honest peer (and observer) blamed `culprit` and nobody else, and halted.

    With `timers`, every timer the honest peers asked for is then let run out (time passes): an
    honest peer must not be blamed later because another honest peer stopped. Returns the honest
    peers' `Blamed` events.
    """
    if timers:
        net.fire_timers(honest_seats(net, culprit))
    found: list[Blamed] = []
    for seat in honest_seats(net, culprit):
        blamed = net.blamed(seat)
        assert blamed, f"seat {seat} blamed nobody"
        assert {b.seat for b in blamed} == {culprit}, (
            f"seat {seat} blamed {[(b.seat, b.reason) for b in blamed]}"
        )
        assert any(reason in b.reason for b in blamed), [b.reason for b in blamed]
        assert net.sessions[seat].halted is not None and net.halted(seat), f"seat {seat} did not halt"
        found.extend(blamed)
    for observer in net.observers:
        assert observer.blamed and {b.seat for b in observer.blamed} == {culprit}, observer.blamed
    return found


class Fork:
    """A `Net.filter` by which seat `culprit` equivocates: `victim` gets other frames than the rest.

    The first frame of `culprit` for which `change(envelope)` returns new data is replaced, for
    `victim` only, by a validly signed frame with the same sequence number and that data. With
    `consistent`, every later frame to `victim` is re-signed to chain on the forked one (the
    victim sees a well-formed chain: only echoes can expose the fork); otherwise the later frames
    go out unchanged (the victim's copy of the chain breaks after the fork).
    """

    def __init__(
        self,
        net: Net,
        culprit: int,
        victim: int,
        change: Callable[[Envelope], dict[str, Any] | None],
        consistent: bool = True,
    ) -> None:
        self.net = net
        self.culprit = culprit
        self.victim = victim
        self.change = change
        self.consistent = consistent
        self.forked: tuple[bytes, bytes] | None = None
        """(what the others got, what the victim got) at the fork."""
        self._prev: bytes | None = None

    def __call__(self, sender: int, receiver: int, frame: bytes) -> list[bytes]:
        if sender != self.culprit or receiver != self.victim:
            return [frame]
        config, key = self.net.config, self.net.keys[self.culprit]
        envelope = open_frame(frame, config)
        if self._prev is None:
            data = self.change(envelope)
            if data is None:
                return [frame]
            forged = seal(config, key, envelope.seat, envelope.seq, envelope.prev, envelope.kind, data)
            self.forked = (frame, forged.frame)
        elif self.consistent:
            forged = seal(config, key, envelope.seat, envelope.seq, self._prev, envelope.kind, envelope.data)
        else:
            return [frame]
        self._prev = forged.digest
        return [forged.frame]
