"""The protocol tests' table: `protocol.loopback.Loopback` with the tests' defaults and attacks.

`Net` is a `Loopback` in FIFO order that keeps every frame sent, collects every session after
each delivery (a test may call into any session between two), records timers without waiting for
them (a test fires them explicitly: `fire_timers`) and lets bots play from each session's own
view. `filter` is the loopback's `route` (drop, delay, tamper with or replay frames in flight).
For attacks: `TamperingSession` is a peer whose outgoing messages a test rewrites before they are
signed (a cheater whose own chain stays consistent); `forge` re-signs a frame with changed fields;
`Fork` is a filter by which a seat equivocates; `withhold` makes a seat stop sending from some
frame on; `clone` copies a whole table, so many attacks can start from one expensive point of a
game (after the deal, say).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.acks import Acknowledgements
from protocol.config import TableConfig
from protocol.events import Blamed, FrameRejected, YourMove
from protocol.loopback import Loopback, bots_for, frame_kind, make_table, seats
from protocol.messages import Ack, Envelope, open_frame, seal
from protocol.session import Session

Filter = Callable[[int, int, bytes], list[bytes]]
"""(sender seat, receiver seat, frame) -> the frames actually delivered (default: [frame])."""

Tamper = Callable[[Session, str, dict[str, Any]], dict[str, Any]]
"""(the cheating session, message kind, data it is about to sign) -> the data it signs instead."""


class _TamperingAcks(Acknowledgements):
    """The acknowledgements every frame of a `TamperingSession` carries go through its `tamper`
    too, as kind "acks"."""

    def __init__(self, session: TamperingSession) -> None:
        super().__init__(session)
        self.session = session

    def pending(self) -> list[Ack]:
        acks = super().pending()
        tamper = self.session.tamper
        if tamper is not None and acks:
            rewritten = tamper(self.session, "acks", {"acks": [list(a) for a in acks]})["acks"]
            acks = [(s, q, d) for s, q, d in rewritten]
        return acks


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
        self.acks = _TamperingAcks(self)

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
        old.acks,
    ).frame


class Net(Loopback):
    """A table of `players` sessions (and `observers`) with bots of the given levels."""

    def __init__(
        self,
        game: str = "skyjo",
        players: int = 2,
        options: dict[str, Any] | None = None,
        bots: list[str] | None = None,
        observers: int = 0,
        session_factory: Callable[[TableConfig, int, Ed25519PrivateKey], Session] | None = None,
        table: dict[str, Any] | None = None,
    ) -> None:
        self.config, self.keys = make_table(game, players, options, table=table)
        super().__init__(
            seats(self.config, self.keys, session_factory),
            bots_for(game, bots or ["greedy"] * players, "net"),
            observers=[Session(self.config, None, None) for _ in range(observers)],
            sweep=True,
            keep_sent=True,
        )

    @property
    def filter(self) -> Filter | None:
        """The loopback's `route`: (sender, receiver, frame) -> the frames delivered."""
        return self.route

    @filter.setter
    def filter(self, value: Filter | None) -> None:
        self.route = value

    @property
    def bytes(self) -> int:
        return self.delivered_bytes

    def clone(self) -> Net:
        """An independent copy of the whole table (sessions, queued frames, events, bots)."""
        return copy.deepcopy(self)

    def set_tamper(self, seat: int, tamper: Tamper | None) -> None:
        """Make `seat` (built as a `TamperingSession`, see `cheater`) rewrite its messages from now on."""
        session = self.sessions[seat]
        assert isinstance(session, TamperingSession)
        session.tamper = tamper

    def wants_move(self, seat: int) -> bool:
        session = self.sessions[seat]
        if seat in self.silent or session.halted or session.state is None:
            return False
        return bool(session.legal_moves()) and any(isinstance(e, YourMove) for e in self.events[seat][-6:])

    def pump(
        self, max_frames: int = 2_000_000, until: Callable[[], bool] | None = None, play: bool = True
    ) -> None:
        """Deliver frames until nothing moves; bots play whenever their seat may (unless `play`
        is False: then only the frames already on their way are delivered, and their answers).

        With `until`, stop as soon as it returns True (checked after every delivery); frames
        still queued stay queued for the next `pump`.
        """
        self.max_frames = max_frames
        self.run(until=until, bots=play)

    def run_game(self) -> None:
        self.start()
        self.pump()

    def rejected(self, seat: int) -> list[FrameRejected]:
        return [e for e in self.events[seat] if isinstance(e, FrameRejected)]


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
            forged = seal(
                config, key, envelope.seat, envelope.seq, envelope.prev, envelope.kind, data, envelope.acks
            )
            self.forked = (frame, forged.frame)
        elif self.consistent:
            forged = seal(
                config,
                key,
                envelope.seat,
                envelope.seq,
                self._prev,
                envelope.kind,
                envelope.data,
                envelope.acks,
            )
        else:
            return [frame]
        self._prev = forged.digest
        return [forged.frame]


__all__ = [
    "Filter",
    "Fork",
    "Net",
    "Tamper",
    "TamperingSession",
    "assert_blamed",
    "cheater",
    "forge",
    "frame_kind",
    "honest_seats",
    "make_table",
]
