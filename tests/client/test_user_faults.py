"""Issue 26, point 5: smaller faults a user meets.

* a read-only data folder: `join` ends with one clear line, and no traceback (not even with -v);
* a forward clock step of more than a day between a crash and `--resume` keeps the seat: what
  is offered is decided from the saved games, not from the clock;
* a headless evening whose player died waits no longer for ever: the lobby says what it waits
  for, and the host can start with a bot in the free seat (`b`, `--fill-with-bots`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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
