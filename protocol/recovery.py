"""Coming back after a crash: a session rebuilt from its saved file, and a lost tail recovered.

A peer that crashed (or whose machine slept, or whose program was killed) resumes from what it
kept on its own disk: the frames of the transcript file and its `secrets` (its ElGamal key share,
the coin contributions it committed to and has not revealed). `restore` feeds every saved frame
back with the jobs paused, then replays the game's order: our own messages come from the file,
never made anew (making one anew would be equivocation), and the first job whose message of ours
is missing makes it now.

The file may also have lost its tail (a disk that acknowledged a write it never made, a backup,
a dead battery), while the others hold frames of ours it lacks. Then `Recovery` keeps the session
from signing anything until every other seat said how much of our chain it holds
(`Recovery.peer_holds`, from the link's handshake) and we hold as much (the others answer with
`Session.chain_frames`), or a `recover` timer ran out with no seat holding more (PROTOCOL.md
10.10). Signing before that could give a sequence number two different frames.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from . import crypto, takeover
from .acks import Acknowledgements
from .ballots import Held
from .chains import Chain
from .crypto.group import encode_scalar
from .events import Blamed, FrameRejected, Halted, Left, SessionEvent, TableSilent, TimerRequest
from .insurance import SeatInsurance
from .messages import Envelope
from .relays import Relays

RECOVER = "recover"
"""The name of the timer that ends the wait for the others' word on our chain (10.10)."""
SILENT_RECOVER_WAITS = 12
"""How many `recover` timers in a row may run out with no other seat heard at all since the
restore before we stop, signing nothing (`Recovery.gave_up`): twelve half-graces, six graces, are
longer than any outage the table itself rides out, so a program started again before its network
came back (a power cut that restarted the router too) still finds the others."""


class Finishing(Protocol):
    """What `Recovery.file_finishes` reads of a session rebuilt apart from our saved file."""

    @property
    def settled(self) -> bool: ...

    def data_to_send(self) -> list[bytes]: ...


class RecoveryContext(Protocol):
    """What the recovery reads and changes of its session (the narrow interface, as
    `protocol.jobs.JobContext` is the jobs')."""

    me: int | None
    players: int
    step_timeout: float
    replaying: bool
    max_ahead_frames: int
    max_ahead_bytes: int
    chains: list[Chain]
    acks: Acknowledgements
    stand_ins: dict[int, takeover.StandIn]
    relays: Relays

    def append(self, envelope: Envelope) -> None: ...

    def advance(self) -> None: ...

    def report(self, event: SessionEvent) -> None: ...

    def halt(self, reason: str, *, announce: bool = ...) -> None: ...


class Recovery:
    """The wait for the frames of our own chain that the others hold beyond our saved file."""

    def __init__(self, session: RecoveryContext) -> None:
        self._session = session
        self.active = False
        """Our own frames beyond what our saved file held may be held by the others (a lost
        tail): nothing of ours is signed until they are back."""
        self._holds: dict[int, int] = {}
        """seat -> how many frames of our chain it holds (`peer_holds`)."""
        self._silent = 0
        """`recover` timers run out in a row with no other seat heard since the restore."""
        self.alone: Callable[[], Finishing] | None = None
        """A session rebuilt apart from our saved file alone (`Session.restore` sets it)."""
        self._finishes: bool | None = None
        self.gave_up = False
        """We stopped, having heard no other seat for `SILENT_RECOVER_WAITS` timers (nothing
        signed: the saved file can be resumed again once the others are back)."""

    def begin(self) -> None:
        """Start waiting for the others' word on our chain (a resume that may have lost a tail)."""
        self.active = True
        self._session.report(TimerRequest(RECOVER, self._session.step_timeout))

    def peer_holds(self, seat: int, count: int) -> None:
        """`seat` holds the first `count` frames of our chain (the driver's link said so). When
        every other seat still playing said it and we hold as much, we go on."""
        session = self._session
        if not self.active or session.me is None or seat == session.me or not 0 <= seat < session.players:
            return
        self._holds[seat] = max(self._holds.get(seat, 0), count)
        self._done(timer=False)

    def missing_own(self) -> int | None:
        """The first frame of ours to ask the others for, if one of them said it holds more of
        our chain than we do; None otherwise (or when not recovering)."""
        me = self._session.me
        if not self.active or me is None:
            return None
        ours = self._session.chains[me].next_seq
        return ours if any(count > ours for count in self._holds.values()) else None

    def own_frame(self, envelope: Envelope) -> None:
        """A frame of ours the others held beyond our saved file (its signature is checked):
        taken in as one read back from the file, and recorded by the driver like any accepted
        frame."""
        session = self._session
        chain = session.chains[envelope.seat]
        if envelope.seq > chain.next_seq:
            chain.hold_ahead(envelope, session.max_ahead_frames, session.max_ahead_bytes)
            return
        outer, session.replaying = session.replaying, True
        try:
            session.append(envelope)
            for waiting in chain.take_ahead():
                session.append(waiting)
        finally:
            session.replaying = outer
        self._done(timer=False)

    def timer(self) -> None:
        """The `recover` timer ran out: go on unless a seat holds frames of ours still on their
        way, or no other seat was heard at all since the restore (then wait once more; after
        `SILENT_RECOVER_WAITS` silent timers, stop without signing anything)."""
        if not self.active:
            return
        self._done(timer=True)
        if self.active:
            self._session.report(TimerRequest(RECOVER, self._session.step_timeout))

    def file_finishes(self) -> bool:
        """Whether our saved file alone takes the game to its end with nothing more of ours to
        sign: a session rebuilt apart from it (`alone`) is settled and made no frame. Then going
        on signs nothing, and a restart that hears nobody (the others finished and left) ends
        the game as its file does. Asked once, the first time a `recover` timer runs out with
        nobody heard (the file is played a second time only then)."""
        if self._finishes is None:
            scratch = self.alone() if self.alone is not None else None
            self._finishes = scratch is not None and scratch.settled and not scratch.data_to_send()
            self.alone = None  # (the file's frames are not kept any longer)
        return self._finishes

    def _done(self, timer: bool) -> None:
        session = self._session
        assert session.me is not None
        ours = session.chains[session.me].next_seq
        if any(count > ours for count in self._holds.values()):
            return  # a seat holds frames of ours we lack: they come first
        waited = [s for s in range(session.players) if s != session.me and s not in session.stand_ins]
        if not timer and any(s not in self._holds for s in waited):
            return
        if timer and waited and not any(s in self._holds for s in waited) and not self.file_finishes():
            # nobody at all answered since the restore (our links are down, most likely): going
            # on would sign anew the frames a lost tail held, which the others may hold in
            # their first version (two frames with one number: an honest player named a cheat);
            # and with nobody there, going on could not move the game anyway
            self._silent += 1
            session.report(TableSilent(tuple(waited)))
            if self._silent >= SILENT_RECOVER_WAITS:
                self.active, self.gave_up, self.alone = False, True, None
                session.halt(
                    "nobody at the table answered since this program started again: stopped "
                    "without signing anything (--resume once the others are back)",
                    announce=False,
                )
            return
        self.active, self.alone = False, None  # (the file's frames are not kept any longer)
        session.relays.flush_deferred()
        session.advance()
        session.acks.arm_timer()


