"""This machine's games: every saved transcript of a folder, verified, newest first.

Each file is checked with `protocol.verify.verify_stream` (the check `skyjo-lan verify` runs,
reading the file once, in bounded memory) and summed up as a `Checked`: a function of the file's
bytes only, which the cache (`cache.Cache`) keeps so a file is verified once. A file is first
known by its first bytes (a file that is no saved game is refused there) and then by its digest
(`cache.file_key`, read in chunks): a copy of a file already checked, in the cache or earlier in
the same scan, is not verified again. `scan` adds what depends on where the
file is: its path, the game's time and whether it is a second copy of a game already listed.

A game *counts* (for `ranking` and the lobby's record) when it verifies, is finished and is not a
copy of a game already counted. Every other file is listed with why it does not count:
"does not verify: <fault>, blames seat N (NAME)", "unfinished: <where it stops>",
"unreadable: <why>", "a copy of <file>".

The game's time is when its transcript was started: the stamp in the name `TranscriptWriter`
gives the file (`20261125-042913-skyjo-1a2b3c4d.skyjo`, local time), else the file's
modification time. Nothing signed in a transcript says when it was played.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from client import storage
from protocol.errors import MalformedMessage
from protocol.transcript import MAX_TRANSCRIPT, Records, reader
from protocol.verify import Verdict, Verified, verify_stream

from .cache import Cache, file_key

log = logging.getLogger("skyjo_lan.records")

Status = Literal["finished", "unfinished", "invalid", "unreadable"]
SUFFIX = ".skyjo"
MAX_FILE = MAX_TRANSCRIPT
"""Bytes a saved game may have (a long game of 8 is a few MB): a larger file is not read."""
_STAMP = re.compile(r"^(\d{8}-\d{6})-")


@dataclass(frozen=True)
class SeatResult:
    """One seat of a checked game."""

    seat: int
    """From 0 (people count from 1)."""
    name: str
    key: str
    """The seat's Ed25519 identity key, hex (from the genesis)."""
    fingerprint: str
    """`storage.fingerprint` of the key: what the lobby shows."""
    total: int | None = None
    """The final total (None when the game did not finish: a total so far proves little)."""
    winner: bool = False
    bot: bool = False
    """Run by another seat's program (the host's bots): no person's identity, never ranked."""
    taken_over: str | None = None
    """"left" or "vanished": the table's bot played the seat at the end."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "key": self.key,
            "fingerprint": self.fingerprint,
            "total": self.total,
            "winner": self.winner,
            "bot": self.bot,
            "taken_over": self.taken_over,
        }

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> SeatResult:
        total = raw["total"]
        taken = raw["taken_over"]
        result = cls(
            seat=int(raw["seat"]),
            name=str(raw["name"]),
            key=str(raw["key"]),
            fingerprint=str(raw["fingerprint"]),
            total=None if total is None else int(total),
            winner=bool(raw["winner"]),
            bot=bool(raw["bot"]),
            taken_over=None if taken is None else str(taken),
        )
        return result


@dataclass(frozen=True)
class Checked:
    """What verifying one file's bytes concluded (what the cache keeps)."""

    status: Status
    reason: str | None = None
    """Why the game does not count, in words (None for a finished game)."""
    game: str = ""
    session: str = ""
    """The genesis hash, hex: the same game in two files has the same."""
    seats: tuple[SeatResult, ...] = ()
    round: int = 0
    rounds_signed: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "reason": self.reason,
            "game": self.game,
            "session": self.session,
            "seats": [s.as_dict() for s in self.seats],
            "round": self.round,
            "rounds_signed": self.rounds_signed,
        }

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Checked:
        """Raises KeyError, TypeError or ValueError for anything that is not one."""
        status = raw["status"]
        if status not in ("finished", "unfinished", "invalid", "unreadable"):
            raise ValueError(f"status {status!r}")
        reason = raw["reason"]
        return cls(
            status=status,
            reason=None if reason is None else str(reason),
            game=str(raw["game"]),
            session=str(raw["session"]),
            seats=tuple(SeatResult.from_dict(s) for s in raw["seats"]),
            round=int(raw["round"]),
            rounds_signed=int(raw["rounds_signed"]),
        )


