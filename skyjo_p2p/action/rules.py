"""SKYJO ACTION: the round, the turn, and the loop that drives every decision (R-A2 .. R-A10).

A round::

    deal both decks, market of four face up (R-A2) ─▶ setup: each seat turns its cards
      ─▶ first player (R-A3, R-S4; a star counts 0) ─▶ stars turned at setup: takes, in turn order
      ─▶ turns ... ─▶ a grid without face-down cards at the end of a turn (R-A9)
      ─▶ one more turn for every other seat ─▶ end-of-round reveal and scoring (R-A8)

A turn (R-A4) is one of: a playing-card turn (``draw`` from "deck" or "discard", then ``replace``,
or ``discard`` and ``flip``), taking an action card (``take``), or playing or discarding a held
action card (``play``, ``discard-action``); these moves are in `turn`. Then every grid's lines
are checked (R-A7, `lines`), the round end is checked (R-A9), and the next turn begins: the same
seat's if it has extra turns.

Everything that waits for a seat is a decision (``state.step``, see `state`); `advance` runs the
game on from one decision to the next: it waits for requests, wakes stars (`stars`), settles action
cards found in the action-in-deck variant (`in_deck`), and otherwise runs the next task of
``state.agenda``. The action cards themselves are in `actions`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from typing import Any

from ..core.errors import IllegalMove
from ..core.events import (
    DealRequest,
    Event,
    GameOver,
    RandomRequest,
    RoundEnded,
)
from ..core.moves import Move, MoveSchema
from ..grid import EMPTY
from ..skyjo.rules import check_setup_reveal, first_player_among
from . import actions, in_deck, lines, stars, turn
from .cards import ACTION, PLAYING, STAR
from .decisions import RemoveFromEach
from .facts import ExtraTurns
from .options import ActionOptions
from .scoring import ender_rule, game_over, round_points, winners
from .state import (
    GAME_OVER,
    SCORING,
    SETUP,
    ActionState,
    Step,
    Task,
)

_F = frozenset
SCHEMA = MoveSchema(
    required={
        "reveal": _F({"slots"}),
        "draw": _F({"from"}),
        "replace": _F({"slot"}),
        "discard": _F(),
        "flip": _F({"slot"}),
        "take": _F({"from"}),
        "pass": _F(),
        "play": _F({"index"}),
        "discard-action": _F({"index"}),
        "remove-line": _F({"line", "index"}),
        "keep-lines": _F(),
        "keep-action": _F(),
        "drop-action": _F(),
        "pick": _F({"target"}),
        "swap": _F({"slot", "slot2", "face_up"}),
        "keep": _F({"index", "slot"}),
        "keep-none": _F(),
        "peek": _F({"target", "line", "index"}),
        "replay": _F({"index"}),
        "steal": _F({"target", "index"}),
        "exchange": _F({"slot", "target", "slot2", "face_up"}),
    },
    optional={
        "take": _F({"index"}),
        "remove-line": _F({"order"}),
        "keep-action": _F({"index"}),
        "drop-action": _F({"index"}),
        "pick": _F({"slot", "index"}),
        "keep": _F({"order"}),
        "keep-none": _F({"order"}),
    },
)


class ActionRules:
    """The rules object the engine finds (`skyjo_p2p.registry`) under "skyjo-action"."""

    name = "skyjo-action"
    schema = SCHEMA
    state_type = ActionState

    def new_state(self, players: int, options: Mapping[str, Any]) -> tuple[ActionState, list[Event]]:
        parsed = ActionOptions.parse(options)
        parsed.check_players(players)
        state = ActionState(players, parsed)
        events: list[Event] = []
        start_round(state, events)
        advance(state, events)
        return state, events

    def composition(self, state: ActionState, deck: str) -> Sequence[int]:
        options: ActionOptions = state.options
        return options.action_deck if deck == ACTION else options.playing_deck

    def valid_value(self, state: ActionState, deck: str, value: int) -> bool:
        options: ActionOptions = state.options
        return value in (options.action_values if deck == ACTION else options.playing_values)

    def deciders(self, state: ActionState) -> tuple[int, ...]:
        if state.step == Step.SETUP:
            return tuple(s for s in range(state.players) if state.to_reveal[s] > 0)
        if state.step and state.actor is not None:
            return (state.actor,)
        return ()

    def legal_moves(self, state: ActionState, seat: int) -> list[Move]:
        step = state.step
        if step == Step.SETUP:
            count = state.to_reveal[seat]
            if count == 0:
                return []
            return [Move(seat, "reveal", slots=c) for c in combinations(state.face_down_slots(seat), count)]
        if not step or seat != state.actor:
            return []
        return _LEGAL[step](state, seat)

    def apply_move_into(self, state: ActionState, move: Move, events: list[Event]) -> None:
        if state.phase == GAME_OVER:
            raise IllegalMove("the game is over")
        if move.kind == "reveal":
            _reveal(state, move, events)
        elif state.step == Step.SETUP:
            raise IllegalMove("setup is not finished: every seat first turns its setup cards (reveal)")
        else:
            _check_decider(state, move)
            steps, handler = _HANDLERS[move.kind]
            if state.step not in steps:
                raise IllegalMove(_hint(state))
            handler(state, move, events)
        advance(state, events)

    def resume_into(self, state: ActionState, events: list[Event]) -> None:
        state.resume = ""
        advance(state, events)


# --- the loop -------------------------------------------------------------------------------


def advance(state: ActionState, events: list[Event]) -> None:
    """Go on until a request or a decision is open (or the game is over)."""
    while True:
        if state.pending:
            state.resume = "advance"
            return
        if state.claims:
            in_deck.verify_claims(state, events)
        if state.watch:
            stars.process_watch(state)
        if state.step:
            return
        if state.found:
            in_deck.open_found(state)
            return
        if state.offers and stars.open_offer(state):
            return
        if not state.agenda:
            return
        task = state.agenda[-1]
        state.agenda = state.agenda[:-1]
        _TASKS[task[0]](state, task, events)


def _check_decider(state: ActionState, move: Move) -> None:
    if not state.step or state.actor is None:  # pragma: no cover - advance always opens one
        raise IllegalMove("nothing is to be decided now")
    if move.seat != state.actor:
        if state.step == Step.CHOOSE:
            raise IllegalMove(f"it is seat {state.actor}'s turn, not seat {move.seat}'s")
        raise IllegalMove(f"seat {state.actor} must decide now ({_hint(state)}), not seat {move.seat}")


def _hint(state: ActionState) -> str:
    step = state.step
    if step == Step.PICK:
        return f"remove-from-each: pick a card of seat {state.decision_as(RemoveFromEach).victim} (pick)"
    if step == Step.DRAWN and state.options.in_deck:
        return (
            "place the drawn card (replace) or discard it; an action card: keep it (keep-action) "
            "or put it on the action discard (drop-action)"
        )
    if step == Step.DRAW3 and state.options.in_deck:
        return (
            "draw-three: keep one card (keep) or none (keep-none); declare an action card first "
            "(keep-action, drop-action)"
        )
    return _STEP_HINT[step]


_STEP_HINT = {
    Step.CHOOSE: (
        "choose your turn: draw a playing card (draw), take an action card (take), or play or "
        "discard one you held before this turn (play, discard-action)"
    ),
    Step.DRAWN: "place the drawn card (replace) or discard it",
    Step.TOOK: "the card taken from the discard pile must replace a grid card",
    Step.FLIP: "turn one of your face-down cards (flip)",
    Step.OFFER: "a star lets you take an action card (take) or not (pass)",
    Step.FOUND: (
        "keep the action card you turned up (keep-action) or put it on the action discard (drop-action)"
    ),
    Step.LINES: "remove a line (remove-line) or keep the optional ones (keep-lines)",
    Step.SWAP: "swap-own: choose the two cards to swap (swap)",
    Step.DRAW3: "draw-three: keep one card (keep) or none (keep-none)",
    Step.PEEK: "peek-line: choose the line to look at (peek)",
    Step.REPLAY: "replay-discard: choose the card to play from the action discard (replay)",
    Step.STEAL: "steal-and-play: choose the card to take from another player (steal)",
    Step.EXCHANGE: "swap-with-others: choose an exchange (exchange)",
}


# --- a round: deal and setup (R-A2, R-A3) ---------------------------------------------------


def start_round(state: ActionState, events: list[Event]) -> None:
    """Deal (R-A2, as R-S3): seat 0 gets the playing deck's first cards into slots 0.., seat 1 the
    next ones, ...; the next card starts the discard pile; the rest is the draw pile. The action
    deck's first four cards are the market, face up; the rest is the action deck."""
    options = state.options
    state.round += 1
    state.reset_handles()
    size = state.size
    total = len(options.playing_deck)
    first = state.allocate(PLAYING, total)
    dealt = state.players * size
    state.grid = list(range(first, first + dealt))
    state.face_up = [False] * dealt
    start = first + dealt
    state.discard = [start]
    state.draw = list(range(first + total - 1, start, -1))  # the top is the last item
    requests: list[Any] = [DealRequest(PLAYING, first, total)]
    state.market = ()
    state.action_deck = ()
    if options.has_market:
        count = len(options.action_deck)
        base = state.allocate(ACTION, count)
        requests.append(DealRequest(ACTION, base, count))
        shown = min(4, count)
        state.market = tuple(base + i for i in range(shown)) + (EMPTY,) * (4 - shown)
        state.action_deck = tuple(range(base + count - 1, base + shown - 1, -1))
    state.action_discard = ()
    state.held = ((),) * state.players
    state.fresh = ()
    state.in_play = ()
    state.holding = ()
    state.agenda = ()
    state.watch = ()
    state.claims = ()
    state.offers = ()
    state.found = ()
    state.kept = ()
    state.lines_clear = ((),) * state.players
    state.settled = ()
    state.phase = SETUP
    state.turn = None
    state.first = None
    state.ender = None
    state.laps_left = 0
    state.extra = 0
    state.to_reveal = (options.setup_reveals,) * state.players
    state.ask(events, requests)
    state.reveal_public(start, events)
    for handle in state.market:
        if handle != EMPTY:
            state.reveal_public(handle, events)
    state.done()
    if options.in_deck:  # the pile may not start with an action card (in_deck.starter_task)
        state.push(("starter",), ("open_setup",))
    else:
        _open_setup(state, ("open_setup",), events)


