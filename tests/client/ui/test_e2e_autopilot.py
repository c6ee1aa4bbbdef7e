"""Issue 17, points 1 and 2, as people see them in terminals (pexpect + pyte, loopback only).

A LAN table on 127.0.0.1: ana hosts with a short move countdown, ben joins, the host adds a bot.
When ana does not play, her own program plays for her: her screen says so, ben's shows her as
"ana (away, bot playing)"; a key brings her back and everyone is told. Then ben presses q and y:
the leave goes out, the others are told, ben's program ends normally (exit status 0).
"""

from __future__ import annotations

from pathlib import Path

from .pty_driver import Pty, lobby_address, loopback_host
from .test_e2e_leave import _no_log_on_screen, _start

WIDE = {"cols": 160, "rows": 50}
"""Screens wide enough for the log's own panel: the lines stay on screen."""


def test_an_idle_person_goes_to_autopilot_and_comes_back_with_a_key(tmp_path: Path) -> None:
    host = Pty(
        [
            "host",
            "--seats",
            "3",
            "--bots",
            "1",
            "--turn",
            "5",
            "--no-mdns",
            "--interface",
            "127.0.0.1",
            "--table",
            "Kitchen table",
            "--name",
            "ana",
            "--lang",
            "en",
        ],
        tmp_path / "host",
        **WIDE,  # type: ignore[arg-type]
    )
    guest = None
    try:
        lobby, port = lobby_address(host)
        assert "move countdown 5 s · grace 60 s · seat insurance on" in lobby
        guest = Pty(
            ["join", f"127.0.0.1:{port}", "--nick", "ben", "--lang", "en"], tmp_path / "guest", **WIDE
        )  # type: ignore[arg-type]
        guest.wait(lambda t: "Kitchen table" in t and "ben" in t, 30, "the guest's lobby")
        guest.wait("move countdown 5 s", 30, "the table's settings in the guest's lobby")
        _start(host, guest)
        # ana does nothing: at the countdown's end her bot plays for her
        host.wait("Away: your bot plays for you. Press any key to play again.", 120, "ana's autopilot")
        guest.wait("ana (away, bot playing)", 60, "ana shown away on ben's screen")
        guest.wait("ana is away: their own program plays for them.", 30, "the log line")
        host.send("x")  # any key
        host.wait("You are back: you play again.", 60, "ana back")
        guest.wait("ana is back.", 60, "ana back on ben's screen")
        for screen in (host, guest):
            text = screen.text
            assert "cheated" not in text and "stopped answering" not in text and "cannot go on" not in text
    finally:
        host.close()
        if guest is not None:
            guest.close()
    for screen in (host, guest):
        if screen is not None:
            _no_log_on_screen(screen)


def test_q_then_y_leaves_and_the_program_ends_normally(tmp_path: Path) -> None:
    host = loopback_host(tmp_path / "host", "--seats", "3", "--bots", "1", "--turn", "0")
    guest = None
    try:
        _, port = lobby_address(host)
        guest = Pty(["join", f"127.0.0.1:{port}", "--nick", "ben", "--lang", "en"], tmp_path / "guest")
        guest.wait(lambda t: "Kitchen table" in t and "ben" in t, 30, "the guest's lobby")
        _start(host, guest)
        for screen in (host, guest):
            screen.wait("cards face up", 120, "the game's setup prompt")
        guest.send("q")
        guest.wait("Leave and let a bot play your seat? (y/n)", 30, "the question")
        guest.send("y")
        # today's protocol stops the game with the leave; issue 17's lets a bot play ben's seat
        told = host.first(
            {
                "stopped": lambda t: "ben left the table; the game cannot go on." in t,
                "goes on": lambda t: "ben left the table." in t and "cannot go on" not in t,
            },
            30,
        )
        shown = host.text
        assert "cheated" not in shown and "broke the protocol" not in shown
        assert guest.finish(30) == 0  # leaving is a normal end
        final = guest.raw.decode("utf-8", "replace")
        assert "Traceback" not in final
        assert "You left the table: a signed leave went to every seat." in final
        if told == "stopped":
            host.send("q")
            assert host.finish(30) == 1
        else:  # the table plays on: a bot plays ben's seat once ana has turned her cards
            host.send("enter", "enter")
            host.wait(lambda t: "(bot: left)" in t or "A bot plays ben's seat" in t, 60, "the takeover")
    finally:
        host.close()
        if guest is not None:
            guest.close()
