"""Issue 25, point 2, on real processes in network namespaces: a joiner whose link is cut for
long (its program hears nobody for eight graces in a row, far past twice the grace) is played by
the table while its own program stops itself ("cut off"), keeping its `.resume` file as not over;
once the link is back, `join --resume` brings it back into its seat at the running game
(docs/network.md, "When things go wrong"). Before, the stop was a signed `halt` saved in its own
transcript: `--resume` replayed it and stopped again at once.

Deterministic whatever the machine's load: the other two programs' bots make no move while the
table plays a vanished seat whose player has not sent its `return` yet (the test hook of
tests/client/tamper/sitecustomize.py, SKYJO_LAN_TEST_HOLD=return), so the game is still running
when the resumed program comes back (the other documented outcome, "the game ended meanwhile",
cannot happen here). Every wait is bounded and waits for what the programs say or write.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from client.table.saved import ResumeInfo
from tests.client.netlab import env_for, open_lab, output, wait_all
from tests.client.test_lan_faults import FAST, logs, start_host, verdict, wait_for
from tests.client.test_lan_takeover import HOLD, TIMEOUTS, _seat_of, _wait_taken

CUT_OFF = "this program was cut off"
"""What the cut program says when it stops itself (protocol/insurance.py, `isolated`)."""


CUT_GRACE = "4"
"""The table's grace: a program that hears nobody stops itself after eight of them in a row (with
its own waits, about 40 s here); the others take its seat over after their own waits."""
HELD = {**HOLD, **TIMEOUTS, "SKYJO_LAN_TEST_HOLD": "return,waits"}
"""The host's and p2's programs: their bots make no move, and their own waits do not run out,
while the table plays the cut seat and its player is not back (tests/client/tamper/
sitecustomize.py); the table's short timeouts otherwise (the takeover comes within seconds)."""


@pytest.fixture
def lab(request):
    yield from open_lab(request, base=0)


def _resume_files(tmp_path: Path, i: int) -> list[Path]:
    return sorted((tmp_path / f"data{i}" / "skyjo-lan" / "games").glob("*.resume"))


@pytest.mark.parametrize("lab", [3], indirect=True)
def test_issue25_join_resume_after_a_cut_past_twice_the_grace_brings_the_player_back(lab, tmp_path):
    started = time.monotonic()

    def said(text: str) -> None:
        print(f"[{time.monotonic() - started:6.1f} s] {text}")

    host = start_host(lab, tmp_path, HELD, [*FAST, "--grace", CUT_GRACE])
    joiners = []
    for i, env in ((2, HELD), (3, TIMEOUTS)):
        argv = ["-m", "client", "join", f"{lab.address(1)}:7777", "--bot", "greedy"]
        argv += ["--interface", lab.address(i), "--nick", f"p{i}"]
        joiners.append(lab.python(i, argv, env_for(tmp_path, i, env)))
    second, third = joiners
    assert wait_for(third, "game starts", 120), logs(host, second, third)
    assert wait_for(third, ": flip", 90) or wait_for(third, ": replace", 30), logs(host, third)
    hook = "HOLD: no wait of this program runs out while its bot waits for a return"
    assert hook in output(host) and hook in output(second), "the test hook is loaded"
    seat = _seat_of(third)
    lab.cut(3)
    said(f"link of p3 (seat {seat}) cut")
    try:
        # the table plays the cut seat (the others' waits ran out), and the cut program, hearing
        # nobody for many waits in a row, stops itself
        found = _wait_taken(second, 240)
        assert found and int(found.group(1)) == seat, logs(host, second)
        said("the table plays its seat")
        codes = wait_all([third], timeout=300)
        assert codes[0] is not None, logs(third)
        said(f"the cut program stopped itself (exit {codes[0]})")
    finally:
        lab.heal(3)
    said("link healed")
    mine = output(third)
    assert CUT_OFF in mine, mine[-3000:]  # it says why it stopped, and that --resume is the way back
    assert "nobody at the table answers: your connection may be down" in mine, mine[-3000:]
    assert "blamed" not in mine.lower() and "BLAME" not in mine, mine[-3000:]
    (kept,) = _resume_files(tmp_path, 3)
    info = ResumeInfo.load(kept)
    assert not info.over and not info.finished, f"{kept} is offered to --resume no more"
    alone = verdict(tmp_path, 3)
    assert alone["valid"] and not alone["finished"] and alone["blame"] is None, alone
    # the held bots wait for its return: the game cannot have ended (the one documented outcome
    # left is "back in the seat"; "the game ended meanwhile" cannot happen in this test)
    assert host.poll() is None and second.poll() is None, logs(host, second)
    resumed = lab.python(
        3,
        ["-m", "client", "join", "--resume", "--bot", "greedy"],
        env_for(tmp_path, 3, TIMEOUTS),
        log="resumed.log",
    )
    back = f"p3 (seat {seat}) is back and plays their seat again."
    assert _wait_back([host, second], resumed, back, 180), logs(host, second, resumed)
    said("the table gave it its seat back (its `return`): it plays again")
    codes = wait_all([host, second, resumed], timeout=300)
    said(f"every program ended: {codes}")
    assert codes == [0, 0, 0], logs(host, second, resumed)
    assert f"resuming skyjo as seat {seat}" in output(resumed), output(resumed)
    for process in (host, second, resumed):
        said_there = output(process)
        assert "BLAME" not in said_there and "blamed" not in said_there.lower(), logs(process)
        assert "stopped answering" not in said_there, logs(process)
    results = [verdict(tmp_path, i) for i in (1, 2, 3)]
    for r in results:
        assert r["valid"] and r["finished"], (r["kind"], r.get("fault"), r.get("unconsumed"))
        assert r["blame"] is None, r
        assert r["taken_over"] == {}, r["taken_over"]  # it plays its seat again at the end
    assert len({str((r["totals"], r["winners"])) for r in results}) == 1
    assert not _resume_files(tmp_path, 3), "the .resume file goes once the game is over"
    said(f"done (grace {CUT_GRACE} s): back in its seat, every file finished and valid")


def _wait_back(others, resumed, back: str, timeout: float) -> bool:
    """Until every other program says the resumed player is back; False at once if the resumed
    program ends first (before: it stopped at once, replaying the stop it had saved)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(back in output(p) for p in others):
            return True
        if resumed.poll() is not None or any(p.poll() is not None for p in others):
            return all(back in output(p) for p in others)
        time.sleep(0.2)
    return False
