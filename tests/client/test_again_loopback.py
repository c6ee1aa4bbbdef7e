"""Play again (issue 18) on loopback (127.0.0.1), without mDNS.

* Two headless programs (`host --bot` and `join --bot`, each its own process, home and identity)
  play `--games 2`: two games, each its own session (new genesis, new session id), saved in its
  own transcript by each program, every transcript verifies on its own, and the scores of the
  evening each program prints agree with what the verified transcripts say.
* In process, for the three games: the same, and a host that plays one game (the default) while
  its joiner wants two: the joiner ends after the first, with that game counted.

The tests wait on the programs' own ends and lines, never on a delay: which program finishes a
game first does not matter (a player done with a game is seated for the next while the others
finish)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.net import link as link_module
from client.storage import fingerprint
from client.table.host import Host, HostOptions
from client.table.join import Joiner, JoinOptions
from protocol.transcript import load
from protocol.verify import verify_bytes

LIMIT = 300  # seconds: two short games on a loaded machine end well within
ROW = re.compile(r"^  (\S+) \[([a-z2-7-]+)\]: (\d+) played, (\d+) won, total (-?\d+), average (-?[\d.]+)$")


@pytest.fixture(autouse=True)
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(link_module, "HANDSHAKE_TIMEOUT", 10.0)


def start(
    tmp_path: Path, who: str, argv: list[str], log_as: str = "", extra: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """`python -m client ARGV` with its own home, output in `tmp_path/WHO.out` (or LOG_AS.out),
    `extra` added to its environment."""
    log = open(tmp_path / f"{log_as or who}.out", "wb")  # noqa: SIM115 (closed with the process)
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        "XDG_CONFIG_HOME": str(tmp_path / f"config-{who}"),
        "XDG_DATA_HOME": str(tmp_path / f"data-{who}"),
        "XDG_STATE_HOME": str(tmp_path / f"state-{who}"),
        "PYTHONUNBUFFERED": "1",
        **(extra or {}),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "client", *argv],
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    process.log_path = log.name  # type: ignore[attr-defined]
    return process


def text(process: subprocess.Popen[bytes]) -> str:
    return Path(process.log_path).read_text(errors="replace")  # type: ignore[attr-defined]


def lobby_port(process: subprocess.Popen[bytes]) -> int:
    """The port of the host's lobby, from its own line (bounded wait, on the program's output)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = re.search(r" open on 127\.0\.0\.1:(\d+)", text(process))
        if found:
            return int(found.group(1))
        assert process.poll() is None, text(process)
        time.sleep(0.1)
    raise AssertionError(text(process))


def last_evening(output: str) -> dict[str, tuple[str, int, int, int]]:
    """The last "evening after N games" block a program printed: fingerprint -> its row."""
    blocks = output.split("evening after ")
    assert len(blocks) > 1, output
    rows = {}
    for line in blocks[-1].splitlines()[1:]:
        if (row := ROW.match(line)) is None:
            break
        name, fp, played, won, total, _ = row.groups()
        rows[fp] = (name, int(played), int(won), int(total))
    return rows


def test_two_headless_programs_play_two_games(tmp_path: Path) -> None:
    common = ["--bot", "greedy", "--interface", "127.0.0.1", "--games", "2"]
    host = start(
        tmp_path,
        "host",
        ["host", "--no-mdns", "--seats", "2", "--option", "target_score=10", "--name", "ann", *common],
    )
    try:
        port = lobby_port(host)
        joiner = start(tmp_path, "join", ["join", f"127.0.0.1:{port}", "--name", "ben", *common])
        try:
            assert joiner.wait(LIMIT) == 0, text(joiner)
            assert host.wait(LIMIT) == 0, text(host)
        finally:
            joiner.kill()
    finally:
        host.kill()
    sessions: dict[str, list[dict[str, Any]]] = {}
    for who in ("host", "join"):
        files = sorted((tmp_path / f"data-{who}" / "skyjo-lan" / "games").glob("*.skyjo"))
        assert len(files) == 2, (files, text(host), text(joiner))  # one transcript per game
        for path in files:
            data = path.read_bytes()
            verdict = verify_bytes(data)  # each verifies on its own
            assert verdict.valid and verdict.finished, (path, verdict.fault)
            facts = json.loads(json.dumps(verdict.as_dict(), default=str))
            facts["sid"] = load(data)[0].session_id.hex()
            facts["ids"] = [fingerprint(k) for k in load(data)[0].identities]
            sessions.setdefault(facts["sid"], []).append(facts)
    assert len(sessions) == 2  # two sessions, each saved by both programs
    assert all(len(copies) == 2 for copies in sessions.values())
    # the scores of the evening, as each program printed them, are the verified games' sums
    expected: dict[str, tuple[str, int, int, int]] = {}
    for copies in sessions.values():
        game = copies[0]
        for seat, fp in enumerate(game["ids"]):
            name, played, won, total = expected.get(fp, (game["names"][seat], 0, 0, 0))
            expected[fp] = (name, played + 1, won + (seat in game["winners"]), total + game["totals"][seat])
    assert last_evening(text(host)) == expected, text(host)
    assert last_evening(text(joiner)) == expected, text(joiner)
    assert "evening after 2 games" in text(joiner)


