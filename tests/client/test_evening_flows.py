"""Issue 28 ("the evening flows"), point 5, on the screens and controllers (no network, no
terminal): what the game-over screen of a table that plays again says `q` does, who it shows
gone, the host's leave question in the lobby, and `q` pressed before the game's end is settled."""

from __future__ import annotations

import dataclasses

import trio
from trio.testing import MockClock

from client.ui.app import GameUI, Quit
from client.ui.caps import Caps
from client.ui.lobby import LobbyScreen, LobbySeat, LobbyView, render_lobby
from client.ui.network import _settled
from client.ui.render import render
from tests.client.ui.scenes import OfflineTable

CAPS = Caps(color=True, unicode=True)


def over(**links: str) -> GameUI:
    table = OfflineTable("skyjo", 3, {"target_score": 1}, seed=3, me=0, level="greedy")
    table.until(lambda s: s.phase == "game_over")
    names = table.source().names
    states = {names.index(name): status for name, status in links.items()}
    return GameUI(dataclasses.replace(table.source(), link_states=states), "en", again=True)


def test_the_game_over_screen_of_a_table_that_plays_again_says_q_goes_back_to_the_lobby() -> None:
    ui = over()
    text = "\n".join(render(ui.screen(), 100, 30, CAPS).text())
    assert "q back to the lobby" in text  # the box
    assert "q back to the lobby" in text  # the line under the table
    assert "q quit" not in text and "q quits" not in text
    ui.handle_key("esc")  # the box closed: the table, its prompt and status line
    text = "\n".join(render(ui.screen(), 100, 30, CAPS).text())
    assert "Enter the result, s the score sheet, q back to the lobby" in text
    assert "q quit" not in text
    assert ui.handle_key("q") == [Quit()]


def test_players_gone_back_to_the_lobby_are_not_shown_gone_on_the_game_over_screen() -> None:
    ui = over()
    names = list(ui.source.names)
    ui = over(**{names[1]: "gone", names[2]: "gone"})
    ui.handle_key("esc")
    text = "\n".join(render(ui.screen(), 100, 30, CAPS).text())
    assert "gone" not in text


def test_the_hosts_leave_question_in_the_lobby_says_the_table_closes() -> None:
    seats = [LobbySeat("ann", "a" * 19, ready=True, host=True, me=True), LobbySeat(empty=True)]
    screen = LobbyScreen(LobbyView("Kitchen", "skyjo", seats, is_host=True), "en")
    screen.overlay = "quit"
    text = "\n".join(render_lobby(screen, 80, 24, CAPS).text())
    assert "leaving closes it for everyone" in text and "seat becomes free" not in text
    joiner = [LobbySeat("ann", "a" * 19, ready=True, host=True), LobbySeat("ben", "b" * 19, me=True)]
    screen = LobbyScreen(LobbyView("Kitchen", "skyjo", joiner), "en")
    screen.overlay = "quit"
    assert "Your seat becomes free again." in "\n".join(render_lobby(screen, 80, 24, CAPS).text())


class _Status:
    finished = False
    halted: str | None = None


class _Runner:
    """A game over on screen whose last signatures are still coming."""

    def __init__(self) -> None:
        self.status = _Status()
        self.changed = trio.Event()

    def finish(self) -> None:
        self.status.finished = True
        self.changed.set()
        self.changed = trio.Event()


async def test_q_before_the_games_end_is_settled_waits_for_it_then_the_lobby() -> None:
    runner = _Runner()
    got: list[bool] = []

    async def quit_now() -> None:
        got.append(await _settled(runner))  # type: ignore[arg-type]

    async with trio.open_nursery() as nursery:
        nursery.start_soon(quit_now)
        await trio.testing.wait_all_tasks_blocked()
        assert got == []  # not "not finished, exit" at once
        runner.finish()
    assert got == [True]


async def test_a_game_that_never_settles_ends_the_wait(autojump_clock: MockClock) -> None:
    assert await _settled(_Runner()) is False  # type: ignore[arg-type]
