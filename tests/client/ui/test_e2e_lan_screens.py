"""`host` and `join` with the terminal UI, over loopback: both lobby screens, then the game."""

from __future__ import annotations

from pathlib import Path

from .pty_driver import Pty, lobby_address, loopback_host


def test_host_and_join_screens_lobby_then_game(tmp_path: Path) -> None:
    host = loopback_host(tmp_path / "host", "--seats", "3", "--bots", "1")
    guest = None
    try:
        _, port = lobby_address(host)  # the port the system chose, as the lobby shows it
        guest = Pty(["join", f"127.0.0.1:{port}", "--nick", "ben", "--lang", "en"], tmp_path / "guest")
        lobby = guest.wait(
            lambda t: "Kitchen table" in t and "ana" in t and "ben" in t, 30, "the guest's lobby"
        )
        assert "bot 1" in lobby
        host.wait("ben", 30, "the guest seated in the host's lobby")
        # a person says they are ready with `r` (issue 15): until then the host cannot start
        host.wait("waiting for ben to be ready", 30, "the host waiting for ben")
        guest.send("r")
        host.wait("s starts the game", 30, "ben ready in the host's lobby")
        host.send("s")  # start
        for screen in (host, guest):
            text = screen.wait("cards face up", 120, "the game's setup prompt")
            assert "SKYJO" in text
    finally:
        host.close()
        if guest is not None:
            guest.close()
