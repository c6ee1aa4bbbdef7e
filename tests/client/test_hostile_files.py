"""Issue 26, point 3: `verify`, `replay` and `history` on hostile or huge files.

Each reader streams the file: a file that is no transcript is refused at its first bytes, a file
larger than any saved game at once, and a saved game followed by copies of its own frames is
read in the memory of one game, its copies counted apart (PROTOCOL.md 11). Memory is measured
with tracemalloc (what this process allocates), never with a clock."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from client.cli import main
from client.records import history
from client.records.history import scan
from client.ui import replay as replay_module
from protocol.transcript import MAX_TRANSCRIPT, dump, header
from protocol.verify import verify_bytes
from tests.client.saved_games import Saved, play

MiB = 1 << 20


@pytest.fixture(scope="module")
def game() -> Saved:
    return play("skip-bo", ("Anna", "Ben"), seed="hostile")


def peak(call: Callable[[], Any]) -> tuple[Any, int]:
    """What `call` returns, and the most memory it held at once (bytes)."""
    tracemalloc.start()
    try:
        result = call()
        _, top = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, top


def sparse_zeros(path: Path, size: int) -> Path:
    """A file of `size` zero bytes that takes no room on the disk."""
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


def with_copies(game: Saved, copies: int) -> bytes:
    """The game's file followed by `copies` copies of one of its frames."""
    frame = game.frames[len(game.frames) // 2]
    return game.data + dump(game.config, [frame] * copies)[len(header(game.config)) :]


def test_verify_of_a_file_of_zeros_says_bad_header_without_reading_it(tmp_path, capsys):
    path = sparse_zeros(tmp_path / "zeros.skyjo", 64 * MiB)
    code, held = peak(lambda: main(["verify", str(path)]))
    _, err = capsys.readouterr()
    assert code == 2 and "bad header" in err, err
    assert held < 2 * MiB, f"verify held {held >> 20} MiB to refuse a file by its first byte"


def test_replay_of_a_file_of_zeros_reads_nothing_before_its_check(tmp_path, capsys):
    path = sparse_zeros(tmp_path / "zeros.skyjo", 64 * MiB)
    # no terminal here: replay stops there, and must not have read the file into memory first
    code, held = peak(lambda: replay_module.replay(str(path), lang="en", no_color=True, ascii_only=True))
    assert code == 2
    assert held < 2 * MiB, f"replay held {held >> 20} MiB before it even checked the file"
    from client.storage import verify_file
    from protocol.errors import MalformedMessage

    with pytest.raises(MalformedMessage, match="bad header"):
        replay_module.replay_of(verify_file(path, keep_order=True))


def test_verify_of_a_file_larger_than_any_saved_game_refuses_it_at_once(game, tmp_path, capsys):
    path = tmp_path / "huge.skyjo"
    path.write_bytes(game.data)
    with path.open("r+b") as handle:
        handle.truncate(MAX_TRANSCRIPT + 1)  # a saved game's start, then zeros (sparse)
    code, held = peak(lambda: main(["verify", str(path)]))
    _, err = capsys.readouterr()
    assert code == 2 and "too large for a saved game" in err, err
    assert held < 4 * MiB, f"verify held {held >> 20} MiB to refuse a file by its size"


def test_verify_of_a_game_followed_by_copies_of_a_frame_counts_the_copies_apart(game, tmp_path, capsys):
    path = tmp_path / "copies.skyjo"
    path.write_bytes(with_copies(game, 3000))
    code, out, _ = (main(["verify", str(path)]), *capsys.readouterr())
    assert code == 0
    assert out.startswith(f"valid: skip-bo, 2 players, {len(game.frames)} frames"), out
    assert "3000 copies of frames it already holds" in out
    verdict = json.loads((main(["verify", "--json", str(path)]), capsys.readouterr())[1][0])
    assert verdict["frames"] == len(game.frames) and verdict["duplicates"] == 3000
    assert verdict["kind"] == "finished"
    # the copies change nothing else: the same verdict as the file without them
    plain = verify_bytes(game.data).as_dict()
    assert {**verdict, "duplicates": 0} == {**plain, "checker": verdict["checker"]}


def test_verify_of_a_big_file_of_copies_holds_one_game_in_memory(game, tmp_path, capsys):
    path = tmp_path / "copies.skyjo"
    copies = (24 * MiB) // len(game.frames[len(game.frames) // 2])
    path.write_bytes(with_copies(game, copies))
    _, alone = peak(lambda: verify_bytes(game.data))
    code, held = peak(lambda: main(["verify", str(path)]))
    out, _ = capsys.readouterr()
    assert code == 0 and f"{copies} copies" in out
    assert held < alone + 8 * MiB, f"{held >> 20} MiB held for a game that alone needs {alone >> 20} MiB"


def test_history_of_a_folder_of_copies_verifies_each_game_once_in_bounded_memory(game, tmp_path):
    folder = tmp_path / "games"
    big = game.write(folder, "20261101-200000", with_copies(game, (16 * MiB) // 300))
    for n in range(12):
        (folder / f"20261101-2001{n:02d}-copy.skyjo").write_bytes(big.read_bytes())
    result, held = peak(lambda: scan(folder))
    assert result.verified == 1
    assert sum(g.counts for g in result.games) == 1
    assert all(g.checked.status == "finished" for g in result.games)
    assert held < 8 * MiB, f"history held {held >> 20} MiB for one game of {big.stat().st_size >> 20} MiB"


def test_history_refuses_a_file_of_zeros_by_its_first_bytes(tmp_path, monkeypatch):
    folder = tmp_path / "games"
    folder.mkdir()
    sparse_zeros(folder / "20261101-200000-zeros.skyjo", 64 * MiB)

    def digest_of_everything(path: Path) -> str:
        raise AssertionError("the whole file was read to hash it, though its first byte refuses it")

    monkeypatch.setattr(history, "file_key", digest_of_everything, raising=False)
    result, held = peak(lambda: scan(folder))
    (entry,) = result.games
    assert entry.checked.status == "unreadable" and "bad header" in (entry.why_not or "")
    assert held < 2 * MiB, f"history held {held >> 20} MiB to refuse a file by its first byte"
