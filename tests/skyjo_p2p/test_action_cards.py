"""SKYJO ACTION: the nine action cards and the defense (R-A11, R-A12), with their edge cases and
what each seat may see. Every table checks, on every step, that each seat's peer state equals its
view (tests.support.Table); the privacy tests below check the views themselves too.
"""

from __future__ import annotations

import pytest

from skyjo_p2p import IllegalMove, Move, apply, legal_moves, view
from skyjo_p2p.action.cards import ATTACKS, KIND_NAMES
from skyjo_p2p.action.decisions import RemoveFromEach
from skyjo_p2p.action.facts import Blocked, Buried, Exchanged, NoEffect, Peeked
from skyjo_p2p.core.events import LineRemoved, RevealRequest, ShuffleRequest, TurnBegan
from skyjo_p2p.core.state import TableState
from tests.skyjo_p2p.test_action_helpers import (
    DEFENSE,
    DRAW3,
    EXTRA,
    GA,
    GB,
    GC,
    PEEK,
    REPLAY,
    RFE,
    STEAL,
    SWAP_OTHERS,
    SWAP_OWN,
    S,
    decision,
    draw,
    flip,
    grid,
    held,
    mv,
    names,
    play,
    replace,
    started,
    take,
)
from tests.support import Table

FILLER = (PEEK, EXTRA, DRAW3)


def quiet(t: Table, seat: int) -> None:
    """A turn that touches no pile but the discard: take its top, put it in slot 11."""
    t.play_all([draw(seat, "discard"), replace(seat, 11)])


def armed(
    card: int,
    grids: list[list[int]] | None = None,
    others: dict[int, int] | None = None,
    market: tuple[int, ...] = FILLER,
    **kwargs,
) -> Table:
    """Seat 0 takes `card` (market position 0) on its first turn; each other seat takes
    ``market[others[seat]]`` (positions 1..3) or plays a quiet turn; then it is seat 0's second turn."""
    grids = grids or [GA, GB]
    t = started(grids, market=[card, *market], **kwargs)
    assert t.state.to_move() == 0
    t.play(take(0, 0))
    for seat in range(1, len(grids)):
        if others and seat in others:
            t.play(take(seat, others[seat] + 1))
        else:
            quiet(t, seat)
    assert t.state.to_move() == 0 and held(t, 0)[-1]
    return t


def values_seen(state: TableState, seat: int | None) -> list[int | None]:
    return view(state, seat).values


# --- 1. remove-from-each ------------------------------------------------------------------------


def test_a12_remove_from_each_buries_a_card_of_each_opponent_clockwise():
    t = armed(RFE, [GA, GB, GC], others={2: 0}, draw=[9, 8])  # seat 2 takes peek-line
    t.play(play(0))
    assert (
        decision(t) == ("pick", 0) and t.state.decision_as(RemoveFromEach).victim == 1
    )  # seat 1 first (clockwise)
    assert {m.target for m in legal_moves(t.state, 0)} == {1}
    with pytest.raises(IllegalMove, match="clockwise: pick a card of seat 1"):
        t.play(mv(0, "pick", target=2, slot=3))
    buried = t.state.grid[12 + 5]  # seat 1's face-down slot 5
    t.play(mv(0, "pick", target=1, slot=5))
    assert grid(t, 1)[5] == 9  # refilled from the draw pile, face up
    assert t.state.discard[0] == buried  # under the discard pile ...
    assert all(values_seen(t.state, s)[buried] is None for s in (0, 1, 2, None))  # ... unrevealed
    assert t.dealer.values[buried] == GB[5]
    assert decision(t) == ("pick", 0) and t.state.decision_as(RemoveFromEach).victim == 2
    t.play(mv(0, "pick", target=2, index=0))  # seat 2's held peek-line, under the action discard
    assert held(t, 2) == []
    assert names(t, t.state.action_discard) == ["peek-line", "remove-from-each"]
    assert t.state.to_move() == 1
    assert [e for e in t.events if isinstance(e, Buried)] == [
        Buried(1, 5, buried),
        Buried(2, None, t.state.action_discard[0]),
    ]
    assert not any(isinstance(e, RevealRequest) and e.handle == buried for e in t.events)


