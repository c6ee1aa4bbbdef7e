"""`skyjo-lan replay` on a real saved game, and the lobby screen's keys."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from client.table.local import LocalTable
from client.ui.caps import Caps
from client.ui.lobby import LobbyAction, LobbyScreen, LobbySeat, LobbyUI, LobbyView, render_lobby
from client.ui.render import render
from client.ui.replay import ReplayUI, load_replay

from .pty_driver import Pty


@pytest.fixture(scope="module")
def saved_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole game between two bots over the real protocol, saved as a transcript."""
    import os

    home = tmp_path_factory.mktemp("replay")
    old = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(home)
    try:
        table = LocalTable(
            "skyjo",
            2,
            "greedy",
            {"target_score": 1, "setup_reveals": 10},
            names=["Ada", "Bob"],
            think_time=0.0,
            human=False,
        )
        trio.run(table.run)
    finally:
        if old is None:
            os.environ.pop("XDG_DATA_HOME")
        else:
            os.environ["XDG_DATA_HOME"] = old
    assert table.writer is not None
    return table.writer.path


def test_a_saved_game_replays_move_by_move(saved_game: Path) -> None:
    replay = load_replay(saved_game.read_bytes())
    assert replay.problem == ""
    assert len(replay.steps) > 4
    assert replay.steps[-1].state.phase == "game_over"
    ui = ReplayUI(replay, "en")
    first = render(ui.screen(), 80, 24, Caps())
    ui.on_frame(first)
    assert "Replay · verified · 1/" in first.text()[0]  # a file checked whole: its verdict said
    ui.handle_key("right")
    ui.handle_key("n")
    assert ui.source.index == 2
    ui.handle_key("p")
    assert ui.source.index == 1
    ui.handle_key("end")
    last = render(ui.screen(), 80, 24, Caps())
    assert any("Game over" in line for line in last.text())
    ui.handle_key("esc")  # closes the result
    ui.handle_key("home")
    assert ui.source.index == 0
    assert ui.handle_key("q")


def test_replay_in_a_terminal(saved_game: Path, tmp_path: Path) -> None:
    pty = Pty(["replay", str(saved_game), "--lang", "en"], tmp_path)
    try:
        pty.wait("Replay: → or n", 30)
        pty.send("n", "n")
        pty.wait("· 3/", 30)
        pty.send("\x1b[F")  # End
        pty.wait("Game over", 30)
        pty.send("q")
        assert pty.finish() == 0
    finally:
        pty.close()


class FakeLobby:
    def __init__(self) -> None:
        self.view = LobbyView(
            "Kitchen",
            "skip-bo",
            [LobbySeat("Anna", "aaaa-bbbb", host=True, me=True), LobbySeat(empty=True)],
            is_host=True,
        )
        self.event = trio.Event()

    def lobby(self) -> LobbyView:
        return self.view

    def changed(self) -> trio.Event:
        return self.event


def test_lobby_keys() -> None:
    source = FakeLobby()
    ui = LobbyUI(source, "en")  # type: ignore[arg-type]
    assert ui.handle_key("r") == [LobbyAction("ready")]
    assert ui.handle_key("s") == []  # nobody may start before everyone is ready
    source.view.can_start = True
    assert ui.handle_key("s") == [LobbyAction("start")]
    ui.handle_key("t")
    for key in "salut":
        ui.handle_key(key)
    assert ui.handle_key("enter") == [LobbyAction("chat", "salut")]
    ui.handle_key("q")
    assert ui.handle_key("y") == [LobbyAction("leave")]
    source.view.closed = "the host left"
    assert ui.handle_key("x") == [LobbyAction("closed")]


def test_lobby_screen_shows_seats_keys_and_links() -> None:
    seats = [
        LobbySeat("Anna", "k3xq-7vpa", ready=True, host=True),
        LobbySeat("Ben", "a9fz-qq2m", me=True),
        LobbySeat("Chloé", "zz3w-8b2k", link="reconnecting", retry_in=2.6, known=False),
        LobbySeat(empty=True),
    ]
    view = LobbyView("Kitchen", "skyjo", seats, password=True, address="10.0.0.2:4000")
    text = "\n".join(render_lobby(LobbyScreen(view, "en"), 80, 24, Caps()).text())
    assert "k3xq-7vpa" in text and "(free seat)" in text and "reconnecting 3s" in text
    assert "Chloé (new key)" in text and "skyjo-lan join 10.0.0.2:4000" in text
    small = render_lobby(LobbyScreen(view, "fr"), 70, 20, Caps())
    assert "Terminal trop petit" in "\n".join(small.text())
