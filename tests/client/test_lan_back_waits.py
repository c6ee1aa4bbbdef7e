"""A player who came back waits for its turn while another program vanishes (PROTOCOL.md 10.9;
issue 17, point 3), on real processes in network namespaces: the `vacate:` timers fire by
themselves (no test fires them).

p3's program is killed; the table plays its seat; it comes back (`join --resume`, its `return`
signed), but its seat is its own again only at its next turn. Before that turn, p2's lid closes
(SIGSTOP) for good. p2 holds a share of p3's key: played by the table, p2's seat would need it,
and the table could not open p3's cards until p3 is back, which the game, waiting for p2, never
reaches. So p3 does not vote about p2; the others vote, withdraw for want of p3's vote, vote again
at their next wait, and after a few attempts stop the game naming p2 absent, blaming nobody.

The order is made, not raced: the others' bots make no move while the table plays a vanished
seat whose player has not sent its `return` (tests/client/tamper, `SKYJO_LAN_TEST_HOLD`), so the
game is held still when p2 is stopped, and moves again only once p3's `return` is read, towards a
step that needs p2. Every wait is bounded and waits for what the programs say.
"""

from __future__ import annotations

import os
import re
import signal

import pytest

from tests.client.netlab import env_for, open_lab, output, wait_all, wait_for
from tests.client.test_lan_faults import FAST, logs, start_table, verdict
from tests.client.test_lan_takeover import HELD, TIMEOUTS, _mid_round, _seat_of

QUICK = {**HELD, "SKYJO_LAN_STEP_TIMEOUT": "2"}
"""The held programs (`HELD`), with a grace of 4 s and the step waits it gives by default (half
the grace each): the five attempts take about a minute."""

STOPPED = "did not come back in time (the table cannot play the seat while"


@pytest.fixture
def lab(request):
    yield from open_lab(request, base=60)


def _taken(process, nick: str, timeout: float) -> bool:
    said = re.compile(rf"A bot plays {nick} \(seat \d\)'s seat from now on \(they vanished")
    return wait_for(process, said, timeout)


@pytest.mark.parametrize("lab", [4], indirect=True)
def test_issue17_3_a_program_gone_while_a_player_back_waits_is_named_absent_on_real_programs(lab, tmp_path):
    rules = [*FAST, "--grace", "4", "--seats", "4"]
    host, joiners = start_table(lab, tmp_path, QUICK, rules, joining=(2, 3, 4))
    _mid_round(joiners[0], host, *joiners)
    # the player who comes back sits last, the one who goes right before it: whatever step the
    # held game is at, it needs the one who went (its turn at the latest) before the last seat's
    # next turn, which would give the player who came back its seat
    by_seat = {_seat_of(p): (i, p) for i, p in zip((2, 3, 4), joiners, strict=True)}
    (back_ns, back), (gone_ns, gone) = by_seat[4], by_seat[3]
    stays = [p for p in joiners if p not in (back, gone)]
    os.killpg(back.pid, signal.SIGKILL)
    back.wait(timeout=10)
    assert _taken(host, f"p{back_ns}", 240), logs(host, *stays)
    assert all("HOLD: the bot waits" in output(p) for p in (host, *stays)), "the test hook is loaded"
    os.killpg(gone.pid, signal.SIGSTOP)
    try:
        resumed = lab.python(
            back_ns,
            ["-m", "client", "join", "--resume", "--bot", "greedy"],
            env_for(tmp_path, back_ns, TIMEOUTS),
            log="resumed.log",
        )
        codes = wait_all([host, *stays, resumed], timeout=400)
    finally:
        os.killpg(gone.pid, signal.SIGCONT)
        os.killpg(gone.pid, signal.SIGKILL)
    everyone = (host, *stays, resumed)
    assert None not in codes, ("still running", codes, logs(*everyone))
    assert "resuming skyjo as seat 4" in output(resumed), output(resumed)
    for process in everyone:
        said = output(process)
        # each screen says it as what it is, never a cheat: the one who went stopped answering
        # (the program whose timer stopped the game), or did not come back in time (the others)
        gone_said = (f"p{gone_ns} (seat 3) stopped answering", f"p{gone_ns} (seat 3) {STOPPED}")
        assert any(text in said for text in gone_said), logs(*everyone)
        assert "BLAME" not in said and "blamed" not in said.lower(), logs(*everyone)
        assert f"A bot plays p{gone_ns}" not in said, "the table never played the seat of the one who went"
    # why, in the programs' logs: the `vacate:` timers' fifth attempt, not a wait of another kind
    kept = "".join(p.read_text() for p in (tmp_path / "state" / "skyjo-lan" / "logs").glob("*.log"))
    assert f"p{gone_ns} (seat 3) {STOPPED} p{back_ns} (seat 4) waits" in kept, kept[-4000:]
    for i in (1, *(n for n in (2, 3, 4) if n not in (back_ns, gone_ns)), back_ns):
        result = verdict(tmp_path, i)
        assert result["valid"] and not result["finished"] and result["blame"] is None, result
        # (seats from 1) the table played the seat of the player who came back, never the other
        assert set(result.get("taken_over") or {}) <= {"4"}, result
