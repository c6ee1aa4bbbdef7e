"""Issue 30.4: `skyjo-lan --help` lists the commands in the order a player needs them (the
developers' last), and `play`, `host` and `join --help` show their defaults."""

from __future__ import annotations

import pytest

from client.cli import main

ORDER = [
    "play", "host", "join", "watch", "discover", "history", "ranking", "verify", "replay",
    "scenario", "simulate", "tournament",
]  # fmt: skip


def _help(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as done:
        main([*argv, "--help"])
    assert done.value.code == 0
    return capsys.readouterr().out


def test_the_commands_come_in_the_order_a_player_needs_them(capsys) -> None:
    out = _help([], capsys)
    listed = [line.split()[0] for line in out.splitlines() if line[:4] == "    " and line[4:5].isalpha()]
    assert [name for name in listed if name in ORDER] == ORDER, out


def test_play_host_and_join_show_their_defaults(capsys) -> None:
    play = " ".join(_help(["play"], capsys).split())
    assert "the game (default: skyjo)" in play and "(default: 3)" in play and "(default: greedy)" in play
    host = " ".join(_help(["host"], capsys).split())
    assert "bot peers this machine adds (default: 0)" in host and "(default: 4)" in host
    assert "(default: None)" not in host and "(default: False)" not in host
    join = " ".join(_help(["join"], capsys).split())
    assert "(default: None)" not in join and "default 28700-28899" in join