def _open_setup(state: ActionState, task: Task, events: list[Event]) -> None:
    if state.options.setup_reveals:
        state.step, state.actor, state.decision = Step.SETUP, None, None  # every seat decides: see `deciders`
    else:
        state.push(("after_setup",))


def _reveal(state: ActionState, move: Move, events: list[Event]) -> None:
    seat = move.seat
    check_setup_reveal(state.step == Step.SETUP, state.to_reveal[seat], seat, move.slots)
    slots = move.slots
    size = state.size
    base = seat * size
    for slot in slots:
        if not 0 <= slot < size:
            raise IllegalMove(f"there is no slot {slot} (slots are 0..{size - 1})")
    for slot in slots:
        state.face_up[base + slot] = True
        state.reveal_public(state.grid[base + slot], events)
    state.to_reveal = (*state.to_reveal[:seat], 0, *state.to_reveal[seat + 1 :])
    if not any(state.to_reveal):
        state.done()
        state.push(("after_setup",))


def _after_setup(state: ActionState, task: Task, events: list[Event]) -> None:
    if state.options.in_deck:
        state.push(("setup_found",), ("first_player",))
    else:
        state.push(("first_player",))


def _first_player(state: ActionState, task: Task, events: list[Event]) -> None:
    if state.starter is not None:  # rounds after the first: the previous ender starts (R-S4)
        state.push(("setup_offers", state.starter))
        return
    tied = first_player_candidates(state)
    if len(tied) == 1:
        state.push(("setup_offers", tied[0]))
        return
    state.push(("first_random", tuple(tied)))
    state.ask(events, [RandomRequest("first-player", len(tied))])


