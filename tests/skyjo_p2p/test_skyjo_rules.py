"""Classic SKYJO: one test (at least) per ruling R-S1 .. R-S11 and R-C1 .. R-C4."""

from __future__ import annotations

from collections import Counter

import pytest

from skyjo_p2p import IllegalMove, Move, OptionError, apply, legal_moves, new_game, view
from skyjo_p2p.core.events import (
    DealRequest,
    GameOver,
    LineRemoved,
    RandomRequest,
    RevealRequest,
    RoundEnded,
    ShuffleRequest,
    TurnBegan,
)
from skyjo_p2p.grid import CLASSIC, EMPTY
from skyjo_p2p.skyjo import COMPOSITION, DECK
from skyjo_p2p.skyjo.scenario import grid_report
from skyjo_p2p.skyjo.scoring import ender_rule
from tests.support import Table, build_deck

# Grids of the worked examples (official rules): A ends the round with 10, B has 24, C has 10.
# A reveals 12 and -2 (sum 10) and B reveals 4 and 2 (sum 6): A starts.
GRID_A = [12, -2, 0, 0, 1, 1, 2, -1, -1, -2, 0, 0]
GRID_B = [4, 2, 3, 3, 1, 2, 0, 1, 2, 3, 1, 2]
GRID_C = [1, 0, 2, 3, 0, -1, 2, 0, 3, 0, -1, 1]


def table(grids, discard=5, draw=(), options=None, seed=0, tail=()):
    front = [v for grid in grids for v in grid] + [discard, *draw]
    deck = build_deck(front, COMPOSITION, tail)
    return Table("skyjo", len(grids), options, seed=seed, decks={(1, DECK): deck})


def reveal(seat, a, b):
    return Move(seat, "reveal", slots=(a, b))


def draw(seat, source="deck"):
    return Move(seat, "draw", source=source)


def replace(seat, slot):
    return Move(seat, "replace", slot=slot)


def flip(seat, slot):
    return Move(seat, "flip", slot=slot)


def discard(seat):
    return Move(seat, "discard")


def grid_values(t: Table, seat: int):
    return grid_report(t.state, seat)


# --- S1, S2, S3: deck, grid, deal ------------------------------------------------------------


def test_s1_deck_has_150_cards_of_the_official_composition():
    counts = Counter(COMPOSITION)
    assert len(COMPOSITION) == 150
    assert counts[-2] == 5 and counts[-1] == 10 and counts[0] == 15
    assert all(counts[v] == 10 for v in range(1, 13))
    t = Table("skyjo", 4, seed=3)
    dealt = [t.dealer.values[h] for h in range(150)]
    assert Counter(dealt) == counts


def test_s1_player_count_is_2_to_8():
    with pytest.raises(OptionError):
        new_game("skyjo", 1)
    with pytest.raises(OptionError):
        new_game("skyjo", 9)
    for n in (2, 8):
        state, _ = new_game("skyjo", n)
        assert state.players == n


def test_s2_slots_are_row_major_and_columns_are_c_c4_c8():
    assert [CLASSIC.column(c).slots for c in range(4)] == [
        (0, 4, 8),
        (1, 5, 9),
        (2, 6, 10),
        (3, 7, 11),
    ]
    assert CLASSIC.row(1).slots == (4, 5, 6, 7)


def test_s2_removed_card_leaves_slot_empty_and_numbers_do_not_shift():
    grid = [7, 1, 2, 3, 7, 4, 5, 6, 9, 8, 10, 11]  # column 0 is 7, 7, ? with 9 at slot 8
    t = table([grid, GRID_B], discard=7, draw=[7])
    t.play_all([reveal(0, 0, 4), reveal(1, 0, 1)])
    t.play_all([draw(0, "discard"), replace(0, 8)])  # the discard 7 replaces the 9: column of 7s
    assert grid_values(t, 0)[:9] == [None, "?", "?", "?", None, "?", "?", "?", None]
    t.play_all([draw(1), discard(1), flip(1, 5)])
    t.play_all([draw(0), discard(0), flip(0, 11)])
    assert grid_values(t, 0)[11] == 11  # slot 11 is still slot 11


