"""Issue 25, point 2, on real processes in network namespaces: the seat-insurance timers fire by
themselves (no test fires them), and the vote never takes over a player who is there.

* two programs stopped at once: the other two vote, the vote cannot complete (each silent one
  holds a share of the other's key), and their `vacate` timers stop the game naming both absent,
  within a bound stated here, blaming nobody;
* a program stopped for a moment (shorter than the grace) and let run again: nobody is taken
  over, the game finishes, every file verifies.

Every wait is bounded and waits for what the programs say, never for a fixed delay.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from tests.client.netlab import open_lab, output, wait_all
from tests.client.test_lan_faults import FAST, logs, start_table, verdict, wait_for
from tests.client.test_lan_takeover import GRACE, INSURED, TIMEOUTS, _seat_of

STOPS_WITHIN = 8 * float(GRACE)
"""Two silent programs: the others' own waits (half the grace twice), then their vote's grace,
then the halt; bounded generously for a loaded machine."""


CUTS = [0.5, 1.0, 1.5, 2.0, 5.0]
"""How long a link is cut, in graces (the issue's five)."""

CUT_GRACE = "4"
"""The cut tests' grace, half the others' (as test_lan_issue25_resume.py's): what they test is
the length of a cut in graces, and the five lengths then take 2 to 20 s of cut each."""


@pytest.fixture
def lab(request):
    yield from open_lab(request, base=210)


def _four_programs(lab, tmp_path):
    return start_table(lab, tmp_path, TIMEOUTS, [*INSURED, "--seats", "4"], joining=(2, 3, 4))


@pytest.mark.parametrize("lab", [4], indirect=True)
def test_issue25_2_two_programs_stopped_at_once_stop_the_other_two_naming_them_absent(lab, tmp_path):
    host, (second, third, fourth) = _four_programs(lab, tmp_path)
    assert wait_for(second, "game starts", 120), logs(host, second, third, fourth)
    assert wait_for(second, ": flip", 90) or wait_for(second, ": replace", 30), logs(host, second)
    for process in (third, fourth):
        os.killpg(process.pid, signal.SIGSTOP)
    stopped_at = time.monotonic()
    try:
        codes = wait_all([host, second], timeout=STOPS_WITHIN + 60)
        took = time.monotonic() - stopped_at
        assert None not in codes, ("still waiting after", took, logs(host, second))
        assert took <= STOPS_WITHIN + 60, took
    finally:
        for process in (third, fourth):
            os.killpg(process.pid, signal.SIGCONT)
            os.killpg(process.pid, signal.SIGKILL)
    for process in (host, second):
        said = output(process)
        assert "stopped answering" in said, said[-3000:]
        assert "BLAME" not in said and "blamed" not in said.lower(), said[-3000:]
    for i in (1, 2):
        result = verdict(tmp_path, i)
        assert result["valid"] and not result["finished"] and result["blame"] is None, result
        assert not result.get("taken_over"), result


@pytest.mark.parametrize("lab", [3], indirect=True)
def test_issue25_2_a_program_stopped_for_less_than_the_grace_is_never_taken_over(lab, tmp_path):
    host, (second, third) = start_table(lab, tmp_path, TIMEOUTS, INSURED)
    assert wait_for(third, "game starts", 120), logs(host, second, third)
    assert wait_for(third, ": flip", 90) or wait_for(third, ": replace", 30), logs(host, third)
    os.killpg(third.pid, signal.SIGSTOP)
    time.sleep(float(GRACE) / 4)  # a pause well within the grace (the fault itself, not a wait)
    os.killpg(third.pid, signal.SIGCONT)
    codes = wait_all([host, second, third], timeout=400)
    assert codes == [0, 0, 0], logs(host, second, third)
    for process in (host, second, third):
        assert "A bot plays" not in output(process), logs(host, second, third)
    results = [verdict(tmp_path, i) for i in (1, 2, 3)]
    for result in results:
        assert result["valid"] and result["finished"] and result["blame"] is None, result
        assert not result.get("taken_over"), result
    assert len({str((r["totals"], r["winners"])) for r in results}) == 1


@pytest.mark.parametrize("lab", [3], indirect=True)
@pytest.mark.parametrize("factor", CUTS)
def test_issue25_2_a_link_cut_then_healed_never_costs_the_game(lab, tmp_path, factor):
    # A joiner's link drops both ways for `factor` times the grace, then comes back. Before: a
    # cut between the grace and twice it voted out a player who never lost its link and sank the
    # game; a cut past the grace left the cut program stopped for good. Now every program
    # finishes, nobody who kept its link is ever taken over, and every file verifies.
    host, (second, third) = start_table(lab, tmp_path, TIMEOUTS, [*FAST, "--grace", CUT_GRACE])
    assert wait_for(third, "game starts", 120), logs(host, second, third)
    assert wait_for(third, ": flip", 90) or wait_for(third, ": replace", 30), logs(host, third)
    lab.cut(3)
    try:
        time.sleep(factor * float(CUT_GRACE))  # the fault's length (what is tested is what follows)
    finally:
        lab.heal(3)
    codes = wait_all([host, second], timeout=600)
    assert codes == [0, 0], logs(host, second, third)
    for process in (host, second):
        said = output(process)
        assert "blamed" not in said.lower(), said[-3000:]
    cut = _seat_of(third)
    # back in its seat, it finishes with the others; if they finished while it was cut off, it
    # has nobody to go back to: it says so at once, and stops by itself after eight waits
    # (about a minute here; test_lan_issue25_resume.py waits for that stop, and `--resume`)
    codes += wait_all([third], timeout=20)
    if codes[2] is None:
        assert "nobody at the table answers: your connection may be down" in output(third), logs(third)
        third.terminate()
        third.wait(timeout=20)
    elif codes[2] != 0:
        assert "cut off" in output(third), logs(third)
    results = [verdict(tmp_path, i) for i in ((1, 2, 3) if codes[2] == 0 else (1, 2))]
    for result in results:
        assert result["valid"] and result["finished"] and result["blame"] is None, result
        # the table may have played the cut seat, never a seat that kept its link
        assert set(result.get("taken_over") or {}) <= {str(cut)}, result
    assert len({str((r["totals"], r["winners"])) for r in results}) == 1
