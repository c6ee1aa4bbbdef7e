"""Play again (issue 18): the scores of the evening and the screens between games, in English and
French (pure functions and controllers: no network, no terminal)."""

from __future__ import annotations

import dataclasses

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from client.table.evening import Evening, EveningRow, GameResult, evening_lines
from client.table.host import Host, HostOptions
from client.ui.app import GameUI, Quit
from client.ui.caps import Caps
from client.ui.evening import average_text
from client.ui.evening import evening_lines as screen_lines
from client.ui.lobby import LobbyScreen, LobbySeat, LobbyUI, LobbyView, render_lobby
from client.ui.network import HostLobby
from client.ui.render import render
from tests.client.ui.scenes import OfflineTable

FPS = ("aaaa-aaaa-aaaa-aaaa", "bbbb-bbbb-bbbb-bbbb", "cccc-cccc-cccc-cccc")
CAPS = Caps(color=True, unicode=True)


def game(
    session: bytes, totals: tuple[int, ...], winners: tuple[int, ...], names=("ann", "ben", "cy"), fps=FPS
) -> GameResult:
    return GameResult(session * 32, "skyjo", tuple(names), tuple(fps[: len(names)]), totals, winners)


def test_the_evening_counts_each_game_once_per_player_by_name_and_key() -> None:
    evening = Evening()
    assert evening.add(game(b"1", (30, 12, 50), (1,)))
    assert not evening.add(game(b"1", (30, 12, 50), (1,)))  # the same session: not twice
    assert evening.add(game(b"2", (8, 40, 44), (0,)))
    assert not evening.add(None)  # a game that did not finish counts nothing
    rows = evening.rows()
    assert rows == [
        EveningRow("ann", FPS[0], 2, 1, 38),
        EveningRow("ben", FPS[1], 2, 1, 52),
        EveningRow("cy", FPS[2], 2, 0, 94),
    ]
    assert rows[0].average == 19.0 and rows[2].average == 47.0
    assert evening.last is not None and evening.last.winner_names == ("ann",)
    # a newcomer in a freed seat is a new row; the same name with another key too
    dee = "dddd-dddd-dddd-dddd"
    evening.add(game(b"3", (5, 9, 20), (2,), names=("ann", "ben", "dee"), fps=(*FPS[:2], dee)))
    assert [(r.name, r.played, r.wins) for r in evening.rows()] == [
        ("ann", 3, 1),
        ("ben", 3, 1),
        ("dee", 1, 1),
        ("cy", 2, 0),
    ]
    before = len(evening.results)
    plus = evening.plus(game(b"4", (1, 2, 3), (0,)))
    assert len(plus.results) == before + 1 and len(evening.results) == before  # a copy


def test_the_evening_as_plain_lines() -> None:
    evening = Evening([game(b"1", (30, 12, 50), (1,))])
    lines = evening_lines(evening)
    assert lines[0] == "evening after 1 game:"
    assert lines[2] == f"  ann [{FPS[0]}]: 1 played, 0 won, total 30, average 30.0"


@pytest.mark.parametrize(
    ("lang", "title", "heads", "average"),
    [
        (
            "en",
            "The evening so far  (2 games)",
            ["Player", "Key", "Games", "Wins", "Total", "Average"],
            "19.0",
        ),
        (
            "fr",
            "La soirée jusqu'ici  (2 parties)",
            ["Joueur", "Clé", "Parties", "Victoires", "Total", "Moyenne"],
            "19,0",
        ),
    ],
)
def test_the_evening_on_screen_in_both_languages(
    lang: str, title: str, heads: list[str], average: str
) -> None:
    evening = Evening([game(b"1", (30, 12, 50), (1,)), game(b"2", (8, 40, 44), (0,))])
    lines = ["".join(span.text for span in line) for line in screen_lines(evening.rows(), lang, 2)]
    assert lines[0] == title
    assert lines[1].split() == heads
    assert lines[2].split() == ["ann", FPS[0], "2", "1", "38", average]
    assert len(lines) == 5
    assert average_text(2.25, lang) == ("2.2" if lang == "en" else "2,2")
    assert len(screen_lines(evening.rows(), lang, 2, most=1)) == 3  # as many rows as there is room
    assert screen_lines([], lang, 0) == []


def between(lang: str, *, ready: bool = False, after: int = 1) -> LobbyView:
    evening = Evening([game(b"1", (30, 12, 50), (1,))])
    return LobbyView(
        "Kitchen",
        "skyjo",
        [
            LobbySeat("ann", FPS[0], ready=True, host=True),
            LobbySeat("ben", FPS[1], me=True, ready=ready),
            LobbySeat(empty=True),
        ],
        after=after,
        winners=("ben",),
        evening=evening.rows() if after else [],
    )


