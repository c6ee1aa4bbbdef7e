"""SKIP-BO: one test (at least) per ruling R-B1 .. R-B7, and R-C2 .. R-C4 as they apply to it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pytest

from skyjo_p2p import (
    IllegalMove,
    MalformedMove,
    Move,
    OptionError,
    apply,
    legal_moves,
    new_game,
    parse_move,
    view,
)
from skyjo_p2p.core.events import (
    DealRequest,
    GameOver,
    RandomRequest,
    Reveal,
    RevealRequest,
    RoundEnded,
    ShuffleRequest,
    requests_in,
)
from skyjo_p2p.core.rng import Rng
from skyjo_p2p.skipbo import COMPOSITION, DECK, WILD
from skyjo_p2p.skipbo.rules import blocked_reason, round_scores_for
from skyjo_p2p.skipbo.scenario import report
from skyjo_p2p.skipbo.state import Played, PlayReturned, RoundBlocked, SkipBoState
from tests.support import Table

W = WILD


def make_deck(size: int, stocks: Sequence[Sequence[int]], draw: Sequence[int] = ()) -> list[int]:
    """A full deck, top first: each stock (given top first, filled up to `size` with high cards
    nobody plays in these tests), then the draw pile (top first), then the rest."""
    rest = Counter(COMPOSITION)
    rest.subtract(Counter(c for stock in stocks for c in stock))
    rest.subtract(Counter(draw))
    filler = [v for v in sorted(rest, key=lambda v: -v if v != W else 99) for _ in range(rest[v])]
    filler = [v for v in filler if v != W]  # no wild hides in a stock unless a test puts it there
    deck: list[int] = []
    for stock in stocks:
        need = size - len(stock)
        deck += [*stock, *filler[:need]]
        for value in filler[:need]:
            rest[value] -= 1
        filler = filler[need:]
    deck += list(draw)
    deck += [v for v in sorted(rest, key=repr) for _ in range(rest[v])]
    assert Counter(deck) == Counter(COMPOSITION)
    return deck


def seed_starting(players: int, seat: int) -> int:
    """A seed whose joint random dealer is the seat right of `seat`, so that `seat` starts (R-B2)."""
    return next(s for s in range(1000) if Rng(s).below(players) == (seat - 1) % players)


def table(
    stocks: Sequence[Sequence[int]],
    draw: Sequence[int] = (),
    options: dict[str, object] | None = None,
    starter: int = 0,
    size: int = 5,
    mirrors: bool = True,
) -> Table:
    players = len(stocks)
    opts = {"stock_size": size, **(options or {})}
    decks = {(1, DECK): make_deck(size, stocks, draw)}
    t = Table("skip-bo", players, opts, seed=seed_starting(players, starter), decks=decks, mirrors=mirrors)
    assert t.state.to_move() == starter
    return t


def hand(seat: int, index: int, target: int) -> Move:
    return Move(seat, "play", source="hand", index=index, target=target)


def stock(seat: int, target: int, source: str = "stock") -> Move:
    return Move(seat, "play", source=source, target=target)


def from_discard(seat: int, pile: int, target: int, source: str = "discard") -> Move:
    return Move(seat, "play", source=source, pile=pile, target=target)


def discard(seat: int, index: int, pile: int) -> Move:
    return Move(seat, "discard", index=index, pile=pile)


def end(seat: int) -> Move:
    return Move(seat, "end")


def seen(t: Table) -> dict:
    """The table as the scenario runner reports it."""
    return {"round": t.state.round, "winners": list(t.state.winners), **report(t.state)}


def state_of(t: Table) -> SkipBoState:
    assert isinstance(t.state, SkipBoState)
    return t.state


def edited(t: Table) -> SkipBoState:
    """A copy of the table's state for a test to edit by hand: nothing left to draw, no hands."""
    s = state_of(t).copy()
    s.draw, s.set_aside, s.hands, s.active = [], [], [()] * s.players, False
    return s


def run(t: Table, s: SkipBoState, *moves: Move) -> tuple[SkipBoState, list]:
    """Play `moves` on a hand-edited state, the table's dealer answering every request."""
    events: list = []
    for move in moves:
        s, more = apply(s, move)
        s, more = t.dealer.settle(s, more, apply)
        events += more
    assert isinstance(s, SkipBoState)
    return s, events


