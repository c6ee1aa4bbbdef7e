"""SKYJO ACTION: the round, turns, stars, lines, scoring (R-A1 .. R-A10, R-C1 .. R-C4).

The action cards themselves (R-A11, R-A12) are in test_action_cards.py, the variants (R-A13) in
test_action_variants.py, random play in test_action_properties.py.
"""

from __future__ import annotations

from collections import Counter

import pytest

from skyjo_p2p import IllegalMove, Move, OptionError, apply, legal_moves, new_game, view
from skyjo_p2p.action import ACTION, PLAYING, ActionOptions
from skyjo_p2p.action.cards import KINDS
from skyjo_p2p.action.facts import ActionTaken, ExtraTurns, LinesKept
from skyjo_p2p.core.events import (
    DealRequest,
    LineRemoved,
    RandomRequest,
    RevealRequest,
    RoundEnded,
    ShuffleRequest,
    TurnBegan,
)
from tests.skyjo_p2p.test_action_helpers import (
    DEFENSE,
    DRAW3,
    EXTRA,
    GA,
    GB,
    GC,
    PEEK,
    RFE,
    SWAP_OTHERS,
    SWAP_OWN,
    S,
    decision,
    discard,
    draw,
    flip,
    grid,
    hand_over,
    held,
    kinds,
    mv,
    names,
    pass_,
    play,
    replace,
    reveal,
    started,
    table,
    take,
)
from tests.support import Table

MARKET = [RFE, SWAP_OWN, EXTRA, DRAW3]

# --- A1: the cards ------------------------------------------------------------------------------


def test_a1_default_composition_is_one_table_of_120_playing_and_27_action_cards():
    options = ActionOptions.parse({})
    counts = Counter(options.playing_deck)
    assert len(options.playing_deck) == 120
    assert (counts[-2], counts[-1], counts[0], counts[S]) == (3, 7, 11, 15)
    assert all(counts[v] == 7 for v in range(1, 13))
    actions = Counter(options.action_deck)
    assert len(options.action_deck) == 27 and set(actions) == set(KINDS)
    assert all(n == 3 for n in actions.values())
    t = Table("skyjo-action", 3, seed=3)  # the dealer deals exactly that
    assert Counter(t.dealer.values[h] for h in range(120)) == counts
    assert Counter(t.dealer.values[h] for h in range(120, 147)) == actions


def test_a1_card_counts_option_overrides_entries_of_the_table():
    options = ActionOptions.parse({"card_counts": "star:10, -2:5, defense:4"})
    counts = Counter(options.playing_deck)
    assert (counts[S], counts[-2], counts[-1]) == (10, 5, 7)
    assert len(options.playing_deck) == 117
    assert Counter(options.action_deck)[DEFENSE] == 4 and len(options.action_deck) == 28
    t = Table("skyjo-action", 2, {"card_counts": "star:10,-2:5,defense:4"}, seed=1)
    assert Counter(t.dealer.values[h] for h in range(117)) == counts
    for bad, reason in [
        ("star:x", "not a whole number"),
        ("joker:3", "CARD:COUNT"),
        ("star:99", "not in 0..50"),
        ("1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0", "no positive number"),
    ]:
        with pytest.raises(OptionError, match=reason):
            new_game("skyjo-action", 2, {"card_counts": bad})


def test_a1_a12_action_kinds_option_selects_the_action_cards():
    options = ActionOptions.parse({"action_kinds": "defense, extra-turns"})
    assert Counter(options.action_deck) == {DEFENSE: 3, EXTRA: 3}
    with pytest.raises(OptionError, match="unknown action card 'joker'"):
        ActionOptions.parse({"action_kinds": "defense,joker"})


def test_a1_a13_two_to_eight_players_seven_and_eight_need_the_3x3_grid():
    with pytest.raises(OptionError, match="2 to 6 players, not 1"):
        new_game("skyjo-action", 1)
    with pytest.raises(OptionError, match="7 or 8 players need the 3x3 grid"):
        new_game("skyjo-action", 7)
    for players in (2, 6):
        assert new_game("skyjo-action", players)[0].players == players
    for players in (7, 8):
        assert new_game("skyjo-action", players, {"grid": "3x3"})[0].players == players
    with pytest.raises(OptionError, match="1 to 8"):
        new_game("skyjo-action", 9, {"grid": "3x3"})


# --- A2: the deal, the market -------------------------------------------------------------------


