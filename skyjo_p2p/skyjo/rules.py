"""Classic SKYJO: setup, turns, columns, the end of a round (R-S1 .. R-S11).

The flow of a round, as a state machine over `state.phase` and, during a turn, `state.step`::

    setup ──every seat revealed──▶ turn: choose ─draw deck─▶ drawn ─replace──────────▶ end of turn
                                          │                     └─discard─▶ flip ─flip─▶ end of turn
                                          └──draw discard──▶ took ─replace──────────▶ end of turn
    end of turn: remove columns (S6) ─▶ ender? (S7) ─▶ next turn, or scoring (S8)
    scoring: turn every card, remove columns again, double the ender (S8) ─▶ next round / game over

Whenever a card must become known the engine asks for it (a `RevealRequest`) and continues from
`state.resume` once it is answered (see `skyjo_p2p.engine`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from ..core.errors import IllegalMove
from ..core.events import (
    DealRequest,
    Event,
    GameOver,
    LineRemoved,
    RandomRequest,
    Request,
    RevealRequest,
    RoundEnded,
    TurnBegan,
)
from ..core.moves import Move, MoveSchema
from ..grid import EMPTY, Line
from . import scoring
from .cards import COMPOSITION, DECK, VALUES
from .options import SkyjoOptions
from .state import GAME_OVER, SCORING, SETUP, TURN, SkyjoState, Step

SCHEMA = MoveSchema(
    required={
        "reveal": frozenset({"slots"}),
        "draw": frozenset({"from"}),
        "replace": frozenset({"slot"}),
        "discard": frozenset(),
        "flip": frozenset({"slot"}),
        "remove-line": frozenset({"line", "index"}),
    }
)


class SkyjoRules:
    """The rules object the engine finds (`skyjo_p2p.registry`) under "skyjo"."""

    name = "skyjo"
    schema = SCHEMA
    state_type = SkyjoState

    def new_state(self, players: int, options: Mapping[str, Any]) -> tuple[SkyjoState, list[Event]]:
        state = SkyjoState(players, SkyjoOptions.parse(options))
        events: list[Event] = []
        start_round(state, events)
        return state, events

    def composition(self, state: SkyjoState, deck: str) -> Sequence[int]:
        return COMPOSITION

    def valid_value(self, state: SkyjoState, deck: str, value: int) -> bool:
        return value in VALUES

    def deciders(self, state: SkyjoState) -> tuple[int, ...]:
        if state.phase == SETUP:
            return tuple(s for s in range(state.players) if state.to_reveal[s] > 0)
        if state.phase == TURN and state.turn is not None:
            return (state.turn,)
        return ()

    def legal_moves(self, state: SkyjoState, seat: int) -> list[Move]:
        if state.phase == SETUP:
            count = state.to_reveal[seat]
            if count == 0:
                return []
            return [
                Move(seat, "reveal", slots=combo)
                for combo in combinations(state.face_down_slots(seat), count)
            ]
        if state.phase != TURN or seat != state.turn:
            return []
        step = state.step
        if step == Step.CHOOSE:
            moves = []
            if state.draw or len(state.discard) > 1:
                moves.append(_move(seat, "draw", "deck"))
            if state.discard:
                moves.append(_move(seat, "draw", "discard"))
            return moves
        if step in (Step.DRAWN, Step.TOOK):
            moves = [_move(seat, "replace", slot) for slot in state.card_slots(seat)]
            if step == Step.DRAWN and state.face_down_slots(seat):
                moves.append(_move(seat, "discard"))
            return moves
        if step == Step.FLIP:
            return [_move(seat, "flip", slot) for slot in state.face_down_slots(seat)]
        if step == Step.LINE:
            return [Move(seat, "remove-line", line=ln.kind, index=ln.index) for ln in state.choices]
        return []

    def apply_move_into(self, state: SkyjoState, move: Move, events: list[Event]) -> None:
        handler = _HANDLERS.get(move.kind)
        if handler is None:  # pragma: no cover - the schema knows the same kinds
            raise IllegalMove(f"unknown move {move.kind!r}")
        handler(state, move, events)

    def resume_into(self, state: SkyjoState, events: list[Event]) -> None:
        step = state.resume
        state.resume = ""
        _RESUME[step](state, events)


# Moves are small immutable records; the common ones are built once.
_MOVE_CACHE: dict[tuple[int, str, object], Move] = {}


def _move(seat: int, kind: str, arg: object = None) -> Move:
    key = (seat, kind, arg)
    move = _MOVE_CACHE.get(key)
    if move is None:
        if kind == "draw":
            move = Move(seat, kind, source=str(arg))
        elif arg is None:
            move = Move(seat, kind)
        else:
            assert isinstance(arg, int)
            move = Move(seat, kind, slot=arg)
        _MOVE_CACHE[key] = move
    return move


# --- a round: deal and setup (R-S3, R-S4) ---------------------------------------------------


def start_round(state: SkyjoState, events: list[Event]) -> None:
    """Deal a new round (R-S3): 12 cards to each seat in seat order, one to the discard pile."""
    state.round += 1
    state.reset_handles()
    total = len(COMPOSITION)
    first = state.allocate(DECK, total)
    dealt = state.players * state.shape.size
    state.grid = list(range(first, first + dealt))
    state.face_up = [False] * dealt
    start = first + dealt
    state.discard = [start]
    state.draw = list(range(first + total - 1, start, -1))  # top of the pile is its last item
    state.holding = None
    state.to_reveal = [state.options.setup_reveals] * state.players
    state.phase = SETUP
    state.step = Step.NONE
    state.turn = None
    state.first = None
    state.ender = None
    state.laps_left = 0
    state.choices = ()
    state.ask(events, [DealRequest(DECK, first, total), RevealRequest(start, None)])
    state.resume = "setup"


def check_setup_reveal(at_setup: bool, need: int, seat: int, slots: tuple[int, ...]) -> None:
    """The setup move turns exactly the seat's `need` cards, all different (R-S3, R-A2)."""
    if not at_setup:
        raise IllegalMove("cards are turned at setup only; the round has started")
    if need == 0:
        raise IllegalMove(f"seat {seat} has already turned its setup cards")
    if len(slots) != need or len(set(slots)) != need:
        raise IllegalMove(f"turn exactly {need} different cards at setup")


