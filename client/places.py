"""Where this user's files live, per platform: the one place that decides it.

* Linux and every other Unix: the XDG base directories, exactly as before platformdirs was used
  (``$XDG_CONFIG_HOME`` or ``~/.config``, ``$XDG_DATA_HOME`` or ``~/.local/share``,
  ``$XDG_STATE_HOME`` or ``~/.local/state``, ``$XDG_CACHE_HOME`` or ``~/.cache``; then
  ``skyjo-lan``), so nobody's saved games or identity move.
* Windows and macOS: the platform's own folders, from platformdirs (Windows: ``%LOCALAPPDATA%``
  ``\\skyjo-lan``, logs in its ``Logs``, the cache in its ``Cache``; macOS: ``~/Library/Application
  Support/skyjo-lan``, ``~/Library/Logs/skyjo-lan``, ``~/Library/Caches/skyjo-lan``).
* Everywhere: an XDG variable that is set wins (a user who set it meant it; the tests use it to
  keep each test's files apart on every platform).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

APP = "skyjo-lan"

Kind = Literal["config", "data", "state", "cache"]

_XDG: dict[str, tuple[str, tuple[str, ...]]] = {
    "config": ("XDG_CONFIG_HOME", (".config",)),
    "data": ("XDG_DATA_HOME", (".local", "share")),
    "state": ("XDG_STATE_HOME", (".local", "state")),
    "cache": ("XDG_CACHE_HOME", (".cache",)),
}


def user_dir(kind: Kind, *, platform: str | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """This user's folder of `kind` for skyjo-lan (not created)."""
    platform = sys.platform if platform is None else platform
    env = os.environ if environ is None else environ
    variable, default = _XDG[kind]
    given = env.get(variable)
    if given:
        return Path(given) / APP
    if platform in ("win32", "darwin"):
        return _native(kind, platform)
    return Path.home().joinpath(*default) / APP


def log_dir(*, platform: str | None = None, environ: Mapping[str, str] | None = None) -> Path:
    """Where the log files go: ``<state>/logs`` on Linux (and wherever ``XDG_STATE_HOME`` is
    set), the platform's log folder on Windows and macOS."""
    platform = sys.platform if platform is None else platform
    env = os.environ if environ is None else environ
    if platform in ("win32", "darwin") and not env.get("XDG_STATE_HOME"):
        return _native("log", platform)
    return user_dir("state", platform=platform, environ=env) / "logs"


def _native(kind: str, platform: str) -> Path:
    """The platformdirs folder of `kind` for `platform` (chosen by name, so a test can ask for
    another platform's answer than the running one's)."""
    from platformdirs.api import PlatformDirsABC

    dirs: PlatformDirsABC
    if platform == "win32":
        from platformdirs.windows import Windows

        dirs = Windows(APP, appauthor=False, roaming=False)
    else:
        from platformdirs.macos import MacOS

        dirs = MacOS(APP)
    folder = {
        "config": dirs.user_config_dir,
        "data": dirs.user_data_dir,
        "state": dirs.user_state_dir,
        "cache": dirs.user_cache_dir,
        "log": dirs.user_log_dir,
    }[kind]
    return Path(folder)
