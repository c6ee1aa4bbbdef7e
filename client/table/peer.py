"""A peer at the table: one `Session` driven under trio, with a bot or a person choosing its moves.

`PeerRunner` owns its session. Frames from other peers come in through `deliver` (from whatever
links the program has: in-memory channels for a local table, TCP streams on a LAN); frames the
session produces go to every link through `broadcast`. Heavy work (shuffle proofs take tenths of a
second) runs in a worker thread, one call at a time, so the event loop and the screen stay
responsive. The session's timer requests become trio sleeps.

The terminal UI reads the runner (`view`, `legal_moves`, `log`, `status`, `links`) and calls
`submit_move` / `send_chat`; `changed` is a trio event set whenever something visible changed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import trio

from client.net.mesh import LinkState
from client.table.tablelog import TableLog
from protocol import waiting
from protocol.config import TableConfig
from protocol.errors import RemovalRefused
from protocol.events import (
    AwayChanged,
    Blamed,
    ChatReceived,
    Finished,
    FrameRejected,
    Halted,
    Left,
    MoveRefused,
    RemovalChanged,
    Rewound,
    RoundSigned,
    SeatReturned,
    SeatTakenOver,
    SessionEvent,
    Started,
    TableSilent,
    TimerRequest,
    Updated,
    YourMove,
)
from protocol.session import Session
from skyjo_p2p.bots.base import Bot
from skyjo_p2p.core.errors import IllegalMove
from skyjo_p2p.core.events import Event as EngineEvent
from skyjo_p2p.core.events import Moved, TurnBegan
from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.state import TableState

log = logging.getLogger("skyjo_lan.peer")

_TRACE = os.environ.get("SKYJO_LAN_TRACE")
"""A file to append one line per applied move to (benchmarks/lan.py measures latency with it)."""

Broadcast = Callable[[bytes], Awaitable[None]]
"""Send one frame to every other peer (the links decide how)."""


@dataclass
class LogEntry:
    """One line of the table's history: a fact from the engine, or a message about the game."""

    kind: str
    """"fact" | "chat" | "info" | "blame" | "absent" (stopped answering) | "left" | "away"
    (`text` "away" or "back": autopilot on or off) | "takeover" (`text` "left", "vanished" or
    "stepped out") |
    "returned" (a taken-over seat's player plays it again) | "removal" (a proposal to remove the
    program of `seat`: `text` "open" with `by` the proposer, "removed" or "refused") |
    "no_spare" (after `seat` left, the
    table can no longer play the seat of anyone else whose program stops)."""
    fact: EngineEvent | None = None
    seat: int | None = None
    text: str = ""
    by: int | None = None
    """For "removal": the seat that proposed it."""
    waited: float | None = None
    """For "absent": how long the seat was waited for, in seconds (None: not known here)."""
    no_link: bool = False
    """For "absent": our link to the seat was down when the game stopped."""
    disclosed: int = 0
    unconfirmed: bool = False
    """For "chat": it came after the game's last round signature (or its stop): nothing the table
    acknowledges follows it, so another player may have been shown a different version."""
    """For "takeover": how many of the seat's private cards became public for the bot."""


@dataclass
class PeerStatus:
    started: bool = False
    finished: bool = False
    halted: str | None = None
    waiting_for: tuple[int, ...] = ()
    busy: str | None = None  # "shuffling", "revealing" ... while crypto work runs
    blamed: list[Blamed] = field(default_factory=list)
    left: int | None = None
    """The seat that left the table (its signed leave stopped the game), if one did."""


def warn_before(turn_seconds: float) -> float:
    """Seconds before the end of a move countdown at which the bell rings again: 10, or a third
    of the countdown if that is shorter."""
    return min(10.0, turn_seconds / 3)


