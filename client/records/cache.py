"""The history cache: what verifying each saved game concluded, so it is verified only once.

One JSON file (`storage.data_dir() / "history-cache.json"`). An entry is keyed by the SHA-256 and
size of a transcript's bytes: the verdict depends on the bytes only, so a file that is copied,
moved or touched keeps its entry, and one whose contents change (a byte flipped, frames appended
by a resumed game) gets a new one. The whole cache belongs to one verifier: `verifier_id` hashes
the source of the code that decides a verdict (`protocol/`, `skyjo_p2p/`) and of the code that
sums it up (`client/records/`) with `CACHE_VERSION`, so an upgrade that changes how games are
checked re-checks every game.

A cache that cannot be read, is not JSON, is another program's or another verifier's is ignored
(and rebuilt by the next write): the cache only ever saves time. It is written atomically (a
temporary file renamed over it), so a reader never sees half of one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import secrets
from functools import lru_cache
from pathlib import Path
from typing import Any

from client import storage

log = logging.getLogger("skyjo_lan.records")

CACHE_VERSION = 1
"""Bumped when the shape of an entry changes."""
KIND = "skyjo-lan history cache"
MAX_ENTRIES = 5000
"""Entries kept; the least recently used go first (a cache of games that are long gone)."""


def cache_path() -> Path:
    """Where the cache lives (in the data folder, beside `games/`)."""
    return storage.data_dir() / "history-cache.json"


@lru_cache(maxsize=1)
def verifier_id() -> str:
    """A digest of what decides an entry: this cache's version and the source of the packages
    the verifier runs (`protocol`, `skyjo_p2p`) and of this one (how a verdict is summed up).
    Any change to them makes a new verifier."""
    import protocol
    import skyjo_p2p

    digest = hashlib.sha256(f"{KIND}/{CACHE_VERSION}".encode())
    here = Path(__file__).parent
    for root in (Path(str(protocol.__file__)).parent, Path(str(skyjo_p2p.__file__)).parent, here):
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root.parent)).encode() + b"\0")
            try:
                digest.update(path.read_bytes())
            except OSError:
                digest.update(b"?")
            digest.update(b"\0")
    return digest.hexdigest()[:32]


def content_key(data: bytes) -> str:
    """The entry key of a file with these bytes."""
    return f"{hashlib.sha256(data).hexdigest()}:{len(data)}"


def file_key(path: Path) -> str:
    """`content_key` of a file's bytes, read in chunks (never the whole file in memory)."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    return f"{digest.hexdigest()}:{size}"


class Cache:
    """The entries of one verifier, loaded from and saved to `path`."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = cache_path() if path is None else path
        self.entries: dict[str, dict[str, Any]] = {}
        self.used: set[str] = set()
        self.dirty = False
        self.ignored: str | None = None
        """Why the file on disk was not used (None: it was, or there was none)."""

    @classmethod
    def load(cls, path: Path | None = None) -> Cache:
        """The cache at `path`; an empty one if it is missing, unreadable or not ours."""
        cache = cls(path)
        try:
            raw = json.loads(cache.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cache
        except (OSError, ValueError) as exc:
            cache.ignored = f"unreadable ({type(exc).__name__})"
            log.info("history cache %s ignored: %s", cache.path, cache.ignored)
            return cache
        if not isinstance(raw, dict) or raw.get("kind") != KIND or raw.get("version") != CACHE_VERSION:
            cache.ignored = "not a history cache of this version"
        elif raw.get("verifier") != verifier_id():
            cache.ignored = "made by another version of the verifier"
        elif not isinstance(raw.get("entries"), dict):
            cache.ignored = "no entries"
        if cache.ignored is not None:
            log.info("history cache %s ignored: %s", cache.path, cache.ignored)
            return cache
        cache.entries = {
            k: v for k, v in raw["entries"].items() if isinstance(k, str) and isinstance(v, dict)
        }
        return cache

    def get(self, key: str) -> dict[str, Any] | None:
        entry = self.entries.get(key)
        if entry is None or not isinstance(entry.get("checked"), dict):
            return None
        self.used.add(key)
        return dict(entry["checked"])

    def put(self, key: str, checked: dict[str, Any]) -> None:
        self.entries[key] = {"checked": checked}
        self.used.add(key)
        self.dirty = True

    def save(self) -> bool:
        """Write the cache if anything was added (atomically). False if it could not be."""
        if not self.dirty:
            return True
        entries = dict(self.entries)
        if len(entries) > MAX_ENTRIES:  # keep what this run used, then the rest up to the cap
            keep = [k for k in entries if k in self.used] + [k for k in entries if k not in self.used]
            entries = {k: entries[k] for k in keep[:MAX_ENTRIES]}
        document = {"kind": KIND, "version": CACHE_VERSION, "verifier": verifier_id(), "entries": entries}
        tmp = self.path.with_name(f".{self.path.name}.{secrets.token_hex(4)}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(document, separators=(",", ":"), sort_keys=True), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            log.warning("could not write the history cache %s: %s", self.path, exc.strerror or exc)
            return False
        self.dirty = False
        return True