def test_a12_remove_from_each_buried_card_goes_into_a_reshuffle_unknown():
    small = "-2:0,-1:0,0:0,11:0,12:0,star:0," + ",".join(f"{v}:3" for v in range(1, 11))
    a = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2]
    b = [3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4]
    t = armed(RFE, [a, b], options={"card_counts": small}, reveals=((8, 9), (0, 1)))
    while t.state.draw:  # empty the draw pile (5 cards)
        seat = t.state.to_move()
        t.play_all([draw(seat), replace(seat, 0)])
    if t.state.to_move() != 0:
        quiet(t, 1)
    t.play(play(0))
    buried = t.state.grid[12 + 3]
    events = t.play(mv(0, "pick", target=1, slot=3))
    shuffle = next(e for e in events if isinstance(e, ShuffleRequest))
    assert buried in shuffle.handles  # the refill reshuffled the discard pile, buried card included
    assert grid(t, 1)[3] not in ("?", None)  # the gap was refilled face up
    assert not any(isinstance(e, RevealRequest) and e.handle == buried for e in t.events)


def test_a6_a12_remove_from_each_refill_star_lets_the_victim_take_out_of_turn():
    t = armed(RFE, draw=[S])
    t.play(play(0))
    t.play(mv(0, "pick", target=1, slot=4))
    assert t.state.to_move() == 0 and decision(t) == ("offer", 1)  # seat 1 decides in seat 0's turn
    t.play(take(1, 1))
    assert held(t, 1) == ["peek-line"]
    assert t.state.to_move() == 1


def test_a7_a12_remove_from_each_refill_can_complete_a_line_of_the_victim():
    b = [7, 2, 3, 3, 7, 2, 0, 1, 4, 3, 1, 2]  # seat 1's column 0: 7, 7, 4
    t = armed(RFE, [GA, b], draw=[7], reveals=((0, 6), (0, 4)))  # 14 each: seat 0 shows the 12
    t.play(play(0))
    t.play(mv(0, "pick", target=1, slot=8))  # the 4 goes, a 7 comes: seat 1's column of 7s
    removed = [e for e in t.events if isinstance(e, LineRemoved)]
    assert removed == [LineRemoved(1, "column", (0, 4, 8), (7, 7, 7))]
    assert t.state.to_move() == 1


def test_a11_the_attacks_are_remove_from_each_steal_and_play_and_swap_with_others():
    assert {KIND_NAMES[k] for k in ATTACKS} == {"remove-from-each", "steal-and-play", "swap-with-others"}


def test_a11_defense_blocks_remove_from_each_for_its_holder_only():
    t = armed(RFE, [GA, GB, GC], others={1: 0}, market=(DEFENSE, EXTRA, DRAW3))
    assert held(t, 1) == ["defense"]
    t.play(play(0))
    assert decision(t) == ("pick", 0) and t.state.decision_as(RemoveFromEach).victim == 2  # seat 1 is skipped
    assert held(t, 1) == [] and names(t, t.state.action_discard) == ["defense"]
    assert Blocked(1, 0, t.state.action_discard[0]) in t.events
    t.play(mv(0, "pick", target=2, slot=0))
    assert grid(t, 1) == [4, 2, *["?"] * 10]  # untouched


def test_a11_a_defense_blocks_only_the_first_attack():
    t = armed(RFE, [GA, GB], others={1: 1}, market=(REPLAY, DEFENSE, PEEK))
    assert held(t, 1) == ["defense"]
    t.play(take(0, 1))  # seat 0 also takes replay-discard
    quiet(t, 1)
    t.play(play(0, 0))  # remove-from-each: blocked by seat 1's defense
    assert held(t, 1) == [] and names(t, t.state.action_discard) == ["defense", "remove-from-each"]
    assert t.state.to_move() == 1
    quiet(t, 1)
    t.play(play(0, 0))  # replay-discard: remove-from-each again, from the action discard
    t.play(mv(0, "replay", index=1))
    assert (
        decision(t) == ("pick", 0) and t.state.decision_as(RemoveFromEach).victim == 1
    )  # no defense left: it goes through
    t.play(mv(0, "pick", target=1, slot=2))
    assert len([e for e in t.events if isinstance(e, Blocked)]) == 1


def test_a12_remove_from_each_with_nothing_to_take_from_anyone():
    t = armed(RFE, [GA, GB], others={1: 0}, market=(DEFENSE, EXTRA, DRAW3))
    events = t.play(play(0))  # the only opponent's defense blocks it: no decision at all
    assert any(isinstance(e, Blocked) for e in events)
    assert t.state.to_move() == 1


# --- 2. swap-own --------------------------------------------------------------------------------


