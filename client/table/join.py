"""`skyjo-lan join`: find a table, take a seat in its lobby, then play this seat over the LAN."""

from __future__ import annotations

import difflib
import math
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client import storage
from client.net.addresses import (
    OneSeatGate,
    dial_first,
    on_our_networks_first,
    resolve,
    shown_addresses,
)
from client.net.discovery import TableAd, browse
from client.net.framing import FramingError
from client.net.link import REMOTE_ERRORS, Link, LinkError, Refused, dial
from client.net.linkproto import field as link_field
from client.net.mesh import HOST_SEAT, genesis_signed_by
from client.storage import fingerprint
from protocol.config import TableConfig
from protocol.errors import MalformedMessage
from skyjo_p2p.bots import make_bot

from .evening import Evening, GameResult, evening_lines, result_of
from .peer import PeerRunner
from .seat import LOBBY_TABLE, Peer, Say, check_saving, open_listener, print_line


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
    ready: bool = True
    """Ready to start as soon as seated (a bot, a test); the lobby screen says False: the person
    marks themself ready with `r` (`Joiner.set_ready`)."""
    games: int = 1
    """How many games to play at this table before leaving it (0: no bound, until the person
    leaves or the table closes): after each finished game the joiner goes back to the table's
    lobby (`Joiner.run_games`). 1, the default, ends after one game as before."""
    refuse_full: bool = True
    """Say at once that a table announced full is full (before any password is asked); a
    spectator (`watch`) says False: a full table can be watched."""


@dataclass
class Destination:
    """Where a table is: every address to try, in order (see `addresses.dial_first`), and the
    host's identity key when its announcement stated it (the handshake must then prove that key,
    so an address of another network that reaches another program is not taken for the table)."""

    endpoints: list[tuple[str, int]]
    key: bytes | None = None
    name: str = ""
    """The table's announced name ("" when joined by HOST:PORT)."""


@dataclass(frozen=True)
class JoinRefusal:
    """Why a table did not seat us, sorted for the screen (`refusal_of`)."""

    kind: str
    """password (needed, none given) | wrong_password | wait (too many wrong passwords) | full |
    started | seated (this key is seated already) | version | other"""
    reason: str
    """The table's own words."""
    table: str
    """The table's announced name ("" when joined by HOST:PORT)."""
    address: str = ""
    """Where it was dialled (HOST:PORT), to name a table without a name."""
    taken: int = 0
    seats: int = 0
    wait: float = 0.0
    """Seconds before the next try is let in (kind "wait")."""

    @property
    def asks_password(self) -> bool:
        """The screen asks for the password on the spot (then tries again with it)."""
        return self.kind in ("password", "wrong_password", "wait")


_SEATED = re.compile(r"\((\d+)/(\d+)\)")
_WAIT = re.compile(r"try again in (\d+(?:\.\d+)?) s")


def refusal_of(reason: str, table: str, address: str = "") -> JoinRefusal:
    """Sort a refusal's reason (the host's words, or ours before the handshake) by kind."""
    text = reason.lower()
    kind = "other"
    taken = seats = 0
    wait = 0.0
    if "needs a password" in text:
        kind = "password"
    elif text.startswith("wrong password"):
        kind = "wrong_password"
    elif (waiting := _WAIT.search(text)) is not None:
        kind, wait = "wait", float(waiting.group(1))
    elif "is full" in text:
        kind = "full"
        if (counted := _SEATED.search(text)) is not None:
            taken, seats = int(counted.group(1)), int(counted.group(2))
    elif "already started" in text:
        kind = "started"
    elif "already seated" in text:
        kind = "seated"
    elif "version" in text:
        kind = "version"
    return JoinRefusal(kind, reason, table, address, taken, seats, wait)


def wait_left(seconds: float) -> int:
    """A wait as a person reads it: whole seconds, rounded up, never below zero."""
    return max(0, math.ceil(seconds))


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
        usable = named(usable, target)
        if not usable:
            other = next(iter(named([ad for ad in tables if not ad.compatible], target)), None)
            if other is not None:
                raise Refused(f"{target!r} runs another version of skyjo-lan ({other.problem})")
            raise LinkError(not_found(target, tables))
    if not usable:
        raise LinkError("no table found on the LAN (try `skyjo-lan join HOST:PORT`)")
    chosen = usable[0] if (target or opts.pick is None) else opts.pick(usable)
    if chosen is None:
        raise LinkError("no table chosen")
    seated = f"{chosen.taken}/{chosen.seats}"
    if opts.refuse_full and not chosen.playing and chosen.taken >= chosen.seats:
        # said before any password is typed (the host would say the same after it)
        raise Refused(f"the table {chosen.name!r} is full ({seated})")
    endpoints = on_our_networks_first(chosen.endpoints)
    shown = shown_addresses([host for host, _ in endpoints], chosen.port)
    say(f"joining {chosen.name!r} ({chosen.game}, {seated}) at {shown}")
    return Destination(endpoints, chosen.key or None, chosen.name)


