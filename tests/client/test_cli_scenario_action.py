"""`skyjo-lan scenario` and `skyjo-lan simulate` with SKYJO ACTION, as a user runs them."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from client.cli import main
from skyjo_p2p.action import ActionOptions
from skyjo_p2p.action.cards import code_of, name_of
from tests.support import build_deck

EXAMPLE = Path(__file__).parent.parent / "scenarios" / "action_official_example.json"
A = [12, -2, 0, 0, 1, 1, 2, -1, -1, -2, 0, 0]
B = [4, 2, 3, 3, 1, 2, 0, 1, 2, 3, 1, 2]
CLASSIC_FIELDS = {
    "game",
    "round",
    "phase",
    "to_move",
    "ended_by",
    "players",
    "discard_top",
    "draw_pile",
    "winners",
    "error",
}


def run(capsys, document, *, raw: str | None = None):
    sys.stdin = io.StringIO(raw if raw is not None else json.dumps(document))
    try:
        code = main(["scenario", "-"])
    finally:
        sys.stdin = sys.__stdin__
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def deck(front, options=None):
    """A whole playing deck as a scenario writes it, starting with `front` (numbers, "*", names)."""
    return [
        name_of(v) for v in build_deck([code_of(v) for v in front], ActionOptions.parse(options).playing_deck)
    ]


def action_deck(names):
    return [name_of(v) for v in build_deck([code_of(n) for n in names], ActionOptions.parse({}).action_deck)]


def two_player(moves, front=(), market=(), options=None):
    return {
        "game": "skyjo-action",
        "players": 2,
        "options": options or {},
        "seed": 3,
        "rounds": [
            {
                "deck": deck([*A, *B, *front], options),
                **({"action_deck": action_deck(market)} if market else {}),
                "moves": moves,
            }
        ],
    }


SETUP = [
    {"seat": 0, "move": "reveal", "slots": [0, 1]},
    {"seat": 1, "move": "reveal", "slots": [0, 1]},
]


def test_official_example_file_scores_20_24_10(capsys):
    code = main(["scenario", str(EXAMPLE)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["error"] is None
    assert [p["round_scores"] for p in out["players"]] == [[20], [24], [10]]
    assert [p["total"] for p in out["players"]] == [20, 24, 10]
    assert out["round"] == 2 and out["phase"] == "setup"


def test_report_shows_stars_held_cards_market_and_the_open_decision(capsys):
    moves = [
        *SETUP,
        {"seat": 0, "move": "take", "from": "market", "index": 1},
        {"seat": 1, "move": "draw", "from": "deck"},
        {"seat": 1, "move": "replace", "slot": 5},
    ]
    document = two_player(
        moves, front=[5, "*"], market=["defense", "swap-own", "peek-line", "draw-three", "steal-and-play"]
    )
    code, out, err = run(capsys, document)
    assert code == 0 and err == ""
    assert set(out) == CLASSIC_FIELDS | {"market", "action_deck", "action_discard", "decision"}
    assert out["players"][0]["actions"] == ["swap-own"]
    assert out["players"][1]["grid"][5] == "*"
    assert out["market"] == ["defense", "steal-and-play", "peek-line", "draw-three"]
    assert out["action_deck"] == 27 - 5
    assert out["decision"] == {"step": "offer", "seats": [1]}  # seat 1's star: take or pass
    assert out["to_move"] == 1 and out["discard_top"] == 2  # the replaced face-down 2
    assert out["draw_pile"] == 120 - 24 - 1 - 1


def test_discard_top_is_a_star_as_star(capsys):
    code, out, _ = run(capsys, two_player(SETUP, front=["*"]))
    assert code == 0 and out["discard_top"] == "*" and out["players"][0]["grid"][:2] == [12, -2]


def test_refused_move_exits_1_with_the_state_before_it(capsys):
    moves = [*SETUP, {"seat": 0, "move": "play", "index": 0}]
    code, out, _ = run(capsys, two_player(moves))
    assert code == 1
    assert out["error"] == {"round": 1, "move": 2, "reason": "you hold no action card"}
    assert out["decision"] == {"step": "choose", "seats": [0]}


def test_action_in_deck_scenario_names_action_cards_in_the_deck(capsys):
    options = {"variant": "action-in-deck"}
    moves = [*SETUP, {"seat": 0, "move": "draw", "from": "deck"}, {"seat": 0, "move": "keep-action"}]
    code, out, _ = run(capsys, two_player(moves, front=[5, "remove-from-each", 9], options=options))
    assert code == 0
    assert out["players"][0]["actions"] == ["remove-from-each"]
    assert out["decision"] == {"step": "drawn", "seats": [0]}
    assert out["market"] == [] and out["action_deck"] == 0


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"game": "skyjo-action", "players": 7}, "7 or 8 players need the 3x3 grid"),
        ({"game": "skyjo-action", "players": 5, "options": {"variant": "numbers-only"}}, "1 to 4 players"),
        (
            {"game": "skyjo-action", "players": 2, "rounds": [{"deck": ["joker"] * 120}]},
            "not a SKYJO ACTION card",
        ),
        ({"game": "skyjo-action", "players": 2, "rounds": [{"deck": [1] * 120}]}, "wrong cards"),
        (
            {"game": "skyjo-action", "players": 2, "rounds": [{"action_deck": ["star"] * 27}]},
            "not an action card",
        ),
        (
            {"game": "skyjo-action", "players": 2, "rounds": [{"action_deck": ["defense"] * 27}]},
            "wrong cards",
        ),
        ({"game": "skyjo-action", "players": 2, "options": {"variant": "chess"}}, "variant must be one of"),
        (
            {
                "game": "skyjo-action",
                "players": 2,
                "rounds": [{"moves": [{"seat": 0, "move": "exchange", "slot": 1}]}],
            },
            "needs face_up, slot2, target",
        ),
    ],
)
def test_malformed_action_scenarios_exit_2_with_one_line(capsys, document, message):
    code, out, err = run(capsys, document)
    assert code == 2 and out is None
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "options",
    [
        [],
        ["variant=action-in-deck", "deck_actions=10"],
        ["variant=stars-only"],
        ["variant=numbers-only", "grid=3x3"],
        ["grid=3x3", "action_kinds=defense,extra-turns,replay-discard"],
    ],
)
def test_simulate_action_variants_is_reproducible(capsys, options):
    args = [
        "simulate",
        "--game",
        "skyjo-action",
        "--players",
        "3",
        "--games",
        "3",
        "--seed",
        "9",
        "--no-timing",
    ]
    args += [x for option in options for x in ("--option", option)]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert main(args) == 0
    assert capsys.readouterr().out == first
    report = json.loads(first)
    assert report["games"] == 3 and report["rounds"] >= 3 and sum(report["wins_by_seat"]) == pytest.approx(3)


def test_simulate_solitaire_and_eight_players(capsys):
    assert (
        main(
            [
                "simulate",
                "--game",
                "skyjo-action",
                "--players",
                "1",
                "--games",
                "2",
                "--option",
                "variant=stars-only",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["games"] == 2
    assert (
        main(["simulate", "--game", "skyjo-action", "--players", "8", "--games", "1", "--option", "grid=3x3"])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["games"] == 1
    assert main(["simulate", "--game", "skyjo-action", "--players", "1"]) == 2
    assert "2 to 6 players, not 1" in capsys.readouterr().err


# The worked examples of docs/scenarios.md, SKYJO ACTION, one per action card: each file starts from the
# same table (seat 0 took the card with its setup star, seat 2 took a defense with its own).
EXAMPLES = {
    "remove_from_each": {
        "players.1.grid": [4, 2, "?", "?", "?", 4, "?", "?", "?", "?", "?", "?"],
        "players.2.actions": [],
        "action_discard": ["defense", "remove-from-each"],
        "discard_top": 5,
        "draw_pile": 82,
    },
    "swap_own": {"players.0.grid": [11, 10, *["?"] * 10], "action_discard": ["swap-own"]},
    "extra_turns": {
        "players.0.grid": ["*", 4, *["?"] * 10],
        "players.0.actions": ["extra-turns"],
        "to_move": 1,
    },
    "draw_three": {
        "players.0.grid": ["*", 10, "?", "?", "?", 4, *["?"] * 6],
        "discard_top": 4,
        "draw_pile": 80,
    },
    "peek_line": {"players.1.grid": [4, 2, *["?"] * 10], "action_discard": ["peek-line"], "to_move": 1},
    "defense": {"to_move": 0, "decision": {"step": "choose", "seats": [0]}, "action_discard": ["defense"]},
    "replay_discard": {
        "to_move": 0,
        "players.2.actions": [],
        "action_discard": ["defense", "replay-discard"],
    },
    "steal_and_play": {"players.1.actions": [], "action_discard": ["peek-line", "steal-and-play"]},
    "swap_with_others": {
        "players.0.grid": ["*", 1, *["?"] * 10],
        "players.1.grid": [4, 2, "?", "?", 10, *["?"] * 7],
        "players.2.actions": [],
        "action_discard": ["defense", "swap-with-others"],
    },
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_worked_example_of_each_action_card(capsys, name):
    path = Path(__file__).parent.parent / "scenarios" / f"action_{name}.json"
    assert main(["scenario", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["error"] is None and out["round"] == 1
    for key, expected in EXAMPLES[name].items():
        value = out
        for part in key.split("."):
            value = value[int(part)] if part.isdigit() else value[part]
        assert value == expected, key
