"""`skyjo-lan scenario` and `skyjo-lan simulate` as a user runs them."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from client.cli import main
from skyjo_p2p.skyjo import COMPOSITION
from tests.support import build_deck

EXAMPLE = Path(__file__).parent.parent / "scenarios" / "worked_example.json"
A = [12, -2, 0, 0, 1, 1, 2, -1, -1, -2, 0, 0]
B = [4, 2, 3, 3, 1, 2, 0, 1, 2, 3, 1, 2]


def run(capsys, document, *, raw: str | None = None):
    text = raw if raw is not None else json.dumps(document)
    sys.stdin = io.StringIO(text)
    try:
        code = main(["scenario", "-"])
    finally:
        sys.stdin = sys.__stdin__
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def two_player(moves, **extra):
    deck = build_deck(A + B + [5, 9], COMPOSITION)
    return {
        "game": "skyjo",
        "players": 2,
        "options": {},
        "seed": 7,
        "rounds": [{"deck": deck, "moves": moves}],
        **extra,
    }


def test_worked_example_file_scores_20_24_10(capsys):
    code = main(["scenario", str(EXAMPLE)])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [p["round_scores"] for p in out["players"]] == [[20], [24], [10]]
    assert [p["total"] for p in out["players"]] == [20, 24, 10]
    assert out["round"] == 2 and out["phase"] == "setup" and out["to_move"] is None
    assert out["error"] is None and out["winners"] == []


def test_report_shows_the_table(capsys):
    moves = [
        {"seat": 0, "move": "reveal", "slots": [0, 1]},
        {"seat": 1, "move": "reveal", "slots": [0, 1]},
        {"seat": 0, "move": "draw", "from": "deck"},
        {"seat": 0, "move": "replace", "slot": 11},
    ]
    code, out, err = run(capsys, two_player(moves))
    assert code == 0 and err == ""
    assert out["phase"] == "turn" and out["to_move"] == 1 and out["ended_by"] is None
    assert out["players"][0]["grid"] == [12, -2] + ["?"] * 9 + [9]
    assert out["players"][1]["grid"] == [4, 2] + ["?"] * 10
    assert out["discard_top"] == 0  # the replaced face-down 0
    assert out["draw_pile"] == 150 - 24 - 1 - 1
    assert set(out) == {
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


def test_refused_move_exits_1_with_the_state_before_it(capsys):
    moves = [
        {"seat": 0, "move": "reveal", "slots": [0, 1]},
        {"seat": 1, "move": "reveal", "slots": [0, 1]},
        {"seat": 1, "move": "draw", "from": "deck"},
        {"seat": 0, "move": "draw", "from": "deck"},
    ]
    code, out, _ = run(capsys, two_player(moves))
    assert code == 1
    assert out["error"] == {"round": 1, "move": 2, "reason": "it is seat 0's turn, not seat 1's"}
    assert out["to_move"] == 0 and out["draw_pile"] == 150 - 24 - 1  # nothing after it was applied


def test_moves_past_the_end_of_a_round_are_refused(capsys):
    document = json.loads(EXAMPLE.read_text())
    document["rounds"][0]["moves"].append({"seat": 0, "move": "draw", "from": "deck"})
    code, out, _ = run(capsys, document)
    assert code == 1
    assert out["error"]["move"] == len(document["rounds"][0]["moves"]) - 1
    assert "round 1 is over" in out["error"]["reason"]


def test_second_round_entry_plays_the_next_round(capsys):
    document = json.loads(EXAMPLE.read_text())
    document["rounds"].append({"moves": [{"seat": s, "move": "reveal", "slots": [3, 7]} for s in range(3)]})
    code, out, _ = run(capsys, document)
    assert code == 0
    assert out["round"] == 2 and out["phase"] == "turn" and out["to_move"] == 0  # the ender starts


def test_seeded_rounds_are_reproducible(capsys):
    document = {"game": "skyjo", "players": 3, "seed": 11, "rounds": [{"moves": []}]}
    _, first, _ = run(capsys, document)
    _, again, _ = run(capsys, document)
    assert first == again
    assert first["discard_top"] is not None and first["draw_pile"] == 150 - 36 - 1
    tops = set()
    for seed in range(20, 30):
        document["seed"] = seed
        tops.add(run(capsys, document)[1]["discard_top"])
    assert len(tops) > 1  # the seed decides the deal


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("{not json", "bad JSON"),
        ('{"game": "chess", "players": 2}', "unknown game"),
        ('{"game": "skyjo", "players": 12}', "2 to 8 players"),
        ('{"game": "skyjo", "players": 2, "rounds": [{"deck": [1, 2, 3]}]}', "must have 150 cards"),
        (
            '{"game": "skyjo", "players": 2, "rounds": [{"deck": ' + json.dumps([12] * 150) + "}]}",
            "wrong cards",
        ),
        (
            '{"game": "skyjo", "players": 2, "rounds": [{"moves": [{"seat": 0, "move": "jump"}]}]}',
            "unknown move",
        ),
        (
            '{"game": "skyjo", "players": 2, "rounds": [{"moves": [{"seat": 0, "move": "flip"}]}]}',
            "needs slot",
        ),
        ('{"game": "skyjo", "players": 2, "options": {"speed": 3}}', "unknown option"),
        ('{"game": "skyjo", "players": 2, "bogus": 1}', "unknown top-level"),
        ("[1, 2]", "a JSON object"),
    ],
)
def test_malformed_scenarios_exit_2_with_one_line(capsys, raw, message):
    code, out, err = run(capsys, None, raw=raw)
    assert code == 2 and out is None
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_missing_file_exits_2(capsys, tmp_path):
    assert main(["scenario", str(tmp_path / "nope.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_cli_runs_as_a_module_without_traceback(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"game": "skyjo", "players": 2, "rounds": [{"deck": "oops"}]}')
    result = subprocess.run(
        [sys.executable, "-m", "client", "scenario", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("skyjo-lan scenario:") and "Traceback" not in result.stderr
    good = subprocess.run(
        [sys.executable, "-m", "client", "scenario", str(EXAMPLE)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert good.returncode == 0 and json.loads(good.stdout)["players"][0]["total"] == 20


def test_simulate_is_reproducible_and_reports_statistics(capsys):
    args = ["simulate", "--game", "skyjo", "--players", "3", "--games", "5", "--seed", "4"]
    assert main([*args, "--no-timing"]) == 0
    first = capsys.readouterr().out
    assert main([*args, "--no-timing"]) == 0
    assert capsys.readouterr().out == first
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 5 and report["rounds"] >= 5
    assert report["mean_round_score"] > 0 and sum(report["wins_by_seat"]) == pytest.approx(5)
    assert report["wall_seconds"] >= 0 and report["moves_per_second"] > 0


def test_simulate_refuses_bad_options(capsys):
    assert main(["simulate", "--option", "rows=sometimes"]) == 2
    assert "true or false" in capsys.readouterr().err