def test_a2_deal_two_decks_market_of_four_face_up_and_the_action_deck():
    state, events = new_game("skyjo-action", 2)
    assert events[0] == DealRequest(PLAYING, 0, 120)
    assert events[1] == DealRequest(ACTION, 120, 27)
    t = table([GA, GB], discard=5, market=MARKET, action_deck=[PEEK])
    state = t.state
    assert names(t, state.market) == ["remove-from-each", "swap-own", "extra-turns", "draw-three"]
    for seat in (0, 1, None):  # the market is face up: everyone sees it
        assert all(view(state, seat).values[h] is not None for h in state.market)
    assert len(state.action_deck) == 23 and state.action_discard == ()
    top = state.action_deck[-1]
    assert t.dealer.values[top] == PEEK  # the action deck's top, face down: nobody sees it
    assert all(view(state, seat).values[top] is None for seat in (0, 1))
    assert [t.dealer.values[h] for h in state.slots_of(1)] == GB  # dealt as R-S3
    assert state.public_value(state.discard_top()) == 5
    assert len(state.draw) == 120 - 24 - 1
    assert grid(t, 0) == ["?"] * 12 and held(t, 0) == [] and t.deciders() == (0, 1)


# --- A3: the first player, stars at setup -------------------------------------------------------


def test_a3_first_player_counts_a_star_as_zero():
    a = [S, 5, *GA[2:]]  # 0 + 5 = 5: a star counting 20 would make seat 0 start
    t = table([a, GB], market=MARKET)
    t.play_all([reveal(0, 0, 1), reveal(1, 0, 1)])  # seat 1 shows 4 + 2 = 6
    assert decision(t) == ("offer", 0)  # the star turned at setup (R-A6)
    t.play(pass_(0))
    assert t.state.to_move() == 1 and decision(t) == ("choose", 1)
    assert held(t, 0) == []


def test_a3_setup_star_takes_resolve_in_turn_order_from_the_first_player():
    g0 = [S, 1, *GA[2:]]  # 1
    g1 = [S, S, *GB[2:]]  # 0, two stars
    g2 = [12, S, *GC[2:]]  # 12: seat 2 starts
    t = table([g0, g1, g2], market=MARKET, action_deck=[PEEK, DEFENSE, SWAP_OTHERS])
    t.play_all([reveal(0, 0, 1), reveal(1, 0, 1), reveal(2, 0, 1)])
    order = []
    while t.state.step == "offer":
        order.append(t.state.actor)
        assert t.state.to_move() is None  # no turn has begun yet
        t.play(take(t.state.actor, 0))
    assert order == [2, 0, 1, 1]
    assert held(t, 2) == ["remove-from-each"] and held(t, 0) == ["peek-line"]
    assert held(t, 1) == ["defense", "swap-with-others"]  # the market refilled at once each time
    assert t.state.to_move() == 2


def test_a3_full_tie_is_a_joint_random_choice():
    a = [4, 2, *GA[2:]]
    b = [4, 2, *GB[2:]]
    starters = set()
    for seed in range(10):
        t = table([a, b], seed=seed)
        t.play_all([reveal(0, 0, 1), reveal(1, 0, 1)])
        assert [e for e in t.events if isinstance(e, RandomRequest)] == [RandomRequest("first-player", 2)]
        starters.add(t.state.to_move())
    assert starters == {0, 1}


# --- A4: three kinds of turn --------------------------------------------------------------------


def test_a4_a_turn_is_a_playing_card_turn_or_taking_or_playing_an_action_card():
    t = started(market=MARKET, action_deck=[PEEK])
    assert kinds(t, 0) == {"draw", "take"}  # nothing held yet: nothing to play
    assert len([m for m in legal_moves(t.state, 0) if m.kind == "take"]) == 5  # four shown + the deck
    t.play(take(0, 1))  # swap-own from the market: that is the whole turn
    assert held(t, 0) == ["swap-own"]
    assert names(t, t.state.market) == ["remove-from-each", "peek-line", "extra-turns", "draw-three"]
    assert t.state.to_move() == 1
    t.play(take(1))  # the action deck's top
    assert t.state.to_move() == 0
    assert kinds(t, 0) == {"draw", "take", "play", "discard-action"}
    t.play(mv(0, "discard-action", index=0))  # discard it unused: also a whole turn
    assert held(t, 0) == [] and names(t, t.state.action_discard) == ["swap-own"]
    assert t.state.to_move() == 1


