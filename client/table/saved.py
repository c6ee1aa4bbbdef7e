"""The .resume file: what a peer keeps next to its transcript to continue a game after a crash.

It holds the table, the seat, the listening address, the peers' addresses and the secret key
share (written before any frame that depends on it is sent). `latest_resumable` finds the game
`--resume` continues.
"""

from __future__ import annotations

import contextlib
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from client import storage

log = logging.getLogger("skyjo_lan.net")


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
    lobby: tuple[str, int, bytes, str] | None = None
    """A joiner's table: the lobby's address, the host's key and the table's name, to go back to
    its lobby for the next game after a resumed one ("play again"); None for a host's seat."""
    bot: str = ""
    """Set for a seat a host's bot plays (its level): resumed with the host's seat (`bots_of`),
    never offered on its own."""
    identity: bytes = b""
    """A host's bot's own identity key (a person's is the machine's, kept elsewhere)."""

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
                **({"lobby": list(self.lobby)} if self.lobby is not None else {}),
                "bot": self.bot,
                "identity": self.identity,
            },
            use_bin_type=True,
        )
        tmp = self.path.with_suffix(".resume.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                storage.durable_sync(handle.fileno())
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
            lobby=_lobby(raw.get("lobby")),
            bot=str(raw.get("bot", "")),
            identity=bytes(raw.get("identity", b"")),
        )


def _lobby(raw: object) -> tuple[str, int, bytes, str] | None:
    """A saved lobby destination, checked (anything else: none)."""
    if not isinstance(raw, list) or len(raw) != 4:
        return None
    host, port, key, name = raw
    if isinstance(host, str) and type(port) is int and 0 < port < 65536 and isinstance(key, bytes):
        return host, port, key, name if isinstance(name, str) else ""
    return None


def latest_resumable() -> ResumeInfo | None:
    """The game `--resume` continues: the most recent of this machine's games that is not over
    (its `.resume` file), whose transcript is still there and holds that game (its header's
    genesis), and after which no game of another table was saved here.

    Decided from the saved games, never from the clock: a game is offered until this machine
    plays another one (the others gave up on a silent seat long before), so a clock that stepped
    forward by days between a crash and `--resume` (a dead battery, a wrong time fixed by NTP)
    still finds the seat. Only the order of the files' times counts (which is newer), never
    their distance from now. What is not offered says why in the log; its files stay for
    `verify`."""
    folder = storage.games_dir()

    def mtime(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except OSError:
            return 0.0

    candidates = sorted(folder.glob("*.resume"), key=mtime, reverse=True) if folder.is_dir() else []
    saved = [(mtime(p), p) for p in folder.glob("*.skyjo")] if candidates else []
    for path in candidates:
        try:
            info = ResumeInfo.load(path)
        except (OSError, ValueError, KeyError, TypeError, msgpack.UnpackException):
            log.info("not resumable: %s is not a resume file", path)
            continue
        if info.finished or info.over:
            continue
        if not info.transcript.is_file():
            log.info("not resumable: %s: its saved game %s is gone", path, info.transcript)
        elif _genesis_of(info.transcript) != info.genesis:
            log.info("not resumable: %s: %s holds another game", path, info.transcript)
        else:
            last = max(mtime(path), mtime(info.transcript))
            later = next(
                (
                    other
                    for when, other in saved
                    if when > last and other != info.transcript and _genesis_of(other) != info.genesis
                ),
                None,
            )
            if later is None:
                return info
            log.info("not resumable: %s: a later game was saved on this machine (%s)", path, later.name)
    return None


def _genesis_of(transcript: Path) -> bytes | None:
    """The genesis in a saved game's header (its first bytes only); None if it has none."""
    from protocol.errors import MalformedMessage
    from protocol.transcript import Records

    try:
        with transcript.open("rb") as handle:
            return Records(handle.read, limit=None).config.encode()
    except (OSError, MalformedMessage):
        return None


def bots_folder() -> Path:
    """Where a host's bots save their seats' games (not among the player's games: `history`
    and `--resume` do not list them; they are resumed with the host's seat)."""
    return storage.games_dir() / "bots"


def bots_of(info: ResumeInfo) -> list[ResumeInfo]:
    """The seats of the same game that the host's bots played on this machine and that can be
    resumed with the host's seat (their `.resume` files, in seat order)."""
    folder = bots_folder()
    found: list[ResumeInfo] = []
    for path in sorted(folder.glob("*.resume")) if folder.is_dir() else []:
        try:
            bot = ResumeInfo.load(path)
        except (OSError, ValueError, KeyError, TypeError, msgpack.UnpackException):
            log.info("not resumable: %s is not a resume file", path)
            continue
        if bot.genesis != info.genesis or not bot.bot or len(bot.identity) != 32:
            continue
        if bot.finished or bot.over or not bot.transcript.is_file():
            continue
        found.append(bot)
    return sorted(found, key=lambda b: b.seat)


def remove_bots_of(genesis: bytes) -> None:
    """The game is over: the files its host's bots kept for a resume go (their key shares with
    them). Nothing is said if one cannot be removed: it is never offered again."""
    folder = bots_folder()
    for path in sorted(folder.glob("*.resume")) if folder.is_dir() else []:
        try:
            bot = ResumeInfo.load(path)
        except (OSError, ValueError, KeyError, TypeError, msgpack.UnpackException):
            continue
        if bot.genesis == genesis and bot.bot:
            bot.remove()
            with contextlib.suppress(OSError):
                bot.transcript.unlink()