# --- B1: the deck, the players --------------------------------------------------------------


def test_b1_deck_has_162_cards_12_of_each_number_and_18_wilds():
    counts = Counter(COMPOSITION)
    assert len(COMPOSITION) == 162
    assert all(counts[v] == 12 for v in range(1, 13)) and counts[W] == 18
    t = Table("skip-bo", 3, seed=5)
    assert Counter(t.dealer.values[h] for h in range(162)) == counts
    dealt = [e for e in t.events if isinstance(e, DealRequest)]
    assert dealt == [DealRequest(DECK, 0, 162)]


def test_b1_two_to_six_players():
    for players in (1, 7):
        with pytest.raises(OptionError, match="2 to 6 players"):
            new_game("skip-bo", players)
    for players in range(2, 7):
        assert new_game("skip-bo", players)[0].players == players


# --- B2: dealer, stock piles, draw pile -------------------------------------------------------


def test_b2_dealer_is_a_joint_random_choice_and_the_next_seat_starts():
    _, events = new_game("skip-bo", 4)
    assert RandomRequest("dealer", 4) in requests_in(events)
    dealers = set()
    for seed in range(12):
        t = Table("skip-bo", 4, seed=seed, mirrors=False)
        s = state_of(t)
        assert s.dealer is not None and s.to_move() == (s.dealer + 1) % 4
        dealers.add(s.dealer)
    assert dealers == {0, 1, 2, 3}


def test_b2_stock_is_30_cards_with_2_to_4_players_and_20_with_5_or_6():
    for players, size in ((2, 30), (3, 30), (4, 30), (5, 20), (6, 20)):
        t = Table("skip-bo", players, seed=1, mirrors=False)
        assert [p["stock"] for p in seen(t)["players"]] == [size] * players
        assert seen(t)["draw_pile"] == 162 - players * size - 5  # the first player drew 5


def test_b2_stock_size_option_5_to_30():
    t = Table("skip-bo", 3, {"stock_size": 12}, seed=1, mirrors=False)
    assert [p["stock"] for p in seen(t)["players"]] == [12, 12, 12]
    for bad, message in ((4, "5..30"), (31, "at most 30"), (-1, "at least 0")):
        with pytest.raises(OptionError, match=message):
            new_game("skip-bo", 2, {"stock_size": bad})
    with pytest.raises(OptionError, match="at most 22 with 6 players"):
        new_game("skip-bo", 6, {"stock_size": 23})  # 6 x 23 leaves no first hands
    new_game("skip-bo", 6, {"stock_size": 22})


def test_b2_stocks_are_dealt_in_seat_order_from_the_top_and_only_their_tops_show():
    t = table([[7, 8, 9, 10, 11], [3, 4, 5, 6, 7]], draw=[1, 2, W, 4, 12, 6])
    out = seen(t)
    assert [p["stock_top"] for p in out["players"]] == [7, 3]
    assert out["players"][0]["hand"] == [1, 2, "SB", 4, 12]  # the draw pile's top five
    assert out["players"][1]["hand"] == []  # seat 1 draws at the start of its own turn
    assert out["draw_pile"] == 162 - 10 - 5
    s = state_of(t)
    for seat in (0, 1):
        top, *under = reversed(s.stocks[seat])
        assert s.is_public(top)
        assert all(s.seen[h] == 0 for h in under)  # nobody knows them, the owner included
    assert all(s.seen[h] == 0 for h in s.draw)


def test_b2_later_rounds_the_deal_passes_to_the_left():
    t = table([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], draw=[W, W, W, W, W])
    assert state_of(t).dealer == 1
    t.play_all(stock(0, 0) for _ in range(5))  # seat 0 empties its stock and wins round 1
    s = state_of(t)
    assert s.round == 2 and s.dealer == 0 and s.to_move() == 1


# --- B3: a turn ---------------------------------------------------------------------------------