def test_a4_the_action_deck_top_is_shown_to_everyone_when_taken():
    t = started(market=MARKET, action_deck=[PEEK])
    handle = t.state.action_deck[-1]
    events = t.play(take(0))
    assert RevealRequest(handle, None) in events
    assert all(view(t.state, seat).values[handle] == PEEK for seat in (0, 1, None))
    assert ActionTaken(0, handle, "action-deck", False) in events


def test_a4_a_card_taken_this_turn_cannot_be_played_in_it():
    # Turns end when a card is taken, so the position is built by hand (as a star's take would leave it).
    t = started(market=MARKET)
    t.play(take(0, 0))
    t.play(take(1, 0))
    state = t.state.copy()
    state.fresh = (state.held[0][0],)
    with pytest.raises(IllegalMove, match="from your next turn"):
        apply(state, play(0))
    assert all(m.kind != "play" for m in legal_moves(state, 0))


def test_a4_extra_turns_are_new_turns_a_card_taken_in_one_is_playable_in_the_next():
    t = started(market=[EXTRA, DRAW3, PEEK, RFE])
    t.play(take(0, 0))  # extra-turns
    t.play(take(1, 3))
    t.play(play(0))  # extra-turns: this turn, then two more
    assert t.state.to_move() == 0 and decision(t) == ("choose", 0)
    t.play(take(0, 1))  # first extra turn: take draw-three
    assert t.state.to_move() == 0  # second extra turn
    assert "play" in kinds(t, 0)  # held before this turn (R-A4)
    t.play(play(0))
    assert decision(t) == ("draw-three", 0)


# --- A5: the final lap --------------------------------------------------------------------------


def final_lap(options=None, market=MARKET):
    """Seat 1 holds a card; seat 0 turns its last card: seat 1's is the final turn."""
    t = table(
        [GA, GB], discard=5, draw=[9, 9], market=market, options={"setup_reveals": 11, **(options or {})}
    )
    t.play_all([reveal(0, *range(11)), reveal(1, *range(11))])  # 10 against 22: seat 1 starts
    assert t.state.to_move() == 1
    t.play(take(1, 0))
    hand_over(t, 0, 11)
    assert t.state.ender == 0 and t.state.to_move() == 1
    return t


def test_a5_no_action_card_is_played_or_discarded_once_the_round_end_is_triggered():
    t = final_lap()
    assert held(t, 1) == ["remove-from-each"]
    assert kinds(t, 1) == {"draw", "take"}
    with pytest.raises(IllegalMove, match=r"no one may play an action card \(R-A5\)"):
        t.play(play(1))
    with pytest.raises(IllegalMove, match=r"no one may discard an action card \(R-A5\)"):
        t.play(mv(1, "discard-action", index=0))
    t.play(take(1, 0))  # taking is still allowed (it only costs 10 points); then the round is scored
    record = next(e for e in t.events if isinstance(e, RoundEnded))
    assert record.raw[1] == sum(GB) + 20


@pytest.mark.parametrize("kind", KINDS)
def test_a5_every_action_card_is_refused_in_the_final_lap(kind):
    t = final_lap(market=[kind, RFE, RFE, SWAP_OWN])
    with pytest.raises(IllegalMove, match="R-A5"):
        t.play(play(1))


# --- A6: stars ----------------------------------------------------------------------------------


def test_a6_star_placed_from_the_draw_pile_lets_its_owner_take_an_action_card():
    t = started(draw=[S], market=MARKET, action_deck=[PEEK])
    t.play_all([draw(0), replace(0, 5)])
    assert decision(t) == ("offer", 0)
    offered = legal_moves(t.state, 0)
    assert {(m.kind, m.source, m.index) for m in offered} == {
        ("take", "market", 0),
        ("take", "market", 1),
        ("take", "market", 2),
        ("take", "market", 3),
        ("take", "action-deck", None),
        ("pass", None, None),
    }
    events = t.play(take(0, 2))
    assert held(t, 0) == ["extra-turns"] and t.state.to_move() == 1
    assert any(isinstance(e, ActionTaken) and e.star for e in events)


def test_a6_star_taken_from_the_discard_pile_and_placed_wakes():
    t = started(discard=S, market=MARKET)
    t.play_all([draw(0, "discard"), replace(0, 2)])
    assert decision(t) == ("offer", 0)
    t.play(take(0))
    assert len(held(t, 0)) == 1


