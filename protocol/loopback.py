"""One in-memory driver for a table of sessions: tests, benchmarks and the test vectors.

`Loopback` joins N `Session`s (and any observers) by in-memory links, sans-IO: no sockets, no
event loop, no real clock. Every frame a seat emits goes to every other seat, in FIFO order
(`clock=False`) or on a simulated clock (`clock=True`: each seat has its own clock, advanced by
the CPU its calls take when metered and by `latency` per hop; a frame is delivered at the
sender's clock when it was sent plus `latency`, and with `timeouts` a `TimerRequest` runs out at
the seat's clock plus its seconds). Bots (skyjo_p2p) play the seats that are asked to move.

A stand-alone acknowledgement's timer (`ack:<n>`, see `Session`) is not a timeout: it always runs
out. FIFO mode: when nothing is in flight, each seat's latest one, in seat order (so a game ends
the same way every time). Clock mode: at its time; with `bots_first`, a bot asked to move moves
before a pending acknowledgement timer runs out (players quicker than the delay), otherwise only
once nothing else is pending (players who think longer than it).

Hooks, all optional and changeable at any point:
* `route(sender, receiver, frame) -> frames`: what is delivered in place of one frame in flight
  (drop: `[]`, alter, duplicate, reorder by holding it back; to redirect it, `put` it on
  another link and return `[]`);
* `withhold(seat, frame) -> bool` and `silent`: a seat's frame goes nowhere (nor to observers);
* `meter`: a time function (`time.process_time`) read around every call into a session: `cpu`
  per seat and `cpu_by_kind` (what handling each kind of received frame cost);
* subclasses override `call` (every call into a session goes through it), `send`, `on_event`,
  `collected` and `wants_move`.

Randomness is the sessions' own: an optional random source per peer is passed to each session
(`seats(config, keys, rng=[source of seat 0, source of seat 1, ...])`), none by default (the
`secrets` module).
"""

from __future__ import annotations

import heapq
import secrets
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.config import TableConfig
from protocol.events import Blamed, Halted, MoveRefused, SessionEvent, TimerRequest, YourMove
from protocol.messages import peek_kind
from protocol.session import Session
from skyjo_p2p.bots import make_bot
from skyjo_p2p.bots.base import Bot

T = TypeVar("T")

Route = Callable[[int, int, bytes], list[bytes]]
"""(sender seat, receiver seat, frame) -> the frames actually delivered to that receiver."""

SessionFactory = Callable[[TableConfig, int, Ed25519PrivateKey], Session]
"""Builds seat s's session from the table, the seat and its identity key."""


class TableStopped(RuntimeError):
    """A seat blamed someone or halted at a table run with `strict` (an honest table)."""


def frame_kind(frame: bytes) -> str:
    """The kind of a frame, read without any check (for bookkeeping only)."""
    return peek_kind(frame)


def _kind_or_junk(frame: bytes) -> str:
    try:
        return frame_kind(frame)
    except Exception:  # a tampered frame in flight need not parse
        return "(junk)"


def make_table(
    game: str,
    players: int,
    options: dict[str, Any] | None = None,
    *,
    session_id: bytes | None = None,
    keys: Sequence[Ed25519PrivateKey] | None = None,
    names: Sequence[str] | None = None,
    table: dict[str, Any] | None = None,
) -> tuple[TableConfig, list[Ed25519PrivateKey]]:
    """A table and its seats' identity keys (fresh ones, and a fresh session id, unless given).

    The keys are drawn before the session id (a test that seeds both relies on that order).
    """
    identities = list(keys) if keys is not None else [Ed25519PrivateKey.generate() for _ in range(players)]
    config = TableConfig(
        session_id=session_id or secrets.token_bytes(32),
        game=game,
        players=players,
        identities=tuple(k.public_key().public_bytes_raw() for k in identities),
        options=options or {},
        names=tuple(names) if names is not None else tuple(f"p{s}" for s in range(players)),
        table=table or {},
    )
    return config, identities


