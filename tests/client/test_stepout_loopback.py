"""Issue 28 point 2 on real programs: Ctrl-C in a network game no longer leaves the others waiting
out the grace. The interrupted program signs a `stepout` on its way out (PROTOCOL.md 10.9,
"Stepping out"), the two others vote on it at once, a bot plays the seat, and `join --resume`
brings the player back.

Three headless programs on loopback (no mDNS), `--grace 900`: without the step-out the table
would vote only after two waits and the vote's grace, about 20 minutes, far beyond every bound
here, so the takeover seen below can only come from the step-out. Every wait is bounded and
waits for what the programs say."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path
from typing import Any

import trio

from protocol.verify import verify_bytes
from tests.client.test_again_loopback import start, text
from tests.client.test_remote_ends import ended, said

ARGV = ["--option", "target_score=15", "--interface", "127.0.0.1", "--think-time", "0.1"]


def saved_verdicts(tmp_path: Path, who: str) -> list[Any]:
    files = sorted((tmp_path / f"data-{who}" / "skyjo-lan" / "games").glob("*.skyjo"))
    return [verify_bytes(f.read_bytes()) for f in files]


async def test_issue28_2_ctrl_c_hands_the_seat_to_the_table_at_once(
    tmp_path: Path,
) -> None:
    host = start(
        tmp_path,
        "host",
        ["host", "--no-mdns", "--seats", "3", "--bot", "greedy", "--nick", "ann", "--grace", "900", *ARGV],
    )
    processes: list[subprocess.Popen[bytes]] = [host]
    try:
        found = await said(host, r" open on 127\.0\.0\.1:(\d+)")
        target = f"127.0.0.1:{found.group(1)}"
        ben = start(tmp_path, "ben", ["join", target, "--bot", "greedy", "--nick", "ben", *ARGV[-2:]])
        cat = start(tmp_path, "cat", ["join", target, "--bot", "greedy", "--nick", "cat", *ARGV[-2:]])
        processes += [ben, cat]
        await said(cat, r"cat: (flip|replace|discard)")
        assert "game over" not in text(host), "the game ended before Ctrl-C: nothing was tested"
        cat.send_signal(signal.SIGINT)
        assert await ended(cat, 60) == 130, text(cat)[-3000:]
        assert "join --resume" in text(cat), text(cat)[-2000:]  # the command that brings it back
        # the others take the seat over at once (the grace is 15 minutes)
        for process in (host, ben):
            await said(process, r"A bot plays cat \(seat \d\)'s seat from now on \(they stepped out\)", 120)
        for process in (host, ben):
            assert await ended(process) == 0, text(process)[-3000:]
        for who in ("host", "ben"):
            verdict = saved_verdicts(tmp_path, who)[-1]
            assert verdict.valid and verdict.finished and verdict.blame is None, (who, verdict)
            assert set(verdict.taken_over.values()) == {"vanished"}, verdict.taken_over
        mine = saved_verdicts(tmp_path, "cat")[-1]  # its own file ends with its stepout: --resume
        assert mine.valid and not mine.finished and mine.blame is None, mine
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
        await trio.sleep(0)