def first_player_candidates(state: ActionState) -> list[int]:
    """Highest sum of the cards turned at setup, then highest card; a star counts 0 (R-A3, R-S4)."""
    size = state.size
    return first_player_among(
        [
            [
                0 if value == STAR else value
                for value in (
                    state.public_value(state.grid[base + i])
                    for i in range(size)
                    if state.grid[base + i] != EMPTY and state.face_up[base + i]
                )
            ]
            for base in range(0, state.players * size, size)
        ]
    )


def _first_random(state: ActionState, task: Task, events: list[Event]) -> None:
    assert state.random_value is not None
    seat = task[1][state.random_value]
    state.random_value = None
    state.push(("setup_offers", seat))


def _setup_offers(state: ActionState, task: Task, events: list[Event]) -> None:
    """Stars turned at setup: one take each, in turn order from the first player (R-A3)."""
    first = state.first = task[1]
    if state.options.has_market:
        size = state.size
        offers = []
        for k in range(state.players):
            seat = (first + k) % state.players
            base = seat * size
            for i in range(base, base + size):
                if state.grid[i] != EMPTY and state.face_up[i] and state.public_value(state.grid[i]) == STAR:
                    offers.append(seat)
        state.offers = (*state.offers, *offers)
    n = state.players
    # Lines turned at setup (possible with setup_reveals of 3 or more) go before the first turn.
    state.push(("lines", tuple((first + k) % n for k in range(n)), "first_turn"))


