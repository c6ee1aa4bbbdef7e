"""Issue 28, points 6 and 8, on a private LAN of network namespaces (nothing touches a real
interface; skipped where namespaces cannot be made). Every wait is bounded and waits for what
the programs say or announce.

The host opens "Kitchen" for three; one player joins: `discover` elsewhere says 2/3 seated (it
said 1/3 until the game). A second player joins as `join kitchen` (the capitals do not matter);
`join Kitchn` says "did you mean 'Kitchen'?" and lists the table. Once the game runs, the table
is still announced, as playing, and `watch Kitchen` finds it by name.
"""

from __future__ import annotations

import pytest

from tests.client.netlab import NetLab, env_for, open_lab, output, wait_all
from tests.client.test_lan_mdns import client, listed

TABLE = "Kitchen"


@pytest.fixture
def lab(request):
    yield from open_lab(request, base=150)


def table_in(lab: NetLab, tmp_path, i: int, check, tries: int = 15) -> dict:
    """`discover --json` in host i until the table's entry passes `check` (bounded); the last."""
    entry: dict = {}
    for _ in range(tries):
        found = [t for t in listed(lab, tmp_path, i, TABLE) if t["name"] == TABLE]
        entry = found[0] if found else {}
        if entry and check(entry):
            return entry
    return entry


@pytest.mark.parametrize("lab", [4], indirect=True)
def test_seat_counts_names_and_watching_a_game_by_name(lab, tmp_path):
    def join(i: int, name: str, *extra: str):
        return lab.python(
            i,
            client("join", name, "--bot", "greedy", "--interface", lab.address(i), "--nick", f"p{i}", *extra),
            env_for(tmp_path, i),
        )

    host = lab.python(
        1,
        client(
            *("host", "--seats", "3", "--bot", "greedy", "--table", TABLE, "--nick", "ana"),
            *("--interface", lab.address(1), "--option", "target_score=60"),
        ),
        env_for(tmp_path, 1),
    )
    assert table_in(lab, tmp_path, 4, lambda t: t["seats"] == "1/3"), output(host)
    first = join(2, TABLE, "--think-time", "1")  # slow: the game lasts while it is watched
    seen = table_in(lab, tmp_path, 4, lambda t: t["seats"] == "2/3")
    assert seen.get("seats") == "2/3", (seen, output(first))  # not a stale "1/3"
    assert seen["playing"] is False

    typo = join(4, "Kitchn")
    assert wait_all([typo], 60) != [0]
    said = output(typo)
    assert "did you mean 'Kitchen'?" in said and "tables seen: 'Kitchen' (skyjo, 2/3 seated)" in said, said

    second = join(3, "kitchen")  # the capitals do not matter
    playing = table_in(lab, tmp_path, 4, lambda t: t["playing"])
    assert playing.get("playing") is True, (playing, output(host), output(second))
    spectator = lab.python(4, client("watch", TABLE, "--interface", lab.address(4)), env_for(tmp_path, 4))
    for _ in range(600):  # bounded: 60 s
        if "the game has started" in output(spectator) or spectator.poll() is not None:
            break
        wait_all([spectator], 0.1)
    assert "watching 'Kitchen'" in output(spectator), output(spectator)
    assert "the game has started" in output(spectator), output(spectator)
    assert "joining 'Kitchen'" in output(second), output(second)
    for process in (spectator, first, second, host):
        process.kill()
