"""Issue 28, points 9 and 13, in a real terminal (`play` against a bot, loopback only).

* A paste is text (bracketed paste): `hello<Esc>q` pasted on the table opens no dialog and makes
  no move; pasted into the chat line it is text there.
* After SIGSTOP, the shell puts the terminal back in line mode with echo; on SIGCONT the program
  takes it back (keys work without Enter) and redraws the whole screen.
* Below the minimum size, `q` shows its leave question in the "too small" notice.
"""

from __future__ import annotations

import os
import signal
import termios
from pathlib import Path

from client.ui.paste import END, START

from .pty_driver import Pty


def test_pastes_stops_and_a_small_window(tmp_path: Path) -> None:
    pty = Pty(["play", "--bots", "1", "--lang", "en"], tmp_path)
    try:
        pty.wait("? help", 60, "the table")
        assert "\x1b[?2004h" in pty.raw.decode("utf-8", "replace")  # bracketed paste asked for

        # a paste on the table: no "Leave the table?", no move; it says where pastes go
        pty.send(f"{START}hello\x1bq 12 r{END}")
        shown = pty.wait("press t first", 30, "the note about the paste")
        assert "Leave the table?" not in shown
        pty.send("t")
        pty.wait(lambda t: "hello" not in t and "t first" not in t, 30, "the chat line open")
        pty.send(f"{START}q 1 y{END}")
        shown = pty.wait("q 1 y", 30, "the pasted text in the chat line")
        assert "Leave the table?" not in shown
        pty.send("esc")
        pty.wait(lambda t: "q 1 y" not in t, 30, "the chat line closed")

        # SIGSTOP; the shell meanwhile sets line mode and echo (as bash does); then SIGCONT
        os.kill(pty.child.pid, signal.SIGSTOP)
        attrs = termios.tcgetattr(pty.child.child_fd)
        attrs[3] |= termios.ICANON | termios.ECHO
        termios.tcsetattr(pty.child.child_fd, termios.TCSANOW, attrs)
        pty.pump(0.2)
        pty.screen.reset()
        os.kill(pty.child.pid, signal.SIGCONT)
        pty.wait(lambda t: "? help" in t and "Round" in t, 30, "the whole screen drawn again")
        lflag = termios.tcgetattr(pty.child.child_fd)[3]
        assert not lflag & termios.ICANON and not lflag & termios.ECHO
        pty.send("?")  # no Enter
        pty.wait("leave the game", 30, "the help, at the key alone")
        pty.send("esc")
        pty.wait(lambda t: "leave the game" not in t, 30, "the help closed")

        pty.resize(60, 20)
        pty.wait("Terminal too small", 30)
        pty.send("q")
        pty.wait(lambda t: "Leave the table?" in t and "Terminal too small" in t, 30, "the question")
        pty.send("n")
        pty.wait(lambda t: "Leave the table?" not in t, 30, "the question gone")
        pty.resize(80, 24)
        pty.wait(lambda t: "? help" in t and "too small" not in t, 30, "the table again")
        pty.send("q", "y")
        assert pty.finish(60) == 0
        assert "\x1b[?2004l" in pty.raw.decode("utf-8", "replace")  # and given back
    finally:
        pty.close()


def test_join_asks_the_name_the_first_time_and_keeps_it(tmp_path: Path) -> None:
    """Issue 28, point 7: `join` asks a new player's name, as `play` does, and keeps it."""
    pty = Pty(["join", "127.0.0.1:9", "--lang", "en"], tmp_path, env={"SKYJO_LAN_FIRST_RUN": "1"})
    try:
        pty.wait("Your name at the table", 30, "the question")
        pty.send(*"Ben", "enter")
        kept = tmp_path / "config" / "skyjo-lan" / "name"
        pty.wait(lambda _t: kept.exists(), 30, "the name kept")
        assert kept.read_text(encoding="utf-8").strip() == "Ben"
    finally:
        pty.close()


def test_leaving_play_is_one_answer_and_says_so(tmp_path: Path) -> None:
    """Issue 28, point 10: `q`, `y` in `play` ends the program by itself, at once, never asking
    for one more key ("Press q or Enter to leave"), and says that the player left."""
    pty = Pty(["play", "--bots", "2", "--lang", "en"], tmp_path)
    try:
        pty.wait("cards face up", 60, "the game")
        pty.send("q")
        pty.wait("Leave the table?", 30, "the question")
        before = len(pty.raw)
        pty.send("y")
        assert pty.finish(60) == 0  # no other key sent
        after = pty.raw[before:].decode("utf-8", "replace")
        assert "Press q or Enter" not in after
        assert "You left the table: the game is saved as it stood." in pty.text
        assert "Game saved:" in pty.text
    finally:
        pty.close()