def test_a12_swap_own_swaps_two_cards_each_face_up_or_down_and_a_shown_card_stays_known():
    t = armed(SWAP_OWN)
    t.play(play(0))
    assert decision(t) == ("swap", 0)
    assert len(legal_moves(t.state, 0)) == 66 * 4
    twelve = t.state.grid[0]  # face up
    one = t.state.grid[5]  # face down, a 1
    t.play(Move(0, "swap", slot=0, slot2=5, face_up=(True, False)))
    assert grid(t, 0)[0] == 1 and grid(t, 0)[5] == "?"
    assert t.state.grid[5] == twelve and t.state.grid[0] == one
    assert all(values_seen(t.state, s)[twelve] == 12 for s in (0, 1, None))  # turned down, still known
    assert all(values_seen(t.state, s)[one] == 1 for s in (0, 1, None))
    assert t.state.to_move() == 1


def test_a12_swap_own_refuses_bad_swaps():
    t = armed(SWAP_OWN)
    t.play(play(0))
    for bad, reason in [
        (Move(0, "swap", slot=3, slot2=3, face_up=(True, True)), "two different cards"),
        (Move(0, "swap", slot=3, slot2=4, face_up=(True,)), "face_up must say"),
        (Move(0, "swap", slot=3, slot2=12, face_up=(True, True)), "no slot2 12"),
    ]:
        with pytest.raises(IllegalMove, match=reason):
            t.play(bad)


def test_a6_a12_a_star_swapped_face_up_does_not_wake():
    a = [*GA[:5], S, *GA[6:]]
    t = armed(SWAP_OWN, [a, GB])
    t.play(play(0))
    t.play(Move(0, "swap", slot=5, slot2=6, face_up=(True, True)))  # the star lands face up
    assert grid(t, 0)[6] == "*" and t.state.to_move() == 1  # no take offered


def test_a7_a12_swap_own_completes_two_lines_and_the_owner_picks_their_order():
    a = [6, 8, 1, 2, 6, 8, 3, 4, 8, 6, 5, 7]  # column 0: 6, 6, 8; column 1: 8, 8, 6
    t = armed(
        SWAP_OWN, [a, GB], reveals=((0, 1, 4, 5, 8, 9), (0, 1, 2, 3, 4, 5)), options={"setup_reveals": 6}
    )
    t.play(play(0))
    t.play(Move(0, "swap", slot=8, slot2=9, face_up=(True, True)))
    assert decision(t) == ("lines", 0)  # two mandatory lines of different numbers: which goes on top?
    assert {m.kind for m in legal_moves(t.state, 0)} == {"remove-line"}
    t.play(Move(0, "remove-line", line="column", index=1))  # the 8s first ...
    assert names(t, t.state.discard[-6:]) == [8, 8, 8, 6, 6, 6]  # ... then the 6s, on top
    assert t.state.to_move() == 1


# --- 3. extra-turns -----------------------------------------------------------------------------


def test_a12_extra_turns_inside_extra_turns():
    a = [S, *GA[1:]]
    t = started([a, GB], reveals=((0, 1), (0, 1)), market=[EXTRA, EXTRA, PEEK, RFE])
    # seat 0: -2 against 6, seat 1 starts; seat 0 took nothing at setup
    t.play(take(1, 2))
    t.play(take(0, 0))
    quiet(t, 1)
    t.play(take(0, 1))  # a second extra-turns
    quiet(t, 1)
    before = len([e for e in t.events if isinstance(e, TurnBegan)])
    t.play(play(0, 0))  # two more turns
    t.play(play(0, 0))  # the first of them: two more again (3 left)
    for _ in range(3):
        assert t.state.to_move() == 0
        t.play(take(0, 0))
    turns = [e.seat for e in t.events if isinstance(e, TurnBegan)][before - 1 :]
    assert turns == [0, 0, 0, 0, 0, 1]


# --- 4. draw-three ------------------------------------------------------------------------------


def test_a12_draw_three_keep_one_others_in_the_chosen_order_and_only_the_drawer_sees_them():
    t = armed(DRAW3, [GA, GB, GC], draw=[4, 11, 9])
    events = t.play(play(0))
    drawn = t.state.holding
    assert [t.dealer.values[h] for h in drawn] == [4, 11, 9]
    assert [e for e in events if isinstance(e, RevealRequest)] == [RevealRequest(h, 0) for h in drawn]
    assert [values_seen(t.state, 0)[h] for h in drawn] == [4, 11, 9]
    for seat in (1, 2, None):
        assert all(values_seen(t.state, seat)[h] is None for h in drawn)
    assert decision(t) == ("draw-three", 0)
    replaced = t.state.grid[5]
    t.play(Move(0, "keep", index=0, slot=5, order=(2, 1)))
    assert grid(t, 0)[5] == 4
    assert names(t, t.state.discard[-3:]) == [9, 11, GA[5]]  # 9, then 11, the replaced card on top
    assert t.state.discard[-1] == replaced
    for seat in (0, 1, 2, None):  # once placed, everyone sees them
        assert all(values_seen(t.state, seat)[h] is not None for h in drawn)


