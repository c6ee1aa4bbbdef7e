"""The piles: drawing playing cards, the market of four, the action deck and its discard (R-A2, R-A10).

Every reshuffle is a joint shuffle (`ShuffleRequest`, R-C2) into new handles: nobody knows the new
order, even of faces everyone saw.
"""

from __future__ import annotations

from ..core.events import Event
from ..grid import EMPTY
from .cards import ACTION, PLAYING
from .facts import ActionTaken
from .state import ActionState

# --- the playing cards (R-S10, R-A10) --------------------------------------------------------


def draw_top(state: ActionState, events: list[Event]) -> int | None:
    """Take the draw pile's top, first reshuffling the discard pile (all but its top) if it is
    empty (R-S10). None if there is no card left to draw at all."""
    if not state.draw:
        old = tuple(state.discard[:-1])
        if not old:
            return None
        state.discard = state.discard[-1:]
        state.draw = state.reshuffle(PLAYING, old, events)
    return state.draw.pop()


# --- the action cards (R-A2, R-A4, R-A10) ----------------------------------------------------


def _reshuffle_actions(state: ActionState, events: list[Event]) -> bool:
    """The empty action deck is renewed from the whole action discard (R-A10)."""
    old = state.action_discard
    if not old:
        return False
    state.action_discard = ()
    state.action_deck = tuple(state.reshuffle(ACTION, old, events))
    return True


def action_deck_top(state: ActionState, events: list[Event]) -> int | None:
    if not state.action_deck and not _reshuffle_actions(state, events):
        return None
    deck = state.action_deck
    state.action_deck = deck[:-1]
    return deck[-1]


def refill_market(state: ActionState, events: list[Event]) -> None:
    """Fill every hole of the market from the action deck, face up (R-A4); when both action piles
    are empty the holes stay (R-A10)."""
    if EMPTY not in state.market:
        return
    market = list(state.market)
    for position, handle in enumerate(market):
        if handle == EMPTY:
            top = action_deck_top(state, events)
            if top is None:
                break
            market[position] = top
            state.reveal_public(top, events)
    state.market = tuple(market)


def take_from_market(state: ActionState, seat: int, position: int, events: list[Event], star: bool) -> None:
    market = state.market
    handle = market[position]
    state.market = (*market[:position], EMPTY, *market[position + 1 :])
    _to_hand(state, seat, handle)
    events.append(ActionTaken(seat, handle, "market", star))
    refill_market(state, events)


def take_from_action_deck(state: ActionState, seat: int, events: list[Event], star: bool) -> None:
    handle = action_deck_top(state, events)
    assert handle is not None  # the caller checked `can_take_action`
    _to_hand(state, seat, handle)
    state.reveal_public(handle, events)  # it lies face up beside the grid (R-A4)
    events.append(ActionTaken(seat, handle, "action-deck", star))


def _to_hand(state: ActionState, seat: int, handle: int) -> None:
    state.set_held(seat, (*state.held[seat], handle))
    state.fresh = (*state.fresh, handle)


def give(state: ActionState, seat: int, handle: int) -> None:
    """`seat` keeps an action card (action-in-deck variant); it is new this turn (R-A4)."""
    _to_hand(state, seat, handle)


def place_from_draw(state: ActionState, seat: int, slot: int, events: list[Event]) -> None:
    """Fill a grid gap with the draw pile's top, face up (remove-from-each's refill, the
    action-in-deck replacement). With no card left to draw, the slot stays empty."""
    index = seat * state.size + slot
    handle = draw_top(state, events)
    if handle is None:
        state.grid[index] = EMPTY
        state.face_up[index] = False
        return
    state.grid[index] = handle
    state.face_up[index] = True
    state.reveal_public(handle, events)
    state.watch = (*state.watch, (seat, slot, handle, True))  # placed from the draw pile (R-A6)
