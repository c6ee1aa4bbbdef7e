"""The screen's text catalogues (client/ui/catalogue/LANG.po): carry keys over from the old Python
dicts, start a new language, check that every language has every key. Not shipped.

    python tools/catalogue.py import en path/to/en.py   # every key of the dict `EN = {...}`
    python tools/catalogue.py import fr path/to/fr.py   # into en.po / fr.po (added or updated)
    python tools/catalogue.py new it                     # it.po: every key, nothing translated yet
    python tools/catalogue.py check                      # every language: every key, same fields

`import` reads the dict literal without running the module (`ast`), in its order, and keeps the
comments above a key as comments for the translator (`#.`). Importing English also adds its new
keys to every other language, untranslated (an empty msgstr: the screen shows the English text
until someone translates it, and `check` lists it). An entry keeps its place; new ones go at the
end. A branch that still adds keys to en.py / fr.py is carried over by importing its files:

    git show BRANCH:client/ui/catalogue/en.py > /tmp/en.py
    git show BRANCH:client/ui/catalogue/fr.py > /tmp/fr.py
    python tools/catalogue.py import en /tmp/en.py
    python tools/catalogue.py import fr /tmp/fr.py
    python tools/catalogue.py check                      # then translate what it lists (de.po)
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import string
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "client" / "ui" / "catalogue"


def _po_module() -> ModuleType:
    """client/ui/catalogue/po.py by its path: importing the package would read every .po first."""
    spec = importlib.util.spec_from_file_location("catalogue_po", CATALOGUE / "po.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["catalogue_po"] = module  # (dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


_po = _po_module()
Entry, parse, write = _po.Entry, _po.parse, _po.write
HEADER = "Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\nLanguage: {lang}\n"


def read_dict(path: Path) -> list[tuple[str, str, list[str]]]:
    """(key, text, comments) of the one dict literal assigned in the module at `path`."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    lines = source.splitlines()
    for node in ast.walk(tree):
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if not isinstance(value, ast.Dict):
            continue
        out: list[tuple[str, str, list[str]]] = []
        previous = value.lineno
        for key, item in zip(value.keys, value.values, strict=True):
            if key is None:
                raise SystemExit(f"{path}: a ** entry cannot be read")
            name, text = ast.literal_eval(key), ast.literal_eval(item)
            if not isinstance(name, str) or not isinstance(text, str):
                raise SystemExit(f"{path}: line {key.lineno}: keys and texts must be strings")
            comments = [
                line.strip().lstrip("#").strip()
                for line in lines[previous : key.lineno - 1]
                if line.strip().startswith("#")
            ]
            out.append((name, text, comments))
            previous = item.end_lineno or key.lineno
        return out
    raise SystemExit(f"{path}: no dict literal found")


def po_path(lang: str) -> Path:
    return CATALOGUE / f"{lang}.po"


def load(lang: str) -> list[Any]:
    path = po_path(lang)
    if not path.exists():
        return []
    return [e for e in parse(path.read_text(encoding="utf-8")) if e.context is not None]


def save(lang: str, entries: list[Any]) -> None:
    po_path(lang).write_text(write(entries, HEADER.format(lang=lang)), encoding="utf-8")


def languages() -> list[str]:
    return sorted(p.stem for p in CATALOGUE.glob("*.po"))


def import_dict(lang: str, path: Path) -> None:
    """Add or update the keys of the dict at `path` in LANG.po (and English keys everywhere)."""
    items = read_dict(path)
    english = {e.context: e.msgstr for e in load("en")} if lang != "en" else {k: t for k, t, _ in items}
    entries = load(lang)
    by_key = {e.context: e for e in entries}
    added = updated = 0
    for key, text, comments in items:
        entry = by_key.get(key)
        if entry is None:
            entry = Entry(key, english.get(key, text), text, comments=comments)
            entries.append(entry)
            by_key[key] = entry
            added += 1
        elif entry.msgstr != text or entry.fuzzy:
            entry.msgstr, entry.fuzzy = text, False
            updated += 1
        entry.msgid = english.get(key, text)
    save(lang, entries)
    print(f"{lang}.po: {added} added, {updated} updated")
    if lang == "en":
        for other in languages():
            if other == "en":
                continue
            theirs = load(other)
            known = {e.context: e for e in theirs}
            new = 0
            for key, text, comments in items:
                if key in known:
                    known[key].msgid = text  # the English it translates, as it is now
                else:
                    theirs.append(Entry(key, text, "", comments=comments))
                    new += 1
            save(other, theirs)
            if new:
                print(f"{other}.po: {new} keys to translate")


def new_language(lang: str) -> None:
    if po_path(lang).exists():
        raise SystemExit(f"{po_path(lang)} exists")
    save(lang, [Entry(e.context, e.msgid, "", comments=e.comments) for e in load("en")])
    print(f"{po_path(lang)}: every key, to translate")


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def check() -> int:
    english = {e.context: e for e in load("en")}
    problems = 0
    for lang in languages():
        table = {e.context: e for e in load(lang)}
        for key, entry in english.items():
            theirs = table.get(key)
            if theirs is None:
                print(f"{lang}: missing {key}")
            elif (not theirs.msgstr and entry.msgstr) or theirs.fuzzy:
                print(f"{lang}: not translated {key}")
            elif fields(theirs.msgstr) != fields(entry.msgstr):
                theirs_fields, english_fields = sorted(fields(theirs.msgstr)), sorted(fields(entry.msgstr))
                print(f"{lang}: {key}: fields {theirs_fields}, English {english_fields}")
            else:
                continue
            problems += 1
        for key in table.keys() - english.keys():
            print(f"{lang}: {key} is not an English key")
            problems += 1
    print("every language has every key" if not problems else f"{problems} problems")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("import", help="carry a Python dict's keys into LANG.po")
    one.add_argument("lang")
    one.add_argument("path", type=Path)
    two = sub.add_parser("new", help="start LANG.po with every key untranslated")
    two.add_argument("lang")
    sub.add_parser("check", help="every language has every key, with the same fields")
    args = parser.parse_args(argv)
    if args.command == "import":
        import_dict(args.lang, args.path)
        return 0
    if args.command == "new":
        new_language(args.lang)
        return 0
    return check()


if __name__ == "__main__":
    sys.exit(main())
