"""Issue 17 on the screen, as pure functions: the countdown by the turn marker, an away seat,
a seat a bot took over, the log lines, the leave question, the lobby's table settings (en, fr).
No clock: the seconds left come from the source, as the live runner gives them."""

from __future__ import annotations

import pytest

from client.table.peer import LogEntry
from client.ui.app import Back, GameUI, Quit, seat_label
from client.ui.caps import Caps
from client.ui.lobby import LobbyAction, LobbyScreen, LobbySeat, LobbyUI, LobbyView, render_lobby
from client.ui.render import render
from client.ui.replay import LogItem, seat_marks
from skyjo_p2p.engine import deciders

from .scenes import OfflineTable


def _text(ui: GameUI, width: int = 100, height: int = 30) -> str:
    frame = render(ui.screen(), width, height, Caps())
    ui.on_frame(frame)
    return "\n".join(frame.text())


def _my_turn(game: str = "skyjo") -> OfflineTable:
    """A table where it is seat 0's turn (past the setup)."""
    table = OfflineTable(game, 3, seed=5)
    table.until(lambda s: s.phase == "turn" and getattr(s, "turn", None) == 0 and list(deciders(s)) == [0])
    return table


@pytest.mark.parametrize("game", ["skyjo", "skyjo-action", "skip-bo"])
def test_the_countdown_shows_by_the_turn_marker(game: str) -> None:
    source = _my_turn(game).source()
    source.left = 41.2
    ui = GameUI(source, "en")
    text = _text(ui)
    assert "Your turn · 42 s" in text.splitlines()[0]  # rounded up: 0 only at the very end
    source.left = None
    assert "· 42 s" not in _text(ui) and "Your turn" in _text(ui).splitlines()[0]


def test_the_countdown_in_french() -> None:
    source = _my_turn().source()
    source.left = 9
    assert "À vous de jouer · 9 s" in _text(GameUI(source, "fr")).splitlines()[0]


@pytest.mark.parametrize("game", ["skyjo", "skyjo-action", "skip-bo"])
def test_an_away_seat_is_shown_as_away_with_its_bot_playing(game: str) -> None:
    table = _my_turn(game)
    source = table.source()
    source.away_seats = frozenset({1})
    text = _text(GameUI(source, "en"), 150, 40)
    assert "Ben (away, bot playing)" in text
    fr = _text(GameUI(source, "fr"), 150, 40)
    assert "Ben (absent, son bot joue)" in fr


@pytest.mark.parametrize(
    ("how", "en", "fr"),
    [("left", "(bot: left)", "(bot : parti)"), ("vanished", "(bot: vanished)", "(bot : disparu)")],
)
def test_a_taken_over_seat_says_why_a_bot_plays_it(how: str, en: str, fr: str) -> None:
    source = _my_turn().source()
    source.taken = {2: how}
    assert f"Chloé {en}" in _text(GameUI(source, "en"), 150, 40)
    assert f"Chloé {fr}" in _text(GameUI(source, "fr"), 150, 40)
    assert seat_label("en", "Chloé", True, how) == f"Chloé {en}"  # the bot of everyone wins


def test_the_away_player_sees_why_and_any_key_brings_them_back() -> None:
    source = _my_turn().source()
    source.away_seats = frozenset({0})
    ui = GameUI(source, "en")
    text = _text(ui)
    assert "Away: your bot plays for you. Press any key to play again." in text
    assert ui.decision is None  # no cursor, no move to compose while the bot plays
    for key in ("x", "enter", "q", "left"):
        assert ui.handle_key(key) == [Back()]
    assert ui.ui.overlay is None
    assert "Absent : votre bot joue pour vous." in _text(GameUI(source, "fr"))
    source.away_seats = frozenset()
    assert ui.handle_key("q") == []  # back: q asks again whether to leave
    assert ui.ui.overlay == "quit"


def test_q_asks_to_leave_and_let_a_bot_play_the_seat() -> None:
    ui = GameUI(_my_turn().source(), "en")
    ui.handle_key("q")
    text = _text(ui)
    assert "Leave and let a bot play your seat? (y/n)" in text
    assert ui.handle_key("y") == [Quit(leave=True)]
    ui = GameUI(_my_turn().source(), "fr")
    ui.handle_key("q")
    assert "Partir et laisser un bot jouer votre place ? (o/n)" in _text(ui)
    assert ui.handle_key("o") == [Quit(leave=True)]