class PeerRunner:
    """Drives one session. `policy` is a bot for a headless seat, or None for a person.

    A person's seat at a table with a move countdown (`TableConfig.turn_seconds`) has an
    `autopilot` bot: when the countdown of the person's turn runs out, the runner says so to every
    seat (`Session.set_away`) and the autopilot plays this turn and the next ones, until the person
    is back (`come_back`). The bot and the person never play the same decision: every move is
    submitted under the runner's lock, and the bot asks, under that lock, whether it still plays.
    """

    def __init__(
        self,
        session: Session,
        policy: Bot | None = None,
        *,
        record: Callable[[bytes], None] | None = None,
        sync: Callable[[], None] | None = None,
        think_time: float = 0.0,
        autopilot: Bot | None = None,
        rebuild: Callable[[Session], tuple[Session, int] | None] | None = None,
    ) -> None:
        """`record` appends one frame to the saved game and `sync` forces what was appended to the
        disk; either may raise `OSError` (a full disk): the game then goes on from memory.
        `autopilot`: the bot that plays a person's seat once their countdown has run out.
        `rebuild`: a new session from the saved game and how many of its frames are on disk
        (None if it cannot be done), for when the session says it was `Rewound`."""
        self.session = session
        self.rebuild = rebuild
        self._rewound: str | None = None
        self.config: TableConfig = session.config
        self.seat = session.me
        self.policy = policy
        self.autopilot = autopilot if policy is None else None
        self.turn_seconds = float(self.config.turn_seconds) if self.autopilot is not None else 0.0
        """The move countdown of this seat (0: none: a bot's seat, or a table without one)."""
        self.deadline: float | None = None
        """When (trio time) the countdown of the person's current turn runs out; None when no
        countdown runs (not their turn, no countdown at this table, or away)."""
        self._countdown: trio.CancelScope | None = None
        self.paused_left: float | None = None
        """Seconds left on the countdown while it stands still (None: it runs, or none runs):
        the countdown counts only time in which the person can act, never the time the table
        waits for another seat's frames or shares (issue 28)."""
        self.record = record
        self.sync = sync
        self.think_time = think_time
        self.changed = trio.Event()
        """Set, and replaced by a fresh one, whenever something visible changed (`notify`)."""
        self.log: TableLog[LogEntry] = TableLog()
        """What the screen narrates, by position; the newest entries only (`TableLog`)."""
        self.end_wait: list[str] = []
        """What the network said of its end-of-game wait (`tell_end_wait`), oldest first."""
        self.status = PeerStatus()
        self.links: dict[int, LinkState] = {}
        self._inbox_send, self._inbox = trio.open_memory_channel[bytes | None](10_000)
        self._broadcast: Broadcast | None = None
        self._lock = trio.Lock()
        self._nursery: trio.Nursery | None = None
        self._recorded = 0
        """Frames handed to `record` (written, maybe not yet forced to the disk)."""
        self._synced = 0
        """Frames known to be on disk: only these are released from memory."""
        self.save_problem: str | None = None
        """Why the saved game lags behind (a write failed), None while it is complete."""
        self._retry_save = False
        self._timer_ends: dict[str, float] = {}
        """When (trio time) each sleeping timer of the session runs out (`table_wait`)."""
        self._spare_warned = False
        self._timers: dict[str, trio.CancelScope] = {}
        """The session's timers now sleeping, by name (cancelled once the session no longer needs
        them, so a long game does not pile up sleeping tasks)."""
        self._your_move = False
        self._bot_busy = False
        self._moves_seen = 0
        self._turn_seen = False
        self._wait: tuple[str, float] | None = None
        """The step the session waits for now and since when (trio time): how long a seat that
        stops answering was waited for."""
        self.closed = trio.Event()
        """Set once the links are closed (`close`): what we sent has gone out."""
        self.watching = 0
        """How many spectators watch the table (the host says: `set_watching`)."""

    # --- for the UI -----------------------------------------------------------------------------

    def notify(self) -> None:
        """Wake whoever waits on `changed` (the screen, the narration, `wait_done`), once.

        The event is set and a fresh one put in its place: waiters loop on `changed.wait()`, so
        one left set would wake them again at once, for ever (a host's screen took a whole core
        while a seat's program was gone and the mesh kept dialling it)."""
        self.changed.set()
        self.changed = trio.Event()

    @property
    def done(self) -> bool:
        """The game is over for this peer (finished and settled, or halted)."""
        return self.session.settled

    async def wait_done(self) -> None:
        while not self.done:
            await self.changed.wait()

    @property
    def view(self) -> TableState | None:
        return self.session.state

    def legal_moves(self) -> list[Move]:
        return self.session.legal_moves()

    @property
    def away(self) -> frozenset[int]:
        """The seats whose player is away (their own program plays for them)."""
        return frozenset(self.session.away)

    @property
    def taken_over(self) -> dict[int, str]:
        """The seats every peer plays with the common bot, and why ("left" or "vanished")."""
        return dict(self.session.taken_over)

    def behind(self) -> list[int]:
        """The other seats that may lack frames we hold: their acknowledgements we hold do not
        reach the latest frame we hold of every seat (`protocol.acks.Acknowledgements.behind`)."""
        return self.session.acks.behind()

    def stepped_out(self) -> set[int]:
        """The seats whose player stepped out (Ctrl-C: their `stepout` counted): the table plays
        them, and their program has ended on purpose."""
        return set(self.session.insurance.stepped_out_seats)

    @property
    def autopiloting(self) -> bool:
        """This seat's player is away: the autopilot plays their moves."""
        return self.autopilot is not None and self.seat is not None and self.seat in self.session.away

    def time_left(self) -> float | None:
        """Seconds left on this seat's move countdown (None: no countdown runs); while it stands
        still (`countdown_waits`), what was left when it stopped."""
        if self.deadline is None:
            return self.paused_left
        return max(0.0, self.deadline - trio.current_time())

    def table_wait(self) -> tuple[waiting.Wait, float | None] | None:
        """What the table waits for from other seats, and in how many seconds it stops waiting
        (plays their seats, or stops the game: `Wait.insured`); None for the seconds while the
        others vote, or when no timer of the step runs here."""
        found = waiting.waiting(self.session)
        if found is None:
            return None
        end = self._timer_ends.get(found.step) if found.phase != waiting.VOTING else None
        if end is None:
            return found, None
        return found, max(0.0, end - trio.current_time()) + found.after

    def leave_ends_spares(self) -> bool:
        """Whether this seat's leave would leave the table unable to play the seat of anyone
        else whose program stops (it holds a share of their keys)."""
        return self.seat is not None and bool(waiting.after_leave(self.session, self.seat))

    def countdown_waits(self) -> tuple[int, ...] | None:
        """None while the countdown runs (or none runs); while it stands still because the
        table waits for other seats, those seats (empty: this program's own work)."""
        if self.paused_left is None:
            return None
        waiting = self.session.waiting_for()
        seats = waiting[1] if waiting is not None else ()
        return tuple(s for s in seats if s != self.seat)

    async def come_back(self) -> bool:
        """The person is back (they pressed a key): the autopilot stops (after the move it may be
        playing: never two moves) and the others are told. False if they were not away."""
        async with self._lock:
            if not self.autopiloting:
                return False
            self.session.set_away(False)
            await self._after_session()
            if self.seat is not None and self._in_turn():
                self._start_countdown()  # a new countdown for what is left of the turn
        log.info("back at the table: the autopilot stops")
        return True

    async def submit_move(self, move: Move) -> None:
        """Play a move for this seat (raises IllegalMove at once if it is not legal)."""
        async with self._lock:
            await trio.to_thread.run_sync(self.session.submit_move, move)
            await self._after_session()

    async def send_chat(self, text: str) -> None:
        async with self._lock:
            self.session.send_chat(text)
            if self.seat is not None and text.strip():
                self.log.append(LogEntry("chat", seat=self.seat, text=text.strip()[:500]))
            await self._after_session()

    async def leave(self) -> bool:
        """This seat's player leaves the table for good: a signed leave goes to every seat (with
        the protocol of issue 17, the others play on with a bot in this seat; before it, the game
        stops for everyone), blaming nobody. False if the game is over or stopped."""
        async with self._lock:
            self._stop_countdown()
            left = self.session.leave()
            await self._after_session()
        if left:
            log.info("left the table")
        return left

    async def step_out(self) -> bool:
        """This seat's player pressed Ctrl-C: at an insured table whose game runs, a signed
        `stepout` goes to every seat (saved first) so the table plays the seat at once instead of
        waiting out the grace, and this session signs nothing more; `--resume` takes the seat
        back (PROTOCOL.md 10.9, "Stepping out"). False if nothing was sent."""
        async with self._lock:
            self._stop_countdown()
            stepped = self.session.step_out()
            await self._after_session()
        if stepped:
            log.info("stepped out (Ctrl-C): the table plays this seat until --resume takes it back")
        return stepped

    def may_go_on(self) -> tuple[int, ...]:
        """The seats this player may ask the table to go on without now (issue 28 point 3)."""
        return self.session.may_go_on_without()

    async def go_on_without(self) -> bool:
        """This player asks the table to go on without the seats it waits for (a vote now,
        instead of at the end of the wait: PROTOCOL.md 10.9). False if nothing was asked."""
        async with self._lock:
            seats = self.session.may_go_on_without()
            voted = self.session.go_on_without()
            await self._after_session()
        if voted:
            log.info("asked to go on without seat(s) %s", ", ".join(str(s + 1) for s in seats))
        return voted

    def removals(self) -> tuple[RemovalChanged, ...]:
        """The open proposals to remove a program from the game (issue 30 point 5)."""
        return tuple(self.session.insurance.removals.status())

    def may_remove(self) -> tuple[tuple[int, ...], str | None]:
        """The programs (each by its own seat) this player may propose to remove now, and when
        there is none, why (a `RemovalRefused` code: "uninsured", "no-game", ...)."""
        session = self.session
        if session.me is None:
            return (), "observer"
        removals = session.insurance.removals
        owners = session.config.owners
        others = sorted({o for o in owners if o != owners[session.me]})
        may = tuple(o for o in others if removals.why_not(o) is None)
        if may or not others:
            return may, None
        why = removals.why_not(others[0])
        return (), None if why is None else why.code

    async def remove_player(self, owner: int, agree: bool = True) -> bool:
        """This player proposes or agrees (`agree`), or refuses, that the table remove program
        `owner` (PROTOCOL.md 10.9, "Removing a player"): one agreement of this program; the
        table removes it only once every other program agreed. False if it could not be said."""
        async with self._lock:
            try:
                self.session.remove_player(owner, agree)
            except RemovalRefused as exc:
                self.log.append(LogEntry("info", text=f"removal not possible: {exc.reason}"))
                return False
            await self._after_session()
        log.info("%s the removal of seat %d (from 1)", "agreed to" if agree else "refused", owner + 1)
        return True

    def step_out_heard(self) -> bool:
        """After `step_out`: every other program voted to play our seats (so it holds our
        `stepout`, and the table will play them), or there is nothing to wait for."""
        session = self.session
        if session.me is None or not session.stepped_out or session.halted:
            return True
        insurance = session.insurance
        owner = session.config.owners[session.me]
        attempt = insurance.ballots.attempts.get(owner)
        required = insurance.ballots.required(owner, insurance.left())
        return attempt is not None and (
            attempt.decided is not None or all(seat in attempt.votes for seat in required)
        )

    async def wait_closed(self) -> None:
        """Wait until the links are closed (what we sent has gone out)."""
        await self.closed.wait()

    async def stop(self, reason: str, culprit: int | None = None) -> None:
        """Stop the game for this peer for a reason the links found (the table is split), naming
        `culprit` when there is proof against it; nobody else is blamed."""
        async with self._lock:
            if self.session.halted:
                return
            # the link layer's proof (two tables signed by the host) is not a frame of this
            # game: the session stops naming nobody; the link layer names the host below
            self.session.stop(reason)
            self.session.next_events()  # its Halted is reported here, once
            if culprit is not None:
                blamed = Blamed(culprit, reason)
                self.status.blamed.append(blamed)
                self.links.setdefault(culprit, LinkState()).status = "blamed"
                self.links[culprit].reason = reason
                self.log.append(LogEntry("blame", seat=culprit, text=reason))
            self.status.halted = reason
            self.log.append(LogEntry("info", text=f"game stopped: {reason}"))
            log.warning("game stopped: %s", reason)
            self.notify()

    def tell_end_wait(self, text: str) -> None:
        """The network's word about its end-of-game wait (`Mesh._wait_for_returning`): a line of
        the table's log, kept in `end_wait` too for the screen between games."""
        self.end_wait.append(text)
        self.log.append(LogEntry("info", text=text))
        self.notify()

    def set_watching(self, count: int) -> None:
        """The host says how many spectators watch (shown on the status line)."""
        if count != self.watching:
            self.watching = count
            self.notify()

    def mark_recorded(self, count: int) -> None:
        """The first `count` frames of the session are already saved (a resumed game)."""
        self._recorded = self._synced = count

    def final_save(self) -> tuple[int, int]:
        """At the end: write what is still pending (a last retry after a failed write) and force
        it to the disk. Returns (frames on disk, frames of the game): equal when the saved game
        is complete."""
        if self.record is not None:
            self._save(durable=True, retry=True)
        return self._synced, self.session.frame_count

    async def next_seq_of(self, seat: int) -> int:
        """The sequence number of the next frame we expect from `seat` (for resend requests)."""
        async with self._lock:
            return self.session.next_seq_of(seat)

    async def own_frames_from(self, seq: int) -> list[bytes]:
        """Our own frames from `seq` on (to resend after a reconnection)."""
        async with self._lock:
            return self.session.own_frames_from(seq)

    async def peer_holds(self, seat: int, count: int) -> int | None:
        """`seat` holds the first `count` frames of our chain (its link's resend request): after
        a restore, the first frame of ours to ask it for (a lost tail of our file), else None."""
        async with self._lock:
            self.session.peer_holds(seat, count)
            await self._after_session()
            return self.session.missing_own()

    async def chain_frames(self, seat: int, start: int) -> list[bytes]:
        """The frames of `seat`'s own chain we hold from `start` (it lost the tail of its file)."""
        async with self._lock:
            return self.session.chain_frames(seat, start)

    # --- wiring -----------------------------------------------------------------------------------

    def deliver(self, frame: bytes) -> None:
        """A frame arrived from a link (never blocks; frames are processed in order)."""
        try:
            self._inbox_send.send_nowait(frame)
        except trio.WouldBlock:
            log.warning("inbox full: dropping a frame (the sender will resend after reconnecting)")

    async def run(
        self, broadcast: Broadcast, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Run until the game ends or halts (or the surrounding nursery is cancelled)."""
        self._broadcast = broadcast
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            async with self._lock:
                self.session.start()
                await self._after_session()
            task_status.started()
            async for frame in self._inbox:
                if frame is None:
                    break
                async with self._lock:
                    await trio.to_thread.run_sync(self.session.receive_frame, frame)
                    await self._after_session()
                if self.status.finished or self.status.halted:
                    # keep answering late frames (acknowledgements, a slow peer's round signature) briefly
                    continue
            nursery.cancel_scope.cancel()

    def close(self) -> None:
        with contextlib.suppress(trio.WouldBlock, trio.ClosedResourceError):
            self._inbox_send.send_nowait(None)
        self.closed.set()

    async def _after_session(self) -> None:
        """Send what the session produced, record it, handle its events."""
        session = self.session
        frames = session.data_to_send()
        # what we send must be on disk first: a frame of ours lost by a power cut would be made
        # anew on resume, differently, and two versions of one frame are equivocation
        self._save(durable=bool(frames))
        if self._broadcast is not None:
            for frame in frames:
                await self._broadcast(frame)
        for event in session.next_events():
            self._handle(event)
        if self._retry_save:  # a round's end, or the game's: the moments to catch up and fsync
            self._retry_save = False
            self._save(durable=True, retry=True)
        if self._rewound is not None:
            reason, self._rewound = self._rewound, None
            await self._rebuild(reason)
            return
        self._drop_timers()
        self._pace_countdown()
        self.notify()

    def _pace_countdown(self) -> None:
        """Stop the countdown while the person cannot act (the table waits for another seat's
        shares or frames, with their move or draw on its way), and run it again, with what was
        left, once they can: a seat that stopped answering never costs the others their time."""
        if self.deadline is not None and not self.session.legal_moves():
            left = max(0.0, self.deadline - trio.current_time())
            self._stop_countdown()
            self.paused_left = left
        elif self.paused_left is not None and self.session.legal_moves() and not self.autopiloting:
            left, self.paused_left = self.paused_left, None
            self._start_countdown(left)

    async def _rebuild(self, reason: str) -> None:
        """The table played this seat while we were cut off and counted fewer of our frames than
        we played: our session is rebuilt from the saved game (where those frames are void), and
        goes on from the table's game; our seat is ours again at our next turn."""
        self._save(durable=True, retry=True)
        rebuilt = self.rebuild(self.session) if self.rebuild is not None else None
        if rebuilt is None:
            why = (
                "the table played this seat while it was cut off, and it cannot be rebuilt "
                "without its saved game"
            )
            self.session.stop(why)
            log.warning("%s (%s)", why, reason)
            await self._after_session()
            return
        self._stop_countdown()
        self.session, self._recorded = rebuilt
        self._synced = self._recorded
        self._your_move = False
        self.log.append(
            LogEntry(
                "info", text="the table played this seat while it was cut off: rebuilt from the saved game"
            )
        )
        log.warning("rebuilt from the saved game: %s", reason)
        await self._after_session()

    def _save(self, *, durable: bool, retry: bool = False) -> None:
        """Append the frames not saved yet; force them to the disk when `durable`; release from
        memory only what is on disk. After a failed write nothing is written until a retry (a
        round's end, the end): the game goes on from memory meanwhile, never a traceback."""
        session = self.session
        if self.record is None:
            self._recorded = self._synced = session.frame_count  # nothing saved, nothing kept
            session.release_frames(self._synced)
            return
        if self.save_problem is not None and not retry:
            return
        try:
            while self._recorded < session.frame_count:
                self.record(session.frame_at(self._recorded))
                self._recorded += 1
        except OSError as exc:
            self._save_failed(exc)
            return
        if durable or self.sync is None:
            try:
                if self.sync is not None:
                    self.sync()
            except OSError as exc:
                self._recorded = self._synced  # the writer cut what may not be on disk
                self._save_failed(exc)
                return
            self._synced = self._recorded
            if self.save_problem is not None:
                self.save_problem = None
                self.log.append(
                    LogEntry("info", text=f"saved game: caught up, all {self._synced} frames are on disk")
                )
                log.warning("saved game caught up (%d frames)", self._synced)
        session.release_frames(self._synced)  # on disk now: not kept in memory twice

    def _save_failed(self, exc: OSError) -> None:
        reason = getattr(exc, "reason", None) or exc.strerror or str(exc)
        pending = self.session.frame_count - self._synced
        if self.save_problem is None:
            self.log.append(
                LogEntry(
                    "info",
                    text=(
                        f"saved game: {reason}; the game goes on from memory ({pending} frames "
                        "not on disk yet, tried again at each round's end); until then it cannot "
                        "be resumed after a crash"
                    ),
                )
            )
            log.warning("saved game: %s (%d frames wait in memory)", reason, pending)
        else:
            log.info("saved game: still failing: %s (%d frames wait in memory)", reason, pending)
        self.save_problem = str(getattr(exc, "why", None) or reason)

    def _handle(self, event: SessionEvent) -> None:
        if isinstance(event, Updated):
            self.log.extend(LogEntry("fact", fact=f) for f in event.facts)
            self._your_move = False
            if _TRACE is not None:
                self._trace(event.facts)
            if (self.deadline is not None or self.paused_left is not None) and not self._in_turn():
                self._stop_countdown()  # the turn is over (played in time)
        elif isinstance(event, Started):
            self.status.started = True
        elif isinstance(event, YourMove):
            self._your_move = True
            if (
                self.turn_seconds > 0
                and not self.autopiloting
                and self.deadline is None
                and self.paused_left is None
            ):
                self._start_countdown()
            self._start_bot()
        elif isinstance(event, AwayChanged):
            self.log.append(LogEntry("away", seat=event.seat, text="away" if event.away else "back"))
            log.info("seat %d (from 1) %s", event.seat + 1, "is away: autopilot" if event.away else "is back")
        elif isinstance(event, SeatTakenOver):
            how = event.how
            owner = self.session.config.owners[event.seat]
            if how == "vanished" and owner in self.session.insurance.stepped_out:
                how = "stepped out"  # its player pressed Ctrl-C: `--resume` brings them back
            self.log.append(LogEntry("takeover", seat=event.seat, text=how, disclosed=event.disclosed))
            log.info("seat %d (from 1) is played by the common bot (%s)", event.seat + 1, event.how)
        elif isinstance(event, RemovalChanged):
            if event.outcome != "open" or len(event.agreed) == 1:  # opened, or over
                self.log.append(LogEntry("removal", seat=event.owner, text=event.outcome, by=event.proposer))
            log.info(
                "removal of seat %d (from 1): %s, %s agreed", event.owner + 1, event.outcome, event.agreed
            )
        elif isinstance(event, SeatReturned):
            self.log.append(LogEntry("returned", seat=event.seat))
            log.info("seat %d (from 1) is back and plays its seat again", event.seat + 1)
        elif isinstance(event, MoveRefused):
            self.log.append(LogEntry("info", text=f"move refused: {event.reason}"))
        elif isinstance(event, Finished):
            self.status.finished = True
            self._retry_save = True
        elif isinstance(event, ChatReceived):
            self.log.append(LogEntry("chat", seat=event.seat, text=event.text, unconfirmed=event.final))
        elif isinstance(event, Blamed):
            self.status.blamed.append(event)
            self.links.setdefault(event.seat, LinkState()).status = "blamed"
            self.links[event.seat].reason = event.reason
            self.log.append(LogEntry("blame", seat=event.seat, text=event.reason))
            log.warning("seat %s blamed: %s", event.seat, event.reason)
        elif isinstance(event, Left):
            self.status.left = event.seat
            if event.seat != self.seat:
                link = self.links.setdefault(event.seat, LinkState())
                link.status, link.reason = "left", event.reason
            self.log.append(LogEntry("left", seat=event.seat, text=event.reason))
            log.info("seat %d (from 1) left the table: %s", event.seat + 1, event.reason)
            if self.config.insured and not self._spare_warned and not waiting.replaceable(self.session):
                # from now on a program that stops answering stops the game: said once, at once
                self._spare_warned = True
                self.log.append(LogEntry("no_spare", seat=event.seat))
        elif isinstance(event, Halted):
            self.status.halted = event.reason
            self._stop_countdown()
            waited = trio.current_time() - self._wait[1] if self._wait is not None else None
            for seat in event.absent:  # stopped answering: not a cheat
                link = self.links.setdefault(seat, LinkState())
                no_link = link.status not in ("connected", "local")
                if link.status != "blamed":
                    link.status = "absent"
                    link.reason = event.reason
                self.log.append(
                    LogEntry("absent", seat=seat, text=event.reason, waited=waited, no_link=no_link)
                )
            if event.left is None and not event.absent:  # those are told as what they are, above
                self.log.append(LogEntry("info", text=f"game stopped: {event.reason}"))
            log.info("game stopped: %s", event.reason)
        elif isinstance(event, Rewound):
            self._rewound = event.reason
        elif isinstance(event, TableSilent):
            # we voted about a seat we could not hear, and since then nobody answers at all: we
            # are the one cut off, most likely; the game waits (the table may play our seat)
            text = (
                "nobody at the table answers: your connection may be down. The game waits for it "
                "(the table may play your seat meanwhile; you take it back when the link returns)"
            )
            if not any(entry.text == text for entry in self.log[-20:]):
                self.log.append(LogEntry("info", text=text))
            log.warning("no other program answers (seats %s from 1): waiting", [s + 1 for s in event.seats])
        elif isinstance(event, FrameRejected):
            log.info("frame refused: %s", event.reason)
        elif isinstance(event, RoundSigned):
            self.log.append(LogEntry("info", text=f"round {event.round} signed by every seat"))
            self._retry_save = True
        elif isinstance(event, TimerRequest) and self._nursery is not None:
            if event.name.startswith("job:") and (self._wait is None or self._wait[0] != event.name):
                self._wait = (event.name, trio.current_time())
            self._nursery.start_soon(self._timer, event)

    def _trace(self, facts: tuple[EngineEvent, ...]) -> None:
        """Benchmarks: one line per move applied here, "<time> <seat> <move number> <mover>"."""
        assert _TRACE is not None
        with open(_TRACE, "a") as handle:
            for fact in facts:
                if isinstance(fact, Moved):
                    self._moves_seen += 1
                    handle.write(f"{time.time():.6f} {self.seat} {self._moves_seen} {fact.move.seat}\n")
                elif isinstance(fact, TurnBegan) and not self._turn_seen:
                    self._turn_seen = True
                    handle.write(f"{time.time():.6f} {self.seat} first-turn\n")

    async def _timer(self, request: TimerRequest) -> None:
        old = self._timers.pop(request.name, None)
        if old is not None:
            old.cancel()
        with trio.CancelScope() as scope:
            self._timers[request.name] = scope
            self._timer_ends[request.name] = trio.current_time() + request.seconds
            await trio.sleep(request.seconds)
        if self._timers.get(request.name) is scope:
            del self._timers[request.name]
        if scope.cancelled_caught:
            return
        async with self._lock:
            recovering = self.session.recovering
            if request.name == "recover" and recovering:
                # may play our saved file apart once (`Recovery.file_finishes`): seconds, not
                # on the loop that draws the screen
                await trio.to_thread.run_sync(self.session.timer_expired, request.name)
            else:
                self.session.timer_expired(request.name)
            if request.name == "recover" and recovering:
                if self.session.recovering:
                    log.info(
                        "resume: a seat that holds more of our frames has not sent them yet, or no "
                        "seat answered at all: waiting, signing nothing (PROTOCOL.md 10.10)"
                    )
                else:
                    log.info(
                        "resume: not every seat said what it holds of ours within %.0f s, and none is "
                        "known to hold more: going on (PROTOCOL.md 10.10)",
                        request.seconds,
                    )
            await self._after_session()

    def _drop_timers(self) -> None:
        """Cancel the sleeping timers the session no longer needs (it would ignore them)."""
        for name in [n for n in self._timers if not self.session.timer_needed(n)]:
            self._timers.pop(name).cancel()
            self._timer_ends.pop(name, None)
        # and the ends of those that ran out (one name per `ack:<n>`, `want:...`: kept, they
        # grew with the game), once the session is done with them
        for name in [
            n for n in self._timer_ends if n not in self._timers and not self.session.timer_needed(n)
        ]:
            del self._timer_ends[name]

    def _playing(self) -> Bot | None:
        """The bot that plays this seat now: a headless seat's, or the autopilot while away."""
        if self.policy is not None:
            return self.policy
        return self.autopilot if self.autopiloting else None

    def _start_bot(self) -> None:
        if (
            self._your_move
            and self._playing() is not None
            and self._nursery is not None
            and not self._bot_busy
        ):
            self._bot_busy = True
            self._nursery.start_soon(self._bot_move)

    def _in_turn(self) -> bool:
        """This seat has a decision to make, or it is its turn (the table may be revealing a card
        between two decisions of the turn): the time its countdown covers."""
        state = self.session.state
        if state is None or self.session.halted or state.phase == "game_over":
            return False
        if self.session.legal_moves():
            return True
        return state.phase == "turn" and getattr(state, "turn", None) == self.seat

    def _start_countdown(self, seconds: float | None = None) -> None:
        """Count this turn down (trio's clock), from `seconds` (default: the whole countdown): at
        zero the autopilot takes over."""
        self._stop_countdown()
        if self.turn_seconds <= 0 or self._nursery is None:
            return
        self.deadline = trio.current_time() + (self.turn_seconds if seconds is None else seconds)
        scope = trio.CancelScope(deadline=self.deadline)
        self._countdown = scope
        self._nursery.start_soon(self._count_down, scope)

    def _stop_countdown(self) -> None:
        if self._countdown is not None:
            self._countdown.cancel()
        self._countdown = None
        self.deadline = None
        self.paused_left = None

    async def _count_down(self, scope: trio.CancelScope) -> None:
        with scope:
            await trio.sleep_forever()
        if self._countdown is not scope or not scope.deadline <= trio.current_time():
            return  # cancelled: the turn was played in time, or a new countdown replaced this one
        async with self._lock:
            if self._countdown is not scope:
                return
            self._countdown, self.deadline = None, None
            if not self._in_turn() or self.session.halted:
                return
            if self.session.set_away(True):
                log.info("the move countdown ran out: the autopilot plays this seat")
            await self._after_session()
            self._start_bot()

    async def _bot_move(self) -> None:
        """Play for a headless seat, or for an away person, while it has a decision to make (a
        turn can take several); an away person who comes back stops it before its next move."""
        assert self.seat is not None
        seat = self.seat
        try:
            while True:
                if self.think_time:
                    await trio.sleep(self.think_time)
                async with self._lock:
                    state = self.session.state
                    policy = self._playing()
                    if (
                        policy is None
                        or state is None
                        or self.session.halted
                        or not self.session.legal_moves()
                    ):
                        return

                    def decide_and_play(state: TableState = state, policy: Bot = policy) -> None:
                        self.session.submit_move(policy.choose(state, seat))

                    try:
                        await trio.to_thread.run_sync(decide_and_play)
                    except IllegalMove as exc:  # a bot bug must not take the table down
                        log.error("bot at seat %s chose an illegal move: %s", seat, exc.reason)
                        return
                    finally:
                        await self._after_session()
        finally:
            self._bot_busy = False
