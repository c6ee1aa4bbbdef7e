"""SKIP-BO bots: they read only their view, they are deterministic, and they decide sensibly.

Hand-made positions are built directly as engine states (`position`): every card gets a handle
and a value, and only the seats the rules let see it know it. Decisions are asked of the bots on
the seat's view, exactly as at a real table, and sequences are played on through the engine.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pytest

from client import tournament
from skyjo_p2p.bots import make_bot
from skyjo_p2p.bots.skipbo_greedy import greedy_move
from skyjo_p2p.bots.skipbo_strong import Planner, SkipBoStrongBot, StrongParams
from skyjo_p2p.bots.skipbo_view import SkipBoTable
from skyjo_p2p.core.dealer import Dealer
from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.rng import Rng
from skyjo_p2p.engine import apply, deciders, legal_moves, rules_for, view
from skyjo_p2p.skipbo import COMPOSITION, DECK, WILD
from skyjo_p2p.skipbo.options import SkipBoOptions
from skyjo_p2p.skipbo.state import TURN, SkipBoState
from tests.support import Table

W = WILD


# --- hand-made positions --------------------------------------------------------------------------


class Position:
    """A SKIP-BO table set up by hand, seat `turn` to move, with a dealer that knows every card."""

    def __init__(
        self,
        hands: Sequence[Sequence[int]],
        stocks: Sequence[Sequence[int]],
        discards: Sequence[Sequence[Sequence[int]]] | None = None,
        building: Sequence[int] = (0, 0, 0, 0),
        draw: int = 30,
        options: dict[str, object] | None = None,
        turn: int = 0,
    ) -> None:
        """`hands[s]` in hand order; `stocks[s]` top first (only the top is shown);
        `discards[s][p]` bottom first; `building[p]` the height of building pile p; `draw` cards
        (from what is left of the deck) in the draw pile."""
        players = len(stocks)
        state = SkipBoState(players, SkipBoOptions.parse({"stock_size": 5, **(options or {})}, players))
        self.values: dict[int, int] = {}
        rest = Counter(COMPOSITION)

        def card(value: int, seen: int) -> int:
            handle = state.allocate(DECK, 1)
            state.values[handle] = value
            state.seen[handle] = seen
            self.values[handle] = value
            rest[value] -= 1
            assert rest[value] >= 0, f"too many {value}s"
            return handle

        everyone = state.everyone
        state.stocks = [
            tuple(card(v, everyone if i == 0 else 0) for i, v in reversed(list(enumerate(stock))))
            for stock in stocks
        ]
        state.hands = [tuple(card(v, 1 << seat) for v in hand) for seat, hand in enumerate(hands)]
        piles = discards or [[[]] * 4] * players
        state.discards = [tuple(card(v, everyone) for v in pile) for seat in piles for pile in seat]
        state.building = [tuple(card(v, everyone) for v in range(1, h + 1)) for h in building]
        left = [v for v in sorted(rest) for _ in range(rest[v])]
        Rng(7).shuffle(left)
        state.draw = [card(v, 0) for v in left[:draw]]
        state.phase, state.turn, state.round, state.dealer = TURN, turn, 1, (turn - 1) % players
        self.state = state
        self.dealer = Dealer.knowing(rules_for("skip-bo").composition, self.values)

    def choose(self, level: str, seed: int | str = "test") -> Move:
        seat = self.state.turn
        assert seat is not None
        move = make_bot(level, "skip-bo", seed).choose(view(self.state, seat), seat)
        assert move in legal_moves(self.state, seat)
        return move

    def play(self, move: Move) -> None:
        state, events = apply(self.state, move)
        state, _ = self.dealer.settle(state, events, apply)
        assert isinstance(state, SkipBoState)
        self.state = state

    def hand(self, seat: int = 0) -> list[int]:
        return [self.values[h] for h in self.state.hands[seat]]

    def heights(self) -> list[int]:
        return [len(pile) for pile in self.state.building]


def hand(index: int, target: int, seat: int = 0) -> Move:
    return Move(seat, "play", source="hand", index=index, target=target)


def stock(target: int, seat: int = 0, source: str = "stock") -> Move:
    return Move(seat, "play", source=source, target=target)


def from_discard(pile: int, target: int, seat: int = 0, source: str = "discard") -> Move:
    return Move(seat, "play", source=source, pile=pile, target=target)


def discard(index: int, pile: int, seat: int = 0) -> Move:
    return Move(seat, "discard", index=index, pile=pile)


NO_PILES: list[list[int]] = [[], [], [], []]


# --- greedy: the reference, rule by rule -----------------------------------------------------------


def test_greedy_plays_its_stock_top_first():
    pos = Position([[4, 5, 6, 1, 2], []], [[4, 9], [12, 12]], building=(3, 0, 3, 0))
    assert pos.choose("greedy") == stock(0)  # rule 1: the lowest-numbered pile it fits


def test_greedy_plays_the_card_that_leaves_a_pile_nearest_the_stock_top():
    # Stock 7: the 5 leaves pile 1 one card away; the 3 and the 1 leave theirs 3 and 5 away.
    pos = Position([[1, 3, 5, 12, 12], []], [[7, 9], [12, 12]], building=(2, 4, 0, 11))
    assert pos.choose("greedy") == hand(2, 1)


def test_greedy_counts_the_distance_round_the_top_of_a_pile():
    # Stock 2 and every pile above it: the 11 (pile 0 then needs 12, then 1, then 2) leads toward it.
    pos = Position([[11, 9, 9, 9, 9], []], [[2, 9], [12, 12]], building=(10, 5, 5, 5))
    assert pos.choose("greedy") == hand(0, 0)


def test_greedy_prefers_its_discard_tops_to_its_hand_at_equal_distance():
    discards = [[[], [8, 5], [], []], NO_PILES]
    pos = Position([[5, 12, 12, 12, 12], []], [[6, 9], [12, 12]], discards, building=(4, 0, 0, 0))
    assert pos.choose("greedy") == from_discard(1, 0)


def test_greedy_bridges_one_gap_with_a_wild_but_never_two():
    pos = Position([[12, W, 12, 12, 12], []], [[6, 9], [12, 12]], building=(4, 0, 7, 0))
    assert pos.choose("greedy") == hand(1, 0)  # pile 0 needs 5, one below the stock top
    pos = Position([[12, W, W, 12, 12], []], [[7, 9], [12, 12]], building=(4, 7, 7, 7))
    assert pos.choose("greedy").kind == "discard"  # two wilds would reach the 7: greedy does not


def test_greedy_discards_its_highest_card_onto_the_pile_it_matches_best():
    discards = [[[12], [8], [10, 9], [4]], NO_PILES]
    pos = Position([[3, 8, W, 2, 8], []], [[12, 9], [12, 12]], discards, building=(5, 5, 5, 5))
    assert pos.choose("greedy") == discard(1, 2)  # the first 8, onto the 9 (a run) before the 8
    discards = [[[12], [10, 7], [8], [4]], NO_PILES]
    pos = Position([[3, 8, W, 2, 8], []], [[12, 9], [12, 12]], discards, building=(5, 5, 5, 5))
    assert pos.choose("greedy") == discard(1, 2)  # no 9 on top: onto the 8
    discards = [[[12], [10, 7], [], [4]], NO_PILES]
    pos = Position([[3, 8, W, 2, 8], []], [[12, 9], [12, 12]], discards, building=(5, 5, 5, 5))
    assert pos.choose("greedy") == discard(1, 2)  # no 9 or 8 on top: the empty pile
    discards = [[[12], [10, 7], [11], [4]], NO_PILES]
    pos = Position([[3, 8, W, 2, 8], []], [[12, 9], [12, 12]], discards, building=(5, 5, 5, 5))
    assert pos.choose("greedy") == discard(1, 0)  # no empty pile: the highest top


def test_greedy_ends_its_turn_when_it_holds_nothing():
    pos = Position([[], []], [[12, 9], [12, 12]], building=(5, 5, 5, 5), draw=0)
    assert pos.choose("greedy") == Move(0, "end")


def test_greedy_plays_its_partners_stock_top_in_a_team_game():
    hands = [[12, 12, 12, 12, 11], [], [], []]
    stocks = [[9, 9], [8, 8], [4, 4], [8, 8]]
    pos = Position(hands, stocks, building=(3, 0, 0, 0), options={"teams": True})
    assert pos.choose("greedy") == stock(0, source="partner-stock")


# --- strong: search, wilds, feeding, discards ------------------------------------------------------


def test_strong_finds_a_sequence_through_its_discards_and_hand_to_the_stock_top():
    # Stock 9 over pile 0 at 5: the discard top 6, then the 7 under it, then the hand's 8. The
    # wild could stand for the 7 instead; strong keeps it.
    discards = [[[7, 6], [], [], []], NO_PILES]
    pos = Position([[8, W, 12, 12, 10], []], [[9, 9, 9], [12, 12]], discards, building=(5, 3, 3, 3))
    plays = []
    while len(pos.state.stocks[0]) == 3:
        move = pos.choose("strong")
        plays.append(move)
        pos.play(move)
    assert plays == [from_discard(0, 0), from_discard(0, 0), hand(0, 0), stock(0)]
    assert W in pos.hand()


def test_strong_spends_two_wilds_to_play_its_stock_top():
    pos = Position([[12, W, W, 12, 11], []], [[7, 9], [12, 12]], building=(4, 8, 8, 8))
    assert greedy_move(SkipBoTable.of(view(pos.state, 0), 0)).kind == "discard"
    for _ in range(2):
        move = pos.choose("strong")
        assert move.kind == "play" and move.source == "hand" and pos.hand()[move.index] == W
        pos.play(move)
    assert pos.choose("strong") == stock(0)


def test_strong_keeps_a_wild_it_does_not_need_now():
    # No play reaches the stock top 11; the wild stays in hand and a high card is discarded.
    pos = Position([[W, 3, 12, 10, 12], []], [[11, 9], [12, 12]], building=(1, 0, 0, 0))
    for _ in range(6):
        move = pos.choose("strong")
        if move.kind == "discard":
            break
        assert not (move.source == "hand" and pos.hand()[move.index] == W)
        pos.play(move)
    assert move.kind == "discard" and pos.hand()[move.index] != W
    assert W in pos.hand()


def test_strong_does_not_build_a_pile_up_to_the_next_players_stock_top():
    # Seat 1 (next) shows a 6. Playing the 5 would leave pile 0 needing 6: strong holds it.
    pos = Position([[5, 12, 12, 11, 10], []], [[12, 9], [6, 6]], building=(4, 8, 8, 8))
    greedy = greedy_move(SkipBoTable.of(view(pos.state, 0), 0))
    assert greedy == hand(0, 0)  # the reference plays it
    move = pos.choose("strong")
    assert move.kind == "discard"
    assert 5 in [v for i, v in enumerate(pos.hand()) if i != move.index]


def test_strong_feeds_its_stock_even_when_it_helps_the_next_player():
    pos = Position([[5, 12, 12, 11, 10], []], [[5, 9], [6, 6]], building=(4, 8, 8, 8))
    assert pos.choose("strong") == stock(0)


def test_strong_discards_onto_a_descending_run_and_never_covers_a_wild():
    discards = [[[W], [3], [12, 10], [2]], NO_PILES]
    pos = Position([[9, 9, 9, 9, 9], []], [[4, 9], [12, 12]], discards, building=(5, 5, 5, 5))
    assert pos.choose("strong") == discard(0, 2)


def test_strong_plays_its_partners_stock_top_in_a_team_game():
    hands = [[12, 12, 12, 12, 11], [], [], []]
    stocks = [[9, 9], [8, 8], [4, 4], [8, 8]]
    pos = Position(hands, stocks, building=(3, 0, 0, 0), options={"teams": True})
    assert pos.choose("strong") == stock(0, source="partner-stock")


def test_strong_plays_the_partners_stock_on_the_way_to_its_own():
    # Pile 0 at 5; the partner shows 6, own stock 7: partner's 6 first, then own 7.
    hands = [[12, 12, 12, 12, 11], [], [], []]
    stocks = [[7, 9], [9, 9], [6, 6], [9, 9]]
    pos = Position(hands, stocks, building=(5, 9, 9, 9), options={"teams": True})
    assert pos.choose("strong") == stock(0, source="partner-stock")
    pos.play(stock(0, source="partner-stock"))
    assert pos.choose("strong") == stock(0)


# --- every level: privacy, determinism, legality ---------------------------------------------------


LEVELS = ["random", "greedy", "strong", "strong-mc"]


def bot(level: str, seed: int | str):
    """A bot of `level`; "strong-mc" is strong with its Monte Carlo refill valuation switched on."""
    if level == "strong-mc":
        return SkipBoStrongBot(seed, StrongParams(cycle_samples=8))
    return make_bot(level, "skip-bo", seed)


def scrambled(state: SkipBoState, seat: int, rng: Rng) -> SkipBoState:
    """The same table with every card `seat` may not know given a random value (not a shuffle of
    the hidden ones: a bot that counted hidden cards would see the same multiset)."""
    out = state.copy()
    for handle in out.locations():
        if not out.knows(seat, handle):
            out.values[handle] = rng.below(13)
    return out


def test_the_table_a_bot_reads_is_the_same_whatever_the_hidden_cards():
    """Every SKIP-BO bot reads the game through `SkipBoTable.of`: it must be equal on the full
    state, on the masked view and on a full state whose hidden cards were given random values."""
    rng = Rng(11)
    checked = 0
    for game, options in enumerate([{"stock_size": 10}, {"stock_size": 8, "teams": True}]):
        table = Table("skip-bo", 4, options, seed=game, mirrors=False)
        players = [make_bot("greedy", "skip-bo", s) for s in range(4)]
        while table.state.phase != "game_over" and checked < 150 * (game + 1):
            state = table.state
            for seat in range(4):
                full = SkipBoTable.of(state, seat)
                assert full == SkipBoTable.of(view(state, seat), seat)
                assert full == SkipBoTable.of(scrambled(state, seat, rng), seat)
            checked += 1
            seat = deciders(state)[0]
            table.play(players[seat].choose(view(state, seat), seat))
    assert checked >= 200


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("options", [{"stock_size": 10}, {"stock_size": 8, "teams": True}])
def test_bots_choose_the_same_whatever_the_hidden_cards(level, options):
    rng = Rng(5)
    checked = 0
    for game in range(2):
        table = Table("skip-bo", 4, options, seed=game, mirrors=False)
        players = [make_bot(lv, "skip-bo", f"{game}:{s}") for s, lv in enumerate(["greedy", "strong"] * 2)]
        while table.state.phase != "game_over" and checked < 80 * (game + 1):
            seat = deciders(table.state)[0]
            state = table.state
            if any(not state.knows(seat, h) for h in state.locations()):
                label = f"probe:{checked}"
                honest = bot(level, label).choose(state, seat)
                blind = bot(level, label).choose(scrambled(state, seat, rng), seat)
                masked = bot(level, label).choose(view(state, seat), seat)
                assert honest == blind == masked
                checked += 1
            table.play(players[seat].choose(view(state, seat), seat))
    assert checked >= 100


@pytest.mark.parametrize("level", LEVELS)
def test_bots_are_deterministic_given_their_seed(level):
    def moves(seed: str) -> list[Move]:
        table = Table("skip-bo", 3, {"stock_size": 8}, seed=1, mirrors=False)
        bots = [bot(level, f"{seed}:{s}") for s in range(3)]
        played = []
        for _ in range(150):
            if table.state.phase == "game_over":
                break
            seat = deciders(table.state)[0]
            move = bots[seat].choose(view(table.state, seat), seat)
            played.append(move)
            table.play(move)
        return played

    assert moves("a") == moves("a")


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (2, {"stock_size": 10, "single_round": True}),
        (4, {"stock_size": 8, "teams": True, "single_round": True}),
        (3, {"stock_size": 8, "discard_wilds": False, "single_round": True}),
    ],
)
def test_every_choice_is_a_legal_move(players, options):
    levels = ["strong", "greedy", "random", "strong"][:players]
    for game in range(2):
        table = Table("skip-bo", players, options, seed=10 + game, mirrors=False)
        bots = [make_bot(level, "skip-bo", s) for s, level in enumerate(levels)]
        for _ in range(3000):
            if table.state.phase == "game_over":
                break
            seat = deciders(table.state)[0]
            move = bots[seat].choose(view(table.state, seat), seat)
            assert move in legal_moves(table.state, seat)
            table.play(move)
        assert table.state.phase == "game_over"


def test_strong_bounds_its_search_by_a_count_of_positions():
    # Five wilds, long runs on both partners' discard piles: far more lines than the budget.
    runs = [[9, 8, 7], [6, 5, 4], [3, 2, 1], [12, 11, 10]]
    discards = [runs, NO_PILES, [[8, 7, 6], [5, 4, 3], [2, 1], [11, 10, 9]], NO_PILES]
    stocks = [[12, 9], [12, 12], [11, 11], [12, 12]]
    pos = Position([[W] * 5, [], [], []], stocks, discards, building=(0, 3, 6, 9), options={"teams": True})
    params = StrongParams()
    planner = Planner(SkipBoTable.of(view(pos.state, 0), 0), params, Rng(0))
    move = planner.best_move()
    assert move in legal_moves(pos.state, 0)
    assert params.node_budget <= planner.work <= params.node_budget + 50


def test_short_tournament_greedy_beats_random():
    report = tournament.run("skip-bo", ["greedy", "random"], games=30, seed=3, options={"single_round": True})
    greedy, rand = report["entries"]
    assert greedy["wins"] >= 27 and rand["wins"] <= 3
