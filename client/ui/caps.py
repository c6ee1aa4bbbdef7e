"""What the terminal can show, and which language to speak, decided once at start-up.

* Unicode or ASCII: from the locale's character set (`locale.nl_langinfo(CODESET)` after
  `locale.setlocale(LC_ALL, "")`). A broken locale (a `LANG` the machine does not have, common
  over SSH) is not an error: we fall back to the "C" locale, hence ASCII. `--ascii` forces ASCII.
* Colour: on unless `NO_COLOR` is set (https://no-color.org), `--no-color` is given, `TERM` is
  "dumb" or unset, or the terminal has no colours (checked again by the curses layer).
* Language: `--lang`, else the locale's (`LC_ALL`, `LC_MESSAGES`, `LANG`, `LANGUAGE`): French if
  it starts with "fr", English otherwise.
"""

from __future__ import annotations

import contextlib
import locale
import os
from collections.abc import Mapping
from dataclasses import dataclass

LANGS = ("en", "fr")


@dataclass(frozen=True)
class Caps:
    """Capabilities of the screen being drawn on. Rendering depends on these and nothing else."""

    color: bool = True
    unicode: bool = True
    bell: bool = True
    """Ring the bell (and set the window title) when it becomes the player's turn (`--no-bell`)."""


_locale_ready: bool | None = None


def setup_locale() -> bool:
    """Apply the user's locale (curses needs it for UTF-8 output). False if it was unusable."""
    global _locale_ready
    if _locale_ready is None:
        try:
            locale.setlocale(locale.LC_ALL, "")
            _locale_ready = True
        except locale.Error:
            with contextlib.suppress(locale.Error):  # "C" always exists
                locale.setlocale(locale.LC_ALL, "C")
            _locale_ready = False
    return _locale_ready


def locale_is_utf8() -> bool:
    setup_locale()
    try:
        codeset = locale.nl_langinfo(locale.CODESET)
    except (AttributeError, ValueError):  # pragma: no cover - not on POSIX
        return False
    return codeset.replace("-", "").replace("_", "").upper() in ("UTF8", "UTF8MAC")


def color_wanted(environ: Mapping[str, str] | None = None, no_color: bool = False) -> bool:
    env = os.environ if environ is None else environ
    if no_color or env.get("NO_COLOR", ""):
        return False
    term = env.get("TERM", "")
    return term not in ("", "dumb")


def detect_caps(*, no_color: bool = False, ascii_only: bool = False, no_bell: bool = False) -> Caps:
    """Capabilities from the environment and the command-line flags (the bell is not a colour:
    NO_COLOR leaves it on)."""
    return Caps(
        color=color_wanted(no_color=no_color), unicode=not ascii_only and locale_is_utf8(), bell=not no_bell
    )


def detect_lang(given: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The language to use: `given` if it is one we have, else the locale's, else English."""
    if given in LANGS:
        return given
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = env.get(name, "")
        if value:
            return "fr" if value.lower().startswith("fr") else "en"
    return "en"
