"""Issue 30 without a terminal: the card under the cursor, the warning before a move without
effect (decided by the engine), the rules page from the help."""

from __future__ import annotations

from typing import Any

import pytest

from client.ui.app import GameUI
from client.ui.targets import ButtonTarget, HeldTarget, MarketTarget

from .scenes import _mine, _search

LANGS = ("en", "fr")


def _thief(others_hold: bool) -> Any:
    def stop(s: Any) -> bool:
        held = any(s.held[o] for o in range(1, s.players))
        return _mine("choose")(s) and bool(s.held[0]) and held == others_hold

    return _search("skyjo-action", 2, {"action_kinds": "steal-and-play"}, stop, range(1, 80))


@pytest.mark.parametrize("lang", LANGS)
def test_steal_with_nobody_to_rob_is_warned_before_the_turn_is_spent(lang: str) -> None:
    ui = GameUI(_thief(False).source(), lang)
    ui.screen()
    ui.ui.cursor = HeldTarget(0, 0)
    model = ui.screen()
    assert model.hint_style == "warn" and model.hint.startswith("⚠")
    # chosen, the "play" button warns too; "discard it unused" does not
    ui.handle_key("enter")
    ui.ui.cursor = ButtonTarget("play")
    assert ui.screen().hint_style == "warn"
    ui.ui.cursor = ButtonTarget("discard-action")
    assert ui.screen().hint_style != "warn"


def test_steal_with_a_card_to_rob_is_described_not_warned() -> None:
    ui = GameUI(_thief(True).source(), "en")
    ui.screen()
    ui.ui.cursor = HeldTarget(0, 0)
    model = ui.screen()
    assert model.hint_style == "dim"
    assert model.hint.startswith("Steal and play (ROB): take an action card")


def test_a_market_card_is_described_in_one_line() -> None:
    table = _search("skyjo-action", 4, {}, _mine("choose"), range(1, 60))
    ui = GameUI(table.source(), "en")
    ui.screen()
    for place in range(4):
        ui.ui.cursor = MarketTarget(place)
        model = ui.screen()
        assert "(" in model.hint and "):" in model.hint, model.hint


@pytest.mark.parametrize("game", ["skyjo", "skyjo-action", "skip-bo"])
def test_the_help_leads_to_the_rules_page(game: str) -> None:
    table = _search(game, 2, {}, lambda s: s.phase in ("setup", "turn"), range(1, 5))
    ui = GameUI(table.source(), "en")
    ui.handle_key("?")
    assert any(key == "r" for key, _ in ui.screen().help.rows)  # type: ignore[union-attr]
    ui.handle_key("r")
    model = ui.screen()
    assert model.overlay == "rules" and model.rules[0] == "GOAL"
    ui.handle_key("down")
    assert ui.screen().rules_top == 1
    ui.handle_key("esc")
    assert ui.screen().overlay is None