def named(tables: list[TableAd], target: str) -> list[TableAd]:
    """The tables called `target`: by their exact name, else whatever the capitals (`join
    kitchen` finds "Kitchen")."""
    exact = [ad for ad in tables if ad.name == target]
    return exact or [ad for ad in tables if ad.name.casefold() == target.casefold()]


def not_found(target: str, tables: list[TableAd]) -> str:
    """No table is called `target`: say so, with the closest name seen and every table seen."""
    seen = [ad.name for ad in tables]
    line = f"no table named {target!r} answered on the LAN"
    close = difflib.get_close_matches(target.casefold(), [n.casefold() for n in seen], n=1, cutoff=0.6)
    if close:
        line += f"; did you mean {next(n for n in seen if n.casefold() == close[0])!r}?"
    if seen:
        line += "; tables seen: " + ", ".join(_listed(ad) for ad in tables[:8])
    else:
        line += "; no table answered at all (`skyjo-lan discover` lists them)"
    return line


def _listed(ad: TableAd) -> str:
    if not ad.compatible:
        return f"{ad.name!r} ({ad.problem})"
    state = "playing" if ad.playing else f"{ad.taken}/{ad.seats} seated"
    return f"{ad.name!r} ({ad.game}, {state})"


class Joiner:
    """A player joining a table: the lobby as the host shows it, then this peer's game."""

    def __init__(self, opts: JoinOptions, identity: Ed25519PrivateKey, say: Say = print_line) -> None:
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
        self.table = ""
        """The table's name as found ("" when joined by HOST:PORT)."""
        self.ready = opts.ready
        self.evening = Evening()
        """The games finished at this table (the scores of the evening)."""
        self.saved: list[Path] = []
        """The saved game of each game played here, oldest first (only paths: a long evening
        keeps no finished session in memory)."""
        self.played = 0
        """How many games this joiner has played at the table."""
        self.leaving = False
        """The person left the lobby: no other game."""
        self.over = False
        """No other game will follow: the table closed, the person left, or `games` were played."""
        self.back: Destination | None = None
        """Where the table's lobby is, and the host's key, once seated: where to go back to."""

    def _changed(self) -> None:
        self.lobby_changed.set()
        self.lobby_changed = trio.Event()

    async def send_chat(self, text: str) -> None:
        if self.link is not None and text.strip():
            self.link.send({"t": "chat", "text": text.strip()[:200]})

    async def set_ready(self, ready: bool) -> None:
        """Tell the host this person is ready (or no longer) to start."""
        self.ready = ready
        if self.link is not None and not self.started:
            self.link.send({"t": "ready", "ready": ready})

    async def leave(self) -> None:
        self.leaving = True
        if self.link is not None:
            self.link.send({"t": "bye"})
            await trio.sleep(0.1)
            await self.link.aclose()

    async def run(self) -> PeerRunner | None:
        opts, identity, say = self.opts, self.identity, self.say
        check_saving(opts.save)  # before taking a seat: SaveError, one line
        table = await find_table(opts, say)
        self.address = ", ".join(f"{host}:{port}" for host, port in table.endpoints[:1])
        self.table = table.name
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
                    extra={"ready": self.ready},
                )
            except BaseException:
                gate.release(gated)
                raise

        async def discard(result: tuple[Link, dict[str, Any]]) -> None:
            await result[0].aclose()

        try:
            # bound to our interface if we have one: the host tells the others where we are from
            # the address it sees us come from, and we listen on that interface only
            (link, _accepted), (host, port) = await dial_first(
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
        # the next game's lobby is at the same table: the same address and host key, proved again
        self.back = Destination([(host, port)], link.peer.key, table.name)
        say(
            # no seat number yet: places in the lobby move as people join and leave at once;
            # the seat is the one the signed table gives at the start
            f"seated at {host}:{port} (your fingerprint "
            f"{fingerprint(identity.public_key().public_bytes_raw())})"
        )
        start: dict[str, Any] | None = None
        failure: BaseException | None = None
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(link.writer)
                start = await _wait_for_start(link, say, self._lobby_message)
                nursery.cancel_scope.cancel()
        except* REMOTE_ERRORS as group:  # the reader's, the writer's, or both (a reset)
            failure = group.exceptions[0]
        await link.aclose()
        if failure is not None or start is None:
            with trio.CancelScope(shield=True):
                await listener.aclose()
            self.closed = str(failure or "the host closed the table")
            self._changed()
            if isinstance(failure, Removed):
                raise Removed(str(failure))
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
        say(f"game starts: {', '.join(config.names)}; you are seat {seat + 1}")
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
            lobby=(host, port, link.peer.key, table.name),
        )
        self.runner = self.peer.build()
        if self.peer.writer is not None:
            self.saved.append(self.peer.writer.path)
        self.started = True
        self._changed()
        return await self.peer.play(say)

    async def run_games(self) -> PeerRunner | None:
        """Play games at the table one after another ("play again"): after each finished game,
        back to the table's lobby for the next, until `opts.games` were played, the person
        leaves, or the table closes. The last game's runner (None if none started)."""
        last: PeerRunner | None = None
        try:
            while True:
                try:
                    runner = await self.run()
                except (Refused, LinkError, FramingError, OSError, trio.BrokenResourceError) as exc:
                    if last is None or self.leaving:
                        raise
                    self.say(f"table {self.table or self.address}: no other game ({exc})")
                    self.closed = str(exc)
                    return last
                if runner is None:
                    return last
                last = runner
                result = result_of(runner.config, runner.view)
                if self.evening.add(result):
                    for line in evening_lines(self.evening):
                        self.say(line)
                self.played += 1
                games = self.opts.games
                if result is None or self.leaving or (games and self.played >= games):
                    return last
                self._again(result)
        finally:
            self.over = True
            self._changed()

    def _again(self, result: GameResult) -> None:
        """Back to the table's lobby for another game: a new seat there, ready as at first."""
        winners = " and ".join(result.winner_names) or "nobody"
        self.say(f"game {self.played} over, {winners} won; back to the lobby of {self.table or self.address}")
        self.opts.found = self.back
        self.lobby = {}
        self.link = None
        self.closed = ""
        self.started = False
        self.ready = self.opts.ready
        self._changed()

    async def next_lobby(self, after: int) -> bool:
        """Wait until this joiner is back in the lobby after game `after` (True), or no other
        game will follow (False)."""
        while not self.over:
            if self.played >= after and not self.started:
                return True
            await self.lobby_changed.wait()
        return False

    def _lobby_message(self, message: dict[str, Any]) -> None:
        self.lobby = message
        self._changed()