def test_b3_a_turn_starts_by_drawing_up_to_five():
    t = table([[7, 8, 9, 10, 11], [7, 8, 9, 10, 11]], draw=[1, 2, 3, 12, 12, 5, 6, 12, 12, 12, 9, 9, 4, 4])
    assert seen(t)["players"][0]["hand"] == [1, 2, 3, 12, 12]
    t.play_all([hand(0, 0, 0), hand(0, 0, 0), discard(0, 0, 0)])  # plays 1 and 2, discards the 3
    assert seen(t)["players"][0]["hand"] == [12, 12]
    assert seen(t)["players"][1]["hand"] == [5, 6, 12, 12, 12]
    t.play(discard(1, 0, 0))
    assert seen(t)["players"][0]["hand"] == [12, 12, 9, 9, 4]  # 2 kept, 3 drawn
    assert seen(t)["draw_pile"] == 162 - 10 - 5 - 5 - 3


def test_b3_the_hand_is_seen_by_its_owner_only():
    t = table([[7, 8, 9, 10, 11], [7, 8, 9, 10, 11]], draw=[1, 2, 3, 12, 12])
    s = state_of(t)
    mine = s.hands[0]
    assert all(view(s, 0).values[h] is not None for h in mine)
    assert all(view(s, 1).values[h] is None for h in mine)
    assert all(view(s, None).values[h] is None for h in mine)
    assert all(s.seen[h] == 0b01 for h in mine)


def test_b3_a_building_pile_starts_with_a_1_and_goes_up_by_one():
    t = table([[7, 8, 9, 10, 11], [7, 8, 9, 10, 11]], draw=[2, 1, 3, 12, 12])
    with pytest.raises(IllegalMove, match=r"hand card 0 is a 2, but building pile 0 needs a 1 \(an empty"):
        t.play(hand(0, 0, 0))
    t.play(hand(0, 1, 2))  # the 1 onto pile 2
    assert seen(t)["building"] == [None, None, 1, None]
    with pytest.raises(IllegalMove, match="hand card 1 is a 3, but building pile 2 needs a 2"):
        t.play(hand(0, 1, 2))
    t.play_all([hand(0, 0, 2), hand(0, 0, 2)])
    assert seen(t)["building"] == [None, None, 3, None]
    with pytest.raises(IllegalMove, match="there is no building pile 4"):
        t.play(hand(0, 0, 4))


def test_b3_wild_takes_the_needed_value():
    t = table([[7, 8, 9, 10, 11], [7, 8, 9, 10, 11]], draw=[W, 2, W, W, 12])
    events = t.play(hand(0, 0, 1))  # a wild on an empty pile counts as 1
    assert Played(0, "hand", 0, 1, W, 1) in events
    t.play(hand(0, 0, 1))  # the 2 goes on it
    t.play_all([hand(0, 0, 1), hand(0, 0, 1)])  # two wilds: 3 and 4
    assert seen(t)["building"] == [None, 4, None, None]  # a wild on top shows the value it stands for
    with pytest.raises(IllegalMove, match="is a 12, but building pile 1 needs a 5"):
        t.play(hand(0, 0, 1))


def test_b3_playing_the_stock_top_turns_the_next_stock_card_up_for_everyone():
    t = table([[1, 9, 8, 7, 6], [7, 8, 9, 10, 11]], draw=[12, 12, 12, 12, 12])
    s = state_of(t)
    second = s.stocks[0][-2]
    assert s.seen[second] == 0
    events = t.play(stock(0, 3))
    assert RevealRequest(second, None) in events
    assert state_of(t).is_public(second)
    assert seen(t)["players"][0]["stock_top"] == 9 and seen(t)["players"][0]["stock"] == 4
    with pytest.raises(IllegalMove, match="your stock top is a 9, but building pile 3 needs a 2"):
        t.play(stock(0, 3))


def test_b3_play_from_your_discard_tops():
    t = table([[7, 8, 9, 10, 11], [7, 8, 9, 10, 11]], draw=[2, 1, 12, 12, 12, 12, 12, 12, 12, 12, 3])
    t.play(discard(0, 0, 3))  # the 2 goes on discard pile 3, face up
    assert state_of(t).is_public(state_of(t).discards[3][-1])
    t.play(discard(1, 0, 0))
    t.play(hand(0, 0, 0))  # seat 0: the 1 from hand
    with pytest.raises(IllegalMove, match="your discard pile 2 is empty"):
        t.play(from_discard(0, 2, 0))
    t.play(from_discard(0, 3, 0))  # then the 2 from discard pile 3
    assert seen(t)["building"][0] == 2 and seen(t)["players"][0]["discards"][3] == []
    with pytest.raises(IllegalMove, match="only a team game"):
        t.play(from_discard(0, 0, 0, source="partner-discard"))


