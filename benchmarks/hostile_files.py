"""Hostile and huge files: time and peak memory of `verify`, `replay` and `history` (issue 26
point 3; not a test).

    python benchmarks/hostile_files.py                  # modest sizes (about 15 s)
    python benchmarks/hostile_files.py --big            # the issue's sizes: 1 GiB of zeros,
                                                        # 200,000 copies, 2,002 files
    python benchmarks/hostile_files.py --code ../main   # the same files read by another checkout
    python benchmarks/hostile_files.py --dir D          # make the files in D once, then reuse them
    python benchmarks/hostile_files.py --json

The files (made once, in a temporary directory):

* *zeros*: a sparse file of `--zeros-mib` MiB of zero bytes (no room on the disk): not a
  transcript, as its first byte shows;
* *copies*: a real 2-seat SKIP-BO game followed by `--copies` copies of one of its frames;
* *folder*: `--folder-games` distinct real games, each saved `--folder-copies` times (byte for
  byte copies, other names), read by `history` with an empty cache (cold).

Each reading runs in its own Python process, the code of `--code` (default: this checkout) on
its path: `verify` and `history` through `client.cli.main` (as the commands run), `replay` as
its loading does (the check, then the steps; the screen is not drawn). A process reports its
time and its peak resident memory (`ru_maxrss`) minus what it held once its modules were
imported (`+MiB`): what reading the file cost. A checkout from before the change has no
`replay_of`: its replay reads the whole file and calls `load_replay` on the bytes, as it did.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MiB = 1 << 20

_CHILD = r"""
import json, resource, sys, time
from client.cli import main
import client.records.history, client.ui.replay, protocol.verify  # imported before the baseline

def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB

what, path = sys.argv[1], sys.argv[2]
base = rss()
start = time.perf_counter()
outcome = ""
if what == "verify":
    outcome = f"exit {main(['verify', path])}"
elif what == "history":
    outcome = f"exit {main(['history', '--dir', path, '--limit', '0'])}"
elif what == "replay":
    from client.ui import replay
    from protocol.errors import MalformedMessage
    try:
        if hasattr(replay, "replay_of"):
            from client.storage import verify_file
            loaded = replay.replay_of(verify_file(path, keep_order=True))
        else:  # a checkout from before issue 26: the whole file, then load_replay
            with open(path, "rb") as handle:
                loaded = replay.load_replay(handle.read())
        outcome = f"{len(loaded.steps)} steps" + (" (INVALID)" if loaded.fault else "")
    except MalformedMessage as exc:
        outcome = f"refused: {exc.reason}"
seconds = time.perf_counter() - start
print("\n@@" + json.dumps({"seconds": seconds, "peak": rss(), "base": base, "outcome": outcome}))
"""


def measure(code: Path, what: str, path: Path, env: dict[str, str]) -> dict[str, Any]:
    """One reading in a fresh process: seconds, peak RSS, RSS added by the reading."""
    run = subprocess.run(
        [sys.executable, "-c", _CHILD, what, str(path)],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(code)},
        cwd=code,
        check=False,
    )
    tail = [line for line in run.stdout.splitlines() if line.startswith("@@")]
    if not tail:
        raise SystemExit(f"{what} {path} failed:\n{run.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(tail[-1][2:])
    said = (run.stdout.split("\n@@")[0].strip().splitlines() or run.stderr.strip().splitlines() or [""])[0]
    result["said"] = said[:110]
    result["added"] = result["peak"] - result["base"]
    return result


def _game(seed: str) -> tuple[Any, list[bytes]]:
    """A finished 2-seat SKIP-BO game, as a peer saves it: (config, frames)."""
    from protocol.loopback import Loopback, bots_for, make_table, seats

    config, keys = make_table("skip-bo", 2, {"single_round": True, "stock_size": 5})
    loop = Loopback(seats(config, keys), bots_for("skip-bo", ["greedy"] * 2, seed), sweep=True)
    loop.start()
    return config, list(loop.sessions[0].frames)


def make_files(folder: Path, args: argparse.Namespace) -> None:
    from protocol.transcript import dump, record

    zeros = folder / "zeros.skyjo"
    with zeros.open("wb") as handle:
        handle.truncate(args.zeros_mib * MiB)
    config, frames = _game("copies")
    copies = folder / "copies.skyjo"
    frame = record(frames[len(frames) // 2])
    with copies.open("wb") as handle:
        handle.write(dump(config, frames))
        batch = frame * 1000
        for _ in range(args.copies // 1000):
            handle.write(batch)
        handle.write(frame * (args.copies % 1000))
    games = folder / "games"
    games.mkdir()
    for g in range(args.folder_games):
        data = dump(*_game(f"folder-{g}"))
        for c in range(args.folder_copies):
            (games / f"20261101-{g:03d}{c:03d}-skip-bo-{g:04x}.skyjo").write_bytes(data)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--zeros-mib", type=int, default=256, help="size of the file of zeros (sparse)")
    parser.add_argument("--copies", type=int, default=20_000, help="copies of a frame after a real game")
    parser.add_argument("--folder-games", type=int, default=4, help="distinct games in the folder")
    parser.add_argument("--folder-copies", type=int, default=25, help="files of each game in the folder")
    parser.add_argument("--big", action="store_true", help="the issue's sizes: 1 GiB, 200,000, 2,002 files")
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose readers are measured")
    parser.add_argument(
        "--dir", type=Path, help="where the files are made, or found (made once): compare checkouts"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.big:
        args.zeros_mib, args.copies, args.folder_games, args.folder_copies = 1024, 200_000, 22, 91
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        where = args.dir if args.dir is not None else Path(tmp) / "files"
        if not (where / "games").is_dir():
            where.mkdir(parents=True, exist_ok=True)
            make_files(where, args)
        files = {"zeros": where / "zeros.skyjo", "copies": where / "copies.skyjo", "folder": where / "games"}
        env = dict(os.environ)
        for case, path in files.items():
            readers = ["history"] if case == "folder" else ["verify", "replay", "history"]
            for what in readers:
                target = path
                if case != "folder" and what == "history":
                    target = Path(tmp) / f"only-{case}"
                    target.mkdir(exist_ok=True)
                    os.symlink(path, target / path.name)
                cache = Path(tmp) / f"data-{case}-{what}"  # an empty history cache: cold
                env["XDG_DATA_HOME"] = str(cache)
                size = (
                    sum(p.stat().st_size for p in target.iterdir())
                    if target.is_dir()
                    else target.stat().st_size
                )
                row = {
                    "file": case,
                    "reader": what,
                    "bytes": size,
                    **measure(args.code.resolve(), what, target, env),
                }
                rows.append(row)
                if not args.json:
                    print(
                        f"{case:7} {what:8} {size / MiB:9.1f} MiB  {row['seconds']:7.2f} s  "
                        f"peak {row['peak'] / MiB:7.1f} MiB (+{row['added'] / MiB:6.1f})  "
                        f"{row['outcome']}  | {row['said']}",
                        flush=True,
                    )
    if args.json:
        print(json.dumps({"code": str(args.code), "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