def _reveal(state: SkyjoState, move: Move, events: list[Event]) -> None:
    seat = move.seat
    check_setup_reveal(state.phase == SETUP, state.to_reveal[seat], seat, move.slots)
    slots = move.slots
    base = seat * state.shape.size
    requests: list[Request] = []
    for slot in slots:
        _check_slot(state, slot)
        if state.face_up[base + slot]:
            raise IllegalMove(f"slot {slot} is already face up")
        state.face_up[base + slot] = True
        state.request_reveal(state.grid[base + slot], None, requests)
    state.to_reveal[seat] = 0
    state.ask(events, requests)
    state.resume = "setup"


def _after_setup(state: SkyjoState, events: list[Event]) -> None:
    if any(state.to_reveal):
        return
    if state.starter is not None:  # rounds after the first: the previous ender starts (R-S4)
        _begin_round_play(state, state.starter, events)
        return
    tied = first_player_candidates(state)
    if len(tied) == 1:
        _begin_round_play(state, tied[0], events)
        return
    state.choices = tuple(tied)
    state.ask(events, [RandomRequest("first-player", len(tied))])
    state.resume = "first_random"


def first_player_candidates(state: SkyjoState) -> list[int]:
    """Seats that may start round 1 (R-S4): highest sum of revealed cards, then highest card."""
    size = state.shape.size
    return first_player_among(
        [
            [state.public_value(state.grid[base + i]) for i in range(size) if state.face_up[base + i]]
            for base in range(0, state.players * size, size)
        ]
    )