def test_b3_emptying_the_hand_mid_turn_draws_five_more():
    t = table([[7, 8, 9, 10, 11], [7, 8, 9, 10, 11]], draw=[1, 2, 3, 4, 5, 6, 12, 12, 12, 12])
    t.play_all(hand(0, 0, 0) for _ in range(4))
    assert seen(t)["players"][0]["hand"] == [5]
    t.play(hand(0, 0, 0))
    assert seen(t)["players"][0]["hand"] == [6, 12, 12, 12, 12]
    assert t.state.to_move() == 0  # the turn goes on
    t.play(hand(0, 0, 0))
    assert seen(t)["building"][0] == 6


def test_b3_a_turn_ends_with_a_discard_onto_one_of_your_four_piles():
    t = table([[7, 8, 9, 10, 11], [7, 8, 9, 10, 11]], draw=[W, 12, 12, 12, 12])
    with pytest.raises(IllegalMove, match="there is no discard pile 4"):
        t.play(discard(0, 0, 4))
    t.play(discard(0, 0, 2))  # a wild may be discarded (default)
    out = seen(t)
    assert out["players"][0]["discards"] == [[], [], ["SB"], []]
    assert out["players"][0]["hand"] == [12, 12, 12, 12] and out["to_move"] == 1


def test_b3_option_forbids_wilds_on_discard_piles():
    t = table(
        [[7, 8, 9, 10, 11], [7, 8, 9, 10, 11]], draw=[W, 12, 12, 12, 12], options={"discard_wilds": False}
    )
    with pytest.raises(IllegalMove, match="may not go on a discard pile"):
        t.play(discard(0, 0, 0))
    assert discard(0, 0, 0) not in t.legal(0) and discard(0, 1, 0) in t.legal(0)
    t.play(discard(0, 1, 0))


def test_b3_a_played_hand_card_becomes_public():
    t = table([[7, 8, 9, 10, 11], [7, 8, 9, 10, 11]], draw=[1, 12, 12, 12, 12])
    card = state_of(t).hands[0][0]
    assert view(t.state, 1).values[card] is None
    t.play(hand(0, 0, 0))
    assert view(t.state, 1).values[card] == 1


def test_b3_with_no_card_to_discard_the_turn_ends_with_end():
    """Decision: holding no card (nothing was left to draw), a player may still play from the
    stock and discard piles, then ends the turn with `end`, refused while holding a card."""
    t = table([[1, 8, 9, 10, 11], [2, 8, 9, 10, 11]], draw=[12] * 5, mirrors=False)
    with pytest.raises(IllegalMove, match="you hold 5 card"):
        t.play(end(0))
    s = edited(t)  # as if nothing were left to draw
    assert [m.kind for m in legal_moves(s, 0)] == ["play"] * 4 + ["end"]  # the stock 1, or end
    s, _ = run(t, s, stock(0, 0))
    assert s.to_move() == 0  # nothing to draw: the turn goes on
    s, _ = run(t, s, end(0))
    assert s.to_move() == 1 and s.round == 1 and s.idle == 0


# --- B4: completed piles, the empty draw pile, the blocked round -------------------------------


def test_b4_a_pile_reaching_12_is_set_aside():
    t = table([[7, 8, 9, 10, 11], [7, 8, 9, 10, 11]], draw=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 12, 3, 4])
    t.play_all(hand(0, 0, 1) for _ in range(12))
    out = seen(t)
    assert out["building"] == [None, None, None, None] and out["set_aside"] == 12
    assert out["players"][0]["hand"] == [12, 3, 4]  # hand refilled after the 10: 11, 12, 12, 3, 4
    with pytest.raises(IllegalMove, match="needs a 1"):
        t.play(hand(0, 0, 1))


