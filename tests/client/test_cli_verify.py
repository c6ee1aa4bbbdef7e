"""`skyjo-lan verify FILE`: exit 0 for a valid game (finished or unfinished), 1 for an invalid one
(with the seat to blame when it signed the evidence), 2 for an unreadable file or one whose genesis
does not match its frames."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.cli import main
from protocol.loopback import frame_kind
from protocol.messages import open_frame, seal
from protocol.transcript import dump, load
from tests.protocol.harness import Net
from tests.protocol.test_adversarial_shuffle import before_shuffle, cheat_from


@pytest.fixture(scope="module")
def saved_game() -> bytes:
    net = Net("skyjo", 2, {"target_score": 30})
    net.run_game()
    return dump(net.config, net.sessions[0].frames)


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_valid_game_prints_the_result_and_exits_0(saved_game, tmp_path, capsys):
    path = tmp_path / "game.skyjo"
    path.write_bytes(saved_game)
    code, out, _ = run(["verify", str(path)], capsys)
    assert code == 0
    assert out.startswith("valid: skyjo, 2 players")
    assert "game finished" in out and "winner" in out
    code, out, _ = run(["verify", "--json", str(path)], capsys)
    verdict = json.loads(out)
    assert code == 0 and verdict["valid"] and verdict["finished"]


def test_forged_frame_is_refused_and_exits_1(saved_game, tmp_path, capsys):
    config, frames = load(saved_game)
    index = next(i for i, f in enumerate(frames) if i > 40 and frame_kind(f) == "shares")
    forged = bytearray(frames[index])
    forged[len(forged) // 2] ^= 0x01
    path = tmp_path / "forged.skyjo"
    path.write_bytes(dump(config, [*frames[:index], bytes(forged), *frames[index + 1 :]]))
    code, out, _ = run(["verify", str(path)], capsys)
    assert code == 1
    assert out.startswith("INVALID:") and "signature" in out
    # anyone can flip a bit: a frame whose signature fails is nobody's
    assert "to blame: no seat named" in out


def test_biased_shuffle_blames_its_seat_and_exits_1(tmp_path, capsys):
    table = before_shuffle(3, 1)
    net = cheat_from(table, 1, "duplicate")
    path = tmp_path / "cheated.skyjo"
    path.write_bytes(dump(net.config, net.sessions[0].frames))
    code, out, _ = run(["verify", str(path)], capsys)
    assert code == 1
    assert out.startswith("INVALID:") and "shuffle" in out
    assert "to blame: seat 2 " in out  # seat index 1, as people count seats (from 1)
    verdict = json.loads(run(["verify", "--json", str(path)], capsys)[1])
    assert not verdict["valid"] and verdict["blame"] == 1


@pytest.mark.parametrize("content", [b"", b"not a transcript at all", b"\x93\x01\x02"])
def test_unreadable_file_exits_2(content, tmp_path, capsys):
    path = tmp_path / "junk.skyjo"
    path.write_bytes(content)
    code, out, err = run(["verify", str(path)], capsys)
    assert code == 2 and out == ""
    assert "not a readable transcript" in err


def test_missing_file_exits_2(tmp_path, capsys):
    code, _, err = run(["verify", str(tmp_path / "absent.skyjo")], capsys)
    assert code == 2 and "cannot read" in err


def _envelopes(saved: bytes) -> tuple[Any, list[bytes], list[Any]]:
    config, frames = load(saved)
    return config, frames, [open_frame(f, config) for f in frames]


def test_unfinished_game_is_valid_says_where_it_stops_and_exits_0(saved_game, tmp_path, capsys):
    config, frames, envs = _envelopes(saved_game)
    first_move = next(i for i, e in enumerate(envs) if e.seat == 0 and e.kind == "move")
    path = tmp_path / "cut.skyjo"
    path.write_bytes(dump(config, frames[:first_move]))
    code, out, _ = run(["verify", str(path)], capsys)
    assert code == 0
    assert out.startswith("valid: skyjo, 2 players") and "game unfinished" in out
    assert "stops in round" in out and "waits for the move of seat 1 (p0)" in out
    verdict = json.loads(run(["verify", "--json", str(path)], capsys)[1])
    assert verdict["valid"] and not verdict["finished"] and verdict["kind"] == "unfinished"
    assert "seat 1 (p0)" in verdict["stops_at"]  # counted from 1, as people do


def test_edited_genesis_is_not_this_games_transcript_and_exits_2(saved_game, tmp_path, capsys):
    config, frames = load(saved_game)
    path = tmp_path / "renamed.skyjo"
    path.write_bytes(dump(dataclasses.replace(config, names=("mallory", "p1")), frames))
    code, out, _ = run(["verify", str(path)], capsys)
    assert code == 2
    assert out.startswith("INVALID: not this game's transcript")
    assert "to blame: no seat named" in out
    verdict = json.loads(run(["verify", "--json", str(path)], capsys)[1])
    assert verdict["not_this_game"] and verdict["blame"] is None and verdict["kind"] == "invalid"


def test_unsigned_frame_after_the_end_is_invalid_names_nobody_and_exits_1(saved_game, tmp_path, capsys):
    config, frames, envs = _envelopes(saved_game)
    last = max((e for e in envs if e.seat == 1), key=lambda e: e.seq)
    key = Ed25519PrivateKey.generate()  # not seat 1's key: the frame is signed by nobody at the table
    forged = seal(config, key, 1, last.seq + 1, last.digest, "chat", {"text": "late"}).frame
    path = tmp_path / "late.skyjo"
    path.write_bytes(dump(config, [*frames, forged]))
    code, out, _ = run(["verify", str(path)], capsys)
    assert code == 1 and out.startswith("INVALID:") and "to blame: no seat named" in out


def test_deleted_frame_is_invalid_and_exits_1(saved_game, tmp_path, capsys):
    config, frames, envs = _envelopes(saved_game)
    index = next(i for i, e in enumerate(envs) if e.seat == 1 and e.seq == 30)
    path = tmp_path / "deleted.skyjo"
    path.write_bytes(dump(config, frames[:index] + frames[index + 1 :]))
    code, out, _ = run(["verify", str(path)], capsys)
    assert code == 1
    assert out.startswith("INVALID: frame #30 of seat 2 is missing")
    assert "to blame: no seat named" in out and "not checked:" in out


def test_verify_into_a_closed_pipe_exits_quietly(saved_game, tmp_path):
    """`skyjo-lan verify FILE | head -1`: the reader goes away; one line of ours is enough, no
    traceback. The pipe's reading end is closed before the program starts, so every write fails."""
    import os
    import subprocess
    import sys

    path = tmp_path / "game.skyjo"
    path.write_bytes(saved_game)
    read, write = os.pipe()
    os.close(read)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "client", "verify", str(path)],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "Error" not in result.stderr, result.stderr


def test_verify_names_who_left_and_the_seat_the_table_played(tmp_path, capsys):
    net = Net("skyjo", 3, {"target_score": 20})
    net.start(until=lambda: net.moves >= 6)
    net.pump(play=False)
    assert net.sessions[2].leave()
    net.pump(until=lambda: all(net.sessions[s].settled for s in (0, 1)))
    path = tmp_path / "left.skyjo"
    path.write_bytes(dump(net.config, net.sessions[0].frames))
    code, out, _ = run(["verify", str(path)], capsys)
    assert code == 0 and "game finished" in out, out
    assert "seat 3 left the table" in out and "the table plays seat 3 with the common bot (left" in out
    assert "seat 3 (p2) (played by the table's bot: left)" in out
