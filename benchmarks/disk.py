"""Disk benchmark: what forcing the saved game to the disk costs (issue 13 point 3; not a test).

    python benchmarks/disk.py                       # both parts, in a temporary directory
    python benchmarks/disk.py --dir DIR --runs 5    # on the disk that holds DIR

Two policies of `client.storage.TranscriptWriter`:

* *per frame*: fsync after every record (what the writer did before issue 13);
* *policy* (now): each record is one ``write`` to the operating system (a killed process loses
  nothing); fsync before the peer sends a frame of its own (one fsync for the whole batch of
  frames written since), at each round's end and at the end;
* *none*: nothing saved (the reference for the game's time).

*frames*: the frames of a real 4-seat game (made once, in memory) written to a fresh transcript,
as fast as they come: frames per second with an fsync after each, and with ``write`` only (what
the policy does between two fsyncs). *game*: a whole game of `--players` greedy bots in this
process (in-memory links, like `skyjo-lan play`), every seat saving its own transcript in `--dir`
with its own writer: the game's time and the number of fsyncs under each policy. Medians of
`--runs` runs (the policies alternate, so a slow moment of the machine hits both).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from client.storage import TranscriptWriter
from client.table.peer import PeerRunner
from protocol.config import TableConfig
from protocol.session import Session
from protocol.verify import verify_bytes
from skyjo_p2p.bots import make_bot

_fsyncs = 0
_real_fsync = os.fsync


def _counting_fsync(fd: int) -> None:
    global _fsyncs
    _fsyncs += 1
    _real_fsync(fd)


os.fsync = _counting_fsync  # type: ignore[assignment]


def make_config(players: int, target: int) -> tuple[TableConfig, list[Ed25519PrivateKey]]:
    keys = [Ed25519PrivateKey.generate() for _ in range(players)]
    config = TableConfig(
        session_id=secrets.token_bytes(32),
        game="skyjo",
        players=players,
        identities=tuple(k.public_key().public_bytes_raw() for k in keys),
        options={"target_score": target},
        names=tuple(f"bot {i}" for i in range(players)),
    )
    return config, keys


def broadcaster(runners: list[PeerRunner], sender: int) -> Callable[[bytes], Awaitable[None]]:
    """In-memory links: what `sender` sends reaches every other runner."""

    async def broadcast(frame: bytes) -> None:
        for seat, runner in enumerate(runners):
            if seat != sender:
                runner.deliver(frame)

    return broadcast


async def play(folder: Path, players: int, target: int, mode: str) -> dict[str, Any]:
    """One whole game, every seat saving (`mode` "per frame" or "policy"; "none": nothing is
    saved, the reference); its wall time, frames and fsyncs."""
    per_frame = mode == "per frame"
    save = mode != "none"
    global _fsyncs
    config, keys = make_config(players, target)
    writers = [TranscriptWriter(config, folder / f"seat{i}-{per_frame}.skyjo") for i in range(players)]
    runners: list[PeerRunner] = []
    for seat, writer in enumerate(writers):
        writer.sync_each_frame = per_frame
        runners.append(
            PeerRunner(
                Session(config, seat, keys[seat]),
                make_bot("greedy", "skyjo", f"{secrets.token_hex(4)}:{seat}"),
                record=writer if save else None,
                sync=writer.sync if save else None,
            )
        )

    _fsyncs = 0
    start = time.perf_counter()
    async with trio.open_nursery() as nursery:
        for seat, runner in enumerate(runners):
            await nursery.start(runner.run, broadcaster(runners, seat))
        while not all(r.done for r in runners):
            await runners[0].changed.wait()
        for runner in runners:
            runner.close()
    for runner in runners:
        runner.final_save()
    seconds = time.perf_counter() - start
    fsyncs = _fsyncs
    for writer in writers:
        writer.close()
    frames = sum(r.session.frame_count for r in runners)
    if save:
        verdict = verify_bytes(writers[0].path.read_bytes())
        assert verdict.kind == "finished", verdict.fault
    for writer in writers:
        writer.path.unlink()
    return {"seconds": seconds, "frames": frames, "fsyncs": fsyncs}


def write_frames(folder: Path, config: TableConfig, frames: list[bytes], per_frame: bool) -> float:
    """Frames per second writing `frames` to a fresh transcript (fsync per frame, or write only
    and one fsync at the end)."""
    path = folder / f"frames-{per_frame}.skyjo"
    writer = TranscriptWriter(config, path)
    writer.sync_each_frame = per_frame
    start = time.perf_counter()
    for frame in frames:
        writer(frame)
    writer.sync()
    seconds = time.perf_counter() - start
    writer.close()
    path.unlink()
    return len(frames) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--dir", type=Path, default=None, help="where to write (default: a temporary directory)"
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--target", type=int, default=1, help="target score: 1 plays one round")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="skyjo-disk-") as tmp:
        folder = Path(tmp)
        # the frames of one whole game, from a saved transcript of the game part
        config, keys = make_config(args.players, args.target)
        sample = trio.run(play_keep, folder, args.players, args.target)
        rates: dict[str, list[float]] = {"per frame": [], "policy": []}
        games: dict[str, list[dict[str, Any]]] = {"per frame": [], "policy": [], "none": []}
        for _ in range(args.runs):
            for name in games:
                if name in rates:
                    rates[name].append(write_frames(folder, sample[0], sample[1], name == "per frame"))
                games[name].append(trio.run(play, folder, args.players, args.target, name))
        out: dict[str, Any] = {
            "dir": str(folder.parent),
            "runs": args.runs,
            "players": args.players,
            "frames_in_sample_game": len(sample[1]),
            "bytes_in_sample_game": sample[2],
        }
        for name in games:
            out[name] = {
                "frames_per_s": round(statistics.median(rates[name])) if name in rates else None,
                "game_s": round(statistics.median(g["seconds"] for g in games[name]), 2),
                "game_s_all": [round(g["seconds"], 2) for g in games[name]],
                "fsyncs_per_game": round(statistics.median(g["fsyncs"] for g in games[name])),
                "frames_per_game": round(statistics.median(g["frames"] for g in games[name])),
            }
        del config, keys
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"{args.players} seats, medians of {args.runs} runs, in {out['dir']}")
    print(
        f"sample game: {out['frames_in_sample_game']} frames, "
        f"{out['bytes_in_sample_game']} bytes (one seat's file)"
    )
    for name in ("per frame", "policy", "none"):
        r = out[name]
        print(
            f"  {name:9}: {r['frames_per_s'] or '-':>8} frames/s written; whole game {r['game_s']} s "
            f"{r['game_s_all']}, {r['fsyncs_per_game']} fsyncs for {r['frames_per_game']} frames (all seats)"
        )


async def play_keep(folder: Path, players: int, target: int) -> tuple[TableConfig, list[bytes], int]:
    """One game whose seat-0 transcript is kept in memory: the frames the *frames* part writes."""
    from protocol.transcript import load

    config, keys = make_config(players, target)
    writer = TranscriptWriter(config, folder / "sample.skyjo")
    runners = [
        PeerRunner(
            Session(config, seat, keys[seat]),
            make_bot("greedy", "skyjo", f"{secrets.token_hex(4)}:{seat}"),
            record=writer if seat == 0 else None,
            sync=writer.sync if seat == 0 else None,
        )
        for seat in range(players)
    ]

    async with trio.open_nursery() as nursery:
        for seat, runner in enumerate(runners):
            await nursery.start(runner.run, broadcaster(runners, seat))
        while not all(r.done for r in runners):
            await runners[0].changed.wait()
        for runner in runners:
            runner.close()
    runners[0].final_save()
    writer.close()
    data = writer.path.read_bytes()
    _, frames = load(data)
    return config, frames, len(data)


if __name__ == "__main__":
    main()