def test_s3_deal_order_setup_and_discard_start():
    t = table([GRID_A, GRID_B, GRID_C], discard=5, draw=[9, 8])
    state = t.state
    assert state.phase == "setup"
    assert [t.dealer.values[h] for h in state.slots_of(1)] == GRID_B
    assert state.public_value(state.discard_top()) == 5
    assert len(state.draw) == 150 - 36 - 1
    assert t.dealer.values[state.draw[-1]] == 9  # the next card is the draw pile's top
    assert all(grid_values(t, s) == ["?"] * 12 for s in range(3))
    # every seat may turn its two cards, in any order
    assert t.deciders() == (0, 1, 2)
    t.play(reveal(2, 0, 1))
    assert t.deciders() == (0, 1)
    assert grid_values(t, 2)[:2] == [1, 0]


def test_s3_setup_needs_exactly_two_face_down_cards():
    t = table([GRID_A, GRID_B])
    with pytest.raises(IllegalMove, match="exactly 2"):
        t.play(Move(0, "reveal", slots=(1,)))
    with pytest.raises(IllegalMove, match="exactly 2"):
        t.play(Move(0, "reveal", slots=(1, 1)))
    with pytest.raises(IllegalMove, match="no slot 12"):
        t.play(Move(0, "reveal", slots=(1, 12)))
    t.play(reveal(0, 0, 1))
    with pytest.raises(IllegalMove, match="already turned"):
        t.play(reveal(0, 2, 3))
    with pytest.raises(IllegalMove, match="setup is not finished"):
        t.play(draw(0))


# --- S4: who starts ---------------------------------------------------------------------------


def test_s4_worked_example_highest_sum_starts():
    t = table([GRID_A, GRID_B, GRID_C])
    t.play_all([reveal(1, 0, 1), reveal(2, 0, 1), reveal(0, 0, 1)])  # A: 12 + -2, B: 4 + 2, C: 1 + 0
    assert t.state.phase == "turn" and t.state.to_move() == 0


def test_s4_tied_sum_goes_to_highest_single_card():
    a = [6, 0, *GRID_A[2:]]  # 6 + 0 = 6
    b = [4, 2, *GRID_B[2:]]  # 4 + 2 = 6, highest card 4
    t = table([b, a])
    t.play_all([reveal(0, 0, 1), reveal(1, 0, 1)])
    assert t.state.to_move() == 1


def test_s4_full_tie_is_a_joint_random_choice():
    a = [4, 2, *GRID_A[2:]]
    b = [4, 2, *GRID_B[2:]]
    c = [0, 1, *GRID_C[2:]]
    starters = set()
    for seed in range(12):
        t = table([a, b, c], seed=seed)
        t.play_all([reveal(0, 0, 1), reveal(1, 0, 1), reveal(2, 0, 1)])
        asked = [e for e in t.events if isinstance(e, RandomRequest)]
        assert asked == [RandomRequest("first-player", 2)]  # the engine asks; it never decides
        starters.add(t.state.to_move())
    assert starters == {0, 1}


def test_s4_later_rounds_start_with_the_previous_ender():
    t = play_worked_example()
    assert t.state.round == 2 and t.state.phase == "setup"
    # round 2 is dealt from the seed; whatever is revealed, seat 0 (the ender) starts
    for seat in range(3):
        t.play(legal_moves(t.state, seat)[-1])
    assert t.state.to_move() == 0


# --- S5: a turn -------------------------------------------------------------------------------


def started(grids=None, discard=5, draw=(), options=None, reveals=((0, 4), (4, 6))):
    """Seat 0 turns slots 0 and 4, seat 1 (GRID_B: a 1 and a 0) slots 4 and 6: seat 0 starts."""
    t = table(grids or [GRID_A, GRID_B], discard=discard, draw=draw, options=options)
    for seat, (a, b) in enumerate(reveals):
        t.play(reveal(seat, a, b))
    assert t.state.to_move() == 0
    return t


def test_s5_first_draw_then_choices():
    t = started()
    assert {m.kind for m in legal_moves(t.state, 0)} == {"draw"}
    assert legal_moves(t.state, 1) == []
    with pytest.raises(IllegalMove, match="seat 0's turn"):
        t.play(draw(1))
    with pytest.raises(IllegalMove, match="first draw"):
        t.play(replace(0, 3))


