"""The thin curses layer: it owns the screen, turns style names into colours, reads keys.

Everything else is pure. `Terminal` is opened with `open_terminal()` (an async context manager,
under trio): keys come from `keys()`, an async iterator fed by `trio.lowlevel.wait_readable` on
standard input (no polling, no thread: the event loop stays free while crypto runs in worker
threads); SIGWINCH is received through trio and the screen is resized at once. On Windows, where
trio cannot wait on the console, the keys are polled through msvcrt (`ConsoleKeys`, decoded by
the pure `windows_key_names`), and so is the console's size.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

import trio

from client.logs import screen_owns_terminal

try:
    import curses
except ImportError:  # Windows without windows-curses: the screen says so when it is opened
    from . import nocurses as curses  # type: ignore[no-redef]

from .canvas import Frame, text_width
from .caps import Caps, setup_locale
from .paste import DISABLE as PASTE_OFF
from .paste import ENABLE as PASTE_ON
from .paste import PasteReader

# colour numbers: (8-colour terminal, 256-colour terminal); -1 is the terminal's default
_C = {
    "default": (-1, -1),
    "black": (curses.COLOR_BLACK, 16),
    "white": (curses.COLOR_WHITE, 231),
    "grey": (curses.COLOR_WHITE, 245),
    "red": (curses.COLOR_RED, 160),
    "green": (curses.COLOR_GREEN, 34),
    "yellow": (curses.COLOR_YELLOW, 220),
    "blue": (curses.COLOR_BLUE, 19),
    "lightblue": (curses.COLOR_CYAN, 45),
    "cyan": (curses.COLOR_CYAN, 51),
    "magenta": (curses.COLOR_MAGENTA, 127),
    "orange": (curses.COLOR_MAGENTA, 208),
    "purple": (curses.COLOR_MAGENTA, 97),
    "gold": (curses.COLOR_YELLOW, 214),
}

B, D, R, U = curses.A_BOLD, curses.A_DIM, curses.A_REVERSE, curses.A_UNDERLINE

# value band -> (ink, colour), as on the physical cards: a card face (and a letter of the logo) is
# ink on its colour; in running text the band's colour alone marks a value
_BANDS = {
    "neg": ("white", "blue"),
    "zero": ("black", "lightblue"),
    "low": ("black", "green"),
    "mid": ("black", "yellow"),
    "high": ("white", "red"),
    "sb1": ("white", "blue"),
    "sb5": ("black", "green"),
    "sb9": ("white", "red"),
    "wild": ("black", "orange"),
    "action": ("white", "magenta"),
}

# style -> (foreground, background, attributes) in colour
COLOUR_STYLES: dict[str, tuple[str, str, int]] = {
    "text": ("default", "default", 0),
    "dim": ("grey", "default", 0),
    "bold": ("default", "default", B),
    "title": ("default", "default", B),
    "header": ("default", "default", R),
    "header.title": ("default", "default", R | B),
    "header.turn": ("black", "yellow", B),
    "status": ("default", "default", 0),
    "status.keys": ("grey", "default", 0),
    "card": ("default", "default", 0),
    **{f"card.{band}": (ink, colour, B) for band, (ink, colour) in _BANDS.items()},
    "card.star": ("gold", "black", B),
    "card.back": ("purple", "default", 0),
    "card.known": ("black", "white", B),
    **{f"logo.{band}": (ink, colour, B) for band, (ink, colour) in _BANDS.items()},
    **{f"fg.{band}": (colour, "default", B) for band, (_, colour) in _BANDS.items()},
    "fg.star": ("gold", "default", B),
    "cursor": ("black", "white", B),
    "selected": ("green", "default", B),
    "key": ("black", "cyan", B),
    "frame": ("default", "default", 0),
    "active": ("yellow", "default", B),
    "name.me": ("cyan", "default", B),
    "prompt": ("default", "default", B),
    "prompt.mark": ("yellow", "default", B),
    "button": ("default", "default", B),
    "button.cursor": ("black", "white", B),
    "link.ok": ("green", "default", B),
    "link.wait": ("yellow", "default", B),
    "link.bad": ("red", "default", B),
    "chat": ("cyan", "default", 0),
    "error": ("red", "default", B),
    "warn": ("yellow", "default", B),
    "recent": ("cyan", "default", B),
    "good": ("green", "default", B),
    "dialog": ("default", "default", B),
    "dialog.body": ("default", "default", 0),
    "dialog.title": ("default", "default", B),
    "dialog.footer": ("grey", "default", 0),
    "input": ("default", "default", U),
    **{
        f"p{i}": (c, "default", B)
        for i, c in enumerate(["magenta", "green", "yellow", "lightblue", "red", "white", "orange", "gold"])
    },
}

# style -> attributes without colour: shapes and these carry the meaning
MONO_STYLES: dict[str, int] = {
    "dim": D,
    "bold": B,
    "title": B,
    "header": R,
    "header.title": R | B,
    "header.turn": R | B,
    "card.back": D,
    "card.known": U | B,
    "cursor": R | B,
    "selected": B,
    "key": R,
    "active": B,
    "name.me": B,
    "prompt": B,
    "prompt.mark": B,
    "button": B,
    "button.cursor": R | B,
    "link.bad": B,
    "error": B,
    "warn": B,
    "recent": B,
    "good": B,
    "dialog": B,
    "dialog.title": B,
    "dialog.footer": D,
    "input": U,
    "status.keys": D,
}


KEY_NAMES = {
    curses.KEY_LEFT: "left",
    curses.KEY_RIGHT: "right",
    curses.KEY_UP: "up",
    curses.KEY_DOWN: "down",
    curses.KEY_ENTER: "enter",
    curses.KEY_BACKSPACE: "backspace",
    curses.KEY_DC: "delete",
    curses.KEY_HOME: "home",
    curses.KEY_END: "end",
    curses.KEY_PPAGE: "pgup",
    curses.KEY_NPAGE: "pgdn",
    curses.KEY_BTAB: "btab",
    curses.KEY_RESIZE: "resize",
}
CHAR_NAMES = {
    "\n": "enter",
    "\r": "enter",
    "\x1b": "esc",
    "\t": "tab",
    "\x7f": "backspace",
    "\b": "backspace",
    " ": "space",
    "\x0c": "redraw",
}


_SEQUENCES = {"A": "up", "B": "down", "C": "right", "D": "left", "H": "home", "F": "end", "Z": "btab"}


def names_of(raw: list[int | str]) -> list[str]:
    """Key names for what curses read. An escape sequence curses did not decode (a terminal that
    sends cursor keys in the other mode than its terminfo entry says) is decoded here."""
    out: list[str] = []
    i = 0
    while i < len(raw):
        key = raw[i]
        if key == "\x1b" and i + 2 < len(raw) and raw[i + 1] in ("[", "O") and raw[i + 2] in _SEQUENCES:
            out.append(_SEQUENCES[str(raw[i + 2])])
            i += 3
            continue
        name = key_name(key)
        if name is not None:
            out.append(name)
        i += 1
    return out


def key_name(key: int | str) -> str | None:
    if isinstance(key, int):
        return KEY_NAMES.get(key)
    return CHAR_NAMES.get(key, key if key.isprintable() else None)


# --- Windows: the console's keys through msvcrt -----------------------------------------------
#
# trio waits for sockets only on Windows (`wait_readable` on the console's handle never returns),
# so there the keys are polled: `msvcrt.kbhit` says whether a key waits, `msvcrt.getwch` reads it
# without echo. A special key comes as two characters: a prefix ("\x00" or "\xe0") and the key's
# scan code. Ctrl-C comes as "\x03" while the console is read this way: it is turned into the
# SIGINT it is on Unix, so it ends the program the same way (one line, the game saved).

CONSOLE_POLL = 0.03
"""Seconds between two looks at the console when no key waits (about 30 a second: a key is
never late to the eye, and an idle screen costs nothing measurable)."""

INTERRUPT = "interrupt"
"""The name `windows_key_names` gives Ctrl-C (the reader raises SIGINT for it)."""

_WINDOWS_SPECIAL = {
    "H": "up",
    "P": "down",
    "K": "left",
    "M": "right",
    "G": "home",
    "O": "end",
    "I": "pgup",
    "Q": "pgdn",
    "S": "delete",
    "\x0f": "btab",  # Shift-Tab
}


_EXTENDED = frozenset(
    "Rstuvw\x85\x86\x87\x88\x89\x8a\x8b\x8c\x8d\x91\x92\x93\x94\x97\x98\x99\x9b\x9d\x9f\xa0\xa1\xa2\xa3"
)
"""Other scan codes that follow "\\xe0" (Insert, F11, F12, Ctrl and Alt with the arrows...): keys the
game does not use. "\\xe0" before anything else is the letter "à", typed (getwch returns it alike)."""


def windows_key_names(chars: list[str]) -> list[str]:
    """Key names for what `msvcrt.getwch` returned, in order: arrows and the other special keys
    (prefix and scan code), Enter ("\\r"), Escape, Backspace, Tab, Ctrl-C (`INTERRUPT`), the
    characters typed, and the escape sequences of a console in VT input mode. A special key the
    game does not use (F1...) is dropped; "\\xe0" not followed by a scan code is "à"."""
    out: list[str] = []
    i = 0
    while i < len(chars):
        char = chars[i]
        after = chars[i + 1] if i + 1 < len(chars) else ""
        if char == "\x00" or (char == "\xe0" and after and after in _WINDOWS_SPECIAL.keys() | _EXTENDED):
            name = _WINDOWS_SPECIAL.get(after)
            if name is not None:
                out.append(name)
            i += 2
            continue
        if char == "\x03":
            out.append(INTERRUPT)
            i += 1
            continue
        if (
            char == "\x1b"
            and i + 2 < len(chars)
            and chars[i + 1] in ("[", "O")
            and chars[i + 2] in _SEQUENCES
        ):
            out.append(_SEQUENCES[chars[i + 2]])
            i += 3
            continue
        name = key_name(char)
        if name is not None:
            out.append(name)
        i += 1
    return out


def _raise_sigint() -> None:
    signal.raise_signal(signal.SIGINT)


def _console_size() -> tuple[int, int] | None:
    try:
        size = os.get_terminal_size(sys.__stdout__.fileno() if sys.__stdout__ else 1)
    except (OSError, ValueError):
        return None
    return size.columns, size.lines


class ConsoleKeys:
    """The keys of a Windows console, read with `console` (the `msvcrt` module, or a stand-in
    with `kbhit()` and `getwch()`). `interrupt` is called for Ctrl-C (default: raise SIGINT);
    `size` gives the console's size, polled for changes (Windows has no SIGWINCH)."""

    MAX_BATCH = 256

    def __init__(
        self,
        console: Any,
        interrupt: Callable[[], None] = _raise_sigint,
        size: Callable[[], tuple[int, int] | None] = _console_size,
    ) -> None:
        self.console = console
        self.interrupt = interrupt
        self.size = size

    def read(self) -> list[str]:
        """Every key waiting now (never blocks)."""
        chars: list[str] = []
        while len(chars) < self.MAX_BATCH and self.console.kbhit():
            chars.append(self.console.getwch())
        if chars and chars[-1] in ("\x00", "\xe0") and self.console.kbhit():
            chars.append(self.console.getwch())  # the second half of a special key
        names = windows_key_names(chars)
        if INTERRUPT in names:
            self.interrupt()
        return [name for name in names if name != INTERRUPT]


