"""The table's history as the screen reads it, bounded (issue 29 point 5).

`PeerRunner.log` got one entry per engine fact, chat line and protocol message for the whole
game: about 0.15 MiB a round, the largest thing left growing in a joiner after the session's
compaction. Nothing reads old entries: the screen and the plain-text narration read each entry
once, as it comes, by its position (`log[fed:]`, `len(log)`), and the narrator keeps its own last
lines; the score sheet comes from the game state, the whole game from the saved transcript
(`skyjo-lan replay`). `TableLog` keeps those positions (its length counts every entry ever
added) but holds only the newest `keep` entries.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Generic, TypeVar, overload

T = TypeVar("T")

KEEP = 1024
"""Entries held: about two rounds of four-seat SKYJO (some 400 entries a round), far more than a
reader lags behind."""


class TableLog(Sequence[T], Generic[T]):
    """An append-only list that forgets its oldest entries past `keep`, with stable positions:
    `len` counts every entry added, `log[i]` is entry i while held (`first` is the oldest held),
    `log[i:]` gives the held entries from i on. Iterating gives the held entries."""

    def __init__(self, entries: Iterable[T] = (), keep: int | None = None) -> None:
        self.keep = max(1, KEEP if keep is None else keep)
        self._held: deque[T] = deque()
        self.first = 0
        """The position of the oldest entry held (entries before it are forgotten)."""
        self.extend(entries)

    def append(self, entry: T) -> None:
        self._held.append(entry)
        if len(self._held) > self.keep:
            self._held.popleft()
            self.first += 1

    def extend(self, entries: Iterable[T]) -> None:
        for entry in entries:
            self.append(entry)

    def __len__(self) -> int:
        return self.first + len(self._held)

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step > 0:
                start = max(start, self.first)
            return [self._held[i - self.first] for i in range(start, stop, step) if i >= self.first]
        position = index + len(self) if index < 0 else index
        if not self.first <= position < len(self):
            raise IndexError(f"log entry {index} is not held (held: {self.first} to {len(self) - 1})")
        return self._held[position - self.first]

    def __iter__(self) -> Iterator[T]:
        return iter(self._held)

    def __reversed__(self) -> Iterator[T]:
        return reversed(self._held)
