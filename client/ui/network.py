"""The terminal UI for `host` and `join`: the lobby screen, then the game, on one screen.

`HostLobby` and `JoinLobby` turn the network lobby (`table.host.Host`, `table.join.Joiner`) into the
`LobbySource` the lobby screen reads; once the game starts, the game screen plays this seat's
`PeerRunner`. While curses owns the terminal, the network's plain-line narration goes to the log
(standard error is not the screen), and to the game's own log on screen.
"""

from __future__ import annotations

import dataclasses
import logging
import sys
from functools import partial
from pathlib import Path
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client import storage
from client.net import ports, wordcode
from client.net.addresses import shown_addresses
from client.net.framing import FramingError
from client.net.hints import reach_hint
from client.net.link import LinkError, Refused
from client.records.book import RecordBook
from client.records.ranking import PlayerRecord
from client.table.evening import Evening, result_of
from client.table.host import Host, HostOptions, next_turn
from client.table.join import (
    Destination,
    Joiner,
    JoinOptions,
    JoinRefusal,
    find_table,
    lobby_waits_for,
    refusal_of,
    wait_left,
)
from client.table.peer import PeerRunner
from client.table.resume import restore
from client.table.saved import ResumeInfo
from client.table.seat import Peer
from skyjo_p2p.core.state import TableState

from .caps import Caps, detect_caps, detect_lang
from .i18n import tr
from .lobby import LobbySeat, LobbySource, LobbyView, run_lobby_ui
from .run import run_game_ui
from .settling import while_settling
from .terminal import open_terminal

log = logging.getLogger("skyjo_lan.netui")


def _quiet(line: str) -> None:
    log.info("%s", line)


def _record(book: RecordBook | None, game: str, fingerprint: str) -> PlayerRecord | None:
    """What the lobby shows of `fingerprint`'s record in `game` (None: nothing, not known yet)."""
    if book is None or not book.known() or not fingerprint:
        return None
    return book.lookup(game, fingerprint) or PlayerRecord(0, 0, 0, 0)


class HostLobby:
    """The host's lobby as the lobby screen sees it."""

    def __init__(self, host: Host, book: RecordBook | None = None) -> None:
        self.host = host
        self.book = book
        """This machine's records of the seated identities (none: not shown)."""

    def lobby(self) -> LobbyView:
        host, opts = self.host, self.host.opts
        mine = storage.fingerprint(host.seats[0].key)
        seats = [
            LobbySeat(
                name=s.name,
                fingerprint=storage.fingerprint(s.key),
                ready=s.ready,
                host=(s.kind == "host"),
                me=storage.fingerprint(s.key) == mine,
                known=s.returning if s.kind != "host" else None,
                record=_record(self.book, opts.game, storage.fingerprint(s.key)),
            )
            for s in host.seats
        ]
        seats += [
            LobbySeat(name=f"bot {i + 1}", bot=True, ready=True, link="local") for i in range(opts.bots)
        ]
        seats += [LobbySeat(empty=True) for _ in range(max(0, opts.seats - len(seats)))]
        players = len(host.seats) + opts.bots
        # the first address is the one to type; the others are there for whoever is on another network
        first, *others = host.reachable or [host.address]
        address = f"{first}:{host.lobby_port}"
        if others:
            address += f"  (or {shown_addresses(others, host.lobby_port, most=2)})"
        status = ""  # every seat taken: the lobby says how to start (or who is not ready)
        # between games the host says it is ready too (`r`): the screen asks it, not the status
        waiting = [s.name for s in host.seats[1:] if not s.ready]
        if host.options_refused is not None:
            status = f"options not changed: {host.options_refused}"
        elif host.free_seats or waiting:
            status = host.waiting_for() or status
        elif host.problem is not None:
            status = f"cannot start yet: {host.problem}"
        guesses = host.admission.passwords  # wrong passwords so far: someone may be guessing
        return LobbyView(
            table=opts.table,
            game=opts.game,
            seats=seats,
            options=dict(opts.options),
            password=opts.password is not None,
            is_host=True,
            address=address,
            status=status,
            can_start=players >= 2 and not waiting,
            starting=host.started,
            chat=list(host.chat),
            failed_passwords=guesses.failed_total if guesses is not None else 0,
            failed_from=guesses.last_source if guesses is not None else "",
            # a word code is made to be read aloud; a password the host chose is not shown
            code=opts.password if opts.password and wordcode.looks_like_code(opts.password) else "",
            settings={"turn": opts.turn, "grace": opts.grace, "insured": opts.insured},
            watching=host.spectators.count,
            **_between_games(host.evening, host.begun if host.begun and not host.started else 0),
        )

    def changed(self) -> trio.Event:
        return self.host.lobby_changed

    async def set_ready(self, ready: bool) -> None:
        self.host.set_ready(ready)  # between games only: before the first one, `s` starts it

    async def start(self) -> None:
        if self.host.begun and not self.host.started:
            self.host.seats[0].ready = True  # starting is saying so
        self.host.start_now.set()

    async def retry(self, password: str | None) -> None:
        return None

    async def send_chat(self, text: str) -> None:
        if text.strip():
            self.host.chat.append((self.host.opts.name, text.strip()[:200]))
            self.host._changed()

    async def leave(self) -> None:
        self.host.close()

    async def cycle_turn(self) -> None:
        self.host.set_turn(next_turn(self.host.opts.turn))

    async def set_options(self, text: str) -> None:
        self.host.set_options(text)

    async def add_bot(self) -> None:
        self.host.add_bot()

    async def remove_seat(self, number: int) -> None:
        self.host.remove_seat(number)