def _first_turn(state: ActionState, events: list[Event]) -> None:
    assert state.first is not None
    turn.begin_turn(state, state.first, events)


# --- the end of a turn (R-A7, R-A9) ---------------------------------------------------------


def _end_turn(state: ActionState, task: Task, events: list[Event]) -> None:
    """Every grid's lines, the active seat's first, then clockwise (R-A7); then the round end."""
    seat = state.turn
    assert seat is not None
    if state.settled == (*state.grid, *state.face_up):
        # No grid changed since the last end of turn left nothing to do: no line can have been
        # completed and no grid can have lost its last face-down card (a shortcut, for speed).
        _next_turn(state, events)
        return
    n = state.players
    _lines(state, ("lines", tuple((seat + k) % n for k in range(n)), "after_turn"), events)


def _lines(state: ActionState, task: Task, events: list[Event]) -> None:
    """Check the grids of the seats in task[1], in order, then go on with task[2]; a decision pauses
    the check, and the grid it concerns is checked again once it is taken (a removal can complete
    or break other lines)."""
    _, seats, then = task
    for i, seat in enumerate(seats):
        if lines.check(state, seat, events):
            state.push(("lines", seats[i:], then))
            return
    if then == "after_turn":
        _after_turn(state, events)
    else:
        _first_turn(state, events)


def _after_turn(state: ActionState, events: list[Event]) -> None:
    seat = state.turn
    assert seat is not None
    n = state.players
    if state.ender is None and not all(state.has_face_down(s) for s in range(n)):
        state.ender = seat  # R-A9: the active seat ended the round, whoever's grid it was
        state.laps_left = n  # counted down below, this turn included
        if state.extra:
            state.extra = 0  # forfeited (R-A9)
            events.append(ExtraTurns(seat, 0, 0))
    state.settled = (*state.grid, *state.face_up)
    _next_turn(state, events)


def _next_turn(state: ActionState, events: list[Event]) -> None:
    seat = state.turn
    assert seat is not None
    n = state.players
    if state.ender is not None:
        state.laps_left -= 1
    if state.ender is not None and state.laps_left <= 0:
        _start_scoring(state, events)
    elif state.extra > 0:
        state.extra -= 1
        turn.begin_turn(state, seat, events)
    else:
        turn.begin_turn(state, (seat + 1) % n, events)


# --- scoring (R-A8, R-S8, R-S9) -------------------------------------------------------------


def _start_scoring(state: ActionState, events: list[Event]) -> None:
    """Turn every face-down card up (no star wakes, R-A6); scoring goes on once they are known."""
    state.phase = SCORING
    state.turn = None
    state.done()
    for index, handle in enumerate(state.grid):
        if handle != EMPTY and not state.face_up[index]:
            state.face_up[index] = True
            state.reveal_public(handle, events)
    if state.options.in_deck:
        state.push(("score_found",), ("score",))
    else:
        state.push(("score",))


