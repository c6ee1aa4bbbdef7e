"""`skyjo-lan play` saves its game as host and join do: written per frame, forced to the disk at
round ends and at the end (the fsync policy of docs/network.md, "Saved games on disk")."""

from __future__ import annotations

import os

import pytest
import trio

from client.storage import TranscriptWriter
from client.table.local import LocalTable
from protocol.verify import verify_bytes


def test_a_local_game_reaches_the_disk_at_its_end(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    synced: list[int] = []
    real_sync = TranscriptWriter.sync

    def counting_sync(self: TranscriptWriter) -> None:
        synced.append(os.path.getsize(self.path))
        real_sync(self)

    monkeypatch.setattr(TranscriptWriter, "sync", counting_sync)
    table = LocalTable(
        "skyjo", 2, "greedy", {"target_score": 1, "setup_reveals": 10}, think_time=0.0, human=False
    )
    trio.run(table.run)
    assert table.writer is not None
    data = table.writer.path.read_bytes()
    assert synced, "the saved game was never forced to the disk"
    assert synced[-1] == len(data), "the last fsync came before the last frame"
    verdict = verify_bytes(data)
    assert verdict.valid and verdict.finished
