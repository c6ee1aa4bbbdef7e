"""Issue 26, point 5: a headless evening whose player dies does not wait for ever in the next lobby.

Three programs on loopback (127.0.0.1, no mDNS), each its own process and home: a headless host
(`host --games 3 --fill-with-bots`) and two headless joiners, games of one round (SKYJO with a
target score of 1). Once game 2 is under way, one joiner is killed (SIGKILL): the table plays its
seat to the end of game 2, the next lobby says what it waits for (the host's line and the other
joiner's), a bot takes the free seat, and game 3 is played to its end. Every saved game verifies.

Every wait is bounded and waits for what the programs print, never for a delay. The one number
that is a time is `FILL`: the lobby of game 1 must be full before the bots come (two programs
started at once have `FILL` seconds to dial a lobby that is already open)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.table.host import Host, HostOptions
from client.table.join import lobby_waits_for
from protocol.verify import verify_bytes
from tests.client.test_again_loopback import lobby_port, start, text

FILL = 30
"""Seconds after a lobby opens when its free seats go to bots (`--fill-with-bots`): the two
joiners start when the host's lobby is open and only need to start up and dial (1-3 s here, about
10 s on a loaded 2-core machine), so a third of a minute is ample; every other wait of the test
waits for what the programs print."""

MOVES = {"SKYJO_LAN_MOVE_TIMEOUT": "8", "SKYJO_LAN_CATCH_UP_WAIT": "5"}
"""The killed player's seat is noticed at the next protocol step, or, when it was killed on its
own turn, once its move is late: 8 s here (the table's default, 300 s for a person without a
countdown, made the test take 50 s or 105 s depending on whose turn it was). After game 2 the
others wait for the killed program (it vanished lately: `Mesh._wait_for_returning`) 5 s, not a
minute from its loss."""

LIMIT = 240.0
"""Bound of each wait: a few one-round games on a loaded machine end well within."""


def wait_for(process: subprocess.Popen[bytes], pattern: str, count: int = 1, after: str = "") -> str:
    """The program's output (from the first `after` on) once `pattern` (a regular expression, per
    line) is in it `count` times; bounded by `LIMIT`."""
    deadline = time.monotonic() + LIMIT
    while time.monotonic() < deadline:
        said = text(process)
        part = said.partition(after)[2] if after else said
        if (not after or after in said) and len(re.findall(pattern, part, re.MULTILINE)) >= count:
            return part
        assert process.poll() is None, f"ended before {pattern!r}:\n{said}"
        time.sleep(0.1)
    raise AssertionError(f"no {pattern!r} after {LIMIT} s:\n{text(process)}")


MOVE = r"^(ann|ben|cat): (draw|flip|replace|discard)"


def test_a_player_killed_in_game_2_leaves_a_bot_in_the_next_lobby(tmp_path: Path) -> None:
    common = ["--bot", "greedy", "--interface", "127.0.0.1", "--games", "3"]
    host = start(
        tmp_path,
        "host",
        [
            *("host", "--no-mdns", "--seats", "3", "--option", "target_score=1", "--table", "evening"),
            *("--nick", "ann", "--fill-with-bots", str(FILL), "--grace", "2", *common),
        ],
        extra=MOVES,
    )
    joiners: list[subprocess.Popen[bytes]] = []
    try:
        port = lobby_port(host)
        ben, cat = (
            start(tmp_path, who, ["join", f"127.0.0.1:{port}", "--nick", who, *common], extra=MOVES)
            for who in ("ben", "cat")
        )
        joiners += [ben, cat]
        said = wait_for(host, r"^game starts: ")
        assert "bots take them" not in said, f"the joiners took more than {FILL} s to dial:\n{said}"
        # game 2 is under way (a move of it is played): its keys are agreed, so the table can
        # play a seat that vanishes
        wait_for(cat, MOVE, after="game 1 over")
        os.kill(cat.pid, signal.SIGKILL)
        cat.wait(timeout=30)

        # the lobby of game 3 says what it waits for, then a bot takes the free seat
        lobby = wait_for(
            host,
            rf"^lobby: 2/3 players .*; waiting for 1 more player \(bots take the free seats {FILL} s after "
            r"the lobby opened\)$",
            after="lobby open for game 3",
        )
        assert "(bot 1 takes a free seat)" not in lobby
        wait_for(host, rf"^lobby: 1 seat\(s\) still free after {FILL} s: bots take them$", after="game 3")
        wait_for(host, r"^game starts: ann, .*bot 1", after="lobby open for game 3")
        # the other player's lobby said it too
        wait_for(
            ben, r"^lobby: .*; waiting for 1 more player \(bots take the free seats", after="game 2 over"
        )

        assert host.wait(LIMIT) == 0, text(host)
        assert ben.wait(LIMIT) == 0, text(ben)
    finally:
        for process in (*joiners, host):
            process.kill()
            process.wait(timeout=30)
    assert "evening after 3 games" in text(host), text(host)
    files = sorted((tmp_path / "data-host" / "skyjo-lan" / "games").glob("*.skyjo"))
    assert len(files) == 3, files
    verdicts = [verify_bytes(path.read_bytes()) for path in files]
    assert all(v.kind == "finished" for v in verdicts), [(v.kind, v.fault, v.stops_at) for v in verdicts]
    assert verdicts[1].taken_over, "the table played the killed player's seat in game 2"
    assert "bot 1" in verdicts[2].names


def test_a_joiners_lobby_says_when_the_bots_come() -> None:
    """In process: the joiners of a `--fill-with-bots` table are told when their free seats go to
    bots (they read "the host can give a free seat to a bot", and waited without knowing)."""
    opts = HostOptions(
        game="skyjo",
        seats=3,
        advertise=False,
        interface="127.0.0.1",
        save=False,
        headless="greedy",
        fill_after=45,
    )
    host = Host(opts, Ed25519PrivateKey.generate(), lambda line: None)
    assert lobby_waits_for(host.lobby_view()) == (
        "waiting for 2 more players (bots take the free seats 45 s after the lobby opened)"
    )
    opts.fill_after = None
    assert lobby_waits_for(host.lobby_view()) == (
        "waiting for 2 more players (the host can give a free seat to a bot)"
    )
