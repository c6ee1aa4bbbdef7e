"""Issue 17, point 5: a bot takes the seat of a player who vanishes, leaves or idles, on a real
(namespaced) LAN with real processes; every remaining transcript verifies.

* a. kill -9 of a joiner, no resume: after the grace the others play its seat and finish;
* b. the vanished peer comes back mid-game (`join --resume`) and retakes its seat;
* c. SIGSTOP past the grace on an insured table: taken over; SIGCONT: nobody is blamed;
* d. a person presses q then y: the common bot plays the seat, the leaver's program ends with 0;
* e. an idle person's seat goes to autopilot and comes back with a key;
* f. a peer that sends a wrong reconstruction share is blamed with its frame (a test-only tamper
  module under tests/, loaded into that process only through `sitecustomize`).

Every wait is bounded and waits for what the programs say, never for a fixed delay.
"""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

import pytest

from tests.client.netlab import NetLab, env_for, open_lab, output, wait_all
from tests.client.saved_games import verify_json
from tests.client.test_lan_faults import (
    FAST,
    every_file_finished,
    left_at_the_bound,
    logs,
    start_host,
    start_table,
    verdict,
    wait_for,
)

GRACE = "8"
INSURED = [*FAST, "--grace", GRACE]
TIMEOUTS = {"SKYJO_LAN_STEP_TIMEOUT": "4", "SKYJO_LAN_MOVE_TIMEOUT": "8"}
TAMPER = Path(__file__).resolve().parent / "tamper"
ROOT = Path(__file__).resolve().parents[2]
TAKEN = re.compile(r"A bot plays p3 \(seat ([23])\)'s seat from now on \(they vanished")
"""What the others say once the table plays the vanished p3's seat (p3 races p2 for seats 2, 3)."""


@pytest.fixture
def lab(request):
    yield from open_lab(request, base=170)


def _seat_of(process) -> int:
    found = re.search(r"you are seat (\d+)", output(process))
    assert found, output(process)[-2000:]
    return int(found.group(1))


def _mid_round(watcher, *others) -> None:
    assert wait_for(watcher, "game starts", 90), logs(watcher, *others)
    assert wait_for(watcher, ": flip", 90) or wait_for(watcher, ": replace", 30), logs(watcher, *others)


def _wait_taken(process, timeout: float) -> re.Match[str] | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = TAKEN.search(output(process))
        if found or process.poll() is not None:
            return found or TAKEN.search(output(process))
        time.sleep(0.2)
    return None


GONE = {**TIMEOUTS, "SKYJO_LAN_CATCH_UP_WAIT": "5"}
"""For a program killed for good: the others' end-of-game wait for a program that vanished lately
(`Mesh._wait_for_returning`) is 5 s, not a minute from its loss."""


def test_issue17_5a_kill_9_without_resume_the_others_finish_with_a_bot_in_the_seat(lab, tmp_path):
    host, (second, third) = start_table(lab, tmp_path, GONE, INSURED)
    _mid_round(third, host, second)
    seat = _seat_of(third)
    os.killpg(third.pid, signal.SIGKILL)
    third.wait(timeout=10)
    codes = wait_all([host, second], timeout=300)
    assert codes == [0, 0], logs(host, second, third)
    for process in (host, second):
        found = TAKEN.search(output(process))
        assert found and int(found.group(1)) == seat, logs(host, second)
        assert "BLAME" not in output(process), logs(host, second)
    results = [verdict(tmp_path, i) for i in (1, 2)]
    for r in results:
        assert r["valid"] and r["finished"], (r["kind"], r.get("fault"))
        assert r["taken_over"] == {str(seat): "vanished"}, r["taken_over"]
        assert r["blame"] is None, r
    assert len({str((r["totals"], r["winners"])) for r in results}) == 1


HOLD = {
    "SKYJO_LAN_TEST_HOLD": "return",
    "PYTHONPATH": f"{TAMPER}{os.pathsep}{ROOT}",
    "SKYJO_LAN_MOVE_TIMEOUT": "60",
}
"""The others' bots wait for the vanished player's `return` before they move on (tamper/
sitecustomize.py): the game cannot end before it is back, however slowly its process starts.
Their moves are waited for as a slow player's: a long move timeout (p3's vanish is noticed at a
protocol step, or after the move timeout if it vanished on its turn)."""


HELD = {**HOLD, **TIMEOUTS, "SKYJO_LAN_TEST_HOLD": "return,waits"}
"""As `HOLD`, but the held programs' own waits do not run out while their bots are held (the hook
asks them again), so the table keeps the short move timeout: a player who vanishes on its own turn
is noticed after 8 s, not after `HOLD`'s 60 s."""


