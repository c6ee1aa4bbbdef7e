"""What the terminal can show, and which language to speak, decided once at start-up.

* Unicode or ASCII: from the locale's character set (`locale.nl_langinfo(CODESET)` after
  `locale.setlocale(LC_ALL, "")`). A broken locale (a `LANG` the machine does not have, common
  over SSH) is not an error: we fall back to the "C" locale, hence ASCII. `--ascii` forces ASCII.
  Windows has no `nl_langinfo`: its console (Windows 10 and later, through windows-curses) draws
  Unicode. macOS with no locale variable at all (Terminal's "Set locale environment variables on
  startup" unticked) is UTF-8 all the same: its terminals are, and the "UTF-8" character type is
  set for curses.
* Colour: on unless `NO_COLOR` is set (https://no-color.org), `--no-color` is given, `TERM` is
  "dumb", or unset outside Windows (Windows consoles set no `TERM` and have colours), or the
  terminal has no colours (checked again by the curses layer).
* Language: `--lang`, else the locale's (`LC_ALL`, `LC_MESSAGES`, `LANG`, `LANGUAGE`; "C" and
  "POSIX" name no language), else the system's (Windows: the user's display language,
  `GetUserDefaultUILanguage`; macOS: the first of `defaults read -g AppleLanguages`): French if it
  starts with "fr", German when it starts with "de", English otherwise.
"""

from __future__ import annotations

import contextlib
import functools
import locale
import os
import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass

LANGS = ("en", "fr", "de")


@dataclass(frozen=True)
class Caps:
    """Capabilities of the screen being drawn on. Rendering depends on these and nothing else."""

    color: bool = True
    unicode: bool = True
    bell: bool = True
    """Ring the bell (and set the window title) when it becomes the player's turn (`--no-bell`)."""


_locale_ready: bool | None = None

_LOCALE_VARIABLES = ("LC_ALL", "LC_CTYPE", "LANG")


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
        if macos_without_locale():
            with contextlib.suppress(locale.Error):
                locale.setlocale(locale.LC_CTYPE, "UTF-8")  # macOS's name for it
    return _locale_ready


def macos_without_locale(platform: str | None = None, environ: Mapping[str, str] | None = None) -> bool:
    """A Mac whose terminal set no locale variable: its terminals are UTF-8 all the same."""
    env = os.environ if environ is None else environ
    return (sys.platform if platform is None else platform) == "darwin" and not any(
        env.get(name) for name in _LOCALE_VARIABLES
    )


def unicode_wanted(
    codeset: str | None, platform: str | None = None, environ: Mapping[str, str] | None = None
) -> bool:
    """Whether to draw with Unicode, given the locale's character set (None: the platform has no
    `nl_langinfo`)."""
    platform = sys.platform if platform is None else platform
    if platform == "win32":
        return True
    if codeset is not None and codeset.replace("-", "").replace("_", "").upper() in ("UTF8", "UTF8MAC"):
        return True
    return macos_without_locale(platform, environ)


def locale_is_utf8() -> bool:
    setup_locale()
    try:
        codeset: str | None = locale.nl_langinfo(locale.CODESET)
    except (AttributeError, ValueError):  # Windows
        codeset = None
    return unicode_wanted(codeset)


def color_wanted(
    environ: Mapping[str, str] | None = None, no_color: bool = False, platform: str | None = None
) -> bool:
    env = os.environ if environ is None else environ
    if no_color or env.get("NO_COLOR", ""):
        return False
    term = env.get("TERM", "")
    if (sys.platform if platform is None else platform) == "win32":
        return term != "dumb"
    return term not in ("", "dumb")


def detect_caps(*, no_color: bool = False, ascii_only: bool = False, no_bell: bool = False) -> Caps:
    """Capabilities from the environment and the command-line flags (the bell is not a colour:
    NO_COLOR leaves it on)."""
    return Caps(
        color=color_wanted(no_color=no_color), unicode=not ascii_only and locale_is_utf8(), bell=not no_bell
    )


def detect_lang(
    given: str | None = None,
    environ: Mapping[str, str] | None = None,
    system: Callable[[], str | None] | None = None,
) -> str:
    """The language to use: `given` if it is one we have, else the locale's, else the system's
    (`system`; by default `system_language` when reading the real environment), else English."""
    if given in LANGS:
        return given
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = env.get(name, "")
        if value and value.split(".")[0].upper() not in ("C", "POSIX"):
            return lang_of(value)
    if system is None and environ is None:
        system = system_language
    tag = system() if system is not None else None
    return lang_of(tag) if tag else "en"


def lang_of(tag: str) -> str:
    """ "fr" for a French locale or language tag ("fr_FR.UTF-8", "fr-CA", "French_France"), "de"
    for a German one ("de_DE.UTF-8", "de-AT", "German_Germany", "Deutsch"), else "en"."""
    low = tag.lower()
    if low.startswith("fr"):
        return "fr"
    if low.startswith(("de", "german")):
        return "de"
    return "en"


@functools.cache
def system_language(platform: str | None = None) -> str | None:
    """The system's language as a tag ("fr_FR", "fr-FR"), where it is not in the environment:
    Windows' user display language, macOS's first preferred language. None if unknown. Asked
    once per process; any failure is None (English)."""
    platform = sys.platform if platform is None else platform
    if platform == "win32":
        return windows_language(_windows_ui_language)
    if platform == "darwin":
        return apple_language(_apple_languages)
    return None


def windows_language(ui_language: Callable[[], int]) -> str | None:
    """The locale name of Windows' user interface language (a LANGID, e.g. 0x040C: "fr_FR"),
    else the C library's locale name (e.g. "French_France")."""
    with contextlib.suppress(Exception):  # no ctypes.windll, an unknown id: fall back
        name = locale.windows_locale.get(ui_language())
        if name:
            return name
    with contextlib.suppress(ValueError, locale.Error):
        return locale.getlocale()[0]
    return None


def _windows_ui_language() -> int:
    import ctypes

    windll = getattr(ctypes, "windll", None)
    if windll is None:
        raise OSError("not Windows")
    return int(windll.kernel32.GetUserDefaultUILanguage())


def apple_language(read: Callable[[], str]) -> str | None:
    """The first language of `defaults read -g AppleLanguages`' output (read by `read`), e.g.
    "fr-FR" from '(\n    "fr-FR",\n    "en-US"\n)'."""
    try:
        output = read()
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    found = re.findall(r'"?([A-Za-z]{2,3}(?:[-_][A-Za-z0-9]+)*)"?\s*[,)]', output)
    return found[0] if found else None


def _apple_languages() -> str:
    done = subprocess.run(
        ["defaults", "read", "-g", "AppleLanguages"], capture_output=True, text=True, timeout=3, check=True
    )
    return done.stdout
