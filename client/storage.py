"""Where skyjo-lan keeps things: the identity key, settings and saved games.

The folders are chosen in `client.places`: on Linux the XDG directories below; on Windows
``%LOCALAPPDATA%\\skyjo-lan`` and on macOS ``~/Library/Application Support/skyjo-lan`` for both
(docs/user-guide.md, "Where the data lives").

* ``$XDG_CONFIG_HOME/skyjo-lan/identity.key``: this user's long-term Ed25519 key (raw 32-byte
  seed, mode 0600); its fingerprint is what other players see in the lobby.
* ``$XDG_CONFIG_HOME/skyjo-lan/name``: the name this user plays under (one line, UTF-8), asked
  by `play` on the first run or taken from the first ``--name``; the default of every command.
* ``$XDG_CONFIG_HOME/skyjo-lan/known_peers.json``: fingerprints seen before, with their names,
  so a returning player is recognised.
* ``$XDG_DATA_HOME/skyjo-lan/games/``: one append-only transcript per game, plus a small
  ``.resume`` file with what this peer needs to continue after a crash (removed once the game is
  over and its transcript verifies).

What reaches the disk when (`TranscriptWriter`): each record is handed to the operating system as
it is made, so a killed process loses nothing; it is forced to the disk (`durable_sync`: fsync, and
F_FULLFSYNC on macOS) before this peer sends a frame of its own, at each round's end and at the
end. A power cut loses only frames of the other seats received since the last fsync, which they
still hold and send again on resume.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import hashlib
import json
import logging
import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.config import TableConfig
from protocol.transcript import header, record
from skyjo_p2p.core.errors import OptionError

from . import logs, places

if TYPE_CHECKING:
    from protocol.verify import Verified

log = logging.getLogger("skyjo_lan.storage")

APP = "skyjo-lan"


def config_dir() -> Path:
    """The identity key, the name, the known peers (`places`: XDG on Linux, the platform's own
    folder on Windows and macOS)."""
    return places.user_dir("config")


def data_dir() -> Path:
    """Saved games and the history cache (`places`)."""
    return places.user_dir("data")


def games_dir() -> Path:
    return data_dir() / "games"


def binary() -> int:
    """The flag every `os.open` of ours adds: `O_BINARY` where it exists (Windows), else 0.

    Without it Windows opens the file in text mode and writes each 0x0A byte as 0x0D 0x0A: an
    identity key, a transcript record or a resume file holding that byte would come back longer
    (CPython's own tempfile module adds it for the same reason). Read at each call, not at import,
    so a test can stand in for `os`."""
    return int(getattr(os, "O_BINARY", 0))


def _fcntl() -> Any:
    """The `fcntl` module, None where there is none (Windows)."""
    try:
        import fcntl
    except ImportError:
        return None
    return fcntl


def durable_sync(fd: int) -> None:
    """Force what was written to `fd` onto the disk itself: `os.fsync`, and on macOS also
    `fcntl(F_FULLFSYNC)`, since fsync there hands the data to the drive without making it flush
    its cache (a Mac whose battery dies would lose what "fsync before a frame is sent" promised).
    A file system that refuses F_FULLFSYNC (some network and external ones) keeps the fsync;
    a failing fsync raises OSError, as before."""
    os.fsync(fd)
    fcntl = _fcntl()
    full = getattr(fcntl, "F_FULLFSYNC", None) if fcntl is not None else None
    if full is None:
        return
    try:
        fcntl.fcntl(fd, full)
    except OSError as exc:
        log.debug("F_FULLFSYNC refused (%s): fsync only", _why(exc))


def fingerprint(public_key: bytes) -> str:
    """A short, readable fingerprint of an identity key: 4 groups of 4 base32 letters."""
    digest = hashlib.sha256(b"skyjo-lan/v1/fingerprint" + public_key).digest()
    text = base64.b32encode(digest[:10]).decode().lower()
    return "-".join(text[i : i + 4] for i in range(0, 16, 4))


def load_identity(create: bool = True) -> Ed25519PrivateKey:
    """This user's identity key, created on first use (mode 0600)."""
    path = config_dir() / "identity.key"
    if path.exists():
        seed = path.read_bytes()
        if len(seed) != 32:
            raise ValueError(
                f"{path} is not an identity key (expected 32 bytes); move it away to make a new one"
            )
        return Ed25519PrivateKey.from_private_bytes(seed)
    if not create:
        raise FileNotFoundError(path)
    key = Ed25519PrivateKey.generate()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | binary(), 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key.private_bytes_raw())
    return key