def test_b4_set_aside_piles_are_shuffled_into_a_new_draw_pile_when_it_runs_out():
    # 6 players with 22-card stocks leave a 30-card draw pile: exactly everyone's first hand
    draw = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, W, W, W]
    t = table([[10]] * 6, draw=draw, size=22, mirrors=False)
    t.play_all(hand(0, 0, 0) for _ in range(12))  # 1..12: the pile is set aside
    assert seen(t)["set_aside"] == 12 and seen(t)["draw_pile"] == 15
    for seat in (0, 1, 2):
        t.play(discard(seat, 0, 0))
    out = seen(t)
    assert out["draw_pile"] == 0 and len(out["players"][3]["hand"]) == 5
    before = state_of(t)
    events = t.play(discard(3, 0, 0))  # seat 4 finds the draw pile empty
    shuffles = [e for e in events if isinstance(e, ShuffleRequest)]
    assert len(shuffles) == 1 and len(shuffles[0].handles) == 12
    assert shuffles[0].first == len(before.seen)  # new handles: nobody knows the new order
    out = seen(t)
    assert len(out["players"][4]["hand"]) == 5 and out["draw_pile"] == 7 and out["set_aside"] == 0


def test_b4_with_nothing_to_draw_the_player_goes_on_with_what_they_hold():
    t = table([[11, 11]] * 6, size=22, mirrors=False)  # the draw pile is exactly the six first hands
    for seat in range(6):
        t.play(discard(seat, 0, 0))
    out = seen(t)
    assert out["draw_pile"] == 0 and out["set_aside"] == 0
    assert t.state.to_move() == 0 and len(out["players"][0]["hand"]) == 4


def test_b4_a_round_where_nothing_can_ever_be_played_again_is_blocked():
    """Decision: nothing to draw, no hand card anywhere, no stock or discard top fits: the round
    ends; the side with the fewest stock cards scores 5 per card every other side has more."""
    t = table([[7, 8, 9, 10, 11], [7, 8, 9, 10, 11]], draw=[1, 12, 12, 12, 12], mirrors=False)
    s = edited(t)
    s.stocks = [s.stocks[0][-3:], s.stocks[1]]  # seat 0 is 2 cards ahead
    s.hands = [(state_of(t).hands[0][0],), ()]  # seat 0 holds only its 1
    s, events = run(t, s, discard(0, 0, 0))  # the 1 goes on a discard pile
    assert blocked_reason(s) is None and s.to_move() == 1  # the 1 still fits: not blocked
    s, events = run(t, s, end(1), from_discard(0, 0, 0), end(0))  # nothing fits any more
    blocked = [e for e in events if isinstance(e, RoundBlocked)]
    assert blocked and "nothing is left to draw" in blocked[0].reason
    record = next(e for e in events if isinstance(e, RoundEnded))
    assert record.ender is None and record.scores == (5 * (5 - 3), 0)


def test_b4_a_lap_of_turns_without_any_card_drawn_played_or_discarded_blocks_the_round():
    """Decision: when every player in turn ended a turn without drawing, playing or discarding,
    the table is as it was a lap before: the round is blocked (even if a play was possible)."""
    t = table([[1, 8, 9, 10, 11], [7, 8, 9, 10, 11]], draw=[12] * 5, mirrors=False)
    s, _ = run(t, edited(t), end(0))  # seat 0 could play its stock 1 but does not
    assert s.idle == 1 and s.to_move() == 1
    s, events = run(t, s, end(1))
    blocked = [e for e in events if isinstance(e, RoundBlocked)]
    assert blocked and "every player in turn" in blocked[0].reason
    assert s.round == 2 and s.history[-1].ender is None
    assert s.history[-1].scores == (0, 0)  # equal stocks: nobody scores


def test_b4_blocked_scores_go_to_the_side_with_the_fewest_stock_cards():
    state, _ = new_game("skip-bo", 6, {"teams": True, "stock_size": 10})
    assert isinstance(state, SkipBoState)
    state.stocks = [tuple(range(n)) for n in (3, 7, 9, 4, 2, 1)]  # teams: 0+3=7, 1+4=9, 2+5=10
    assert round_scores_for(state, None) == [5 * (2 + 3), 0, 0, 5 * (2 + 3), 0, 0]
    state.stocks = [tuple(range(n)) for n in (3, 0, 9, 4, 0, 2)]  # won by seats 1 and 4
    assert round_scores_for(state, (1, 4)) == [0, 25 + 5 * 18, 0, 0, 25 + 5 * 18, 0]


