"""One seated peer: its session, its runner, its links in the full mesh, and its saved game.

From the start of the game every peer, the host's in-process bots included, runs its own session
and its own links in the full mesh (`client.net.mesh`). Each peer saves its transcript under
$XDG_DATA_HOME/skyjo-lan/games/ (flushed per frame) and, in a ``.resume`` file next to it
(`saved.ResumeInfo`), what it needs to continue after a crash.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client import storage
from client.net import ports
from client.net.mesh import CATCH_UP_WAIT, Mesh
from client.storage import TranscriptWriter
from protocol.config import DEFAULT_GRACE, TableConfig
from protocol.errors import MalformedMessage
from protocol.session import Session
from protocol.transcript import valid_prefix
from protocol.verify import verify_bytes
from skyjo_p2p.bots import make_bot
from skyjo_p2p.bots.base import Bot

from .peer import LogEntry, PeerRunner
from .saved import ResumeInfo, bots_folder, remove_bots_of
from .textlog import describe

log = logging.getLogger("skyjo_lan.net")


LOBBY_TABLE = b"skyjo-lan/lobby"
Say = Callable[[str], None]


STEP_OUT_LIMIT = 3.0
"""Seconds a program that was interrupted (Ctrl-C) gives its `stepout` frames to leave."""

_PLAYING: list[Peer] = []
"""The seats this process plays now (a person's or headless bot's seat, a host's bots)."""


async def step_out_all() -> None:
    """Ctrl-C during a game: every seat of this process signs its `stepout` (a host's bots too,
    so no frame of the program follows it), what they sent is written to the links, and we wait
    until every other program voted on it (they hold it: a program that ends with unread data
    on a socket resets it, and what it sent last may be lost). Bound it with a deadline."""
    runners = [peer.runner for peer in list(_PLAYING) if peer.runner is not None]
    for runner in runners:
        await runner.step_out()
    for peer in list(_PLAYING):
        if peer.mesh is not None:
            await peer.mesh.drain()
    while not all(runner.step_out_heard() for runner in runners):
        await trio.sleep(0.05)


_watching_interrupt = False


async def _step_out_on_interrupt() -> None:
    """Turn Ctrl-C (SIGINT) into a step-out, then end the program as Ctrl-C does. One watcher
    per process (several seats of one process played in one test: the first one watches)."""
    global _watching_interrupt
    if _watching_interrupt:
        return
    try:
        receiver = trio.open_signal_receiver(signal.SIGINT)
    except (RuntimeError, ValueError) as exc:  # not the main thread (a test's worker thread)
        log.debug("no Ctrl-C step-out: %s", exc)
        return
    _watching_interrupt = True
    try:
        with receiver as signals:
            async for _ in signals:
                with trio.move_on_after(STEP_OUT_LIMIT):
                    await step_out_all()
                raise KeyboardInterrupt
    finally:
        _watching_interrupt = False


def print_line(line: str) -> None:
    """Say a line on standard output (the default `Say` of the commands without a screen)."""
    print(line, flush=True)


def check_saving(save: bool) -> None:
    """Before taking a seat: can this machine save the game? `storage.SaveError` (one line)
    if not, so a peer never takes a seat it would leave at the first frame."""
    if save:
        storage.check_writable()


@dataclass
class Peer:
    """One seat of this process in the game (a person, a headless bot, or a host-added bot)."""

    config: TableConfig
    seat: int
    identity: Ed25519PrivateKey
    listener: trio.SocketListener
    addresses: list[tuple[str, int]]
    policy: Bot | None
    save: bool = True
    think_time: float = 0.0
    session: Session | None = None
    runner: PeerRunner | None = None
    resume: ResumeInfo | None = None
    writer: TranscriptWriter | None = None
    genesis_signature: bytes = b""
    """The host's signature of `config` (see `mesh.sign_genesis`)."""
    lobby: tuple[str, int, bytes, str] | None = None
    """A joiner's table lobby (address, host key, name), kept in the .resume file."""
    bot_level: str = ""
    """A host's bot (its level): its game is saved apart (`saved.bots_folder`), with its own
    identity key in its `.resume` file, so `host --resume` brings it back with the host's seat."""
    companions: list[Peer] = field(default_factory=list)
    """The host's bots resumed with this seat (`resume.restore`): they play while it plays."""
    mesh: Mesh | None = field(default=None, init=False)
    """This seat's mesh while it plays (the host tells its seats how many watch through it)."""
    withdrawn: bool = field(default=False, init=False)
    """The .resume file was removed because the transcript lags behind (a failed write):
    resuming from it would make our missing frames anew (equivocation). Written again once
    the transcript has caught up."""

    def build(
        self, restored: tuple[list[bytes], dict[str, Any]] | None = None, *, keep: int | None = None
    ) -> PeerRunner:
        """Make the session and its runner, and open the saved game. `keep` (on resume): the
        length of the transcript's valid prefix; the rest is cut off before anything is added."""
        writer: TranscriptWriter | None = None
        if self.save:
            path = self.resume.transcript if self.resume is not None else None
            if path is None and self.bot_level:
                stamp = time.strftime("%Y%m%d-%H%M%S")
                sid = self.config.session_id[:4].hex()
                path = bots_folder() / f"{stamp}-{self.config.game}-{sid}-seat{self.seat + 1}.skyjo"
            writer = TranscriptWriter(self.config, path, keep=keep)
            self.writer = writer
            host, port = self.listener.socket.getsockname()[:2]
            if self.resume is None:
                self.resume = ResumeInfo(
                    writer.path,
                    self.config.encode(),
                    self.seat,
                    str(host),
                    int(port),
                    self.addresses,
                    genesis_signature=self.genesis_signature,
                    lobby=self.lobby,
                    bot=self.bot_level,
                    identity=self.identity.private_bytes_raw() if self.bot_level else b"",
                )
                self.resume.save()
        timeouts = session_timeouts(self.config)
        if restored is not None:
            frames, secret_state = restored
            self.session = Session.restore(
                self.config, self.seat, self.identity, secret_state, frames, recover=True, **timeouts
            )
        else:
            self.session = Session(self.config, self.seat, self.identity, **timeouts)
        self.runner = PeerRunner(
            self.session,
            self.policy,
            record=self._record if writer is not None else None,
            sync=self._sync if writer is not None else None,
            think_time=self.think_time,
            autopilot=autopilot_for(self.config) if self.policy is None else None,
            rebuild=self._rebuilt if writer is not None else None,
        )
        if restored is not None:
            # what the session made at once on restore (answers due when the process died) ends
            # its frames and is not in the file yet: it is saved like any new frame
            on_file = set(restored[0])
            count = self.session.frame_count
            while count > 0 and self.session.frame_at(count - 1) not in on_file:
                count -= 1
            self.runner.mark_recorded(count)
        return self.runner

    def _rebuilt(self, old: Session) -> tuple[Session, int] | None:
        """A new session from the saved game (and the frames not on disk yet), as a resume makes
        one: for a session the table `Rewound` (protocol.session). None if the file cannot give
        back every frame the old session released from memory."""
        assert self.writer is not None
        try:
            self.writer.sync()
            prefix = valid_prefix(self.writer.path.read_bytes())
        except (OSError, MalformedMessage) as exc:
            log.warning("cannot rebuild from the saved game: %s", exc)
            return None
        on_disk = list(prefix.frames)
        if len(on_disk) < old.frames_released or len(on_disk) > old.frame_count:
            return None
        frames = on_disk + [old.frame_at(i) for i in range(len(on_disk), old.frame_count)]
        self.session = Session.restore(
            self.config,
            self.seat,
            self.identity,
            old.secrets(),
            frames,
            decided=old.insurance.decisions_about_us(),
            **session_timeouts(self.config),
        )
        return self.session, len(on_disk)

    def _record(self, frame: bytes) -> None:
        """Save one frame; the secret goes to disk before any frame that needs it."""
        assert self.writer is not None and self.session is not None
        try:
            resume = self.resume
            if resume is not None and not self.withdrawn:
                current = self.session.secrets()
                if current != resume.secrets:
                    previous, resume.secrets = resume.secrets, current
                    try:
                        resume.save()
                    except OSError:
                        resume.secrets = previous
                        raise
            self.writer(frame)
        except OSError:
            self._withdraw()
            raise

    def _sync(self) -> None:
        """Force the saved game to the disk; once it has caught up after a failure, the .resume
        file (withdrawn meanwhile) is written again."""
        assert self.writer is not None and self.session is not None
        try:
            self.writer.sync()
        except OSError:
            self._withdraw()
            raise
        if self.withdrawn and self.resume is not None:
            # the frames are on disk: a failure here must not make the runner write them again
            try:
                self.resume.secrets = self.session.secrets()
                self.resume.save()
                self.withdrawn = False
            except OSError as exc:
                log.warning("saved game: %s not written again yet: %s", self.resume.path, exc)

    def _withdraw(self) -> None:
        """The transcript lags behind: remove the .resume file, so nobody resumes from it."""
        if self.withdrawn or self.resume is None:
            return
        self.withdrawn = True
        why = self.resume.remove()
        if why is not None:
            log.warning(
                "saved game lags behind and %s cannot be removed (%s): do not resume it",
                self.resume.path,
                why,
            )

    def _addresses_changed(self) -> None:
        """A seat told the mesh its new port (`addresses` changed, in place): kept in the
        .resume file, so that a resume dials it there."""
        if self.resume is None or self.withdrawn:
            return
        try:
            self.resume.save()
        except OSError as exc:
            log.warning("saved game: the new address not kept in %s: %s", self.resume.path, exc)

    async def play(self, say: Say | None = None) -> PeerRunner:
        runner = self.runner or self.build()
        mesh = Mesh(
            runner,
            self.identity,
            self.addresses,
            self.listener,
            genesis_signature=self.genesis_signature,
            on_moved=self._addresses_changed,
            # $SKYJO_LAN_CATCH_UP_WAIT overrides the end-of-game wait for a catching-up program
            # (tests use it, as $SKYJO_LAN_STEP_TIMEOUT)
            catch_up=float(os.environ.get("SKYJO_LAN_CATCH_UP_WAIT", "") or CATCH_UP_WAIT),
        )
        self.mesh = mesh
        _PLAYING.append(self)
        try:
            async with trio.open_nursery() as nursery:
                if not self.bot_level:  # the process's own seat: Ctrl-C steps out
                    nursery.start_soon(_step_out_on_interrupt)
                for bot in self.companions:
                    nursery.start_soon(bot.play)
                if say is not None:
                    nursery.start_soon(_narrate, runner, say)
                await mesh.run()
                nursery.cancel_scope.cancel()
        finally:
            with contextlib.suppress(ValueError):
                _PLAYING.remove(self)
            with trio.CancelScope(shield=True):
                await self.listener.aclose()
            saved = runner.final_save() if self.writer is not None else None
            if self.writer is not None:
                self.writer.close()
                if self.bot_level:
                    # a host's bot: its files exist only for `host --resume` (the host's saved
                    # game is the record); once the game is over they go, else they stay
                    if runner.done and self.resume is not None:
                        self.resume.remove()
                        with contextlib.suppress(OSError):
                            self.writer.path.unlink()
                    saved = None
        if saved is not None:
            await self._settle(runner, *saved, say)
        return runner

    async def _settle(self, runner: PeerRunner, on_disk: int, total: int, say: Say | None) -> None:
        """After the game: say whether the saved game is complete, and remove the .resume file
        (its secret key share) once the game is over and the transcript verifies."""
        assert self.writer is not None
        path = self.writer.path
        lines: list[tuple[str, bool]] = []  # (line, a problem)
        if on_disk < total:
            lines.append(
                (
                    f"saved game: {path} is INCOMPLETE: it holds {on_disk} of this peer's {total} "
                    f"frames ({runner.save_problem}); the other seats' files hold the rest",
                    True,
                )
            )
        resume = self.resume
        if resume is not None and runner.done and not self.withdrawn and not runner.session.cut_off:
            try:
                # a long game takes seconds to verify: closing the program meanwhile must not wait
                data = path.read_bytes()
                verdict = await trio.to_thread.run_sync(verify_bytes, data, abandon_on_cancel=True)
                fault = None if verdict.valid else verdict.fault
                kind = verdict.kind
            except (OSError, MalformedMessage) as exc:
                fault = getattr(exc, "reason", None) or str(exc)
            except trio.Cancelled:
                resume.finished, resume.over = runner.status.finished, True
                with contextlib.suppress(OSError):
                    resume.save()  # not offered to --resume; kept, since not verified
                log.warning("closed before %s was verified: %s is kept", path, resume.path)
                raise
            if fault is None:
                remove_bots_of(resume.genesis)
                why = resume.remove()
                if why is None:
                    if on_disk == total:
                        lines.append((f"saved game: {path} ({total} frames, verifies: {kind})", False))
                else:
                    lines.append((f"saved game: cannot remove {resume.path} ({why}): delete it", True))
            else:
                resume.finished, resume.over = runner.status.finished, True
                lines.append((f"saved game: {path} does not verify ({fault}); {resume.path} is kept", True))
                with contextlib.suppress(OSError):
                    resume.save()
        elif resume is not None and not self.withdrawn:
            with contextlib.suppress(OSError):  # not over: kept for --resume
                resume.finished = runner.status.finished
                resume.save()
        for line, problem in lines:
            log.log(logging.WARNING if problem else logging.INFO, "%s", line)
            runner.log.append(LogEntry("info", text=line))
            if say is not None:
                say(line)


AUTOPILOT_LEVEL = "greedy"
"""The bot that plays an away person's seat: the level `skyjo-lan play` seats by default."""


def autopilot_for(config: TableConfig) -> Bot | None:
    """The autopilot of a person's seat at `config`'s table: None without a move countdown."""
    if config.turn_seconds <= 0:
        return None
    try:
        return make_bot(AUTOPILOT_LEVEL, config.game, secrets.token_hex(8))
    except ValueError:  # no such level for this game (yet): the simplest bot plays
        return make_bot("random", config.game, secrets.token_hex(8))


def session_timeouts(config: TableConfig | None = None) -> dict[str, Any]:
    """Seconds before a silent seat is named absent: automatic protocol steps (twice this, since
    the first expiry relays what the late seat may lack; half the table's grace each, so the
    second expiry comes at the grace) and moves (a person thinks: the countdown and the grace
    when the table has a countdown, since the autopilot plays at the countdown's end and a slow
    person is never timed out; else 300 s; 0: never). $SKYJO_LAN_STEP_TIMEOUT and
    $SKYJO_LAN_MOVE_TIMEOUT override the table (tests use them), and so does
    $SKYJO_LAN_REMOVAL_TIMEOUT the time a proposal to remove a player stands (protocol.removals)."""
    grace = config.grace_seconds if config is not None else DEFAULT_GRACE
    turn = config.turn_seconds if config is not None else 0
    step_default = grace / 2 if grace > 0 else 30.0
    move_default = float(turn + grace) if turn > 0 else 300.0
    step = float(os.environ.get("SKYJO_LAN_STEP_TIMEOUT", "") or step_default)
    move = float(os.environ.get("SKYJO_LAN_MOVE_TIMEOUT", "") or move_default)
    removal = float(os.environ.get("SKYJO_LAN_REMOVAL_TIMEOUT", "") or 0) or None
    return {"step_timeout": step, "move_timeout": move or None, "removal_timeout": removal}


async def _narrate(runner: PeerRunner, say: Say) -> None:
    """Print the game as plain lines (headless seats, and until the terminal UI takes over)."""
    names = list(runner.config.names) or [f"seat {s + 1}" for s in range(runner.config.players)]
    shown = 0
    while True:
        while shown < len(runner.log):
            shown = max(shown, runner.log.first)  # far behind: what the log forgot is not told
            entry = runner.log[shown]
            shown += 1
            if entry.kind == "fact" and entry.fact is not None:
                line = describe(entry.fact, names)
                if line:
                    say(line)
            elif entry.kind == "chat":
                late = " (not confirmed by the table)" if entry.unconfirmed else ""
                say(f"<{names[entry.seat] if entry.seat is not None else '?'}> {entry.text}{late}")
            elif entry.kind == "blame":
                who = names[entry.seat] if entry.seat is not None else "?"
                say(f"BLAME seat {entry.seat + 1 if entry.seat is not None else '?'} ({who}): {entry.text}")
            elif entry.kind == "absent":
                say(stopped_answering(names, entry.seat, entry.waited, entry.no_link))
            elif entry.kind == "left":
                who = names[entry.seat] if entry.seat is not None else "?"
                seat = entry.seat + 1 if entry.seat is not None else "?"
                # with issue 17's protocol the table plays on (a bot takes the seat, told later);
                # before it, the leave stopped the game (its Halted comes in the same batch)
                stopped = runner.status.halted is not None and entry.seat != runner.seat
                say(f"{who} (seat {seat}) left the table" + ("; the game cannot go on." if stopped else "."))
            elif entry.kind in ("away", "takeover", "returned"):
                say(seat_news(names, entry))
            elif entry.kind == "removal":
                say(removal_news(names, entry, runner.seat))
            else:
                say(entry.text)
        await runner.changed.wait()


def seat_news(names: list[str], entry: LogEntry) -> str:
    """The line for a seat's player going away or coming back, a bot taking the seat, or its
    player taking it back (seats numbered from 1)."""
    seat = entry.seat if entry.seat is not None else -1
    who = f"{names[seat] if 0 <= seat < len(names) else '?'} (seat {seat + 1})"
    if entry.kind == "away" and entry.text == "away":
        return f"{who} is away: their own program plays for them (autopilot)."
    if entry.kind == "away":
        return f"{who} is back and plays again."
    if entry.kind == "takeover":
        why = {"left": "they left", "removed": "the table removed them"}.get(entry.text, f"they {entry.text}")
        shown = f"; {entry.disclosed} of their cards made public for it" if entry.disclosed else ""
        return f"A bot plays {who}'s seat from now on ({why}{shown})."
    return f"{who} is back and plays their seat again."


def removal_news(names: list[str], entry: LogEntry, me: int | None) -> str:
    """The line for a proposal to remove a player (issue 30 point 5): made, decided, or over
    without a decision (seats numbered from 1; `me`: this program's seat, told "you")."""

    def named(seat: int | None) -> str:
        if seat is not None and seat == me:
            return "you"
        if seat is None or not 0 <= seat < len(names):
            return "?"
        return f"{names[seat]} (seat {seat + 1})"

    who = named(entry.seat)
    if entry.text == "removed":
        return f"The table removed {who}: every other player agreed."
    if entry.text == "refused":
        stays = "You stay" if who == "you" else f"{who} stays"
        return f"{stays}: not every player agreed to the removal."
    by = "You propose" if entry.by is not None and entry.by == me else f"{named(entry.by)} proposes"
    return f"{by} to remove {who} from the game (every other player must agree)."


def stopped_answering(names: list[str], seat: int | None, waited: float | None, no_link: bool) -> str:
    """The line for a seat the table waited for in vain, said as what it is (never a cheat;
    seats numbered from 1): Anna (seat 2) stopped answering (no link for 5 min); ..."""
    who = names[seat] if seat is not None and seat < len(names) else "?"
    number = seat + 1 if seat is not None else "?"
    why = "no link" if no_link else "no answer"
    if waited is not None:
        why += f" for {duration(waited)}"
    return f"{who} (seat {number}) stopped answering ({why}); the game cannot go on."


def duration(seconds: float) -> str:
    """A wait as a person says it, as the screen does: "40 s", "5 min"."""
    whole = max(0, round(seconds))
    return f"{whole} s" if whole < 90 else f"{round(whole / 60)} min"


async def open_listener(host: str, port: int = 0) -> trio.SocketListener:
    """A TCP listener on `host` (port 0: the first free port of the range in force, see
    `client.net.ports`; any free port when none is)."""
    return await ports.open_listener(host, port)