def _taken_after_kill_9(lab: NetLab, tmp_path: Path, env: dict[str, str]):
    """The table started with `env`; p3 killed (SIGKILL) mid-round, no resume, and the table
    plays its seat: (host, second, p3's seat)."""
    host, (second, third) = start_table(lab, tmp_path, env, INSURED)
    _mid_round(third, host, second)
    seat = _seat_of(third)
    os.killpg(third.pid, signal.SIGKILL)
    third.wait(timeout=10)
    found = _wait_taken(second, 240)
    assert found and int(found.group(1)) == seat, logs(host, second)
    return host, second, seat


def test_issue17_5b_the_vanished_peer_comes_back_and_retakes_its_seat(lab, tmp_path):
    # back only once the table plays its seat (else it is a plain resume, test_lan_faults.py)
    host, second, seat = _taken_after_kill_9(lab, tmp_path, HELD)
    assert host.poll() is None and second.poll() is None, logs(host, second)
    assert all("HOLD: the bot waits" in output(p) for p in (host, second)), "the test hook is loaded"
    resumed = lab.python(
        3,
        ["-m", "client", "join", "--resume", "--bot", "greedy"],
        env_for(tmp_path, 3, TIMEOUTS),
        log="resumed.log",
    )
    codes = wait_all([host, second, resumed], timeout=300)
    assert codes == [0, 0, 0], logs(host, second, resumed)
    assert f"resuming skyjo as seat {seat}" in output(resumed), output(resumed)
    back = f"p3 (seat {seat}) is back and plays their seat again."
    assert back in output(host) and back in output(second), logs(host, second, resumed)
    for process in (host, second, resumed):
        assert "BLAME" not in output(process), logs(host, second, resumed)
    results = [verdict(tmp_path, i) for i in (1, 2, 3)]
    for r in results:
        assert r["valid"] and r["finished"], (r["kind"], r.get("fault"), r.get("unconsumed"))
        assert r["taken_over"] == {}, r["taken_over"]  # it plays its seat again at the end
        assert r["blame"] is None, r
    assert len({str((r["totals"], r["winners"])) for r in results}) == 1


def _behind_at_the_end(lab: NetLab, tmp_path: Path, extra: dict[str, str] | None = None):
    """p3 killed, the table plays its seat, p3 back with `--resume` on a slow machine (a test
    hook: each frame it receives takes 0.25 s more, and it does not take its seat back) and still
    far behind when the table's game ends; the others' bots are held from the takeover until
    p3's links are up, so that the game cannot end before it is back, however slowly this
    machine starts it. Returns (host, second, resumed, seat, fast): touching `fast` ends the
    slowness. The others' `extra` environment is added to the hold's."""
    go, linked, fast = (tmp_path / name for name in ("go", "linked", "fast"))
    held = {**HELD, "SKYJO_LAN_TEST_HOLD_UNTIL": str(go), **(extra or {})}
    host, second, seat = _taken_after_kill_9(lab, tmp_path, held)
    slow = {
        **TIMEOUTS,
        "PYTHONPATH": f"{TAMPER}{os.pathsep}{ROOT}",
        "SKYJO_LAN_TEST_SLOW_UNTIL": str(fast),
        "SKYJO_LAN_TEST_LINKED": str(linked),
    }
    resumed = lab.python(
        3,
        ["-m", "client", "join", "--resume", "--bot", "greedy"],
        env_for(tmp_path, 3, slow),
        log="resumed.log",
    )
    try:
        deadline = time.monotonic() + 120
        while not linked.exists() and time.monotonic() < deadline and resumed.poll() is None:
            time.sleep(0.2)
        assert linked.exists(), logs(host, second, resumed)
        assert "SLOW:" in output(resumed), "the test hook is loaded"
        go.touch()  # the table plays on without p3, which is far behind
        assert wait_for(host, "game over", 300), logs(host, second, resumed)
        assert "game over" not in output(resumed), "p3 caught up before the end: nothing was tested"
        for process in (host, second):
            wait_for(process, "to catch up with the end of the game", 60)
    except BaseException:
        go.touch()
        fast.touch()
        raise
    return host, second, resumed, seat, fast


