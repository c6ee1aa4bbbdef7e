"""Checks done once (issue 16): `verify` checks each frame's signature once, and a seat does not
re-verify the shares it just proved itself; everything a peer sends is still checked."""

from __future__ import annotations

from typing import Any

import pytest

import protocol.messages as messages_mod
import protocol.session as session_mod
import protocol.verify as verify_mod
from protocol.jobs.reveals import RevealsJob
from protocol.session import Session
from protocol.transcript import dump
from tests.protocol.harness import Net


@pytest.fixture(scope="module")
def game() -> Net:
    """A whole 2-seat SKYJO game of one round (target score 1)."""
    net = Net("skyjo", 2, {"target_score": 1})
    net.run_game()
    return net


def test_verify_opens_each_frame_once(game: Net, monkeypatch: pytest.MonkeyPatch) -> None:
    frames = list(game.sessions[0].frames)
    opened: list[bytes] = []

    def counting(frame: bytes, *args: Any, **kwargs: Any) -> messages_mod.Envelope:
        opened.append(bytes(frame))
        return messages_mod.open_frame(frame, *args, **kwargs)

    monkeypatch.setattr(verify_mod, "open_frame", counting)
    monkeypatch.setattr(session_mod, "open_frame", counting)
    verdict = verify_mod.verify_bytes(dump(game.config, frames))
    assert verdict.kind == "finished"
    assert sorted(opened) == sorted(frames)  # every frame opened (signature checked), none twice


def test_receive_opened_is_receive_frame(game: Net) -> None:
    """An observer fed opened envelopes ends exactly where one fed the raw frames does."""
    frames = list(game.sessions[0].frames)
    raw, opened = Session(game.config, None, None), Session(game.config, None, None)
    raw.start()
    opened.start()
    raw_events, opened_events = raw.next_events(), opened.next_events()
    for frame in frames:
        raw.receive_frame(frame)
        opened.receive_opened(messages_mod.open_frame(frame, game.config))
        raw_events += raw.next_events()
        opened_events += opened.next_events()
    assert raw_events == opened_events
    assert raw.state == opened.state and raw.state is not None and raw.state.phase == "game_over"
    assert raw.transcript_hash == opened.transcript_hash


def test_a_seat_checks_every_shares_message_but_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list[tuple[int | None, int]] = []
    original = RevealsJob._check

    def recording(ctx: Any, seat: int, *args: Any) -> Any:
        checked.append((ctx.me, seat))
        return original(ctx, seat, *args)

    monkeypatch.setattr(RevealsJob, "_check", staticmethod(recording))
    net = Net("skyjo", 3, {"target_score": 1})
    net.run_game()
    assert all(s.state is not None and s.state.phase == "game_over" for s in net.sessions)
    assert checked and all(me != seat for me, seat in checked)
    for me in range(3):  # each seat checked the shares of both others
        assert {seat for m, seat in checked if m == me} == {0, 1, 2} - {me}
