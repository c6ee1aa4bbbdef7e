"""SKYJO ACTION bots: they read only their view, they are deterministic, they answer every decision
of every variant legally, and they decide as specified (greedy) or sensibly (strong)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from client import tournament
from skyjo_p2p.action import ACTION, PLAYING, ActionOptions
from skyjo_p2p.action.cards import BY_NAME, KINDS, STAR
from skyjo_p2p.action.state import ActionState
from skyjo_p2p.bots import make_bot
from skyjo_p2p.bots.base import Bot
from skyjo_p2p.core.dealer import Dealer
from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.rng import Rng
from skyjo_p2p.core.state import TableState
from skyjo_p2p.engine import apply, deciders, legal_moves, new_game, rules_for, view
from tests.support import Table, build_deck

GAME = "skyjo-action"
LEVELS = ("random", "greedy", "strong")
CARDS = [*range(-2, 13), STAR, *KINDS]
S = STAR
RFE = BY_NAME["remove-from-each"]
SWAP_OWN = BY_NAME["swap-own"]
EXTRA = BY_NAME["extra-turns"]
DRAW3 = BY_NAME["draw-three"]
PEEK = BY_NAME["peek-line"]
DEFENSE = BY_NAME["defense"]
SWAP_OTHERS = BY_NAME["swap-with-others"]
GB = [4, 2, 3, 3, 1, 2, 0, 1, 2, 3, 1, 2]  # no line, even fully face up


def bot(level: str, seed: str = "test") -> Bot:
    return make_bot(level, GAME, seed)


def state_of(t: Table) -> ActionState:
    state = t.state
    assert isinstance(state, ActionState)
    return state


def choose(level: str, t: Table, seat: int) -> Move:
    move = bot(level).choose(view(t.state, seat), seat)
    assert move in legal_moves(t.state, seat)
    return move


def table(
    grids: list[list[int]],
    discard: int = 5,
    draw: Sequence[int] = (),
    market: Sequence[int] = (),
    options: dict[str, Any] | None = None,
) -> Table:
    """A table whose round 1 deals `grids`, then `discard`, then `draw` (top first); the action
    deck starts with `market` (its first four cards are the market)."""
    parsed = ActionOptions.parse(options)
    front = [v for grid in grids for v in grid] + [discard, *draw]
    decks = {(1, PLAYING): build_deck(front, parsed.playing_deck)}
    if parsed.has_market:
        decks[(1, ACTION)] = build_deck(list(market), parsed.action_deck)
    return Table(GAME, len(grids), options, seed=0, decks=decks, mirrors=False)


def reveal(seat: int, *slots: int) -> Move:
    return Move(seat, "reveal", slots=tuple(slots))


def draw(seat: int, source: str = "deck") -> Move:
    return Move(seat, "draw", source=source)


def replace(seat: int, slot: int) -> Move:
    return Move(seat, "replace", slot=slot)


def take(seat: int, index: int) -> Move:
    return Move(seat, "take", source="market", index=index)


def pass_(seat: int) -> Move:
    return Move(seat, "pass")


def play(seat: int, index: int) -> Move:
    return Move(seat, "play", index=index)


def hand_over(t: Table, seat: int, slot: int) -> None:
    """A quiet turn for `seat`: draw, discard, turn `slot`."""
    t.play_all([draw(seat), Move(seat, "discard"), Move(seat, "flip", slot=slot)])


def scrambled(state: ActionState, seat: int, rng: Rng) -> ActionState:
    """The same table with every card `seat` may not know given a random value (random values,
    not a shuffle of the hidden ones: a bot that peeked while counting would see the same
    multiset after a shuffle)."""
    out = state.copy()
    for handle in out.locations():
        if not out.knows(seat, handle):
            out.values[handle] = CARDS[rng.below(len(CARDS))]
    return out


def new_table(players: int, options: dict[str, Any], seed: str) -> tuple[ActionState, Dealer]:
    dealer = Dealer(rules_for(GAME).composition, seed=seed)
    state: TableState
    state, events = new_game(GAME, players, options)
    state, _ = dealer.settle(state, events, apply)
    assert isinstance(state, ActionState)
    return state, dealer


def step(state: ActionState, dealer: Dealer, move: Move) -> ActionState:
    new: TableState
    new, events = apply(state, move)
    if new.pending:
        new, _ = dealer.settle(new, events, apply)
    assert isinstance(new, ActionState)
    return new


# --- a policy over one seat's view --------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_bots_choose_the_same_whatever_the_hidden_cards(level: str) -> None:
    """A bot handed the full state, or the full state with every card it may not know given a
    random value, chooses exactly what it chooses from its masked view."""
    rng = Rng(5)
    checked = 0
    tables = [
        (4, {}),
        (3, {"variant": "action-in-deck"}),
        (3, {"grid": "3x3"}),
        (2, {"variant": "stars-only"}),
    ]
    for number, (players, options) in enumerate(tables):
        state, dealer = new_table(players, options, f"scramble:{number}")
        others = [bot("greedy", f"{number}:{s}") for s in range(players)]
        for _ in range(90):
            if state.phase == "game_over":
                break
            seat = deciders(state)[0]
            if any(not state.knows(seat, h) for h in state.locations()):
                label = f"probe:{checked}"
                honest = bot(level, label).choose(state, seat)
                blind = bot(level, label).choose(scrambled(state, seat, rng), seat)
                masked = bot(level, label).choose(view(state, seat), seat)
                assert honest == blind == masked, (state.step, honest, blind, masked)
                checked += 1
            state = step(state, dealer, others[seat].choose(view(state, seat), seat))
    assert checked >= 250


@pytest.mark.parametrize("level", LEVELS)
def test_bots_are_deterministic_given_their_seed(level: str) -> None:
    def moves(seed: str) -> list[Move]:
        state, dealer = new_table(3, {}, "determinism")
        bots = [bot(level, f"{seed}:{s}") for s in range(3)]
        played = []
        for _ in range(100):
            seat = deciders(state)[0]
            move = bots[seat].choose(view(state, seat), seat)
            played.append(move)
            state = step(state, dealer, move)
        return played

    assert moves("a") == moves("a")


# --- every decision of every variant ------------------------------------------------------------

VARIANTS: list[tuple[int, dict[str, Any]]] = [
    # (players, options): each variant at its smallest and largest table, both grids
    (2, {}),
    (6, {"wild_min_numbers": 1}),
    (8, {"grid": "3x3"}),
    (3, {"setup_reveals": 4, "action_kinds": "steal-and-play,replay-discard,swap-with-others,defense"}),
    (4, {"action_kinds": "peek-line,swap-own,draw-three,steal-and-play"}),
    (2, {"variant": "action-in-deck", "deck_actions": 10}),
    (6, {"variant": "action-in-deck", "deck_actions": 5, "setup_reveals": 0}),
    (8, {"variant": "action-in-deck", "grid": "3x3", "wild_min_numbers": 1}),
    (1, {"variant": "stars-only"}),
    (6, {"variant": "stars-only", "setup_reveals": 3}),
    (8, {"variant": "stars-only", "grid": "3x3"}),
    (1, {"variant": "numbers-only", "grid": "3x3"}),
    (4, {"variant": "numbers-only"}),
    (6, {"variant": "numbers-only", "grid": "3x3"}),
]


@pytest.mark.parametrize("level", ["greedy", "strong"])
def test_every_choice_is_legal_in_every_variant_and_every_game_ends(level: str) -> None:
    """Whole games (short ones: target 25) in every variant; seats alternate between the level under
    test and the others, so it meets every kind of table. Every decision the engine asks of the
    level is answered with a legal move, out of turn too, and every game ends."""
    steps: set[str] = set()
    out_of_turn = 0
    for number, (players, options) in enumerate(VARIANTS):
        state, dealer = new_table(players, {"target_score": 25, **options}, f"variants:{level}:{number}")
        mix = [level, *(x for x in LEVELS if x != level)]
        bots = [bot(mix[(s + number) % 3] if s % 2 else level, f"{number}:{s}") for s in range(players)]
        played = 0
        while state.phase != "game_over":
            seat = deciders(state)[0]
            move = bots[seat].choose(view(state, seat), seat)
            assert move in legal_moves(state, seat), (state.step, move)
            if bots[seat].name == level:
                steps.add(state.step)
                out_of_turn += state.step != "setup" and state.turn != seat
            state = step(state, dealer, move)
            played += 1
            assert played < 20_000, f"game {number} does not end"
    every = {"setup", "choose", "drawn", "took", "flip", "offer", "lines", "found", "pick", "swap"}
    every |= {"draw-three", "peek", "replay", "steal", "exchange"}
    assert steps == every
    assert out_of_turn > 0


def test_short_tournament_greedy_beats_random() -> None:
    report = tournament.run(GAME, ["greedy", "random"], games=30, seed=3)
    greedy, rand = report["entries"]
    assert greedy["wins"] >= 28 and rand["wins"] <= 2
    assert greedy["mean_round_score_raw"] < rand["mean_round_score_raw"]


# --- hand-made positions ------------------------------------------------------------------------

MARKET = [PEEK, SWAP_OWN, EXTRA, DRAW3]
LOW = [-2, 1, 0, 5, 3, 2, 4, 6, 7, 8, 9, 10]  # no line even fully face up; slot 0 is a -2


def show(t: Table, seat: int, slots: Iterable[int]) -> None:
    """Turn cards face up by hand, as if earlier turns had done it (no star wakes)."""
    state = state_of(t)
    for slot in slots:
        index = seat * state.size + slot
        handle = state.grid[index]
        state.face_up[index] = True
        state.seen[handle] = state.everyone
        state.values[handle] = t.dealer.values[handle]


def at_setup_end(
    grids: list[list[int]],
    reveals: Sequence[Sequence[int]],
    discard: int = 5,
    draw: Sequence[int] = (),
    market: Sequence[int] = (),
    options: dict[str, Any] | None = None,
) -> Table:
    t = table(grids, discard, draw, market, options)
    for seat, slots in enumerate(reveals):
        t.play(reveal(seat, *slots))
    return t


def test_greedy_takes_a_low_discard_and_puts_it_on_its_highest_card() -> None:
    t = at_setup_end([[9, 4, 1, 2, 3, 5, 6, 7, 8, 10, 11, 0], GB], [(0, 1), (0, 1)], discard=2)
    show(t, 0, range(2, 6))
    assert choose("greedy", t, 0) == draw(0, "discard")
    t.play(draw(0, "discard"))
    assert choose("greedy", t, 0) == replace(0, 0)  # the 9 is its highest face-up card


def test_greedy_takes_a_high_card_that_completes_a_line_with_a_star_and_removes_the_line() -> None:
    # column 0 shows 10, star, 7: a 10 makes it removable (two numbers and a star, R-A7)
    mine = [10, 1, 2, 3, S, 4, 5, 6, 7, 9, 11, 12]
    t = at_setup_end([mine, GB], [(0, 1), (0, 1)], discard=10, market=MARKET)
    show(t, 0, (4, 8))
    for level in ("greedy", "strong"):
        assert choose(level, t, 0) == draw(0, "discard")
    t.play(draw(0, "discard"))
    for level in ("greedy", "strong"):
        assert choose(level, t, 0) == replace(0, 8)
    t.play(replace(0, 8))
    assert state_of(t).step == "lines"  # optional: the owner decides
    for level in ("greedy", "strong"):
        assert choose(level, t, 0).kind == "remove-line"


def test_greedy_plays_its_oldest_card_at_the_first_turn_it_may() -> None:
    t = at_setup_end([LOW, GB], [(3, 4), (0, 1)], market=[EXTRA, DRAW3, PEEK, SWAP_OWN], discard=-2)
    assert state_of(t).to_move() == 0
    assert choose("greedy", t, 0) == draw(0, "discard")  # it never takes a card on its turn
    t.play(take(0, 0))  # by hand: extra-turns, then draw-three
    hand_over(t, 1, 5)
    t.play(take(0, 0))
    hand_over(t, 1, 6)
    assert choose("greedy", t, 0) == play(0, 0)  # the extra-turns, taken first


def test_greedy_takes_by_its_fixed_preference_and_strong_takes_what_pays() -> None:
    # seat 0 shows high cards and a star (a take at setup); seat 1 shows low ones
    mine = [S, 12, 11, 10, 12, 11, 2, 3, 4, 5, 6, 7]
    theirs = [-2, -1, 0, 1, 0, -2, 2, 3, 4, 5, 6, 7]
    market = [PEEK, DEFENSE, SWAP_OTHERS, EXTRA]
    t = at_setup_end([mine, theirs], [range(6), range(6)], market=market, options={"setup_reveals": 6})
    assert state_of(t).step == "offer" and state_of(t).actor == 0
    assert choose("greedy", t, 0) == take(0, 2)  # swap-with-others comes first in its order
    assert choose("strong", t, 0) == take(0, 2)  # dump a 12 on a -2, twice


def test_greedy_and_strong_let_a_star_pass_in_the_final_lap() -> None:
    t = table([LOW, GB], discard=5, draw=[9, S], market=MARKET, options={"setup_reveals": 11})
    t.play_all([reveal(0, *range(11)), reveal(1, *range(11))])
    assert state_of(t).to_move() == 0  # 43 against 22
    t.play_all([draw(0), replace(0, 11)])  # seat 0 turns its last card: the round end is triggered
    assert state_of(t).ender == 0 and state_of(t).to_move() == 1
    t.play_all([draw(1), replace(1, 4)])  # a star in seat 1's last turn: its take is offered
    assert state_of(t).step == "offer" and state_of(t).actor == 1
    for level in ("greedy", "strong"):
        assert choose(level, t, 1) == pass_(1)  # unplayable now: it would only score 10


def armed(kind: int, grids: list[list[int]], reveals: Sequence[Sequence[int]], players: int = 2) -> Table:
    """Seat 0 takes `kind` (market position 0) at its first turn, the others play quiet turns, and
    it is seat 0's turn again."""
    t = at_setup_end(grids, reveals, market=[kind, DEFENSE, PEEK, EXTRA], discard=5)
    assert state_of(t).to_move() == 0
    t.play(take(0, 0))
    for seat in range(1, players):
        hand_over(t, seat, 11)
    assert state_of(t).to_move() == 0
    return t


