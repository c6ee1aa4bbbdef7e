"""`skyjo-lan watch HOST:PORT` in a terminal (issue 18, point 2), over loopback.

A spectator connects to a host's lobby: the host's lobby, then its game screen, say "1 watching";
the spectator's screen shows the table read-only under "watching Kitchen table (2 players)":
no prompt of its own, `t` (chat) says it only watches, `q` quits at once with status 0.
"""

from __future__ import annotations

from pathlib import Path

from .pty_driver import Pty, lobby_address, loopback_host


def test_watch_shows_the_table_and_the_players_see_one_watching(tmp_path: Path) -> None:
    host = loopback_host(tmp_path / "host", "--seats", "2", "--bots", "1")
    spectator = None
    try:
        _, port = lobby_address(host)
        spectator = Pty(["watch", f"127.0.0.1:{port}", "--lang", "en"], tmp_path / "spectator")
        spectator.wait("Waiting for the game to start", 30, "the spectator waiting for the start")
        host.wait("1 watching", 30, "the spectator counted in the host's lobby")
        host.send("s")  # start
        text = host.wait(lambda t: "cards face up" in t and "1 watching" in t, 120, "the host's game")
        assert "SKYJO" in text
        seen = spectator.wait(
            lambda t: "watching Kitchen table (2 players)" in t and "ana" in t and "bot 1" in t,
            120,
            "the spectator's game screen",
        )
        assert "cards face up" not in seen, "a spectator is asked nothing"
        assert "t chat" not in seen and "q quit" in seen
        spectator.send("t")
        spectator.wait("You are watching: no moves, no chat.", 30, "chat refused to a spectator")
        spectator.send("q")
        assert spectator.finish(30) == 0
        host.wait(lambda t: "1 watching" not in t, 30, "the spectator gone from the host's count")
    finally:
        host.close()
        if spectator is not None:
            spectator.close()
