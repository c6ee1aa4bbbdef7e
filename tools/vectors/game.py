"""game.json and game-skyjo-2p.transcript: a whole 2-seat game between two real sessions."""

from __future__ import annotations

import hashlib
from typing import Any

from protocol.config import TableConfig
from protocol.events import RoundSigned
from protocol.loopback import Loopback, bots_for, frame_kind, seats
from protocol.transcript import dump as transcript_dump
from tools.vectors.common import GAME, NAMES, DeterministicSecrets, identity_keys, no_system_draws
from tools.vectors.jsonform import hx

GAME_FILE = "game-skyjo-2p.transcript"
GAME_SESSION_ID = hashlib.sha256(b"skyjo-lan/v1/test-vectors/game-session").digest()
GAME_OPTIONS: dict[str, Any] = {"target_score": 1}


def game_config() -> TableConfig:
    return TableConfig(
        session_id=GAME_SESSION_ID,
        game=GAME,
        players=2,
        identities=tuple(k.public_key().public_bytes_raw() for k in identity_keys()[:2]),
        options=dict(GAME_OPTIONS),
        names=NAMES[:2],
    )


def play_game() -> tuple[TableConfig, list[bytes], dict[str, Any]]:
    """A whole 2-seat SKYJO game (one round: target score 1) between two real sessions.

    Greedy bots (seeds "vector:0", "vector:1"); frames delivered in FIFO order, every frame to
    the other seat; each seat's randomness is the stream "game/seat<s>". Returns the table, the
    frames in the order seat 0 accepted them (its transcript file) and a summary.
    """
    config = game_config()
    keys = identity_keys()[:2]
    streams = [DeterministicSecrets(f"game/seat{seat}") for seat in range(2)]
    with no_system_draws():
        sessions = seats(config, keys, rng=streams)
        table = Loopback(sessions, bots_for(GAME, ["greedy"] * 2, "vector"), strict=True)
        table.start()
    rounds = [hx(e.transcript_hash) for e in table.events[0] if isinstance(e, RoundSigned)]
    state = sessions[0].state
    if state is None or state.phase != "game_over":
        raise RuntimeError("the vector game did not finish")
    frames = list(sessions[0].frames)
    kinds: dict[str, int] = {}
    for frame in frames:
        kind = frame_kind(frame)
        kinds[kind] = kinds.get(kind, 0) + 1
    summary = {
        "frames": len(frames),
        "frames_by_kind": dict(sorted(kinds.items())),
        "transcript_hash_seat0": hx(sessions[0].transcript_hash),
        "transcript_hash_seat1": hx(sessions[1].transcript_hash),
        "round_signatures": rounds,
        "rounds": state.round,
        "totals": list(state.totals),
        "winners": list(state.winners),
    }
    return config, frames, summary


def build_game() -> tuple[dict[str, Any], bytes]:
    """game.json and the transcript file of the vector game."""
    config, frames, summary = play_game()
    data = transcript_dump(config, frames)
    content = {
        "about": (
            "A whole 2-seat SKYJO game (one round) played by two sessions with fixed identities, "
            "fixed random streams and greedy bots. Its transcript file is " + GAME_FILE + ": "
            "replayed into an observer it must give exactly this outcome."
        ),
        "streams": ["game/seat0", "game/seat1"],
        "genesis": hx(config.encode()),
        "genesis_hash": hx(config.genesis_hash),
        "file": GAME_FILE,
        "file_bytes": len(data),
        "file_sha256": hashlib.sha256(data).hexdigest(),
        **summary,
    }
    return content, data
