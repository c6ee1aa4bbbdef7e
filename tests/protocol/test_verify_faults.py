"""`verify` misses nothing (issue 12): every frame it cannot use is reported, a genesis that does
not match the signed chains blames nobody, and the verdict does not depend on the file's order."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from protocol.config import TableConfig
from protocol.events import Blamed
from protocol.messages import Envelope, open_frame, seal
from protocol.transcript import dump, load
from protocol.verify import Verdict, _Report, verify_bytes
from tests.protocol.harness import Net


@pytest.fixture(scope="module")
def game() -> Net:
    """A whole 2-seat SKYJO game of one round (target score 1), seen by seat 0."""
    net = Net("skyjo", 2, {"target_score": 1})
    net.run_game()
    return net


def frames_of(net: Net) -> list[bytes]:
    return list(net.sessions[0].frames)


def envelopes(net: Net, frames: list[bytes]) -> list[Envelope]:
    return [open_frame(f, net.config) for f in frames]


def check(config: TableConfig, frames: list[bytes]) -> Verdict:
    return verify_bytes(dump(config, frames))


def orders(frames: list[bytes], config: TableConfig) -> list[list[bytes]]:
    """The same frames in several file orders: stored, reversed, one seat first, shuffled."""
    seat_of = [open_frame(f, config).seat if _opens(f, config) else -1 for f in frames]
    shuffled = list(frames)
    random.Random(12).shuffle(shuffled)
    return [
        frames,
        frames[::-1],
        [f for f, s in zip(frames, seat_of, strict=True) if s == 1]
        + [f for f, s in zip(frames, seat_of, strict=True) if s != 1],
        [f for f, s in zip(frames, seat_of, strict=True) if s == 0]
        + [f for f, s in zip(frames, seat_of, strict=True) if s != 0],
        shuffled,
    ]


def _opens(frame: bytes, config: TableConfig) -> bool:
    try:
        open_frame(frame, config)
    except Exception:
        return False
    return True


def after_the_end(net: Net) -> list[bytes]:
    """The game, plus an illegal move seat 1 signed and chained after the end."""
    frames = frames_of(net)
    last = max((e for e in envelopes(net, frames) if e.seat == 1), key=lambda e: e.seq)
    move = {"seat": 1, "move": "flip", "slot": 0}
    job = 1 + max(
        e.data.get("job", 0) for e in envelopes(net, frames)
    )  # the next job (9999 cannot exist yet)
    extra = seal(net.config, net.keys[1], 1, last.seq + 1, last.digest, "move", {"job": job, "move": move})
    return [*frames, extra.frame]


def without_seat1_frame(net: Net, seq: int) -> list[bytes]:
    frames = frames_of(net)
    return [f for f, e in zip(frames, envelopes(net, frames), strict=True) if (e.seat, e.seq) != (1, seq)]


def forked_move(net: Net) -> tuple[list[bytes], int]:
    """Seat 1's first move and another, illegal one it signed with the same number; forged first."""
    frames = frames_of(net)
    envs = envelopes(net, frames)
    index, first = next((i, e) for i, e in enumerate(envs) if e.seat == 1 and e.kind == "move")
    illegal = {"seat": 1, "move": "reveal", "slots": [0, 0]}
    other = seal(
        net.config, net.keys[1], 1, first.seq, first.prev, "move", {"job": first.data["job"], "move": illegal}
    )
    return [*frames[:index], other.frame, *frames[index:]], first.seq


def renamed(config: TableConfig) -> TableConfig:
    return dataclasses.replace(config, names=("mallory", *config.names[1:]))


def test_complete_game_is_valid_and_finished(game: Net) -> None:
    verdict = check(game.config, frames_of(game))
    assert verdict.kind == "finished" and verdict.valid and verdict.finished, verdict
    assert verdict.unconsumed == [] and verdict.stops_at is None and verdict.blame is None
    assert verdict.totals == list(game.sessions[0].state.totals)  # type: ignore[union-attr]


def test_verify_illegal_move_after_game_end_is_invalid(game: Net) -> None:
    verdict = check(game.config, after_the_end(game))
    assert not verdict.valid and not verdict.finished, verdict
    assert verdict.kind == "invalid"
    assert "after the end of the game" in (verdict.fault or "") and "seat 2 " in (verdict.fault or "")
    assert verdict.unconsumed, "the unchecked frame is listed"


def test_verify_frame_deleted_mid_game_is_invalid(game: Net) -> None:
    verdict = check(game.config, without_seat1_frame(game, 60))
    assert not verdict.valid and verdict.kind == "invalid", verdict
    assert "frame #60 of seat 2 is missing" in (verdict.fault or ""), verdict.fault
    assert verdict.blame is None, "a deleted frame proves nothing against its seat"
    assert any("behind a gap" in line for line in verdict.unconsumed), verdict.unconsumed


def test_verify_edited_genesis_is_not_this_game_and_blames_nobody(game: Net) -> None:
    verdict = check(renamed(game.config), frames_of(game))
    assert verdict.blame is None and not verdict.valid, verdict
    assert "not this game's transcript" in (verdict.fault or "")
    assert verdict.kind == "invalid" and verdict.not_this_game


