"""`skyjo-lan host`: the lobby, then the host's seat in the game over the LAN.

The host opens a table: a lobby listener (advertised by mDNS unless told not to) where joiners
authenticate (identity key, and the table password through SPAKE2 when there is one) and get a
seat. When the game starts the host sends every joiner the agreed table (the genesis: game,
options, seats, identity keys, a fresh session id) and everyone's address (`seat_addresses`);
from then on the host is only seat 0 (`seat.Peer`).
"""

from __future__ import annotations

import ipaddress
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client import cmdline, storage
from client.net.addresses import announced_addresses, shown_addresses
from client.net.discovery import Advertiser
from client.net.framing import FramingError
from client.net.guard import Admission, PasswordLimiter, PasswordTry, source_key
from client.net.link import REMOTE_ERRORS, Handshake, Link, LinkError, Refused, WrongPassword, accept, serve
from client.net.linkproto import PeerIdentity
from client.net.mesh import sign_genesis
from client.storage import fingerprint
from protocol.config import DEFAULT_GRACE, TableConfig, check_table
from protocol.errors import MalformedMessage
from skyjo_p2p.bots import make_bot
from skyjo_p2p.core.errors import OptionError
from skyjo_p2p.core.options import parse_assignments

from .evening import Evening, GameResult, evening_lines, result_of
from .peer import PeerRunner
from .seat import LOBBY_TABLE, Peer, Say, check_saving, open_listener, print_line
from .spectators import MOST_SPECTATORS, WATCH_ROLE, SpectatorLimits, Spectators

log = logging.getLogger("skyjo_lan.net")

DEFAULT_TURN = cmdline.DEFAULT_TURN
TURN_CHOICES = (0, 30, 60, 90, 120, 300)
"""The countdowns the host's lobby cycles through (0: none)."""
MAX_SECONDS = 3600
"""The longest countdown or grace a genesis carries (`protocol.config`)."""


def next_turn(turn: int) -> int:
    """The countdown after `turn` in the lobby's cycle (`TURN_CHOICES`)."""
    later = [t for t in TURN_CHOICES if t > turn]
    return later[0] if later else TURN_CHOICES[0]