def console_keys(platform: str | None = None) -> ConsoleKeys | None:
    """The Windows key reader, on Windows; None elsewhere (curses reads the keys)."""
    if (sys.platform if platform is None else platform) != "win32":
        return None
    import msvcrt  # Windows only

    return ConsoleKeys(msvcrt)


# terminals that have a window title set by OSC 2 (and keep a stack of titles: CSI 22 / 23 t)
_TITLED = ("xterm", "rxvt", "screen", "tmux", "alacritty", "kitty", "foot", "wezterm", "konsole", "st-")


def has_title(environ: dict[str, str] | None = None) -> bool:
    """Whether the terminal shows a window title that escape sequences can set."""
    term = (os.environ if environ is None else environ).get("TERM", "")
    return term.startswith(_TITLED)


class Terminal:
    """An open curses screen. Use `open_terminal()`."""

    def __init__(self, screen: Any, caps: Caps, console: ConsoleKeys | None = None) -> None:
        self.screen = screen
        self.caps = caps
        self.console = console
        """Where keys come from on Windows (None: curses, woken by trio on standard input)."""
        self._pairs: dict[tuple[int, int], int] = {}
        self._attrs: dict[str, int] = {}
        self._last: list[Any] | None = None
        self._titled = False
        self.colors256 = caps.color and curses.COLORS >= 256
        self.reader = PasteReader(names_of)
        """Key names, and a paste as one piece of text (bracketed paste)."""

    @property
    def size(self) -> tuple[int, int]:
        rows, cols = self.screen.getmaxyx()
        return cols, rows

    def attr(self, style: str) -> int:
        cached = self._attrs.get(style)
        if cached is not None:
            return cached
        if not self.caps.color:
            value = MONO_STYLES.get(style, 0)
        else:
            fg, bg, attrs = COLOUR_STYLES.get(style, ("default", "default", 0))
            index = 1 if self.colors256 else 0
            pair = self._pair(_C[fg][index], _C[bg][index])
            value = attrs | curses.color_pair(pair)
            if fg == "grey" and not self.colors256:
                value = (value & ~curses.A_COLOR) | D
        self._attrs[style] = value
        return value

    def _pair(self, fg: int, bg: int) -> int:
        if (fg, bg) == (-1, -1):
            return 0
        number = self._pairs.get((fg, bg))
        if number is None:
            number = len(self._pairs) + 1
            if number >= curses.COLOR_PAIRS:
                return 0
            try:
                curses.init_pair(number, fg, bg)
            except curses.error:
                return 0
            self._pairs[(fg, bg)] = number
        return number

    def draw(self, frame: Frame, force: bool = False) -> None:
        """Show `frame` (nothing is sent if it is the same as the last one)."""
        lines = frame.lines
        if not force and lines == self._last:
            return
        self._last = lines
        screen = self.screen
        screen.erase()
        rows, cols = screen.getmaxyx()
        for y, line in enumerate(lines[:rows]):
            x = 0
            for span in line:
                text = span.text
                if x >= cols:
                    break
                with contextlib.suppress(curses.error):  # the bottom-right cell "fails" after writing
                    screen.addstr(y, x, text, self.attr(span.style))
                x += text_width(text)
        screen.noutrefresh()
        curses.doupdate()

    def clear(self) -> None:
        self._last = None
        self.screen.clear()

    def _send(self, data: bytes) -> None:
        out = sys.__stdout__
        with contextlib.suppress(OSError, ValueError, AttributeError):
            os.write(out.fileno() if out is not None else 1, data)

    def bell(self) -> None:
        """Ring the terminal's bell (one BEL byte)."""
        self._send(b"\a")

    def title(self, text: str | None) -> None:
        """Set the window title, keeping the one before on the terminal's stack; None gives it back.
        Nothing on terminals without a title."""
        if not has_title():
            return
        if text is None:
            if self._titled:
                self._titled = False
                self._send(b"\x1b[23;0t")
            return
        if not self._titled:
            self._titled = True
            self._send(b"\x1b[22;0t")
        clean = "".join(ch for ch in text if ch.isprintable())
        self._send(b"\x1b]2;" + clean.encode("utf-8", "replace") + b"\x1b\\")

    def restore(self) -> None:
        """Take the terminal back after the program was stopped (SIGSTOP, then SIGCONT): the
        shell put it back in line mode with echo meanwhile, so keys would wait for Enter and be
        echoed over the screen. Its modes are set again and the whole screen is redrawn."""
        if self.console is not None:
            return
        with contextlib.suppress(curses.error):
            curses.reset_prog_mode()
            curses.noecho()
            curses.cbreak()
            self.screen.keypad(True)
            self.screen.nodelay(True)
            curses.curs_set(0)
        self.paste_mode(True)
        self.resize()

    def paste_mode(self, on: bool) -> None:
        """Ask the terminal to mark pastes (bracketed paste), or to stop (when it is given back)."""
        self._send(PASTE_ON if on else PASTE_OFF)

    def resize(self) -> None:
        """Take the terminal's new size (after SIGWINCH)."""
        try:
            size = os.get_terminal_size(sys.__stdout__.fileno() if sys.__stdout__ else 1)
        except OSError:
            return
        with contextlib.suppress(curses.error):
            curses.resizeterm(size.lines, size.columns)
        self.clear()

    def read_keys(self) -> list[str]:
        """Every key waiting now (never blocks)."""
        if self.console is not None:
            return self.console.read()
        raw: list[int | str] = []
        while True:
            try:
                raw.append(self.screen.get_wch())
            except curses.error:
                break
        return self.reader.feed(raw)

    async def keys(self) -> AsyncGenerator[list[str], None]:
        """Batches of keys, as they arrive (a "resize" when a Windows console changes size)."""
        if self.console is not None:
            async for batch in self._console_keys(self.console):
                yield batch
            return
        fd = sys.stdin.fileno()
        while True:
            batch = self.read_keys()
            if batch:
                yield batch
                continue
            await trio.lowlevel.wait_readable(fd)

    async def _console_keys(self, console: ConsoleKeys) -> AsyncIterator[list[str]]:
        size = console.size()
        while True:
            batch = console.read()
            if batch:
                yield batch
                continue
            await trio.sleep(CONSOLE_POLL)
            now = console.size()
            if now is not None and now != size:
                size = now
                self.resize()
                yield ["resize"]


