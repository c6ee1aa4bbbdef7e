"""SKYJO ACTION: a turn (R-A4, R-A5): its beginning, the moves a turn is made of, and their lists.

A turn is a playing-card turn (``draw`` from "deck" or "discard", then ``replace``, or ``discard``
and ``flip``), taking an action card (``take``, also a star's offer: ``pass`` declines it), or
playing or discarding a held action card (``play``, ``discard-action``). `rules` holds the loop that
runs a turn on to the next decision, and the tables that map steps and moves to the functions here.
"""

from __future__ import annotations

from ..core.errors import IllegalMove
from ..core.events import Event, TurnBegan
from ..core.moves import Move
from ..grid import EMPTY
from . import actions, in_deck
from .cards import KIND_NAMES
from .facts import ActionDiscarded, TurnSkipped
from .piles import draw_top, refill_market, take_from_action_deck, take_from_market
from .state import TURN, ActionState, Step


def begin_turn(state: ActionState, seat: int, events: list[Event]) -> None:
    state.phase = TURN
    state.turn = seat
    state.fresh = ()
    if state.options.has_market:
        refill_market(state, events)  # holes left when both action piles were empty (R-A10)
    events.append(TurnBegan(seat))
    state.push(("end_turn",))
    if _can_act(state, seat):
        state.decide(Step.CHOOSE, seat)
    else:
        events.append(TurnSkipped(seat))


def _can_act(state: ActionState, seat: int) -> bool:
    if state.has_cards(seat):
        return True  # the discard pile's top can always be taken
    if state.options.has_market and state.can_take_action():
        return True
    return state.ender is None and bool(state.held[seat])


def choose_moves(state: ActionState, seat: int) -> list[Move]:
    cards = state.has_cards(seat)
    discard = state.discard
    deck = cards and (bool(state.draw) or len(discard) > 1)  # a card to draw, maybe after a reshuffle
    top = cards and bool(discard) and state.seen[discard[-1]] == state.everyone
    market: tuple[int, ...] = ()
    action_deck = False
    if state.options.has_market:
        market = state.market
        action_deck = bool(state.action_deck or state.action_discard)
    playable: tuple[int, ...] = ()
    held = state.held[seat]
    if held and state.ender is None:
        fresh = state.fresh
        playable = tuple(i for i, h in enumerate(held) if h not in fresh)
    key = (seat, deck, top, tuple(h != EMPTY for h in market), action_deck, playable)
    moves = _CHOOSE_CACHE.get(key)
    if moves is None:
        moves = []
        if deck:
            moves.append(Move(seat, "draw", source="deck"))
        if top:
            moves.append(Move(seat, "draw", source="discard"))
        moves += [Move(seat, "take", source="market", index=i) for i, h in enumerate(market) if h != EMPTY]
        if action_deck:
            moves.append(Move(seat, "take", source="action-deck"))
        for index in playable:
            moves += [Move(seat, "play", index=index), Move(seat, "discard-action", index=index)]
        if len(_CHOOSE_CACHE) > 1024:
            _CHOOSE_CACHE.clear()
        _CHOOSE_CACHE[key] = moves
    return list(moves)


_CHOOSE_CACHE: dict[tuple[object, ...], list[Move]] = {}


def draw(state: ActionState, move: Move, events: list[Event]) -> None:
    seat = move.seat
    if not state.has_cards(seat):
        raise IllegalMove("your grid is empty: a playing card could not be placed")
    if move.source == "deck":
        handle = draw_top(state, events)
        if handle is None:
            raise IllegalMove(
                "no card is left to draw: the draw pile is empty and the discard pile has one card"
            )
        state.holding = (handle,)
        state.reveal_to(handle, seat, events)  # only the drawer sees it (R-S5)
        state.decide(Step.DRAWN, seat)
    elif move.source == "discard":
        if not state.discard or not state.is_public(state.discard[-1]):
            raise IllegalMove("the discard pile is empty")
        state.holding = (state.discard.pop(),)
        state.decide(Step.TOOK, seat)
    else:
        raise IllegalMove(f"draw from 'deck' or 'discard', not {move.source!r}")


def _check_not_action(state: ActionState, seat: int, handle: int) -> None:
    if state.options.in_deck:
        if in_deck.known_action(state, seat, handle):
            raise IllegalMove(
                "the drawn card is an action card: keep it (keep-action) or put it on the action "
                "discard (drop-action)"
            )
        in_deck.claim(state, seat, handle, False)