def test_remove_from_each_takes_the_opponents_lowest_card() -> None:
    theirs = [1, 2, -2, 4, 3, 5, 6, 7, 8, 9, 10, 11]
    t = armed(RFE, [[12, 11, 10, 9, 1, 2, 3, 4, 5, 6, 7, 8], theirs], [(0, 1), (0, 1)])
    show(t, 1, (2, 3))
    t.play(play(0, 0))
    assert state_of(t).step == "pick"
    for level in ("greedy", "strong"):
        assert choose(level, t, 0) == Move(0, "pick", target=1, slot=2)


def test_swap_with_others_greedy_takes_the_lowest_card_strong_avoids_a_defense() -> None:
    mine = [12, 11, 10, 9, 1, 2, 3, 4, 5, 6, 7, 8]
    b = [-2, 4, 3, 5, 1, 2, 6, 7, 8, 9, 10, 11]  # shows -2 and holds a defense
    c = [-1, 4, 3, 5, 1, 2, 6, 7, 8, 9, 10, 11]  # shows -1
    t = at_setup_end([mine, b, c], [(0, 1), (0, 1), (0, 1)], market=[SWAP_OTHERS, DEFENSE, PEEK, EXTRA])
    t.play(take(0, 0))
    t.play(take(1, 1))  # seat 1 takes the defense
    hand_over(t, 2, 11)
    t.play(play(0, 0))
    assert state_of(t).step == "exchange"
    greedy = choose("greedy", t, 0)
    assert (greedy.slot, greedy.target, greedy.slot2) == (0, 1, 0)  # its 12 for the -2, blocked
    strong = choose("strong", t, 0)
    assert strong.target == 2 and strong.slot2 == 0 and strong.slot in (0, 1)  # a high card for the -1


