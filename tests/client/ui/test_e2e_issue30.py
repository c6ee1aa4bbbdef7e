"""`skyjo-lan play` in a real terminal, for issue 30: the rules page from the help, the end of a
round on its own screen, muting a player's chat."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .pty_driver import Pty


@pytest.fixture
def run(tmp_path: Path) -> Iterator:
    started: list[Pty] = []

    def start(*args: str, **kwargs: object) -> Pty:
        pty = Pty(args, tmp_path, **kwargs)  # type: ignore[arg-type]
        started.append(pty)
        return pty

    yield start
    for pty in started:
        pty.close()


def test_help_then_the_rules_page_scrolls_and_closes(run) -> None:
    pty = run("play", "--game", "skyjo-action", "--bots", "1", "--lang", "en")
    pty.wait("? help", 60, "the table")
    pty.send("?")
    help_text = pty.wait("the rules of SKYJO ACTION", 30, "the help's rules line")
    assert "r " in help_text
    pty.send("r")
    page = pty.wait("Rules of SKYJO ACTION", 30, "the rules page")
    assert "GOAL" in page and "THE END OF A ROUND" not in page
    pty.send("pgdn", "pgdn", "pgdn")
    page = pty.wait("THE END OF A ROUND", 30, "the end of the page")
    assert "Steal and play" in page
    pty.send("esc")
    pty.wait(lambda t: "Rules of" not in t, 30, "the table again")
    pty.send("q")
    pty.wait("Leave the table?", 30)
    pty.send("y")
    pty.finish()


def test_the_last_round_ends_on_its_own_screen_before_the_result(run) -> None:
    pty = run(
        "play", "--bots", "1", "--lang", "en", "--option", "target_score=1", "--option", "setup_reveals=11"
    )
    pty.wait("Turn 11 of your cards face up", 90, "the setup prompt")
    pty.send(*["enter"] * 11)
    for _ in range(40):
        seen = pty.first(
            {
                "choose": lambda t: "Your turn: take the top card" in t,
                "drawn": lambda t: "You drew a" in t and "choose the card" in t,
                "flip": lambda t: "Turn one of your face-down cards" in t,
                "round": lambda t: "Round 1 is over" in t,
            },
            timeout=90,
        )
        if seen == "round":
            break
        if seen == "choose":
            pty.send("1")
            pty.wait(lambda t: "Your turn: take the top card" not in t, 30, "the draw")
        elif seen == "drawn":
            pty.send("2")
            pty.wait(lambda t: "You drew a" not in t or "Turn one of" in t, 30, "the discard")
        else:
            pty.send("enter")
            pty.wait(lambda t: "Turn one of your face-down cards" not in t, 30, "the flip")
    screen = pty.wait("any key: the result", 30, "the round's end, the result next")
    assert "total" in screen and "You win" not in screen and "wins!" not in screen
    assert "ended the round" in screen  # the doubling (or not) said
    pty.send("enter")
    result = pty.wait(lambda t: "You win" in t or "wins!" in t or "Shared win" in t, 30, "the result")
    assert "Round 1 is over" not in result
    pty.send("q")
    assert pty.finish() == 0


def test_muting_a_players_chat_on_this_screen_only(tmp_path: Path) -> None:
    from .pty_driver import lobby_address, loopback_host

    host = loopback_host(tmp_path / "host", "--seats", "2")
    guest = None
    try:
        _, port = lobby_address(host)
        guest = Pty(["join", f"127.0.0.1:{port}", "--nick", "ben", "--lang", "en"], tmp_path / "guest")
        guest.wait(lambda t: "Kitchen table" in t and "ben" in t, 30, "the guest's lobby")
        host.wait("waiting for ben to be ready", 30, "the host waiting for ben")
        guest.send("r")
        host.wait("s starts the game", 30, "ben ready in the host's lobby")
        host.send("s")
        for screen in (host, guest):
            screen.wait("cards face up", 120, "the game's setup prompt")
        guest.send("t", *"hello there", "enter")
        host.wait("ben: hello there", 30, "ben's chat")
        host.send("m")
        host.wait("Mute chat", 30, "the mute list")
        host.send("1")
        host.wait("ben: muted", 30, "ben muted in the list")
        host.send("esc")
        muted = host.wait(lambda t: "Mute chat" not in t and "ben (muted)" in t, 30, "ben shown as muted")
        assert "ben: (muted)" in muted and "hello there" not in muted
        guest.send("t", *"second words", "enter")
        guest.wait("You: second words", 30, "the guest's own line")  # the guest is not told
        host.wait(lambda t: t.count("ben: (muted)") >= 2, 30, "the second line muted")
        assert "second words" not in host.text
    finally:
        host.close()
        if guest is not None:
            guest.close()


def test_the_host_frees_a_seat_in_the_lobby_and_its_player_is_told(tmp_path: Path) -> None:
    from .pty_driver import lobby_address, loopback_host

    host = loopback_host(tmp_path / "host", "--seats", "3")
    guest = None
    try:
        _, port = lobby_address(host)
        guest = Pty(["join", f"127.0.0.1:{port}", "--nick", "ben", "--lang", "en"], tmp_path / "guest")
        guest.wait(lambda t: "Kitchen table" in t and "ben" in t, 30, "the guest's lobby")
        host.wait(lambda t: "2     ben" in t, 30, "ben seated")
        host.send("x")
        host.wait("Free which seat?", 30, "the seats the host may free")
        host.send("2")
        told = guest.wait("the host removed you from the table", 30, "the removed player told")
        assert "Kitchen table" in told
        lobby = host.wait(
            lambda t: (
                "Free which seat?" not in t and "ben" not in t.split("Seat", 1)[-1].split("Check each key")[0]
            ),
            30,
            "the seat free again",
        )
        assert lobby.count("(free seat)") == 2
    finally:
        host.close()
        if guest is not None:
            guest.close()