class Restorable(Protocol):
    """What `restore` and `secrets_of` read and set of a session being brought back."""

    secret: int | None
    my_public_key: crypto.Point | None
    jobs_paused: bool
    replaying: bool
    halted: str | None
    chains: list[Chain]
    acks: Acknowledgements
    insurance: SeatInsurance
    recovery: Recovery
    relays: Relays

    @property
    def settled(self) -> bool: ...

    def coin_secrets(self) -> dict[int, crypto.CoinContribution]: ...

    def keep_coin_secret(self, number: int, contribution: crypto.CoinContribution) -> None: ...

    def receive_frame(self, frame: bytes) -> None: ...

    def next_events(self) -> list[SessionEvent]: ...

    def report(self, event: SessionEvent) -> None: ...

    def advance(self) -> None: ...


def chain_frames(chains: list[Chain], seat: int, start: int, most: int = 256) -> list[bytes]:
    """The frames of `seat`'s chain held from `start` on (at most `most`): what a seat recovering
    a lost tail of its own file asks the others for (`Session.chain_frames`)."""
    if not 0 <= seat < len(chains):
        return []
    chain = chains[seat]
    out: list[bytes] = []
    for seq in range(max(0, start), min(chain.next_seq, max(0, start) + most)):
        out.extend(chain.first_version(seq)[:1])
    return out


def secrets_of(session: Restorable) -> dict[str, Any]:
    """What a peer must keep on its own disk to resume (see `Session.secrets`)."""
    out: dict[str, Any] = {}
    if session.secret is not None and session.my_public_key is not None:
        out["x"] = encode_scalar(session.secret)
        out["X"] = bytes(session.my_public_key)
    coins = session.coin_secrets()
    if coins:
        out["coins"] = {number: list(c.to_wire()) for number, c in coins.items()}
    return out


def restore(
    session: Restorable,
    saved: dict[str, Any],
    frames: Iterable[bytes],
    recover: bool,
    decided: dict[int, tuple[int, Held]] | None = None,
) -> None:
    """Bring a new `session` of the crashed seat to where its saved file and `saved` secrets
    left it (see `Session.restore`).

    `decided`: for a session the table `Rewound` (it played on, cut off, beyond what the table
    counted), the decisions about our own program the old session reached. The file holds the
    votes, but read back with the jobs paused, a vote can be judged before the game reaches the
    turn that makes it count (one of a seat that came back after the table played it: its
    votes count from its return on, which the jobs reach only later); the decision would then
    stay open, and an open vote about us holds every job back (`SeatInsurance.paused`): the
    rebuilt session would never catch up."""
    if "x" in saved:
        session.secret = crypto.decode_scalar(saved["x"])
        session.my_public_key = crypto.decode_point(saved["X"])
    for number, wire in dict(saved.get("coins", {})).items():
        session.keep_coin_secret(int(number), crypto.CoinContribution.from_wire(wire))
    session.jobs_paused = True
    session.replaying = True
    try:
        for frame in frames:
            session.receive_frame(frame)
        for owner, (number, counted) in (decided or {}).items():
            session.insurance.known_decision(owner, number, counted)
    finally:
        session.replaying = False
        session.jobs_paused = False
    # what replaying the file reported is old news, but for the verdicts it reached
    kept = [e for e in session.next_events() if isinstance(e, Blamed | Left | Halted | FrameRejected)]
    for event in kept:
        session.report(event)
    session.insurance.resumed()
    session.insurance.catching_up = True
    session.insurance.read_back = [chain.next_seq for chain in session.chains]
    if recover and not session.halted and not session.settled:
        session.recovery.begin()
    session.relays.flush_deferred()  # (kept until the recovery ends, if it runs: `Recovery._done`)
    session.advance()
    session.acks.arm_timer()  # what we received but never acknowledged before the crash