def test_strong_does_not_end_a_round_it_would_lose_by_doubling() -> None:
    # Putting the drawn -2 on its last face-down card (the worst card on average) would end the
    # round at 14, but the opponent shows 1 with one card left: ending means doubling.
    mine = [3, 3, 2, 2, 2, 1, 1, 0, 0, -1, 3, 9]  # 16 showing, slot 11 face down
    theirs = [0, 1, -1, 2, 0, 1, -1, 2, 1, -2, -2, 3]  # 1 showing, slot 11 face down
    t = table([mine, theirs], discard=12, draw=[-2], options={"setup_reveals": 11})
    t.play_all([reveal(0, *range(11)), reveal(1, *range(11))])
    assert state_of(t).to_move() == 0
    t.play(draw(0))
    move = choose("strong", t, 0)
    assert move.kind == "replace" and move.slot in (0, 1, 10)  # the -2 replaces a 3; slot 11 stays down


def test_strong_ends_a_round_it_clearly_wins() -> None:
    mine = [0, 0, 1, 1, -1, -1, 0, 2, 1, 0, -1, 9]  # 2 showing, slot 11 (a 9) face down
    theirs = [0, 1, 7, 8, 9, 10, 11, 12, 5, 6, 7, 8]  # almost everything face down
    t = at_setup_end([mine, theirs], [(7, 8), (0, 1)], discard=12, draw=[-2])
    assert state_of(t).to_move() == 0
    show(t, 0, range(11))
    t.play(draw(0))
    assert choose("strong", t, 0) == replace(0, 11)  # ends the round at 0 points against ~60


