"""Fault soak on real processes: whole LAN games while links drop, lids close and programs die.

    python benchmarks/chaos.py                        # 3 games, 4 peers, random faults
    python benchmarks/chaos.py --games 10 --seed 7 --json-file chaos.json

Each game is a table of real `skyjo-lan` programs (the host and its joiners, headless greedy bots),
each in its own network namespace on a private bridge (`tests/client/netlab.py`: root needed;
nothing reaches a real interface). While the game runs, one fault at a time hits a random peer,
then is undone, then the table is left alone for a moment:

* **cut**: its cable leaves the bridge for 2-45 s (Wi-Fi gone), then comes back;
* **lid**: its program is stopped (SIGSTOP) for 2-40 s (a closed lid), then continued;
* **kill**: its program is killed (SIGKILL) and, 1-15 s later, started again with `--resume`.

Cuts and lids longer than the table's grace (`--grace`, 20 s here) make the others vote and play
the seat; the player then comes back and takes it again. At the end, for every game:

* **nobody was blamed**: no peer here cheats, so a program that names a cheat ("BLAME seat N",
  "seat N blamed") or a saved game whose `verify` blames a seat is a failure;
* **every saved game verifies** (valid: finished, or stopped with the reason said);
* **every program ended by itself** (no hang past `--timeout`), with status 0 for a game played
  to its end.

A game may also stop without a cheat, and a peer may end without the result: a program that comes
back after the others have finished and left (headless, they leave at the game's end) finds nobody
and stops, "cut off", its game unfinished. That is counted and its last line printed, not a
failure. The script prints each game's faults and outcome and the totals of the run; a game with
a failure or an unfinished file keeps its folder (logs, saved games) for a look.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.client.netlab import NetLab, NetLabUnavailable, env_for, output, wait_for  # noqa: E402
from tests.client.saved_games import verify_json  # noqa: E402

PORT = 7777
TIMEOUTS = {"SKYJO_LAN_STEP_TIMEOUT": "8", "SKYJO_LAN_MOVE_TIMEOUT": "20"}
BLAME = re.compile(r"BLAME seat|seat \d+ blamed")
"""What a program says when it names a cheat (`client/table/seat.py`, `client/table/peer.py`)."""


@dataclass
class Peer:
    """One program of the table: its namespace, its command's role, its current process."""

    index: int
    host: bool
    process: subprocess.Popen[bytes]
    resumes: int = 0

    def alive(self) -> bool:
        return self.process.poll() is None


@dataclass
class GameResult:
    game: int
    faults: list[str] = field(default_factory=list)
    codes: list[int | None] = field(default_factory=list)
    verdicts: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    endings: list[str] = field(default_factory=list)
    """The last line of each program whose saved game is not finished (why it stopped)."""
    seconds: float = 0.0
    folder: str = ""


def start(lab: NetLab, folder: Path, peers: int, target: int, grace: int) -> list[Peer]:
    """The host in namespace 1 (once its lobby is open), then a joiner in each other namespace."""
    env = lambda i: env_for(folder, i, TIMEOUTS)  # noqa: E731
    host_args = ["--seats", str(peers), "--bot", "greedy", "--no-mdns", "--port", str(PORT)]
    host_args += ["--interface", lab.address(1), "--grace", str(grace), "--option", f"target_score={target}"]
    host = lab.python(1, ["-m", "client", "host", *host_args], env(1), log="host1-0.log")
    table = [Peer(1, True, host)]
    if not wait_for(host, " open on ", 120):
        raise RuntimeError("the host's lobby did not open:\n" + output(host)[-2000:])
    for i in range(2, peers + 1):
        argv = ["-m", "client", "join", f"{lab.address(1)}:{PORT}", "--bot", "greedy"]
        argv += ["--interface", lab.address(i), "--nick", f"p{i}"]
        process = lab.python(i, argv, env(i), log=f"host{i}-0.log")
        table.append(Peer(i, False, process))
    return table


def fault(lab: NetLab, folder: Path, peer: Peer, rng: random.Random, grace: int) -> str:
    """One fault on `peer`, undone before returning; says what it was."""
    kind = rng.choice(("cut", "lid", "kill"))
    if kind == "cut":
        seconds = rng.uniform(2, grace + 25)
        lab.cut(peer.index)
        time.sleep(seconds)
        lab.heal(peer.index)
        return f"cut p{peer.index} {seconds:.0f}s"
    if kind == "lid":
        seconds = rng.uniform(2, grace + 20)
        os.killpg(peer.process.pid, signal.SIGSTOP)
        time.sleep(seconds)
        os.killpg(peer.process.pid, signal.SIGCONT)
        return f"lid p{peer.index} {seconds:.0f}s"
    seconds = rng.uniform(1, 15)
    os.killpg(peer.process.pid, signal.SIGKILL)
    peer.process.wait(timeout=10)
    time.sleep(seconds)
    peer.resumes += 1
    command = "host" if peer.host else "join"
    log = f"host{peer.index}-{peer.resumes}.log"
    peer.process = lab.python(
        peer.index,
        ["-m", "client", command, "--resume", "--bot", "greedy"],
        env_for(folder, peer.index, TIMEOUTS),
        log=log,
    )
    return f"kill p{peer.index}, resumed {seconds:.0f}s later"