def test_a6_star_turned_face_up_by_a_flip_wakes():
    a = [*GA[:5], S, *GA[6:]]
    t = started([a, GB], draw=[9], market=MARKET)
    t.play_all([draw(0), discard(0), flip(0, 5)])
    assert decision(t) == ("offer", 0)
    t.play(pass_(0))  # the take is optional
    assert held(t, 0) == [] and t.state.to_move() == 1


def test_a6_star_drawn_and_discarded_does_not_wake():
    t = started(draw=[S], market=MARKET)
    t.play_all([draw(0), discard(0), flip(0, 3)])
    assert decision(t) == ("choose", 1)


def test_a6_end_of_round_reveal_does_not_wake_a_star():
    b = [*GB[:11], S]  # seat 1's last face-down card is a star
    t = table([GA, b], draw=[9], market=MARKET, options={"setup_reveals": 11})
    t.play_all([reveal(0, *range(11)), reveal(1, *range(11))])  # 10 against 22: seat 1 starts
    t.play(take(1, 0))
    hand_over(t, 0, 11)  # seat 0 ends the round; seat 1's star is still face down
    assert t.state.ender == 0
    t.play(take(1, 0))  # seat 1's last turn; then every card is turned
    taken = [e for e in t.events if isinstance(e, ActionTaken)]
    assert len(taken) == 2 and not any(e.star for e in taken)  # the star turned at the end: no take
    assert t.state.round == 2 and t.state.phase == "setup"


def test_a6_no_offer_when_there_is_nothing_to_take():
    options = {"action_kinds": "defense", "card_counts": "defense:1"}
    t = started(draw=[S], options=options)
    assert names(t, [h for h in t.state.market if h >= 0]) == ["defense"]
    t.play(take(0, 0))  # the market is empty now and both action piles are empty (R-A10)
    t.play_all([draw(1), replace(1, 5)])  # a star placed
    assert decision(t) == ("choose", 0)  # no offer: nothing to take


# --- A7: lines ----------------------------------------------------------------------------------


def test_a7_column_of_equal_numbers_is_removed_onto_the_discard_above_the_replaced_card():
    a = [7, 1, 2, 3, 7, 4, 5, 6, 8, 9, 10, 11]
    t = started([a, GB], discard=7, reveals=((0, 4), (0, 1)))  # 14 against 6: seat 0 starts
    t.play_all([draw(0, "discard"), replace(0, 8)])
    removed = [e for e in t.events if isinstance(e, LineRemoved)]
    assert removed == [LineRemoved(0, "column", (0, 4, 8), (7, 7, 7))]
    assert grid(t, 0)[0::4] == [None, None, None]
    assert names(t, t.state.discard[-4:]) == [8, 7, 7, 7]


def test_a7_row_of_four_equal_numbers_is_removed():
    a = [3, 3, 3, 1, 1, 2, 4, 5, 6, 7, 8, 9]
    t = started([a, GB], discard=3, reveals=((0, 1, 2), (4, 5, 6)), options={"setup_reveals": 3})
    t.play_all([draw(0, "discard"), replace(0, 3)])
    assert grid(t, 0)[:4] == [None] * 4


def test_a7_row_keeps_three_cards_once_a_column_is_gone():
    a = [4, 4, 4, 9, 1, 2, 3, 9, 5, 6, 7, 10]  # column 3 is 9, 9, ?; row 0 is 4, 4, 4, 9
    t = started([a, GB], discard=9, reveals=((0, 1, 2, 3, 7), (0, 1, 2, 3, 4)), options={"setup_reveals": 5})
    t.play_all([draw(0, "discard"), replace(0, 11)])
    removed = [(e.line, e.slots) for e in t.events if isinstance(e, LineRemoved)]
    assert removed == [("column", (3, 7, 11)), ("row", (0, 1, 2))]  # the column, then the 3-card row


def test_a7_line_with_a_face_down_card_is_not_complete():
    a = [7, 1, 2, 3, 7, 4, 5, 6, 8, 9, 10, 11]
    t = started([a, GB], discard=7, reveals=((4, 8), (0, 1)))  # 15 against 6
    t.play_all([draw(0, "discard"), replace(0, 8)])  # column 0: ?, 7, 7 with a 7 face down
    assert grid(t, 0)[0::4] == ["?", 7, 7]
    assert not [e for e in t.events if isinstance(e, LineRemoved)]


