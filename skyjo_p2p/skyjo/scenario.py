"""Classic SKYJO in the scenario runner: decks of numbers; the grid report (docs/scenarios.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..grid import EMPTY
from ..scenario import ScenarioFormat, int_deck, number_card, round_scores
from .cards import DECK, VALUES
from .state import GAME_OVER, SETUP, SkyjoState


def _decks(entry: Mapping[str, Any]) -> dict[str, list[int]]:
    deck = int_deck(entry, "deck", "round", lambda item: number_card(item, sorted(VALUES)))
    return {} if deck is None else {DECK: deck}


def grid_report(state: SkyjoState, seat: int) -> list[int | str | None]:
    """Each slot: its value if face up, "?" if face down, None if removed."""
    out: list[int | str | None] = []
    base = seat * state.shape.size
    for i in range(state.shape.size):
        handle = state.grid[base + i]
        if handle == EMPTY:
            out.append(None)
        elif state.face_up[base + i]:
            out.append(state.public_value(handle))
        else:
            out.append("?")
    return out


def phase_name(state: SkyjoState) -> str:
    if state.phase == GAME_OVER:
        return "game_over"
    if state.phase == SETUP or state.phase == "deal":
        return "setup"
    return "turn"


def _report(state: SkyjoState) -> dict[str, Any]:
    top = state.discard_top()
    return {
        "phase": phase_name(state),
        "to_move": state.to_move(),
        "ended_by": state.ender,
        "players": [
            {
                "grid": grid_report(state, seat),
                "round_scores": round_scores(state, seat),
                "total": state.totals[seat],
            }
            for seat in range(state.players)
        ],
        "discard_top": None if top is None else state.public_value(top),
        "draw_pile": len(state.draw),
    }


FORMAT = ScenarioFormat(decks=_decks, report=_report)