def test_verify_chosen_seat_first_after_genesis_edit_blames_nobody(game: Net) -> None:
    config = renamed(game.config)
    frames = frames_of(game)
    seat_of = [e.seat for e in envelopes(game, frames)]
    verdicts = []
    for chosen in range(2):
        first = [f for f, s in zip(frames, seat_of, strict=True) if s == chosen]
        rest = [f for f, s in zip(frames, seat_of, strict=True) if s != chosen]
        verdict = check(config, first + rest)
        assert verdict.blame is None and verdict.not_this_game, verdict
        verdicts.append(verdict.as_dict())
    assert verdicts[0] == verdicts[1]


def test_verify_reordered_file_same_verdict(game: Net) -> None:
    config = game.config
    files: dict[str, tuple[TableConfig, list[bytes]]] = {
        "whole game": (config, frames_of(game)),
        "move after the end": (config, after_the_end(game)),
        "deleted frame": (config, without_seat1_frame(game, 60)),
        "forked move": (config, forked_move(game)[0]),
        "renamed genesis": (renamed(config), frames_of(game)),
        "cut short": (config, frames_of(game)[:150]),
    }
    for name, (table, frames) in files.items():
        verdicts = [check(table, order).as_dict() for order in orders(frames, config)]
        summaries = [(v["valid"], v["finished"], v["blame"], v["fault"]) for v in verdicts]
        assert all(s == summaries[0] for s in summaries), (name, summaries)
        assert all(v == verdicts[0] for v in verdicts), (name, [(v["kind"], v["fault"]) for v in verdicts])


def test_verify_unfinished_game_says_where_it_stops(game: Net) -> None:
    frames = frames_of(game)
    envs = envelopes(game, frames)
    last_signature = next(
        i for i in range(len(envs) - 1, -1, -1) if envs[i].seat == 1 and envs[i].kind == "roundsig"
    )
    # the game is over but seat 1's round signature is not in the file: not finished
    verdict = check(game.config, frames[:last_signature])
    assert verdict.valid and not verdict.finished, verdict
    assert verdict.kind == "unfinished" and verdict.fault is None and verdict.blame is None
    assert verdict.stops_at is not None and "after the last round" in verdict.stops_at
    assert "round signature of seat 2 (p1)" in verdict.stops_at

    first_move = next(i for i, e in enumerate(envs) if e.seat == 0 and e.kind == "move")
    verdict = check(game.config, frames[:first_move])  # what seat 0 had saved just before it moved
    assert verdict.kind == "unfinished" and verdict.valid and not verdict.finished, verdict
    assert verdict.fault is None and verdict.blame is None and verdict.unconsumed == []
    assert verdict.stops_at is not None and "waits for the move of seat 1 (p0)" in verdict.stops_at
    assert "job 4" in verdict.stops_at, verdict.stops_at


def test_verify_duplicate_seq_in_file_blames_signer(game: Net) -> None:
    frames, seq = forked_move(game)
    for order in (frames, frames[::-1]):
        verdict = check(game.config, order)
        assert verdict.blame == 1 and not verdict.valid, verdict
        assert f"equivocation: seat 2 signed two different frames #{seq}" == verdict.fault
        assert verdict.kind == "invalid"


def test_verify_blames_only_the_signer_of_the_evidence(game: Net) -> None:
    frames = frames_of(game)
    envs = envelopes(game, frames)
    by_seat = {s: next(e.frame for e in envs if e.seat == s) for s in (0, 1)}
    cases: list[tuple[tuple[bytes, ...], int | None]] = [
        ((), None),  # nothing signed backs the accusation
        ((by_seat[0],), None),  # the evidence is another seat's frame
        ((by_seat[1], b"not a frame"), None),  # part of it is signed by nobody
        ((by_seat[1],), 1),
        ((by_seat[1], by_seat[0]), 1),  # a complaint: the accused's frame and the accuser's
    ]
    for evidence, blame in cases:
        report = _Report(game.config, {})
        report.take([Blamed(1, "did something", evidence)])
        assert report.fault is not None and report.blame == blame, (evidence, report)


def test_verify_file_with_a_frame_of_another_session_is_not_this_game(game: Net) -> None:
    other = dataclasses.replace(game.config, session_id=bytes(32))
    foreign = seal(other, game.keys[0], 0, 0, other.genesis_hash, "chat", {"text": "hi"}).frame
    verdict = check(game.config, [*frames_of(game), foreign])
    assert verdict.not_this_game and verdict.blame is None and not verdict.valid, verdict


def test_verify_json_keys(game: Net) -> None:
    data: dict[str, Any] = check(game.config, frames_of(game)[:40]).as_dict()
    for key in ("valid", "finished", "blame", "fault", "kind", "stops_at", "unconsumed", "not_this_game"):
        assert key in data
    _, loaded = load(dump(game.config, frames_of(game)))
    assert loaded == frames_of(game)


def test_verify_one_chain_off_a_matching_genesis_is_not_the_same_game(game: Net) -> None:
    # seat 0's chain starts from the genesis hash, so the genesis is this game's: seat 1 signed a
    # frame #0 that does not. It may have been given another genesis by the host (issue 26): the
    # file is invalid, "not the same game", and nobody is blamed, as at the table
    frames = frames_of(game)
    envs = envelopes(game, frames)
    index, first = next((i, e) for i, e in enumerate(envs) if (e.seat, e.seq) == (1, 0))
    other = seal(game.config, game.keys[1], 1, 0, bytes(32), first.kind, first.data).frame
    verdict = check(game.config, [*frames[:index], other, *frames[index + 1 :]])
    assert not verdict.valid and not verdict.not_this_game and verdict.blame is None, verdict
    assert "not the same game" in (verdict.fault or "")