def test_strong_uses_a_star_to_complete_a_column() -> None:
    mine = [9, 1, 2, 3, 9, 4, 5, 0, 6, 7, 8, 10]  # column 0: 9, 9, 6
    t = at_setup_end([mine, GB], [(0, 4), (0, 1)], discard=S, market=MARKET)
    show(t, 0, (1, 2, 8))
    assert choose("strong", t, 0) == draw(0, "discard")
    t.play(draw(0, "discard"))
    assert choose("strong", t, 0) == replace(0, 8)  # 9, 9, star: removable (R-A7)
    t.play(replace(0, 8))
    assert state_of(t).step == "offer"  # the star woke (R-A6); then the lines
    t.play(pass_(0))
    assert state_of(t).step == "lines"
    assert choose("strong", t, 0).kind == "remove-line"


def held_position(mine_held: list[int], theirs_held: list[int], theirs_down: int = 10) -> Table:
    """Seat 0 holds `mine_held`, seat 1 `theirs_held` (taken at their first turns, from a market
    of exactly those cards); seat 1 shows all but `theirs_down` cards; seat 0 is to move."""
    theirs = [4, 2, 3, 3, 1, 2, 0, 1, 2, 3, 1, 2]
    market = [*mine_held, *theirs_held]
    t = at_setup_end([LOW, theirs], [(3, 4), (0, 1)], market=market + [PEEK] * (4 - len(market)), discard=8)
    for position in range(len(mine_held)):
        t.play(take(0, position))
        t.play(take(1, len(mine_held) + position) if position < len(theirs_held) else draw(1, "discard"))
        if state_of(t).step == "took":
            t.play(replace(1, 0))
    show(t, 1, range(12 - theirs_down))
    assert state_of(t).to_move() == 0
    return t


def test_strong_holds_its_defense_while_an_attack_is_in_sight() -> None:
    t = held_position([DEFENSE], [SWAP_OTHERS])
    assert choose("strong", t, 0).kind != "play"


def test_strong_plays_its_defense_when_the_round_end_is_near() -> None:
    t = held_position([DEFENSE], [], theirs_down=1)
    assert choose("strong", t, 0) == play(0, 0)  # a free turn, rather than 10 points at the end


def test_strong_peeks_at_an_opponents_line_before_a_swap_with_others() -> None:
    t = held_position([PEEK, SWAP_OTHERS], [])
    t.play(play(0, 0))
    assert state_of(t).step == "peek"
    move = choose("strong", t, 0)
    assert move.target == 1
