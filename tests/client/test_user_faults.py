"""Issue 26, point 5: smaller faults a user meets.

* a read-only data folder: `join` ends with one clear line, and no traceback (not even with -v);
* a forward clock step of more than a day between a crash and `--resume` keeps the seat: what
  is offered is decided from the saved games, not from the clock;
* a headless evening whose player died waits no longer for ever: the lobby says what it waits
  for, and the host can start with a bot in the free seat (`b`, `--fill-with-bots`)."""

from __future__ import annotations

import os
from pathlib import Path

from client import storage
from client.cli import main
from client.table.saved import ResumeInfo, latest_resumable
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