def test_s5_taken_discard_must_replace_and_lands_face_up():
    t = started(discard=-2)
    t.play(draw(0, "discard"))
    kinds = {m.kind for m in legal_moves(t.state, 0)}
    assert kinds == {"replace"}
    with pytest.raises(IllegalMove, match="must replace"):
        t.play(discard(0))
    t.play(replace(0, 5))  # slot 5 was face down (a 1)
    assert grid_values(t, 0)[5] == -2
    assert t.state.public_value(t.state.discard_top()) == 1  # the replaced card, face up
    assert t.state.to_move() == 1


def test_s5_drawn_card_is_seen_by_the_drawer_only_until_placed():
    t = started(draw=[11])
    events = t.play(draw(0))
    handle = t.state.holding
    assert RevealRequest(handle, 0) in events
    assert view(t.state, 0).values[handle] == 11
    assert view(t.state, 1).values[handle] is None
    assert view(t.state, None).values[handle] is None
    t.play(discard(0))
    assert view(t.state, 1).values[handle] == 11  # discarded: public now


def test_s5_discard_then_flip_a_face_down_card():
    t = started(draw=[11])
    t.play_all([draw(0), discard(0)])
    assert {m.kind for m in legal_moves(t.state, 0)} == {"flip"}
    with pytest.raises(IllegalMove, match="already face up"):
        t.play(flip(0, 0))
    t.play(flip(0, 2))
    assert grid_values(t, 0)[2] == 0
    assert t.state.to_move() == 1


def test_s5_discard_needs_a_face_down_card():
    # Classic options cannot reach this position (a player with no face-down card ends the round),
    # so it is built by hand: the guard matters for SKYJO ACTION, where others can turn your cards.
    t = started(draw=[11])
    t.play(draw(0))
    state = t.state.copy()
    state.face_up[0:12] = [True] * 12
    assert {m.kind for m in legal_moves(state, 0)} == {"replace"}
    with pytest.raises(IllegalMove, match="no face-down card"):
        apply(state, discard(0))


def test_s5_replace_of_face_down_card_shows_it_on_the_discard_pile():
    t = started(draw=[-1])
    t.play_all([draw(0), replace(0, 11)])  # slot 11 holds a 0, face down
    assert grid_values(t, 0)[11] == -1
    assert t.state.public_value(t.state.discard_top()) == 0


# --- S6: columns ------------------------------------------------------------------------------


def test_s6_equal_column_goes_onto_the_discard_above_the_replaced_card():
    a = [9, 1, 2, 3, 9, 4, 5, 6, 7, 8, 10, 11]  # column 0: 9, 9, 7
    t = started([a, GRID_B], discard=9)
    t.play_all([draw(0, "discard"), replace(0, 8)])  # the discarded 9 replaces the 7
    removed = [e for e in t.events if isinstance(e, LineRemoved)]
    assert removed == [LineRemoved(0, "column", (0, 4, 8), (9, 9, 9))]
    pile = [t.state.public_value(h) for h in t.state.discard[-4:]]
    assert pile == [7, 9, 9, 9]  # the replaced 7 first, the column on top of it
    assert grid_values(t, 0)[0] is None


def test_s6_negative_triples_are_removed_too():
    a = [-1, 1, 2, 3, -1, 4, 5, 6, 0, 8, 10, 11]
    b = [-2, -2, 3, 3, 1, 2, 0, 1, 2, 3, 1, 2]
    t = started([a, b], discard=-1, reveals=((0, 4), (0, 1)))  # -2 against -4: seat 0 starts
    t.play_all([draw(0, "discard"), replace(0, 8)])
    assert grid_values(t, 0)[0::4] == [None, None, None]
    assert [t.state.public_value(h) for h in t.state.discard[-3:]] == [-1, -1, -1]


