"""The text catalogue: one gettext .po file per language (`en.po`, `fr.po`, `de.po`), read at run
time by `po.read` and used through `i18n.tr`.

Each entry's `msgctxt` is the key the code asks for ("header.round"), its `msgid` the English text
and its `msgstr` the language's; a translator edits a .po file with any gettext tool. A new
language is one more .po file here (`python tools/catalogue.py new LANG` starts it) and its code in
`LANGS`; tests/client/ui/test_i18n.py checks that every language has every key with the same
fields.
"""

from __future__ import annotations

from importlib import resources

from .po import read

LANGS = ("en", "fr", "de")
"""The languages of the screen, English first (the fallback of a missing text)."""


def load(lang: str) -> dict[str, str]:
    """The catalogue of `lang` (key -> text), read from its .po file shipped with the package."""
    text = resources.files(__package__).joinpath(f"{lang}.po").read_text(encoding="utf-8")
    return read(text)


CATALOGUE: dict[str, dict[str, str]] = {lang: load(lang) for lang in LANGS}
EN = CATALOGUE["en"]
FR = CATALOGUE["fr"]
DE = CATALOGUE["de"]

__all__ = ["CATALOGUE", "DE", "EN", "FR", "LANGS", "load"]