@pytest.mark.parametrize(
    ("lang", "asked", "title"),
    [
        ("en", "Table “Kitchen”: game 1 over, ben won. Ready for another?", "The evening so far"),
        ("fr", "Table « Kitchen » : partie 1 finie, gagnée par ben. Une autre ?", "La soirée jusqu'ici"),
    ],
)
def test_the_lobby_between_games(lang: str, asked: str, title: str) -> None:
    text = "\n".join(render_lobby(LobbyScreen(between(lang), lang), 80, 24, CAPS).text())
    assert asked in text
    assert title in text and FPS[2] in text  # every player of the evening, by key
    assert "Check each key" not in text and "Comparez" not in text  # the evening instead
    # once ready, the question is answered: the lobby says what it waits for
    text = "\n".join(render_lobby(LobbyScreen(between(lang, ready=True), lang), 80, 24, CAPS).text())
    assert asked not in text and title in text
    # before the first game: the lobby as it always was
    text = "\n".join(render_lobby(LobbyScreen(between(lang, after=0), lang), 80, 24, CAPS).text())
    assert asked not in text and title not in text


class _Source:
    def __init__(self, view: LobbyView) -> None:
        self.view = view

    def lobby(self) -> LobbyView:
        return self.view


def test_r_says_ready_for_another_and_q_asks_before_leaving() -> None:
    ui = LobbyUI(_Source(between("en")), "en")  # type: ignore[arg-type]
    assert [a.name for a in ui.handle_key("r")] == ["ready"]
    assert ui.handle_key("q") == [] and ui.screen_state.overlay == "quit"
    assert [a.name for a in ui.handle_key("y")] == ["leave"]


async def test_the_hosts_lobby_between_games() -> None:
    """The host at a screen says ready with r between games (not before the first: s starts it);
    its lobby then shows the game that ended and the evening."""
    host = Host(
        HostOptions(seats=2, advertise=False, name="ann"), Ed25519PrivateKey.generate(), lambda _: None
    )
    host.auto_ready = False
    lobby = HostLobby(host)
    await lobby.set_ready(False)
    assert host.seats[0].ready and lobby.lobby().after == 0  # before the first game: no change
    host.evening.add(game(b"1", (30, 12), (1,), names=("ann", "ben")))
    host.begun, host.number = 1, 2
    host.seats[0].ready = False
    view = lobby.lobby()
    assert view.after == 1 and view.winners == ("ben",) and len(view.evening) == 2
    assert view.status != "" and "ann" not in view.status  # not "waiting for ann": the screen asks
    await lobby.set_ready(True)
    assert host.seats[0].ready
    assert not host.closing
    await lobby.leave()  # leaving the lobby between games closes the table
    assert host.closing and not host.more_games()


def test_q_ends_the_game_over_screen_even_when_the_autopilot_was_on() -> None:
    table = OfflineTable("skyjo", 2, {"target_score": 1}, seed=3, me=0, level="greedy")
    table.until(lambda s: s.phase == "game_over")
    source = dataclasses.replace(table.source(), away_seats=frozenset({0}))
    ui = GameUI(source, "en", again=True)
    frame = render(ui.screen(), 80, 24, CAPS)
    assert "q back to the lobby" in "\n".join(frame.text())
    assert ui.handle_key("q") == [Quit()]


def test_games_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    """`--games N`: refused below 0 (one line, exit 2); by default one game without a screen and
    no bound at the screen."""
    import argparse

    from client.cli import _games, main

    code = main(["host", "--bot", "greedy", "--no-mdns", "--interface", "127.0.0.1", "--games", "-1"])
    err = capsys.readouterr().err
    assert code == 2 and err == "skyjo-lan host: --games is 0 (no bound) or more, not -1\n"
    assert _games(argparse.Namespace(games=None), screen=False) == 1
    assert _games(argparse.Namespace(games=None), screen=True) == 0
    assert _games(argparse.Namespace(games=3), screen=True) == 3
    with pytest.raises(Exception, match="--games"):
        HostOptions(games=-2)


def test_who_the_lobby_lets_in_while_a_game_is_played() -> None:
    """During game 1 of 2 only its players come in (for game 2), each once; a stranger waits for
    the lobby; after the last game nobody comes in; a closing table lets nobody in."""
    from protocol.config import TableConfig

    keys = [Ed25519PrivateKey.generate().public_key().public_bytes_raw() for _ in range(3)]
    host = Host(HostOptions(seats=2, advertise=False, games=2), Ed25519PrivateKey.generate(), lambda _: None)
    stranger = keys[2]
    assert host.refusal(keys[1]) is None  # the first lobby: anyone
    host.started, host.begun = True, 1
    host.config = TableConfig(
        session_id=b"s" * 32,
        game="skyjo",
        players=2,
        identities=(host.seats[0].key, keys[1]),
        options={},
        names=("host", "ben"),
    )
    assert host.refusal(keys[1]) is None
    assert host.refusal(stranger) == "the game has already started"
    host.waiting.append(dataclasses.replace(host.seats[0], name="ben", key=keys[1], kind="player", game=2))
    assert host.refusal(keys[1]) == "this identity is already seated"
    host.number = 2  # game 2 of 2: no game after it
    assert host.refusal(keys[1]) == "the game has already started"
    host.started = False
    host.close()
    assert host.refusal(stranger) == "the table is closing"
