"""Play again (issue 18) over a private LAN of network namespaces (nothing touches a real
interface): a headless host opens a table of two for `--games 2`; ben (namespace 2) plays game 1
and leaves; the table's lobby is announced again by mDNS, a newcomer (namespace 3) finds it by
its name and takes the free seat for game 2. Every program ends normally, each game is its own
session, and every transcript verifies.

The test waits on the programs' own lines and on the announcement itself (bounded), never on a
fixed delay: the newcomer starts only once game 1 is over and the table is listed again."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol.transcript import load
from tests.client.netlab import NetLab, env_for, open_lab, output, wait_all
from tests.client.test_lan_faults import wait_for
from tests.client.test_lan_mdns import client, listed, transcripts, verify

TABLE = "Kitchen table"


@pytest.fixture
def lab(request):
    yield from open_lab(request, base=20)  # 20-69: a range no other netns test file uses


def announced(lab: NetLab, tmp_path: Path, i: int) -> bool:
    """Whether `discover` in namespace i lists the table (tried a bounded number of times)."""
    return any(t["name"] == TABLE for t in listed(lab, tmp_path, i, TABLE, tries=15))


def test_a_player_leaves_after_game_1_and_a_newcomer_found_by_mdns_plays_game_2(lab, tmp_path):
    host = lab.python(
        1,
        client(
            "host",
            "--seats",
            "2",
            "--bot",
            "greedy",
            "--table",
            TABLE,
            "--interface",
            lab.address(1),
            "--name",
            "ana",
            "--games",
            "2",
            "--option",
            "target_score=30",
        ),
        env_for(tmp_path, 1),
    )
    processes = [host]
    try:
        assert announced(lab, tmp_path, 2), output(host)
        ben = lab.python(
            2,
            client("join", TABLE, "--bot", "greedy", "--interface", lab.address(2), "--name", "ben"),
            env_for(tmp_path, 2),
        )
        processes.append(ben)
        # ben plays one game (the default without a screen) and leaves the table
        assert wait_all([ben], 300) == [0], output(ben) + output(host)
        assert wait_for(host, "game 1 over", 120), output(host)
        # the lobby of game 2 is announced again: the newcomer finds it by its name
        assert announced(lab, tmp_path, 3), output(host)
        cy = lab.python(
            3,
            client("join", TABLE, "--bot", "greedy", "--interface", lab.address(3), "--name", "cy"),
            env_for(tmp_path, 3),
        )
        processes.append(cy)
        assert wait_all([cy, host], 300) == [0, 0], output(cy) + output(host)
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
    assert f"joining '{TABLE}'" in output(cy)
    hosted = transcripts(tmp_path, 1)
    assert len(hosted) == 2, hosted
    sessions = {load(p.read_bytes())[0].session_id: p for p in hosted}
    assert len(sessions) == 2  # two games, two sessions
    for i, name in ((2, "ben"), (3, "cy")):
        (own,) = transcripts(tmp_path, i)
        config = load(own.read_bytes())[0]
        assert config.session_id in sessions and config.names == ("ana", name)
        mine, theirs = verify(own), verify(sessions[config.session_id])
        assert mine["valid"] and mine["finished"] and theirs["valid"] and theirs["finished"]
        assert (mine["totals"], mine["winners"]) == (theirs["totals"], theirs["winners"])
    assert "evening after 2 games:" in output(host)
    evening = output(host).split("evening after 2 games:")[1]
    assert "ana [" in evening and ": 2 played" in evening and "ben [" in evening and "cy [" in evening