def first_player_among(shown: Sequence[Sequence[int]]) -> list[int]:
    """The seats tied for first (R-S4), given the values each seat turned at setup: the highest
    sum, then among those the highest single card. More than one seat left: a joint coin decides."""
    sums = [sum(values) for values in shown]
    highs = [max(values, default=-99) for values in shown]
    tied = [seat for seat, total in enumerate(sums) if total == max(sums)]
    if len(tied) > 1:
        top = max(highs[seat] for seat in tied)
        tied = [seat for seat in tied if highs[seat] == top]
    return tied


def _after_first_random(state: SkyjoState, events: list[Event]) -> None:
    assert state.random_value is not None
    seat = state.choices[state.random_value]
    state.choices = ()
    state.random_value = None
    _begin_round_play(state, seat, events)


def _begin_round_play(state: SkyjoState, seat: int, events: list[Event]) -> None:
    state.first = seat
    _begin_turn(state, seat, events)


def _begin_turn(state: SkyjoState, seat: int, events: list[Event]) -> None:
    state.phase = TURN
    state.turn = seat
    state.step = Step.CHOOSE
    events.append(TurnBegan(seat))


# --- a turn (R-S5, R-S10) -------------------------------------------------------------------


def _require_turn(state: SkyjoState, move: Move, *steps: Step) -> None:
    if state.phase != TURN:
        raise IllegalMove(
            "it is not the time to play a turn" if state.phase != SETUP else "setup is not finished"
        )
    if move.seat != state.turn:
        raise IllegalMove(f"it is seat {state.turn}'s turn, not seat {move.seat}'s")
    if state.step not in steps:
        raise IllegalMove(_STEP_HINT[state.step])


_STEP_HINT = {
    Step.CHOOSE: "first draw a card, from the deck or the discard pile",
    Step.DRAWN: "place the drawn card (replace) or discard it",
    Step.TOOK: "the card taken from the discard pile must replace a grid card",
    Step.FLIP: "turn one of your face-down cards (flip)",
    Step.LINE: "choose which line to remove first (remove-line)",
}


def _check_slot(state: SkyjoState, slot: int | None) -> int:
    if slot is None or not 0 <= slot < state.shape.size:
        raise IllegalMove(f"there is no slot {slot} (slots are 0..{state.shape.size - 1})")
    return slot


def _draw(state: SkyjoState, move: Move, events: list[Event]) -> None:
    _require_turn(state, move, Step.CHOOSE)
    if move.source == "deck":
        handle = draw_top(state, events)
        state.holding = handle
        state.step = Step.DRAWN
        requests: list[Request] = []
        state.request_reveal(handle, move.seat, requests)  # only the drawer sees it (R-S5)
        state.ask(events, requests)
    elif move.source == "discard":
        if not state.discard:
            raise IllegalMove("the discard pile is empty")
        state.holding = state.discard.pop()
        state.step = Step.TOOK
    else:
        raise IllegalMove(f"draw from 'deck' or 'discard', not {move.source!r}")


def draw_top(state: SkyjoState, events: list[Event]) -> int:
    """Take the draw pile's top card, first reshuffling the discard pile if it is empty (R-S10)."""
    if not state.draw:
        reshuffle_discard(state, events)
    return state.draw.pop()


def reshuffle_discard(state: SkyjoState, events: list[Event]) -> None:
    """Every discard card but the top is shuffled (jointly, R-C2) into a new draw pile (R-S10).

    The shuffled cards get new handles: nobody knows their order, even the faces everyone saw.
    """
    old = tuple(state.discard[:-1])
    if not old:
        raise IllegalMove("no card is left to draw: the draw pile and the discard pile are empty")
    state.discard = state.discard[-1:]
    state.draw = state.reshuffle(DECK, old, events)


