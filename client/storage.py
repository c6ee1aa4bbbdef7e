"""Where skyjo-lan keeps things: the identity key, settings and saved games (XDG directories).

* ``$XDG_CONFIG_HOME/skyjo-lan/identity.key``: this user's long-term Ed25519 key (raw 32-byte
  seed, mode 0600); its fingerprint is what other players see in the lobby.
* ``$XDG_CONFIG_HOME/skyjo-lan/known_peers.json``: fingerprints seen before, with their names,
  so a returning player is recognised.
* ``$XDG_DATA_HOME/skyjo-lan/games/``: one append-only transcript per game (flushed per frame),
  plus a small ``.resume`` file with what this peer needs to continue after a crash.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.config import TableConfig
from protocol.transcript import header, record

APP = "skyjo-lan"


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / APP


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / APP


def games_dir() -> Path:
    return data_dir() / "games"


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
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key.private_bytes_raw())
    return key


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


class TranscriptWriter:
    """Appends frames to a game's transcript file, flushed to disk per frame."""

    def __init__(self, config: TableConfig, path: Path | None = None) -> None:
        if path is None:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            path = games_dir() / f"{stamp}-{config.game}-{config.session_id[:4].hex()}.skyjo"
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not path.exists() or path.stat().st_size == 0
        self._handle = open(path, "ab")  # noqa: SIM115 - kept open for the whole game
        if fresh:
            self._write(header(config))

    def _write(self, data: bytes) -> None:
        self._handle.write(data)
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def __call__(self, frame: bytes) -> None:
        self._write(record(frame))

    def close(self) -> None:
        self._handle.close()