def test_a7_lines_turned_at_setup_go_before_the_first_turn():
    a = [7, 1, 2, 3, 7, 4, 5, 6, 7, 9, 10, 11]
    t = table([a, GB], options={"setup_reveals": 3})
    t.play_all([reveal(0, 0, 4, 8), reveal(1, 0, 1, 2)])  # seat 0 shows 21 (three 7s) and starts
    removed = [i for i, e in enumerate(t.events) if isinstance(e, LineRemoved)]
    began = [i for i, e in enumerate(t.events) if isinstance(e, TurnBegan)]
    assert len(removed) == 1 and removed[0] < began[0]
    assert grid(t, 0)[0::4] == [None, None, None] and t.state.to_move() == 0


def stars_column(column, discard, options=None, draw_=()):
    """Seat 0's column 0 becomes `column` plus the discard top (put into slot 8)."""
    a = [column[0], 1, 2, 3, column[1], 4, 5, 6, 12, 9, 10, 11]
    t = started([a, GA], discard=discard, draw=draw_, reveals=((0, 4), (1, 9)), options=options)  # -4
    while t.state.step == "offer":
        t.play(pass_(t.state.actor))
    t.play_all([draw(0, "discard"), replace(0, 8)])
    while t.state.step == "offer":
        t.play(pass_(t.state.actor))
    return t


def test_a7_equal_numbers_plus_a_star_may_be_removed_in_the_order_the_owner_picks():
    t = stars_column([5, S], discard=5)
    assert decision(t) == ("lines", 0)
    moves = legal_moves(t.state, 0)
    assert {m.kind for m in moves} == {"remove-line", "keep-lines"}
    orders = {m.order or (0, 4, 8) for m in moves if m.kind == "remove-line"}
    assert len(orders) == 3  # the star at the bottom, in the middle or on top of the discard
    t.play(Move(0, "remove-line", line="column", index=0, order=(0, 8, 4)))  # the star last: on top
    assert names(t, t.state.discard[-4:]) == [12, 5, 5, "*"]
    assert t.state.public_value(t.state.discard_top()) == S
    assert t.state.to_move() == 1


def test_a7_owner_may_keep_an_optional_line_and_is_not_asked_again_while_it_is_unchanged():
    t = stars_column([5, S], discard=5, draw_=[9, 9])
    events = t.play(mv(0, "keep-lines"))
    assert LinesKept(0, (("column", 0),)) in events
    assert grid(t, 0)[0::4] == [5, "*", 5] and t.state.to_move() == 1
    hand_over(t, 1, 5)
    assert decision(t) == ("choose", 0)  # not offered again


def test_a7_a_kept_line_is_offered_again_once_it_changes():
    t = stars_column([5, S], discard=5, draw_=[5])
    t.play(mv(0, "keep-lines"))
    t.play_all([draw(1), discard(1)])  # seat 1 discards the 5 drawn
    t.play(flip(1, 5))
    t.play_all([draw(0, "discard"), replace(0, 0)])  # another 5 in slot 0: a new line of 5, *, 5
    assert decision(t) == ("lines", 0)


def test_a7_two_stars_and_one_number_is_not_a_line_by_default_wild_min_numbers_option():
    t = stars_column([S, S], discard=5)
    assert decision(t) == ("choose", 1)
    t = stars_column([S, S], discard=5, options={"wild_min_numbers": 1})
    assert decision(t) == ("lines", 0)


def test_a7_a_line_of_stars_may_be_removed_or_kept():
    t = stars_column([S, S], discard=S)
    assert decision(t) == ("lines", 0)
    assert {m.kind for m in legal_moves(t.state, 0)} == {"remove-line", "keep-lines"}
    t.play(Move(0, "remove-line", line="column", index=0))
    assert grid(t, 0)[0::4] == [None, None, None]


def test_a7_mandatory_lines_cannot_be_kept():
    a = [6, 6, 6, 6, 6, 2, 4, 5, 6, 7, 8, 9]  # row 0 and column 0: equal numbers sharing slot 0
    t = table([a, GB], discard=1, draw=[10], options={"setup_reveals": 11})
    t.play(reveal(0, *range(1, 12)))
    t.play(reveal(1, *range(11)))
    assert t.state.to_move() == 0
    t.play_all([draw(0), discard(0), flip(0, 0)])
    assert decision(t) == ("lines", 0)  # they share a card: the owner picks the order
    assert {(m.kind, m.line, m.index) for m in legal_moves(t.state, 0)} == {
        ("remove-line", "column", 0),
        ("remove-line", "row", 0),
    }
    with pytest.raises(IllegalMove, match="must be removed"):
        t.play(mv(0, "keep-lines"))
    t.play(Move(0, "remove-line", line="row", index=0))
    assert grid(t, 0)[:5] == [None, None, None, None, 6]  # the column keeps 2 cards: no longer a line


