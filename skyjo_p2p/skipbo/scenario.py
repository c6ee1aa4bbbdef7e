"""SKIP-BO in the scenario runner: decks of 1..12 and "SB"; the table report (docs/scenarios.md, SKIP-BO).

The runner's state knows every card that was shown to anybody, so the report shows every hand (an
onlooker who sees hands); stock cards under the top and the draw pile were shown to nobody and
are only counted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..scenario import MalformedScenario, ScenarioFormat, int_deck, round_scores
from .cards import DECK, DISCARD_PILES, TOP, WILD, card_name
from .state import GAME_OVER, TURN, SkipBoState


def parse_card(item: Any) -> int:
    """A card as a scenario writes it: 1..12, or "SB" for a SKIP-BO wild."""
    if item == "SB":
        return WILD
    if isinstance(item, int) and not isinstance(item, bool) and 1 <= item <= TOP:
        return item
    raise MalformedScenario(f'{item!r} is not a SKIP-BO card (1..12, or "SB" for a wild)')


def _decks(entry: Mapping[str, Any]) -> dict[str, list[int]]:
    deck = int_deck(entry, "deck", "round", parse_card)
    return {} if deck is None else {DECK: deck}


def _name(state: SkipBoState, handle: int) -> int | str:
    value = state.values[handle]
    return "?" if value is None else card_name(value)


def report(state: SkipBoState) -> dict[str, Any]:
    """The game's part of the scenario output (docs/scenarios.md, SKIP-BO)."""
    players = []
    for seat in range(state.players):
        stock = state.stocks[seat]
        players.append(
            {
                "stock_top": card_name(state.public_value(stock[-1])) if stock else None,
                "stock": len(stock),
                "hand": [_name(state, h) for h in state.hands[seat]],
                "discards": [
                    [_name(state, h) for h in state.discard_pile(seat, pile)] for pile in range(DISCARD_PILES)
                ],
                "round_scores": round_scores(state, seat),
                "total": state.totals[seat],
            }
        )
    if state.phase == GAME_OVER:
        phase = "game_over"
    elif state.phase == TURN:
        phase = "turn"
    else:
        phase = "setup"
    return {
        "phase": phase,
        "to_move": state.to_move(),
        "dealer": state.dealer,
        "players": players,
        "building": [len(pile) if pile else None for pile in state.building],
        "draw_pile": len(state.draw),
        "set_aside": len(state.set_aside),
    }


FORMAT = ScenarioFormat(decks=_decks, report=report)