@dataclass(frozen=True)
class GameEntry:
    """One saved game as `history` lists it."""

    path: Path
    when: float
    """The game's time (seconds since the epoch): see the module's docstring."""
    checked: Checked
    copy_of: Path | None = None
    """Another file of the same game, counted instead of this one."""
    resumable: bool = False
    """A `.resume` file beside it says the game may still go on."""

    @property
    def counts(self) -> bool:
        """Whether the game counts for the ranking and the records."""
        return self.checked.status == "finished" and self.copy_of is None

    @property
    def why_not(self) -> str | None:
        """Why the game does not count, in words (None when it does)."""
        if self.checked.status == "finished":
            return None if self.copy_of is None else f"a copy of {self.copy_of.name}, which counts instead"
        reason = self.checked.reason or self.checked.status
        if self.checked.status == "unfinished" and self.resumable:
            reason += " (it may still go on: --resume)"
        return reason

    @property
    def winners(self) -> tuple[SeatResult, ...]:
        return tuple(s for s in self.checked.seats if s.winner)


@dataclass
class ScanResult:
    """What `scan` found in a folder."""

    folder: Path
    games: list[GameEntry] = field(default_factory=list)
    """Newest first."""
    verified: int = 0
    """Files verified in this run (the others came from the cache)."""
    missing: bool = False
    """The folder does not exist (no game was ever saved)."""


class FolderError(OSError):
    """The games folder exists but cannot be listed (not a folder, no permission)."""


def game_time(path: Path, mtime: float) -> float:
    """When the game in `path` was started: the stamp of its name, else `mtime`."""
    match = _STAMP.match(path.name)
    if match is not None:
        try:
            return time.mktime(time.strptime(match.group(1), "%Y%m%d-%H%M%S"))
        except (ValueError, OverflowError):
            pass
    return mtime


def _blame(verdict: Verdict) -> str:
    seat = verdict.blame
    if seat is None:
        return "no seat is to blame"
    name = verdict.names[seat] if seat < len(verdict.names) else "?"
    return f"blames seat {seat + 1} ({name})"


def check_bytes(data: bytes) -> Checked:
    """Verify one transcript and sum the verdict up. Never raises for bad contents."""
    return _summed(lambda: verify_stream(reader(data), limit=None))


def check_file(path: Path) -> Checked:
    """`check_bytes` of a file, read once as a stream (as `storage.verify_file`). Never raises."""

    def verify() -> Verified:
        with path.open("rb") as handle:
            return verify_stream(handle.read, size=os.fstat(handle.fileno()).st_size)

    return _summed(verify)


def _summed(verify: Callable[[], Verified]) -> Checked:
    try:
        checked = verify()
    except MalformedMessage as exc:
        return Checked("unreadable", f"unreadable: not a transcript ({exc.reason})")
    except OSError as exc:
        return Checked("unreadable", f"unreadable: {exc.strerror or exc}")
    except Exception as exc:  # a file that breaks the check must not break the listing
        log.exception("verifying a saved game failed")
        return Checked("unreadable", f"unreadable: the check failed ({type(exc).__name__})")
    config, verdict = checked.config, checked.verdict
    owners = config.owners
    seats = tuple(
        SeatResult(
            seat=s,
            name=config.names[s] if s < len(config.names) else f"seat {s + 1}",
            key=config.identities[s].hex(),
            fingerprint=storage.fingerprint(config.identities[s]),
            total=verdict.totals[s] if verdict.finished and s < len(verdict.totals) else None,
            winner=verdict.finished and s in verdict.winners,
            bot=owners[s] != s,
            taken_over=verdict.taken_over.get(s),
        )
        for s in range(config.players)
    )
    summary = Checked(
        "finished",
        None,
        game=config.game,
        session=config.genesis_hash.hex(),
        seats=seats,
        round=verdict.round,
        rounds_signed=verdict.rounds_signed,
    )
    if verdict.kind == "finished":
        return summary
    if verdict.kind == "unfinished":
        where = verdict.stops_at or "before the end of the game"
        if where.startswith(("in ", "after ", "before ")):  # "in round 2, at job 57: waits for ..."
            where = f"stops {where}"
        return replace(summary, status="unfinished", reason=f"unfinished: {where}")
    return replace(summary, status="invalid", reason=f"does not verify: {verdict.fault}, {_blame(verdict)}")


