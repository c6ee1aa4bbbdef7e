"""Issue 28, points 9 and 13, on the pure pieces: a paste is text, never keys (bracketed paste);
the "terminal too small" notice shows the leave question that `q` opened.

The same in a real terminal: tests/client/ui/test_e2e_evening_keys.py."""

from __future__ import annotations

from client.ui.app import Chat, GameUI
from client.ui.caps import Caps
from client.ui.paste import END, PASTE, START, PasteReader, pasted
from client.ui.render import render
from client.ui.terminal import names_of

from .scenes import OfflineTable


def reader() -> PasteReader:
    return PasteReader(names_of)


def test_a_paste_is_one_piece_of_text_not_keys() -> None:
    keys = reader().feed(list(f"r{START}hello\x1bq12{END}q"))
    assert keys == ["r", PASTE + "helloq12", "q"]
    assert pasted(keys[1]) == "helloq12" and pasted("q") is None


def test_a_paste_cut_over_several_reads_stays_whole() -> None:
    r = reader()
    assert r.feed(list(f"{START}he")) == []
    assert r.feed(list("l\nlo\x1b[20")) == []
    assert r.feed(list("1~x")) == [PASTE + "hel lo", "x"]


def test_a_lone_esc_is_still_the_esc_key() -> None:
    assert reader().feed(["\x1b"]) == ["esc"]
    assert reader().feed(["\x1b", "[", "A"]) == ["up"]


def test_a_paste_outside_the_chat_line_does_nothing() -> None:
    table = OfflineTable("skyjo", 3, {}, seed=2)
    ui = GameUI(table.source(), "en")
    ui.on_frame(render(ui.screen(), 80, 24, Caps()))
    assert ui.paste("hello q y 12") == []
    screen = ui.screen()
    assert screen.overlay is None and ui.ui.chosen == ()
    assert "press t first" in screen.flash
    ui.handle_key("t")
    ui.paste("hello there 12")
    assert ui.handle_key("enter") == [Chat("hello there 12")]


def test_too_small_shows_the_leave_question_q_opened() -> None:
    table = OfflineTable("skyjo", 3, {}, seed=2)
    ui = GameUI(table.source(), "en")
    ui.handle_key("q")
    text = "\n".join(render(ui.screen(), 60, 20, Caps()).text())
    assert "Terminal too small" in text
    assert "Leave the table?" in text and "y leave" in text and "press q to quit" not in text


def test_a_paste_in_the_lobby_goes_into_the_chat_line_only() -> None:
    from client.ui.lobby import LobbySeat, LobbyUI, LobbyView

    view = LobbyView(
        "Kitchen", "skyjo", [LobbySeat("ann", "a" * 19, host=True), LobbySeat("ben", "b" * 19, me=True)]
    )

    class Source:
        def lobby(self) -> LobbyView:
            return view

    ui = LobbyUI(Source(), "en")  # type: ignore[arg-type]
    assert ui.paste("r s q y") == []  # not ready, not start, no leave question
    assert ui.screen_state.overlay is None
    ui.handle_key("t")
    ui.paste("r s q y")
    assert [a.name for a in ui.handle_key("enter")] == ["chat"]
