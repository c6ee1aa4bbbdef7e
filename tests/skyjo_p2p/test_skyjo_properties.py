"""Properties of classic SKYJO over random legal play (hypothesis picks tables, seeds, options)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skyjo_p2p.core.events import DealRequest, Revealed, RevealRequest, RoundEnded
from skyjo_p2p.core.rng import Rng
from skyjo_p2p.engine import legal_moves, view
from skyjo_p2p.grid import EMPTY
from skyjo_p2p.skyjo.state import SkyjoState
from tests.support import Table

tables = st.fixed_dictionaries(
    {
        "players": st.integers(2, 8),
        "seed": st.integers(0, 2**32),
        "options": st.fixed_dictionaries(
            {},
            optional={
                "rows": st.booleans(),
                "setup_reveals": st.integers(0, 4),
                "target_score": st.integers(1, 60),
                "ender_multiplier": st.integers(1, 3),
            },
        ),
    }
)

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_cards_accounted_for(state: SkyjoState) -> None:
    where = state.locations()
    assert len(where) == 150, f"{len(where)} cards on the table"
    live = sorted(where)
    assert len(set(live)) == 150
    # every live card is of this round's deck and lies in exactly one place
    places = [h for h in state.grid if h != EMPTY] + state.draw + state.discard
    places += [] if state.holding is None else [state.holding]
    assert len(places) == len(set(places)) == 150


def check_requests(state: SkyjoState, events: list) -> None:
    """No reveal request asks for a card the rules do not show (R-C3)."""
    for event in events:
        if not isinstance(event, RevealRequest):
            continue
        place = state.locations().get(event.handle, "")
        if event.to is None:
            shown = place == "discard" or (place.startswith("grid:") and state.face_up[_index(state, place)])
            assert shown, f"public reveal of a card lying at {place!r}"
        else:
            assert place == f"hand:{event.to}", f"private reveal to {event.to} of a card at {place!r}"


def _index(state: SkyjoState, place: str) -> int:
    _, seat, slot = place.split(":")
    return int(seat) * state.shape.size + int(slot)


def check_views(state: SkyjoState) -> None:
    """A seat's view holds public values and, at most, the card in its own hand."""
    for seat in range(state.players):
        seen = view(state, seat)
        for handle, value in enumerate(seen.values):
            if value is None or state.is_public(handle):
                continue
            in_hand = handle == state.holding and state.turn == seat
            going_public = RevealRequest(handle, None) in state.pending  # placed, reveal under way
            assert in_hand or going_public, f"seat {seat} knows card {handle}"
    onlooker = view(state, None)
    assert all(v is None or state.is_public(h) for h, v in enumerate(onlooker.values))


def check_step(state, events) -> None:
    """Run after every apply, on the state that made the events."""
    assert isinstance(state, SkyjoState)
    check_requests(state, events)
    if state.phase != "game_over":
        check_cards_accounted_for(state)
        check_views(state)


def play(table: Table, seed: int) -> list[str]:
    rng = Rng(seed)
    hashes = []
    while table.state.phase != "game_over":
        seat = table.deciders()[0]
        moves = legal_moves(table.state, seat)
        table.play(moves[rng.below(len(moves))])
        hashes.append(table.state.state_hash())
    return hashes


@SETTINGS
@given(tables)
def test_c3_properties_over_random_play(spec):
    """Cards accounted for, requests within the rules, views leak nothing; peers agree (mirrors)."""
    table = Table("skyjo", spec["players"], spec["options"], seed=spec["seed"], on_apply=check_step)
    play(table, spec["seed"])


@SETTINGS
@given(tables)
def test_c2_same_seed_same_state_hash(spec):
    a = Table("skyjo", spec["players"], spec["options"], seed=spec["seed"], mirrors=False)
    b = Table("skyjo", spec["players"], spec["options"], seed=spec["seed"], mirrors=False)
    assert play(a, spec["seed"]) == play(b, spec["seed"])


def lowest_after_lines(values: list[int | None], rows: bool) -> int:
    """Independent of the engine: remove equal complete lines in the best order, sum the rest."""
    columns = [[c, c + 4, c + 8] for c in range(4)]
    all_lines = columns + ([[4 * r + c for c in range(4)] for r in range(3)] if rows else [])
    candidates = []
    for line in all_lines:
        left = [i for i in line if values[i] is not None]
        if len(left) >= 3 and len({values[i] for i in left}) == 1:
            candidates.append(left)
    if not candidates:
        return sum(v for v in values if v is not None)
    results = []
    for left in candidates:
        trial = list(values)
        for i in left:
            trial[i] = None
        results.append(lowest_after_lines(trial, rows))
    return min(results)


@SETTINGS
@given(tables)
def test_s8_scores_are_the_final_grids_with_the_doubling_rule(spec):
    """Recompute every round's scores from the dealer's cards, independently of the engine."""
    players = spec["players"]
    records = []

    def watch(state, events):
        # the first apply after a move is the move itself; the others answer requests
        records.extend((previous[0], last_action[0], e) for e in events if isinstance(e, RoundEnded))
        previous[0] = state
        last_action[0] = None

    previous: list = [None]
    last_action: list = [None]
    table = Table("skyjo", players, spec["options"], seed=spec["seed"], mirrors=False, on_apply=watch)
    rng = Rng(spec["seed"])
    while table.state.phase != "game_over":
        seat = table.deciders()[0]
        moves = legal_moves(table.state, seat)
        move = moves[rng.below(len(moves))]
        previous[0] = table.state
        last_action[0] = move
        table.play(move)
    options = table.state.options
    totals = [0] * players
    assert records
    for before, action, record in records:
        grid = list(before.grid)
        if action is not None and action.kind == "replace":  # the round ended on this very move
            grid[action.seat * 12 + action.slot] = before.holding
        dealt = _values_of_round(table, record.round)
        raw = []
        for s in range(players):
            values = [None if h == EMPTY else dealt[h] for h in grid[s * 12 : s * 12 + 12]]
            raw.append(lowest_after_lines(values, options.rows))
        assert list(record.raw) == raw
        me = raw[record.ender]
        doubled = (
            options.ender_multiplier > 1
            and me > 0
            and any(raw[o] <= me for o in range(players) if o != record.ender)
        )
        expected = [
            r * options.ender_multiplier if (o == record.ender and doubled) else r for o, r in enumerate(raw)
        ]
        assert list(record.scores) == expected and record.doubled == doubled
        totals = [t + x for t, x in zip(totals, expected, strict=True)]
        assert list(record.totals) == totals
    assert table.state.totals == totals
    assert max(totals) >= options.target_score
    best = min(totals)
    assert table.state.winners == tuple(s for s, t in enumerate(totals) if t == best)


def _values_of_round(table: Table, round_number: int) -> dict[int, int]:
    """Every card of a round as the dealer dealt it, from the public reveal facts of that round."""
    values: dict[int, int] = {}
    current = 0
    for event in table.events:
        if isinstance(event, DealRequest):
            current += 1
        elif current == round_number and isinstance(event, Revealed) and event.value is not None:
            values[event.handle] = event.value
    return values
