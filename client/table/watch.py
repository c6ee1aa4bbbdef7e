"""`skyjo-lan watch`: follow a running table read-only, as a spectator.

The spectator finds the table as `join` does (`join.find_table`: a name browses mDNS, HOST:PORT
dials it), dials the host's lobby listener with the link role ``watch`` (an ephemeral identity
key: it signs nothing of the game and takes no seat) and follows what the host sends
(`spectators`): the signed genesis, then the host's transcript in the host's order. A live
observer session (`protocol.session.Session(config, None, None)`, as `skyjo-lan verify` runs)
checks every frame: signatures, proofs, moves, scores. It never times anybody out and never sends
a frame; it holds no secret, so it sees what a public transcript shows and nothing more. It shows
whom it watches (names with key fingerprints, to compare with the players') and checks that each
seat's own first frame follows the genesis the host showed (`signedtable`): otherwise the host
sent a table its players did not sign, and it stops, naming the host.

Dropped for falling behind (``dropped``), or cut off (it says why: a reset, a close without a
word, nothing heard), it reconnects, before the game as during it, and asks for the frames from
the first one it lacks (hello ``from``). The host gone for good, it says so and ends with 1; the
game over, it shows the result and ends with 0.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.net.addresses import dial_first
from client.net.framing import FramingError
from client.net.link import Link, LinkError, Refused, dial
from client.net.linkproto import field
from client.net.mesh import HOST_SEAT, genesis_signed_by
from protocol.config import TableConfig
from protocol.errors import MalformedMessage
from protocol.session import Session

from .join import Destination, JoinOptions, find_table
from .peer import LogEntry, PeerRunner
from .seat import LOBBY_TABLE, Say, print_line
from .signedtable import NotSignedByPlayers, SignedTable, players
from .spectators import WATCH_ROLE, watching_count

log = logging.getLogger("skyjo_lan.watch")

RETRIES = (0.5, 1.0, 2.0)
"""Seconds before each new try after the link to the host was lost (then the host is gone)."""
MOST_DROPS = 64
"""Times in a row the host may drop this spectator for falling behind before it gives up."""
MOST_LOSSES = 8
"""Connections in a row lost with nothing new received before it gives up (a host that accepts
and closes again and again)."""


@dataclass
class WatchOptions:
    target: str | None = None
    """A table name (mDNS), HOST:PORT, or None: the first table found."""
    password: str | None = None
    interface: str = "0.0.0.0"
    discovery_seconds: float = 3.0
    found: Destination | None = None
    dead_after: float = 20.0
    """Seconds without a word from the host (it pings every 5 s) before the link counts as lost."""


class WatchEnded(LinkError):
    """The spectator cannot go on: the host is gone, or sent what a host never sends."""


async def _no_broadcast(frame: bytes) -> None:
    """An observer sends nothing."""


class ObserverRunner(PeerRunner):
    """A `PeerRunner` around a live observer session (no seat, no key), fed by the spectator's
    link instead of a mesh; `watching` is how many watch the table (the host says)."""

    def __init__(self, config: TableConfig) -> None:
        super().__init__(Session(config, None, None))

    async def feed(self, frames: list[bytes]) -> None:
        """Check frames in the host's order; waits for the session (unlike `deliver`, whose
        bounded inbox would drop frames of a long catch-up)."""
        session = self.session

        def check() -> None:
            for frame in frames:
                session.receive_frame(frame)

        async with self._lock:
            await trio.to_thread.run_sync(check)
            await self._after_session()


class Watcher:
    """One spectator's program: the link to the host (re-made as needed) and the observer."""

    def __init__(self, opts: WatchOptions, say: Say = print_line) -> None:
        self.opts = opts
        self.say = say
        self.identity = Ed25519PrivateKey.generate()
        """Ephemeral: a spectator is nobody at the table."""
        self.config: TableConfig | None = None
        self.runner: ObserverRunner | None = None
        self.received = 0
        """Transcript frames received and checked so far (where a reconnection resumes)."""
        self.watching = 0
        self.table = opts.target or ""
        self.address = ""
        self.started = trio.Event()
        """Set once the game has started (the runner exists)."""
        self.drops = 0
        self.signed: SignedTable | None = None
        """What the players signed of the table (each seat's first frame), checked as it comes."""
        self.players: list[str] = []
        """Each seat: name [fingerprint] (seat N), to compare with what the players see."""
        self.lost = ""
        """Why the last connection to the host ended without its word (said when reconnecting)."""
        self._nursery: trio.Nursery | None = None

    async def run(self) -> str:
        """Follow the table until the game is over ("finished"), stops ("halted"), or the host is
        gone (`WatchEnded`, `Refused`, `LinkError`)."""
        dest = await find_table(
            JoinOptions(
                target=self.opts.target,
                interface=self.opts.interface,
                discovery_seconds=self.opts.discovery_seconds,
                found=self.opts.found,
                refuse_full=False,  # a full table can be watched
            ),
            self.say,
        )
        self.table = dest.name or ""
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                outcome = await self._follow_all(dest)
                nursery.cancel_scope.cancel()
        except BaseExceptionGroup as group:  # the one reason it ends, as itself (one line)
            if len(group.exceptions) == 1 and isinstance(group.exceptions[0], Exception):
                raise group.exceptions[0] from None
            raise
        return outcome

    async def _follow_all(self, dest: Destination) -> str:
        tries = 0
        barren = 0  # connections in a row lost with nothing new received
        while True:
            try:
                link = await self._connect(dest)
            except Refused:
                raise
            except (LinkError, FramingError, OSError, trio.TooSlowError) as exc:
                if not self.address or tries >= len(RETRIES):
                    earlier = f"; the connection was lost: {self.lost}" if self.lost else ""
                    raise WatchEnded(f"the host is gone ({exc}){earlier}") from None
                await trio.sleep(RETRIES[tries])
                tries += 1
                continue
            tries = 0
            had = (self.config is not None, self.received)
            outcome = await self._follow(link)
            if outcome in ("finished", "halted"):
                return outcome
            if outcome == "dropped":
                self.drops += 1
                if self.drops > MOST_DROPS:
                    raise WatchEnded("the host dropped this spectator too often: it cannot keep up")
                continue
            # lost, before the game or during it: try again (the host may be busy, or have
            # dropped us: a spectator stopped or too slow to read is); it fails at once if the
            # host is gone, and says what happened
            barren = barren + 1 if (self.config is not None, self.received) == had else 0
            if barren > MOST_LOSSES:
                raise WatchEnded(f"the connection to the host is lost again and again ({self.lost})")
            self.say(f"lost the connection to the host: {self.lost}; reconnecting")
            await trio.sleep(RETRIES[0])
            tries = 1

    async def _connect(self, dest: Destination) -> Link:
        async def handshake(stream: trio.SocketStream) -> tuple[Link, dict[str, Any]]:
            return await dial(
                stream,
                self.identity,
                name="spectator",
                role=WATCH_ROLE,
                table=LOBBY_TABLE,
                port=0,
                password=self.opts.password,
                expect_key=dest.key,
                extra={"from": self.received},
            )

        async def discard(result: tuple[Link, dict[str, Any]]) -> None:
            await result[0].aclose()

        (link, accepted), (host, port) = await dial_first(dest.endpoints, handshake, discard)
        named = accepted.get("table")
        if not dest.name and isinstance(named, str) and named.isprintable() and len(named) <= 63:
            self.table = named  # dialled by HOST:PORT: the name the host announces
        if not self.address:
            self.say(f"watching {self.table or 'the table'!r} at {host}:{port}")
        self.address = f"{host}:{port}"
        return link

    async def _follow(self, link: Link) -> str:
        """Read one connection: "finished"/"halted" (the host's game is over), "dropped", "lost"
        (then `lost` says why)."""
        try:
            while True:
                message: dict[str, Any] | None = None
                with trio.move_on_after(self.opts.dead_after) as waiting:
                    message = await link.receive()
                if waiting.cancelled_caught:
                    # this program may have been stopped (suspended) past the deadline: what
                    # came meanwhile is read first, so it says what really happened
                    with trio.move_on_after(1.0) as again:
                        message = await link.receive()
                    if again.cancelled_caught:
                        self.lost = f"no word from the host for {self.opts.dead_after:g} s"
                        return "lost"
                if message is None:
                    self.lost = (
                        "the host closed it without a word (it does so to a spectator that falls too "
                        "far behind, e.g. a stopped program, and when its own program ends)"
                    )
                    return "lost"
                kind = message["t"]
                if kind == "table":
                    await self._table(link, message)
                elif kind == "frames":
                    await self._frames(message)
                elif kind == "watching":
                    self.watching = watching_count(message)
                    if self.runner is not None:
                        self.runner.set_watching(self.watching)
                elif kind == "dropped":
                    reason = str(message.get("reason", ""))[:200]
                    self.say(f"the host dropped this spectator ({reason}): catching up")
                    return "dropped"
                elif kind == "end":
                    return self._over()
                elif kind != "ping":
                    raise LinkError(f"unexpected message {kind!r} from the host")
        except (LinkError, FramingError, trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            if isinstance(exc, WatchEnded):
                raise
            log.info("link to the host lost: %s", exc)
            self.lost = _lost(exc)
            return "lost"
        finally:
            with trio.CancelScope(shield=True):
                await link.aclose()

    async def _table(self, link: Link, message: dict[str, Any]) -> None:
        genesis = field(message, "genesis", bytes, most=4096)
        signature = field(message, "gsig", bytes, size=64)
        try:
            config = TableConfig.decode(genesis)
        except MalformedMessage as exc:
            raise WatchEnded(f"the host's table is refused: {exc.reason}") from None
        if config.identities[HOST_SEAT] != link.peer.key or not genesis_signed_by(
            link.peer.key, config, signature
        ):
            raise WatchEnded("the table is not signed by the host we reached")
        if self.config is not None:
            if config.genesis_hash != self.config.genesis_hash:
                raise WatchEnded("the host now shows another table than the one watched")
            return
        self.config = config
        self.signed = SignedTable(config, HOST_SEAT)
        self.players = players(config, HOST_SEAT)
        self.runner = runner = ObserverRunner(config)
        runner.set_watching(self.watching)
        # the players as they see each other: a spectator compares these fingerprints with theirs
        runner.log.extend(LogEntry("info", text=f"watching {who}") for who in self.players)
        runner.log.append(
            LogEntry("info", text="compare these fingerprints with the ones the players' own programs show")
        )
        assert self._nursery is not None
        await self._nursery.start(runner.run, _no_broadcast)
        names = ", ".join(config.names) or f"{config.players} players"
        self.say(f"the game has started: {names} ({config.game})")
        self.started.set()

    async def _frames(self, message: dict[str, Any]) -> None:
        if self.runner is None:
            raise LinkError("the host sent frames before its table")
        first = field(message, "from", int, most=1 << 40)
        frames = field(message, "f", list, most=1024)
        if first > self.received:
            raise LinkError(f"the host skipped frames ({first} after {self.received})")
        fresh = frames[self.received - first :]
        if not all(isinstance(frame, bytes) for frame in fresh):
            raise LinkError("frames must be bytes")
        signed = self.signed
        assert signed is not None
        was_complete = signed.complete
        try:
            for frame in fresh:
                signed.check(frame)  # before the observer judges it: the host's doing, not a seat's
        except NotSignedByPlayers as exc:
            raise WatchEnded(exc.reason) from None
        if fresh:
            await self.runner.feed(fresh)
            self.received += len(fresh)
        if signed.complete and not was_complete:
            self.runner.log.append(
                LogEntry("info", text="every player's own first frame signs this table (its genesis)")
            )
            self.runner.notify()

    def _over(self) -> str:
        runner = self.runner
        if runner is None:
            raise WatchEnded("the host closed the table before the game started")
        if runner.status.finished:
            return "finished"
        if runner.status.halted is not None:
            return "halted"
        raise WatchEnded("the host's game ended, but what it sent does not end the game")


def _lost(exc: BaseException) -> str:
    """Why a connection to the host ended, in words."""
    cause = exc.__cause__ or exc.__context__
    if isinstance(exc, ConnectionResetError) or isinstance(cause, ConnectionResetError):
        return (
            "the connection was reset (the host dropped this spectator, e.g. a stopped program "
            "that fell too far behind, or the host's program ended)"
        )
    if isinstance(exc, FramingError) and "closed inside a frame" in str(exc):
        return (
            "the host closed it in the middle of a message (it does so to a spectator that falls "
            "too far behind, e.g. a stopped program)"
        )
    return str(exc) or type(exc).__name__


def result_lines(runner: PeerRunner) -> list[str]:
    """The final scores and the winner(s), as lines (headless spectators)."""
    state = runner.view
    if state is None or not runner.status.finished:
        return [f"the game stopped: {runner.status.halted or 'not finished'}"]
    names = list(runner.config.names) or [f"seat {s + 1}" for s in range(state.players)]
    scores = ", ".join(f"{names[s]} {state.totals[s]}" for s in range(state.players))
    winners = " and ".join(names[s] for s in state.winners)
    return [f"game over: {scores}", f"winner: {winners}"]


async def watch(opts: WatchOptions, say: Say = print_line) -> int:
    """`skyjo-lan watch` without the screen: the game as lines; 0 once it is over."""
    from .seat import _narrate

    watcher = Watcher(opts, say)
    async with trio.open_nursery() as nursery:

        async def narrate() -> None:
            await watcher.started.wait()
            assert watcher.runner is not None
            await _narrate(watcher.runner, say)

        nursery.start_soon(narrate)
        outcome = await watcher.run()
        await trio.testing.wait_all_tasks_blocked()  # the narration has told the last facts
        nursery.cancel_scope.cancel()
    assert watcher.runner is not None
    for line in result_lines(watcher.runner):
        say(line)
    return 0 if outcome == "finished" else 1
