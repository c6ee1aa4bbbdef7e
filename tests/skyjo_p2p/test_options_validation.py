"""Table options are checked completely before a game is made (issue 12; docs/rules.md, "Table
options and their bounds").

One test per rule of validation, then a property: for any map of options (real names and junk;
booleans, whole numbers and text of every size), `validate_options` either refuses it with an
`OptionError` or the game is made, dealt and played for a while by the offline dealer with no
other exception, no empty deal (the protocol cannot shuffle a deck of no card), and never a
position where nobody can move although the game is not over.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skyjo_p2p.action import options as action_options
from skyjo_p2p.action.cards import KIND_NAMES
from skyjo_p2p.core.dealer import Dealer
from skyjo_p2p.core.errors import OptionError
from skyjo_p2p.core.events import DealRequest, ShuffleRequest, requests_in
from skyjo_p2p.core.options import OptionSpec
from skyjo_p2p.engine import apply, deciders, games, legal_moves, new_game, rules_for, validate_options
from skyjo_p2p.skipbo import options as skipbo_options
from skyjo_p2p.skyjo import options as skyjo_options


def refused(game: Any, players: Any, options: Any, *words: str) -> str:
    """The reason `validate_options` gives (which `new_game` gives too); it names `words`."""
    with pytest.raises(OptionError) as caught:
        validate_options(game, players, options)
    reason = caught.value.reason
    for word in words:
        assert word in reason, reason
    if isinstance(game, str) and isinstance(players, int) and (options is None or isinstance(options, dict)):
        with pytest.raises(OptionError):
            new_game(game, players, options)
    return reason


# --- the regressions of issue 12 -------------------------------------------------------------


def test_action_deal_of_zero_action_cards_refused() -> None:
    refused(
        "skyjo-action",
        3,
        {"action_kinds": "peek-line", "card_counts": "peek-line:0"},
        "at least one action card",
    )


def test_negative_target_score_refused() -> None:
    for game in games():
        refused(game, 2 if game != "skyjo-action" else 3, {"target_score": -5}, "target_score", "at least 1")
        refused(game, 4, {"target_score": "-5"}, "target_score")
        refused(game, 4, {"target_score": 0}, "target_score")


# --- the game and the player count -----------------------------------------------------------


def test_unknown_game_refused() -> None:
    refused("skyjo-deluxe", 2, {}, "unknown game", "skyjo")
    refused(7, 2, {}, "game")
    refused("x" * 10_000, 2, {}, "unknown game")


@pytest.mark.parametrize(
    ("game", "low", "high"), [("skyjo", 2, 8), ("skip-bo", 2, 6), ("skyjo-action", 1, 8)]
)
def test_player_count_outside_the_game_refused(game: str, low: int, high: int) -> None:
    for players in (low - 1, high + 1, -1, 10**5000):
        refused(game, players, {}, "players")
    for junk in (True, "3", 2.0, None):
        refused(game, junk, {}, "players")


def test_player_count_of_each_action_variant() -> None:
    refused("skyjo-action", 1, {}, "2 to 6 players")
    refused("skyjo-action", 7, {}, "3x3 grid")
    validate_options("skyjo-action", 7, {"grid": "3x3"})
    validate_options("skyjo-action", 1, {"variant": "stars-only"})
    refused("skyjo-action", 5, {"variant": "numbers-only"}, "1 to 4 players")


def test_options_not_a_map_refused() -> None:
    refused("skyjo", 2, ["rows"], "map")
    refused("skyjo", 2, "rows=on", "map")


# --- names and types ---------------------------------------------------------------------------


def test_unknown_option_refused() -> None:
    refused("skyjo", 2, {"targetscore": 10}, "unknown option")
    refused("skyjo", 2, {3: 10}, "unknown option")
    refused("skip-bo", 2, {"rows": True}, "unknown option")  # another game's option
    reason = refused("skyjo", 2, {"y" * 5000: 1}, "unknown option")
    assert len(reason) < 300


def test_whole_number_option_of_the_wrong_type_refused() -> None:
    refused("skyjo", 2, {"setup_reveals": True}, "whole number")
    refused("skyjo", 2, {"setup_reveals": 2.0}, "whole number")
    refused("skyjo", 2, {"setup_reveals": "two"}, "whole number")
    refused("skyjo", 2, {"setup_reveals": "9" * 60}, "at most 11")
    refused("skyjo", 2, {"setup_reveals": "1e3"}, "whole number")
    refused("skyjo", 2, {"setup_reveals": "9" * 5000}, "whole number")


def test_true_false_option_of_the_wrong_type_refused() -> None:
    refused("skyjo", 2, {"rows": 1}, "true or false")
    refused("skyjo", 2, {"rows": "maybe"}, "true or false")
    validate_options("skyjo", 2, {"rows": "on", "target-score": "50"})


def test_text_option_of_the_wrong_type_or_choice_refused() -> None:
    refused("skyjo-action", 2, {"variant": 1}, "must be text")
    refused("skyjo-action", 2, {"variant": "action"}, "must be one of")
    refused("skyjo-action", 2, {"grid": "4x4"}, "must be one of")


def test_huge_numbers_are_refused_with_a_short_message() -> None:
    for value in (10**5000, -(10**5000)):
        reason = refused("skyjo", 2, {"target_score": value}, "target_score", "bits")
        assert len(reason) < 200


# --- ranges --------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["skyjo", "skyjo-action", "skip-bo"])
def test_target_score_bounds(game: str) -> None:
    validate_options(game, 2, {"target_score": 1})
    validate_options(game, 2, {"target_score": 100_000})
    refused(game, 2, {"target_score": 100_001}, "at most 100000")


@pytest.mark.parametrize("game", ["skyjo", "skyjo-action"])
def test_ender_multiplier_bounds(game: str) -> None:
    validate_options(game, 2, {"ender_multiplier": 1})
    refused(game, 2, {"ender_multiplier": 0}, "ender_multiplier")
    refused(game, 2, {"ender_multiplier": 11}, "ender_multiplier")


def test_setup_reveals_bounds() -> None:
    validate_options("skyjo", 2, {"setup_reveals": 0})
    validate_options("skyjo", 2, {"setup_reveals": 11})
    refused("skyjo", 2, {"setup_reveals": 12}, "setup_reveals")
    refused("skyjo", 2, {"setup_reveals": -1}, "setup_reveals")
    validate_options("skyjo-action", 2, {"setup_reveals": 8, "grid": "3x3"})
    refused("skyjo-action", 2, {"setup_reveals": 9, "grid": "3x3"}, "setup_reveals")


def test_action_deck_actions_bounds() -> None:
    validate_options("skyjo-action", 2, {"variant": "action-in-deck", "deck_actions": 10})
    refused("skyjo-action", 2, {"variant": "action-in-deck", "deck_actions": 4}, "deck_actions")
    refused("skyjo-action", 2, {"variant": "action-in-deck", "deck_actions": 11}, "deck_actions")
    # more than the action cards in play
    options = {"variant": "action-in-deck", "action_kinds": "defense", "deck_actions": 5}
    refused("skyjo-action", 2, options, "deck_actions", "only 3")


def test_action_kinds_must_name_action_cards() -> None:
    refused("skyjo-action", 2, {"action_kinds": "defense,joker"}, "action_kinds", "joker")
    refused("skyjo-action", 2, {"action_kinds": ""}, "action_kinds")
    refused("skyjo-action", 2, {"action_kinds": "star"}, "action_kinds")


def test_card_counts_must_be_card_count_pairs_in_range() -> None:
    refused("skyjo-action", 2, {"card_counts": "star"}, "card_counts")
    refused("skyjo-action", 2, {"card_counts": "13:4"}, "card_counts")
    refused("skyjo-action", 2, {"card_counts": "star:many"}, "card_counts")
    refused("skyjo-action", 2, {"card_counts": "star:51"}, "card_counts", "0..50")
    refused("skyjo-action", 2, {"card_counts": "star:-1"}, "card_counts")


def test_standard_action_game_needs_an_action_card() -> None:
    zero = ",".join(f"{name}:0" for name in ("defense", "extra-turns"))
    refused("skyjo-action", 2, {"action_kinds": "defense,extra-turns", "card_counts": zero}, "action card")
    # the variants without a market need no action deck
    validate_options("skyjo-action", 2, {"variant": "stars-only", "card_counts": "defense:0"})
    validate_options("skyjo-action", 2, {"action_kinds": "defense", "card_counts": "defense:1"})


def test_action_deck_must_hold_every_grid_and_a_discard_and_a_draw() -> None:
    # 6 players x 9 + 2 = 56 playing cards at least; 105 numbers without stars, less 49 of 6..12
    options = {"variant": "numbers-only", "grid": "3x3", "card_counts": "12:0,11:0,10:0,9:0,8:0,7:0,6:0"}
    validate_options("skyjo-action", 6, options)
    options["card_counts"] += ",5:6"
    refused("skyjo-action", 6, options, "56 playing cards", "the deck has 55")


def test_action_deck_needs_a_positive_number() -> None:
    options = {"card_counts": ",".join(f"{v}:0" for v in range(1, 13))}
    refused("skyjo-action", 2, options, "positive number")


def test_skipbo_stock_size_bounds() -> None:
    validate_options("skip-bo", 2, {"stock_size": 0})
    validate_options("skip-bo", 2, {"stock_size": 5})
    refused("skip-bo", 2, {"stock_size": 4}, "stock_size")
    refused("skip-bo", 2, {"stock_size": 31}, "stock_size")
    validate_options("skip-bo", 6, {"stock_size": 22})
    refused("skip-bo", 6, {"stock_size": 23}, "stock_size", "at most 22")


def test_skipbo_teams_need_4_or_6_players() -> None:
    validate_options("skip-bo", 4, {"teams": True})
    refused("skip-bo", 5, {"teams": "on"}, "teams")


def test_each_game_checks_its_options_through_one_entry_point() -> None:
    # `check` of each options module is what `validate_options` runs (and `new_game` through it)
    skyjo_options.check(2, {})
    action_options.check(2, {})
    skipbo_options.check(2, {})
    with pytest.raises(OptionError):
        action_options.check(1, {})


# --- the property ------------------------------------------------------------------------------

SPECS = {"skyjo": skyjo_options.SPECS, "skyjo-action": action_options.SPECS, "skip-bo": skipbo_options.SPECS}
JUNK_NAMES = ["target-score", "card-counts", "", "speed", "__class__", "ROWS"]
WORDS = [
    "all",
    *action_options.VARIANTS,
    "3x3",
    "3x4",
    "on",
    "off",
    "true",
    "0",
    "2",
    "-5",
    "99999999999999999999",
    *KIND_NAMES.values(),
]


def card_counts() -> st.SearchStrategy[str]:
    card = st.sampled_from(["star", "*", "-2", "0", "5", "12", "13", "x", *KIND_NAMES.values()])
    count = st.one_of(st.integers(-2, 60).map(str), st.sampled_from(["", "many", "1e3"]))
    pair = st.tuples(card, count).map(lambda p: f"{p[0]}:{p[1]}")
    return st.lists(pair, max_size=6).map(",".join)


def kinds() -> st.SearchStrategy[str]:
    names = st.sampled_from([*KIND_NAMES.values(), "star", "joker", " "])
    return st.lists(names, max_size=4).map(",".join)


JUNK_VALUES = st.one_of(
    st.booleans(),
    st.integers(),
    st.integers(-(10**30), 10**30),
    st.sampled_from(WORDS),
    st.text(max_size=20),
    st.text(min_size=100, max_size=400),
)


def value_for(spec: OptionSpec) -> st.SearchStrategy[Any]:
    """Values around what `spec` accepts (its bounds, its choices, their text forms), or junk."""
    if spec.kind is int:
        low = -3 if spec.minimum is None else spec.minimum - 2
        high = 40 if spec.maximum is None else min(spec.maximum + 2, low + 60)
        near: st.SearchStrategy[Any] = st.one_of(st.integers(low, high), st.integers(low, high).map(str))
        if spec.maximum is not None and spec.maximum > high:
            near = st.one_of(near, st.integers(spec.maximum - 2, spec.maximum + 2))
    elif spec.kind is bool:
        near = st.one_of(st.booleans(), st.sampled_from(["on", "off", "yes", "0", "1"]))
    elif spec.choices:
        near = st.sampled_from(spec.choices)
    elif spec.name == "card_counts":
        near = card_counts()
    else:
        near = st.one_of(kinds(), st.just("all"))
    return st.one_of(near, near, near, JUNK_VALUES)


@st.composite
def tables(draw: st.DrawFn) -> tuple[Any, Any, dict[Any, Any]]:
    """(game, players, options): mostly a real game, a plausible count and that game's options."""
    real = sorted(games())
    game = draw(st.sampled_from([*real * 6, "skyjo_action", "", "SKYJO"]))
    players = draw(st.sampled_from([2, 3, 4, 1, 5, 6, 7, 8] * 4 + [0, 9, True, -1, 10**40, "3"]))
    specs = SPECS.get(game, skyjo_options.SPECS)
    options: dict[Any, Any] = {}
    for _ in range(draw(st.integers(0, 5))):
        which = draw(st.integers(0, 5))
        if which < 5:
            spec = draw(st.sampled_from(specs))
            options[spec.name] = draw(value_for(spec))
        else:
            options[draw(st.one_of(st.sampled_from(JUNK_NAMES), st.text(max_size=10)))] = draw(JUNK_VALUES)
    return game, players, options