def test_the_others_wait_at_the_end_for_a_player_back_and_still_catching_up(lab, tmp_path):
    # p3, back at the seat the table plays and still far behind when the game ends
    # (`_behind_at_the_end`): the others wait for it to say goodbye (`Mesh.catch_up`, not the
    # short linger of an ordinary end: in the fault soak, seed 16, such a program, left behind
    # with part of the end, stopped "cut off"); it catches up, sees the end, and every file
    # finishes.
    host, second, resumed, seat, fast = _behind_at_the_end(lab, tmp_path)
    fast.touch()  # p3 catches up at this machine's speed
    codes = wait_all([host, second, resumed], timeout=300)
    assert codes == [0, 0, 0], logs(host, second, resumed)
    waiting = f"waiting up to 60 s for p3 (seat {seat}) to catch up with the end of the game"
    assert waiting in output(host) and waiting in output(second), logs(host, second)
    assert "game over" in output(resumed), output(resumed)
    for process in (host, second, resumed):
        assert "BLAME" not in output(process), logs(host, second, resumed)
    results = [verdict(tmp_path, i) for i in (1, 2, 3)]
    for r in results:
        assert r["valid"] and r["finished"] and r["blame"] is None, (r["kind"], r.get("fault"))
    assert len({str((r["totals"], r["winners"])) for r in results}) == 1


def test_the_end_of_game_wait_for_a_program_that_never_says_goodbye_ends_at_its_bound(lab, tmp_path):
    # the same, the wait's bound 5 s ($SKYJO_LAN_CATCH_UP_WAIT) and p3 stopped (SIGSTOP) while
    # the others wait: it never says goodbye, and they leave at the bound, their games finished
    extra = {"SKYJO_LAN_CATCH_UP_WAIT": "5"}
    host, second, resumed, seat, fast = _behind_at_the_end(lab, tmp_path, extra)
    os.killpg(resumed.pid, signal.SIGSTOP)
    try:
        codes = wait_all([host, second], timeout=120)
    finally:
        os.killpg(resumed.pid, signal.SIGKILL)
        fast.touch()
        resumed.wait(timeout=10)
    left_at_the_bound(tmp_path, seat, codes, host, second)


def test_a_lid_closed_on_the_last_turns_opens_after_the_end_and_every_file_finishes(lab, tmp_path):
    # p3's lid closes (SIGSTOP): its links close for silence, and the table plays its seat and
    # ends the game (the others' bots are held from the takeover until p3's links are closed,
    # however fast this machine plays). The others, finished, wait for it (its link dropped
    # lately: a minute from its loss, here ten) instead of leaving after the short linger; the
    # lid opens, p3 catches up with the end, and every file finishes. Before, the others left
    # at once and p3 stopped "cut off" minutes later with an unfinished game (the fault soak,
    # seed 20: a lid closed 11 s before the end, opened as the others left).
    go = tmp_path / "go"
    env = {**HELD, "SKYJO_LAN_TEST_HOLD_UNTIL": str(go), "SKYJO_LAN_CATCH_UP_WAIT": "600"}
    host, (second, third) = start_table(lab, tmp_path, env, INSURED)
    _mid_round(third, host, second)
    seat = _seat_of(third)
    os.killpg(third.pid, signal.SIGSTOP)
    try:
        found = _wait_taken(second, 180)
        assert found and int(found.group(1)) == seat, logs(host, second)
        for process in (host, second):  # p3's links close for silence
            assert wait_for(process, f"no word from seat {seat - 1} ", 60), logs(host, second)
        assert "game over" not in output(host), "the game ended before p3's links closed"
        go.touch()  # the table plays on, without p3, to the end
        waiting = f"waiting up to 600 s for p3 (seat {seat}) to catch up with the end of the game"
        for process in (host, second):
            assert wait_for(process, waiting, 300), logs(host, second)
    finally:
        go.touch()
        os.killpg(third.pid, signal.SIGCONT)
    every_file_finished(tmp_path, host, second, third)


def test_issue17_5c_a_stopped_peer_past_the_grace_is_taken_over_and_nobody_is_blamed(lab, tmp_path):
    host, (second, third) = start_table(lab, tmp_path, TIMEOUTS, INSURED)
    _mid_round(third, host, second)
    seat = _seat_of(third)
    os.killpg(third.pid, signal.SIGSTOP)
    try:
        found = _wait_taken(second, 180)
        assert found and int(found.group(1)) == seat, logs(host, second)
    finally:
        os.killpg(third.pid, signal.SIGCONT)
    codes = wait_all([host, second, third], timeout=300)
    assert codes[:2] == [0, 0], logs(host, second, third)
    # the stopped peer, let run again, ends by itself (it retakes its seat, or stops cleanly)
    assert codes[2] is not None, logs(third)
    for process in (host, second, third):
        assert "BLAME" not in output(process), logs(host, second, third)
    results = [verdict(tmp_path, i) for i in (1, 2)]
    for r in results:
        assert r["valid"] and r["finished"], (r["kind"], r.get("fault"))
        assert r["blame"] is None, r
    assert len({str((r["totals"], r["winners"])) for r in results}) == 1
    mine = verdict(tmp_path, 3)
    assert mine["valid"] and mine["blame"] is None, mine


