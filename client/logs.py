"""Where the program's log goes, and the one line that ends it on Ctrl-C.

Every command that logs writes to a file, ``$XDG_STATE_HOME/skyjo-lan/logs/<command>-<date>.log``
($XDG_STATE_HOME defaults to ~/.local/state), bounded in size (`MAX_BYTES`, `BACKUPS` older
files). Without a screen, warnings (everything with ``--verbose``) also go to standard error;
while the screen owns the terminal (`screen_owns_terminal`) nothing is written there, so no log
line lands on the game. When something goes wrong, the last line names the log file
(`log_hint`). Ctrl-C ends with one line (`interrupted`), saying where the game is saved when one
is (`note_saved`).
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import sys
import time
from pathlib import Path

MAX_BYTES = 1 << 20
"""A log file is rotated past 1 MiB."""
BACKUPS = 3
"""Rotated files kept (``.log.1`` .. ``.log.3``): at most 4 MiB of logs per command and day."""

_FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"
_state: dict[str, object] = {}
FILE_ONLY = {"file_only": True}
"""`extra=` of a log record for the file only, never standard error (even with ``--verbose``):
the traceback behind an end that the command already tells in one line."""


def _not_file_only(record: logging.LogRecord) -> bool:
    return not getattr(record, "file_only", False)


def log_dir() -> Path:
    """``$XDG_STATE_HOME/skyjo-lan/logs`` (``~/.local/state/skyjo-lan/logs`` by default); the
    platform's log folder on Windows and macOS (`client.places`)."""
    from . import places

    return places.log_dir()


def setup(command: str, verbose: bool = False, *, screen: bool = False) -> Path | None:
    """Log to this command's file (INFO and up), and to standard error unless the screen takes
    the terminal: warnings, or everything with `verbose`. Returns the file (None if it cannot be
    opened: then only standard error is used, as before)."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_skyjo_lan", False):
            root.removeHandler(handler)
            handler.close()
    root.setLevel(logging.INFO)
    path: Path | None = log_dir() / f"{command}-{time.strftime('%Y-%m-%d')}.log"
    try:
        assert path is not None
        path.parent.mkdir(parents=True, exist_ok=True)
        file_handler: logging.Handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
        )
        file_handler.setLevel(logging.INFO)
        _add(root, file_handler)
    except OSError:
        path = None
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(logging.INFO if verbose else logging.WARNING)
    stderr.addFilter(_not_file_only)
    _add(root, stderr)
    _state["stderr"] = stderr
    _state["path"] = path
    _state.pop("saved", None)
    logging.captureWarnings(True)
    if screen:
        screen_owns_terminal()
    return path


def _add(root: logging.Logger, handler: logging.Handler) -> None:
    handler.setFormatter(logging.Formatter(_FORMAT))
    handler._skyjo_lan = True  # type: ignore[attr-defined]
    root.addHandler(handler)


def screen_owns_terminal() -> None:
    """The screen takes the terminal: from now on the log goes to its file only."""
    handler = _state.pop("stderr", None)
    if isinstance(handler, logging.Handler):
        logging.getLogger().removeHandler(handler)
    root = logging.getLogger()
    if not root.handlers:  # nothing set up: keep logging.lastResort (stderr) off the screen
        null = logging.NullHandler()
        null._skyjo_lan = True  # type: ignore[attr-defined]
        root.addHandler(null)


def log_path() -> Path | None:
    """The log file of this run, if one is open."""
    path = _state.get("path")
    return path if isinstance(path, Path) else None


def log_hint() -> str:
    """The end of a line that reports a problem, " (log: PATH)"; "" without a log file."""
    path = log_path()
    return f" (log: {path})" if path is not None else ""


def note_saved(path: Path) -> None:
    """A game of this run is saved in `path` (the first one noted is the one told)."""
    _state.setdefault("saved", path)


def saved_game() -> Path | None:
    """Where this run's game is saved, if it saves one."""
    path = _state.get("saved")
    return path if isinstance(path, Path) else None


RESUME = {
    "join": "skyjo-lan join --resume",
    "host": "skyjo-lan host --resume",
    "resume": "skyjo-lan join --resume",
}
"""The command that brings an interrupted player back to a network game (`interrupted`)."""


def interrupted(command: str) -> str:
    """The line Ctrl-C ends a command with: where the game is saved and, for a network game
    (the table plays on without this program), the command that brings the player back."""
    saved = saved_game()
    where = f": the game is saved in {saved}" if saved is not None else ""
    back = RESUME.get(command) if saved is not None else None
    if back is not None:
        where += f"; the table goes on: `{back}` brings you back to your seat"
    return f"skyjo-lan {command}: Interrupted{where}"


def is_interrupt(exc: BaseException) -> bool:
    """Whether `exc` is Ctrl-C: a KeyboardInterrupt, alone or inside (nested) exception groups
    (what else failed while the program was being interrupted is in the log file)."""
    return any(isinstance(leaf, KeyboardInterrupt) for leaf in _leaves(exc))


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def reset() -> None:
    """Forget this run's handlers and notes (tests run many commands in one process)."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_skyjo_lan", False):
            root.removeHandler(handler)
            with contextlib.suppress(Exception):
                handler.close()
    _state.clear()
