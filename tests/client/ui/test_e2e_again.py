"""Play again (issue 18) as a person sees it, in a real terminal (pexpect + pyte, loopback only).

ana hosts a table of two at her screen; a headless joiner (`join --bot greedy --games 2`) takes
the other seat. ana does not play her moves: her move countdown is one second, so her own program
plays for her (issue 17's autopilot) and the games end without keystrokes. At the end of game 1
she goes back to the table's lobby (q), which says who won and shows the scores of the evening;
she presses r for another game, which starts once the joiner is back and ready (in whichever
order they come); after game 2 she leaves the table from its lobby (q, y). Both programs end
normally, and each game is saved in its own transcript.
"""

from __future__ import annotations

from pathlib import Path

from .pty_driver import QUICK_TWO_SEATS, Pty, at_game_over, headless_joiner, lobby_address, loopback_host


def _back_to_the_lobby(host: Pty) -> str:
    """From the game-over screen to the lobby: q (her autopilot was on: the key is still q, not
    "I am back", once the game is over)."""
    at_game_over(host)
    host.send("q")
    return host.wait("Ready for another?", 60, "the lobby between games")


def test_a_person_plays_again_then_leaves_the_table(tmp_path: Path) -> None:
    host = loopback_host(tmp_path / "host", *QUICK_TWO_SEATS)
    joiner = None
    try:
        _, port = lobby_address(host)
        home = tmp_path / "joiner"
        joiner = headless_joiner(port, home, "--games", "2")
        host.wait("s starts the game", 60, "ben seated")
        host.send("s")
        lobby = _back_to_the_lobby(host)
        assert "Table “Kitchen table”: game 1 over" in lobby, lobby
        assert "The evening so far" in lobby and "(1 game)" in lobby, lobby
        assert "ana" in lobby and "ben" in lobby
        host.send("r")  # ready for another: it starts once ben is back and ready too
        host.wait(lambda t: "Game over" not in t and "Lobby" not in t, 120, "game 2")
        lobby = _back_to_the_lobby(host)
        assert "game 2 over" in lobby and "(2 games)" in lobby, lobby
        host.send("q")
        host.wait("Leave the table?", 30)
        host.send("y")
        assert host.finish(60) == 0
        assert joiner.wait(120) == 0
        saved = sorted((tmp_path / "host" / "data" / "skyjo-lan" / "games").glob("*.skyjo"))
        assert len(saved) == 2, saved
        assert len(list((home / "data" / "skyjo-lan" / "games").glob("*.skyjo"))) == 2
    finally:
        host.close()
        if joiner is not None and joiner.poll() is None:
            joiner.kill()
