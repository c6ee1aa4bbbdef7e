"""`skyjo-lan verify FILE`: exit 0 for a valid game, 1 with the seat to blame, 2 for an unreadable file."""

from __future__ import annotations

import json

import pytest

from client.cli import main
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
    index = next(i for i, f in enumerate(frames) if i > 40 and b"shares" in f)
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
    assert "to blame: seat 1 " in out
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
