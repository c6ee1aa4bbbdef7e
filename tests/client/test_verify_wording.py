"""Issue 30.4: `verify` tells where an unfinished game stops in one sentence that reads well
(not "stops the game was stopped: ...")."""

from __future__ import annotations

from client.cli import _print_verdict, main
from protocol.loopback import Loopback, bots_for, make_table, seats
from protocol.transcript import dump
from protocol.verify import Verdict


def test_a_game_stopped_for_a_silent_player_says_who_stopped_it_and_why(tmp_path, capsys) -> None:
    config, keys = make_table("skyjo", 2, {"target_score": 1}, names=["Anna", "Ben"])
    lb = Loopback(
        seats(config, keys), bots_for("skyjo", ["greedy"] * 2, "loopback"), clock=True, timeouts=True
    )
    lb.silent.add(1)
    lb.start()
    path = tmp_path / "stopped.skyjo"
    path.write_bytes(dump(config, lb.sessions[0].frames))
    assert main(["verify", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "  Anna (seat 1) stopped the game: Ben (seat 2) did not answer in time", lines


def test_every_kind_of_stop_reads_as_one_sentence(capsys) -> None:
    for stops_at, shown in [
        ("the game was stopped: the transcript ends", "  the game was stopped: the transcript ends"),
        ("in round 2, at job 57: waits for the move of seat 2 (Ben)", "  stops in round 2, at job 57"),
        (None, "  stops before the end of the game"),
    ]:
        verdict = Verdict(valid=True, game="skyjo", players=2, kind="unfinished", round=2, stops_at=stops_at)
        verdict.totals = [0, 0]
        _print_verdict(verdict)
        lines = capsys.readouterr().out.splitlines()
        assert lines[1].startswith(shown), lines
        assert "stops the game" not in lines[1]