# --- A8: scoring --------------------------------------------------------------------------------

# The official scoring example (seed file 004): A ends the round by revealing C's last card with
# swap-with-others; A has 10 (doubled to 20: C also has 10), B 24 with one action card and a
# column 12, *, 12 removed at the end, C 10 with a kept column of three stars (-10).
EX_A = [S, 2, -1, 7, 0, -2, 3, 7, 10, 0, -2, 4]
EX_B = [12, 7, 4, 1, S, S, S, 2, 12, 0, 1, -1]
EX_C = [2, -2, 5, S, 0, 0, 2, S, 2, 11, 0, S]


def play_official_example() -> Table:
    t = table(
        [EX_A, EX_B, EX_C],
        discard=7,
        draw=[9, 9, 2],
        market=[SWAP_OTHERS, PEEK, EXTRA, DRAW3],
        action_deck=[SWAP_OWN],
        options={"setup_reveals": 10},
    )
    t.play(reveal(0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10))  # A: 24, slots 9 and 11 face down
    t.play(reveal(1, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11))  # B: 14, slots 0 and 8 face down
    t.play(reveal(2, 0, 2, 3, 4, 6, 7, 8, 9, 10, 11))  # C: 22, slots 1 and 5 face down
    # stars turned at setup, in turn order from A (R-A3): A takes swap-with-others, B peek-line
    assert decision(t) == ("offer", 0)
    t.play(take(0, 0))
    t.play_all([take(1, 1), pass_(1), pass_(1), pass_(2), pass_(2), pass_(2)])
    assert decision(t) == ("lines", 2)  # C's column of stars, complete since setup: keep it
    t.play(mv(2, "keep-lines"))
    assert t.state.to_move() == 0
    t.play_all([draw(0, "discard"), replace(0, 11)])  # A: column 7, 7, 7 goes (R-A7)
    hand_over(t, 1, 8)  # B
    hand_over(t, 2, 1)  # C: its kept star column is not offered again (unchanged)
    # A plays swap-with-others: A's 0 for C's last face-down card (a 0), A's face-down 0 for B's 0
    t.play(play(0))
    t.play(mv(0, "exchange", slot=4, target=2, slot2=5, face_up=[True, True]))
    t.play(mv(0, "exchange", slot=9, target=1, slot2=9, face_up=[True, True]))
    assert t.state.ender == 0  # C's grid has no face-down card: A ended the round (R-A9)
    t.play_all([draw(1), discard(1), flip(1, 0)])  # B's last turn: B's column 12, *, 12 complete
    assert decision(t) == ("lines", 1)
    t.play(mv(1, "keep-lines"))
    t.play_all([draw(2, "discard"), replace(2, 0)])  # C's last turn: the 2 for its 2
    return t


def test_a8_official_scoring_example_20_24_10():
    t = play_official_example()
    record = next(e for e in t.events if isinstance(e, RoundEnded))
    assert record.ender == 0
    assert record.raw == (10, 24, 10)
    assert record.scores == (20, 24, 10) and record.doubled
    assert t.state.totals == [20, 24, 10]
    removed = [e for e in t.events if isinstance(e, LineRemoved)]
    assert removed[-1] == LineRemoved(1, "column", (0, 4, 8), (12, S, 12))  # decided for B at the end


def test_a8_held_action_cards_score_10_each():
    t = final_lap()
    t.play(take(1, 0))  # seat 1 now holds two cards
    record = next(e for e in t.events if isinstance(e, RoundEnded))
    assert record.raw == (sum(GA) - 0, sum(GB) + 20)


def test_a8_star_lines_score_minus_10_and_minus_15_each_star_once():
    from skyjo_p2p.action.lines import star_bonus
    from skyjo_p2p.grid import CLASSIC, SMALL

    row_and_column = (S, S, S, S, S, 1, 1, 1, S, 2, 2, 2)  # row 0 (4 stars) and column 0 share slot 0
    assert star_bonus(row_and_column, CLASSIC) == 15  # not 25: the shared star counts once
    two_columns = (S, S, 1, 1, S, S, 2, 2, S, S, 3, 3)
    assert star_bonus(two_columns, CLASSIC) == 20
    short_row = (None, S, S, S, None, 1, 2, 3, None, 4, 5, 6)  # a row of 3 once a column is gone
    assert star_bonus(short_row, CLASSIC) == 10
    assert star_bonus((S, S, S, 1, 2, 3, 4, 5, 6), SMALL) == 10


