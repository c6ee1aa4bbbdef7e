"""The controller: keys make only legal moves, overlays and chat behave, the cursor moves well."""

from __future__ import annotations

import random

import pytest

from client.ui import decisions
from client.ui.app import Chat, GameUI, Quit, Submit
from client.ui.canvas import Rect
from client.ui.caps import Caps
from client.ui.model import Decision, Option
from client.ui.render import render
from skyjo_p2p.core.moves import Move
from skyjo_p2p.engine import deciders, legal_moves

from .scenes import OfflineTable

KEYS = [
    "left",
    "right",
    "up",
    "down",
    "h",
    "j",
    "k",
    "l",
    "enter",
    "space",
    "tab",
    "btab",
    "esc",
    *"0123456789e",
]


def frame_for(ui: GameUI, width: int = 80, height: int = 24) -> None:
    ui.on_frame(render(ui.screen(), width, height, Caps()))


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("skyjo", {"target_score": 30}),
        ("skip-bo", {"stock_size": 5, "single_round": True}),
        ("skyjo-action", {"target_score": 30}),
    ],
)
def test_random_keys_only_ever_make_legal_moves(game: str, options: dict[str, object]) -> None:
    """A monkey at the keyboard: whatever it presses, what comes out is a legal move."""
    rng = random.Random(f"{game}-monkey")
    table = OfflineTable(game, 3, options, seed=11, level="random")
    source = table.source()
    ui = GameUI(source, "en")
    moves = presses = 0
    while moves < 60 and presses < 20_000:
        seats = deciders(table.state)
        if not seats:
            break
        if seats[0] != 0:
            table.step()
            source.table, source.entries = table.state, list(table.entries)
            continue
        frame_for(ui, *rng.choice([(80, 24), (120, 40), (200, 60)]))
        presses += 1
        for effect in ui.handle_key(rng.choice(KEYS)):
            if isinstance(effect, Submit):
                assert effect.move in legal_moves(table.state, 0), effect.move
                table.play(effect.move)
                source.table, source.entries = table.state, list(table.entries)
                moves += 1
            else:
                assert not isinstance(effect, Quit)
        if ui.ui.overlay in ("help", "scores", "round", "quit"):
            ui.handle_key("esc")
    assert moves >= 10


def test_skyjo_setup_picks_two_cards_then_plays_the_reveal() -> None:
    table = OfflineTable("skyjo", 3, {}, seed=2)
    ui = GameUI(table.source(), "en")
    frame_for(ui)
    assert ui.handle_key("enter") == []
    assert ui.ui.cursor == ("grid", 0, 1)  # the next card in reading order
    [effect] = ui.handle_key("enter")
    assert effect == Submit(Move(0, "reveal", slots=(0, 1)))


def test_esc_takes_back_the_last_card_picked() -> None:
    table = OfflineTable("skyjo", 3, {}, seed=2)
    ui = GameUI(table.source(), "en")
    frame_for(ui)
    ui.handle_key("enter")
    assert ui.ui.chosen == (("grid", 0, 0),)
    ui.handle_key("esc")
    assert ui.ui.chosen == ()
    assert ui.ui.cursor == ("grid", 0, 0)


def test_digits_choose_piles_and_esc_goes_back() -> None:
    table = OfflineTable("skip-bo", 3, {}, seed=4, level="greedy")
    table.until(lambda s: s.phase == "turn" and s.turn == 0)
    ui = GameUI(table.source(), "en")
    frame_for(ui)
    assert ui.handle_key("1") == []  # hand card 1: now where does it go?
    assert ui.ui.chosen == (("hand", 0, 0),)
    assert ui.screen().prompt.startswith(("Put the", "The "))
    ui.handle_key("esc")
    assert ui.ui.chosen == ()
    ui.handle_key("1")
    [effect] = ui.handle_key("7")  # onto discard pile 1: its key is 7, as when picking from it
    assert effect == Submit(Move(0, "discard", index=0, pile=0))


def test_overlays_chat_and_quit() -> None:
    table = OfflineTable("skyjo", 3, {}, seed=2)
    ui = GameUI(table.source(), "en")
    frame_for(ui)
    ui.handle_key("?")
    assert ui.screen().overlay == "help"
    help_rows = [row for row in ui.screen().help.rows]  # type: ignore[union-attr]
    assert ("q", "leave the game") in help_rows
    ui.handle_key("x")
    assert ui.screen().overlay is None
    ui.handle_key("s")
    assert ui.screen().overlay == "scores"
    ui.handle_key("s")
    assert ui.screen().overlay is None
    ui.handle_key("t")
    for key in "hi there":
        ui.handle_key("space" if key == " " else key)
    assert ui.handle_key("enter") == [Chat("hi there")]
    assert ui.handle_key("q") == []
    assert ui.screen().overlay == "quit"
    ui.handle_key("n")
    assert ui.screen().overlay is None
    ui.handle_key("q")
    # issue 15: leaving a game that is on tells the others (a signed leave) before closing
    assert ui.handle_key("y") == [Quit(leave=True)]


def test_a_refused_move_is_reported_and_the_decision_offered_again() -> None:
    table = OfflineTable("skyjo", 3, {}, seed=2)
    ui = GameUI(table.source(), "en")
    frame_for(ui)
    ui.handle_key("enter")
    ui.handle_key("enter")
    assert ui.ui.sending
    ui.submitted("the network said no")
    model = ui.screen()
    assert "the network said no" in model.flash
    assert model.ui.candidates


def test_arrows_move_to_the_card_in_that_direction() -> None:
    rects = {(c, r): Rect(c * 7, r * 3, 6, 3) for c in range(4) for r in range(3)}
    targets = list(rects)
    assert decisions.move_cursor((0, 0), "right", targets, rects) == (1, 0)
    assert decisions.move_cursor((0, 0), "down", targets, rects) == (0, 1)
    assert decisions.move_cursor((3, 2), "right", targets, rects) == (3, 2)  # the edge: stays
    assert decisions.move_cursor((1, 1), "left", targets, rects) == (0, 1)
    assert decisions.cycle((3, 0), 1, targets, rects) == (0, 1)


def test_paths_candidates_and_completion() -> None:
    a, b = Move(0, "x", slot=1), Move(0, "x", slot=2)
    dec = Decision("t", [Option((("p",), ("q",)), a), Option((("p",), ("r",)), b)])
    assert decisions.candidates(dec, ()) == [("p",)]
    assert decisions.candidates(dec, (("p",),)) == [("q",), ("r",)]
    assert decisions.complete(dec, (("p",),)) is None
    assert decisions.complete(dec, (("p",), ("r",))) == Option((("p",), ("r",)), b)
    multi = Decision("m", [Option((("g", 1), ("g", 2)), a), Option((("g", 1), ("g", 3)), b)], multi=2)
    assert decisions.candidates(multi, (("g", 3),)) == [("g", 1)]
    assert decisions.complete(multi, (("g", 3), ("g", 1))) == Option((("g", 1), ("g", 3)), b)
