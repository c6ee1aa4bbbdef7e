"""A player back from a closed lid, one vote about it missing for good (PROTOCOL.md 10.9; issue 17,
point 3; the fault soak's sixth run), on real processes in network namespaces: its `vacate:` timer
fires by itself, again and again, and never lets it play on as itself.

p3's lid closes (SIGSTOP) past the grace; the table votes, plays its seat, and plays on. When the
lid opens, p3 takes in the votes and upholds of p2 and p4 but never the host's vote (a test hook
in p3's process drops it however it comes, tests/client/tamper): the host's later frames wait
behind that gap. Two other seats upheld the vote, so the vote keeps holding p3 at each expiry of
its timer (an honest seat upholds only once every vote is in: the table decided); once the others
have finished and left, nothing comes any more, and after eight such waits p3 stops, "cut off",
naming nobody. Before, the hold lifted after twice the grace, p3 played on as itself, and named a
holder of its key a cheat for the partials it sent for p3's seat.

Every wait is bounded and waits for what the programs say, never for a fixed delay.
"""

from __future__ import annotations

import os
import re
import signal

import pytest

from tests.client.netlab import open_lab, output, wait_all, wait_for
from tests.client.test_lan_faults import logs, start_table, verdict
from tests.client.test_lan_takeover import ROOT, TAMPER, _mid_round, _seat_of

DROP = {
    "SKYJO_LAN_TEST_DROP": "host-vote",
    "PYTHONPATH": f"{TAMPER}{os.pathsep}{ROOT}",
    "SKYJO_LAN_STEP_TIMEOUT": "2",
    "SKYJO_LAN_MOVE_TIMEOUT": "8",
}
"""The hook in every program (it acts only in the one the host votes about), and the step waits a
grace of 4 s gives (half the grace each)."""

RULES = ["--option", "target_score=100", "--grace", "4", "--seats", "4"]
"""A game long enough to go on for a while after the lid opens (the votes reach p3 then)."""


@pytest.fixture
def lab(request):
    yield from open_lab(request, base=90)


@pytest.mark.parametrize("lab", [4], indirect=True)
def test_issue17_3_back_from_a_lid_without_the_hosts_vote_it_waits_and_blames_nobody(lab, tmp_path):
    host, (second, lid, fourth) = start_table(lab, tmp_path, DROP, RULES, joining=(2, 3, 4))
    _mid_round(lid, host, second, fourth)
    seat = _seat_of(lid)
    os.killpg(lid.pid, signal.SIGSTOP)
    try:
        taken = re.compile(r"A bot plays p3 \(seat \d\)'s seat from now on \(they vanished")
        assert wait_for(host, taken, 120), logs(host, second, fourth)
    finally:
        os.killpg(lid.pid, signal.SIGCONT)
    codes = wait_all([host, second, fourth], timeout=400)
    assert codes == [0, 0, 0], logs(host, second, fourth, lid)
    # eight graces with nothing from anyone once they left, and a margin for a loaded machine
    codes += wait_all([lid], timeout=120)
    everyone = (host, second, lid, fourth)
    assert codes[3] is not None, ("p3 still running", logs(lid))
    said = output(lid)
    assert "DROP: the host's vote about this program" in said, "the lid opened before the game's end"
    assert "cut off" in said, logs(lid)
    for process in everyone:
        assert "BLAME" not in output(process) and "blamed" not in output(process).lower(), logs(*everyone)
    for i in (1, 2, 4):
        result = verdict(tmp_path, i)
        assert result["valid"] and result["finished"] and result["blame"] is None, result
        assert result["taken_over"] == {str(seat): "vanished"}, result
    back = verdict(tmp_path, 3)
    assert back["valid"] and not back["finished"] and back["blame"] is None, back