# --- B5: winning a round, the game --------------------------------------------------------------


def test_b5_emptying_the_stock_wins_the_round_at_once_25_plus_5_per_opponent_stock_card():
    t = table([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [6, 7, 8, 9, 10]], draw=[12] * 5)
    t.play_all(stock(0, 0) for _ in range(4))
    events = t.play(stock(0, 0))
    record = next(e for e in events if isinstance(e, RoundEnded))
    assert record.round == 1 and record.ender == 0
    assert record.scores == (25 + 5 * 10, 0, 0)
    out = seen(t)
    assert [p["round_scores"] for p in out["players"]] == [[75], [0], [0]]
    assert [p["total"] for p in out["players"]] == [75, 0, 0]
    assert out["round"] == 2 and out["phase"] == "turn" and out["winners"] == []  # to 500


def test_b5_the_game_ends_after_the_round_reaching_the_target():
    t = table([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], draw=[12] * 5, options={"target_score": 50})
    t.play_all(stock(0, 1) for _ in range(4))
    events = t.play(stock(0, 1))
    assert GameOver((0,), (50, 0)) in events
    out = seen(t)
    assert out["phase"] == "game_over" and out["winners"] == [0] and out["to_move"] is None
    with pytest.raises(IllegalMove, match="the game is over"):
        t.play(discard(1, 0, 0))


def test_b5_single_round_option():
    t = table([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], draw=[12] * 5, options={"single_round": True})
    t.play_all(stock(0, 2) for _ in range(5))
    out = seen(t)
    assert out["phase"] == "game_over" and out["winners"] == [0] and out["round"] == 1
    assert out["players"][0]["total"] == 50


# --- B6: teams ----------------------------------------------------------------------------------


def test_b6_teams_need_4_or_6_players():
    for players in (2, 3, 5):
        with pytest.raises(OptionError, match="4 or 6 players"):
            new_game("skip-bo", players, {"teams": True})
    new_game("skip-bo", 4, {"teams": True})
    new_game("skip-bo", 6, {"teams": "on"})


def test_b6_play_from_your_partners_stock_and_discard_tops_but_discard_on_your_own():
    stocks = [[7, 8, 9, 10, 11], [7, 8, 9, 10, 11], [1, 9, 9, 9, 9], [7, 8, 9, 10, 11]]
    draw = [12] * 5 + [11] * 5 + [2, 5, 5, 5, 5] + [4] * 5  # seats 2, 3, 0, 1 draw in turn
    t = table(stocks, draw=draw, options={"teams": True}, starter=2)
    t.play(discard(2, 0, 3))  # seat 2 puts a 12 on its discard pile 3
    t.play(discard(3, 0, 0))
    t.play(discard(0, 0, 0))  # seat 0 discards its 2 onto its own pile 0
    assert seen(t)["players"][0]["discards"][0] == [2]
    t.play_all([discard(1, 0, 0), discard(2, 0, 0), discard(3, 0, 0)])
    assert t.state.to_move() == 0
    t.play(stock(0, 1, source="partner-stock"))  # seat 2's 1
    assert seen(t)["players"][2]["stock"] == 4 and seen(t)["building"][1] == 1
    t.play(from_discard(0, 0, 1))  # seat 0's own 2
    assert seen(t)["building"][1] == 2
    with pytest.raises(IllegalMove, match="the top of your partner's discard pile 3 is a 12, but"):
        t.play(from_discard(0, 3, 1, source="partner-discard"))
    assert stock(0, 0, source="partner-stock") not in t.legal(0)  # seat 2's 9 fits nowhere
    with pytest.raises(MalformedMove, match="does not take from"):  # no way to name another's pile
        parse_move("skip-bo", {"seat": 0, "move": "discard", "index": 0, "pile": 0, "from": "partner"})


