"""`host` and `join` with the terminal UI, over loopback: both lobby screens, then the game."""

from __future__ import annotations

import socket
from pathlib import Path

from .pty_driver import Pty


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_host_and_join_screens_lobby_then_game(tmp_path: Path) -> None:
    port = free_port()
    host = Pty(
        [
            "host",
            "--seats",
            "3",
            "--bots",
            "1",
            "--no-mdns",
            "--interface",
            "127.0.0.1",
            "--port",
            str(port),
            "--name",
            "Kitchen table",
            "--nick",
            "ana",
            "--lang",
            "en",
        ],
        tmp_path / "host",
    )
    guest = None
    try:
        host.wait("Kitchen table", 30, "the host's lobby")
        guest = Pty(["join", f"127.0.0.1:{port}", "--nick", "ben", "--lang", "en"], tmp_path / "guest")
        lobby = guest.wait(
            lambda t: "Kitchen table" in t and "ana" in t and "ben" in t, 30, "the guest's lobby"
        )
        assert "bot 1" in lobby
        host.wait("ben", 20, "the guest seated in the host's lobby")
        host.send("s")  # start
        for screen in (host, guest):
            text = screen.wait("cards face up", 60, "the game's setup prompt")
            assert "SKYJO" in text
    finally:
        host.close()
        if guest is not None:
            guest.close()
