"""Issue 18, point 2, on a private LAN of network namespaces: `skyjo-lan watch TABLENAME` finds the
table by mDNS inside the namespaces and follows its game to the end.

Host 1 opens the table (a bot plays its seat), host 4 watches it by name from the lobby on, hosts
2 and 3 join; the spectator ends with 0 and the players' result, and the players' saved games
verify with the same result. Nothing touches a real interface; skipped where namespaces cannot
be made. Every wait is bounded and waits for what the programs say.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.client.netlab import env_for, open_lab, output, wait_all
from tests.client.test_lan_mdns import client, listed, transcripts, verify

TABLE = "Kitchen table"
RESULT = re.compile(r"^game over: (.+)$", re.MULTILINE)


@pytest.fixture
def lab(request):
    yield from open_lab(request, base=200)


@pytest.mark.parametrize("lab", [4], indirect=True)
def test_watch_finds_the_table_by_name_and_follows_the_game_to_the_end(lab, tmp_path):
    host = lab.python(
        1,
        client(
            "host",
            "--seats",
            "3",
            "--bot",
            "greedy",
            "--table",
            TABLE,
            "--interface",
            lab.address(1),
            "--nick",
            "ana",
            "--option",
            "target_score=40",
        ),
        env_for(tmp_path, 1),
    )
    assert any(t["name"] == TABLE for t in listed(lab, tmp_path, 4, TABLE)), output(host)
    spectator = lab.python(4, client("watch", TABLE, "--interface", lab.address(4)), env_for(tmp_path, 4))
    for _ in range(600):  # counted in the lobby before anyone joins (bounded: 60 s)
        if "watching 'Kitchen table'" in output(spectator) or spectator.poll() is not None:
            break
        wait_all([spectator], 0.1)
    assert "watching 'Kitchen table'" in output(spectator), output(spectator)
    joiners = [
        lab.python(
            i,
            client("join", TABLE, "--bot", "greedy", "--interface", lab.address(i), "--nick", f"p{i}"),
            env_for(tmp_path, i),
        )
        for i in (2, 3)
    ]
    codes = wait_all([host, *joiners, spectator], timeout=300)
    logs = "\n".join(
        f"--- {who} ---\n{output(p)[-3000:]}"
        for who, p in zip(("host", "p2", "p3", "spectator"), [host, *joiners, spectator], strict=True)
    )
    assert codes == [0, 0, 0, 0], logs
    seen = output(spectator)
    assert "the game has started: ana, " in seen and "winner: " in seen, logs
    results = [verify(transcripts(tmp_path, i)[-1]) for i in (1, 2, 3)]
    assert all(r["valid"] and r["finished"] for r in results)
    assert len({json.dumps((r["totals"], r["winners"])) for r in results}) == 1
    names, totals = results[0]["names"], results[0]["totals"]
    told = RESULT.findall(seen)[-1]  # the spectator's own last line: "ana 12, p2 30, ..."
    assert told == ", ".join(f"{n} {t}" for n, t in zip(names, totals, strict=True)), logs
    assert not list((tmp_path / "data4").glob("**/*.skyjo")), "a spectator saves no game of its own"
