"""Colour, Unicode and language where `TERM` and `nl_langinfo` do not exist or say nothing
(client/ui/caps.py, issue 27): Windows consoles have colours and Unicode without a `TERM`, a Mac
with no locale variable is UTF-8, and the language comes from the system (Windows' display
language, macOS's preferred languages) when the environment names none. Pure: each platform's
sources are stand-ins."""

from __future__ import annotations

import locale

import pytest

from client.ui import caps
from client.ui.caps import (
    apple_language,
    color_wanted,
    detect_lang,
    lang_of,
    macos_without_locale,
    unicode_wanted,
    windows_language,
)


def test_windows_has_colour_without_term() -> None:
    assert color_wanted({}, platform="win32")
    assert not color_wanted({"NO_COLOR": "1"}, platform="win32")
    assert not color_wanted({"TERM": "dumb"}, platform="win32")
    assert not color_wanted({}, no_color=True, platform="win32")
    assert not color_wanted({}, platform="linux")  # unchanged elsewhere
    assert color_wanted({"TERM": "xterm-256color"}, platform="darwin")


def test_unicode_per_platform() -> None:
    assert unicode_wanted(None, "win32", {})  # no nl_langinfo on Windows
    assert unicode_wanted("UTF-8", "linux", {"LANG": "en_US.UTF-8"})
    assert not unicode_wanted("ANSI_X3.4-1968", "linux", {"LANG": "C"})
    assert not unicode_wanted("ANSI_X3.4-1968", "linux", {})  # a Linux console without a locale
    assert unicode_wanted("US-ASCII", "darwin", {})  # Terminal did not set LANG: still UTF-8
    assert not unicode_wanted("US-ASCII", "darwin", {"LANG": "C"})  # asked for explicitly
    assert macos_without_locale("darwin", {"TERM": "xterm"})
    assert not macos_without_locale("darwin", {"LC_CTYPE": "UTF-8"})
    assert not macos_without_locale("linux", {})


@pytest.mark.parametrize(
    ("tag", "lang"),
    [
        ("fr_FR.UTF-8", "fr"),
        ("fr-CA", "fr"),
        ("French_France", "fr"),
        ("en-US", "en"),
        ("de_DE", "de"),
        ("it_IT", "en"),
    ],
)
def test_lang_of_a_tag(tag: str, lang: str) -> None:
    assert lang_of(tag) == lang


def test_the_environment_first_then_the_system() -> None:
    assert detect_lang(None, {"LANG": "fr_FR.UTF-8"}, system=lambda: "en-US") == "fr"
    assert detect_lang(None, {}, system=lambda: "fr-FR") == "fr"
    assert detect_lang(None, {"LANG": "C"}, system=lambda: "fr-FR") == "fr"  # "C" names no language
    assert detect_lang(None, {"LC_ALL": "POSIX"}, system=lambda: None) == "en"
    assert detect_lang("en", {}, system=lambda: "fr-FR") == "en"
    assert detect_lang(None, {}) == "en"  # a given environment, no system: pure


def test_the_windows_display_language() -> None:
    assert windows_language(lambda: 0x040C) == "fr_FR"
    assert windows_language(lambda: 0x0C0C) == "fr_CA"
    assert windows_language(lambda: 0x0409) == "en_US"


def test_windows_without_ctypes_windll_falls_back_to_the_c_locale(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(locale, "getlocale", lambda *a: ("French_France", "1252"))

    def no_windll() -> int:
        raise OSError("not Windows")

    assert windows_language(no_windll) == "French_France"
    assert lang_of(windows_language(no_windll) or "") == "fr"


def test_the_macos_preferred_languages() -> None:
    assert apple_language(lambda: '(\n    "fr-FR",\n    "en-US"\n)\n') == "fr-FR"
    assert apple_language(lambda: "(\n    en,\n    fr\n)\n") == "en"
    assert apple_language(lambda: '(\n    "zh-Hans-CN"\n)') == "zh-Hans-CN"
    assert apple_language(lambda: "") is None

    def missing() -> str:
        raise FileNotFoundError("defaults")

    assert apple_language(missing) is None


def test_the_system_language_is_asked_of_the_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(caps, "_windows_ui_language", lambda: 0x040C)
    monkeypatch.setattr(caps, "_apple_languages", lambda: '(\n    "fr-CH"\n)')
    caps.system_language.cache_clear()
    try:
        assert caps.system_language("win32") == "fr_FR"
        assert caps.system_language("darwin") == "fr-CH"
        assert caps.system_language("linux") is None
    finally:
        caps.system_language.cache_clear()
