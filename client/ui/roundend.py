"""The table as a round ended, every card turned up: what the round summary is shown with.

The engine scores a round and deals the next one in the same step, so no state a screen reads
ever holds the ended round's grids turned up (nor SKIP-BO's stock piles as the round ended). They
are rebuilt here from the last state the screen saw of that round and the facts logged since: its
moves and answers are played again, on a copy whose options make this round the last one, so the
engine stops at the scores (cards turned, lines removed, as the real scoring did) instead of
dealing again.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from skyjo_p2p.core.errors import EngineError
from skyjo_p2p.core.events import (
    DealRequest,
    Dealt,
    Moved,
    Reveal,
    Revealed,
    RevealRequest,
    RoundEnded,
    Shuffled,
    ShuffleRequest,
)
from skyjo_p2p.core.state import TableState
from skyjo_p2p.engine import apply

ENDED = "round_over"
"""The phase of a rebuilt table: the round is scored, the next one not dealt."""


def _last_round(state: TableState) -> TableState:
    """A copy of `state` whose options end the game with this round (validation bypassed on purpose:
    the copy is never played on, only looked at)."""
    options: Any = copy.copy(state.options)
    if hasattr(options, "single_round"):
        object.__setattr__(options, "single_round", True)
    if hasattr(options, "target_score"):
        object.__setattr__(options, "target_score", -(10**9))
    out = state.copy()
    out.options = options
    return out


def _answer_open_requests(state: TableState) -> TableState:
    """Answer the requests that carry no secret (a deal, a shuffle) as the table did."""
    while state.pending:
        first = state.pending[0]
        if isinstance(first, ShuffleRequest):
            state, _ = apply(state, Shuffled(first.deck, first.handles, first.first))
        elif isinstance(first, DealRequest):
            state, _ = apply(state, Dealt(first.deck, first.first, first.size))
        else:
            return state
    return state


def ended_round(before: TableState, facts: Iterable[object]) -> TableState | None:
    """The table at the end of `before`'s round, from the `facts` logged after `before`.

    None when it cannot be rebuilt (a step that needs an answer the log does not hold); the
    caller then shows the summary over the table as it is."""
    ended = sum(1 for r in before.history if isinstance(r, RoundEnded))
    state = _last_round(before)
    original = before.options
    for fact in facts:
        if state.phase == "game_over":
            break
        try:
            state = _answer_open_requests(state)
            if isinstance(fact, Moved):
                state, _ = apply(state, fact.move)
            elif isinstance(fact, Revealed) and RevealRequest(fact.handle, fact.to) in state.pending:
                state, _ = apply(state, Reveal(fact.handle, fact.to, fact.value))
        except (EngineError, ValueError):
            continue  # a fact `before` already holds: the screen read the state before the log
    if state.phase != "game_over" or sum(1 for r in state.history if isinstance(r, RoundEnded)) != ended + 1:
        return None
    state.phase = ENDED
    state.winners = ()
    state.options = original
    return state
