"""The lobby's records: each identity's games, wins and place, computed off the screen's path.

`RecordBook.start()` scans the games folder (most files come from the history cache; the
others are verified, which takes a fraction of a second each) in a daemon thread, then ranks
them. Until it is done, `lookup` answers None and the lobby shows no record; the lobby redraws
every second, so the records appear as soon as they are ready. Nothing here can fail the lobby:
a scan that fails leaves the book empty.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from .history import scan
from .ranking import PlayerRecord, rank, records

log = logging.getLogger("skyjo_lan.records")


class RecordBook:
    """game -> fingerprint -> `PlayerRecord`, once computed."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder
        self.ready = threading.Event()
        self._records: dict[str, dict[str, PlayerRecord]] = {}
        self._thread: threading.Thread | None = None

    def start(self) -> RecordBook:
        """Compute the records in a daemon thread (once); returns self."""
        if self._thread is None:
            self._thread = threading.Thread(target=self.compute, name="skyjo-lan records", daemon=True)
            self._thread.start()
        return self

    def refresh(self) -> RecordBook:
        """Compute again in a new daemon thread (a game just ended at a table that plays again);
        the records computed before are shown until the new ones are ready. Returns self."""
        if self._thread is not None and self._thread.is_alive():
            return self  # a computation under way reads the folder as it is now or later
        self._thread = None
        return self.start()

    def compute(self) -> None:
        """Scan and rank now, in this thread."""
        try:
            self._records = records(rank(scan(self.folder).games))
        except Exception:  # the records are a nicety: the lobby goes on without them
            log.exception("the lobby's records could not be computed")
        finally:
            self.ready.set()

    def lookup(self, game: str, fingerprint: str) -> PlayerRecord | None:
        """The record of `fingerprint` in `game`: None while computing or for an unknown one."""
        if not self.ready.is_set() or not fingerprint:
            return None
        return self._records.get(game, {}).get(fingerprint)

    def known(self) -> bool:
        """The records are computed (a fingerprint missing from them is new)."""
        return self.ready.is_set()
