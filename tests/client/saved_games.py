"""Real saved games for the history and ranking tests: in-memory tables (`protocol.loopback`) of
fixed identities, played to the end by bots and written as transcript files, as a peer saves them."""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client import storage
from protocol.config import TableConfig
from protocol.loopback import Loopback, bots_for, frame_kind, make_table, seats
from protocol.transcript import dump

NAMES = ("Anna", "Ben", "Chloé", "Dan")
KEYS = {name: Ed25519PrivateKey.from_private_bytes(bytes([n + 1]) * 32) for n, name in enumerate(NAMES)}
OPTIONS: dict[str, dict[str, Any]] = {
    "skyjo": {"target_score": 30},
    "skyjo-action": {"target_score": 30},
    "skip-bo": {"single_round": True, "stock_size": 5},
}


def verify_json(path: Path) -> tuple[int, dict[str, Any]]:
    """`skyjo-lan verify --json PATH` run in this process: its exit status and its verdict. The same
    command and output as the program, without starting one (about 0.4 s of CPU each; the LAN tests
    check every saved game). `test_cli_verify` and `test_packaging` run it as its own program."""
    from client import cli

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(["verify", "--json", str(path)])
    return code, json.loads(out.getvalue())


def fingerprint(name: str) -> str:
    return storage.fingerprint(KEYS[name].public_key().public_bytes_raw())


@dataclass(frozen=True)
class Saved:
    """One game as a peer saved it."""

    config: TableConfig
    frames: list[bytes]

    @property
    def data(self) -> bytes:
        return dump(self.config, self.frames)

    def write(self, folder: Path, stamp: str, data: bytes | None = None) -> Path:
        """The file `TranscriptWriter` would name, started at `stamp` (YYYYmmdd-HHMMSS)."""
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{stamp}-{self.config.game}-{self.config.session_id[:4].hex()}.skyjo"
        path.write_bytes(self.data if data is None else data)
        return path

    def tampered(self) -> bytes:
        """The file with one bit flipped in the signature of a signed frame (a move's)."""
        index = next(i for i, f in enumerate(self.frames) if i > 20 and frame_kind(f) == "move")
        frame = bytearray(self.frames[index])
        frame[-5] ^= 0x01  # the frame ends with its 64-byte signature
        return dump(self.config, [*self.frames[:index], bytes(frame), *self.frames[index + 1 :]])

    def cut(self) -> bytes:
        """The file of a game that stopped halfway (a crash, or a game still running)."""
        return dump(self.config, self.frames[: len(self.frames) // 2])


def play(
    game: str,
    names: tuple[str, ...] = ("Anna", "Ben", "Chloé"),
    *,
    owners: list[int] | None = None,
    leaver: int | None = None,
    seed: str = "h",
) -> Saved:
    """A finished game of `names` (seat order) in `game`. `owners`: the table's owners (a seat
    run by another's program is that program's bot); `leaver`: a seat that leaves after a few
    moves (the table's bot plays it to the end)."""
    keys = [KEYS[n] if n in KEYS else Ed25519PrivateKey.generate() for n in names]
    table = {"owners": owners} if owners is not None else None
    config, keys = make_table(game, len(names), OPTIONS[game], keys=keys, names=names, table=table)
    loop = Loopback(seats(config, keys), bots_for(game, ["greedy"] * len(names), seed), sweep=True)
    if leaver is None:
        loop.start()
    else:
        loop.start(until=lambda: loop.moves >= 6)
        assert loop.sessions[leaver].leave()
        loop.run(until=lambda: all(s.settled for i, s in enumerate(loop.sessions) if i != leaver))
    keeper = 0 if leaver != 0 else 1
    session = loop.sessions[keeper]
    assert session.state is not None and session.state.phase == "game_over", game
    return Saved(config, list(session.frames))