class JoinLobby:
    """A joiner's lobby as the lobby screen sees it; a refused join as a refusal, tried again on
    the screen's word (`retry`, with the password typed there)."""

    def __init__(self, joiner: Joiner, book: RecordBook | None = None) -> None:
        self.joiner = joiner
        self.book = book
        """This machine's records of the seated identities (none: not shown)."""
        self.known = set(storage.known_peers())
        """The fingerprints this machine has seen before (its own known_peers.json)."""
        self.refusal: JoinRefusal | None = None
        self.refused_at = 0.0
        self.retried = trio.Event()
        self.password: str | None = None

    def refused(self, refusal: JoinRefusal) -> None:
        """Show `refusal` until the person tries again or leaves."""
        self.refusal, self.refused_at = refusal, trio.current_time()
        self.retried = trio.Event()
        self.joiner.lobby = {}
        self.joiner._changed()

    def lobby(self) -> LobbyView:
        joiner = self.joiner
        message: dict[str, Any] = joiner.lobby
        mine = storage.fingerprint(joiner.identity.public_key().public_bytes_raw())
        seats: list[LobbySeat] = []
        for entry in message.get("seats", []):
            if not isinstance(entry, dict):
                continue
            fp = str(entry.get("fp", ""))
            seats.append(
                LobbySeat(
                    name=str(entry.get("name", "?"))[:32],
                    fingerprint=fp,
                    ready=(joiner.ready if fp == mine else entry.get("ready") is not False),
                    host=entry.get("kind") == "host",
                    me=fp == mine,
                    known=(fp in self.known) if fp != mine else None,
                    record=_record(self.book, str(message.get("game", "")), fp),
                )
            )
        bots = int(message.get("bots", 0) or 0)
        seats += [LobbySeat(name=f"bot {i + 1}", bot=True, ready=True) for i in range(bots)]
        total = int(message.get("total", len(seats)) or len(seats))
        seats += [LobbySeat(empty=True) for _ in range(max(0, total - len(seats)))]
        chat = [
            (str(c[0]), str(c[1])) for c in message.get("chat", []) if isinstance(c, list) and len(c) == 2
        ]
        refusal = self.refusal
        if refusal is not None and refusal.wait:
            left = refusal.wait - (trio.current_time() - self.refused_at)
            refusal = dataclasses.replace(refusal, wait=wait_left(left))
        waiting = [s.name for s in seats if not s.ready and not s.empty]
        status = "connecting" if not message else lobby_waits_for(message)
        if message and not joiner.ready:
            status = ""  # the screen says to press r, in the player's language
        elif message and waiting and not any(s.empty for s in seats):  # free seats first
            status = f"waiting for {', '.join(waiting)} to be ready"
        return LobbyView(
            table=str(message.get("table", "")) or joiner.table or joiner.address,
            game=str(message.get("game", "")),
            seats=seats,
            options=dict(message.get("options", {}) or {}),
            password=bool(message.get("password")),
            is_host=False,
            address=joiner.address,
            status=status,
            starting=joiner.started,
            closed=joiner.closed,
            chat=chat,
            refusal=refusal,
            settings=_settings(message.get("settings")),
            watching=_count(message.get("watching")),
            **_between_games(joiner.evening, joiner.played if not joiner.started else 0),
        )

    def changed(self) -> trio.Event:
        return self.joiner.lobby_changed

    async def set_ready(self, ready: bool) -> None:
        await self.joiner.set_ready(ready)

    async def start(self) -> None:
        return None

    async def retry(self, password: str | None) -> None:
        if password is not None:
            self.password = wordcode.canonical(password)
        self.refusal = None
        self.joiner._changed()
        self.retried.set()

    async def send_chat(self, text: str) -> None:
        await self.joiner.send_chat(text)

    async def leave(self) -> None:
        await self.joiner.leave()

    async def cycle_turn(self) -> None:
        return None  # the host's choice

    async def set_options(self, text: str) -> None:
        return None  # the host's choice

    async def add_bot(self) -> None:
        return None  # the host's choice

    async def remove_seat(self, number: int) -> None:
        return None  # the host's choice