def test_a8_end_of_round_removals_are_decided_for_the_owner_to_minimise_the_score():
    from skyjo_p2p.action.lines import best_removals
    from skyjo_p2p.grid import CLASSIC

    # column 0 is 12, *, 12 (optional: removing it saves 24); column 3 is *, *, * (keeping: -10)
    values = (12, 1, 2, S, S, 3, 4, S, 12, 5, 6, S)
    score, removals = best_removals(values, CLASSIC, 2)
    assert [(ln.kind, ln.index) for ln in removals] == [("column", 0)]
    assert score == 1 + 2 + 3 + 4 + 5 + 6 - 10
    # a mandatory line of -2s must go even though keeping it would score less
    negative = (-2, 1, 2, 3, -2, 4, 5, 6, -2, 7, 8, 9)
    score, removals = best_removals(negative, CLASSIC, 2)
    assert score == 45 and [(ln.kind, ln.index) for ln in removals] == [("column", 0)]
    # overlapping optional lines: the order giving the lowest score is chosen. Row 0 first would
    # break column 0; column 0 first leaves row 0 as 12, 12, 12, which must go too.
    crossing = (S, 12, 12, 12, 12, 0, 1, 2, 12, 3, 4, 5)
    score, removals = best_removals(crossing, CLASSIC, 2)
    assert [(ln.kind, ln.index) for ln in removals] == [("column", 0), ("row", 0)] and score == 15


def test_a8_kept_line_in_play_is_still_decided_at_the_end():
    a = [5, 1, 2, 3, S, 4, 6, 7, 12, 9, 10, 11]
    t = table([a, GB], discard=5, draw=[9, 9, 9], options={"setup_reveals": 10})
    t.play_all([reveal(0, 0, 1, 2, 3, 4, 5, 6, 7, 9, 10), reveal(1, *range(10))])  # 47 against 21
    t.play(pass_(0))  # the star turned at setup
    t.play_all([draw(0, "discard"), replace(0, 8)])  # column 0: 5, *, 5
    t.play(mv(0, "keep-lines"))
    hand_over(t, 1, 10)
    hand_over(t, 0, 11)  # seat 0 ends the round, its kept column still there
    hand_over(t, 1, 11)
    removed = [e for e in t.events if isinstance(e, LineRemoved) and e.seat == 0]
    assert removed == [LineRemoved(0, "column", (0, 4, 8), (5, S, 5))]  # 10 points less
    record = next(e for e in t.events if isinstance(e, RoundEnded))
    assert record.raw[0] == 1 + 2 + 3 + 4 + 6 + 7 + 9 + 10 + 11


# --- A9: the round end ---------------------------------------------------------------------------


def test_a9_round_ended_by_another_players_grid_counts_for_the_active_player():
    t = play_official_example()
    turns = [e.seat for e in t.events if isinstance(e, TurnBegan)]
    assert turns == [0, 1, 2, 0, 1, 2]  # A's turn with the exchange, then B and C once more


def test_a9_extra_turns_are_forfeited_when_the_round_ends():
    t = table([GA, GB], draw=[9], market=[EXTRA, RFE, RFE, RFE], options={"setup_reveals": 11})
    t.play_all([reveal(0, *range(11)), reveal(1, *range(11))])  # 10 against 22: seat 1 starts
    t.play(take(1, 0))
    t.play(take(0, 0))
    t.play(play(1))  # extra-turns: two more turns for seat 1
    assert t.state.to_move() == 1
    hand_over(t, 1, 11)  # the first extra turn: seat 1 has no face-down card left
    assert t.state.ender == 1
    assert ExtraTurns(1, 0, 0) in t.events  # the second extra turn is forfeited
    assert t.state.to_move() == 0 and t.state.extra == 0


def test_a9_every_other_player_plays_exactly_one_more_turn():
    t = table([GA, GB, GC], draw=[9] * 6, options={"setup_reveals": 11})
    t.play_all([reveal(s, *range(11)) for s in range(3)])
    first = t.state.to_move()
    hand_over(t, first, 11)
    assert t.state.ender == first
    for _ in range(2):
        hand_over(t, t.state.to_move(), 11)
    turns = [e.seat for e in t.events if isinstance(e, TurnBegan)]
    assert turns == [first, (first + 1) % 3, (first + 2) % 3]
    assert t.state.round == 2


