"""A small reader of gettext .po files: the catalogues of the screen's text, one file per language.

Each entry names its key with `msgctxt` ("header.round"), carries the English text as `msgid` and
the translation as `msgstr` (the English file repeats the text there), so that a translator works
on a plain .po file with any gettext editor (Poedit, Lokalize, Weblate) and never reads Python.
Only what the catalogues use is read: comments (`#`), `msgctxt`, `msgid`, `msgstr`, strings over
several lines, and the C escapes gettext writes (\\n, \\t, \\", \\\\). An entry marked `#, fuzzy`
or with an empty `msgstr` is not translated yet: the caller falls back on English. No plural
forms: the keys `.one` / `.many` say it (see `i18n.plural`).

Reference: the GNU gettext manual, "The Format of PO Files"
(https://www.gnu.org/software/gettext/manual/html_node/PO-Files.html).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}
_ESCAPE = re.compile(r"\\(.?)", re.DOTALL)


class PoError(ValueError):
    """A .po file this reader cannot read, with the line number."""


@dataclass
class Entry:
    """One entry of a .po file."""

    context: str | None = None
    msgid: str = ""
    msgstr: str = ""
    fuzzy: bool = False
    comments: list[str] = field(default_factory=list)


def unquote(text: str, line: int) -> str:
    """The value of a C string literal as gettext writes it ("a \\"b\\"\\n")."""
    text = text.strip()
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise PoError(f"line {line}: a quoted string was expected, not {text[:40]!r}")
    body = text[1:-1]
    if "\\" not in body:  # most strings: no escape (read at every start, so kept quick)
        if '"' in body:
            raise PoError(f"line {line}: an unescaped quote in {text[:40]!r}")
        return body
    if '"' in _ESCAPE.sub("", body):
        raise PoError(f"line {line}: an unescaped quote in {text[:40]!r}")

    def escape(match: re.Match[str]) -> str:
        value = _ESCAPES.get(match.group(1))
        if value is None:
            raise PoError(f"line {line}: unknown escape in {text[:40]!r}")
        return value

    return _ESCAPE.sub(escape, body)


def quote(text: str) -> str:
    """`text` as a .po string: one line, or several after an empty first one at each newline."""

    def one(part: str) -> str:
        return (
            '"'
            + part.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
            + '"'
        )

    if "\n" not in text.rstrip("\n"):
        return one(text)
    parts = text.split("\n")
    pieces = [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    return '""\n' + "\n".join(one(p) for p in pieces)


def parse(text: str) -> list[Entry]:
    """The entries of a .po file's text (the header entry, with an empty msgid, included)."""
    entries: list[Entry] = []
    current = Entry()
    started = False
    target: str | None = None  # the field that continuation strings extend

    def finish() -> None:
        nonlocal current, started, target
        if started:
            entries.append(current)
        current, started, target = Entry(), False, None

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            finish()
            continue
        if line.startswith("#"):
            if started and target is not None and target != "context":
                finish()
            if line.startswith("#,") and "fuzzy" in line:
                current.fuzzy = True
            elif line.startswith("#.") or line.startswith("# "):
                current.comments.append(line[2:].strip())
            continue
        keyword, _, rest = line.partition(" ")
        if keyword in ("msgctxt", "msgid", "msgstr"):
            if keyword == "msgctxt" and started and target is not None:
                finish()
            if keyword == "msgid" and started and target == "msgstr":
                finish()
            started = True
            target = {"msgctxt": "context", "msgid": "msgid", "msgstr": "msgstr"}[keyword]
            value = unquote(rest, number)
            if target == "context":
                current.context = value
            else:
                setattr(current, target, value)
            continue
        if line.startswith('"') and target is not None:
            value = unquote(line, number)
            if target == "context":
                current.context = (current.context or "") + value
            else:
                setattr(current, target, getattr(current, target) + value)
            continue
        raise PoError(f"line {number}: cannot read {line[:40]!r}")
    finish()
    return entries


def read(text: str) -> dict[str, str]:
    """key (msgctxt) -> translated text (msgstr) of every translated entry."""
    table: dict[str, str] = {}
    for entry in parse(text):
        if entry.context is None or entry.fuzzy or (not entry.msgstr and entry.msgid):
            continue  # (an empty English text is a text: "action.sub.defense" shows nothing)
        table[entry.context] = entry.msgstr
    return table


def write(entries: list[Entry], header: str = "") -> str:
    """A .po file's text for `entries` (the header's msgstr first, as gettext tools expect)."""
    out = ['msgid ""', "msgstr " + quote(header), ""]
    for entry in entries:
        out.extend(f"#. {c}" for c in entry.comments)
        if entry.fuzzy:
            out.append("#, fuzzy")
        if entry.context is not None:
            out.append("msgctxt " + quote(entry.context))
        out.append("msgid " + quote(entry.msgid))
        out.append("msgstr " + quote(entry.msgstr))
        out.append("")
    return "\n".join(out)