def test_the_log_tells_away_back_leave_takeover_and_return() -> None:
    table = _my_turn()
    source = table.source()
    source.entries += [
        LogEntry("away", seat=1, text="away"),
        LogEntry("away", seat=1, text="back"),
        LogEntry("left", seat=2, text="left the table"),
        LogEntry("takeover", seat=2, text="left"),
        LogEntry("takeover", seat=1, text="vanished", disclosed=3),
        LogEntry("returned", seat=1),
    ]
    text = _text(GameUI(source, "en"), 240, 50)  # a wide screen: the log's own panel
    for line in (
        "Ben is away: their own program plays for them.",
        "Ben is back.",
        "Chloé left the table.",
        "A bot plays Chloé's seat from now on (they left).",
        "A bot plays Ben's seat from now on (they vanished). Cards made public for it: 3.",
        "Ben is back and plays their seat again.",
    ):
        assert line in text, line
    assert "the game cannot go on" not in text  # a bot took the seat: the game goes on
    fr = _text(GameUI(source, "fr"), 240, 50)
    assert "Ben est absent : son programme joue à sa place." in fr
    assert "Un bot joue désormais la place de Chloé (parti)." in fr


def test_a_leave_the_table_plays_on_after_is_not_a_stop() -> None:
    source = _my_turn().source()
    source.entries.append(LogEntry("left", seat=2, text="left the table"))  # the takeover comes later
    text = _text(GameUI(source, "en"), 240, 50)
    assert "Chloé left the table." in text and "cannot go on" not in text


def test_a_leave_without_a_takeover_still_stops_the_game() -> None:
    source = _my_turn().source()
    source.entries.append(LogEntry("left", seat=2, text="left the table"))
    source.stopped = "seat 3 left the table"
    assert "Chloé left the table; the game cannot go on." in _text(GameUI(source, "en"), 160, 50)


def test_the_replay_knows_who_is_away_and_who_a_bot_plays() -> None:
    log = [
        LogItem("away", seat=1, text="away"),
        LogItem("takeover", seat=2, text="vanished"),
    ]
    assert seat_marks(log) == (frozenset({1}), {2: "vanished"})
    log += [LogItem("away", seat=1, text="back"), LogItem("returned", seat=2)]
    assert seat_marks(log) == (frozenset(), {})


def _lobby(is_host: bool, settings: dict[str, object]) -> LobbyView:
    seats = [LobbySeat("Anna", "aaaa-bbbb", host=True, me=is_host, ready=True), LobbySeat(empty=True)]
    return LobbyView("Kitchen", "skyjo", seats, is_host=is_host, settings=settings)


def test_the_lobby_shows_the_table_settings() -> None:
    view = _lobby(False, {"turn": 60, "grace": 90, "insured": True})
    text = "\n".join(render_lobby(LobbyScreen(view, "en"), 80, 24, Caps()).text())
    assert "move countdown 60 s · grace 90 s · seat insurance on" in text
    view = _lobby(False, {"turn": 0, "grace": 60, "insured": False})
    fr = "\n".join(render_lobby(LobbyScreen(view, "fr"), 80, 24, Caps()).text())
    assert "sans compte à rebours · retour 60 s · places non assurées" in fr


def test_only_the_host_changes_the_countdown() -> None:
    class Source:
        def __init__(self, view: LobbyView) -> None:
            self.view = view

        def lobby(self) -> LobbyView:
            return self.view

    host = LobbyUI(Source(_lobby(True, {"turn": 60, "grace": 60, "insured": True})), "en")  # type: ignore[arg-type]
    assert host.handle_key("c") == [LobbyAction("turn")]
    text = "\n".join(render_lobby(host.screen(), 80, 24, Caps()).text())
    assert "Countdown" in text
    joiner = LobbyUI(Source(_lobby(False, {"turn": 60, "grace": 60, "insured": True})), "en")  # type: ignore[arg-type]
    assert joiner.handle_key("c") == []
    older = LobbyUI(Source(_lobby(True, {})), "en")  # type: ignore[arg-type]
    assert older.handle_key("c") == []