def seats(
    config: TableConfig,
    keys: Sequence[Ed25519PrivateKey],
    factory: SessionFactory | None = None,
    **kwargs: Any,
) -> list[Session]:
    """One session per seat: `factory(config, seat, key)`, or `Session(config, seat, key,
    **kwargs)` (a random source per seat, timeouts, ...: kwargs whose value is a list are taken
    per seat, e.g. `rng=[stream0, stream1]`)."""
    if factory is not None:
        return [factory(config, s, keys[s]) for s in range(config.players)]
    out = []
    for s in range(config.players):
        own = {k: (v[s] if isinstance(v, list) else v) for k, v in kwargs.items()}
        out.append(Session(config, s, keys[s], **own))
    return out


def bots_for(game: str, levels: Sequence[str], seed: str) -> list[Bot | None]:
    """Bots of the given levels for each seat, seeded `f"{seed}:{seat}"`."""
    return [make_bot(level, game, f"{seed}:{s}") for s, level in enumerate(levels)]


class Loopback:
    """N sessions joined in memory (see the module's docstring)."""

    def __init__(
        self,
        sessions: Sequence[Session],
        bots: Sequence[Bot | None] | None = None,
        *,
        observers: Sequence[Session] = (),
        clock: bool = False,
        latency: float = 0.0,
        timeouts: bool = False,
        meter: Callable[[], float] | None = None,
        bots_first: bool = False,
        strict: bool = False,
        sweep: bool = False,
        keep_sent: bool = False,
        max_frames: int = 2_000_000,
    ) -> None:
        self.sessions = list(sessions)
        self.players = len(self.sessions)
        self.bots: list[Bot | None] = list(bots) if bots is not None else [None] * self.players
        self.observers = list(observers)
        self.clock_mode = clock
        self.latency = latency
        """Simulated one-way delay of every frame, in seconds (clock mode)."""
        self.timeouts = timeouts
        """Clock mode: a `TimerRequest` runs out by itself at the seat's clock plus its seconds."""
        self.meter = meter
        self.bots_first = bots_first
        """Clock mode: bots move before a pending acknowledgement timer runs out."""
        self.ack_timers: dict[int, str] = {}
        """FIFO mode: each seat's latest acknowledgement timer not run out yet."""
        self.strict = strict
        self.sweep = sweep
        """After every delivery collect every session, not only the receiver (a test may call
        into any session between deliveries)."""
        self.max_frames = max_frames
        self.route: Route | None = None
        self.withhold: Callable[[int, bytes], bool] | None = None
        """(seat, frame) -> True if that frame goes nowhere (not to peers, not to observers)."""
        self.silent: set[int] = set()
        """Seats whose frames go nowhere and whose bots do not play."""
        self.queue: deque[tuple[int, int, bytes]] = deque()
        """FIFO mode: the frames in flight, as (sender, receiver, frame)."""
        self._heap: list[tuple[float, int, int, int, bytes | str]] = []
        """Clock mode: (when, order, sender or -1 for a timer, receiver, frame or timer name)."""
        self._order = 0
        self.in_flight = [0] * self.players
        self.events: list[list[SessionEvent]] = [[] for _ in range(self.players)]
        self.observer_events: list[list[SessionEvent]] = [[] for _ in self.observers]
        self.timers: list[list[TimerRequest]] = [[] for _ in range(self.players)]
        self.want_move = [False] * self.players
        self.sent: list[tuple[int, bytes]] | None = [] if keep_sent else None
        """With `keep_sent`: every frame each session emitted, in order, as (seat, frame)."""
        self.sent_kinds: set[tuple[int, str]] = set()
        self.frames_sent: Counter[str] = Counter()
        self.frames_delivered: Counter[str] = Counter()
        self.bytes_delivered: Counter[str] = Counter()
        self.delivered = 0
        self.delivered_bytes = 0
        self.moves = 0
        self.cpu = [0.0] * self.players
        self.clock = [0.0] * self.players
        self.cpu_by_kind: defaultdict[str, float] = defaultdict(float)
        """Metered: CPU of handling a received frame (and all it triggers), by the frame's kind;
        "(start)" and "(submit_move)" for those calls."""

    # --- calls into sessions ------------------------------------------------------------------

    def call(self, seat: int, fn: Callable[..., T], *args: Any) -> T:
        """Call `fn(*args)` on behalf of `seat` (metered: its CPU counted, its clock advanced)."""
        if self.meter is None:
            return fn(*args)
        start = self.meter()
        result = fn(*args)
        spent = self.meter() - start
        self.cpu[seat] += spent
        self.clock[seat] += spent
        return result

    def collect(self, seat: int) -> None:
        """Take what `seat` has to send and its events."""
        session = self.sessions[seat]
        for frame in self.call(seat, session.data_to_send):
            self.send(seat, frame)
        for event in self.call(seat, session.next_events):
            self.on_event(seat, event)
        self.collected(seat)
        self._collect_observers()

    def collect_all(self) -> None:
        for seat in range(self.players):
            self.collect(seat)

    def _collect_observers(self) -> None:
        for index, observer in enumerate(self.observers):
            self.observer_events[index].extend(observer.next_events())

    def send(self, seat: int, frame: bytes) -> None:
        """One frame `seat` emitted: to every other seat and to the observers."""
        kind = frame_kind(frame)
        self.frames_sent[kind] += 1
        self.sent_kinds.add((seat, kind))
        if self.sent is not None:
            self.sent.append((seat, frame))
        if seat in self.silent or (self.withhold is not None and self.withhold(seat, frame)):
            return
        for other in range(self.players):
            if other != seat:
                self.put(seat, other, frame)
        for observer in self.observers:
            observer.receive_frame(frame)

    def put(self, sender: int, receiver: int, frame: bytes) -> None:
        """Put one frame on the link from `sender` to `receiver`."""
        self.in_flight[receiver] += 1
        if self.clock_mode:
            self._push(self.clock[sender] + self.latency, sender, receiver, frame)
        else:
            self.queue.append((sender, receiver, frame))

    def _push(self, when: float, sender: int, receiver: int, item: bytes | str) -> None:
        self._order += 1
        heapq.heappush(self._heap, (when, self._order, sender, receiver, item))

    def on_event(self, seat: int, event: SessionEvent) -> None:
        """One event of a seat's session: recorded; a timer noted; a move wanted."""
        self.events[seat].append(event)
        if isinstance(event, TimerRequest):
            self.timers[seat].append(event)
            acknowledgement = event.name.startswith("ack:")
            if self.clock_mode and (self.timeouts or acknowledgement):
                self._push(self.clock[seat] + event.seconds, -1, seat, event.name)
            elif acknowledgement:
                self.ack_timers[seat] = event.name
        elif isinstance(event, YourMove | MoveRefused):
            self.want_move[seat] = True
        elif self.strict and isinstance(event, Blamed | Halted):
            raise TableStopped(f"seat {seat + 1}: {event}")

    def collected(self, seat: int) -> None:
        """Called after each `collect(seat)` (a hook for subclasses)."""

    # --- running --------------------------------------------------------------------------------

    def start(self, until: Callable[[], bool] | None = None, bots: bool = True) -> None:
        """Start every session, then `run`."""
        for seat, session in enumerate(self.sessions):
            before = self.cpu[seat]
            self.call(seat, session.start)
            self.collect(seat)
            self.cpu_by_kind["(start)"] += self.cpu[seat] - before
        self.run(until=until, bots=bots)

    def pending(self) -> bool:
        """Whether anything is in flight (or, in clock mode, a timer is set)."""
        return bool(self._heap) if self.clock_mode else bool(self.queue)

    def _acknowledge(self) -> bool:
        """FIFO mode, nothing in flight: run out each seat's acknowledgement timer (seat order)."""
        fired = False
        for seat in sorted(self.ack_timers):
            name = self.ack_timers.pop(seat)
            if self.sessions[seat].timer_needed(name):
                self.call(seat, self.sessions[seat].timer_expired, name)
                self.collect(seat)
                fired = True
        return fired

    def _bot_waits(self) -> bool:
        """Clock mode with `bots_first`: the next item is an acknowledgement timer and a bot may
        move (it moves first)."""
        if not self.bots_first or not self._heap:
            return False
        item = self._heap[0][4]
        return (
            isinstance(item, str)
            and item.startswith("ack:")
            and any(map(self.wants_move, range(self.players)))
        )

    def step(self) -> bool:
        """Deliver the next frame (or run out the next timer); False if nothing is pending."""
        if self.clock_mode:
            if not self._heap or self._bot_waits():
                return False
            when, _, sender, receiver, item = heapq.heappop(self._heap)
            self.clock[receiver] = max(self.clock[receiver], when)
            if isinstance(item, str):
                self.call(receiver, self.sessions[receiver].timer_expired, item)
                self.collect(receiver)
                return True
            frame = item
        elif self.queue:
            sender, receiver, frame = self.queue.popleft()
        else:
            return self._acknowledge()
        self.in_flight[receiver] -= 1
        frames = self.route(sender, receiver, frame) if self.route is not None else [frame]
        before = self.cpu[receiver]
        session = self.sessions[receiver]
        for delivered in frames:
            kind = _kind_or_junk(delivered)
            self.delivered += 1
            self.delivered_bytes += len(delivered)
            self.frames_delivered[kind] += 1
            self.bytes_delivered[kind] += len(delivered)
            self.call(receiver, session.receive_frame, delivered)
        if self.delivered > self.max_frames:
            raise RuntimeError("too many frames: the table does not settle")
        if self.sweep:
            self.collect_all()
        else:
            self.collect(receiver)
        self.cpu_by_kind[_kind_or_junk(frame)] += self.cpu[receiver] - before
        return True

    def run(self, until: Callable[[], bool] | None = None, bots: bool = True) -> None:
        """Deliver until nothing moves; bots play whenever their seat may (unless `bots` is
        False: then only what is already on its way is delivered, and the answers).

        With `until`, stop as soon as it returns True (checked after every delivery); what is
        still in flight stays there for the next `run`.
        """
        while True:
            self.collect_all()
            if until is not None and until():
                return
            while self.step():
                if until is not None and until():
                    return
            if not bots or not self.play_bots():
                return

    def wants_move(self, seat: int) -> bool:
        """Whether `seat`'s bot moves now: it was asked to and has a legal move."""
        if seat in self.silent or not self.want_move[seat] or self.bots[seat] is None:
            return False
        return bool(self.call(seat, self.sessions[seat].legal_moves))

    def play_bots(self) -> bool:
        """Every seat that `wants_move` submits its bot's move; False if none did."""
        played = False
        for seat, session in enumerate(self.sessions):
            if not self.wants_move(seat):
                continue
            bot, state = self.bots[seat], session.state
            assert bot is not None and state is not None
            self.want_move[seat] = False
            move = bot.choose(state, seat)
            before = self.cpu[seat]
            self.call(seat, session.submit_move, move)
            self.moves += 1
            self.collect(seat)
            self.cpu_by_kind["(submit_move)"] += self.cpu[seat] - before
            played = True
        return played

    def fire_timers(
        self, seats: list[int] | None = None, prefix: str = "", until: Callable[[], bool] | None = None
    ) -> None:
        """Let every timer the given (default: all non-silent) seats asked for run out, then run;
        again while that makes them ask for more timers (a timer may be asked for twice).

        Each request whose name starts with `prefix` fires once, in request order. A session
        ignores a timer for something it no longer waits for, as it would in real time.
        Observers' timers fire too. `until` is passed on to `run` (and ends the firing).
        """
        chosen = [s for s in range(self.players) if s not in self.silent] if seats is None else seats
        fired = [0] * self.players
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
            self.run(until=until)
            if not progress or (until is not None and until()):
                return

    # --- reading the table ------------------------------------------------------------------------

    @property
    def wall_parallel(self) -> float:
        """Clock mode: the simulated time at which the last seat was done."""
        return max(self.clock)

    def has_sent(self, seat: int, kind: str) -> bool:
        """Whether `seat` has emitted a frame of `kind` (whether or not it was delivered yet)."""
        return (seat, kind) in self.sent_kinds

    def blamed(self, seat: int | None = None) -> list[Blamed]:
        """The `Blamed` events of one seat (default: of every seat)."""
        out: list[Blamed] = []
        for index, events in enumerate(self.events):
            if seat is None or index == seat:
                out.extend(e for e in events if isinstance(e, Blamed))
        return out

    def halted(self, seat: int) -> list[Halted]:
        return [e for e in self.events[seat] if isinstance(e, Halted)]


__all__ = [
    "Loopback",
    "Route",
    "SessionFactory",
    "TableStopped",
    "bots_for",
    "frame_kind",
    "make_table",
    "seats",
]