def stored_name() -> str | None:
    """The name this user plays under, if one was stored (`store_name`)."""
    try:
        name = (config_dir() / "name").read_text(encoding="utf-8").strip()
    except (OSError, ValueError):
        return None
    return name or None


def store_name(name: str) -> bool:
    """Keep `name` as the name this user plays under; False if it could not be written."""
    path = config_dir() / "name"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(name.strip() + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        log.warning("could not keep the player's name in %s: %s", path, _why(exc))
        return False
    return True


def known_peers() -> dict[str, dict[str, object]]:
    path = config_dir() / "known_peers.json"
    try:
        data = json.loads(path.read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def remember_peer(public_key: bytes, name: str) -> bool:
    """Record a peer's key; True if it was seen before (a returning player)."""
    peers = known_peers()
    key = fingerprint(public_key)
    seen = key in peers
    entry = peers.get(key, {})
    entry.update({"name": name, "last_seen": int(time.time())})
    entry.setdefault("first_seen", int(time.time()))
    peers[key] = entry
    path = config_dir() / "known_peers.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(peers, indent=1, sort_keys=True))
    tmp.replace(path)
    return seen


class SaveError(OSError, OptionError):
    """This machine cannot save the game: the data directory or a file in it cannot be written
    (a full disk, a read-only file system, no permission). `reason` is one line to show.

    It is an `OSError` (that is what it is) and also an `OptionError`, so the command layer,
    which tells an `OptionError` in one line with exit status 2, tells it that way too: before a
    seat is taken it is a matter of this machine's setup, like a bad option."""

    def __init__(self, reason: str, errno_: int | None = None) -> None:
        super().__init__(reason)
        self.cause = errno_
        """The errno of the failure underneath (ENOSPC, EROFS, EACCES...), if any."""
        self.why = os.strerror(errno_) if errno_ else reason
        """The failure underneath in a few words ("No space left on device")."""


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__


def check_writable(folder: Path | None = None) -> Path:
    """Make sure saved games can be written in `folder` (the games directory by default): create
    it, write a probe file, force it to disk and remove it. Called before taking a seat, so a
    machine that could not save its game (the transcript is what `--resume` and `verify` need)
    says so at once instead of failing when the game starts and leaving the others waiting.
    Raises `SaveError` with one line."""
    folder = games_dir() if folder is None else folder
    probe = folder / f".probe-{secrets.token_hex(4)}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | binary(), 0o600)
        try:
            os.write(fd, header_probe())
            durable_sync(fd)
        finally:
            os.close(fd)
        probe.unlink()
    except OSError as exc:
        with contextlib.suppress(OSError):
            probe.unlink(missing_ok=True)
        remedy = (
            "free some space" if exc.errno == errno.ENOSPC else "set XDG_DATA_HOME to a writable directory"
        )
        raise SaveError(f"cannot save games in {folder}: {_why(exc)} ({remedy})", exc.errno) from None
    return folder


def header_probe() -> bytes:
    """What the probe file holds: about the size of a transcript's first record."""
    return b"\0" * 512


class TranscriptWriter:
    """Appends frames to a game's transcript file: one ``write`` per record, ``fsync`` on `sync`.

    Records go to the operating system at once (no buffer in this process): a process killed
    mid-game loses nothing. `sync` forces them to the disk; the peer calls it before sending a
    frame of its own (a frame the others saw must survive a power cut: made anew after a
    restart it would differ, and two versions of one frame are equivocation), at each round's
    end and at the end. Others' frames lost by a power cut are sent again by their seats.

    A failed write (a full disk, an I/O error) raises `SaveError` and cuts the file back to its
    last whole record, so a later retry appends after a whole record, never after a torn one.
    `sync_each_frame` (fsync after every record, the first policy) is kept for benchmarks.
    """

    sync_each_frame = False

    def __init__(self, config: TableConfig, path: Path | None = None, *, keep: int | None = None) -> None:
        """Open (or create) the transcript. `keep`, on resume, is the length of the file's valid
        prefix (`protocol.transcript.valid_prefix`): whatever follows it is cut off first."""
        if path is None:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            path = games_dir() / f"{stamp}-{config.game}-{config.session_id[:4].hex()}.skyjo"
        self.path = path
        self.frames = 0
        """Records written by this writer (not counting what the file held when opened)."""
        self._fd = -1
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | binary(), 0o644)
            logs.note_saved(path)  # told on Ctrl-C ("Interrupted: the game is saved in ...")
            size = os.fstat(self._fd).st_size
            if keep is not None and keep < size:
                os.ftruncate(self._fd, keep)
                size = keep
            self.size = self.synced = size
            if size == 0:
                self._append(header(config))
                self.sync()
            elif keep is not None:
                durable_sync(self._fd)  # the cut is on disk before anything is appended
        except SaveError:
            self.close()
            raise
        except OSError as exc:
            self.close()
            raise SaveError(f"cannot write the saved game {path}: {_why(exc)}", exc.errno) from None

    def _append(self, data: bytes) -> None:
        if self._fd < 0:
            raise SaveError(f"the saved game {self.path} is closed")
        try:
            if os.fstat(self._fd).st_size != self.size:
                os.ftruncate(self._fd, self.size)  # a torn record from a failed write: cut it
            view = memoryview(data)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
        except OSError as exc:
            with contextlib.suppress(OSError):  # tried again before the next write (above)
                os.ftruncate(self._fd, self.size)
            raise SaveError(f"cannot write the saved game {self.path}: {_why(exc)}", exc.errno) from None
        self.size += len(data)

    def __call__(self, frame: bytes) -> None:
        """Append one frame (raises `SaveError`; the file then still ends with a whole record)."""
        self._append(record(frame))
        self.frames += 1
        if self.sync_each_frame:
            self.sync()

    def sync(self) -> None:
        """Force what was written to the disk. On failure the records written since the last
        sync are cut off (they may not be on disk) and `SaveError` is raised: the caller writes
        them again later."""
        if self._fd < 0 or self.synced == self.size:
            return
        try:
            durable_sync(self._fd)
        except OSError as exc:
            self.size = self.synced
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, self.size)
            raise SaveError(f"cannot write the saved game {self.path}: {_why(exc)}", exc.errno) from None
        self.synced = self.size

    def close(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            try:
                os.close(fd)
            except OSError as exc:  # nothing more can be done about it: say so
                log.warning("closing %s: %s", self.path, _why(exc))


def verify_file(
    path: str | os.PathLike[str],
    *,
    keep_order: bool = False,
    progress: Callable[[int, int], None] | None = None,
    surveyed: Callable[[TableConfig, list[Any]], None] | None = None,
) -> Verified:
    """`protocol.verify.verify_stream` over a saved game on disk: read once, in bounded memory,
    refused at its first byte if it is no transcript, or at once when it is larger than any saved
    game (`protocol.transcript.MAX_TRANSCRIPT`). `progress(checked, total)` follows the replay;
    `surveyed(config, frames)` gets the frames in order before it (`verify_stream`).
    Raises `OSError` and `MalformedMessage`."""
    from protocol.verify import verify_stream

    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        return verify_stream(
            handle.read, size=size, keep_order=keep_order, progress=progress, surveyed=surveyed
        )
