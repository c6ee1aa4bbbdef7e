"""Both languages are complete, and every key the screen asks for exists."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from client.ui import i18n
from client.ui.caps import detect_lang
from client.ui.catalogue import EN, FR
from skyjo_p2p.action.cards import KIND_NAMES

UI = Path(i18n.__file__).parent


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_same_keys_in_both_languages() -> None:
    assert set(EN) - set(FR) == set(), "missing in French"
    assert set(FR) - set(EN) == set(), "missing in English"


@pytest.mark.parametrize("key", sorted(EN))
def test_same_fields(key: str) -> None:
    assert fields(EN[key]) == fields(FR[key]), key
    assert EN[key].strip() or key in ("action.sub.defense",), f"{key} is empty"


def used_keys() -> set[str]:
    pattern = re.compile(
        r"""\b(?:tr|tr_spans)\(\s*[\w.]+,\s*(?:who_key\()?"([a-z0-9_.\-]+)"|who_key\(\s*"([a-z0-9_.\-]+)\""""
    )
    keys: set[str] = set()
    for path in UI.rglob("*.py"):
        for match in pattern.finditer(path.read_text(encoding="utf-8")):
            keys.add(match.group(1) or match.group(2))
    return keys


def test_every_literal_key_exists() -> None:
    keys = used_keys()
    assert len(keys) > 100
    missing = sorted(k for k in keys if k not in EN and f"{k}.me" not in EN)
    assert not missing


def test_dynamic_keys_exist() -> None:
    kinds = ["setup", "choose", "drawn", "took", "flip", "line", "turn"]
    steps = [
        "setup",
        "choose",
        "drawn",
        "took",
        "flip",
        "offer",
        "lines",
        "found",
        "pick",
        "swap",
        "draw-three",
        "peek",
        "replay",
        "steal",
        "exchange",
        "turn",
    ]
    need = [f"help.skyjo.{k}" for k in kinds] + ["help.skipbo.turn"] + [f"help.action.{s}" for s in steps]
    need += [f"action.what.{s}" for s in steps if s not in ("turn",)]
    for kind in KIND_NAMES.values():
        need += [f"action.{part}.{kind}" for part in ("name", "short", "tiny", "sub")]
    need += [f"skyjo.log.{line}" for line in ("column", "row")] + [
        f"skyjo.{line}" for line in ("column", "row")
    ]
    need += [f"target.{t}" for t in ("draw", "discard", "hand", "building", "sdiscard", "market", "stock")]
    need += [f"skipbo.source.{s}" for s in ("stock", "discard", "partner-stock", "partner-discard")]
    need += [
        f"lobby.link.{s}"
        for s in ("me", "connected", "local", "connecting", "reconnecting", "blamed", "gone")
    ]
    need += [
        f"action.button.{b}"
        for b in ("play", "discard-action", "pass", "keep-lines", "keep-none", "keep-action", "drop-action")
    ]
    assert [k for k in need if k not in EN] == []


def test_me_variants_come_in_pairs() -> None:
    for key in EN:
        if key.endswith(".me"):
            assert key[:-3] in EN, key


def test_short_labels_fit_their_cards() -> None:
    for table in (EN, FR):
        for kind in KIND_NAMES.values():
            assert len(table[f"action.short.{kind}"]) <= 4
            assert len(table[f"action.tiny.{kind}"]) <= 2
            assert len(table[f"action.sub.{kind}"]) <= 6


def test_tr_fills_fields_and_falls_back() -> None:
    assert i18n.tr("fr", "header.round", n=3) == "Manche 3"
    assert i18n.tr("de", "header.round", n=3) == "Round 3"  # an unknown language: English
    assert i18n.tr("en", "no.such.key") == "no.such.key"


def test_language_from_the_locale() -> None:
    assert detect_lang(None, {"LANG": "fr_FR.UTF-8"}) == "fr"
    assert detect_lang(None, {"LC_ALL": "en_GB.UTF-8", "LANG": "fr_FR.UTF-8"}) == "en"
    assert detect_lang(None, {}) == "en"
    assert detect_lang("fr", {"LANG": "C"}) == "fr"