def row_of_threes(options):
    """Seat 0 turns three 3s of row 0 at setup, then puts the discarded 3 in slot 3."""
    a = [3, 3, 3, 1, 1, 2, 4, 5, 6, 7, 8, 9]
    t = table([a, GRID_B], discard=3, options={"setup_reveals": 3, **options})
    t.play_all([Move(0, "reveal", slots=(0, 1, 2)), Move(1, "reveal", slots=(4, 6, 7))])
    t.play_all([draw(0, "discard"), replace(0, 3)])
    return t


def test_s6_rows_are_not_removed_by_default():
    assert grid_values(row_of_threes({}), 0)[:4] == [3, 3, 3, 3]


def test_s6_s11_rows_option_removes_equal_rows():
    t = row_of_threes({"rows": True})
    assert grid_values(t, 0)[:4] == [None, None, None, None]
    assert [e for e in t.events if isinstance(e, LineRemoved)] == [
        LineRemoved(0, "row", (0, 1, 2, 3), (3, 3, 3, 3))
    ]


def test_s6_owner_chooses_between_a_row_and_a_column_that_share_a_card():
    a = [6, 6, 6, 6, 6, 2, 4, 5, 6, 7, 8, 9]  # row 0 = four 6s, column 0 = three 6s: slot 0 shared
    t = table([a, GRID_B], discard=1, draw=[10], options={"rows": True, "setup_reveals": 11})
    t.play(Move(0, "reveal", slots=(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)))
    t.play(Move(1, "reveal", slots=tuple(range(11))))
    assert t.state.to_move() == 0
    t.play_all([draw(0), discard(0), flip(0, 0)])
    assert {(m.line, m.index) for m in legal_moves(t.state, 0)} == {("column", 0), ("row", 0)}
    t.play(Move(0, "remove-line", line="row", index=0))
    # the row went first; the column keeps 2 cards and stays
    assert grid_values(t, 0)[:5] == [None, None, None, None, 6]


# --- S7, S8: the round end and scoring --------------------------------------------------------


def play_worked_example(options=None) -> Table:
    """A ends the round with 10, B has 24, C has 10 (the official example)."""
    t = table([GRID_A, GRID_B, GRID_C], discard=5, options=options)
    t.play_all([reveal(0, 0, 1), reveal(1, 0, 1), reveal(2, 0, 1)])
    for slot in range(2, 12):
        for seat in range(3):
            if t.state.phase != "turn":
                break
            t.play_all([draw(seat), discard(seat), flip(seat, slot)])
    return t


def test_s7_s8_worked_example_ender_doubled_to_20():
    t = play_worked_example()
    ended = [e for e in t.events if isinstance(e, RoundEnded)]
    assert len(ended) == 1
    record = ended[0]
    assert record.ender == 0
    assert record.raw == (10, 24, 10)
    assert record.scores == (20, 24, 10)
    assert record.doubled
    assert t.state.totals == [20, 24, 10]


def test_s7_others_play_exactly_one_more_turn():
    t = play_worked_example()
    turns = [e.seat for e in t.events if isinstance(e, TurnBegan)]
    # A (seat 0) flips its last card on its 10th turn; then B and C play once more, and no one else
    assert turns[-3:] == [0, 1, 2]
    assert turns.count(0) == 10 and turns.count(1) == 10 and turns.count(2) == 10


def test_s7_removed_columns_do_not_count_as_face_down():
    a = [9, 1, 2, 3, 9, 4, 5, 6, 7, 8, 10, 11]
    t = table([a, GRID_B], discard=9, options={"setup_reveals": 11})
    t.play(Move(0, "reveal", slots=tuple(range(1, 12))))  # slot 0 stays face down (a 9)
    t.play(Move(1, "reveal", slots=tuple(range(11))))
    assert t.state.to_move() == 0
    t.play_all([draw(0, "discard"), replace(0, 0)])  # the 9 replaces the face-down 9 -> column 9, 9, 7
    # column 0 is 9, 9, 7: not removed; but A has no face-down card: A ended the round
    assert t.state.ender == 0