@contextlib.asynccontextmanager
async def open_terminal(caps: Caps) -> AsyncIterator[Terminal]:
    """Take over the terminal; give it back as it was, whatever happens. From now on the log
    goes to its file only (`client.logs`): nothing writes over the screen."""
    screen_owns_terminal()
    setup_locale()
    os.environ.setdefault("ESCDELAY", "25")
    screen = curses.initscr()
    try:
        curses.noecho()
        curses.cbreak()
        screen.keypad(True)
        screen.nodelay(True)
        # no hardware scrolling: the log scrolling by a line is redrawn as text, which every
        # terminal (and terminal emulator in tests) shows the same; it costs a few bytes
        screen.idlok(False)
        screen.scrollok(False)
        with contextlib.suppress(curses.error):
            curses.curs_set(0)
        if caps.color and curses.has_colors():
            curses.start_color()
            with contextlib.suppress(curses.error):
                curses.use_default_colors()
        else:
            caps = Caps(color=False, unicode=caps.unicode, bell=caps.bell)
        terminal = Terminal(screen, caps, console_keys())
        # a paste arrives as text, not keys (client/ui/paste.py)
        terminal.paste_mode(True)
        try:
            yield terminal
        finally:
            terminal.title(None)
            terminal.paste_mode(False)
    finally:
        with contextlib.suppress(curses.error):
            screen.keypad(False)
            curses.nocbreak()
            curses.echo()
        curses.endwin()


