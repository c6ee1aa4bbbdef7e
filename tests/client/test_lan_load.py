"""Consecutive games on loopback in one process: no error, no leaked connection or file.

The long run (8 peers, 50 games) is `python benchmarks/lan.py load`; this is its short form."""

from __future__ import annotations

import gc
import os

import pytest
import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.table.host import Host, HostOptions


@pytest.fixture(autouse=True)
def private_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


async def one_game() -> bool:
    opts = HostOptions(
        game="skyjo",
        options={"target_score": 1},
        seats=3,
        bots=2,
        headless="greedy",
        advertise=False,
        interface="127.0.0.1",
        save=True,
    )
    host = Host(opts, Ed25519PrivateKey.generate(), lambda line: None)
    with trio.fail_after(120):
        runner = await host.run()
    return runner is not None and runner.status.finished and not runner.status.halted


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc to count descriptors")
def test_consecutive_games_leak_nothing():
    results, fds = [], []
    for _ in range(3):
        results.append(trio.run(one_game))
        gc.collect()
        fds.append(open_fds())
    assert results == [True, True, True]
    assert fds[2] <= fds[0], f"open descriptors grew: {fds}"