def test_s7_a_player_with_only_removed_columns_left_face_down_ends_the_round():
    a = [9, 1, 2, 3, 9, 4, 5, 6, 7, 8, 10, 11]
    t = table([a, GRID_B], discard=9, options={"setup_reveals": 10})
    t.play(Move(0, "reveal", slots=(0, 1, 2, 3, 4, 5, 6, 7, 9, 10)))  # slots 8 and 11 face down
    t.play(Move(1, "reveal", slots=tuple(range(10))))
    t.play_all([draw(0, "discard"), replace(0, 8)])  # column 0 becomes 9, 9, 9: removed
    assert t.state.ender is None  # slot 11 is still face down
    t.play_all([draw(1), discard(1), flip(1, 10)])
    t.play_all([draw(0), discard(0), flip(0, 11)])
    assert t.state.ender == 0


@pytest.mark.parametrize(
    ("raw", "ender", "expected", "doubled"),
    [
        ((10, 24, 10), 0, (20, 24, 10), True),  # tie with C: doubled
        ((9, 24, 10), 0, (9, 24, 10), False),  # strictly lowest: not doubled
        ((0, 24, -3), 0, (0, 24, -3), False),  # zero is never doubled
        ((-2, -5, 10), 0, (-2, -5, 10), False),  # negative is never doubled
        ((30, 24, 40), 0, (60, 24, 40), True),  # someone lower: doubled
    ],
)
def test_s8_ender_doubling(raw, ender, expected, doubled):
    assert ender_rule(raw, ender, 2) == (list(expected), doubled)


def test_s8_end_reveal_removes_columns_again():
    a = [4, 1, 2, 3, 4, 5, 6, 7, 4, 8, 10, 11]  # column 0 is three 4s; slot 8 stays face down
    t = table([a, GRID_B], discard=12, draw=[0, 0, 0], options={"setup_reveals": 11})
    t.play(Move(0, "reveal", slots=(0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11)))
    t.play(Move(1, "reveal", slots=tuple(range(11))))
    assert t.state.to_move() == 0  # A shows 61, B shows 22
    t.play_all([draw(0), replace(0, 11)])  # the column is not complete: slot 8 is face down
    assert grid_values(t, 0)[0::4] == [4, 4, "?"]
    t.play_all([draw(1), replace(1, 11)])  # B has no face-down card left: B ends the round
    assert t.state.ender == 1
    t.play_all([draw(0), replace(0, 9)])  # A's last turn; then every card is turned
    removed = [e for e in t.events if isinstance(e, LineRemoved)]
    assert removed == [LineRemoved(0, "column", (0, 4, 8), (4, 4, 4))]
    record = next(e for e in t.events if isinstance(e, RoundEnded))
    assert record.raw[0] == 1 + 2 + 3 + 5 + 6 + 7 + 0 + 10 + 0


def test_s8_s11_ender_multiplier_option():
    assert ender_rule((10, 5), 0, 3) == ([30, 5], True)
    t = play_worked_example(options={"ender_multiplier": 3})
    assert t.state.totals == [30, 24, 10]


# --- S9: the end of the game ------------------------------------------------------------------


def test_s9_game_ends_after_the_round_reaching_the_target_and_lowest_wins():
    t = play_worked_example(options={"target_score": 24})
    assert t.state.phase == "game_over"
    assert t.state.winners == (2,)
    over = [e for e in t.events if isinstance(e, GameOver)]
    assert over == [GameOver((2,), (20, 24, 10))]
    assert legal_moves(t.state, 0) == []
    with pytest.raises(IllegalMove):
        t.play(draw(0))


def test_s9_equal_lowest_totals_share_the_win():
    # B scores 24 and reaches the target; A (10) and C (10): with multiplier 1, both 10 -> shared
    t = play_worked_example(options={"target_score": 20, "ender_multiplier": 1})
    assert t.state.winners == (0, 2)


def test_s9_below_target_deals_the_next_round():
    t = play_worked_example()
    assert t.state.round == 2 and t.state.phase == "setup"
    assert any(isinstance(e, DealRequest) for e in t.events[-20:])


# --- S10: the empty draw pile -----------------------------------------------------------------


