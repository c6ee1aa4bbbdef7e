"""Bracketed paste (xterm's mode 2004): a paste is text, never keys.

The terminal is asked to wrap what is pasted in ESC [ 200 ~ ... ESC [ 201 ~. `PasteReader` turns
what curses read into key names, and a whole paste into one `paste` key (`PASTE` + the text, with
control characters dropped), even when the paste arrives over several reads. A text field takes
that text (`pasted`); every other place ignores it, so digits, `q`, Esc or `r` in a paste never
make a move, open a dialog or toggle ready.
"""

from __future__ import annotations

from collections.abc import Callable

ENABLE = b"\x1b[?2004h"
DISABLE = b"\x1b[?2004l"
START = "\x1b[200~"
END = "\x1b[201~"
PASTE = "paste:"
"""The prefix of the key name of a paste (a name no key has: keys are single characters or words)."""

MAX_PASTE = 4000
"""Characters of one paste kept (a chat line takes 200 of them)."""


def pasted(key: str) -> str | None:
    """The text of a paste key (control characters already dropped), or None for a key."""
    return key[len(PASTE) :] if key.startswith(PASTE) else None


def clean(text: str) -> str:
    """Printable text on one line: tabs and newlines become spaces, other controls go."""
    spaced = "".join(" " if ch in "\t\r\n" else ch for ch in text)
    return "".join(ch for ch in spaced if ch.isprintable())


class PasteReader:
    """Key names for raw input, with pastes kept whole across reads."""

    def __init__(self, names_of: Callable[[list[int | str]], list[str]]) -> None:
        self.names_of = names_of
        self.pending: list[int | str] = []
        """What was read of a started paste (or of a marker cut in two by a read)."""
        self.in_paste = False

    def feed(self, raw: list[int | str]) -> list[str]:
        """The key names (and whole pastes) in `raw`, after what earlier reads left pending."""
        data = [*self.pending, *raw]
        self.pending = []
        out: list[str] = []
        keys: list[int | str] = []
        i = 0
        while i < len(data):
            marker = END if self.in_paste else START
            if _starts(data, i, marker):
                if self.in_paste:
                    text = clean("".join(ch for ch in keys if isinstance(ch, str)))[:MAX_PASTE]
                    if text:
                        out.append(PASTE + text)
                else:
                    out.extend(self.names_of(keys))
                keys = []
                self.in_paste = not self.in_paste
                i += len(marker)
                continue
            if self.in_paste and _cut(data, i, marker):
                # (only in a paste: a lone Esc at the end of a read is the Esc key)
                self.pending = data[i:]
                break
            if not self.in_paste or len(keys) < 2 * MAX_PASTE:
                keys.append(data[i])
            i += 1
        if self.in_paste:
            self.pending = keys + self.pending
        else:
            out.extend(self.names_of(keys))
        return out


def _starts(data: list[int | str], i: int, marker: str) -> bool:
    return len(data) - i >= len(marker) and all(data[i + k] == ch for k, ch in enumerate(marker))


def _cut(data: list[int | str], i: int, marker: str) -> bool:
    """Whether `data` ends, from `i`, with the beginning of `marker` (the rest comes next read)."""
    rest = len(data) - i
    return 0 < rest < len(marker) and all(data[i + k] == marker[k] for k in range(rest))
