"""SKYJO ACTION variants (R-A13): action-in-deck, stars-only, numbers-only, the 3x3 grid."""

from __future__ import annotations

from collections import Counter

import pytest

from skyjo_p2p import IllegalMove, Move, OptionError, apply, legal_moves, new_game, view
from skyjo_p2p.action import PLAYING, ActionOptions
from skyjo_p2p.action.cards import KINDS, NUMBERS
from skyjo_p2p.action.facts import ActionFound, DeclarationVoided, StarterSetAside
from skyjo_p2p.bots.random_bot import RandomBot
from skyjo_p2p.core.events import DealRequest, LineRemoved, Reveal, RevealRequest, RoundEnded
from skyjo_p2p.simulate import play_game, simulate
from tests.skyjo_p2p.test_action_helpers import (
    DRAW3,
    GA,
    GB,
    HA,
    HB,
    PEEK,
    RFE,
    SWAP_OWN,
    S,
    decision,
    discard,
    draw,
    flip,
    grid,
    hand_over,
    held,
    mv,
    names,
    play,
    replace,
    reveal,
    started,
    table,
)
from tests.support import mask

AID = {"variant": "action-in-deck"}

# --- action-in-deck -----------------------------------------------------------------------------


def test_a13_action_in_deck_mixes_5_to_10_action_cards_into_the_playing_deck_and_has_no_market():
    options = ActionOptions.parse(AID)
    counts = Counter(options.playing_deck)
    assert len(options.playing_deck) == 128 and options.action_deck == ()
    assert [k for k in KINDS if counts[k]] == list(KINDS[:8])  # one of each kind, in R-A12 order
    assert Counter(ActionOptions.parse({**AID, "deck_actions": 10}).playing_deck)[KINDS[0]] == 2
    for bad in (4, 11):
        with pytest.raises(OptionError, match="deck_actions"):
            ActionOptions.parse({**AID, "deck_actions": bad})
    state, events = new_game("skyjo-action", 2, AID)
    assert [e for e in events if isinstance(e, DealRequest)] == [DealRequest(PLAYING, 0, 128)]
    assert state.market == () and state.action_deck == ()


def test_a13_a_drawn_action_card_is_declared_kept_and_replaced_from_the_draw_pile():
    t = started(draw=[RFE, 9], options=AID)
    t.play(draw(0))
    card = t.state.holding[0]
    assert view(t.state, 1).values[card] is None  # only the drawer has seen it
    assert {m.kind for m in legal_moves(t.state, 0)} == {"keep-action", "drop-action"}
    with pytest.raises(IllegalMove, match="is an action card: keep it"):
        t.play(replace(0, 5))
    events = t.play(mv(0, "keep-action"))
    assert RevealRequest(card, None) in events  # kept face up beside the grid: everyone sees it
    assert held(t, 0) == ["remove-from-each"] and ActionFound(0, card, True) in events
    assert decision(t) == ("drawn", 0)  # the replacement, seen by the drawer alone
    replacement = t.state.holding[0]
    assert view(t.state, 0).values[replacement] == 9 and view(t.state, 1).values[replacement] is None
    t.play(replace(0, 5))
    assert grid(t, 0)[5] == 9 and t.state.to_move() == 1


def test_a13_a_drawn_action_card_may_go_to_the_action_discard():
    t = started(draw=[PEEK, 9], options=AID)
    t.play_all([draw(0), mv(0, "drop-action"), discard(0), flip(0, 3)])
    assert held(t, 0) == [] and names(t, t.state.action_discard) == ["peek-line"]
    assert names(t, t.state.discard[-1:]) == [9]


def test_a13_an_action_card_turned_in_a_grid_is_its_owners_to_keep_and_replaced_face_up():
    a = [*GA[:5], PEEK, *GA[6:]]
    t = started([a, GB], draw=[9, 7], options=AID)
    t.play_all([draw(0), discard(0), flip(0, 5)])
    assert decision(t) == ("found", 0)
    assert grid(t, 0)[5] == "peek-line"
    t.play(mv(0, "keep-action"))
    assert held(t, 0) == ["peek-line"] and grid(t, 0)[5] == 7  # the replacement, face up
    assert t.state.to_move() == 1
    t.play_all([draw(1, "discard"), replace(1, 11)])
    t.play(play(0))  # held before this turn: playable
    assert decision(t) == ("peek", 0)


def test_a13_a_replaced_face_down_action_card_is_the_grid_owners_with_no_replacement():
    a = [*GA[:5], PEEK, *GA[6:]]
    t = started([a, GB], draw=[9], options=AID)
    t.play_all([draw(0), replace(0, 5)])  # the face-down peek-line goes face up onto the discard pile
    assert decision(t) == ("found", 0)
    t.play(mv(0, "drop-action"))
    assert grid(t, 0)[5] == 9 and names(t, t.state.action_discard) == ["peek-line"]
    assert names(t, t.state.discard[-1:]) == [5]  # it left the playing discard pile
    assert t.state.to_move() == 1


