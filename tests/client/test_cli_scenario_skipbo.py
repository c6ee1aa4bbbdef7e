"""`skyjo-lan scenario` and `skyjo-lan simulate` with SKIP-BO, as a user runs them."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from client.cli import main

EXAMPLE = Path(__file__).parent.parent / "scenarios" / "skipbo_example.json"


def run(capsys, document, *, raw: str | None = None):
    text = raw if raw is not None else json.dumps(document)
    sys.stdin = io.StringIO(text)
    try:
        code = main(["scenario", "-"])
    finally:
        sys.stdin = sys.__stdin__
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def example(moves: int | None = None, **changes):
    document = json.loads(EXAMPLE.read_text())
    if moves is not None:
        document["rounds"][0]["moves"] = document["rounds"][0]["moves"][:moves]
    document.update(changes)
    return document


def test_b5_example_file_seat_0_empties_its_stock_and_scores_45(capsys):
    code = main(["scenario", str(EXAMPLE)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["error"] is None
    assert out["phase"] == "game_over" and out["winners"] == [0] and out["to_move"] is None
    assert [p["round_scores"] for p in out["players"]] == [[45], [0]]  # 25 + 5 x 4 cards of seat 1
    assert out["players"][0]["stock"] == 0 and out["players"][0]["stock_top"] is None
    assert out["building"] == [10, 1, None, None]


def test_report_shows_the_table_after_the_first_turn(capsys):
    code, out, err = run(capsys, example(7))
    assert code == 0 and err == ""
    assert set(out) == {
        "game",
        "round",
        "phase",
        "to_move",
        "dealer",
        "players",
        "building",
        "draw_pile",
        "set_aside",
        "winners",
        "error",
    }
    assert out["game"] == "skip-bo" and out["round"] == 1 and out["phase"] == "turn"
    assert out["dealer"] == 1 and out["to_move"] == 1  # R-B2: the seat after the dealer started
    me, you = out["players"]
    assert me == {
        "stock_top": 8,
        "stock": 2,
        "hand": [12],
        "discards": [[12], [], [], []],
        "round_scores": [],
        "total": 0,
    }
    assert you["stock_top"] == 1 and you["stock"] == 5 and you["hand"] == [5, 6, 12, 12, 12]
    assert out["building"] == [6, None, None, None]  # 1, 2, 3, 4, SB (as 5), 6
    assert out["draw_pile"] == 162 - 10 - 5 - 5 and out["set_aside"] == 0


def test_b3_a_wild_on_top_reports_the_number_it_stands_for(capsys):
    code, out, _ = run(capsys, example(5))
    assert code == 0 and out["building"][0] == 5  # the SB played on the 4
    assert out["players"][0]["hand"] == [12, 12]


def test_b7_out_of_turn_move_exits_1_with_the_table_before_it(capsys):
    document = example(7)
    document["rounds"][0]["moves"].append({"seat": 0, "move": "play", "from": "stock", "target": 0})
    code, out, _ = run(capsys, document)
    assert code == 1
    assert out["error"] == {"round": 1, "move": 7, "reason": "it is seat 1's turn, not seat 0's"}
    assert out["to_move"] == 1 and out["players"][0]["stock"] == 2


def test_c4_a_card_that_does_not_fit_is_refused_with_the_reason(capsys):
    document = example(0)
    document["rounds"][0]["moves"] = [{"seat": 0, "move": "play", "from": "hand", "index": 2, "target": 1}]
    code, out, _ = run(capsys, document)
    assert code == 1
    assert out["error"]["reason"] == (
        "hand card 2 is a 3, but building pile 1 needs a 1 (an empty pile starts with a 1 or a SKIP-BO)"
    )
    assert out["players"][0]["hand"] == [1, "SB", 3, 12, 12]


def test_seeded_rounds_without_a_deck_are_reproducible(capsys):
    document = {"game": "skip-bo", "players": 5, "seed": 4, "options": {}, "rounds": [{"moves": []}]}
    _, first, _ = run(capsys, document)
    _, again, _ = run(capsys, document)
    assert first == again
    assert [p["stock"] for p in first["players"]] == [20] * 5  # R-B2: 20 cards with 5 players
    assert first["draw_pile"] == 162 - 100 - 5


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"rounds": [{"deck": [1, 2, 3]}]}, "must have 162 cards"),
        ({"rounds": [{"deck": ["SB"] * 162}]}, "wrong cards"),
        ({"rounds": [{"deck": [0] * 162}]}, "0 is not a SKIP-BO card"),
        ({"rounds": [{"deck": ["X"] * 162}]}, "'X' is not a SKIP-BO card"),
        ({"rounds": [{"moves": [{"seat": 0, "move": "play", "from": "hand", "target": 0}]}]}, "needs index"),
        ({"rounds": [{"moves": [{"seat": 0, "move": "draw"}]}]}, "unknown move 'draw'"),
        ({"options": {"teams": True}}, "teams are played by 4 or 6 players"),
        ({"options": {"stock_size": 3}}, "stock_size must be 5..30"),
        ({"players": 7}, "2 to 6 players"),
    ],
)
def test_malformed_skipbo_scenarios_exit_2_with_one_line(capsys, changes, message):
    document = {"game": "skip-bo", "players": 2, "rounds": []}
    document.update(changes)
    code, out, err = run(capsys, document)
    assert code == 2 and out is None
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize(("players", "teams"), [(2, "off"), (3, "off"), (4, "on"), (5, "off"), (6, "on")])
def test_simulate_skipbo_any_table_is_reproducible(capsys, players, teams):
    args = ["simulate", "--game", "skip-bo", "--players", str(players), "--games", "3", "--seed", "2"]
    args += ["--option", f"teams={teams}", "--option", "single_round=on", "--option", "stock_size=8"]
    assert main([*args, "--no-timing"]) == 0
    first = capsys.readouterr().out
    assert main([*args, "--no-timing"]) == 0
    assert capsys.readouterr().out == first
    report = json.loads(first)
    assert report["games"] == 3 and report["rounds"] == 3
    assert sum(report["wins_by_seat"]) == pytest.approx(3, abs=0.01)  # shares are rounded


def test_simulate_skipbo_refuses_teams_for_5_players(capsys):
    args = ["simulate", "--game", "skip-bo", "--players", "5", "--option", "teams=on"]
    assert main(args) == 2
    assert "4 or 6 players" in capsys.readouterr().err


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 0), (4, 2), (5, 7), (6, 2)])
def test_b2_documented_seeds_make_the_last_seat_deal_and_seat_0_start(capsys, players, seed):
    """The table of docs/scenarios.md, SKIP-BO: with a given deck only the dealer comes from the seed."""
    document = example(0, players=players, seed=seed, options={"stock_size": 5})
    code, out, _ = run(capsys, document)
    assert code == 0 and out["dealer"] == players - 1 and out["to_move"] == 0
    deck = document["rounds"][0]["deck"]
    assert [p["stock_top"] for p in out["players"]] == deck[: 5 * players : 5]  # stocks in seat order
    assert out["players"][0]["hand"] == deck[5 * players : 5 * players + 5]  # then the draw pile


def test_b6_documented_team_example_plays_the_partners_stock_top(capsys):
    document = {
        "game": "skip-bo",
        "players": 4,
        "seed": 34,
        "options": {"teams": True, "stock_size": 5},
        "rounds": [{"moves": [{"seat": 0, "move": "play", "from": "partner-stock", "target": 0}]}],
    }
    code, out, _ = run(capsys, document)
    assert code == 0 and out["dealer"] == 3 and out["building"] == [1, None, None, None]
    assert [p["stock"] for p in out["players"]] == [5, 5, 4, 5]