# --- a person at a terminal inside a namespace (d, e), a cheating process (f) ----------------------


def _host_and_p2(lab: NetLab, tmp_path: Path, host_args: list[str], env2: dict[str, str] | None = None):
    """The headless host (ns 1) and p2 (ns 2); p2 joins once the lobby is open."""
    host = start_host(lab, tmp_path, TIMEOUTS, host_args)
    second = _joiner(lab, tmp_path, 2, env_for(tmp_path, 2, {**TIMEOUTS, **(env2 or {})}))
    return host, second


def _joiner(lab: NetLab, tmp_path: Path, i: int, env: dict[str, str]):
    argv = ["-m", "client", "join", f"{lab.address(1)}:7777", "--bot", "greedy"]
    return lab.python(i, [*argv, "--interface", lab.address(i), "--nick", f"p{i}"], env)


def _person(lab: NetLab, tmp_path: Path):
    """ben, a person at a terminal in ns 3, seated and ready (the headless host starts then)."""
    from tests.client.ui.pty_driver import Pty

    ben = Pty(
        ["join", f"{lab.address(1)}:7777", "--interface", lab.address(3), "--nick", "ben", "--lang", "en"],
        tmp_path / "ben",
        cols=160,
        rows=50,
        env={**TIMEOUTS, "PATH": os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")},
        netns=lab.ns(3),
    )
    ben.wait(lambda t: "ben" in t and "p2" in t, 90, "ben's lobby with p2 seated")
    ready = ben.first({"asked": lambda t: "not yet" in t, "ready": lambda t: "cards face up" in t}, 30)
    if ready == "asked":
        ben.send("r")
    return ben


def _verdict_in(folder: Path) -> dict:
    files = sorted((folder / "skyjo-lan" / "games").glob("*.skyjo"))
    assert files, f"no transcript saved in {folder}"
    return verify_json(files[-1])[1]


def _ben_seat(lab_outputs: str) -> int:
    found = re.search(r"game starts: (.*); you are seat", lab_outputs)
    assert found, lab_outputs[-2000:]
    return [n.strip() for n in found.group(1).split(",")].index("ben") + 1


def test_issue17_5d_a_person_leaves_with_q_and_the_others_finish_with_the_common_bot(lab, tmp_path):
    host, second = _host_and_p2(lab, tmp_path, INSURED)
    ben = _person(lab, tmp_path)
    try:
        ben.wait("cards face up", 120, "the game's setup prompt")
        seat = _ben_seat(output(second))
        ben.send("q")
        asked = ben.wait("Leave and let a bot play your seat? (y/n)", 30, "the confirmation")
        assert "Leave the table?" in asked
        ben.send("y")
        assert ben.finish(60) == 0  # leaving is a normal end
        codes = wait_all([host, second], timeout=300)
    finally:
        ben.close()
    assert codes == [0, 0], logs(host, second)
    for process in (host, second):
        text = output(process)
        assert f"ben (seat {seat}) left the table." in text, logs(host, second)
        assert f"A bot plays ben (seat {seat})'s seat from now on (they left" in text, logs(host, second)
        assert "BLAME" not in text, logs(host, second)
    results = [verdict(tmp_path, i) for i in (1, 2)]
    for r in results:
        assert r["valid"] and r["finished"], (r["kind"], r.get("fault"))
        assert r["taken_over"] == {str(seat): "left"}, r["taken_over"]
        assert r["blame"] is None, r
    assert len({str((r["totals"], r["winners"])) for r in results}) == 1
    mine = _verdict_in(tmp_path / "ben" / "data")
    shown = (mine["kind"], mine["fault"], mine["taken_over"], mine["seat_events"][-6:])
    # valid, with its leave in it (finished or not: on main it ends finished, the leaver's program
    # staying connected until the others said goodbye)
    assert mine["valid"] and mine["blame"] is None, shown
    assert any(e.startswith(f"seat {seat} left the table") for e in mine["seat_events"]), shown


def test_issue17_5e_an_idle_person_goes_to_autopilot_and_comes_back_with_a_key(lab, tmp_path):
    host, second = _host_and_p2(lab, tmp_path, [*INSURED, "--turn", "1"])
    ben = _person(lab, tmp_path)
    try:
        ben.wait("Away: your bot plays for you. Press any key to play again.", 180, "ben's autopilot")
        seat = _ben_seat(output(second))
        away = f"ben (seat {seat}) is away: their own program plays for them (autopilot)."
        assert wait_for(second, away, 60) and wait_for(host, away, 60), logs(host, second)
        ben.send("x")  # any key
        ben.wait("You are back: you play again.", 60, "ben back")
        back = f"ben (seat {seat}) is back and plays again."
        assert wait_for(second, back, 60) and wait_for(host, back, 60), logs(host, second)
        # the game goes on (ben's countdown sends him away again at his next turns: still played);
        # ben's terminal is read meanwhile (a terminal nobody reads blocks his program's output)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and (host.poll() is None or second.poll() is None):
            ben.pump(0.2)
        codes = wait_all([host, second], timeout=10)
    finally:
        ben.close()
    assert codes == [0, 0], logs(host, second)
    for process in (host, second):
        assert "BLAME" not in output(process) and "stopped answering" not in output(process)
    results = [verdict(tmp_path, i) for i in (1, 2)]
    shown = [(r["kind"], r["fault"], r["taken_over"], r["seat_events"][-6:]) for r in results]
    assert all(r["valid"] and r["finished"] and r["taken_over"] == {} for r in results), shown


def test_issue17_5f_a_wrong_reconstruction_share_is_blamed_with_its_frame(lab, tmp_path):
    # p2 cheats: the tamper module (tests/client/tamper/sitecustomize.py) is on its path only
    cheat = {
        "SKYJO_LAN_TEST_TAMPER": "partials",
        "PYTHONPATH": f"{TAMPER}{os.pathsep}{ROOT}",
    }
    host, second = _host_and_p2(lab, tmp_path, INSURED, cheat)
    third = _joiner(lab, tmp_path, 3, env_for(tmp_path, 3, TIMEOUTS))
    _mid_round(third, host, second)
    cheater, vanished = _seat_of(second), _seat_of(third)
    os.killpg(third.pid, signal.SIGKILL)
    third.wait(timeout=10)
    codes = wait_all([host, second], timeout=300)
    assert "TAMPER: G added to the first partial" in output(second), logs(host, second)
    assert codes[0] is not None and codes[1] is not None, logs(host, second)
    shown = output(host)
    assert f"BLAME seat {cheater} (p2)" in shown, logs(host, second)
    assert "BLAME seat 1" not in shown and f"BLAME seat {vanished}" not in shown, logs(host, second)
    r = verdict(tmp_path, 1)
    assert r["blame"] == cheater - 1, (r["kind"], r.get("fault"), r.get("blame"))


@pytest.mark.parametrize("lab", [4], indirect=True)
def test_issue17_5g_a_spectator_follows_the_vote_and_the_takeover_to_the_players_result(lab, tmp_path):
    # what `watch` runs is a live observer: it times nobody out and waits for the votes' verdict
    host, (second, third) = start_table(lab, tmp_path, GONE, INSURED)
    spectator = lab.python(
        4,
        ["-m", "client", "watch", f"{lab.address(1)}:7777", "--interface", lab.address(4)],
        env_for(tmp_path, 4),
    )
    _mid_round(third, host, second)
    assert wait_for(spectator, "game has started", 90), output(spectator)
    seat = _seat_of(third)
    os.killpg(third.pid, signal.SIGKILL)
    third.wait(timeout=10)
    codes = wait_all([host, second, spectator], timeout=300)
    assert codes == [0, 0, 0], logs(host, second) + output(spectator)[-3000:]
    seen = output(spectator)
    found = TAKEN.search(seen)
    assert found and int(found.group(1)) == seat, seen[-3000:]
    assert "BLAME" not in seen and "did not answer" not in seen, seen[-3000:]
    results = [verdict(tmp_path, i) for i in (1, 2)]
    assert all(r["valid"] and r["finished"] and r["taken_over"] == {str(seat): "vanished"} for r in results)
    names, totals = results[0]["names"], results[0]["totals"]
    told = re.findall(r"^game over: (.+)$", seen, re.MULTILINE)[-1]
    assert told == ", ".join(f"{n} {t}" for n, t in zip(names, totals, strict=True)), seen[-3000:]