@dataclass
class SeatInfo:
    name: str
    key: bytes
    kind: str  # "host" | "player" | "bot"
    link: Link | None = None
    host: str = ""
    port: int = 0
    returning: bool = False
    ready: bool = True
    """Ready to start: a person at a lobby screen says so with `r`; the host and bots always are
    (between games the host at a screen says so with `r` too)."""
    game: int = 1
    """The number of the game this seat is for: a player of the game still on who comes back for
    the next one is seated for that one."""
    removed: bool = False
    """The host removed this seat in the lobby: its link is told, then closed."""
    scope: trio.CancelScope | None = None
    """The seat's lobby loop (cancelled shortly after a removal, whatever the joiner does)."""


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
    turn: int = DEFAULT_TURN
    """Seconds of a person's move countdown; at zero their own program plays (0: no countdown)."""
    grace: int = DEFAULT_GRACE
    """Seconds a seat that stopped answering may come back before the others go on without it."""
    insured: bool = True
    """Seat insurance (key escrow), so a vanished seat can be played by a bot (`--no-seat-insurance`)."""
    spectators: int = MOST_SPECTATORS
    """How many may watch at once (`skyjo-lan watch`; 0: none, `--no-spectators`)."""
    games: int = 1
    """How many games the table plays before it closes (0: no bound; the host closes it by
    leaving the lobby between games). 1, the default, ends after one game as before."""
    fill_after: int | None = None
    """Seconds after a lobby opens when the seats still free are given to the host's bots (and a
    headless table starts): `--fill-with-bots`. None: the lobby waits for people (the host's
    `b` key gives a free seat to a bot at once)."""

    def __post_init__(self) -> None:
        """Refuse (`OptionError`) a table that cannot be hosted, before anything is opened (a port
        out of range would otherwise be wrapped by getaddrinfo into another port, silently)."""
        if not 0 <= self.port <= cmdline.PORT_MAX:
            raise OptionError(f"{self.port} is not a port (1 to {cmdline.PORT_MAX}, or 0 for any free port)")
        if self.games < 0:
            raise OptionError(f"--games is 0 (no bound) or more, not {self.games}")
        timers = [("--turn", self.turn), ("--grace", self.grace)]
        if self.fill_after is not None:
            timers.append(("--fill-with-bots", self.fill_after))
        for what, seconds in timers:
            if not 0 <= seconds <= MAX_SECONDS:
                raise OptionError(f"{what} is 0 to {MAX_SECONDS} seconds, not {seconds}")
        check_hosted(self)

    def table_settings(self, seats: int, people: int) -> dict[str, Any]:
        """The genesis's table settings for `seats` seats, the first `people` of them people (or
        headless joiners: each its own program), the rest the host's bots (run by seat 0)."""
        return {
            "turn": self.turn,
            "grace": self.grace,
            "insured": self.insured,
            "owners": [s if s < people else 0 for s in range(seats)],
        }


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
    def __init__(self, opts: HostOptions, identity: Ed25519PrivateKey, say: Say = print_line) -> None:
        self.opts = opts
        self.identity = identity
        self.say = say
        self.seats: list[SeatInfo] = [SeatInfo(opts.name, identity.public_key().public_bytes_raw(), "host")]
        self.started = False
        self.start_now = trio.Event()
        self.lobby_changed = trio.Event()
        self.advertiser: Advertiser | None = None
        self.announced: tuple[int, bool] = (0, False)
        """What the announcement says now: (seats taken, playing)."""
        self.lobby_port = 0
        self.address = opts.interface
        self.reachable: list[str] = []
        """The addresses the lobby is announced and shown at (`addresses.announced_addresses`)."""
        self.chat: list[tuple[str, str]] = []
        self.addresses: list[tuple[str, int]] = []
        """Every seat's address once the game has started."""
        self.config: TableConfig | None = None
        self.runner: PeerRunner | None = None
        self.peer: Peer | None = None
        """The host's own seat once the game has started (its saved game: `peer.writer`)."""
        self.problem: str | None = None
        self.options_refused: str | None = None
        """Why the options the host typed last were refused (`set_options`), shown in its lobby."""
        """Why the last request to start was refused (see `start_problem`)."""
        self.admission = Admission(passwords=PasswordLimiter() if opts.password is not None else None)
        """The lobby's handshake caps and password guessing limits (`guard`); its `passwords`
        counts the wrong passwords the lobby screen shows."""
        self.spectators = Spectators(SpectatorLimits(most=opts.spectators), on_count=self._watching)
        """Who watches, and the transcript they follow (`spectators`)."""
        self.number = 1
        """The number of the game the lobby is for, or being played (1 for the first)."""
        self.begun = 0
        """How many games have started at this table."""
        self.waiting: list[SeatInfo] = []
        """Players of the game on, back already for the next one (seated when its lobby opens)."""
        self.bot_identities: list[Ed25519PrivateKey] = []
        """The identity keys of the host's bots, kept from one game to the next."""
        self.evening = Evening()
        """The games finished at this table (the scores of the evening)."""
        self.saved: list[Path] = []
        """The saved game of each game played here, oldest first (only paths: a long evening
        keeps no finished session in memory)."""
        self.closing = False
        """The host leaves: no lobby after the game on (`close`)."""
        self.over = False
        """The table is closed: no lobby will open again."""
        self.auto_ready = True
        """The host's seat is ready for the next game by itself (a bot, a script); the lobby
        screen sets False: the person at the screen says so with `r`."""

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
                {
                    "name": s.name,
                    "fp": fingerprint(s.key),
                    "kind": s.kind,
                    "returning": s.returning,
                    "ready": s.ready,
                }
                for s in self.seats
            ],
            "total": self.opts.seats,
            "bots": self.opts.bots,
            "password": self.opts.password is not None,
            "chat": [list(entry) for entry in self.chat[-20:]],
            "settings": {"turn": self.opts.turn, "grace": self.opts.grace, "insured": self.opts.insured},
            "watching": self.spectators.count,
            "fill": self.opts.fill_after,
        }

    def _watching(self, count: int) -> None:
        """Spectators came or went: the lobby, or the seats in the game, are told how many."""
        if not self.started:
            view = self.lobby_view()
            for seat in self.seats:
                if seat.link is not None:
                    seat.link.send(view)
            self.lobby_changed.set()
            self.lobby_changed = trio.Event()
            return
        if self.peer is not None and self.peer.mesh is not None:
            self.peer.mesh.tell_watching(count)
        if self.runner is not None:
            self.runner.set_watching(count)

    def set_turn(self, turn: int) -> None:
        """The host changes the move countdown in the lobby (every joiner's lobby shows it)."""
        if self.started or not 0 <= turn <= MAX_SECONDS:
            return
        self.opts.turn = turn
        self._changed()

    def set_options(self, text: str) -> str | None:
        """The host changes the game's options in the lobby, for the game about to start (the
        first, or the next one between games). `text` is every option as `--option` takes them
        ("target_score=60 setup_reveals=2"; an option left out has its default). They are
        checked as at the start (`check_table`); refused, nothing changes and the reason is
        returned (and shown on the host's lobby). Otherwise every lobby shows the new options and
        the chat says what changed: a player who was ready may take it back."""
        if self.started:
            return "a game is being played"
        try:
            options: dict[str, Any] = dict(parse_assignments(text.split()))
            check_table(self.opts.game, self.opts.seats, options)
        except (OptionError, MalformedMessage) as exc:
            self.options_refused = exc.reason
            self._changed()
            return exc.reason
        self.options_refused = None
        if options != self.opts.options:
            self.opts.options = options
            shown = " ".join(f"{k}={v}" for k, v in sorted(options.items())) or "the defaults"
            self.chat.append((self.opts.name, f"(changed the game's options: {shown})"))
        self._changed()
        return None

    def _unique_name(self, name: str, key: bytes) -> str:
        """`name`, or "name 2", "name 3"... when another seat of the table already plays under it
        (whatever the capitals): two "player" at one table made a log no one could read."""
        others = [s for s in (*self.seats, *self.waiting) if s.key != key]
        taken = {s.name.casefold() for s in others}
        taken |= {f"bot {i + 1}" for i in range(self.opts.bots)}
        if name.casefold() not in taken:
            return name
        for number in range(2, 10):
            candidate = f"{name[: cmdline.NICK_MAX_CHARS - 2].rstrip()} {number}"
            if candidate.casefold() not in taken:
                return candidate
        return name

    def _changed(self) -> None:
        self.lobby_changed.set()
        self.lobby_changed = trio.Event()
        view = self.lobby_view()
        for seat in self.seats:
            if seat.link is not None:
                seat.link.send(view)
        taken = len(self.seats) + self.opts.bots
        waiting = "" if self.started or (what := self.waiting_for()) is None else f"; {what}"
        self.say(
            f"lobby: {len(self.seats)}/{self.humans_wanted} players "
            f"({', '.join(f'{s.name} [{fingerprint(s.key)}]' for s in self.seats)}) + {self.opts.bots} bot(s)"
            f"{waiting}"
        )
        # a headless host starts once every seat is taken and ready; so does a host between games
        # once it says it is ready itself (`r`)
        auto = self.opts.headless is not None or (self.begun > 0 and self.seats[0].ready)
        if auto and not self.started and taken >= self.opts.seats and not self.not_ready():
            self.start_now.set()

    @property
    def free_seats(self) -> int:
        """Seats no person and no bot has taken yet."""
        return max(0, self.opts.seats - len(self.seats) - self.opts.bots)

    def add_bot(self) -> str | None:
        """One of the host's bots takes a free seat, for this game and the next ones of the
        evening (the `b` key of the host's lobby; `--fill-with-bots`). None when done, else why
        not (a game is on, no seat is free)."""
        if self.started:
            return "a game is being played"
        if not self.free_seats:
            return "every seat is taken"
        self.opts.bots += 1
        self.chat.append((self.opts.name, f"(bot {self.opts.bots} takes a free seat)"))
        self._changed()
        return None

    def remove_seat(self, number: int) -> str | None:
        """The host frees seat `number` (1-based, as the lobby lists seats: people, then bots)
        before a game: a person is told (`removed`) and their link closed, a bot goes. None
        when done, else why not. In a game a seat is never removed here: only the table can
        decide that (a leave)."""
        if self.started:
            return "a game is being played"
        index = number - 1
        if index == 0:
            return "the host's own seat"
        if 0 < index < len(self.seats):
            seat = self.seats.pop(index)
            seat.removed = True
            if seat.link is not None:
                seat.link.send({"t": "removed", "reason": "the host removed you from the table"})
            if seat.scope is not None:
                seat.scope.deadline = trio.current_time() + 2  # time to send it, then closed
            self.say(f"{seat.name} was removed from the table by the host")
            self._changed()
            return None
        if len(self.seats) <= index < len(self.seats) + self.opts.bots:
            self.opts.bots -= 1
            self.chat.append((self.opts.name, f"(bot {self.opts.bots + 1} leaves its seat)"))
            self._changed()
            return None
        return "no one sits there"

    def waiting_for(self) -> str | None:
        """What the lobby waits for, in words (None: nothing, the game starts or may be started):
        free seats (and how they could be filled), people not ready, the host itself."""
        if free := self.free_seats:
            text = f"waiting for {free} more player{'s' if free > 1 else ''}"
            if self.opts.fill_after is not None:
                how = f"bots take the free seats {self.opts.fill_after} s after the lobby opened"
            elif self.opts.headless is not None:
                how = "--fill-with-bots SECONDS would give them to bots"
            else:
                how = "b gives a free seat to a bot"
            return f"{text} ({how})"
        if waiting := [s.name for s in self.seats[1:] if not s.ready]:
            return f"waiting for {', '.join(waiting)} to be ready (r)"
        if not self.seats[0].ready and self.begun:
            return f"waiting for {self.seats[0].name} (the host) to be ready (r)"
        return None

    def not_ready(self) -> list[str]:
        """The names of the seated people who have not said they are ready."""
        return [s.name for s in self.seats if not s.ready]

    def start_problem(self) -> str | None:
        """Why the game cannot start with the players seated now (the options may not allow
        fewer players than seats: teams, a stock size...), kept in `problem`; or who is not ready
        yet (not kept: the lobby screen shows that as it changes); None when it can."""
        if waiting := self.not_ready():
            return f"waiting for {', '.join(waiting)} to be ready (r)"
        try:
            check_hosted(self.opts, len(self.seats) + self.opts.bots)
        except OptionError as exc:
            self.problem = exc.reason
            return self.problem
        return None

    def refusal(self, key: bytes) -> str | None:
        """Why the lobby does not seat the identity `key` now, None when it does. While a game is
        played only its players are let in (done with it, they are seated for the next game),
        and only if another game follows."""
        if self.closing:
            return "the table is closing"
        if self.started:
            played = self.config is not None and key in self.config.identities
            if not (played and self.more_games()):
                return "the game has already started"
            if any(s.key == key for s in self.waiting):
                return "this identity is already seated"
            return None
        if any(s.key == key for s in self.seats):
            return "this identity is already seated"
        if len(self.seats) >= self.humans_wanted:
            return f"the table is full ({len(self.seats) + self.opts.bots}/{self.opts.seats})"
        return None

    def more_games(self) -> bool:
        """Whether another game follows the one being played (or just ended): the host has not
        closed the table and `games` allows one more."""
        return not self.closing and (self.opts.games == 0 or self.number < self.opts.games)

    def set_ready(self, ready: bool) -> None:
        """The host at a screen says it is ready for another game (between games only: before
        the first one the host starts it with `s`)."""
        if self.begun == 0 or self.started:
            return
        self.seats[0].ready = ready
        self._changed()

    def close(self) -> None:
        """The host leaves: no game after the one being played (the lobby closes)."""
        self.closing = True
        self.start_now.set()  # a lobby waiting to start closes instead
        self._changed()

    async def next_lobby(self, after: int) -> bool:
        """Wait until the lobby for the game after game `after` is open (True), or the table has
        closed instead (False)."""
        while not self.over:
            if self.number > after and not self.started:
                return True
            await self.lobby_changed.wait()
        return False

    async def run(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> PeerRunner | None:
        """Open the lobby, seat players until the game starts, then play it; then, while more
        games are wanted (`opts.games`, `close`), the lobby again for the next one.

        Raises `OptionError` before opening anything if the options do not make a table."""
        opts = self.opts
        check_hosted(opts)
        check_saving(opts.save)  # before any seat is offered: SaveError, one line
        lobby = await open_listener(opts.interface, opts.port)
        self.lobby_port = lobby.socket.getsockname()[1]
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
        runner: PeerRunner | None = None
        try:
            async with trio.open_nursery() as nursery:
                # the lobby listener serves every lobby of the evening: a player of the game on
                # who is done comes back to it for the next game while the others finish
                nursery.start_soon(self._accept_loop, lobby, nursery)
                if self.advertiser is not None:
                    nursery.start_soon(self._keep_announced, self.advertiser)
                first = True
                while True:
                    mesh_listener = await open_listener(opts.interface)
                    if self.advertiser is not None:
                        await self.advertiser.start(len(self.seats) + opts.bots)
                        self.announced = (len(self.seats) + opts.bots, False)
                    if first:
                        task_status.started(self.lobby_port)
                        first = False
                    if not await self._lobby():
                        with trio.CancelScope(shield=True):
                            await mesh_listener.aclose()
                        break
                    runner = await self._start(mesh_listener)
                    result = result_of(runner.config, runner.view)
                    if self.evening.add(result):
                        for line in evening_lines(self.evening):
                            self.say(line)
                    if result is None or not self.more_games():
                        break
                    self._next_lobby(result)
                nursery.cancel_scope.cancel()
        finally:
            self.over = True
            self.lobby_changed.set()
            if self.advertiser is not None:
                await self.advertiser.stop()
        return runner

    async def _lobby(self) -> bool:
        """Seat players until the game may start and is asked to (True), or the host leaves
        between games (False)."""
        self._changed()
        async with trio.open_nursery() as nursery:
            if self.opts.fill_after is not None:
                nursery.start_soon(self._fill_later, self.opts.fill_after)
            await self.start_now.wait()
            while not self.closing and (problem := self.start_problem()) is not None:
                self.say(f"cannot start yet: {problem}")
                self.start_now = trio.Event()
                self._changed()
                await self.start_now.wait()
            nursery.cancel_scope.cancel()
        if self.closing:
            return False
        self.problem = None
        self.started = True
        self.begun += 1
        self.lobby_changed.set()  # the lobby screen leaves for the game
        self.lobby_changed = trio.Event()
        # the table stays announced while the game is played (spectators find it by name),
        # as playing (`_keep_announced`)
        return True

    async def _keep_announced(self, advertiser: Advertiser) -> None:
        """Keep the announcement in step with the table: the seats taken as people come and go
        (a list showed "1/3 seated" at 3/3), and whether a game is being played."""
        while True:
            changed = self.lobby_changed  # (taken first: a change during the update is not missed)
            now = (len(self.seats) + self.opts.bots, self.started)
            if advertiser.running and now != self.announced:
                self.announced = now
                try:
                    await advertiser.update(*now)
                except Exception as exc:  # zeroconf's own trouble: the table plays on unannounced
                    log.warning("could not update the table's announcement: %s", exc)
            await changed.wait()

    async def _fill_later(self, seconds: int) -> None:
        """`--fill-with-bots`: the seats still free `seconds` after the lobby opened go to bots
        (a headless table then starts, as when people take them)."""
        await trio.sleep(seconds)
        if self.started or not self.free_seats:
            return
        self.say(f"lobby: {self.free_seats} seat(s) still free after {seconds} s: bots take them")
        while self.free_seats and self.add_bot() is None:
            pass

    def _next_lobby(self, result: GameResult) -> None:
        """After game `number`: the lobby of the next game, with the host and the players of the
        game that came back (each new one: a newcomer takes a free seat)."""
        winners = " and ".join(result.winner_names) or "nobody"
        self.say(
            f"table {self.opts.table!r}: game {self.number} over, {winners} won; lobby open for game "
            f"{self.number + 1}"
        )
        self.number += 1
        host = self.seats[0]
        host.ready = self.auto_ready
        back = [s for s in self.waiting if s.game == self.number]
        self.seats = [host, *back[: self.humans_wanted - 1]]
        self.waiting = [s for s in self.waiting if s not in self.seats]
        self.started = False
        self.start_now = trio.Event()
        self.config = None

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

            spectators = self.spectators  # the game's (a new game makes new ones)
            placed = False  # a spectator's place was taken (`admit`): `serve` or `release` follows

            def admit(peer: PeerIdentity, hello: dict[str, Any]) -> str | None:
                nonlocal placed
                if hello.get("role") == WATCH_ROLE:
                    refusal = spectators.admit()
                    placed = refusal is None
                    return refusal
                return self.refusal(peer.key)

            link: Link | None = None
            try:
                link, hello = await accept(
                    stream,
                    self.identity,
                    name=self.opts.name,
                    table=LOBBY_TABLE,
                    password=self.opts.password,
                    admit=admit,
                    accepted=lambda peer, hello: (
                        {"watch": True, "table": self.opts.table}
                        if hello.get("role") == WATCH_ROLE
                        else {"seat": len(self.seats)}
                    ),
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
                if placed and link is None:
                    spectators.release()  # admitted, but its handshake failed after all
            if hello.get("role") == WATCH_ROLE:
                await spectators.serve(link, hello)
                return
            returning = storage.remember_peer(link.peer.key, link.peer.name)
            seat = SeatInfo(
                self._unique_name(link.peer.name, link.peer.key),
                link.peer.key,
                "player",
                link,
                link.peer.host,
                link.peer.port,
                returning,
                ready=hello.get("ready") is not False,  # an older program is ready when seated
                game=self.number + 1 if self.started else self.number,
            )
            seats = self.waiting if self.started else self.seats
            seats.append(seat)
            self.say(f"{seat.name} joined [{fingerprint(seat.key)}]{' (seen before)' if returning else ''}")
            self._changed()
            try:
                async with trio.open_nursery() as inner:
                    seat.scope = inner.cancel_scope
                    inner.start_soon(link.writer)
                    while self.begun < seat.game and not seat.removed:
                        message = await link.receive()
                        if message is None or message["t"] == "bye":
                            break
                        if message["t"] == "chat" and isinstance(message.get("text"), str):
                            self.chat.append((seat.name, message["text"][:200]))
                            self._changed()
                        elif message["t"] == "ready" and isinstance(message.get("ready"), bool):
                            seat.ready = message["ready"]
                            self._changed()
                    inner.cancel_scope.cancel()
            except* REMOTE_ERRORS as group:  # from its reader, its writer or both: it left
                log.info("lobby link of %s lost: %s", seat.name, group.exceptions[0])
            if seat.removed:
                await link.aclose()
            elif self.begun < seat.game:
                for seated in (self.seats, self.waiting):
                    if seat in seated:
                        seated.remove(seat)
                self.say(f"{seat.name} left")
                self._changed()
                await link.aclose()

        async def serving() -> None:
            await serve(listener, handle, admission, what="lobby", say=self.say)

        nursery.start_soon(serving)

    async def _start(self, mesh_listener: trio.SocketListener) -> PeerRunner:
        opts = self.opts
        # the host's bots keep their identity for the evening (as people do: the scores of the
        # evening count each bot once); every game still has its own session id and key shares
        while len(self.bot_identities) < opts.bots:
            self.bot_identities.append(Ed25519PrivateKey.generate())
        bot_keys = self.bot_identities[: opts.bots]
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
            table=opts.table_settings(len(keys), len(self.seats)),
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
        self.spectators.begin(config.encode(), signature)
        runner = me.build()
        _tee(runner, self.spectators.append)
        runner.set_watching(self.spectators.count)  # its mesh tells the seats
        self.peer = me
        if me.writer is not None:
            self.saved.append(me.writer.path)
        self.runner = runner
        async with trio.open_nursery() as nursery:
            for index, (key, listener) in enumerate(zip(bot_keys, bot_listeners, strict=True)):
                bot = Peer(
                    config,
                    len(self.seats) + index,
                    key,
                    listener,
                    own_addresses,
                    make_bot(opts.bot_level, opts.game, secrets.token_hex(8)),
                    save=opts.save,
                    think_time=opts.think_time,
                    genesis_signature=signature,
                    bot_level=opts.bot_level,
                )
                nursery.start_soon(bot.play)
            await me.play(self.say)
            nursery.cancel_scope.cancel()
        await self.spectators.finish()
        # the next game (if any) has its own transcript: its spectators follow a fresh one
        self.spectators = Spectators(SpectatorLimits(most=opts.spectators), on_count=self._watching)
        return runner


def _tee(runner: PeerRunner, also: Callable[[bytes], None]) -> None:
    """Every frame the runner saves (in the saved file's order) goes to `also` too, once saved
    (a failed write is retried: `also` must not see a frame twice). Without a saved game the
    runner records to `also` alone."""
    save = runner.record

    def record(frame: bytes) -> None:
        if save is not None:
            save(frame)
        also(frame)

    runner.record = record


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
