"""Issue 15, points 2 and 4, as a person sees them in a terminal.

A LAN table on loopback (the host, a joiner and a bot): the joiner presses q, then y; the host's
screen says at once that the joiner left and that the game cannot go on (never "cheated"), the
joiner's program ends by itself (exit status 0: leaving is a normal end), and its saved game
verifies as stopped by that leave. (With issue 17's protocol on main, the leave lets a bot play on;
tests/client/ui/test_e2e_autopilot.py accepts both.) Ctrl-C in
the lobby, in a game and in `discover` ends with one line, exit status 130, no traceback; no log
line is ever written on the screen (the log goes to its file).
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .pty_driver import ROOT, Pty, lobby_address, loopback_host


def _host(home: Path) -> Pty:
    # with a screen, even --verbose writes nothing on it
    return loopback_host(home, "--seats", "3", "--bots", "1", "--verbose")


def _port(host: Pty) -> str:
    return lobby_address(host)[1]


def _start(host: Pty, guest: Pty) -> None:
    """Ben ready (`r` where the lobby asks for it), then the host starts."""
    row = re.compile(r"\bben\b.*(✓ ready|not yet)")
    shown = host.wait(lambda t: row.search(t) is not None, 30, "the guest seated in the host's lobby")
    found = row.search(shown)
    if found is not None and found.group(1) == "not yet":
        guest.send("r")
        host.wait(lambda t: re.search(r"\bben\b.*✓ ready", t) is not None, 30, "the guest ready")
    host.send("s")


def _no_log_on_screen(screen: Pty) -> None:
    raw = screen.raw.decode("utf-8", "replace")
    for word in (" INFO ", " WARNING ", " ERROR ", "Traceback", "ExceptionGroup"):
        assert word not in raw, f"{word!r} was written on the terminal"


def test_a_player_who_leaves_is_shown_as_leaving_at_once(tmp_path: Path) -> None:
    host = _host(tmp_path / "host")
    guest = None
    try:
        port = _port(host)
        guest = Pty(["join", f"127.0.0.1:{port}", "--nick", "ben", "--lang", "en"], tmp_path / "guest")
        guest.wait(lambda t: "Kitchen table" in t and "ben" in t, 30, "the guest's lobby")
        _start(host, guest)
        for screen in (host, guest):
            screen.wait("cards face up", 120, "the game's setup prompt")
        guest.send("q")
        asked = guest.wait("Leave the table?", 30, "the confirmation")
        assert "Leave and let a bot play your seat? (y/n)" in asked
        guest.send("y")
        # the protocol before issue 17 stops the game with the leave; issue 17's plays on with a bot
        told = host.first(
            {
                "stopped": lambda t: "ben left the table; the game cannot go on." in t,
                "goes on": lambda t: "ben left the table." in t and "cannot go on" not in t,
            },
            30,
        )
        shown = host.text
        assert "cheated" not in shown and "broke the protocol" not in shown
        assert guest.finish(30) == 0  # leaving is a normal end (issue 17)
        final = guest.raw.decode("utf-8", "replace")
        assert "Traceback" not in final
        if told == "stopped":
            host.send("q")  # the game stopped: q leaves without a question
            assert host.finish(30) == 1
        else:
            host.send("enter", "enter")  # ana turns her two cards: the bot plays ben's next
            host.wait(lambda t: "(bot: left)" in t or "A bot plays ben's seat" in t, 60, "the takeover")
            host.send("q", "y")
            assert host.finish(30) == 0
        for screen in (host, guest):
            _no_log_on_screen(screen)
        logs = list((tmp_path / "host" / ".local" / "state" / "skyjo-lan" / "logs").glob("host-*.log"))
        assert logs and "left the table" in logs[0].read_text()
        saved = list((tmp_path / "guest" / "data" / "skyjo-lan" / "games").glob("*.skyjo"))
        assert len(saved) == 1
        verdict = subprocess.run(
            [sys.executable, "-m", "client", "verify", str(saved[0])],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
            timeout=120,
        )
        assert verdict.returncode == 0, verdict.stdout + verdict.stderr
        if told == "stopped":
            assert re.search(r"stopped: ben \(seat \d\) left the table", verdict.stdout), verdict.stdout
        else:  # the leaver's file ends with its leave; the table played on without it
            assert verdict.stdout.startswith("valid"), verdict.stdout
    finally:
        host.close()
        if guest is not None:
            guest.close()


def _interrupted(screen: Pty, command: str) -> str:
    screen.send("\x03")
    assert screen.finish(30) == 130
    raw = screen.raw.decode("utf-8", "replace")
    assert "Traceback" not in raw and "ExceptionGroup" not in raw, raw[-2000:]
    assert f"skyjo-lan {command}: Interrupted" in raw
    return raw


def test_ctrl_c_in_the_lobby_ends_with_one_line(tmp_path: Path) -> None:
    host = _host(tmp_path)
    try:
        _port(host)
        raw = _interrupted(host, "host")
        _no_log_on_screen(host)
        assert "\x1b[?1049l" in raw or "\x1b[?47l" in raw  # the terminal was given back
    finally:
        host.close()


def test_ctrl_c_in_a_game_says_where_it_is_saved(tmp_path: Path) -> None:
    game = Pty(["play", "--bots", "2", "--lang", "en"], tmp_path)
    try:
        game.wait("cards face up", 60, "the game")
        raw = _interrupted(game, "play")
        assert "Interrupted: the game is saved in" in raw
        assert ".skyjo" in game.text
    finally:
        game.close()


def _ctrl_c_ignored() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _ctrl_c_blocked() -> None:
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


@pytest.mark.parametrize("start", [_ctrl_c_ignored, _ctrl_c_blocked], ids=["ignored", "blocked"])
def test_ctrl_c_ends_a_game_started_with_ctrl_c_ignored_or_blocked(
    tmp_path: Path, start: Callable[[], None]
) -> None:
    # a launcher (or a parent process) may start the program with SIGINT ignored or blocked; the
    # player at the terminal who presses Ctrl-C still means it (before, nothing happened at all)
    game = Pty(["play", "--bots", "2", "--lang", "en"], tmp_path, preexec_fn=start)
    try:
        game.wait("cards face up", 60, "the game")
        raw = _interrupted(game, "play")
        assert "Interrupted: the game is saved in" in raw
    finally:
        game.close()


def test_ctrl_c_in_discover_ends_with_one_line(tmp_path: Path) -> None:
    finder = Pty(["discover", "--seconds", "120"], tmp_path)
    try:
        finder.pump(1.0)  # listening (nothing to wait for on screen: it prints at the end)
        _interrupted(finder, "discover")
    finally:
        finder.close()


def test_a_seat_that_stops_answering_is_never_a_cheat(tmp_path: Path) -> None:
    # a short move timeout (the documented default is 300 s): the joiner's program is killed
    # (a crash, a closed lid) while its move is awaited
    env = {"SKYJO_LAN_MOVE_TIMEOUT": "10"}
    table = ["--seats", "3", "--bots", "1", "--no-mdns", "--interface", "127.0.0.1", "--name", "T"]
    host = Pty(["host", *table, "--nick", "ana", "--lang", "en"], tmp_path / "host", env=env)
    guest = None
    try:
        port = _port(host)
        guest = Pty(
            ["join", f"127.0.0.1:{port}", "--nick", "ben", "--lang", "en"], tmp_path / "guest", env=env
        )
        guest.wait("ben", 30, "the guest's lobby")
        _start(host, guest)
        host.wait("cards face up", 120, "the game's setup prompt")
        host.send("enter", "enter")  # ana turns her two cards: ben's move is awaited next
        host.wait("to turn their cards", 30, "ana's setup done")
        guest.child.kill(signal.SIGKILL)
        host.wait("link lost", 30, "the countdown since the link was lost")
        shown = host.wait("ben stopped answering (no link for", 60, "the timeout told as what it is")
        assert "the game cannot go on" in shown
        assert "cheated" not in shown and "broke the protocol" not in shown and "seat(s)" not in shown
        host.send("q")
        assert host.finish(30) == 1
        _no_log_on_screen(host)
    finally:
        host.close()
        if guest is not None:
            guest.close()
