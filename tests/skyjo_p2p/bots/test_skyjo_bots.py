"""SKYJO bots: they read only their view, they are deterministic, and they decide sensibly."""

from __future__ import annotations

import pytest

from client import tournament
from skyjo_p2p.bots import make_bot
from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.rng import Rng
from skyjo_p2p.engine import deciders, legal_moves, view
from skyjo_p2p.skyjo import COMPOSITION, DECK
from skyjo_p2p.skyjo.state import SkyjoState
from tests.support import Table, build_deck


def scrambled(state: SkyjoState, seat: int, rng: Rng) -> SkyjoState:
    """The same table with every card `seat` may not know given a random value.

    Random values, not a shuffle of the hidden ones: a bot that peeked while counting cards would
    see the same multiset after a shuffle."""
    out = state.copy()
    for handle in out.locations():
        if not out.knows(seat, handle):
            out.values[handle] = rng.below(15) - 2
    return out


@pytest.mark.parametrize("level", ["random", "greedy", "strong"])
def test_bots_choose_the_same_whatever_the_hidden_cards(level):
    """A bot is a policy over its seat's view: scrambling what it cannot see changes nothing."""
    rng = Rng(5)
    checked = 0
    for game in range(3):
        table = Table("skyjo", 3, seed=game, mirrors=False)
        players = [make_bot("greedy", "skyjo", f"{game}:{s}") for s in range(3)]
        while table.state.phase != "game_over" and checked < 60 * (game + 1):
            seat = deciders(table.state)[0]
            state = table.state
            hidden = [h for h in state.locations() if not state.knows(seat, h)]
            if hidden:
                honest = make_bot(level, "skyjo", f"probe:{checked}").choose(state, seat)
                blind = make_bot(level, "skyjo", f"probe:{checked}").choose(scrambled(state, seat, rng), seat)
                masked = make_bot(level, "skyjo", f"probe:{checked}").choose(view(state, seat), seat)
                assert honest == blind == masked
                checked += 1
            table.play(players[seat].choose(view(state, seat), seat))
    assert checked >= 100


@pytest.mark.parametrize("level", ["random", "greedy", "strong"])
def test_bots_are_deterministic_given_their_seed(level):
    def moves(seed):
        table = Table("skyjo", 2, seed=1, mirrors=False)
        bots = [make_bot(level, "skyjo", f"{seed}:{s}") for s in range(2)]
        played = []
        for _ in range(80):
            seat = deciders(table.state)[0]
            move = bots[seat].choose(view(table.state, seat), seat)
            played.append(move)
            table.play(move)
        return played

    assert moves("a") == moves("a")


def test_unknown_levels_are_refused():
    with pytest.raises(ValueError, match="no 'genius' bot"):
        make_bot("genius", "skyjo")


# --- hand-made positions ------------------------------------------------------------------------


OTHER = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -2]  # an opponent's grid without a column of three


def position(grids, discard, draw=(), shown=None):
    """A 2-player table at seat 0's first turn; `shown[s]` lists the slots face up for seat s."""
    deck = build_deck([v for g in grids for v in g] + [discard, *draw], COMPOSITION)
    table = Table("skyjo", len(grids), {"setup_reveals": 2}, seed=3, decks={(1, DECK): deck}, mirrors=False)
    for seat in range(len(grids)):
        table.play(Move(seat, "reveal", slots=(0, 1)))
    state = table.state
    for seat, slots in enumerate(shown or []):
        for slot in slots:  # turn more cards face up by hand, as if earlier turns had done it
            index = seat * 12 + slot
            handle = state.grid[index]
            state.face_up[index] = True
            state.seen[handle] = state.everyone
            state.values[handle] = table.dealer.values[handle]
    state.turn = 0
    return table


def choose(level, table, seat=0):
    return make_bot(level, "skyjo", "test").choose(view(table.state, seat), seat)