def _checked(path: Path, cache: Cache) -> tuple[Checked, bool]:
    """The file's `Checked` and whether it was verified now (False: from the cache)."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE:
            return Checked("unreadable", f"unreadable: too large for a saved game ({size >> 20} MB)"), False
        with path.open("rb") as handle:  # its first bytes tell a file that is no saved game
            Records(handle.read, limit=None)
        key = file_key(path)
    except OSError as exc:
        return Checked("unreadable", f"unreadable: {exc.strerror or exc}"), False
    except MalformedMessage as exc:
        return Checked("unreadable", f"unreadable: not a transcript ({exc.reason})"), False
    cached = cache.get(key)
    if cached is not None:
        try:
            return Checked.from_dict(cached), False
        except (KeyError, TypeError, ValueError, AttributeError):
            log.info("history cache: a bad entry for %s, checked again", path.name)
    checked = check_file(path)
    if not (checked.status == "unreadable" and "the check failed" in (checked.reason or "")):
        cache.put(key, checked.as_dict())
    return checked, True


def transcripts(folder: Path) -> list[Path]:
    """The saved games of `folder` (its `*.skyjo` files), in no promised order."""
    return [p for p in folder.iterdir() if p.suffix == SUFFIX and not p.name.startswith(".") and p.is_file()]


def scan(
    folder: Path | None = None,
    *,
    cache: Cache | None = None,
    listing: Callable[[Path], Iterable[Path]] = transcripts,
) -> ScanResult:
    """Every saved game of `folder` (the games folder by default), newest first, each verified
    or taken from the cache (which is saved afterwards). A folder that does not exist has no
    games (`missing`); one that cannot be listed raises `FolderError`."""
    folder = storage.games_dir() if folder is None else folder
    result = ScanResult(folder)
    try:
        paths = list(listing(folder))
    except FileNotFoundError:
        result.missing = True
        return result
    except OSError as exc:  # not a folder, no permission...
        raise FolderError(f"cannot read {folder}: {exc.strerror or exc}") from None
    cache = Cache.load() if cache is None else cache
    games: list[GameEntry] = []
    for path in paths:
        checked, fresh = _checked(path, cache)
        result.verified += fresh
        try:
            mtime = path.stat().st_mtime
        except OSError:
            mtime = 0.0
        resumable = checked.status == "unfinished" and _resumable(path)
        games.append(GameEntry(path, game_time(path, mtime), checked, resumable=resumable))
    cache.save()
    result.games = _mark_copies(games)
    result.games.sort(key=lambda g: (g.when, g.checked.session, g.path.name), reverse=True)
    return result


def _resumable(path: Path) -> bool:
    from client.table.saved import ResumeInfo

    resume = path.with_suffix(".resume")
    try:
        info = ResumeInfo.load(resume)
    except FileNotFoundError:
        return False
    except Exception:  # a resume file that cannot be read offers nothing
        return False
    return not (info.finished or info.over)


def _mark_copies(games: list[GameEntry]) -> list[GameEntry]:
    """The same finished game in two files counts once: the earliest file (by the game's time,
    then name) counts, the others are copies of it."""
    first: dict[str, GameEntry] = {}
    out: list[GameEntry] = []
    for game in sorted(games, key=lambda g: (g.when, g.path.name)):
        session = game.checked.session
        if game.checked.status != "finished" or not session:
            out.append(game)
        elif session in first:
            out.append(replace(game, copy_of=first[session].path))
        else:
            first[session] = game
            out.append(game)
    return out
