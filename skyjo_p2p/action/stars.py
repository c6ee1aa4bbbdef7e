"""Stars (R-A6): a star placed into a grid or turned face up there wakes up, and its owner may take
one action card at once, even outside their turn.

Wakes a star: placing it from the draw or discard pile (a turn's replace, draw-three's kept card,
remove-from-each's refill, the action-in-deck replacement), turning it face up in a grid (setup,
flip, draw-three's flip). Never: a swap that moves or turns it (swap-own, swap-with-others), the
end-of-round reveal. Stars score 0 and are wild in lines (`lines`).

The rules note every card placed or turned face up in ``state.watch`` with whether it may wake a
star; once the reveals are answered, `process_watch` turns the stars into ``offers`` (and, in the
action-in-deck variant, action cards into ``found``). Each offer is a decision (`OFFER`) for the
star's owner: take from the market or the action-deck top (``take``), or not (``pass``). An offer
with nothing to take (both action piles and the market empty) lapses.
"""

from __future__ import annotations

from ..core.moves import Move
from ..grid import EMPTY
from .cards import STAR
from .state import ActionState, Step


def process_watch(state: ActionState) -> None:
    size = state.size
    offers = state.offers
    found = state.found
    wake = state.options.has_market
    for seat, slot, handle, wakes in state.watch:
        if slot >= 0:
            index = seat * size + slot
            if state.grid[index] != handle or not state.face_up[index]:
                continue
        elif handle not in state.discard:
            continue
        value = state.public_value(handle)
        if value == STAR:
            if wakes and wake and slot >= 0:
                offers = (*offers, seat)
        elif value > STAR:
            found = (*found, (seat, handle, slot))
    state.watch = ()
    state.offers = offers
    state.found = found


def open_offer(state: ActionState) -> bool:
    """Present the next star's take; False if every queued offer lapsed (nothing to take)."""
    while state.offers:
        seat = state.offers[0]
        state.offers = state.offers[1:]
        if state.can_take_action():
            state.decide(Step.OFFER, seat)
            return True
    return False


def take_moves(state: ActionState, seat: int) -> list[Move]:
    """Every way to take an action card now (a turn of kind 2, or a star's take)."""
    moves = [
        _cached(seat, "market", position) for position, handle in enumerate(state.market) if handle != EMPTY
    ]
    if state.action_deck or state.action_discard:
        moves.append(_cached(seat, "action-deck", None))
    return moves


_CACHE: dict[tuple[int, str, int | None], Move] = {}


def _cached(seat: int, source: str, index: int | None) -> Move:
    key = (seat, source, index)
    move = _CACHE.get(key)
    if move is None:
        move = _CACHE[key] = Move(seat, "take", source=source, index=index)
    return move