def _score(state: ActionState, task: Task, events: list[Event]) -> None:
    raw = [round_points(state, seat, events) for seat in range(state.players)]
    scores, doubled = ender_rule(raw, state.ender, state.options.ender_multiplier)
    for seat, points in enumerate(scores):
        state.totals[seat] += points
    record = RoundEnded(state.round, state.ender, tuple(raw), tuple(scores), doubled, tuple(state.totals))
    state.history = (*state.history, record)
    events.append(record)
    if game_over(state.totals, state.options.target_score):
        state.phase = GAME_OVER
        state.winners = winners(state.totals)
        events.append(GameOver(state.winners, tuple(state.totals)))
        return
    state.starter = state.ender
    start_round(state, events)


# --- tables ---------------------------------------------------------------------------------

_LEGAL: dict[str, Callable[[ActionState, int], list[Move]]] = {
    Step.CHOOSE: turn.choose_moves,
    Step.DRAWN: turn.drawn_moves,
    Step.TOOK: lambda state, seat: [turn.cached(seat, "replace", s) for s in state.card_slots(seat)],
    Step.FLIP: lambda state, seat: [turn.cached(seat, "flip", s) for s in state.face_down_slots(seat)],
    Step.OFFER: lambda state, seat: [*stars.take_moves(state, seat), turn.cached(seat, "pass", None)],
    Step.FOUND: in_deck.declare_moves,
    Step.LINES: lines.legal,
    Step.PICK: actions.pick_moves,
    Step.SWAP: actions.swap_moves,
    Step.DRAW3: turn.draw_three_moves,
    Step.PEEK: actions.peek_moves,
    Step.REPLAY: actions.replay_moves,
    Step.STEAL: actions.steal_moves,
    Step.EXCHANGE: actions.exchange_moves,
}

Handler = Callable[[ActionState, Move, list[Event]], None]
_HANDLERS: dict[str, tuple[frozenset[str], Handler]] = {
    "draw": (_F({Step.CHOOSE}), turn.draw),
    "replace": (_F({Step.DRAWN, Step.TOOK}), turn.replace),
    "discard": (_F({Step.DRAWN}), turn.discard),
    "flip": (_F({Step.FLIP}), turn.flip),
    "take": (_F({Step.CHOOSE, Step.OFFER}), turn.take),
    "pass": (_F({Step.OFFER}), turn.pass_offer),
    "play": (_F({Step.CHOOSE}), turn.play_held),
    "discard-action": (_F({Step.CHOOSE}), turn.discard_held),
    "remove-line": (_F({Step.LINES}), lines.remove_move),
    "keep-lines": (_F({Step.LINES}), lines.keep_move),
    "keep-action": (_F({Step.FOUND, Step.DRAWN, Step.DRAW3}), in_deck.declare),
    "drop-action": (_F({Step.FOUND, Step.DRAWN, Step.DRAW3}), in_deck.declare),
    "pick": (_F({Step.PICK}), actions.pick),
    "swap": (_F({Step.SWAP}), actions.swap),
    "keep": (_F({Step.DRAW3}), actions.keep),
    "keep-none": (_F({Step.DRAW3}), actions.keep_none),
    "peek": (_F({Step.PEEK}), actions.peek),
    "replay": (_F({Step.REPLAY}), actions.replay),
    "steal": (_F({Step.STEAL}), actions.steal),
    "exchange": (_F({Step.EXCHANGE}), actions.exchange),
}

_TASKS: dict[str, Callable[[ActionState, Task, list[Event]], None]] = {
    "open_setup": _open_setup,
    "after_setup": _after_setup,
    "starter": in_deck.starter_task,
    "setup_found": in_deck.setup_found_task,
    "first_player": _first_player,
    "first_random": _first_random,
    "setup_offers": _setup_offers,
    "end_turn": _end_turn,
    "lines": _lines,
    "finish_play": actions.finish_play_task,
    "remove_next": actions.remove_next_task,
    "score_found": in_deck.score_found_task,
    "score": _score,
}

RULES = ActionRules()