def test_greedy_takes_a_low_discard_and_places_it_over_its_highest_card():
    table = position([[9, 4, 1, 2, 3, 5, 6, 7, 8, 10, 11, 0], OTHER], discard=2, shown=[range(0, 6)])
    assert choose("greedy", table) == Move(0, "draw", source="discard")
    table.play(Move(0, "draw", source="discard"))
    assert choose("greedy", table) == Move(0, "replace", slot=0)  # the 9 is its highest face-up card


def test_greedy_completes_a_column_with_the_discard():
    table = position([[8, 1, 2, 3, 8, 4, 5, 6, 7, 9, 10, 11], OTHER], discard=8, shown=[[4]])
    assert choose("greedy", table) == Move(0, "draw", source="discard")
    table.play(Move(0, "draw", source="discard"))
    assert choose("greedy", table) == Move(0, "replace", slot=8)


def test_greedy_draws_and_discards_a_high_card_then_flips():
    table = position([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], OTHER], discard=9, draw=[11])
    assert choose("greedy", table) == Move(0, "draw", source="deck")
    table.play(Move(0, "draw", source="deck"))
    assert choose("greedy", table) == Move(0, "discard")
    table.play(Move(0, "discard"))
    assert choose("greedy", table).kind == "flip"


@pytest.mark.parametrize("level", ["greedy", "strong"])
def test_completes_a_column_of_high_cards(level):
    grid = [10, 1, 2, 3, 10, 4, 5, 6, 7, 9, 11, 12]
    table = position([grid, OTHER], discard=10, shown=[[4, 8]])
    assert choose(level, table) == Move(0, "draw", source="discard")
    table.play(Move(0, "draw", source="discard"))
    assert choose(level, table) == Move(0, "replace", slot=8)


def test_strong_does_not_end_a_round_it_would_lose_by_doubling():
    # Putting the drawn -2 on its last face-down card would be the best swap on average (it ends
    # the round at 17), but the opponent shows 1 with one card left: ending means doubling.
    mine = [4, 3, 3, 2, 2, 1, 1, 0, 0, -1, 4, 9]  # 19 showing, slot 11 face down
    theirs = [0, 1, -1, 2, 0, 1, -1, 2, 1, -2, -2, 3]  # 1 showing, slot 11 face down
    table = position([mine, theirs], discard=12, draw=[-2], shown=[range(11), range(11)])
    table.play(Move(0, "draw", source="deck"))
    move = choose("strong", table)
    assert move.kind == "replace" and move.slot in (0, 10)  # the -2 replaces a 4; slot 11 stays down


def test_strong_ends_a_round_it_clearly_wins():
    mine = [0, 0, 1, 1, -1, -1, 0, 2, 1, 0, -1, 9]  # 2 showing, slot 11 (a 9) face down
    theirs = [5, 6, 7, 8, 9, 10, 11, 12, 5, 6, 7, 8]  # almost everything face down
    table = position([mine, theirs], discard=12, draw=[-2], shown=[range(11), []])
    table.play(Move(0, "draw", source="deck"))
    move = choose("strong", table)
    assert move == Move(0, "replace", slot=11)  # ends the round at 0 points against ~50


def test_short_tournament_greedy_beats_random():
    report = tournament.run("skyjo", ["greedy", "random"], games=30, seed=3)
    greedy, rand = report["entries"]
    assert greedy["wins"] >= 28 and rand["wins"] <= 2
    assert greedy["mean_round_score_raw"] < rand["mean_round_score_raw"]


def test_legal_moves_cover_every_bot_choice():
    table = Table("skyjo", 4, seed=9, mirrors=False)
    bots = [make_bot(level, "skyjo", s) for s, level in enumerate(["strong", "greedy", "random", "strong"])]
    for _ in range(400):
        if table.state.phase == "game_over":
            break
        seat = deciders(table.state)[0]
        move = bots[seat].choose(view(table.state, seat), seat)
        assert move in legal_moves(table.state, seat)
        table.play(move)