def test_b6_a_team_wins_when_both_partners_stocks_are_empty():
    stocks = [[1, 2, 3, 4, 5], [7, 8, 9, 10, 11], [6, 7, 8, 9, 10], [7, 8, 9, 10, 11]]
    t = table(stocks, draw=[12] * 5, options={"teams": True, "single_round": True})
    t.play_all(stock(0, 0) for _ in range(5))
    assert seen(t)["phase"] == "turn" and seen(t)["players"][0]["stock"] == 0  # partner still holds 5
    t.play_all(stock(0, 0, source="partner-stock") for _ in range(4))
    events = t.play(stock(0, 0, source="partner-stock"))
    record = next(e for e in events if isinstance(e, RoundEnded))
    points = 25 + 5 * (5 + 5)
    assert record.ender == 0 and record.scores == (points, 0, points, 0)
    assert GameOver((0, 2), (points, 0, points, 0)) in events  # both partners win


# --- B7: no physical errors ---------------------------------------------------------------------


def test_b7_out_of_turn_play_is_refused():
    t = table([[1, 8, 9, 10, 11], [1, 8, 9, 10, 11]], draw=[12] * 5)
    with pytest.raises(IllegalMove, match="it is seat 0's turn, not seat 1's"):
        t.play(stock(1, 0))
    assert t.legal(1) == []


def test_b7_nobody_can_draw_too_many_cards():
    with pytest.raises(MalformedMove, match="unknown move 'draw'"):
        parse_move("skip-bo", {"seat": 0, "move": "draw"})
    t = table([[7, 8, 9, 10, 11], [7, 8, 9, 10, 11]], draw=[12] * 5)
    assert all(len(h) <= 5 for h in state_of(t).hands)


# --- C2, C3, C4 ----------------------------------------------------------------------------------


def test_c4_an_illegal_move_is_refused_and_changes_nothing():
    t = table([[7, 8, 9, 10, 11], [7, 8, 9, 10, 11]], draw=[2, 12, 12, 12, 12])
    before = t.state.copy()
    digest = t.state.state_hash()
    for move in (hand(0, 0, 0), stock(0, 0), discard(0, 7, 0), end(0), stock(1, 0)):
        with pytest.raises(IllegalMove):
            apply(t.state, move)
    assert t.state == before and t.state.state_hash() == digest


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"seat": 0, "move": "play", "from": "hand", "target": 0}, "needs index"),
        ({"seat": 0, "move": "play", "from": "stock", "target": 0, "index": 1}, "does not take index"),
        ({"seat": 0, "move": "play", "from": "discard", "target": 0}, "needs pile"),
        ({"seat": 0, "move": "play", "from": "deck", "target": 0}, "play from 'hand'"),
        ({"seat": 0, "move": "discard", "index": 0}, "needs pile"),
    ],
)
def test_c4_malformed_plays_name_the_missing_field(data, message):
    with pytest.raises(MalformedMove, match=message):
        parse_move("skip-bo", data)


def test_c3_a_peer_judges_a_hidden_hand_card_once_it_is_revealed():
    """Seat 0's own engine refuses a 2 on an empty pile. A peer that does not know the card
    (a tampered client sent the move anyway) places it, reveals it, and sends it back."""
    t = table([[7, 8, 9, 10, 11], [7, 8, 9, 10, 11]], draw=[2, 12, 12, 12, 12])
    assert t.mirrors is not None
    peer = t.mirrors[1]
    card = state_of(t).hands[0][0]
    peer, events = apply(peer, hand(0, 0, 0))
    assert peer.pending == (RevealRequest(card, None),)
    peer, events = apply(peer, Reveal(card, None, 2))
    returned = [e for e in events if isinstance(e, PlayReturned)]
    assert returned == [PlayReturned(seat=0, reason=returned[0].reason, value=2)]
    assert "needs a 1" in returned[0].reason
    assert isinstance(peer, SkipBoState)
    assert peer.building[0] == () and peer.hands[0][0] == card and peer.is_public(card)
    assert peer.to_move() == 0


def test_c2_the_same_seed_replays_the_same_game():
    a = Table("skip-bo", 3, {"stock_size": 8}, seed=9, mirrors=False)
    b = Table("skip-bo", 3, {"stock_size": 8}, seed=9, mirrors=False)
    assert a.state.state_hash() == b.state.state_hash()
    assert seen(a) == seen(b)
