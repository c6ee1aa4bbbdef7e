"""The line under the table that says what the card under the cursor does (SKYJO ACTION), and
the warning before a move that would have no effect.

Whether a move has no effect is never guessed here: the move is played on a copy of the state by
the engine itself (`skyjo_p2p.engine.apply` returns a new state and leaves the shown one alone),
and the warning is shown when the engine reports `NoEffect` for this seat. The rules are unchanged;
the player only learns before the turn is spent what they would learn after it.
"""

from __future__ import annotations

from skyjo_p2p.action.cards import KIND_NAMES, STAR, is_action
from skyjo_p2p.action.facts import NoEffect
from skyjo_p2p.action.state import ActionState, Step
from skyjo_p2p.core.errors import EngineError
from skyjo_p2p.core.moves import Move
from skyjo_p2p.engine import apply
from skyjo_p2p.grid import EMPTY

from ...canvas import Target
from ...i18n import tr
from ...model import Decision
from ...targets import (
    ButtonTarget,
    Drawn3Target,
    GridTarget,
    HeldTarget,
    MarketTarget,
    MenuTarget,
    PileTarget,
)

REASONS = {
    "fewer than two cards in the grid": "action.why.swap_own",
    "no playing card left to draw": "action.why.draw_three",
    "the action discard is empty": "action.why.replay",
    "no opponent holds an action card": "action.why.steal",
    "no card to exchange": "action.why.exchange",
}
"""The engine's reasons for `NoEffect`, as catalogue keys (an unknown reason is shown as is)."""


def value_under(state: ActionState, target: Target) -> int | None:
    """The card a target shows, when it is a card whose face is public or known (else None)."""
    handle: int | None = None
    if isinstance(target, MarketTarget):
        handle = state.market[target.place] if target.place < len(state.market) else None
    elif isinstance(target, HeldTarget):
        cards = state.held[target.seat]
        handle = cards[target.place] if target.place < len(cards) else None
    elif isinstance(target, MenuTarget):
        pile = state.action_discard
        handle = pile[target.place] if target.place < len(pile) else None
    elif isinstance(target, Drawn3Target):
        handle = state.holding[target.place] if target.place < len(state.holding) else None
    elif isinstance(target, GridTarget):
        handle = state.grid[target.seat * state.size + target.slot]
    if handle is None or handle == EMPTY:
        return None
    value: int | None = state.values[handle]
    return value


def describe(value: int | None, lang: str) -> str:
    """One line about an action card or a star ("" for a number card or an unknown one)."""
    if value == STAR:
        return tr(lang, "action.desc.star")
    if value is None or not is_action(value):
        return ""
    kind = KIND_NAMES[value]
    return tr(
        lang,
        "action.desc.line",
        name=tr(lang, f"action.name.{kind}"),
        short=tr(lang, f"action.short.{kind}"),
        text=tr(lang, f"action.desc.{kind}"),
    )


def _move_for(dec: Decision, chosen: tuple[Target, ...], cursor: Target) -> Move | None:
    """The move picking `cursor` leads to, when there is one only; a held card in a turn counts as
    playing it (the choice that can have no effect)."""
    path = (*chosen, cursor)
    moves = [o.move for o in dec.options if o.path[: len(path)] == path]
    if isinstance(cursor, HeldTarget) and not chosen and any(m.kind == "play" for m in moves):
        moves = [m for m in moves if m.kind == "play"]
    kinds = {(m.kind, m.target, m.index) for m in moves}
    return moves[0] if len(kinds) == 1 and moves else None


def no_effect(state: ActionState, move: Move) -> str | None:
    """Why `move` would have no effect (in the engine's words), or None when it would have one."""
    if move.kind not in ("play", "replay", "steal"):
        return None
    try:
        _, events = apply(state, move)
    except (EngineError, ValueError):
        return None
    for event in events:
        if isinstance(event, NoEffect) and event.seat == move.seat:
            return event.reason
    return None


def hint(
    state: ActionState,
    me: int,
    dec: Decision | None,
    chosen: tuple[Target, ...],
    cursor: Target | None,
    lang: str,
) -> tuple[str, str]:
    """The line for the card under the cursor, and its style ("warn" for a move without effect)."""
    if cursor is None:
        return "", "dim"
    if dec is not None:
        move = _move_for(dec, chosen, cursor)
        if move is not None:
            reason = no_effect(state, move)
            if reason is not None:
                played = (
                    state.values[state.held[me][move.index]]
                    if move.kind == "play" and move.index is not None
                    else None
                )
                if move.kind != "play":
                    played = value_under(state, cursor)
                name = (
                    tr(lang, f"action.name.{KIND_NAMES[played]}")
                    if played is not None and is_action(played)
                    else "?"
                )
                why = tr(lang, REASONS[reason]) if reason in REASONS else reason
                return tr(lang, "action.warn.no_effect", card=name, why=why), "warn"
    if cursor == PileTarget("action"):
        return tr(lang, "action.desc.deck"), "dim"
    target = cursor
    if isinstance(cursor, ButtonTarget) and chosen and isinstance(chosen[-1], HeldTarget):
        target = chosen[-1]  # "Play it" / "Discard it unused": the card they are about
    if state.step == Step.SETUP:
        return "", "dim"
    return describe(value_under(state, target), lang), "dim"