def replace(state: ActionState, move: Move, events: list[Event]) -> None:
    seat = move.seat
    index, slot = actions.grid_slot(state, seat, move.slot)
    handle = state.holding[0]
    if state.step == Step.DRAWN:
        _check_not_action(state, seat, handle)
    old = state.grid[index]
    state.grid[index] = handle
    state.face_up[index] = True
    state.discard.append(old)  # face up on the discard pile, even if it was face down (R-S5)
    state.reveal_public(handle, events)
    state.reveal_public(old, events)
    state.watch = (*state.watch, (seat, slot, handle, True))
    if state.options.in_deck:
        state.watch = (*state.watch, (seat, -1, old, False))
    state.holding = ()
    state.done()


def discard(state: ActionState, move: Move, events: list[Event]) -> None:
    seat = move.seat
    if not state.face_down_slots(seat):
        raise IllegalMove("you have no face-down card to turn: the drawn card must replace one")
    handle = state.holding[0]
    _check_not_action(state, seat, handle)
    state.discard.append(handle)
    state.reveal_public(handle, events)
    state.holding = ()
    state.decide(Step.FLIP, seat)


def flip(state: ActionState, move: Move, events: list[Event]) -> None:
    seat = move.seat
    index, slot = actions.grid_slot(state, seat, move.slot)
    if state.face_up[index]:
        raise IllegalMove(f"slot {move.slot} is already face up")
    state.face_up[index] = True
    handle = state.grid[index]
    state.reveal_public(handle, events)
    state.watch = (*state.watch, (seat, slot, handle, True))
    state.done()


def take(state: ActionState, move: Move, events: list[Event]) -> None:
    seat = move.seat
    if not state.options.has_market:
        raise IllegalMove(f"there is no market or action deck in the {state.options.variant} variant")
    star = state.step == Step.OFFER
    if move.source == "market":
        market = state.market
        if move.index is None or not 0 <= move.index < len(market) or market[move.index] == EMPTY:
            shown = [i for i, h in enumerate(market) if h != EMPTY]
            raise IllegalMove(f"take a market card by its index: {shown}" if shown else "the market is empty")
        state.done()
        take_from_market(state, seat, move.index, events, star)
    elif move.source == "action-deck":
        if move.index is not None:
            raise IllegalMove("only the action deck's top can be taken: give no index")
        if not state.action_deck and not state.action_discard:
            raise IllegalMove("the action deck and the action discard are empty")
        state.done()
        take_from_action_deck(state, seat, events, star)
    else:
        raise IllegalMove(f"take from 'market' or 'action-deck', not {move.source!r}")


def pass_offer(state: ActionState, move: Move, events: list[Event]) -> None:
    state.done()


def _held_card(state: ActionState, move: Move, verb: str) -> int:
    seat = move.seat
    if state.ender is not None:
        raise IllegalMove(f"the round end was triggered: no one may {verb} an action card (R-A5)")
    cards = state.held[seat]
    if move.index is None or not 0 <= move.index < len(cards):
        raise IllegalMove(
            f"you hold {len(cards)} action cards: index 0..{len(cards) - 1}"
            if cards
            else "you hold no action card"
        )
    handle = cards[move.index]
    if handle in state.fresh:
        raise IllegalMove(
            f"you took this {KIND_NAMES[state.public_value(handle)]} this turn: "
            "it can be played from your next turn (R-A4)"
        )
    state.set_held(seat, cards[: move.index] + cards[move.index + 1 :])
    return handle


def play_held(state: ActionState, move: Move, events: list[Event]) -> None:
    handle = _held_card(state, move, "play")
    state.done()
    state.push(("finish_play",))
    actions.play(state, move.seat, handle, "turn", events)


def discard_held(state: ActionState, move: Move, events: list[Event]) -> None:
    handle = _held_card(state, move, "discard")
    state.to_action_discard(handle)
    events.append(ActionDiscarded(move.seat, handle))
    state.done()


_MOVE_CACHE: dict[tuple[int, str, int | None], Move] = {}


def cached(seat: int, kind: str, slot: int | None) -> Move:
    """A move with at most a slot, built once."""
    key = (seat, kind, slot)
    move = _MOVE_CACHE.get(key)
    if move is None:
        move = _MOVE_CACHE[key] = Move(seat, kind, slot=slot)
    return move


def drawn_moves(state: ActionState, seat: int) -> list[Move]:
    if state.options.in_deck and in_deck.known_action(state, seat, state.holding[0]):
        return in_deck.declare_moves(state, seat)
    moves = [cached(seat, "replace", slot) for slot in state.card_slots(seat)]
    if state.face_down_slots(seat):
        moves.append(cached(seat, "discard", None))
    if state.options.in_deck and in_deck.known_action(state, seat, state.holding[0]) is None:
        moves += in_deck.declare_moves(state, seat)
    return moves


def draw_three_moves(state: ActionState, seat: int) -> list[Move]:
    moves = in_deck.declare_moves(state, seat) if state.options.in_deck else []
    return moves + actions.draw_three_moves(state, seat)
