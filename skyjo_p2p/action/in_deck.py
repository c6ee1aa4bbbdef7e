"""The action-in-deck variant (R-A13): action cards shuffled into the playing deck.

A drawn or revealed action card is kept (held, as if taken) or put on the action discard, and a
replacement playing card is drawn: into the grid slot face up when the card was turned up in a grid,
into the hand when it was drawn. This is allowed in the final lap too.

* Turned up in a grid (setup, flip, a swap landing face up, a replacement): the grid's owner
  decides (`FOUND`: ``keep-action`` / ``drop-action``), even outside their turn.
* Turned up on the discard pile (a face-down grid card replaced by a drawn card): its grid's owner
  decides; the slot already holds the new card, so nothing replaces it.
* Drawn into the hand (a turn's draw, draw-three): only the drawer has seen it. The drawer declares
  it (``keep-action`` / ``drop-action``, with ``index`` for draw-three) before anything else; the
  card is then shown to everyone, and a replacement is drawn into the hand.
* The card that starts the discard pile goes to the action discard; the next card is turned.
* At the end-of-round reveal an action card in a grid is put on the action discard (keeping it
  would only add 10 points) and replaced from the draw pile.

The rules never read a card only the drawer has seen. A declaration is recorded in
``state.claims`` and checked when the card becomes public (a drawn card always does): a lie is
repaired as the rules would have gone, and reported as `DeclarationVoided` (a `MoveVoided`) naming
the seat. The drawer's own peer refuses the lie at once, from what that seat knows
(`known_action`), so only a tampered client can cause one.
"""

from __future__ import annotations

from ..core.errors import IllegalMove
from ..core.events import Event
from ..core.moves import Move
from ..grid import EMPTY
from .cards import KIND_NAMES, is_action
from .decisions import TurnedUp
from .facts import ActionFound, DeclarationVoided, StarterSetAside
from .piles import draw_top, give, place_from_draw
from .state import ActionState, Step, Task


def known_action(state: ActionState, seat: int, handle: int) -> bool | None:
    """Does `seat` know that card to be an action card? None if this state does not know it.

    The one place the rules look at a card that is not public: a seat's own knowledge of a card in
    its own hand, used only to refuse that seat's own impossible move on its own peer.
    """
    value = state.value_for(seat, handle)
    return None if value is None else is_action(value)


def claim(state: ActionState, seat: int, handle: int, action: bool) -> None:
    if state.options.in_deck:
        state.claims = (*state.claims, (handle, action, seat))


def verify_claims(state: ActionState, events: list[Event]) -> None:
    """Check the declarations about cards that are public now; repair a lie (see the module)."""
    for handle, action, seat in state.claims:
        value = state.public_value(handle)
        if is_action(value) == action:
            continue
        what = KIND_NAMES.get(value, str(value))
        said = "an action card" if action else "a playing card"
        events.append(DeclarationVoided(seat, f"seat {seat} played a {what} as {said}", handle))
        if action:  # a playing card kept or dropped as an action card: onto the discard pile
            cards = state.held[seat]
            if handle in cards:
                state.set_held(seat, tuple(h for h in cards if h != handle))
            else:
                state.action_discard = tuple(h for h in state.action_discard if h != handle)
            state.discard.append(handle)
        elif handle in state.discard:  # an action card discarded as a playing card: turned up
            state.watch = (*state.watch, (seat, -1, handle, False))
        # an action card placed in a grid is turned up there: `stars.process_watch` finds it
    state.claims = ()


def open_found(state: ActionState) -> None:
    seat, handle, slot = state.found[0]
    state.found = state.found[1:]
    state.decide(Step.FOUND, seat, TurnedUp(handle, slot))