def test_a12_draw_three_keep_none_then_flip_and_a_flipped_star_wakes():
    a = [*GA[:6], S, *GA[7:]]
    t = armed(DRAW3, [a, GB], draw=[4, 11, 9])
    t.play(play(0))
    t.play(Move(0, "keep-none", order=(1, 0, 2)))
    assert names(t, t.state.discard[-3:]) == [11, 4, 9]
    assert decision(t) == ("flip", 0)
    t.play(flip(0, 6))
    assert decision(t) == ("offer", 0)  # turned face up: the star wakes (R-A6)


def test_a6_a12_draw_three_kept_star_wakes():
    t = armed(DRAW3, draw=[S, 11, 9])
    t.play(play(0))
    t.play(Move(0, "keep", index=0, slot=3))
    assert decision(t) == ("offer", 0)


def test_a12_draw_three_keep_none_needs_a_face_down_card_and_orders_must_be_exact():
    t = armed(DRAW3, draw=[4, 11, 9])
    t.play(play(0))
    with pytest.raises(IllegalMove, match="once each"):
        t.play(Move(0, "keep", index=0, slot=5, order=(1,)))
    with pytest.raises(IllegalMove, match="index must name one of the 3"):
        t.play(Move(0, "keep", index=3, slot=5))
    state = t.state.copy()
    state.face_up[0:12] = [True] * 12  # no face-down card left (built by hand)
    with pytest.raises(IllegalMove, match="no face-down card to turn: keep one"):
        apply(state, Move(0, "keep-none"))
    assert all(m.kind == "keep" for m in legal_moves(state, 0))


def test_a12_draw_three_with_no_card_left_to_draw_has_no_effect():
    t = armed(DRAW3)
    state = t.state.copy()
    state.draw = []  # built by hand: nothing to draw and nothing to reshuffle
    state.discard = state.discard[-1:]
    new, events = apply(state, play(0))
    assert any(isinstance(e, NoEffect) for e in events)
    assert new.to_move() == 1 and new.holding == ()


# --- 5. peek-line -------------------------------------------------------------------------------


def test_a12_peek_line_shows_face_down_cards_to_the_peeker_alone():
    t = armed(PEEK, [GA, GB, GC])
    t.play(play(0))
    assert decision(t) == ("peek", 0)
    assert len(legal_moves(t.state, 0)) == 3 * 7  # any line of any grid, own included
    before = {s: values_seen(t.state, s) for s in (1, 2, None)}
    column = [t.state.grid[12 + s] for s in (1, 5, 9)]  # seat 1's column 1: slot 1 face up
    events = t.play(mv(0, "peek", target=1, line="column", index=1))
    hidden = (column[1], column[2])
    assert [e for e in events if isinstance(e, RevealRequest)] == [RevealRequest(h, 0) for h in hidden]
    assert [values_seen(t.state, 0)[h] for h in hidden] == [GB[5], GB[9]]
    for seat in (1, 2, None):  # no other seat's view changes
        assert values_seen(t.state, seat) == before[seat]
    assert Peeked(0, 1, "column", 1, hidden) in events
    assert grid(t, 1)[5] == "?"  # still face down
    assert t.state.to_move() == 1


def test_a11_looking_at_a_line_is_not_an_attack():
    t = armed(PEEK, others={1: 0}, market=(DEFENSE, EXTRA, DRAW3))
    t.play(play(0))
    t.play(mv(0, "peek", target=1, line="row", index=2))
    assert held(t, 1) == ["defense"]


def test_a12_peek_line_refuses_a_line_that_does_not_exist():
    t = armed(PEEK)
    t.play(play(0))
    with pytest.raises(IllegalMove, match="no row 3"):
        t.play(mv(0, "peek", target=1, line="row", index=3))
    with pytest.raises(IllegalMove, match="no seat 4"):
        t.play(mv(0, "peek", target=4, line="row", index=0))