def _between_games(evening: Evening, after: int) -> dict[str, Any]:
    """What the lobby shows between games: the game that ended, its winners, the evening."""
    last = evening.last
    if not after or last is None:
        return {}
    return {"after": after, "winners": last.winner_names, "evening": evening.rows()}


def _settings(told: Any) -> dict[str, Any]:
    """The table settings a host's lobby message tells, checked (shown only): {} if none."""
    if not isinstance(told, dict):
        return {}
    out: dict[str, Any] = {}
    for key in ("turn", "grace"):
        value = told.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3600:
            out[key] = value
    out["insured"] = told.get("insured") is True
    return out if "turn" in out else {}


async def host_with_screen(
    opts: HostOptions,
    identity: Ed25519PrivateKey,
    *,
    lang: str | None,
    no_color: bool,
    ascii_only: bool,
    no_bell: bool = False,
) -> int:
    host = Host(opts, identity, _quiet)
    caps = detect_caps(no_color=no_color, ascii_only=ascii_only, no_bell=no_bell)
    host.auto_ready = False  # between games the person says so with `r`
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(host.run)
            code = await _lobby_then_game(HostLobby(host, RecordBook().start()), host, lang, caps)
            nursery.cancel_scope.cancel()
    finally:
        _print_saved(host.saved, lang)
    return code