# --- A10: empty piles ---------------------------------------------------------------------------

SMALL_DECK = "-2:0,-1:0,0:0,11:0,12:0,star:0," + ",".join(f"{v}:3" for v in range(1, 11))


def test_a10_empty_draw_pile_reshuffles_every_discard_but_the_top():
    t = Table("skyjo-action", 2, {"variant": "stars-only", "card_counts": SMALL_DECK}, seed=4)
    t.play_all([reveal(0, 0, 1), reveal(1, 0, 1)])
    assert len(t.state.draw) == 30 - 24 - 1
    while t.state.draw:
        seat = t.state.to_move()
        t.play_all([draw(seat), discard(seat), flip(seat, t.state.face_down_slots(seat)[0])])
        while t.state.step == "lines":
            t.play(legal_moves(t.state, t.state.actor)[0])
    pile = list(t.state.discard)
    events = t.play(draw(t.state.to_move()))
    shuffles = [e for e in events if isinstance(e, ShuffleRequest)]
    assert len(shuffles) == 1 and shuffles[0].deck == PLAYING
    assert shuffles[0].handles == tuple(pile[:-1])
    assert t.state.discard == pile[-1:]


def test_a10_empty_action_deck_reshuffles_the_action_discard_and_empty_piles_leave_holes():
    options = {"action_kinds": "defense,extra-turns", "card_counts": "defense:2,extra-turns:3"}
    t = started(options=options, draw=[9] * 4)
    assert len(t.state.action_deck) == 1
    t.play(take(0))  # the deck's last card
    assert t.state.action_deck == ()
    t.play(take(1, 0))  # the market cannot be refilled: both action piles are empty (R-A10)
    assert t.state.market[0] == -1
    events = t.play(mv(0, "discard-action", index=0))  # a card on the action discard ...
    shuffles = [e for e in events if isinstance(e, ShuffleRequest)]
    assert len(shuffles) == 1 and shuffles[0].deck == ACTION  # ... becomes the action deck ...
    assert t.state.market[0] != -1  # ... and fills the hole as the next turn begins
    assert t.state.action_discard == () and t.state.action_deck == ()
    # both piles are empty again: the action deck cannot be taken from
    assert all(m.source != "action-deck" for m in legal_moves(t.state, 1))
    with pytest.raises(IllegalMove, match="action deck and the action discard are empty"):
        t.play(take(1))


# --- C1 .. C4 -----------------------------------------------------------------------------------


def test_c1_turns_go_clockwise_and_wrap():
    t = started([GA, GB, GC], draw=[9] * 6)
    order = []
    for turn in range(4):
        seat = t.state.to_move()
        order.append(seat)
        hand_over(t, seat, 4 + turn)
    assert order == [0, 1, 2, 0]


def test_c2_same_seed_same_game_and_engine_asks_for_every_random_choice():
    a = Table("skyjo-action", 3, seed=42)
    b = Table("skyjo-action", 3, seed=42)
    assert a.state.state_hash() == b.state.state_hash()
    assert [a.dealer.values[h] for h in range(147)] == [b.dealer.values[h] for h in range(147)]
    state, _ = new_game("skyjo-action", 3)
    assert state.pending and legal_moves(state, 0) == []
    with pytest.raises(IllegalMove, match="waiting"):
        apply(state, reveal(0, 0, 1))


def test_c3_only_the_drawer_sees_a_drawn_card_until_it_is_placed():
    t = started(draw=[11])
    events = t.play(draw(0))
    handle = t.state.holding[0]
    assert [e for e in events if isinstance(e, RevealRequest)] == [RevealRequest(handle, 0)]
    assert view(t.state, 0).values[handle] == 11
    assert view(t.state, 1).values[handle] is None
    t.play(replace(0, 6))
    assert view(t.state, 1).values[handle] == 11


def test_c4_illegal_moves_leave_the_state_unchanged_with_a_reason():
    t = started(market=MARKET)
    before = t.state.copy()
    for bad, reason in [
        (flip(0, 3), "turn one of your face-down|choose your turn"),
        (draw(1), "seat 0's turn"),
        (Move(0, "draw", source="floor"), "'deck' or 'discard'"),
        (take(0, 7), "market card by its index"),
        (play(0), "no action card"),
        (pass_(0), "choose your turn"),
        (reveal(0, 2, 3), "setup only"),
    ]:
        with pytest.raises(IllegalMove, match=reason):
            apply(t.state, bad)
        assert t.state == before