# --- 6. defense ---------------------------------------------------------------------------------


def test_a12_defense_played_is_discarded_and_gives_one_more_turn():
    t = armed(DEFENSE)
    t.play(play(0))
    assert names(t, t.state.action_discard) == ["defense"]
    assert t.state.to_move() == 0 and decision(t) == ("choose", 0)
    t.play(take(0, 0))
    assert t.state.to_move() == 1


# --- 7. replay-discard --------------------------------------------------------------------------


def test_a12_replay_discard_plays_any_card_of_the_action_discard_then_both_are_discarded():
    t = armed(REPLAY, others={1: 0}, market=(PEEK, EXTRA, DRAW3))
    t.play(take(0, 2))  # seat 0 has replay-discard; this turn it takes extra-turns
    t.play(mv(1, "discard-action", index=0))  # seat 1 discards peek-line unused
    assert names(t, t.state.action_discard) == ["peek-line"]
    t.play(play(0, 0))
    assert decision(t) == ("replay", 0)
    assert [m.index for m in legal_moves(t.state, 0)] == [0]
    t.play(mv(0, "replay", index=0))
    assert decision(t) == ("peek", 0)  # played at once, as if it were seat 0's
    t.play(mv(0, "peek", target=1, line="row", index=0))
    assert names(t, t.state.action_discard) == ["peek-line", "replay-discard"]  # the outer card on top
    assert held(t, 0) == ["extra-turns"]


def test_a12_replay_discard_with_an_empty_pile_has_no_effect():
    t = armed(REPLAY)
    events = t.play(play(0))
    assert any(isinstance(e, NoEffect) for e in events)
    assert names(t, t.state.action_discard) == ["replay-discard"] and t.state.to_move() == 1


def test_a12_replay_discard_can_replay_extra_turns():
    t = armed(REPLAY, others={1: 0}, market=(EXTRA, PEEK, DRAW3))
    quiet(t, 0)
    t.play(mv(1, "discard-action", index=0))  # extra-turns on the action discard
    t.play(play(0, 0))
    events = t.play(mv(0, "replay", index=0))
    assert any(e.count == 2 for e in events if type(e).__name__ == "ExtraTurns")
    assert t.state.to_move() == 0 and t.state.extra == 1  # the first of the two turns has begun


# --- 8. steal-and-play --------------------------------------------------------------------------


def test_a12_steal_and_play_takes_an_opponents_card_and_plays_it_at_once():
    t = armed(STEAL, [GA, GB, GC], others={1: 0, 2: 1}, market=(SWAP_OWN, PEEK, DRAW3))
    assert held(t, 1) == ["swap-own"] and held(t, 2) == ["peek-line"]
    t.play(play(0))
    assert decision(t) == ("steal", 0)
    assert {(m.target, m.index) for m in legal_moves(t.state, 0)} == {(1, 0), (2, 0)}
    t.play(mv(0, "steal", target=1, index=0))
    assert held(t, 1) == []
    assert decision(t) == ("swap", 0)  # seat 0 plays the stolen swap-own on its own grid
    t.play(Move(0, "swap", slot=2, slot2=3, face_up=(True, True)))
    assert names(t, t.state.action_discard) == ["swap-own", "steal-and-play"]


def test_a12_steal_and_play_when_no_opponent_holds_a_card_has_no_effect():
    t = armed(STEAL)
    events = t.play(play(0))
    assert any(isinstance(e, NoEffect) for e in events) and t.state.to_move() == 1


def test_a11_defense_blocks_steal_and_play():
    t = armed(STEAL, others={1: 0}, market=(DEFENSE, PEEK, DRAW3))
    t.play(play(0))
    t.play(mv(0, "steal", target=1, index=0))  # aiming at the defense itself: it blocks
    assert held(t, 1) == [] and names(t, t.state.action_discard) == ["defense", "steal-and-play"]
    assert held(t, 0) == [] and t.state.to_move() == 1


def test_a12_steal_and_play_refuses_stealing_from_yourself():
    t = armed(STEAL, others={1: 0}, market=(PEEK, EXTRA, DRAW3))
    t.play(play(0))
    with pytest.raises(IllegalMove, match="another player"):
        t.play(mv(0, "steal", target=0, index=0))


# --- 9. swap-with-others ------------------------------------------------------------------------


