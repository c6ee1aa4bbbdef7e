"""The text catalogue: one table per language (`en.EN`, `fr.FR`), read through `i18n.tr`.

A new language is a module here with the same keys and fields (tests/client/ui/test_i18n.py
checks them), and one entry in `CATALOGUE`.
"""

from __future__ import annotations

from .en import EN
from .fr import FR

CATALOGUE: dict[str, dict[str, str]] = {"en": EN, "fr": FR}

__all__ = ["CATALOGUE", "EN", "FR"]