def play_one(number: int, rng: random.Random, args: argparse.Namespace) -> GameResult:
    folder = Path(tempfile.mkdtemp(prefix=f"chaos{number}-"))
    result = GameResult(number, folder=str(folder))
    began = time.monotonic()
    lab = NetLab(args.peers, subnet=200 + number % 50)
    table: list[Peer] = []
    outputs: dict[int, list[str]] = {}
    try:
        table = start(lab, folder, args.peers, args.target, args.grace)
        if not all(wait_for(p.process, "game starts", 120) for p in table):
            result.failures.append("the game did not start")
            return result
        deadline = began + args.timeout
        time.sleep(rng.uniform(3, 10))
        while time.monotonic() < deadline and all(p.alive() for p in table):
            if len(result.faults) >= args.faults:
                break
            result.faults.append(fault(lab, folder, rng.choice(table), rng, args.grace))
            time.sleep(rng.uniform(args.calm, args.calm * 3))
        for peer in table:
            remaining = max(1.0, deadline - time.monotonic())
            try:
                peer.process.wait(timeout=remaining)
            except subprocess.TimeoutExpired:
                result.failures.append(f"p{peer.index} still running after {args.timeout:.0f}s")
        result.codes = [p.process.poll() for p in table]
        for peer in table:
            logs = sorted(lab.dir.glob(f"host{peer.index}-*.log"))
            outputs[peer.index] = [path.read_text("utf-8", "replace") for path in logs]
        for peer in table:
            text = "\n".join(outputs[peer.index])
            named = BLAME.search(text)
            if named:
                line = text[text.rfind("\n", 0, named.start()) + 1 : text.find("\n", named.end())]
                result.failures.append(f"p{peer.index} names a cheat: {line.strip()[:200]}")
            files = sorted((folder / f"data{peer.index}" / "skyjo-lan" / "games").glob("*.skyjo"))
            if not files:
                result.verdicts.append("no file")
                continue
            _, verdict = verify_json(files[-1])
            kind = verdict.get("kind", "?")
            result.verdicts.append(kind)
            if kind != "finished":
                last = [line for line in "\n".join(outputs[peer.index]).splitlines() if line.strip()][-1:]
                result.endings.append(f"p{peer.index}: {last[0][:240] if last else '(nothing)'}")
            if not verdict.get("valid"):
                result.failures.append(f"p{peer.index}'s saved game does not verify: {verdict.get('fault')}")
            if verdict.get("blame") is not None:
                result.failures.append(f"p{peer.index}'s saved game blames seat {verdict['blame']}")
        if all(v == "finished" for v in result.verdicts) and any(c != 0 for c in result.codes):
            result.failures.append(f"a finished game but exit statuses {result.codes}")
    finally:
        for peer in table:
            if peer.alive():
                os.killpg(peer.process.pid, signal.SIGCONT)
                os.killpg(peer.process.pid, signal.SIGKILL)
        looked_at = bool(result.failures) or args.keep or any(v != "finished" for v in result.verdicts)
        if looked_at:
            shutil.copytree(lab.dir, folder / "logs", dirs_exist_ok=True)
        lab.close()
        result.seconds = time.monotonic() - began
        if not looked_at:
            shutil.rmtree(folder, ignore_errors=True)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--peers", type=int, default=4)
    parser.add_argument("--target", type=int, default=100, help="target_score: the game's length")
    parser.add_argument("--faults", type=int, default=6, help="faults per game at most")
    parser.add_argument("--calm", type=float, default=5.0, help="seconds left alone after a fault, at least")
    parser.add_argument("--grace", type=int, default=20, help="the table's --grace")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per game")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep every game's folder")
    parser.add_argument("--json-file")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    results: list[GameResult] = []
    for number in range(args.games):
        try:
            result = play_one(number, rng, args)
        except NetLabUnavailable as exc:
            print(f"network namespaces unavailable: {exc}", file=sys.stderr)
            return 2
        results.append(result)
        status = "FAIL" if result.failures else "ok"
        print(
            f"game {number}: {status} in {result.seconds:.0f}s; "
            f"faults: {'; '.join(result.faults) or 'none'}; exit {result.codes}; verify {result.verdicts}",
            flush=True,
        )
        for ending in result.endings:
            print(f"    {ending}", flush=True)
        for failure in result.failures:
            print(f"    {failure} (folder {result.folder})", flush=True)
    failed = sum(bool(r.failures) for r in results)
    faults = sum(len(r.faults) for r in results)
    print(f"{len(results)} games, {faults} faults, {failed} failed")
    if args.json_file:
        Path(args.json_file).write_text(json.dumps([r.__dict__ for r in results], indent=1) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