def declare_moves(state: ActionState, seat: int) -> list[Move]:
    """The declarations open to `seat` (action-in-deck)."""
    if state.step == Step.FOUND:
        return [Move(seat, "keep-action"), Move(seat, "drop-action")]
    if state.step == Step.DRAWN:
        if known_action(state, seat, state.holding[0]) is False:
            return []
        return [Move(seat, "keep-action"), Move(seat, "drop-action")]
    out = []
    for index, handle in enumerate(state.holding):
        if known_action(state, seat, handle) is not False:
            out += [Move(seat, "keep-action", index=index), Move(seat, "drop-action", index=index)]
    return out


def holds_declarable(state: ActionState, seat: int) -> bool:
    """Does `seat` know an action card is in its hand (so it must declare it first)?"""
    return any(known_action(state, seat, h) for h in state.holding)


def declare(state: ActionState, move: Move, events: list[Event]) -> None:
    """keep-action / drop-action."""
    keep = move.kind == "keep-action"
    seat = move.seat
    if not state.options.in_deck:
        raise IllegalMove("action cards come into play this way only in the action-in-deck variant")
    if state.step == Step.FOUND:
        if move.index is not None:
            raise IllegalMove("the card turned up is the one to keep or drop: no index")
        found = state.decision_as(TurnedUp)
        handle, slot = found.handle, found.slot
        state.done()
        if slot < 0:
            state.discard.remove(handle)
        _settle(state, seat, handle, keep, events)
        if slot >= 0:
            place_from_draw(state, seat, slot, events)
        return
    if state.step == Step.DRAWN:
        if move.index not in (None, 0):
            raise IllegalMove("you hold one drawn card: no index")
        position = 0
    else:
        if move.index is None or not 0 <= move.index < len(state.holding):
            raise IllegalMove(f"index must name one of your {len(state.holding)} drawn cards (0..)")
        position = move.index
    handle = state.holding[position]
    if known_action(state, seat, handle) is False:
        raise IllegalMove("that card is not an action card")
    state.reveal_public(handle, events)
    claim(state, seat, handle, True)
    _settle(state, seat, handle, keep, events)
    new = draw_top(state, events)
    rest = list(state.holding)
    if new is None:
        del rest[position]
    else:
        rest[position] = new
        state.reveal_to(new, seat, events)
    state.holding = tuple(rest)
    if state.step == Step.DRAWN and not rest:
        state.done()  # nothing left to draw: the turn is over


def _settle(state: ActionState, seat: int, handle: int, keep: bool, events: list[Event]) -> None:
    if keep:
        give(state, seat, handle)
    else:
        state.to_action_discard(handle)
    events.append(ActionFound(seat, handle, keep))


# --- setup and the end-of-round reveal ------------------------------------------------------


def starter_task(state: ActionState, task: Task, events: list[Event]) -> None:
    """The card starting the discard pile may not be an action card: set it aside, turn the next."""
    top = state.discard[-1]
    if not is_action(state.public_value(top)):
        return
    state.discard.pop()
    state.to_action_discard(top)
    events.append(StarterSetAside(top))
    new = draw_top(state, events)
    if new is not None:
        state.discard.append(new)
        state.reveal_public(new, events)
        state.push(("starter",))


def setup_found_task(state: ActionState, task: Task, events: list[Event]) -> None:
    """Action cards turned at setup are settled in seat order, before the first player is known."""
    size = state.size
    found = list(state.found)
    for index, handle in enumerate(state.grid):
        if handle != EMPTY and state.face_up[index] and is_action(state.public_value(handle)):
            found.append((index // size, handle, index % size))
    state.found = tuple(found)


def score_found_task(state: ActionState, task: Task, events: list[Event]) -> None:
    """End-of-round reveal: action cards in grids go to the action discard and are replaced."""
    size = state.size
    again = False
    for index, handle in enumerate(state.grid):
        if handle != EMPTY and is_action(state.public_value(handle)):
            state.to_action_discard(handle)
            events.append(ActionFound(index // size, handle, False))
            new = draw_top(state, events)
            if new is None:
                state.grid[index] = EMPTY
                state.face_up[index] = False
            else:
                state.grid[index] = new
                state.reveal_public(new, events)
                again = True
    state.watch = ()
    if again:
        state.push(("score_found",))
