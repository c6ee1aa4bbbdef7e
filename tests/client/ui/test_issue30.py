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


def _played_step_by_step(game: str, players: int, options: dict[str, Any], steps: int, seed: int = 2) -> Any:
    """A table played move by move, its screen drawn after each move (as a live screen reads it)."""
    from client.ui.caps import Caps
    from client.ui.render import render

    from .scenes import OfflineTable

    table = OfflineTable(game, players, options, seed=seed, level="random")
    ui = GameUI(table.source(), "en")
    frames = []
    for _ in range(steps):
        if not table.step() or table.state.phase == "game_over":
            break
        ui.source = table.source()
        model = ui.screen()
        frames.append((model, render(model, 80, 24, Caps(color=True, unicode=True))))
    return ui, frames


def test_action_log_names_a_replaced_face_up_card() -> None:
    ui, _ = _played_step_by_step("skyjo-action", 3, {}, 500, seed=3)
    told = ["".join(s.text for s in line) for line in ui.narrator.lines(10_000)]
    replaced = [t for t in told if ", replaced" in t]
    assert replaced, told[-20:]
    assert not [t for t in replaced if "replaced a card" in t], replaced
    # a swap or an exchange names the cards it moved where this seat knew them
    assert [t for t in told if (" gave " in t and " for " in t) or ("swapped two of" in t and ": " in t)], (
        told
    )


def test_every_seats_last_change_is_marked_until_it_acts_again() -> None:
    _, frames = _played_step_by_step("skyjo", 3, {}, 60)
    marked = [model for model, _ in frames if model.ui.recent]
    assert marked
    model, frame = frames[-1]
    seats = {t.seat for t in model.ui.recent}
    assert len(seats) >= 2  # not only the last player's
    for target in model.ui.recent:
        rect = frame.targets.get(target)
        assert rect is not None
        row = frame.text()[rect.y + rect.h - 1]
        assert "‹" in row or "•" in row, (target, frame.text())


def test_a_removed_column_stays_visible_a_moment() -> None:
    from client.ui.recent import last_changes
    from skyjo_p2p.core.events import LineRemoved

    from .scenes import OfflineTable

    for seed in range(1, 40):
        table = OfflineTable("skyjo", 2, {}, seed=seed, level="greedy")
        for _ in range(400):
            if not table.step() or table.state.phase not in ("setup", "turn"):
                break
            if any(isinstance(e.fact, LineRemoved) for e in table.entries[-6:]):
                break
        removed = [e.fact for e in table.entries if isinstance(e.fact, LineRemoved)]
        if removed and table.state.phase == "turn":
            break
    else:
        raise AssertionError("no column removed in these games")
    gone = last_changes(table.entries).gone
    line = removed[-1]
    assert {(t.seat, t.slot) for t in gone} >= {(line.seat, s) for s in line.slots}
    ui = GameUI(table.source(), "en")
    model = ui.screen()
    assert model.ui.gone


def test_the_evening_cut_to_the_room_says_how_many_are_not_shown() -> None:
    from client.table.evening import EveningRow
    from client.ui.evening import evening_lines

    rows = [EveningRow(f"P{i}", "abcd-efgh-ijkl-mnop", 2, i % 2, 50 + i) for i in range(6)]
    lines = evening_lines(rows, "en", 2, most=3)
    text = ["".join(s.text for s in line) for line in lines]
    assert len(text) == 2 + 3  # title, heads, two rows, the hint
    assert "4 more players" in text[-1]
    assert len(evening_lines(rows, "en", 2, most=8)) == 2 + 6  # all fit: no hint


def test_a_shared_win_shares_the_place() -> None:
    from client.ui.canvas import Canvas
    from client.ui.caps import Caps
    from client.ui.model import ResultView, ScreenModel
    from client.ui.render import result

    model = ScreenModel("en", "skyjo", "SKYJO", "", "", 0, ["Anna", "Ben", "Cyd"])
    model.result = ResultView(
        ["Anna", "Ben"], [("Anna", 12, True), ("Ben", 12, True), ("Cyd", 40, False)], False
    )
    canvas = Canvas(80, 24, Caps(color=False, unicode=True))
    result(canvas, model)
    text = "\n".join(canvas.frame().text())
    assert "1. ♛ Anna" in text and "1. ♛ Ben" in text and "3.   Cyd" in text


def test_skipbo_help_lists_the_digits_in_order() -> None:
    """Every help of a SKIP-BO game (each decision, each step of it) lists its digits 1 2 3 … 9 0."""
    import re

    from .scenes import OfflineTable

    table = OfflineTable("skip-bo", 3, {}, seed=3, level="random")
    checked = 0
    for _ in range(400):
        if table.state.phase == "turn" and table.state.turn == 0:
            ui = GameUI(table.source(), "en")
            ui.screen()
            for first in (None, "1", "6", "7"):
                if first is not None:
                    ui.handle_key(first)
                ui.handle_key("?")
                model = ui.screen()
                keys = [k for k, _ in model.help.rows if re.fullmatch(r"\d(-\d)?", k)]  # type: ignore[union-attr]
                order = ["1234567890".index(k[0]) for k in keys]
                assert order == sorted(order), keys
                checked += 1
                ui.handle_key("esc")
                ui.handle_key("esc")
        if not table.step():
            break
    assert checked > 20


def test_no_link_lost_note_at_game_over_nor_for_a_seat_the_table_plays() -> None:
    from .scenes import _table

    table = _table("skyjo", 3, {"target_score": 20}, 3, lambda s: s.phase == "turn" and s.turn == 1)
    source = table.source()
    source.link_states = {1: "reconnecting", 2: "reconnecting"}
    source.taken = {1: "vanished"}
    prompt = GameUI(source, "en").screen().prompt
    assert "link lost" in prompt and "Chloé: link lost" in prompt and "Ben" not in prompt.split("(", 1)[-1]
    over = _table("skyjo", 3, {"target_score": 20}, 3, lambda s: s.phase == "game_over").source()
    over.link_states = {1: "reconnecting"}
    over.away_seats = frozenset({0})
    model = GameUI(over, "en").screen()
    assert "link lost" not in model.prompt and "Away" not in model.prompt


def test_a_stolen_card_shows_on_its_owners_box_until_the_thief_plays_again() -> None:
    from skyjo_p2p.core.events import Moved

    from .scenes import OfflineTable

    for seed in range(1, 60):
        table = OfflineTable("skyjo-action", 2, {"action_kinds": "steal-and-play"}, seed=seed, level="random")
        stolen = None
        for _ in range(600):
            if not table.step() or table.state.phase == "game_over":
                break
            moves = [e.fact.move for e in table.entries if isinstance(e.fact, Moved)]
            if moves and moves[-1].kind == "steal" and table.state.phase == "turn":
                stolen = moves[-1]
                break
        if stolen is not None and stolen.target is not None:
            break
    else:
        raise AssertionError("no steal in these games")
    model = GameUI(table.source(), "en").screen()
    victim = next(s for s in model.table.seats if s.seat == stolen.target)
    assert "lost ROB" in victim.badges