def play_a_while(game: str, players: int, options: dict[Any, Any], seed: int, moves: int) -> None:
    """Deal and play `moves` random legal moves with the offline dealer; no step may fail."""
    dealer = Dealer(rules_for(game).composition, seed=seed)
    chooser = random.Random(seed)
    state, events = new_game(game, players, options)
    for _ in range(moves + 1):
        queue = requests_in(events)
        i = 0
        while i < len(queue):
            request = queue[i]
            if isinstance(request, DealRequest):
                assert request.size >= 1, f"a deal of no card: {request}"
            if isinstance(request, ShuffleRequest):
                assert request.handles, f"a shuffle of no card: {request}"
            state, more = apply(state, dealer.answer(state, request))
            queue.extend(requests_in(more))
            i += 1
        if state.phase == "game_over":
            return
        seats = deciders(state)
        assert seats, f"nobody can move in {state!r}"
        seat = chooser.choice(seats)
        legal = legal_moves(state, seat)
        assert legal, f"seat {seat} decides but has no legal move in {state!r}"
        state, events = apply(state, chooser.choice(legal))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), seed=st.integers(0, 2**32))
def test_any_options_are_refused_or_playable(table: tuple[Any, Any, dict[Any, Any]], seed: int) -> None:
    game, players, options = table
    try:
        validate_options(game, players, options)
    except OptionError as exc:
        assert exc.reason and len(exc.reason) < 400
        return
    play_a_while(game, players, options, seed, moves=25)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(1, 8),
    variant=st.sampled_from(action_options.VARIANTS),
    grid=st.sampled_from(["3x4", "3x3"]),
    chosen=st.lists(st.sampled_from(sorted(KIND_NAMES.values())), min_size=1, max_size=3, unique=True),
    numbers=st.lists(st.integers(0, 6), min_size=15, max_size=15),
    stars=st.integers(0, 50),
    actions=st.lists(st.integers(0, 3), min_size=3, max_size=3),
    reveals=st.integers(0, 8),
    seed=st.integers(0, 2**32),
)
def test_action_decks_shaped_by_options_are_refused_or_playable(
    players: int,
    variant: str,
    grid: str,
    chosen: list[str],
    numbers: list[int],
    stars: int,
    actions: list[int],
    reveals: int,
    seed: int,
) -> None:
    """The options that shape SKYJO ACTION's decks drawn together, small decks included (the
    maps above rarely make one)."""
    counts = [f"{value}:{n}" for value, n in zip(range(-2, 13), numbers, strict=True)]
    counts += [f"star:{stars}"] + [f"{name}:{n}" for name, n in zip(chosen, actions, strict=False)]
    options = {
        "variant": variant,
        "grid": grid,
        "action_kinds": ",".join(chosen),
        "card_counts": ",".join(counts),
        "setup_reveals": reveals,
    }
    try:
        validate_options("skyjo-action", players, options)
    except OptionError:
        return
    play_a_while("skyjo-action", players, options, seed, moves=60)