def _replace(state: SkyjoState, move: Move, events: list[Event]) -> None:
    _require_turn(state, move, Step.DRAWN, Step.TOOK)
    slot = _check_slot(state, move.slot)
    index = move.seat * state.shape.size + slot
    old = state.grid[index]
    if old == EMPTY:
        raise IllegalMove(f"slot {slot} is empty (its column was removed)")
    assert state.holding is not None
    state.grid[index] = state.holding
    state.face_up[index] = True
    requests: list[Request] = []
    state.request_reveal(state.holding, None, requests)
    state.discard.append(old)  # face up on the discard pile, even if it was face down (R-S5)
    state.request_reveal(old, None, requests)
    state.holding = None
    state.step = Step.NONE
    state.ask(events, requests)
    state.resume = "end_turn"


def _discard(state: SkyjoState, move: Move, events: list[Event]) -> None:
    _require_turn(state, move, Step.DRAWN)
    if not state.face_down_slots(move.seat):
        raise IllegalMove("you have no face-down card to turn: the drawn card must replace one")
    assert state.holding is not None
    requests: list[Request] = []
    state.discard.append(state.holding)
    state.request_reveal(state.holding, None, requests)
    state.holding = None
    state.step = Step.FLIP
    state.ask(events, requests)


def _flip(state: SkyjoState, move: Move, events: list[Event]) -> None:
    _require_turn(state, move, Step.FLIP)
    slot = _check_slot(state, move.slot)
    index = move.seat * state.shape.size + slot
    if state.grid[index] == EMPTY:
        raise IllegalMove(f"slot {slot} is empty")
    if state.face_up[index]:
        raise IllegalMove(f"slot {slot} is already face up")
    state.face_up[index] = True
    requests: list[Request] = []
    state.request_reveal(state.grid[index], None, requests)
    state.step = Step.NONE
    state.ask(events, requests)
    state.resume = "end_turn"


def _remove_line(state: SkyjoState, move: Move, events: list[Event]) -> None:
    _require_turn(state, move, Step.LINE)
    chosen = next((ln for ln in state.choices if ln.kind == move.line and ln.index == move.index), None)
    if chosen is None:
        options = ", ".join(f"{ln.kind} {ln.index}" for ln in state.choices)
        raise IllegalMove(f"remove one of: {options}")
    state.choices = ()
    state.step = Step.NONE
    remove_line(state, move.seat, chosen, events)
    _end_turn(state, events)


# --- the end of a turn: columns, the round end (R-S6, R-S7) ---------------------------------


def equal_lines(state: SkyjoState, seat: int) -> list[Line]:
    """Complete lines of `seat` whose cards are all face up and equal (R-S6).

    Columns left to right, then rows top to bottom when the rows option is on. A line counts
    with at least 3 cards left (a row keeps 3 once a column is gone).
    """
    size = state.shape.size
    base = seat * size
    grid, face_up = state.grid, state.face_up
    found: list[Line] = []
    # one pass a line, without generators (asked at the end of every turn): a line with a
    # face-down card, the common case, is left at that card
    for line in state.shape.lines(state.options.rows):
        slots: list[int] = []
        for s in line.slots:
            if grid[base + s] == EMPTY:
                continue
            if not face_up[base + s]:
                break
            slots.append(s)
        else:
            if len(slots) < 3:
                continue
            first = state.public_value(grid[base + slots[0]])
            for s in slots[1:]:
                if state.public_value(grid[base + s]) != first:
                    break
            else:
                found.append(Line(line.kind, line.index, tuple(slots)))
    return found


def _overlapping(lines: list[Line]) -> bool:
    seen: set[int] = set()
    for line in lines:
        if seen.intersection(line.slots):
            return True
        seen.update(line.slots)
    return False


