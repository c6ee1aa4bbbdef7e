"""Discovery and whole games over a private LAN of network namespaces (issue: play over a real LAN).

Each test makes its own namespaces joined by a bridge (nothing touches a real interface), starts
`skyjo-lan host --bot greedy` in one and `skyjo-lan join --bot greedy` in others; they find each
other by mDNS and play a whole game. Skipped, with the reason, where namespaces cannot be made.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from protocol.config import PROTOCOL_VERSION
from tests.client.netlab import NetLab, env_for, open_lab, output, wait_all
from tests.client.saved_games import verify_json

GAMES = [
    ("skyjo", ["--option", "target_score=40"]),
    ("skyjo-action", ["--option", "target_score=40"]),
    ("skip-bo", ["--option", "single_round=true", "--option", "stock_size=5"]),
]


@pytest.fixture
def lab(request):
    yield from open_lab(request, base=70)


def client(*args: str) -> list[str]:
    return ["-m", "client", *args]


def transcripts(tmp_path: Path, i: int) -> list[Path]:
    return sorted((tmp_path / f"data{i}" / "skyjo-lan" / "games").glob("*.skyjo"))


def listed(lab: NetLab, tmp_path: Path, i: int, *names: str, tries: int = 10) -> list[dict]:
    """Run `discover --json` in host i until every table in `names` is listed (bounded); the last
    listing. A table is announced some time after its process starts, longer on a loaded
    machine: the tests wait for the announcement itself, never for a fixed delay."""
    tables: list[dict] = []
    for _ in range(tries):
        probe = lab.python(
            i,
            client("discover", "--json", "--seconds", "3", "--interface", lab.address(i)),
            env_for(tmp_path, i),
        )
        assert wait_all([probe], 60) == [0], output(probe)
        lines = output(probe).strip().splitlines()
        tables = json.loads(lines[-1]) if lines else []
        if set(names) <= {t["name"] for t in tables}:
            return tables
    return tables


def verify(path: Path) -> dict:
    code, result = verify_json(path)
    assert code == 0, result
    return result


@pytest.mark.parametrize(("game", "options"), GAMES, ids=[g for g, _ in GAMES])
def test_three_peers_find_each_other_by_mdns_and_finish_a_game(lab, tmp_path, game, options):
    host = lab.python(
        1,
        client(
            "host",
            "--game",
            game,
            "--seats",
            "3",
            "--bot",
            "greedy",
            "--name",
            "Kitchen table",
            "--interface",
            lab.address(1),
            "--nick",
            "ana",
            *options,
        ),
        env_for(tmp_path, 1),
    )
    # `join NAME` browses for a few seconds once: join when the table is announced
    assert any(t["name"] == "Kitchen table" for t in listed(lab, tmp_path, 2, "Kitchen table")), output(host)
    joiners = [
        lab.python(
            i,
            client(
                "join", "Kitchen table", "--bot", "greedy", "--interface", lab.address(i), "--nick", f"p{i}"
            ),
            env_for(tmp_path, i),
        )
        for i in (2, 3)
    ]
    codes = wait_all([host, *joiners], timeout=300)
    logs = "\n".join(
        f"--- host {i} ---\n{output(p)[-3000:]}" for i, p in enumerate([host, *joiners], start=1)
    )
    assert codes == [0, 0, 0], logs
    for process in [host, *joiners]:
        assert "game over" in output(process), logs
    assert "joining 'Kitchen table'" in output(joiners[0])
    results = [verify(transcripts(tmp_path, i)[-1]) for i in (1, 2, 3)]
    assert all(r["valid"] and r["finished"] for r in results)
    assert (
        len({json.dumps((r["totals"], r["winners"])) for r in results}) == 1
    )  # every peer saw the same game


def test_avahi_sees_the_table_and_foreign_services_are_flagged(lab, tmp_path):
    if shutil.which("avahi-daemon") is None:
        pytest.skip("avahi-daemon is not installed (Debian: avahi-daemon avahi-utils)")
    browse_env = lab.avahi(2)
    publish_env = lab.avahi(3)
    host = lab.python(
        1,
        client(
            "host", "--seats", "3", "--bot", "greedy", "--name", "Avahi check", "--interface", lab.address(1)
        ),
        env_for(tmp_path, 1),
    )
    # a foreign service of our type with a malformed TXT record, published by avahi
    foreign = lab.run(
        3,
        ["avahi-publish", "-s", "Not ours", "_skyjo-lan._tcp", "4242", "v=99", "seats=lots"],
        env=publish_env,
    )
    # browse until both services are resolved (bounded): each is announced once its process
    # has started, which takes longer on a loaded machine
    for _ in range(20):
        seen = subprocess.run(
            ["ip", "netns", "exec", lab.ns(2), "avahi-browse", "-t", "-r", "-p", "_skyjo-lan._tcp"],
            capture_output=True,
            text=True,
            timeout=30,
            env={**browse_env, "PATH": "/usr/bin:/bin"},
        )
        lines = [line for line in seen.stdout.splitlines() if line.startswith("=")]
        ours = [line for line in lines if "Avahi\\032check" in line]
        if ours and any("Not\\032ours" in line for line in lines):
            break
        time.sleep(0.5)
    assert ours, seen.stdout + seen.stderr + output(host)
    fields = ours[0].split(";")
    assert fields[7] == lab.address(1)
    txt = fields[9]
    assert f'"v={PROTOCOL_VERSION}"' in txt and '"game=skyjo"' in txt
    assert '"seats=1/3"' in txt and '"pw=0"' in txt
    # our own discover lists the foreign service as incompatible, and join skips it
    tables = listed(lab, tmp_path, 2, "Avahi check", "Not ours")
    by_name = {t["name"]: t for t in tables}
    assert by_name["Avahi check"]["compatible"] and by_name["Avahi check"]["seats"] == "1/3"
    assert by_name["Not ours"]["compatible"] is False and "version" in by_name["Not ours"]["problem"]
    foreign.kill()
    host.kill()