async def evening(
    game: str, options: dict[str, Any], host_games: int, join_games: int, bots: int = 0
) -> tuple[Host, Joiner, list[str], list[str]]:
    """A headless host (saving its games) and a headless joiner (not saving: both programs share
    this process's home) at one table, until both have ended."""
    host_lines: list[str] = []
    join_lines: list[str] = []
    opts = HostOptions(
        game=game,
        options=options,
        table="again",
        seats=2 + bots,
        bots=bots,
        headless="greedy",
        advertise=False,
        interface="127.0.0.1",
        name="ann",
        games=host_games,
    )
    host = Host(opts, Ed25519PrivateKey.generate(), host_lines.append)
    with trio.fail_after(LIMIT):
        async with trio.open_nursery() as nursery:
            port = await nursery.start(host.run)
            joiner = Joiner(
                JoinOptions(
                    target=f"127.0.0.1:{port}",
                    name="ben",
                    headless="greedy",
                    interface="127.0.0.1",
                    games=join_games,
                    save=False,
                ),
                Ed25519PrivateKey.generate(),
                join_lines.append,
            )
            nursery.start_soon(joiner.run_games)
    return host, joiner, host_lines, join_lines


def games_saved(home: Path) -> list[Path]:
    return sorted((home / "data" / "skyjo-lan" / "games").glob("*.skyjo"))


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("skyjo", {"target_score": 10}),
        ("skip-bo", {"stock_size": 5, "single_round": True}),
        ("skyjo-action", {"target_score": 10}),
    ],
)
async def test_two_games_in_process_each_its_own_session(
    game: str, options: dict[str, Any], tmp_path: Path
) -> None:
    host, joiner, host_lines, join_lines = await evening(game, options, 2, 2)
    assert host.begun == 2 and joiner.played == 2, (host_lines, join_lines)
    sessions = [r.session for r in host.evening.results]
    assert len(set(sessions)) == 2
    assert [r.session for r in joiner.evening.results] == sessions
    files = games_saved(tmp_path)
    assert len(files) == 2, files
    for path in files:
        data = path.read_bytes()
        assert verify_bytes(data).valid, path
    assert sorted(load(p.read_bytes())[0].session_id for p in files) == sorted(sessions)
    ann = fingerprint(host.identity.public_key().public_bytes_raw())
    ben = fingerprint(joiner.identity.public_key().public_bytes_raw())
    rows = {row.fingerprint: row for row in host.evening.rows()}
    assert set(rows) == {ann, ben}
    assert joiner.evening.rows() == host.evening.rows()
    for seat, (fp, name) in enumerate(((ann, "ann"), (ben, "ben"))):
        row = rows[fp]
        assert row.name == name and row.played == 2
        assert row.total == sum(r.totals[seat] for r in host.evening.results)
        assert row.wins == sum(seat in r.winners for r in host.evening.results)
    assert any("game 1 over" in line for line in host_lines), host_lines


async def test_the_host_plays_one_game_by_default_and_its_joiner_then_ends(tmp_path: Path) -> None:
    """A joiner asking for two games at a table that plays one ends after it (refused, or the
    table gone: either way), with that game counted."""
    host, joiner, _, join_lines = await evening("skyjo", {"target_score": 10}, 1, 2)
    assert host.begun == 1 and len(host.evening.results) == 1
    assert joiner.played == 1 and len(joiner.evening.results) == 1
    assert any("no other game" in line for line in join_lines), join_lines


async def test_the_hosts_bot_is_one_player_of_the_evening(tmp_path: Path) -> None:
    """The host's bot keeps its identity from one game to the next (each game still has its own
    session and key shares): the evening counts it once, with both games."""
    host, _, host_lines, _ = await evening("skyjo", {"target_score": 10}, 2, 2, bots=1)
    assert host.begun == 2, host_lines
    rows = host.evening.rows()
    assert len(rows) == 3 and all(row.played == 2 for row in rows), rows
    configs = [load(p.read_bytes())[0] for p in games_saved(tmp_path)]
    assert len({c.session_id for c in configs}) == 2
    assert len({c.identities[2] for c in configs}) == 1, "the bot's identity is the same in both games"