def remove_line(state: SkyjoState, seat: int, line: Line, events: list[Event]) -> None:
    """Move a line's cards onto the discard pile, slot order, on top of this turn's discard."""
    base = seat * state.shape.size
    values = []
    for slot in line.slots:
        handle = state.grid[base + slot]
        values.append(state.public_value(handle))
        state.discard.append(handle)
        state.grid[base + slot] = EMPTY
        state.face_up[base + slot] = False
    events.append(LineRemoved(seat, line.kind, line.slots, tuple(values)))


def _end_turn(state: SkyjoState, events: list[Event]) -> None:
    seat = state.turn
    assert seat is not None
    while True:
        lines = equal_lines(state, seat)
        if not lines:
            break
        if _overlapping(lines):  # only with the rows option: the owner picks the order
            state.choices = tuple(lines)
            state.step = Step.LINE
            return
        remove_line(state, seat, lines[0], events)
    if state.ender is None:
        if not state.face_down_slots(seat):
            state.ender = seat  # R-S7: every other player plays exactly one more turn
            state.laps_left = state.players - 1
    else:
        state.laps_left -= 1
    if state.ender is not None and state.laps_left == 0:
        _start_scoring(state, events)
    else:
        _begin_turn(state, (seat + 1) % state.players, events)


# --- scoring (R-S8, R-S9) -------------------------------------------------------------------


def _start_scoring(state: SkyjoState, events: list[Event]) -> None:
    """Turn every face-down card up (R-S8); scoring goes on once they are known."""
    state.phase = SCORING
    state.turn = None
    state.step = Step.NONE
    requests: list[Request] = []
    for index, handle in enumerate(state.grid):
        if handle != EMPTY and not state.face_up[index]:
            state.face_up[index] = True
            state.request_reveal(handle, None, requests)
    state.ask(events, requests)
    state.resume = "score"


def _remove_lines_at_end(state: SkyjoState, seat: int, events: list[Event]) -> None:
    """Remove equal lines once more (R-S8); where the order matters, take the lowest score."""
    while True:
        lines = equal_lines(state, seat)
        if not lines:
            return
        if _overlapping(lines):
            best = min(lines, key=lambda ln: _score_after(state, seat, ln))
            remove_line(state, seat, best, events)
        else:
            remove_line(state, seat, lines[0], events)


def _score_after(state: SkyjoState, seat: int, line: Line) -> int:
    trial = state.copy()
    trial_events: list[Event] = []
    remove_line(trial, seat, line, trial_events)
    _remove_lines_at_end(trial, seat, trial_events)
    return grid_score(trial, seat)


def grid_score(state: SkyjoState, seat: int) -> int:
    """The sum of the cards left in `seat`'s grid (all must be public)."""
    return sum(state.public_value(h) for h in state.slots_of(seat) if h != EMPTY)


def _score(state: SkyjoState, events: list[Event]) -> None:
    for seat in range(state.players):
        _remove_lines_at_end(state, seat, events)
    raw = [grid_score(state, seat) for seat in range(state.players)]
    scores, doubled = scoring.ender_rule(raw, state.ender, state.options.ender_multiplier)
    for seat, points in enumerate(scores):
        state.totals[seat] += points
    record = RoundEnded(state.round, state.ender, tuple(raw), tuple(scores), doubled, tuple(state.totals))
    state.history = (*state.history, record)
    events.append(record)
    if scoring.game_over(state.totals, state.options.target_score):
        state.phase = GAME_OVER
        state.winners = scoring.winners(state.totals)
        events.append(GameOver(state.winners, tuple(state.totals)))
        return
    state.starter = state.ender
    start_round(state, events)


_HANDLERS = {
    "reveal": _reveal,
    "draw": _draw,
    "replace": _replace,
    "discard": _discard,
    "flip": _flip,
    "remove-line": _remove_line,
}

_RESUME = {
    "setup": _after_setup,
    "first_random": _after_first_random,
    "end_turn": _end_turn,
    "score": _score,
}

RULES = SkyjoRules()