async def join_with_screen(
    opts: JoinOptions,
    identity: Ed25519PrivateKey,
    *,
    lang: str | None,
    no_color: bool,
    ascii_only: bool,
    no_bell: bool = False,
) -> int:
    # choose the table before the screen is taken (the list of tables is a plain prompt)
    first: JoinRefusal | None = None
    try:
        opts.found = await find_table(opts, print)
    except Refused as exc:  # a table of another version: shown on the screen like any refusal
        first = refusal_of(str(exc), opts.target or "", opts.target or "")
    opts.ready = False  # a person says so with `r`
    joiner = Joiner(opts, identity, _quiet)
    lobby = JoinLobby(joiner, RecordBook().start())

    async def play() -> None:
        refusal = first
        while True:
            if refusal is not None:
                lobby.refused(refusal)
                await lobby.retried.wait()
                if lobby.password is not None:
                    opts.password = lobby.password
            try:
                await joiner.run_games()
                return
            except (Refused, LinkError) as exc:
                if joiner.link is not None or not (isinstance(exc, Refused) or "version" in str(exc)):
                    joiner.closed = _with_hint(exc)  # not a refusal at the door: the lobby ended
                    joiner._changed()
                    return
                refusal = refusal_of(str(exc), joiner.table, joiner.address)
            except (FramingError, OSError) as exc:
                joiner.closed = _with_hint(exc)
                joiner._changed()
                return

    caps = detect_caps(no_color=no_color, ascii_only=ascii_only, no_bell=no_bell)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play)
            code = await _lobby_then_game(lobby, joiner, lang, caps)
            nursery.cancel_scope.cancel()
    finally:
        _print_saved(joiner.saved, lang)
    return code


def _with_hint(exc: BaseException) -> str:
    """Why the connection ended, with what to check when it is a failure to reach the table (a
    firewall, the macOS Local Network permission, an isolated guest Wi-Fi: docs/troubleshooting.md)."""
    hint = reach_hint(exc, str(ports.in_force() or ports.DEFAULT_RANGE))
    return str(exc) + (f"; {hint}" if hint else "")


def run_resume_screen(*, lang: str | None, no_color: bool, ascii_only: bool, no_bell: bool = False) -> int:
    """`host --resume` / `join --resume` at a terminal: this machine's latest unfinished game,
    on the game screen (a one-line error, as `run_resume` says it, when there is none)."""
    from client.table.commands import _network_errors
    from client.table.saved import latest_resumable
    from client.table.which import told

    identity = storage.load_identity()
    info = latest_resumable()
    if info is None:
        print("skyjo-lan: no unfinished game to resume on this machine", file=sys.stderr, flush=True)
        return 2
    if not told(info, lambda line: print(line, flush=True), input):
        return 1

    async def main() -> int:
        return await resume_with_screen(
            identity, info, lang=lang, no_color=no_color, ascii_only=ascii_only, no_bell=no_bell
        )

    return _network_errors(lambda: trio.run(main), "resume")


async def resume_with_screen(
    identity: Ed25519PrivateKey,
    info: ResumeInfo,
    *,
    lang: str | None,
    no_color: bool,
    ascii_only: bool,
    no_bell: bool = False,
) -> int:
    """`--resume` with a person at the seat: the game screen again, as it was before the crash."""
    peer = await restore(identity, info, None, _quiet)
    runner = peer.runner
    assert runner is not None
    caps = detect_caps(no_color=no_color, ascii_only=ascii_only, no_bell=no_bell)
    try:
        async with open_terminal(caps) as terminal, trio.open_nursery() as nursery:
            nursery.start_soon(peer.play, _quiet)
            outcome = await run_game_ui(runner, lang=lang, terminal=terminal, saved=str(info.transcript))
            nursery.cancel_scope.cancel()
    finally:
        _print_saved([] if peer.writer is None else [peer.writer.path], lang)
    if outcome == "left":
        print(tr(detect_lang(lang), "left.done"), flush=True)
        return 0
    finished = runner.status.finished or (outcome == "quit" and await _settled(runner))
    if finished and info.lobby is not None:
        # a joiner's resumed game is one game of the evening: back to the table's lobby for the
        # next one, as `join` does after each game (issue 28)
        return await _back_to_lobby(identity, info.lobby, lang=lang, caps=caps)
    return 0 if finished else 1