async def join(opts: JoinOptions, identity: Ed25519PrivateKey, say: Say = print_line) -> PeerRunner | None:
    """Join a table (by name, HOST:PORT, or picked from those found) and play."""
    return await Joiner(opts, identity, say).run()


class Removed(LinkError):
    """The host freed this player's seat in the lobby (before a game)."""


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
            say(
                f"lobby: {names} + {message.get('bots', 0)} bot(s), {message.get('total')} seats; "
                f"{lobby_waits_for(message)}"
            )
            if on_lobby is not None:
                on_lobby(message)
        elif message["t"] == "start":
            return message
        elif message["t"] == "removed":  # the host freed this seat in the lobby
            raise Removed("the host removed you from the table")


def lobby_waits_for(message: dict[str, Any]) -> str:
    """What a lobby the host sent (its `lobby_view`) waits for, in words: free seats (which the
    host can give to bots, or gives them after `fill` seconds: `--fill-with-bots`), people not
    ready, or the host's start."""
    seats = [s for s in message.get("seats", []) if isinstance(s, dict)]
    bots = message.get("bots", 0)
    total = message.get("total", 0)
    free = (total if type(total) is int else 0) - len(seats) - (bots if type(bots) is int else 0)
    if free > 0:
        plural = "s" if free > 1 else ""
        fill = message.get("fill")
        if type(fill) is int and 0 <= fill <= 3_600:  # (the bound of the host's timers)
            how = f"bots take the free seats {fill} s after the lobby opened"
        else:
            how = "the host can give a free seat to a bot"
        return f"waiting for {free} more player{plural} ({how})"
    unready = [str(s.get("name", "?"))[:32] for s in seats if s.get("ready") is False]
    if unready:
        return f"waiting for {', '.join(unready)} to be ready"
    return "waiting for the host to start"


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