def test_s10_empty_draw_pile_reshuffles_all_discards_but_the_top():
    t = Table("skyjo", 8, seed=5)
    for seat in range(8):
        t.play(Move(seat, "reveal", slots=(0, 1)))
    drawn = 0
    while t.state.draw:
        seat = t.state.to_move()
        t.play_all([draw(seat), discard(seat)])
        t.play(legal_moves(t.state, seat)[0])
        drawn += 1
        assert t.state.phase == "turn"  # 53 draws among 8 players cannot end the round
    pile = list(t.state.discard)
    seat = t.state.to_move()
    events = t.play(draw(seat))
    shuffles = [e for e in events if isinstance(e, ShuffleRequest)]
    assert len(shuffles) == 1
    assert shuffles[0].handles == tuple(pile[:-1])
    assert t.state.discard == pile[-1:]
    assert len(t.state.draw) == len(pile) - 2  # one card is now in the drawer's hand
    # the reshuffled cards are unknown again to every seat but the drawer's own card
    for handle in t.state.draw:
        assert all(view(t.state, s).values[handle] is None for s in range(8))


# --- S11: options -----------------------------------------------------------------------------


def test_s11_option_defaults_are_the_official_rules():
    state, _ = new_game("skyjo", 2)
    assert (state.options.target_score, state.options.ender_multiplier) == (100, 2)
    assert (state.options.rows, state.options.setup_reveals) == (False, 2)


def test_s11_setup_reveals_option():
    t = table([GRID_A, GRID_B], options={"setup_reveals": 3})
    assert all(len(m.slots) == 3 for m in legal_moves(t.state, 0))


def test_s11_bad_options_are_refused_with_a_reason():
    with pytest.raises(OptionError, match="unknown option"):
        new_game("skyjo", 2, {"colour": "red"})
    with pytest.raises(OptionError, match="at least 1"):
        new_game("skyjo", 2, {"target_score": 0})
    with pytest.raises(OptionError, match="true or false"):
        new_game("skyjo", 2, {"rows": "maybe"})


# --- C1 .. C4 ---------------------------------------------------------------------------------


def test_c1_play_goes_clockwise_by_increasing_seat_and_wraps():
    t = table([GRID_A, GRID_B, GRID_C], draw=[10] * 6)
    t.play_all([reveal(s, 0, 1) for s in range(3)])  # seat 0 starts
    order = []
    for turn in range(4):
        seat = t.state.to_move()
        order.append(seat)
        t.play_all([draw(seat), discard(seat), flip(seat, 4 + turn)])
    assert order == [0, 1, 2, 0]


def test_c2_engine_never_draws_randomness_itself():
    state, events = new_game("skyjo", 3)
    assert events[0] == DealRequest(DECK, 0, 150)
    assert state.pending  # nothing can be played before the deal is answered
    assert legal_moves(state, 0) == []
    with pytest.raises(IllegalMove, match="waiting"):
        apply(state, reveal(0, 0, 1))


def test_c2_same_seed_same_game():
    a = Table("skyjo", 3, seed=42)
    b = Table("skyjo", 3, seed=42)
    c = Table("skyjo", 3, seed=43)
    assert [a.dealer.values[h] for h in range(150)] == [b.dealer.values[h] for h in range(150)]
    assert [a.dealer.values[h] for h in range(150)] != [c.dealer.values[h] for h in range(150)]


def test_c3_engine_only_asks_for_cards_the_rules_show():
    t = started(draw=[11])
    events = t.play(draw(0))
    assert [e for e in events if isinstance(e, RevealRequest)] == [RevealRequest(t.state.holding, 0)]
    events = t.play(replace(0, 6))
    asked = [e for e in events if isinstance(e, RevealRequest)]
    assert {r.to for r in asked} == {None}
    assert len(asked) == 2  # the placed card and the replaced face-down card, both now face up


def test_c4_illegal_move_leaves_the_state_unchanged():
    t = started()
    before = t.state.copy()
    digest = t.state.state_hash()
    for bad in [flip(0, 3), replace(0, 2), draw(1), Move(0, "draw", source="floor"), discard(0)]:
        with pytest.raises(IllegalMove) as info:
            apply(t.state, bad)
        assert info.value.reason
        assert t.state == before and t.state.state_hash() == digest


def test_c4_moves_for_a_missing_seat_are_refused():
    t = started()
    with pytest.raises(IllegalMove, match="no seat 5"):
        apply(t.state, draw(5))


def test_remaining_empty_marker_is_negative():
    assert EMPTY < 0
