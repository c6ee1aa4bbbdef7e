"""What `client.ui.terminal` uses of `curses` when the interpreter has none (Windows without the
`windows-curses` package): the constants it reads at import, with ncurses' values, and
`initscr` refusing in one line. So every module imports on every platform, and only opening the
screen says what is missing; the line commands (`verify`, `--plain`, `discover`...) still work.
"""

from __future__ import annotations

from typing import NoReturn

from skyjo_p2p.core.errors import OptionError

COLOR_BLACK, COLOR_RED, COLOR_GREEN, COLOR_YELLOW = 0, 1, 2, 3
COLOR_BLUE, COLOR_MAGENTA, COLOR_CYAN, COLOR_WHITE = 4, 5, 6, 7
COLORS = 8
COLOR_PAIRS = 64
A_COLOR = 0xFF00
A_REVERSE = 0x40000
A_UNDERLINE = 0x20000
A_DIM = 0x100000
A_BOLD = 0x200000
KEY_DOWN, KEY_UP, KEY_LEFT, KEY_RIGHT, KEY_HOME, KEY_BACKSPACE = 258, 259, 260, 261, 262, 263
KEY_DC, KEY_NPAGE, KEY_PPAGE, KEY_ENTER, KEY_BTAB, KEY_END, KEY_RESIZE = 330, 338, 339, 343, 353, 360, 410


class error(Exception):
    """curses' own error class (never raised here)."""


class CursesMissing(OptionError):
    """The terminal screen cannot open: this Python has no curses module."""


def initscr() -> NoReturn:
    """Refuse to open the screen, saying what to install."""
    raise CursesMissing(
        "the game screen needs curses, which this Python does not have: "
        "install it with `pip install windows-curses` (Windows), or use --plain"
    )
