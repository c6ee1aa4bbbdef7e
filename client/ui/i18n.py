"""Every user-visible string of the terminal UI, in English, French and German.

`tr(lang, key, **fields)` returns the text; `tr_spans` builds styled spans, keeping the style of
fields given as `Span`s (a coloured card value inside a sentence). A key ending in ".me" is the
variant used when the subject is the player themself ("You drew" / "Vous avez pioché");
`who_key` picks it. `tidy` applies the small rules of each language to the filled text: "an 8",
"an 11" in English, "d'Anna" in French, and a capital at the start of a sentence that begins with
"you" or a card ("You ended the round", not "you ..."); a person's name stays as they typed it.
`tests/client/ui/test_i18n.py` checks that every language has every key with the same fields, and
that every key the code uses exists. The texts are gettext .po files (`catalogue/`).
"""

from __future__ import annotations

import re
import string
from typing import Any

from .canvas import Span
from .catalogue import CATALOGUE

_formatter = string.Formatter()

# fields that, first in a template, start a sentence: a name ("you" for the player), a card's name;
# a person's name stays as they typed it, only the program's own words get the capital
_SUBJECTS = frozenset({"who", "names", "card"})
# English "an": before a vowel sound; of the numbers, those said "eight...", "eleven", "eighteen"
_EN_DOUBLE = re.compile(r"(?<![\w'-])(the|The|a|A|an|An) (?:a|an) (?=\S)")
_EN_AN = re.compile(r"(?<![\w'-])([Aa]) (?=(?:8|11(?!\d)|18(?!\d)|[aeiouAEIOU]))")
# French: "un une étoile" -> "une étoile", "le une étoile" -> "l'étoile", "de Anna" -> "d'Anna"
_FR_DOUBLE = re.compile(r"(?<![\w'-])([Uu]n|[Ll]e|[Ll]a) (un|une) (?=\S)")
_FR_ELISION = re.compile(r"(?<![\w'-])([LlDd]e|[Ll]a|[Qq]ue) (?=[aeiouyéèêàâîôûAEIOUYÉÈÊÀÂÎÔÛ])")


def _fr_double(match: re.Match[str]) -> str:
    first, second = match.group(1), match.group(2)
    if first.lower() == "un":
        return (second[0].upper() + second[1:] if first[0].isupper() else second) + " "
    return first + " "


def tidy(lang: str, text: str, *, sentence: bool = False) -> str:
    """`text` with its language's small rules applied (articles, elision; a capital if `sentence`)."""
    if lang == "fr":
        text = _FR_DOUBLE.sub(_fr_double, text)
        text = _FR_ELISION.sub(lambda m: m.group(1)[:-1] + "'", text)
    elif lang == "de":
        pass  # German: its texts are written whole (no article follows a field)
    else:
        text = _EN_DOUBLE.sub(lambda m: m.group(1) + " ", text)
        text = _EN_AN.sub(lambda m: m.group(1) + "n ", text)
    if sentence and text[:1].islower():
        text = text[0].upper() + text[1:]
    return text


def _starts_sentence(lang: str, template: str, fields: dict[str, Any]) -> bool:
    """Whether the text starts with a word of the program's (a card, "you") that needs a capital."""
    for literal, name, _spec, _conv in _formatter.parse(template):
        if literal or name not in _SUBJECTS:
            return False
        value = fields.get(name)
        text = str(value.text if isinstance(value, Span) else value or "")
        if name == "card":
            return True
        table = CATALOGUE.get(lang) or CATALOGUE["en"]
        you = table.get("you") or "you"
        return text == you or text.startswith((you + " ", you + ","))
    return False


def tr(lang: str, key: str, **fields: Any) -> str:
    table = CATALOGUE.get(lang) or CATALOGUE["en"]
    template = table.get(key)
    if template is None:
        template = CATALOGUE["en"].get(key, key)
    plain = {k: (v.text if isinstance(v, Span) else v) for k, v in fields.items()}
    try:
        text = template.format(**plain)
    except (KeyError, IndexError, ValueError):
        return template
    return tidy(lang, text, sentence=_starts_sentence(lang, template, fields))


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
    return _tidy_spans(lang, out, _starts_sentence(lang, template, fields))


def _tidy_spans(lang: str, spans: list[Span], sentence: bool) -> list[Span]:
    """`tidy` over spans: each literal is tidied with the start of the text that follows it."""
    out = list(spans)
    for i, span in enumerate(out):
        after = out[i + 1].text if i + 1 < len(out) else ""
        joined = tidy(lang, span.text + after, sentence=sentence and i == 0)
        if joined.endswith(after):
            out[i] = Span(joined[: len(joined) - len(after)], span.style)
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
