"""Issue 26, point 5: smaller faults a user meets.

* a read-only data folder: `join` ends with one clear line, and no traceback (not even with -v);
* a forward clock step of more than a day between a crash and `--resume` keeps the seat: what
  is offered is decided from the saved games, not from the clock;
* a headless evening whose player died waits no longer for ever: the lobby says what it waits
  for, and the host can start with a bot in the free seat (`b`, `--fill-with-bots`)."""

from __future__ import annotations

import os
from pathlib import Path

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client import storage
from client.cli import main
from client.table.host import Host, HostOptions, SeatInfo
from client.table.join import Joiner, JoinOptions, lobby_waits_for
from client.table.saved import ResumeInfo, latest_resumable
from client.ui.lobby import LobbyAction, LobbyUI
from client.ui.network import HostLobby, JoinLobby
from protocol.transcript import dump
from tests.client.test_disk_faults import tmpfs
from tests.protocol.harness import Net


def test_a_read_only_data_folder_ends_join_with_one_line_and_no_traceback(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    with tmpfs(tmp_path / "ro", "64k", read_only=True) as readonly:
        monkeypatch.setenv("XDG_DATA_HOME", str(readonly))
        # -v: every log line also goes to the terminal; the end's traceback stays in the log file
        code = main(["join", "127.0.0.1:9", "--bot", "greedy", "--name", "Zoé", "-v"])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err, err
    told = [line for line in err.splitlines() if "cannot save games in" in line]
    assert len(told) == 1 and told[0].startswith("skyjo-lan join: "), err
    assert "Read-only file system" in told[0]


def _crashed_game(games: Path, name: str, net: Net) -> ResumeInfo:
    """A game this machine was playing when it crashed: its transcript and its .resume file."""
    games.mkdir(parents=True, exist_ok=True)
    transcript = games / f"{name}.skyjo"
    transcript.write_bytes(dump(net.config, net.sessions[0].frames[:5]))
    info = ResumeInfo(transcript, net.config.encode(), 0, "127.0.0.1", 1, [])
    info.save()
    return info


def test_a_clock_step_of_days_between_a_crash_and_resume_keeps_the_seat(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    net = Net("skyjo", 2, {})
    net.start(until=lambda: len(net.sessions[0].frames) >= 5)
    info = _crashed_game(storage.games_dir(), "20261101-200000-skyjo-crashed", net)
    three_days_ago = info.path.stat().st_mtime - 3 * 24 * 3600  # the clock stepped 3 days forward
    for path in (info.path, info.transcript):
        os.utime(path, (three_days_ago, three_days_ago))
    assert latest_resumable() == info


def test_a_game_is_no_longer_offered_to_resume_once_another_is_saved_after_it(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    net = Net("skyjo", 2, {})
    net.start(until=lambda: len(net.sessions[0].frames) >= 5)
    games = storage.games_dir()
    info = _crashed_game(games, "20261101-200000-skyjo-crashed", net)
    stamp = info.transcript.stat().st_mtime
    # the other seats' transcripts of the same game (bots of this machine) do not hide it
    mate = games / "20261101-200001-skyjo-mate.skyjo"
    mate.write_bytes(dump(net.config, net.sessions[1].frames[:5]))
    os.utime(mate, (stamp + 30, stamp + 30))
    assert latest_resumable() == info
    # a game of another table, saved a minute later: the crashed one is over for this machine
    later = games / "20261101-200100-skyjo-later.skyjo"
    later.write_bytes(dump(Net("skyjo", 2, {}).config, []))
    os.utime(later, (stamp + 60, stamp + 60))
    assert latest_resumable() is None


# --- a lobby that waits: it says for what, and the host can give a free seat to a bot ----------


def _host(seats: int, **options) -> tuple[Host, list[str]]:
    lines: list[str] = []
    opts = HostOptions(
        game="skip-bo", seats=seats, advertise=False, interface="127.0.0.1", save=False, **options
    )
    return Host(opts, Ed25519PrivateKey.generate(), lines.append), lines


async def test_every_waiting_lobby_says_what_it_waits_for():
    headless, lines = _host(4, headless="greedy")
    headless.seats += [
        SeatInfo(n, Ed25519PrivateKey.generate().public_key().public_bytes_raw(), "player")
        for n in ("Ben", "Chloé")
    ]
    headless._changed()
    # what the headless evening printed, for ever, was "lobby: 3/4 players (...) + 0 bot(s)"
    assert lines[-1].endswith(
        "; waiting for 1 more player (--fill-with-bots SECONDS would give them to bots)"
    )
    # each joiner's lobby (headless line, screen status) says it too, from what the host sends
    assert lobby_waits_for(headless.lobby_view()).startswith("waiting for 1 more player")
    joiner = Joiner(JoinOptions(target="127.0.0.1:9"), Ed25519PrivateKey.generate(), lambda line: None)
    joiner.lobby, joiner.ready = headless.lobby_view(), True
    assert JoinLobby(joiner).lobby().status == (
        "waiting for 1 more player (the host can give a free seat to a bot)"
    )
    screen, _ = _host(3)
    assert HostLobby(screen).lobby().status == "waiting for 2 more players (b gives a free seat to a bot)"
    timed, lines = _host(3, headless="greedy", fill_after=90)
    timed._changed()
    assert lines[-1].endswith(
        "; waiting for 2 more players (bots take the free seats 90 s after the lobby opened)"
    )


async def test_b_in_the_host_lobby_gives_a_free_seat_to_a_bot_and_a_full_headless_table_starts():
    host, _ = _host(3, headless="greedy")
    host.seats.append(SeatInfo("Ben", Ed25519PrivateKey.generate().public_key().public_bytes_raw(), "player"))
    lobby = HostLobby(host)
    ui = LobbyUI(lobby, "en")
    assert ui.handle_key("b") == [LobbyAction("bot")]
    await lobby.add_bot()
    assert host.opts.bots == 1 and host.free_seats == 0
    assert host.start_now.is_set(), "a full, ready headless table starts"
    view = lobby.lobby()
    assert [s.name for s in view.seats if s.bot] == ["bot 1"] and not any(s.empty for s in view.seats)
    assert host.chat[-1][1] == "(bot 1 takes a free seat)"
    # no free seat left: b does nothing
    assert LobbyUI(lobby, "en").handle_key("b") == []
    assert host.add_bot() == "every seat is taken"


async def test_a_headless_table_with_a_free_seat_starts_with_a_bot_after_fill_with_bots(autojump_clock):
    """The headless evening whose player died waited for ever at "3/4 players"; with
    `--fill-with-bots 120` the lobby gives the free seat to a bot 120 s after it opened."""
    host, lines = _host(2, headless="greedy", fill_after=120)
    started = trio.Event()

    def said(line: str) -> None:
        lines.append(line)
        if line.startswith("game starts:"):
            started.set()

    host.say = said
    async with trio.open_nursery() as nursery:
        nursery.start_soon(host.run)
        with trio.fail_after(600):
            await started.wait()
        opened_for = trio.current_time()
        nursery.cancel_scope.cancel()
    assert opened_for >= 120
    assert any(line == "lobby: 1 seat(s) still free after 120 s: bots take them" for line in lines), lines
    assert lines[-1] == f"game starts: {host.opts.name}, bot 1"