async def watch_resize(terminal: Terminal, on_resize: Any) -> None:
    """Resize at once on SIGWINCH; take the terminal back and redraw all on SIGCONT."""
    if not hasattr(signal, "SIGWINCH"):
        return
    with trio.open_signal_receiver(signal.SIGWINCH, signal.SIGCONT) as signals:
        async for number in signals:
            if number == signal.SIGCONT:
                terminal.restore()
            else:
                terminal.resize()
            on_resize()


class TurnAlert:
    """The bell, and the window title ("SKYJO — your turn"), when it becomes the player's turn.

    `update` is called after each frame with whether it is the player's turn now, and the seconds
    left on their move countdown: the bell rings once as the turn comes, and once more when the
    countdown reaches `warn` seconds (shortly before the autopilot would play). A replay and a
    bot's seat have none.
    """

    def __init__(self, terminal: Terminal, title: str) -> None:
        self.terminal = terminal
        self.title = title
        self.mine = False
        self.warned = False

    def update(self, mine: bool, on: bool, left: float | None = None, warn: float = 0.0) -> None:
        if left is None or left > warn:
            self.warned = False
        elif not self.warned and warn > 0:
            self.warned = True
            if on:
                self.terminal.bell()
        if mine and not self.mine and on:
            self.terminal.bell()
            self.terminal.title(self.title)
        elif not mine and self.mine:
            self.terminal.title(None)
        if not on:
            self.terminal.title(None)
        self.mine = mine
