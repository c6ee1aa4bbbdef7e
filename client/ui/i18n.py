"""Every user-visible string of the terminal UI, in English and French.

`tr(lang, key, **fields)` returns the text; `tr_spans` builds styled spans, keeping the style of
fields given as `Span`s (a coloured card value inside a sentence). A key ending in ".me" is the
variant used when the subject is the player themself ("You drew" / "Vous avez pioché");
`who_key` picks it. `tests/client/ui/test_i18n.py` checks that both languages have every key
with the same fields, and that every key the code uses exists.
"""

from __future__ import annotations

import string
from typing import Any

from .canvas import Span
from .catalogue import CATALOGUE

_formatter = string.Formatter()


def tr(lang: str, key: str, **fields: Any) -> str:
    table = CATALOGUE.get(lang) or CATALOGUE["en"]
    template = table.get(key)
    if template is None:
        template = CATALOGUE["en"].get(key, key)
    plain = {k: (v.text if isinstance(v, Span) else v) for k, v in fields.items()}
    try:
        return template.format(**plain)
    except (KeyError, IndexError, ValueError):
        return template


def tr_spans(lang: str, key: str, style: str = "text", **fields: Any) -> list[Span]:
    """The text of `key` as spans: literal parts in `style`, `Span` fields in their own style."""
    table = CATALOGUE.get(lang) or CATALOGUE["en"]
    template = table.get(key) or CATALOGUE["en"].get(key, key)
    out: list[Span] = []
    for literal, name, spec, _conv in _formatter.parse(template):
        if literal:
            out.append(Span(literal, style))
        if name is None:
            continue
        value = fields.get(name, "{" + name + "}")
        if isinstance(value, Span):
            out.append(value)
        else:
            out.append(Span(format(value, spec or ""), style))
    return out


def who_key(key: str, seat: int | None, me: int | None) -> str:
    return f"{key}.me" if seat is not None and seat == me else key


def plural(lang: str, count: int, key: str) -> str:
    """`key.one` or `key.many` with {n}."""
    return tr(lang, f"{key}.{'one' if abs(count) == 1 or (lang == 'fr' and count == 0) else 'many'}", n=count)


def join_names(lang: str, names: list[str]) -> str:
    if not names:
        return ""
    if len(names) == 1:
        return names[0]
    return f"{', '.join(names[:-1])} {tr(lang, 'and')} {names[-1]}"
