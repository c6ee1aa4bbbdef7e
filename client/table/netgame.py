"""`skyjo-lan host` and `skyjo-lan join`: the lobby, then the game over the LAN.

The host opens a table: a lobby listener (advertised by mDNS unless told not to) where joiners
authenticate (identity key, and the table password through SPAKE2 when there is one) and get a
seat. When the game starts the host sends every joiner the agreed table (the genesis: game,
options, seats, identity keys, a fresh session id) and everyone's address; from then on the host
is only seat 0: every peer, the host's in-process bots included, runs its own session and its
own links in the full mesh (`mesh`).

Each peer saves its transcript under $XDG_DATA_HOME/skyjo-lan/games/ (flushed per frame) and, in
a ``.resume`` file next to it, what it needs to continue after a crash: the table, its seat, its
listening address, the peers' addresses and its secret key share (written before any frame that
depends on it is sent). `--resume` rebuilds the session from both and rejoins the mesh.
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import logging
import os
import secrets
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client import cmdline, storage
from client.net.addresses import (
    OneSeatGate,
    Unresolved,
    announced_addresses,
    dial_first,
    on_our_networks_first,
    resolve,
    shown_addresses,
)
from client.net.discovery import Advertiser, TableAd, browse
from client.net.framing import FramingError
from client.net.guard import Admission, PasswordLimiter, PasswordTry, source_key
from client.net.link import Handshake, Link, LinkError, Refused, WrongPassword, accept, dial, serve
from client.net.linkproto import PeerIdentity
from client.net.linkproto import field as link_field
from client.net.mesh import HOST_SEAT, Mesh, genesis_signed_by, sign_genesis
from client.storage import TranscriptWriter, fingerprint
from protocol.config import TableConfig, check_table
from protocol.errors import MalformedMessage
from protocol.session import Session
from protocol.transcript import header, valid_prefix
from protocol.verify import verify_bytes
from skyjo_p2p.bots import make_bot
from skyjo_p2p.bots.base import Bot
from skyjo_p2p.core.errors import OptionError

from .peer import LogEntry, PeerRunner
from .textlog import describe

log = logging.getLogger("skyjo_lan.net")

LOBBY_TABLE = b"skyjo-lan/lobby"
Say = Callable[[str], None]


def _print(line: str) -> None:
    print(line, flush=True)


# --- persistence for --resume ----------------------------------------------------------------------


@dataclass
class ResumeInfo:
    """What a peer needs to continue a game after a crash (kept next to the transcript)."""

    transcript: Path
    genesis: bytes
    seat: int
    host: str
    port: int
    addresses: list[tuple[str, int]]
    secrets: dict[str, Any] = field(default_factory=dict)
    finished: bool = False
    genesis_signature: bytes = b""
    over: bool = False
    """The game is over for this peer (finished or stopped): nothing left to resume. Set when
    the file is kept after the end (its transcript did not verify), so it is not offered."""

    @property
    def path(self) -> Path:
        return self.transcript.with_suffix(".resume")

    def save(self) -> None:
        """Write the file (mode 0600: it holds a secret key share) atomically and force it to
        the disk before the frames that rely on it are sent. Raises `storage.SaveError`."""
        data = msgpack.packb(
            {
                "transcript": str(self.transcript),
                "genesis": self.genesis,
                "seat": self.seat,
                "host": self.host,
                "port": self.port,
                "addresses": [list(a) for a in self.addresses],
                "secrets": self.secrets,
                "finished": self.finished,
                "gsig": self.genesis_signature,
                "over": self.over,
            },
            use_bin_type=True,
        )
        tmp = self.path.with_suffix(".resume.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            tmp.replace(self.path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            raise storage.SaveError(f"cannot write {self.path}: {exc.strerror or exc}", exc.errno) from None

    def remove(self) -> str | None:
        """Delete the file (the game is over: its secret key share must not stay on disk).
        None when done, else why not."""
        try:
            self.path.unlink(missing_ok=True)
        except OSError as exc:
            return exc.strerror or str(exc)
        return None

    @classmethod
    def load(cls, path: Path) -> ResumeInfo:
        raw = msgpack.unpackb(path.read_bytes(), raw=False, strict_map_key=False)
        return cls(
            transcript=Path(raw["transcript"]),
            genesis=raw["genesis"],
            seat=raw["seat"],
            host=raw["host"],
            port=raw["port"],
            addresses=[(str(h), int(p)) for h, p in raw["addresses"]],
            secrets=raw.get("secrets", {}),
            finished=raw.get("finished", False),
            genesis_signature=raw.get("gsig", b""),
            over=bool(raw.get("over", False)),
        )


RESUMABLE_FOR = 24 * 3600.0
"""Seconds after its last write a game is still offered to `--resume`. The other seats give up
on a silent seat within minutes (`session_timeouts`); a day covers a reboot or a night's sleep
without offering, for ever, a game whose players have long gone home."""


def latest_resumable(now: float | None = None) -> ResumeInfo | None:
    """The most recent game of this machine that can still be resumed: not over, its transcript
    still there, and written to within `RESUMABLE_FOR` seconds. Older ones are not offered (and
    say why in the log); their files stay for `verify`."""
    folder = storage.games_dir()
    now = time.time() if now is None else now

    def mtime(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except OSError:
            return 0.0

    candidates = sorted(folder.glob("*.resume"), key=mtime, reverse=True) if folder.is_dir() else []
    for path in candidates:
        try:
            info = ResumeInfo.load(path)
        except (OSError, ValueError, KeyError, TypeError, msgpack.UnpackException):
            log.info("not resumable: %s is not a resume file", path)
            continue
        if info.finished or info.over:
            continue
        last = max(mtime(path), mtime(info.transcript))
        if not info.transcript.is_file():
            log.info("not resumable: %s: its saved game %s is gone", path, info.transcript)
        elif now - last > RESUMABLE_FOR:
            log.info("not resumable: %s was last written %.0f hours ago", path, (now - last) / 3600)
        else:
            return info
    return None


def _check_saving(save: bool) -> None:
    """Before taking a seat: can this machine save the game? `storage.SaveError` (one line)
    if not, so a peer never takes a seat it would leave at the first frame."""
    if save:
        storage.check_writable()


# --- a seated peer: session + runner + mesh, with persistence ---------------------------------------


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
                )
                self.resume.save()
        timeouts = session_timeouts()
        if restored is not None:
            frames, secret_state = restored
            self.session = Session.restore(
                self.config, self.seat, self.identity, secret_state, frames, **timeouts
            )
        else:
            self.session = Session(self.config, self.seat, self.identity, **timeouts)
        self.runner = PeerRunner(
            self.session,
            self.policy,
            record=self._record if writer is not None else None,
            sync=self._sync if writer is not None else None,
            think_time=self.think_time,
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

    async def play(self, say: Say | None = None) -> PeerRunner:
        runner = self.runner or self.build()
        mesh = Mesh(
            runner, self.identity, self.addresses, self.listener, genesis_signature=self.genesis_signature
        )
        try:
            async with trio.open_nursery() as nursery:
                if say is not None:
                    nursery.start_soon(_narrate, runner, say)
                await mesh.run()
                nursery.cancel_scope.cancel()
        finally:
            with trio.CancelScope(shield=True):
                await self.listener.aclose()
            saved = runner.final_save() if self.writer is not None else None
            if self.writer is not None:
                self.writer.close()
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
        if resume is not None and runner.done and not self.withdrawn:
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


def session_timeouts() -> dict[str, Any]:
    """Seconds before a silent seat is blamed: automatic protocol steps (twice this, since the
    first expiry relays what the late seat may lack) and moves (a person thinks; 0: never).
    $SKYJO_LAN_STEP_TIMEOUT and $SKYJO_LAN_MOVE_TIMEOUT override the defaults."""
    step = float(os.environ.get("SKYJO_LAN_STEP_TIMEOUT", "30"))
    move = float(os.environ.get("SKYJO_LAN_MOVE_TIMEOUT", "300"))
    return {"step_timeout": step, "move_timeout": move or None}


async def _narrate(runner: PeerRunner, say: Say) -> None:
    """Print the game as plain lines (headless seats, and until the terminal UI takes over)."""
    names = list(runner.config.names) or [f"seat {s}" for s in range(runner.config.players)]
    shown = 0
    while True:
        while shown < len(runner.log):
            entry = runner.log[shown]
            shown += 1
            if entry.kind == "fact" and entry.fact is not None:
                line = describe(entry.fact, names)
                if line:
                    say(line)
            elif entry.kind == "chat":
                say(f"<{names[entry.seat] if entry.seat is not None else '?'}> {entry.text}")
            elif entry.kind == "blame":
                who = names[entry.seat] if entry.seat is not None else "?"
                say(f"BLAME seat {entry.seat} ({who}): {entry.text}")
            elif entry.kind == "absent":
                who = names[entry.seat] if entry.seat is not None else "?"
                say(f"ABSENT seat {entry.seat} ({who}) stopped answering (not a cheat): {entry.text}")
            else:
                say(entry.text)
        await runner.changed.wait()


def _addresses(raw: list[object]) -> list[tuple[str, int]]:
    """The peers' game addresses from the host's start message, each checked: [host, port]."""
    out: list[tuple[str, int]] = []
    for item in raw:
        if not (
            isinstance(item, list | tuple)
            and len(item) == 2
            and isinstance(item[0], str)
            and 0 < len(item[0]) <= 255
            and isinstance(item[1], int)
            and not isinstance(item[1], bool)
            and 0 < item[1] < 65536
        ):
            raise LinkError("the host sent a malformed list of peer addresses")
        out.append((item[0], item[1]))
    return out


async def open_listener(host: str, port: int = 0) -> trio.SocketListener:
    listeners = await trio.open_tcp_listeners(port, host=host)
    return listeners[0]


# --- the host ------------------------------------------------------------------------------------


@dataclass
class SeatInfo:
    name: str
    key: bytes
    kind: str  # "host" | "player" | "bot"
    link: Link | None = None
    host: str = ""
    port: int = 0
    returning: bool = False


@dataclass
class HostOptions:
    game: str = "skyjo"
    options: dict[str, Any] = field(default_factory=dict)
    table: str = "skyjo"
    seats: int = 4
    bots: int = 0
    bot_level: str = "greedy"
    password: str | None = None
    port: int = 0
    interface: str = "0.0.0.0"
    name: str = "host"
    headless: str | None = None  # bot level playing the host's own seat
    advertise: bool = True
    think_time: float = 0.0
    save: bool = True

    def __post_init__(self) -> None:
        """Refuse (`OptionError`) a table that cannot be hosted, before anything is opened (a port
        out of range would otherwise be wrapped by getaddrinfo into another port, silently)."""
        if not 0 <= self.port <= cmdline.PORT_MAX:
            raise OptionError(f"{self.port} is not a port (1 to {cmdline.PORT_MAX}, or 0 for any free port)")
        check_hosted(self)


def check_hosted(opts: HostOptions, players: int | None = None) -> None:
    """Raise `OptionError` unless `opts` make a table for `players` (default: every seat) that
    the rules accept and a genesis carries (`protocol.config.check_table`), under a name every
    peer can show and mDNS can announce (`cmdline.table_name`: a bad name used to crash the host
    at the first joiner, or make a table `discover` never lists)."""
    try:
        cmdline.table_name(opts.table, "")
    except cmdline.InputError as exc:
        raise OptionError(exc.reason) from None
    try:
        check_table(opts.game, opts.seats if players is None else players, opts.options)
    except MalformedMessage as exc:
        raise OptionError(exc.reason) from None


class Host:
    def __init__(self, opts: HostOptions, identity: Ed25519PrivateKey, say: Say = _print) -> None:
        self.opts = opts
        self.identity = identity
        self.say = say
        self.seats: list[SeatInfo] = [SeatInfo(opts.name, identity.public_key().public_bytes_raw(), "host")]
        self.started = False
        self.start_now = trio.Event()
        self.lobby_changed = trio.Event()
        self.advertiser: Advertiser | None = None
        self.lobby_port = 0
        self.address = opts.interface
        self.reachable: list[str] = []
        """The addresses the lobby is announced and shown at (`addresses.announced_addresses`)."""
        self.chat: list[tuple[str, str]] = []
        self.addresses: list[tuple[str, int]] = []
        """Every seat's address once the game has started."""
        self.config: TableConfig | None = None
        self.runner: PeerRunner | None = None
        self.problem: str | None = None
        """Why the last request to start was refused (see `start_problem`)."""
        self.admission = Admission(passwords=PasswordLimiter() if opts.password is not None else None)
        """The lobby's handshake caps and password guessing limits (`guard`); its `passwords`
        counts the wrong passwords the lobby screen shows."""

    @property
    def humans_wanted(self) -> int:
        return self.opts.seats - self.opts.bots

    def lobby_view(self) -> dict[str, Any]:
        return {
            "t": "lobby",
            "table": self.opts.table,
            "game": self.opts.game,
            "options": self.opts.options,
            "seats": [
                {"name": s.name, "fp": fingerprint(s.key), "kind": s.kind, "returning": s.returning}
                for s in self.seats
            ],
            "total": self.opts.seats,
            "bots": self.opts.bots,
            "password": self.opts.password is not None,
            "chat": [list(entry) for entry in self.chat[-20:]],
        }

    def _changed(self) -> None:
        self.lobby_changed.set()
        self.lobby_changed = trio.Event()
        view = self.lobby_view()
        for seat in self.seats:
            if seat.link is not None:
                seat.link.send(view)
        taken = len(self.seats) + self.opts.bots
        self.say(
            f"lobby: {len(self.seats)}/{self.humans_wanted} players "
            f"({', '.join(f'{s.name} [{fingerprint(s.key)}]' for s in self.seats)}) + {self.opts.bots} bot(s)"
        )
        if self.opts.headless is not None and taken >= self.opts.seats:
            self.start_now.set()

    def start_problem(self) -> str | None:
        """Why the game cannot start with the players seated now (the options may not allow
        fewer players than seats: teams, a stock size...); None when it can. Kept in `problem`."""
        try:
            check_hosted(self.opts, len(self.seats) + self.opts.bots)
        except OptionError as exc:
            self.problem = exc.reason
            return self.problem
        return None

    async def run(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> PeerRunner | None:
        """Open the lobby, seat players until the game starts, then play it.

        Raises `OptionError` before opening anything if the options do not make a table."""
        opts = self.opts
        check_hosted(opts)
        _check_saving(opts.save)  # before any seat is offered: SaveError, one line
        lobby = await open_listener(opts.interface, opts.port)
        self.lobby_port = lobby.socket.getsockname()[1]
        mesh_listener = await open_listener(opts.interface)
        self.reachable = announced_addresses(opts.interface)
        self.say(
            f"table {opts.table!r} ({opts.game}) open on {shown_addresses(self.reachable, self.lobby_port)}; "
            f"your fingerprint {fingerprint(self.seats[0].key)}"
        )
        if opts.advertise:
            self.advertiser = Advertiser(
                opts.table,
                opts.game,
                self.lobby_port,
                self.reachable,
                opts.seats,
                opts.password is not None,
                interfaces=[opts.interface] if opts.interface != "0.0.0.0" else None,
                key=self.seats[0].key,
            )
            await self.advertiser.start(len(self.seats) + opts.bots)
        task_status.started(self.lobby_port)
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._accept_loop, lobby, nursery)
                self._changed()
                await self.start_now.wait()
                while (problem := self.start_problem()) is not None:
                    self.say(f"cannot start yet: {problem}")
                    self.start_now = trio.Event()
                    self._changed()
                    await self.start_now.wait()
                self.problem = None
                self.started = True
                self.lobby_changed.set()  # the lobby screen leaves for the game
                self.lobby_changed = trio.Event()
                if self.advertiser is not None:
                    await self.advertiser.stop()
                return await self._start(mesh_listener, nursery)
        finally:
            if self.advertiser is not None:
                await self.advertiser.stop()

    async def _accept_loop(self, listener: trio.SocketListener, nursery: trio.Nursery) -> None:
        admission = self.admission

        def refused(source: str, kind: str, line: str) -> None:
            """Say a refusal, once per source, kind and minute (a flood must not flood the log)."""
            missed = admission.log.note(f"{kind}:{source_key(source)}", trio.current_time())
            if missed is not None:
                self.say(line + (f" ({missed} more like it not shown)" if missed else ""))

        async def handle(stream: trio.SocketStream, handshake: Handshake) -> None:
            source = handshake.source
            gate = (
                PasswordTry(admission.passwords, source, trio.current_time)
                if admission.passwords is not None
                else None
            )

            def admit(peer: PeerIdentity, hello: dict[str, Any]) -> str | None:
                if self.started:
                    return "the game has already started"
                if any(s.key == peer.key for s in self.seats):
                    return "this identity is already seated"
                if len(self.seats) >= self.humans_wanted:
                    return "the table is full"
                return None

            try:
                link, _hello = await accept(
                    stream,
                    self.identity,
                    name=self.opts.name,
                    table=LOBBY_TABLE,
                    password=self.opts.password,
                    admit=admit,
                    accepted=lambda peer, hello: {"seat": len(self.seats)},
                    gate=gate,
                )
            except WrongPassword:
                assert admission.passwords is not None and gate is not None
                failed = admission.passwords.failed_total
                wait = f"; that address now waits {gate.wait:.0f} s" if gate.wait else ""
                self.say(
                    f"refused a player from {source}: wrong password "
                    f"({failed} wrong password{'s' if failed != 1 else ''} so far{wait})"
                )
                self.lobby_changed.set()  # the lobby screen counts failed attempts
                self.lobby_changed = trio.Event()
                with trio.move_on_after(1):
                    await stream.aclose()
                return
            except Refused as exc:
                refused(source, "refused", f"refused a player from {source}: {exc}")
                with trio.move_on_after(1):
                    await stream.aclose()
                return
            except (LinkError, FramingError, trio.TooSlowError, trio.BrokenResourceError, OSError) as exc:
                log.info("lobby connection refused: %s", exc)
                refused(source, "broken", f"refused a connection from {source}: {exc}")
                with trio.move_on_after(1):
                    await stream.aclose()
                return
            finally:
                if gate is not None:
                    gate.close()
                handshake.done()
            returning = storage.remember_peer(link.peer.key, link.peer.name)
            seat = SeatInfo(
                link.peer.name, link.peer.key, "player", link, link.peer.host, link.peer.port, returning
            )
            self.seats.append(seat)
            self.say(f"{seat.name} joined [{fingerprint(seat.key)}]{' (seen before)' if returning else ''}")
            self._changed()
            async with trio.open_nursery() as inner:
                inner.start_soon(link.writer)
                try:
                    while not self.started:
                        message = await link.receive()
                        if message is None or message["t"] == "bye":
                            break
                        if message["t"] == "chat" and isinstance(message.get("text"), str):
                            self.chat.append((seat.name, message["text"][:200]))
                            self._changed()
                except (LinkError, FramingError, trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass
                if not self.started:
                    self.seats.remove(seat)
                    self.say(f"{seat.name} left")
                    self._changed()
                    await link.aclose()
                inner.cancel_scope.cancel()

        async def serving() -> None:
            await serve(listener, handle, admission, what="lobby", say=self.say)

        nursery.start_soon(serving)

    async def _start(self, mesh_listener: trio.SocketListener, nursery: trio.Nursery) -> PeerRunner | None:
        opts = self.opts
        bot_keys = [Ed25519PrivateKey.generate() for _ in range(opts.bots)]
        bot_listeners = [await open_listener(opts.interface) for _ in range(opts.bots)]
        names = [s.name for s in self.seats] + [f"bot {i + 1}" for i in range(opts.bots)]
        keys = [s.key for s in self.seats] + [k.public_key().public_bytes_raw() for k in bot_keys]
        config = TableConfig(
            session_id=secrets.token_bytes(32),
            game=opts.game,
            players=len(keys),
            identities=tuple(keys),
            options=dict(opts.options),
            names=tuple(n[:32] for n in names),
        )
        signature = sign_genesis(self.identity, config)
        mine = mesh_listener.socket.getsockname()[1]
        bot_ports = [listener.socket.getsockname()[1] for listener in bot_listeners]
        for index, seat in enumerate(self.seats):
            if seat.link is None:
                continue
            local = _local_address(seat.link) or self.address
            joiners = [(other.host, other.port) for other in self.seats[1:]]
            addresses = seat_addresses(local, mine, joiners, bot_ports)
            seat.link.send(
                {
                    "t": "start",
                    "genesis": config.encode(),
                    "gsig": signature,
                    "seat": index,
                    "addresses": [list(a) for a in addresses],
                }
            )
        local_host = self.address if self.address != "0.0.0.0" else "127.0.0.1"
        own_addresses = (
            [(local_host, mine)]
            + [(s.host, s.port) for s in self.seats[1:]]
            + [(local_host, p) for p in bot_ports]
        )
        self.addresses = own_addresses
        self.config = config
        self.say(f"game starts: {', '.join(names)}")
        policy = make_bot(opts.headless, opts.game, secrets.token_hex(8)) if opts.headless else None
        me = Peer(
            config,
            0,
            self.identity,
            mesh_listener,
            own_addresses,
            policy,
            save=opts.save,
            think_time=opts.think_time,
            genesis_signature=signature,
        )
        for index, (key, listener) in enumerate(zip(bot_keys, bot_listeners, strict=True)):
            bot = Peer(
                config,
                len(self.seats) + index,
                key,
                listener,
                own_addresses,
                make_bot(opts.bot_level, opts.game, secrets.token_hex(8)),
                save=False,
                think_time=opts.think_time,
                genesis_signature=signature,
            )
            nursery.start_soon(bot.play)
        runner = me.build()
        self.runner = runner
        await me.play(self.say)
        nursery.cancel_scope.cancel()
        return runner


def seat_addresses(
    local: str, mine: int, joiners: list[tuple[str, int]], bot_ports: list[int]
) -> list[tuple[str, int]]:
    """Every seat's game address as the host tells the joiner that reached it on `local`: seat 0
    and the host's bots where that joiner reached the host, each joiner where the host saw it.

    A joiner on the host's own machine came in on loopback: a joiner elsewhere reaches it where it
    reaches the host (it listens on every interface unless told otherwise), never on 127.0.0.1,
    which would be the joiner's own machine."""
    addresses = [(local, mine)]
    for host, port in joiners:
        there = local if _is_loopback(host) and not _is_loopback(local) else host
        addresses.append((there, port))
    return addresses + [(local, port) for port in bot_ports]


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _local_address(link: Link) -> str:
    """The address a joiner reached us on: the one it can reach seat 0 and the host's bots at
    (they listen on the same interfaces), whichever of our networks it is on."""
    try:
        return str(link.stream.socket.getsockname()[0])  # type: ignore[union-attr]
    except (AttributeError, OSError):
        return ""


# --- joining -------------------------------------------------------------------------------------


@dataclass
class JoinOptions:
    target: str | None = None  # table name, HOST:PORT, or None to list and pick
    name: str = "player"
    password: str | None = None
    headless: str | None = None
    interface: str = "0.0.0.0"
    discovery_seconds: float = 3.0
    pick: Callable[[list[TableAd]], TableAd | None] | None = None
    think_time: float = 0.0
    save: bool = True
    found: Destination | None = None
    """The table, when it was found already (the screen finds it before it opens)."""


@dataclass
class Destination:
    """Where a table is: every address to try, in order (see `addresses.dial_first`), and the
    host's identity key when its announcement stated it (the handshake must then prove that key,
    so an address of another network that reaches another program is not taken for the table)."""

    endpoints: list[tuple[str, int]]
    key: bytes | None = None


async def find_table(opts: JoinOptions, say: Say) -> Destination:
    """Where the table `opts` names is.

    HOST:PORT: the addresses HOST resolves to, within `addresses.RESOLVE_TIMEOUT`. A table name,
    or none (choose from the list): every address the table announced."""
    if opts.found is not None:
        return opts.found
    target = opts.target
    if target and ":" in target:
        host, _, port_text = target.rpartition(":")
        host = host.strip("[]")
        try:
            port = int(port_text)
        except ValueError:
            raise LinkError(f"{target!r} is not HOST:PORT") from None
        if not host:
            raise LinkError(f"{target!r} has no host before the port")
        return Destination(await resolve(host, port))
    interfaces = [opts.interface] if opts.interface != "0.0.0.0" else None
    tables = await browse(opts.discovery_seconds, interfaces)
    for ad in tables:
        if not ad.compatible:
            say(f"(ignoring {ad.name!r}: {ad.problem})")
    usable = [ad for ad in tables if ad.compatible]
    if target:
        usable = [ad for ad in usable if ad.name == target]
        if not usable:
            raise LinkError(f"no table named {target!r} answered on the LAN")
    if not usable:
        raise LinkError("no table found on the LAN (try `skyjo-lan join HOST:PORT`)")
    chosen = usable[0] if (target or opts.pick is None) else opts.pick(usable)
    if chosen is None:
        raise LinkError("no table chosen")
    seated = f"{chosen.taken}/{chosen.seats}"
    endpoints = on_our_networks_first(chosen.endpoints)
    shown = shown_addresses([host for host, _ in endpoints], chosen.port)
    say(f"joining {chosen.name!r} ({chosen.game}, {seated}) at {shown}")
    return Destination(endpoints, chosen.key or None)


class Joiner:
    """A player joining a table: the lobby as the host shows it, then this peer's game."""

    def __init__(self, opts: JoinOptions, identity: Ed25519PrivateKey, say: Say = _print) -> None:
        self.opts = opts
        self.identity = identity
        self.say = say
        self.lobby: dict[str, Any] = {}
        """The host's last lobby message (seats, game, options, chat)."""
        self.lobby_changed = trio.Event()
        self.address = ""
        self.started = False
        self.closed = ""
        self.link: Link | None = None
        self.runner: PeerRunner | None = None
        self.peer: Peer | None = None

    def _changed(self) -> None:
        self.lobby_changed.set()
        self.lobby_changed = trio.Event()

    async def send_chat(self, text: str) -> None:
        if self.link is not None and text.strip():
            self.link.send({"t": "chat", "text": text.strip()[:200]})

    async def leave(self) -> None:
        if self.link is not None:
            self.link.send({"t": "bye"})
            await trio.sleep(0.1)
            await self.link.aclose()

    async def run(self) -> PeerRunner | None:
        opts, identity, say = self.opts, self.identity, self.say
        _check_saving(opts.save)  # before taking a seat: SaveError, one line
        table = await find_table(opts, say)
        self.address = ", ".join(f"{host}:{port}" for host, port in table.endpoints[:1])
        listener = await open_listener(opts.interface)
        my_port = listener.socket.getsockname()[1]
        gate = OneSeatGate()  # two addresses of one host must not seat us twice

        async def handshake(stream: trio.SocketStream) -> tuple[Link, dict[str, Any]]:
            gated = gate.wrap(stream)
            try:
                return await dial(
                    gated,
                    identity,
                    name=opts.name,
                    role="join",
                    table=LOBBY_TABLE,
                    port=my_port,
                    password=opts.password,
                    expect_key=table.key,
                )
            except BaseException:
                gate.release(gated)
                raise

        async def discard(result: tuple[Link, dict[str, Any]]) -> None:
            await result[0].aclose()

        try:
            # bound to our interface if we have one: the host tells the others where we are from
            # the address it sees us come from, and we listen on that interface only
            (link, accepted), (host, port) = await dial_first(
                table.endpoints,
                handshake,
                discard,
                local_address=opts.interface if opts.interface != "0.0.0.0" else None,
            )
        except BaseException:
            with trio.CancelScope(shield=True):
                await listener.aclose()
            raise
        self.address = f"{host}:{port}"
        self.link = link
        say(
            f"seated at {host}:{port} as seat {accepted.get('seat')}; your fingerprint "
            f"{fingerprint(identity.public_key().public_bytes_raw())}"
        )
        start: dict[str, Any] | None = None
        failure: BaseException | None = None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(link.writer)
            try:
                start = await _wait_for_start(link, say, self._lobby_message)
            except (
                LinkError,
                FramingError,
                trio.BrokenResourceError,
                trio.ClosedResourceError,
                OSError,
            ) as exc:
                failure = exc
            nursery.cancel_scope.cancel()
        await link.aclose()
        if failure is not None or start is None:
            self.closed = str(failure or "the host closed the table")
            self._changed()
            raise LinkError(f"the lobby connection failed: {failure}")
        try:
            config = TableConfig.decode(link_field(start, "genesis", bytes, most=4096))
        except MalformedMessage as exc:
            # A table this peer's own engine refuses (invalid options, say): never start on it.
            self.closed = f"the host's table is refused: {exc.reason}"
            self._changed()
            raise Refused(self.closed) from None
        signature = link_field(start, "gsig", bytes, size=64)
        if config.identities[HOST_SEAT] != link.peer.key or not genesis_signed_by(
            link.peer.key, config, signature
        ):
            raise LinkError("the host's table is not signed by the host we joined")
        seat = link_field(start, "seat", int, most=7)
        raw = link_field(start, "addresses", list, most=8)
        addresses = _addresses(raw)
        if seat >= config.players or config.identities[seat] != identity.public_key().public_bytes_raw():
            raise LinkError("the host's table does not seat our key where it said")
        for other, key in enumerate(config.identities):
            if other != seat:
                storage.remember_peer(key, config.names[other] if config.names else f"seat {other}")
        say(f"game starts: {', '.join(config.names)}")
        policy = make_bot(opts.headless, config.game, secrets.token_hex(8)) if opts.headless else None
        self.peer = Peer(
            config,
            seat,
            identity,
            listener,
            addresses,
            policy,
            save=opts.save,
            think_time=opts.think_time,
            genesis_signature=signature,
        )
        self.runner = self.peer.build()
        self.started = True
        self._changed()
        return await self.peer.play(say)

    def _lobby_message(self, message: dict[str, Any]) -> None:
        self.lobby = message
        self._changed()


async def join(opts: JoinOptions, identity: Ed25519PrivateKey, say: Say = _print) -> PeerRunner | None:
    """Join a table (by name, HOST:PORT, or picked from those found) and play."""
    return await Joiner(opts, identity, say).run()


async def _wait_for_start(
    link: Link, say: Say, on_lobby: Callable[[dict[str, Any]], None] | None = None
) -> dict[str, Any]:
    """Follow the lobby as the host updates it, until the game starts."""
    while True:
        message = await link.receive()
        if message is None:
            raise LinkError("the host closed the lobby")
        if message["t"] == "lobby":
            seats = message.get("seats", [])
            names = ", ".join(f"{s.get('name')} [{s.get('fp')}]" for s in seats if isinstance(s, dict))
            say(f"lobby: {names} + {message.get('bots', 0)} bot(s), {message.get('total')} seats")
            if on_lobby is not None:
                on_lobby(message)
        elif message["t"] == "start":
            return message


async def resume(
    identity: Ed25519PrivateKey, info: ResumeInfo, headless: str | None, say: Say = _print
) -> PeerRunner:
    """Continue a game after a crash: rebuild the session from the transcript, rejoin the mesh.

    The transcript is first cut back to its last whole, valid record (a kill mid-write leaves a
    torn one, a bad disk a corrupt one): appended after such a record, the rest of the game
    would be unreadable. What is cut is said; the other seats send those frames again."""
    keep, frames, cut = _saved_frames(info)
    config = TableConfig.decode(info.genesis)
    if config.identities[info.seat] != identity.public_key().public_bytes_raw():
        raise LinkError("this game was played with another identity key")
    if cut:
        log.warning("resume: %s", cut)
        say(cut)
    listener = await open_listener(info.host, info.port)
    policy = make_bot(headless, config.game, secrets.token_hex(8)) if headless else None
    peer = Peer(
        config,
        info.seat,
        identity,
        listener,
        info.addresses,
        policy,
        resume=info,
        genesis_signature=info.genesis_signature,
    )
    peer.build(restored=(frames, info.secrets), keep=keep)
    say(f"resuming {config.game} as seat {info.seat} from {len(frames)} saved frames")
    return await peer.play(say)


def _saved_frames(info: ResumeInfo) -> tuple[int, list[bytes], str]:
    """The saved game's valid prefix: its length, its frames, and what is cut after it (a line
    to show; empty when nothing is). `LinkError` if it is not this game's transcript."""
    path = info.transcript
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LinkError(f"cannot read the saved game {path}: {exc.strerror or exc}") from None
    try:
        config = TableConfig.decode(info.genesis)
    except MalformedMessage as exc:
        raise LinkError(f"{info.path} is damaged: {exc.reason}") from None
    first = header(config)
    if len(data) < len(first) and first.startswith(data):  # killed while writing the header
        torn = f"the saved game {path} was cut while its table was being written: {len(data)} bytes cut"
        return 0, [], torn if data else ""
    try:
        prefix = valid_prefix(data)
    except MalformedMessage as exc:
        raise LinkError(f"the saved game {path} is not readable: {exc.reason}") from None
    if prefix.config.encode() != info.genesis:
        raise LinkError("the resume file does not match its transcript")
    if info.seat in prefix.cut_seats or None in prefix.cut_seats:
        # A whole record of ours may be a frame the others already hold: made anew on resume it
        # would differ, and two versions of one frame are equivocation (this seat blamed as a
        # cheat). Not resuming only makes this seat absent. (A torn record was never sent.)
        raise Refused(
            f"cannot resume from {path}: after {len(prefix.frames)} frames it holds "
            f"{prefix.reason}, and the damaged part holds frames of this seat (or records that "
            "cannot be read) that the others may already hold; made anew they would differ "
            "(equivocation). The others will stop the game and name this seat absent, not a cheat"
        )
    cut = ""
    if prefix.cut_bytes:
        cut = (
            f"the saved game {path} ended with {prefix.reason}: {prefix.cut_bytes} bytes "
            f"({prefix.cut_records} record(s)) cut after {len(prefix.frames)} frames; the other "
            "seats send what is missing again"
        )
    return prefix.length, prefix.frames, cut


def parse_hostport(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``[IPv6]:PORT``) as a host and a port 1-65535; `cmdline.InputError`
    with one line otherwise (a bare address without its port included)."""
    return cmdline.hostport(text)


_KNOWN_ERRORS = (
    Refused,
    LinkError,
    FramingError,
    OSError,
    trio.TooSlowError,
    trio.BrokenResourceError,
    trio.ClosedResourceError,
    OptionError,
)
"""What a network command may end with that is not a bug: each is told in one line."""

_USER_ERRNOS = {
    errno.EADDRINUSE: "a port it needs is already in use",
    errno.EADDRNOTAVAIL: "an address it was given is not one of this machine's",
    errno.EACCES: "permission denied (ports below 1024 need privileges)",
}
"""Listening errors that come from what was typed (a port, an --interface): exit status 2."""


def _leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, in order; `exc` itself otherwise."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _one_line(exc: BaseException) -> tuple[str, int] | None:
    """The line and exit status that tell `exc` (a single error or a group of them), or None
    when it holds anything else (a bug: its traceback is worth more than a summary)."""
    leaves = _leaves(exc)
    if any(isinstance(leaf, KeyboardInterrupt) for leaf in leaves):
        return "", 130
    if not leaves or not all(isinstance(leaf, _KNOWN_ERRORS) for leaf in leaves):
        return None
    for leaf in leaves:  # the most telling first: a refused table, then what was typed
        if isinstance(leaf, OptionError):
            return leaf.reason, 2
    for leaf in leaves:
        if isinstance(leaf, Refused):
            return f"refused: {leaf}", 1
    for leaf in leaves:
        if isinstance(leaf, OSError) and leaf.errno in _USER_ERRNOS:
            return _USER_ERRNOS[leaf.errno], 2
        if isinstance(leaf, Unresolved):  # a typed name, most of the time
            return str(leaf), 2
    leaf = leaves[0]
    if isinstance(leaf, trio.BrokenResourceError | trio.ClosedResourceError):
        return "the connection was closed by the other end", 1
    text = str(leaf) if not isinstance(leaf, OSError) or leaf.errno is None else leaf.strerror
    return f"network error: {text or type(leaf).__name__}", 1


def _network_errors(run: Callable[[], int], command: str) -> int:
    """Run a network command; what ends it that is not a bug (a refused or broken connection, a
    port in use, a table the options refuse), even raised inside a trio nursery as an exception
    group, is one line on standard error: ``skyjo-lan COMMAND: ...``. Exit status 2 for what was
    typed (options, a port, an address), 1 for the network, 130 for Ctrl-C (quietly)."""
    try:
        return run()
    except BaseException as exc:
        told = _one_line(exc)
        if told is None:
            raise
        line, code = told
        if line:
            log.info("%s ends: %s", command, line, exc_info=exc)
            print(f"skyjo-lan {command}: {line}", file=sys.stderr, flush=True)
        return code


def run_host(opts: HostOptions, say: Say = _print) -> int:
    """`skyjo-lan host` without the screen: the lobby and the game as lines on `say`."""
    identity = storage.load_identity()

    async def main() -> int:
        host = Host(opts, identity, say)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_wait_for_enter, host)  # a bot's seat too: Enter may start early
            runner = await host.run()
            nursery.cancel_scope.cancel()
        return _exit_code(runner)

    return _network_errors(lambda: trio.run(main), "host")


async def _wait_for_enter(host: Host) -> None:
    """Start the game when the host presses Enter; with no terminal, when every seat is taken.

    The end of standard input (closed: a service, `nohup`, CI; or Ctrl-D) is not a request to
    start: a table started then would start alone and stop. Lines from a pipe still start it."""
    stdin = sys.stdin
    terminal = stdin is not None and stdin.isatty()
    if terminal:
        host.say("press Enter to start the game with the players seated now")
    else:
        host.say("no terminal: the game starts when every seat is taken")
    async with trio.open_nursery() as nursery:
        if not terminal:
            nursery.start_soon(_start_when_full, host)
        while stdin is not None and not host.started:  # Enter again after a refused start
            try:
                line = await trio.to_thread.run_sync(stdin.readline, abandon_on_cancel=True)
            except (OSError, ValueError):  # UnicodeDecodeError is a ValueError
                line = ""
            if not line:
                break
            host.start_now.set()
            await trio.sleep(0.1)
        if terminal and not host.started:
            host.say("end of input: the game starts when every seat is taken")
            nursery.start_soon(_start_when_full, host)


async def _start_when_full(host: Host) -> None:
    """Ask the host to start as soon as every seat is taken (players and bots)."""
    while not host.started:
        if len(host.seats) + host.opts.bots >= host.opts.seats:
            host.start_now.set()
            return
        await host.lobby_changed.wait()


def run_join(opts: JoinOptions, say: Say = _print) -> int:
    """`skyjo-lan join` without the screen."""
    identity = storage.load_identity()

    async def main() -> int:
        return _exit_code(await join(opts, identity, say))

    return _network_errors(lambda: trio.run(main), "join")


def run_resume(headless: str | None, say: Say = _print) -> int:
    """`--resume`: continue this machine's latest unfinished game."""
    identity = storage.load_identity()
    info = latest_resumable()
    if info is None:
        print("skyjo-lan: no unfinished game to resume on this machine", file=sys.stderr, flush=True)
        return 2

    async def main() -> int:
        return _exit_code(await resume(identity, info, headless, say))

    return _network_errors(lambda: trio.run(main), "resume")


def _exit_code(runner: PeerRunner | None) -> int:
    """0 for a finished game, 1 for one that stopped (halted, left, or never started)."""
    if runner is None:
        return 1
    if runner.status.halted:
        return 1
    return 0 if runner.status.finished else 1


__all__: Sequence[str] = [
    "Host",
    "HostOptions",
    "JoinOptions",
    "ResumeInfo",
    "join",
    "resume",
    "run_host",
    "run_join",
]
