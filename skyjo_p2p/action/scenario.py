"""SKYJO ACTION in the scenario runner (docs/scenarios.md, SKYJO ACTION).

Decks: ``"deck"`` (the playing deck, top first: numbers, ``"*"`` for a star, and action card names in
the action-in-deck variant) and ``"action_deck"`` (action card names, top first: the first four are
the market). The report adds each player's held ``actions``, the ``market``, the ``action_deck``
count, the ``action_discard`` and the open ``decision`` to the classic fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..grid import EMPTY
from ..scenario import MalformedScenario, ScenarioFormat, int_deck, round_scores
from .cards import ACTION, KINDS, PLAYING, code_of, name_of
from .state import GAME_OVER, SETUP, ActionState, Step


def _card(item: Any) -> int:
    code = code_of(item)
    if code is None:
        raise MalformedScenario(
            f'{item!r} is not a SKYJO ACTION card (a number -2..12, "*" or an action name)'
        )
    return code


def _action_card(item: Any) -> int:
    code = code_of(item)
    if code not in KINDS:
        raise MalformedScenario(f"{item!r} is not an action card name")
    assert code is not None
    return code


def _decks(entry: Mapping[str, Any]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    deck = int_deck(entry, "deck", "round", _card)
    if deck is not None:
        out[PLAYING] = deck
    actions = int_deck(entry, "action_deck", "round", _action_card)
    if actions is not None:
        out[ACTION] = actions
    return out


def grid_report(state: ActionState, seat: int) -> list[int | str | None]:
    """Each slot: its value if face up ("*" for a star), "?" if face down, None if removed."""
    out: list[int | str | None] = []
    base = seat * state.size
    for i in range(state.size):
        handle = state.grid[base + i]
        if handle == EMPTY:
            out.append(None)
        elif state.face_up[base + i]:
            out.append(name_of(state.public_value(handle)))
        else:
            out.append("?")
    return out


def _phase(state: ActionState) -> str:
    if state.phase == GAME_OVER:
        return "game_over"
    if state.phase in (SETUP, "deal"):
        return "setup"
    return "turn"


def _decision(state: ActionState) -> dict[str, Any] | None:
    if state.phase == GAME_OVER or state.pending or not state.step:
        return None
    if state.step == Step.SETUP:
        return {"step": "setup", "seats": [s for s in range(state.players) if state.to_reveal[s]]}
    return {"step": state.step, "seats": [state.actor]}


def _report(state: ActionState) -> dict[str, Any]:
    top = state.discard_top()
    return {
        "phase": _phase(state),
        "to_move": state.to_move(),
        "ended_by": state.ender,
        "decision": _decision(state),
        "players": [
            {
                "grid": grid_report(state, seat),
                "actions": state.held_names(seat),
                "round_scores": round_scores(state, seat),
                "total": state.totals[seat],
            }
            for seat in range(state.players)
        ],
        "discard_top": None if top is None else name_of(state.public_value(top)),
        "draw_pile": len(state.draw),
        "market": [None if h == EMPTY else name_of(state.public_value(h)) for h in state.market],
        "action_deck": len(state.action_deck),
        "action_discard": [name_of(state.public_value(h)) for h in state.action_discard],
    }


FORMAT = ScenarioFormat(decks=_decks, report=_report)
