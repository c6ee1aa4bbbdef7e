"""The .po reader of the catalogues (client/ui/catalogue/po.py) and the converter (tools/catalogue.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from client.ui.catalogue import po

ROOT = Path(__file__).resolve().parents[3]


def test_reads_contexts_multiline_strings_escapes_and_skips_fuzzy() -> None:
    text = "\n".join(
        [
            'msgid ""',
            'msgstr "Content-Type: text/plain; charset=UTF-8\\n"',
            "",
            "#. a comment for the translator",
            'msgctxt "a.key"',
            'msgid "Hello {who}"',
            'msgstr "Hallo {who}"',
            "",
            'msgctxt "two.lines"',
            'msgid ""',
            '"GOAL\\n"',
            '"The \\"lowest\\" wins"',
            'msgstr ""',
            '"ZIEL\\n"',
            '"Die \\"niedrigste\\" gewinnt"',
            "",
            "#, fuzzy",
            'msgctxt "unsure"',
            'msgid "Maybe"',
            'msgstr "Vielleicht"',
            "",
            'msgctxt "todo"',
            'msgid "Later"',
            'msgstr ""',
            "",
            'msgctxt "empty.on.purpose"',
            'msgid ""',
            'msgstr ""',
        ]
    )
    table = po.read(text)
    assert table == {
        "a.key": "Hallo {who}",
        "two.lines": 'ZIEL\nDie "niedrigste" gewinnt',
        "empty.on.purpose": "",
    }
    entries = [e for e in po.parse(text) if e.context == "a.key"]
    assert entries[0].comments == ["a comment for the translator"]


def test_what_it_writes_it_reads_back() -> None:
    entries = [
        po.Entry("k.one", "A \\ b", "A \\ b"),
        po.Entry("k.two", 'x "y"\nz\n', 'x "y"\nz\n', comments=["note"]),
        po.Entry("k.three", "tab\there", "tab\there"),
    ]
    text = po.write(entries, "Language: en\n")
    assert po.read(text) == {"k.one": "A \\ b", "k.two": 'x "y"\nz\n', "k.three": "tab\there"}


@pytest.mark.parametrize(
    "bad", ['msgctxt "x"\nmsgid "unterminated\nmsgstr "y"', 'msgid "a"\nnonsense', 'msgid "\\q"']
)
def test_a_broken_file_is_a_clear_error(bad: str) -> None:
    with pytest.raises(po.PoError, match="line"):
        po.parse(bad)


def test_the_converter_carries_a_python_dict_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the lead runs at merge time: a branch's en.py / fr.py keys into the .po files."""
    spec = importlib.util.spec_from_file_location("catalogue_tool", ROOT / "tools" / "catalogue.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    sys.modules["catalogue_tool"] = tool
    spec.loader.exec_module(tool)
    folder = tmp_path / "catalogue"
    folder.mkdir()
    for lang in ("en", "fr", "de"):
        (folder / f"{lang}.po").write_text(
            (ROOT / "client" / "ui" / "catalogue" / f"{lang}.po").read_text(encoding="utf-8"),
            encoding="utf-8",
        )
    monkeypatch.setattr(tool, "CATALOGUE", folder)
    (tmp_path / "en.py").write_text(
        "EN: dict[str, str] = {\n"
        "    # --- new in a branch ---\n"
        '    "new.key": "New {n}",\n'
        '    "header.round": "Round {n}",\n'
        "}\n",
        encoding="utf-8",
    )
    (tmp_path / "fr.py").write_text('FR: dict[str, str] = {"new.key": "Nouveau {n}"}\n', encoding="utf-8")
    tool.import_dict("en", tmp_path / "en.py")
    tool.import_dict("fr", tmp_path / "fr.py")
    en = po.read((folder / "en.po").read_text(encoding="utf-8"))
    fr = po.read((folder / "fr.po").read_text(encoding="utf-8"))
    de = po.read((folder / "de.po").read_text(encoding="utf-8"))
    assert en["new.key"] == "New {n}" and fr["new.key"] == "Nouveau {n}"
    assert "new.key" not in de  # to translate: German shows English until then
    assert tool.check() == 1  # and the check says so
    assert "#. --- new in a branch ---" in (folder / "en.po").read_text(encoding="utf-8")
