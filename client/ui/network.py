"""The terminal UI for `host` and `join`: the lobby screen, then the game, on one screen.

`HostLobby` and `JoinLobby` turn the network lobby (`table.host.Host`, `table.join.Joiner`) into the
`LobbySource` the lobby screen reads; once the game starts, the game screen plays this seat's
`PeerRunner`. While curses owns the terminal, the network's plain-line narration goes to the log
(standard error is not the screen), and to the game's own log on screen.
"""

from __future__ import annotations

import logging
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client import storage
from client.net import wordcode
from client.net.addresses import shown_addresses
from client.net.framing import FramingError
from client.net.link import LinkError
from client.table.host import Host, HostOptions
from client.table.join import Joiner, JoinOptions, find_table

from .caps import Caps, detect_caps
from .lobby import LobbySeat, LobbySource, LobbyView, run_lobby_ui
from .run import run_game_ui
from .terminal import open_terminal

log = logging.getLogger("skyjo_lan.netui")


def _quiet(line: str) -> None:
    log.info("%s", line)


class HostLobby:
    """The host's lobby as the lobby screen sees it."""

    def __init__(self, host: Host) -> None:
        self.host = host

    def lobby(self) -> LobbyView:
        host, opts = self.host, self.host.opts
        mine = storage.fingerprint(host.seats[0].key)
        seats = [
            LobbySeat(
                name=s.name,
                fingerprint=storage.fingerprint(s.key),
                ready=True,
                host=(s.kind == "host"),
                me=storage.fingerprint(s.key) == mine,
                known=s.returning if s.kind != "host" else None,
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
        status = "waiting for players" if players < opts.seats else "every seat is taken"
        if host.problem is not None:
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
            can_start=players >= 2,
            starting=host.started,
            chat=list(host.chat),
            failed_passwords=guesses.failed_total if guesses is not None else 0,
            failed_from=guesses.last_source if guesses is not None else "",
            # a word code is made to be read aloud; a password the host chose is not shown
            code=opts.password if opts.password and wordcode.looks_like_code(opts.password) else "",
        )

    def changed(self) -> trio.Event:
        return self.host.lobby_changed

    async def set_ready(self, ready: bool) -> None:
        return None

    async def start(self) -> None:
        self.host.start_now.set()

    async def send_chat(self, text: str) -> None:
        if text.strip():
            self.host.chat.append((self.host.opts.name, text.strip()[:200]))
            self.host._changed()

    async def leave(self) -> None:
        return None


class JoinLobby:
    """A joiner's lobby as the lobby screen sees it."""

    def __init__(self, joiner: Joiner) -> None:
        self.joiner = joiner

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
                    ready=True,
                    host=entry.get("kind") == "host",
                    me=fp == mine,
                    known=bool(entry.get("returning")) if fp != mine else None,
                )
            )
        bots = int(message.get("bots", 0) or 0)
        seats += [LobbySeat(name=f"bot {i + 1}", bot=True, ready=True) for i in range(bots)]
        total = int(message.get("total", len(seats)) or len(seats))
        seats += [LobbySeat(empty=True) for _ in range(max(0, total - len(seats)))]
        chat = [
            (str(c[0]), str(c[1])) for c in message.get("chat", []) if isinstance(c, list) and len(c) == 2
        ]
        return LobbyView(
            table=str(message.get("table", "")),
            game=str(message.get("game", "")),
            seats=seats,
            options=dict(message.get("options", {}) or {}),
            password=bool(message.get("password")),
            is_host=False,
            address=joiner.address,
            status="connecting" if not message else "waiting for the host to start",
            starting=joiner.started,
            closed=joiner.closed,
            chat=chat,
        )

    def changed(self) -> trio.Event:
        return self.joiner.lobby_changed

    async def set_ready(self, ready: bool) -> None:
        return None

    async def start(self) -> None:
        return None

    async def send_chat(self, text: str) -> None:
        await self.joiner.send_chat(text)

    async def leave(self) -> None:
        await self.joiner.leave()


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
    async with trio.open_nursery() as nursery:
        await nursery.start(host.run)
        code = await _lobby_then_game(HostLobby(host), host, lang, caps)
        nursery.cancel_scope.cancel()
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
    opts.found = await find_table(opts, print)
    joiner = Joiner(opts, identity, _quiet)

    async def play() -> None:
        try:
            await joiner.run()
        except (LinkError, FramingError, OSError) as exc:
            joiner.closed = str(exc)
            joiner._changed()

    caps = detect_caps(no_color=no_color, ascii_only=ascii_only, no_bell=no_bell)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(play)
        code = await _lobby_then_game(JoinLobby(joiner), joiner, lang, caps)
        nursery.cancel_scope.cancel()
    return code


async def _lobby_then_game(lobby: LobbySource, peer: Host | Joiner, lang: str | None, caps: Caps) -> int:
    """The lobby screen, then (once the host starts and the peer has its runner) the game screen on
    the same terminal. 0 when the game finished, 1 when the player left before or during it."""
    async with open_terminal(caps) as terminal:
        if await run_lobby_ui(lobby, lang=lang, terminal=terminal) != "start":
            return 1
        while peer.runner is None:
            await trio.sleep(0.05)
        await run_game_ui(peer.runner, lang=lang, terminal=terminal)
        return 0 if peer.runner.status.finished else 1