def test_a12_swap_with_others_two_exchanges_with_one_player_faces_as_chosen():
    t = armed(SWAP_OTHERS, [GA, GB, GC])
    t.play(play(0))
    assert decision(t) == ("exchange", 0)
    assert len(legal_moves(t.state, 0)) == 12 * 2 * 12 * 4
    mine, theirs = t.state.grid[0], t.state.grid[24 + 5]  # my face-up 12, seat 2's face-down -1
    t.play(mv(0, "exchange", slot=0, target=2, slot2=5, face_up=[False, False]))
    assert grid(t, 0)[0] == "?" and grid(t, 2)[5] == "?"
    assert all(values_seen(t.state, s)[theirs] is None for s in (0, 1, 2, None))  # still unknown
    assert all(values_seen(t.state, s)[mine] == 12 for s in (0, 1, 2, None))  # known: it was shown
    assert decision(t) == ("exchange", 0)  # the second exchange
    t.play(mv(0, "exchange", slot=1, target=2, slot2=6, face_up=[True, True]))
    assert grid(t, 0)[1] == GC[6] and grid(t, 2)[6] == -2
    assert t.state.to_move() == 1


def test_a11_a12_swap_with_others_defense_blocks_the_exchanges_with_its_holder_only():
    t = armed(SWAP_OTHERS, [GA, GB, GC], others={1: 0}, market=(DEFENSE, EXTRA, DRAW3))
    t.play(play(0))
    before = list(t.state.grid)
    t.play(mv(0, "exchange", slot=2, target=1, slot2=2, face_up=[True, True]))
    assert t.state.grid == before and held(t, 1) == []  # blocked; the defense is spent
    assert Exchanged(0, 2, 1, 2, True) in t.events
    t.play(mv(0, "exchange", slot=2, target=2, slot2=2, face_up=[True, True]))  # the other one: done
    assert grid(t, 0)[2] == GC[2] and grid(t, 2)[2] == GA[2]


def test_a11_swap_with_others_both_exchanges_with_a_defender_are_blocked_by_one_defense():
    t = armed(SWAP_OTHERS, [GA, GB], others={1: 0}, market=(DEFENSE, DEFENSE, DRAW3))
    quiet(t, 0)
    t.play(take(1, 2))  # seat 1 now holds two defenses
    t.play(play(0, 0))
    before = list(t.state.grid)
    t.play(mv(0, "exchange", slot=2, target=1, slot2=2, face_up=[True, True]))
    t.play(mv(0, "exchange", slot=3, target=1, slot2=3, face_up=[True, True]))
    assert t.state.grid == before  # both exchanges with seat 1 blocked ...
    assert len([e for e in t.events if isinstance(e, Blocked)]) == 1  # ... by one defense
    assert held(t, 1) == ["defense"]


def test_a12_swap_with_others_moves_a_star_without_waking_it():
    c = [S, *GC[1:]]
    t = armed(SWAP_OTHERS, [GA, GB, c])  # seat 2's star at slot 0 is face up since setup
    t.play(play(0))
    t.play(mv(0, "exchange", slot=5, target=2, slot2=0, face_up=[True, True]))
    assert grid(t, 0)[5] == "*" and decision(t) == ("exchange", 0)


def test_a12_swap_with_others_refuses_your_own_grid():
    t = armed(SWAP_OTHERS)
    t.play(play(0))
    with pytest.raises(IllegalMove, match="another player"):
        t.play(mv(0, "exchange", slot=2, target=0, slot2=3, face_up=[True, True]))


# --- nested plays ---------------------------------------------------------------------------------


def test_a12_steal_and_play_a_replay_discard_replaying_draw_three():
    t = armed(STEAL, [GA, GB], others={1: 0}, market=(REPLAY, DRAW3, PEEK), draw=[4, 11, 9])
    assert held(t, 1) == ["replay-discard"]
    t.play(take(0, 2))  # draw-three
    quiet(t, 1)
    t.play(mv(0, "discard-action", index=1))  # draw-three onto the action discard
    quiet(t, 1)
    t.play(play(0, 0))  # steal-and-play ...
    t.play(mv(0, "steal", target=1, index=0))  # ... seat 1's replay-discard ...
    assert decision(t) == ("replay", 0)
    t.play(mv(0, "replay", index=0))  # ... replaying draw-three
    assert decision(t) == ("draw-three", 0) and len(t.state.holding) == 3
    t.play(Move(0, "keep", index=1, slot=4))
    assert grid(t, 0)[4] == 11
    assert names(t, t.state.action_discard) == ["draw-three", "replay-discard", "steal-and-play"]
    assert t.state.to_move() == 1