def test_a13_action_cards_turned_at_setup_are_settled_before_the_first_player_is_known():
    a = [RFE, 3, *GA[2:]]
    t = table([a, GB], draw=[12], options=AID)
    t.play_all([reveal(0, 0, 1), reveal(1, 0, 1)])
    assert decision(t) == ("found", 0)
    t.play(mv(0, "keep-action"))
    assert grid(t, 0)[:2] == [12, 3]  # replaced face up: 15 against 6, seat 0 starts
    assert t.state.to_move() == 0 and held(t, 0) == ["remove-from-each"]
    assert "play" in {m.kind for m in legal_moves(t.state, 0)}  # taken before this turn


def test_a13_an_action_card_cannot_start_the_discard_pile():
    t = table([GA, GB], discard=RFE, draw=[6], options=AID)
    assert t.state.step == "setup"
    assert names(t, t.state.action_discard) == ["remove-from-each"]
    assert names(t, t.state.discard) == [6]
    assert any(isinstance(e, StarterSetAside) for e in t.events)


def test_a13_keeping_or_dropping_is_allowed_in_the_final_lap():
    t = table([GA, GB], draw=[9, PEEK, 8], options={**AID, "setup_reveals": 11})
    t.play_all([reveal(0, *range(11)), reveal(1, *range(11))])  # 10 against 22: seat 1 starts
    t.play_all([draw(1, "discard"), replace(1, 0)])
    hand_over(t, 0, 11)
    assert t.state.ender == 0
    t.play_all([draw(1), mv(1, "keep-action")])  # seat 1's last turn
    assert held(t, 1) == ["peek-line"] and decision(t) == ("drawn", 1)


def test_a13_an_action_card_left_face_down_is_discarded_and_replaced_at_the_end_of_the_round():
    b = [*GB[:11], PEEK]
    t = table([GA, b], draw=[9, 3], options={**AID, "setup_reveals": 11})
    t.play_all([reveal(0, *range(11)), reveal(1, *range(11))])
    t.play_all([draw(1, "discard"), replace(1, 0)])  # seat 1: the 5 for its 4
    hand_over(t, 0, 11)
    t.play_all([draw(1, "discard"), replace(1, 1)])  # seat 1's last turn: the 9 for its 2
    record = next(e for e in t.events if isinstance(e, RoundEnded))
    assert record.raw[1] == 5 + 9 + sum(GB[2:11]) + 3  # peek-line replaced by the draw pile's 3
    assert any(isinstance(e, ActionFound) and not e.kept for e in t.events)


def test_a13_stars_take_nothing_without_a_market():
    t = started(draw=[S], options=AID)
    t.play_all([draw(0), replace(0, 5)])
    assert decision(t) == ("choose", 1)


def test_a13_draw_three_must_declare_an_action_card_first():
    t = started(draw=[DRAW3, 9, RFE, 4, 11, 6], options=AID)
    t.play_all([draw(0), mv(0, "keep-action"), replace(0, 5)])
    t.play_all([draw(1, "discard"), replace(1, 11)])
    t.play(play(0))
    assert decision(t) == ("draw-three", 0)
    assert {(m.kind, m.index) for m in legal_moves(t.state, 0)} == {("keep-action", 0), ("drop-action", 0)}
    with pytest.raises(IllegalMove, match="first"):
        t.play(Move(0, "keep", index=1, slot=3))
    t.play(mv(0, "drop-action", index=0))
    assert [t.dealer.values[h] for h in t.state.holding] == [6, 4, 11]  # replaced in place
    assert view(t.state, 1).values[t.state.holding[0]] is None
    t.play(Move(0, "keep", index=1, slot=3))
    assert grid(t, 0)[3] == 4


def test_a13_a_swapped_face_down_action_card_landing_face_up_is_found():
    a = [*GA[:5], RFE, *GA[6:]]
    t = started([a, GB], draw=[SWAP_OWN, 9, 7], options=AID)
    t.play_all([draw(0), mv(0, "keep-action"), replace(0, 3)])
    t.play_all([draw(1, "discard"), replace(1, 11)])
    t.play(play(0))
    t.play(Move(0, "swap", slot=5, slot2=6, face_up=(True, True)))
    assert decision(t) == ("found", 0)
    t.play(mv(0, "drop-action"))
    assert grid(t, 0)[6] == 7


def settle(state, events, dealer, seat):
    """Answer the requests in `events` as seat `seat`'s peer receives the answers."""
    out = list(events)
    for request in [e for e in events if isinstance(e, RevealRequest)]:
        state, more = apply(
            state, mask(Reveal(request.handle, request.to, dealer.values[request.handle]), seat)
        )
        out += more
    return state, out


