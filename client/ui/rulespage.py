"""The rules page of each game, in the player's language: short, from docs/rules.md (itself from
the rule texts and ../shared/RULINGS.md), reached from the help with `r`.

A page is one catalogue entry per game (`rules.skyjo`, `rules.skyjo-action`, `rules.skip-bo`),
lines separated by newlines, so a translator edits it as text; a line starting with two spaces is
an illustration (cards drawn as text) and is never wrapped.
"""

from __future__ import annotations

from .i18n import tr


def rules_page(lang: str, game: str) -> list[str]:
    """The lines of `game`'s rules page (its title first)."""
    return tr(lang, f"rules.{game}").split("\n")