async def _back_to_lobby(
    identity: Ed25519PrivateKey, lobby: tuple[str, int, bytes, str], *, lang: str | None, caps: Caps
) -> int:
    """The table's lobby after a resumed game, and the games that follow, as `join` plays them."""
    host, port, key, name = lobby
    opts = JoinOptions(
        target=name or f"{host}:{port}",
        name=storage.stored_name() or "player",
        found=Destination([(host, port)], key, name),
        ready=False,
        games=0,
    )
    joiner = Joiner(opts, identity, _quiet)
    joiner.table = name
    book = RecordBook().start()

    async def play() -> None:
        try:
            await joiner.run_games()
        except (Refused, LinkError, FramingError, OSError) as exc:
            joiner.closed = _with_hint(exc)
            joiner._changed()

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play)
            code = await _lobby_then_game(JoinLobby(joiner, book), joiner, lang, caps)
            nursery.cancel_scope.cancel()
    finally:
        _print_saved(joiner.saved, lang)
    return 0 if code in (0, 1) else code


def _print_saved(paths: list[Path], lang: str | None) -> None:
    """Where each game was saved, once the screen is closed (as `play` says it)."""
    for path in paths:
        if path.exists():
            print(tr(detect_lang(lang), "play.saved", path=path), flush=True)


def saved_path(peer: Peer | None) -> Path | None:
    """The saved game of this seat, None when there is none (no game started, or not saved)."""
    if peer is None or peer.writer is None:
        return None
    path = peer.writer.path
    return path if path.exists() else None


async def _lobby_then_game(lobby: LobbySource, peer: Host | Joiner, lang: str | None, caps: Caps) -> int:
    """The lobby screen, then (once the host starts and the peer has its runner) the game screen on
    the same terminal; after a finished game, while the table plays on ("play again"), its lobby
    again, and so on. 0 when the last game finished or the player left it (a signed leave: with
    issue 17's protocol a bot plays on in their seat), 1 when they left the first lobby or the game
    stopped."""
    played = 0
    finished = False
    previous: PeerRunner | None = None
    async with open_terminal(caps) as terminal:
        while True:
            if await run_lobby_ui(lobby, lang=lang, terminal=terminal) != "start":
                return 0 if finished else 1
            while peer.runner is None or peer.runner is previous:
                await trio.sleep(0.05)
            runner = previous = peer.runner
            saved = saved_path(peer.peer)
            games = peer.opts.games
            again = (games == 0 or played + 1 < games) and not (isinstance(peer, Host) and peer.closing)

            def evening(state: TableState, runner: PeerRunner = runner) -> Evening:
                return peer.evening.plus(result_of(runner.config, state))

            outcome = await run_game_ui(
                runner, lang=lang, terminal=terminal, saved=str(saved or ""), evening=evening, again=again
            )
            played += 1
            finished = runner.status.finished
            shown = runner.view
            if outcome != "left" and not finished and shown is not None and shown.phase == "game_over":
                # `q` on the game-over box before the last round's signatures were all in: the
                # game is over on screen, its end is being settled; wait for it (the lobby follows)
                stayed, settled = await while_settling(
                    terminal, runner, lang, partial(_settled, runner), lobby=again
                )
                finished = bool(settled)
                if not stayed:
                    break
            if outcome == "left" or not (finished and again):
                break
            # the lobby opens once this program's part of the game is over (its end-of-game wait
            # for a program whose link dropped can last a minute): the screen says so meanwhile
            stayed, back = await while_settling(terminal, runner, lang, partial(peer.next_lobby, played))
            if not (stayed and back):
                break
            book = getattr(lobby, "book", None)
            if isinstance(book, RecordBook):
                book.refresh()  # the lobby's records count the game just played
    if outcome == "left":  # the player chose to leave: a normal end, said once the screen is closed
        print(tr(detect_lang(lang), "left.done"), flush=True)
        return 0
    return 0 if finished else 1


SETTLE_WAIT = 30.0
"""Seconds a finished game's end (the last signatures) is waited for after the screen closed."""


async def _settled(runner: PeerRunner) -> bool:
    """Whether the game shown over ends as finished (False if it halts or takes too long)."""
    with trio.move_on_after(SETTLE_WAIT):
        while not (runner.status.finished or runner.status.halted):
            await runner.changed.wait()
    return runner.status.finished


def _count(value: object) -> int:
    """A count the host sent (spectators), 0 when it is not one."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 16 else 0