def test_a13_a_lie_about_a_drawn_action_card_is_refused_by_the_liar_and_repaired_elsewhere():
    t = started(draw=[RFE, 9], options=AID)
    t.play(draw(0))
    card = t.state.holding[0]
    lie = replace(0, 5)
    with pytest.raises(IllegalMove, match="is an action card"):  # the drawer's own engine refuses it
        apply(t.state, lie)
    # Seat 1's peer cannot know: it accepts the move, and once the card is shown names the liar
    # and goes on as the rules would have: the action card turned up in seat 0's grid is found.
    other, events = settle(*apply(t.mirrors[1], lie), t.dealer, 1)
    voided = [e for e in events if isinstance(e, DeclarationVoided)]
    assert voided == [DeclarationVoided(0, "seat 0 played a remove-from-each as a playing card", card)]
    assert other.step == "found" and other.actor == 0
    # the other way round: a playing card passed off as an action card goes to the discard pile
    t = started(draw=[8, 9], options=AID)
    t.play(draw(0))
    card = t.state.holding[0]
    with pytest.raises(IllegalMove, match="not an action card"):
        apply(t.state, mv(0, "keep-action"))
    other, events = settle(*apply(t.mirrors[1], mv(0, "keep-action")), t.dealer, 1)
    assert [e.seat for e in events if isinstance(e, DeclarationVoided)] == [0]
    assert other.held[0] == () and other.discard[-1] == card and other.public_value(card) == 8


# --- stars-only, numbers-only -------------------------------------------------------------------


def test_a13_stars_only_1_to_6_players_no_action_cards_and_stars_take_nothing():
    options = ActionOptions.parse({"variant": "stars-only"})
    assert len(options.playing_deck) == 120 and options.action_deck == ()
    with pytest.raises(OptionError, match="1 to 6 players, not 7"):
        new_game("skyjo-action", 7, {"variant": "stars-only"})
    t = started(draw=[S], options={"variant": "stars-only"})
    assert {m.kind for m in legal_moves(t.state, 0)} == {"draw"}
    t.play_all([draw(0), replace(0, 5)])
    assert decision(t) == ("choose", 1)


def test_a13_stars_only_solitaire_plays_to_the_end():
    state, moves = play_game("skyjo-action", 1, {"variant": "stars-only"}, "solo", [RandomBot("solo")])
    assert state.phase == "game_over" and state.winners == (0,) and moves > 0
    assert state.totals[0] >= 100
    assert all(not record.doubled for record in state.history)  # nobody to compare with


def test_a13_numbers_only_1_to_4_players_without_stars():
    options = ActionOptions.parse({"variant": "numbers-only"})
    assert set(options.playing_deck) == set(NUMBERS) and len(options.playing_deck) == 105
    assert new_game("skyjo-action", 1, {"variant": "numbers-only"})[0].players == 1
    with pytest.raises(OptionError, match="1 to 4 players, not 5"):
        new_game("skyjo-action", 5, {"variant": "numbers-only"})
    assert new_game("skyjo-action", 6, {"variant": "numbers-only", "grid": "3x3"})[0].players == 6


# --- the 3x3 grid -------------------------------------------------------------------------------


def test_a13_3x3_grid_nine_cards_one_revealed_rows_and_columns_of_three():
    t = table([HA, HB], discard=4, options={"grid": "3x3"})
    assert len(t.state.grid) == 18 and t.state.to_reveal == (1, 1)
    assert all(len(m.slots) == 1 for m in legal_moves(t.state, 0))
    t.play_all([reveal(0, 0), reveal(1, 0)])  # 9 against 5
    assert t.state.to_move() == 0
    row = [4, 4, 1, 3, 6, 5, 2, 7, 8]
    t = table([row, HB], discard=4, options={"grid": "3x3", "setup_reveals": 2})
    t.play_all([reveal(0, 0, 1), reveal(1, 0, 1)])
    t.play_all([draw(0, "discard"), replace(0, 2)])  # row 0: 4, 4, 4
    assert [e for e in t.events if isinstance(e, LineRemoved)] == [
        LineRemoved(0, "row", (0, 1, 2), (4, 4, 4))
    ]
    assert grid(t, 0)[:3] == [None, None, None]
    with pytest.raises(OptionError, match="at most 8 on a 3x3 grid"):
        new_game("skyjo-action", 2, {"grid": "3x3", "setup_reveals": 9})


def test_a13_eight_players_on_3x3_grids_play_whole_games_in_every_variant():
    for variant in ("standard", "action-in-deck", "stars-only"):
        result = simulate("skyjo-action", 8, 1, 5, {"grid": "3x3", "variant": variant, "target_score": 30})
        assert result.games == 1 and result.rounds >= 1
