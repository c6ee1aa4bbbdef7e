"""The nine action cards (R-A12) and the defense against attacks (R-A11).

Playing a card (`play`) puts it *in play*; it resolves, through decisions of its player where it
offers choices, then goes to the action discard (`finish_play_task`). Cards played through another
(replay-discard, steal-and-play) are in play on top of it and are discarded first, so the outer card
ends on top of the action discard.

=====================  ===========  ==============================================================
card                   decision     move and fields
=====================  ===========  ==============================================================
remove-from-each       PICK         ``pick`` target (the next seat clockwise), slot | index
swap-own               SWAP         ``swap`` slot, slot2, face_up [lands in slot, lands in slot2]
extra-turns            none         two more complete turns after this one
draw-three             DRAW3        ``keep`` index, slot, [order] | ``keep-none`` [order], then flip
peek-line              PEEK         ``peek`` target, line, index
defense                none         one more complete turn after this one
replay-discard         REPLAY       ``replay`` index (in the action discard, 0 = bottom)
steal-and-play         STEAL        ``steal`` target, index (in the target's held cards)
swap-with-others       EXCHANGE     ``exchange`` slot, target, slot2, face_up [lands in yours,
                                    lands in theirs], twice
=====================  ===========  ==============================================================

A card that has nothing to act on (replay-discard on an empty pile, steal-and-play when no opponent
holds a card, swap-own with fewer than two cards, ...) resolves without effect.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import permutations

from ..core.errors import IllegalMove
from ..core.events import Event
from ..core.moves import Move
from ..grid import EMPTY
from .cards import (
    DEFENSE,
    DRAW_THREE,
    EXTRA_TURNS,
    PEEK_LINE,
    REMOVE_FROM_EACH,
    REPLAY_DISCARD,
    STEAL_AND_PLAY,
    SWAP_OWN,
    SWAP_WITH_OTHERS,
)
from .decisions import Exchange, RemoveFromEach
from .facts import (
    ActionPlayed,
    Blocked,
    Buried,
    Exchanged,
    ExtraTurns,
    NoEffect,
    Peeked,
    Swapped,
)
from .in_deck import claim, holds_declarable
from .piles import draw_top, place_from_draw
from .state import ActionState, Step, Task

FACES = ((True, True), (True, False), (False, True), (False, False))


def play(state: ActionState, seat: int, handle: int, via: str, events: list[Event]) -> None:
    """`seat` plays `handle` at once (its turn's card, or one taken by replay-discard or steal)."""
    state.in_play = (*state.in_play, handle)
    events.append(ActionPlayed(seat, handle, via))
    _BEGIN[state.public_value(handle)](state, seat, handle, events)


def finish_play_task(state: ActionState, task: Task, events: list[Event]) -> None:
    """Played cards go to the action discard once resolved, the innermost first (R-A12)."""
    state.action_discard = (*state.action_discard, *reversed(state.in_play))
    state.in_play = ()


def block(state: ActionState, seat: int, attacker: int, events: list[Event]) -> bool:
    """A held defense blocks the attack aimed at `seat` and goes to the action discard (R-A11)."""
    position = state.holds(seat, DEFENSE)
    if position is None:
        return False
    cards = state.held[seat]
    handle = cards[position]
    state.set_held(seat, cards[:position] + cards[position + 1 :])
    state.to_action_discard(handle)
    events.append(Blocked(seat, attacker, handle))
    return True


def _no_effect(state: ActionState, seat: int, handle: int, reason: str, events: list[Event]) -> None:
    events.append(NoEffect(seat, handle, reason))


def grid_slot(state: ActionState, seat: int, slot: int | None, what: str = "slot") -> tuple[int, int]:
    """(grid index, slot) of a slot of `seat` that holds a card; IllegalMove for any other slot."""
    size = state.size
    if slot is None or not 0 <= slot < size:
        raise IllegalMove(f"there is no {what} {slot} (slots are 0..{size - 1})")
    index = seat * size + slot
    if state.grid[index] == EMPTY:
        raise IllegalMove(f"{what} {slot} of seat {seat} is empty (its line was removed)")
    return index, slot


def _index(move: Move, count: int, what: str) -> int:
    if move.index is None or not 0 <= move.index < count:
        raise IllegalMove(f"{what}: index 0..{count - 1}" if count else f"{what}: there is none")
    return move.index


def _seat(state: ActionState, seat: int | None) -> int:
    if seat is None or not 0 <= seat < state.players:
        raise IllegalMove(f"there is no seat {seat} at this table")
    return seat


def _faces(move: Move) -> tuple[bool, bool]:
    if len(move.face_up) != 2:
        raise IllegalMove("face_up must say, for each of the two cards, whether it lands face up")
    return move.face_up[0], move.face_up[1]


def _land(state: ActionState, seat: int, slot: int, handle: int, up: bool, events: list[Event]) -> None:
    """A swapped card lands face up or down; face up, everyone sees it (no star wakes, R-A6)."""
    index = seat * state.size + slot
    state.grid[index] = handle
    state.face_up[index] = up
    if up:
        state.reveal_public(handle, events)
        state.watch = (*state.watch, (seat, slot, handle, False))


# --- 1. remove-from-each ----------------------------------------------------------------------


def _begin_remove(state: ActionState, seat: int, handle: int, events: list[Event]) -> None:
    victims = tuple((seat + k) % state.players for k in range(1, state.players))
    state.push(("remove_next", seat, victims))


def remove_next_task(state: ActionState, task: Task, events: list[Event]) -> None:
    _, seat, victims = task
    while victims:
        victim, victims = victims[0], victims[1:]
        if block(state, victim, seat, events):
            continue
        if state.card_slots(victim) or state.held[victim]:
            state.decide(Step.PICK, seat, RemoveFromEach(victim, victims))
            return


def pick_moves(state: ActionState, seat: int) -> list[Move]:
    victim = state.decision_as(RemoveFromEach).victim
    slots = tuple(state.card_slots(victim))
    held = len(state.held[victim])
    key = ("pick", seat, victim, slots, held)
    moves = _LISTS.get(key)
    if moves is None:
        moves = [Move(seat, "pick", target=victim, slot=s) for s in slots]
        moves += [Move(seat, "pick", target=victim, index=i) for i in range(held)]
        _remember(key, moves)
    return list(moves)


def pick(state: ActionState, move: Move, events: list[Event]) -> None:
    open_ = state.decision_as(RemoveFromEach)
    victim, rest = open_.victim, open_.rest
    if move.target != victim:
        raise IllegalMove(f"remove-from-each goes clockwise: pick a card of seat {victim} now")
    if (move.slot is None) == (move.index is None):
        raise IllegalMove("pick either a grid card (slot) or a held action card (index)")
    if move.slot is not None:
        index, slot = grid_slot(state, victim, move.slot)
        handle = state.grid[index]
        state.done()
        state.discard.insert(0, handle)  # under the discard pile, unrevealed (R-A12)
        events.append(Buried(victim, slot, handle))
        place_from_draw(state, victim, slot, events)  # they refill the gap face up
    else:
        cards = state.held[victim]
        position = _index(move, len(cards), f"seat {victim} holds {len(cards)} action cards")
        handle = cards[position]
        state.set_held(victim, cards[:position] + cards[position + 1 :])
        state.to_action_discard(handle, under=True)
        events.append(Buried(victim, None, handle))
        state.done()
    state.push(("remove_next", move.seat, rest))


# --- 2. swap-own ------------------------------------------------------------------------------


def _begin_swap_own(state: ActionState, seat: int, handle: int, events: list[Event]) -> None:
    if len(state.card_slots(seat)) < 2:
        _no_effect(state, seat, handle, "fewer than two cards in the grid", events)
        return
    state.decide(Step.SWAP, seat)


def swap_moves(state: ActionState, seat: int) -> list[Move]:
    slots = tuple(state.card_slots(seat))
    key = ("swap", seat, slots)
    moves = _LISTS.get(key)
    if moves is None:
        moves = [
            Move(seat, "swap", slot=a, slot2=b, face_up=faces)
            for i, a in enumerate(slots)
            for b in slots[i + 1 :]
            for faces in FACES
        ]
        _remember(key, moves)
    return list(moves)


def swap(state: ActionState, move: Move, events: list[Event]) -> None:
    seat = move.seat
    first, slot = grid_slot(state, seat, move.slot)
    second, slot2 = grid_slot(state, seat, move.slot2, "slot2")
    if first == second:
        raise IllegalMove("swap two different cards")
    up_first, up_second = _faces(move)
    a, b = state.grid[first], state.grid[second]
    state.done()
    _land(state, seat, slot, b, up_first, events)
    _land(state, seat, slot2, a, up_second, events)
    events.append(Swapped(seat, slot, slot2))


# --- 3. extra-turns and 6. defense played ----------------------------------------------------


def _begin_extra(state: ActionState, seat: int, handle: int, events: list[Event]) -> None:
    _grant(state, seat, 2, events)


def _begin_defense(state: ActionState, seat: int, handle: int, events: list[Event]) -> None:
    _grant(state, seat, 1, events)


def _grant(state: ActionState, seat: int, count: int, events: list[Event]) -> None:
    state.extra += count
    events.append(ExtraTurns(seat, count, state.extra))


# --- 4. draw-three ----------------------------------------------------------------------------


def _begin_draw_three(state: ActionState, seat: int, handle: int, events: list[Event]) -> None:
    cards = []
    for _ in range(3):
        top = draw_top(state, events)
        if top is None:
            break
        cards.append(top)
        state.reveal_to(top, seat, events)  # the drawer alone sees them (R-A12)
    if not cards:
        _no_effect(state, seat, handle, "no playing card left to draw", events)
        return
    state.holding = tuple(cards)
    state.decide(Step.DRAW3, seat)


def draw_three_moves(state: ActionState, seat: int) -> list[Move]:
    if state.options.in_deck and holds_declarable(state, seat):
        return []  # declare the action cards first (in_deck.declare_moves)
    count = len(state.holding)
    slots = tuple(state.card_slots(seat))
    none = _may_keep_none(state, seat)
    key = ("keep", seat, count, slots, none)
    moves = _LISTS.get(key)
    if moves is None:
        held = range(count)
        moves = []
        for keep in held:
            orders = list(permutations([i for i in held if i != keep]))
            for slot in slots:
                for order in orders:
                    moves.append(Move(seat, "keep", index=keep, slot=slot, order=order))
        if none:
            moves += [Move(seat, "keep-none", order=order) for order in permutations(held)]
        _remember(key, moves)
    return list(moves)


def _may_keep_none(state: ActionState, seat: int) -> bool:
    """Keeping none means flipping a face-down card; with none left, one card must be kept
    (unless the grid is empty: then nothing can be kept)."""
    return bool(state.face_down_slots(seat)) or not state.card_slots(seat)


def _order(state: ActionState, move: Move, indices: list[int]) -> tuple[int, ...]:
    order = move.order or tuple(indices)
    if sorted(order) != indices:
        raise IllegalMove(f"order must list the cards going to the discard pile once each: {indices}")
    return order


def _check_no_hidden_action(state: ActionState, seat: int) -> None:
    if state.options.in_deck and holds_declarable(state, seat):
        raise IllegalMove("you drew an action card: keep it (keep-action) or drop it (drop-action) first")


def keep(state: ActionState, move: Move, events: list[Event]) -> None:
    seat = move.seat
    held = list(range(len(state.holding)))
    position = _index(move, len(held), f"index must name one of the {len(held)} cards drawn")
    index, slot = grid_slot(state, seat, move.slot)
    order = _order(state, move, [i for i in held if i != position])
    _check_no_hidden_action(state, seat)
    cards = state.holding
    _to_discard(state, seat, [cards[i] for i in order], events)
    kept = cards[position]
    claim(state, seat, kept, False)
    old = state.grid[index]
    state.grid[index] = kept
    state.face_up[index] = True
    state.discard.append(old)  # the replaced card last, on top (as in a turn's replace)
    state.reveal_public(kept, events)
    state.reveal_public(old, events)
    state.watch = (*state.watch, (seat, slot, kept, True), (seat, -1, old, False))
    state.holding = ()
    state.done()


def keep_none(state: ActionState, move: Move, events: list[Event]) -> None:
    seat = move.seat
    if not _may_keep_none(state, seat):
        raise IllegalMove("you have no face-down card to turn: keep one of the cards")
    order = _order(state, move, list(range(len(state.holding))))
    _check_no_hidden_action(state, seat)
    _to_discard(state, seat, [state.holding[i] for i in order], events)
    state.holding = ()
    if state.face_down_slots(seat):
        state.decide(Step.FLIP, seat)
    else:
        state.done()


def _to_discard(state: ActionState, seat: int, cards: list[int], events: list[Event]) -> None:
    for handle in cards:
        claim(state, seat, handle, False)
        state.discard.append(handle)
        state.reveal_public(handle, events)


# --- 5. peek-line -----------------------------------------------------------------------------


def _begin_peek(state: ActionState, seat: int, handle: int, events: list[Event]) -> None:
    state.decide(Step.PEEK, seat)


def peek_moves(state: ActionState, seat: int) -> list[Move]:
    key = ("peek", seat, state.players, state.shape)
    moves = _LISTS.get(key)
    if moves is None:
        moves = [
            Move(seat, "peek", target=target, line=line.kind, index=line.index)
            for target in range(state.players)
            for line in state.shape.lines(True)
        ]
        _remember(key, moves)
    return list(moves)


def peek(state: ActionState, move: Move, events: list[Event]) -> None:
    seat = move.seat
    target = _seat(state, move.target)
    line = state.shape.line(move.line or "", move.index if move.index is not None else -1)
    if line is None:
        raise IllegalMove(
            f"there is no {move.line} {move.index} (columns 0..{state.shape.cols - 1}, "
            f"rows 0..{state.shape.rows - 1})"
        )
    base = target * state.size
    hidden = tuple(
        state.grid[base + s]
        for s in line.slots
        if state.grid[base + s] != EMPTY and not state.face_up[base + s]
    )
    state.done()
    for handle in hidden:
        state.reveal_to(handle, seat, events)  # the peeker alone sees them (R-A12)
    events.append(Peeked(seat, target, line.kind, line.index, hidden))


# --- 7. replay-discard ------------------------------------------------------------------------


def _begin_replay(state: ActionState, seat: int, handle: int, events: list[Event]) -> None:
    if not state.action_discard:
        _no_effect(state, seat, handle, "the action discard is empty", events)
        return
    state.decide(Step.REPLAY, seat)


def replay_moves(state: ActionState, seat: int) -> list[Move]:
    return [Move(seat, "replay", index=i) for i in range(len(state.action_discard))]


def replay(state: ActionState, move: Move, events: list[Event]) -> None:
    pile = state.action_discard
    position = _index(move, len(pile), "a card of the action discard (0 = bottom)")
    handle = pile[position]
    state.action_discard = pile[:position] + pile[position + 1 :]
    state.done()
    play(state, move.seat, handle, "replay", events)


# --- 8. steal-and-play ------------------------------------------------------------------------


def _begin_steal(state: ActionState, seat: int, handle: int, events: list[Event]) -> None:
    if not any(state.held[o] for o in range(state.players) if o != seat):
        _no_effect(state, seat, handle, "no opponent holds an action card", events)
        return
    state.decide(Step.STEAL, seat)


def steal_moves(state: ActionState, seat: int) -> list[Move]:
    return [
        Move(seat, "steal", target=o, index=i)
        for o in range(state.players)
        if o != seat
        for i in range(len(state.held[o]))
    ]


def steal(state: ActionState, move: Move, events: list[Event]) -> None:
    seat = move.seat
    target = _seat(state, move.target)
    if target == seat:
        raise IllegalMove("steal from another player")
    cards = state.held[target]
    position = _index(move, len(cards), f"seat {target} holds {len(cards)} action cards")
    state.done()
    if block(state, target, seat, events):
        return
    handle = cards[position]
    state.set_held(target, cards[:position] + cards[position + 1 :])
    play(state, seat, handle, "steal", events)


# --- 9. swap-with-others ----------------------------------------------------------------------


def _begin_exchange(state: ActionState, seat: int, handle: int, events: list[Event]) -> None:
    if not _can_exchange(state, seat):
        _no_effect(state, seat, handle, "no card to exchange", events)
        return
    state.decide(Step.EXCHANGE, seat, Exchange(2, (), ()))


def _can_exchange(state: ActionState, seat: int) -> bool:
    return bool(state.card_slots(seat)) and any(
        state.card_slots(o) for o in range(state.players) if o != seat
    )


def exchange_moves(state: ActionState, seat: int) -> list[Move]:
    mine = tuple(state.card_slots(seat))
    moves: list[Move] = []
    for other in range(state.players):
        if other == seat:
            continue
        theirs = tuple(state.card_slots(other))
        key = ("exchange", seat, mine, other, theirs)
        part = _LISTS.get(key)
        if part is None:
            part = [_exchange_move(seat, a, other, b, faces) for b in theirs for a in mine for faces in FACES]
            _remember(key, part)
        moves += part
    return moves


_EXCHANGES: dict[tuple[int, int, int, int, tuple[bool, bool]], Move] = {}


def _exchange_move(seat: int, a: int, o: int, b: int, faces: tuple[bool, bool]) -> Move:
    key = (seat, a, o, b, faces)
    move = _EXCHANGES.get(key)
    if move is None:
        move = _EXCHANGES[key] = Move(seat, "exchange", slot=a, target=o, slot2=b, face_up=faces)
    return move


# Long move lists depend only on which slots hold cards: built once, copied out.
_LISTS: dict[tuple[object, ...], list[Move]] = {}


def _remember(key: tuple[object, ...], moves: list[Move]) -> None:
    if len(_LISTS) > 384:
        _LISTS.clear()
    _LISTS[key] = moves


def exchange(state: ActionState, move: Move, events: list[Event]) -> None:
    seat = move.seat
    open_ = state.decision_as(Exchange)
    left, attacked, immune = open_.left, open_.attacked, open_.immune
    target = _seat(state, move.target)
    if target == seat:
        raise IllegalMove("exchange with another player (swap-own swaps your own cards)")
    mine, slot = grid_slot(state, seat, move.slot)
    theirs, slot2 = grid_slot(state, target, move.slot2, "slot2")
    up_mine, up_theirs = _faces(move)
    state.done()
    if target not in attacked:  # one attack per opponent involved, blocked as a whole (R-A11)
        attacked = (*attacked, target)
        if block(state, target, seat, events):
            immune = (*immune, target)
    blocked = target in immune
    if not blocked:
        a, b = state.grid[mine], state.grid[theirs]
        _land(state, seat, slot, b, up_mine, events)
        _land(state, target, slot2, a, up_theirs, events)
    events.append(Exchanged(seat, slot, target, slot2, blocked))
    if left > 1 and _can_exchange(state, seat):
        state.decide(Step.EXCHANGE, seat, Exchange(left - 1, attacked, immune))


_BEGIN: dict[int, Callable[[ActionState, int, int, list[Event]], None]] = {
    REMOVE_FROM_EACH: _begin_remove,
    SWAP_OWN: _begin_swap_own,
    EXTRA_TURNS: _begin_extra,
    DRAW_THREE: _begin_draw_three,
    PEEK_LINE: _begin_peek,
    DEFENSE: _begin_defense,
    REPLAY_DISCARD: _begin_replay,
    STEAL_AND_PLAY: _begin_steal,
    SWAP_WITH_OTHERS: _begin_exchange,
}
