"""SKIP-BO: the deal, a turn, the building piles, the end of a round, teams (R-B1 .. R-B7).

The flow of a round, over `state.phase` (setup, turn, game_over) and the continuations of
`_RESUME` (each runs once the requests before it are answered, see `skyjo_p2p.engine`)::

    start_round: [RandomRequest "dealer" in round 1], DealRequest, every stock top shown (R-B2)
      └─ dealt ─▶ the player after the dealer begins a turn
    a turn: draw up to 5 (only the drawer sees them; the set-aside piles are shuffled into a new
            draw pile when it runs out, R-B4) ─refill─▶ the player moves:
      play (hand, stock, discard top; a partner's in teams) ─played─▶ the card is shown; a pile at
            12 is set aside; an empty stock wins the round at once (R-B5, R-B6); an empty hand
            draws 5 more (R-B3); the player moves again
      discard (a hand card onto one of the player's 4 discard piles) ─discarded─▶ next turn
      end (only with an empty hand: nothing to draw, nothing to discard) ─▶ next turn
    next turn: unless the round is blocked (nothing can ever move again: see `blocked_reason`)
    round end: score (R-B5, R-B6) ─▶ game over, or the next round (the deal passes to the left)

A hand card's value is private to its owner until it is played or discarded; a play is judged
before it is placed whenever the state knows the card (the player's own engine always does), and
otherwise once the public reveal arrives (see `_play`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.errors import IllegalMove, MalformedMove
from ..core.events import (
    DealRequest,
    Event,
    GameOver,
    RandomRequest,
    Request,
    RevealRequest,
    RoundEnded,
    TurnBegan,
)
from ..core.moves import Move, MoveSchema
from .cards import BUILDING_PILES, COMPOSITION, DECK, DISCARD_PILES, HAND_SIZE, TOP, VALUES, WILD
from .options import SkipBoOptions
from .state import (
    DISCARD,
    GAME_OVER,
    HAND,
    PARTNER_DISCARD,
    PARTNER_STOCK,
    SETUP,
    SOURCES,
    STOCK,
    TURN,
    Discarded,
    Drew,
    PileCompleted,
    Placing,
    Played,
    PlayReturned,
    RoundBlocked,
    SkipBoState,
)

ROUND_BONUS = 25
"""Points for winning a round, plus `PER_STOCK_CARD` per card left in the opponents' stocks (R-B5)."""
PER_STOCK_CARD = 5

# The fields a play takes besides "from" and "target", by source.
_PLAY_FIELDS = {
    HAND: frozenset({"index"}),
    STOCK: frozenset(),
    DISCARD: frozenset({"pile"}),
    PARTNER_STOCK: frozenset(),
    PARTNER_DISCARD: frozenset({"pile"}),
}


@dataclass(frozen=True)
class SkipBoSchema(MoveSchema):
    """The move kinds, plus the fields each source of a play needs (a shape error, not a rule)."""

    def check(self, move: Move) -> None:
        if _BUILT.get(id(move)) is move:  # one of the engine's own move records: checked once
            return
        super().check(move)
        if move.kind != "play":
            return
        source = move.source
        need = _PLAY_FIELDS.get(source or "")
        if need is None:
            raise MalformedMove(f"play from {', '.join(repr(s) for s in SOURCES)}, not {source!r}")
        present = move.fields() - {"from", "target"}
        missing = need - present
        if missing:
            raise MalformedMove(f"a play from {source!r} needs {', '.join(sorted(missing))}")
        extra = present - need
        if extra:
            raise MalformedMove(f"a play from {source!r} does not take {', '.join(sorted(extra))}")


SCHEMA = SkipBoSchema(
    required={
        "play": frozenset({"from", "target"}),
        "discard": frozenset({"index", "pile"}),
        "end": frozenset(),
    },
    optional={"play": frozenset({"index", "pile"})},
)


class SkipBoRules:
    """The rules object the engine finds (`skyjo_p2p.registry`) under "skip-bo"."""

    name = "skip-bo"
    schema: MoveSchema = SCHEMA
    state_type = SkipBoState

    def new_state(self, players: int, options: Mapping[str, Any]) -> tuple[SkipBoState, list[Event]]:
        state = SkipBoState(players, SkipBoOptions.parse(options, players))
        events: list[Event] = []
        start_round(state, events)
        return state, events

    def composition(self, state: SkipBoState, deck: str) -> Sequence[int]:
        return COMPOSITION

    def valid_value(self, state: SkipBoState, deck: str, value: int) -> bool:
        return value in VALUES

    def deciders(self, state: SkipBoState) -> tuple[int, ...]:
        if state.phase == TURN and state.turn is not None:
            return (state.turn,)
        return ()

    def legal_moves(self, state: SkipBoState, seat: int) -> list[Move]:
        """Every move `seat` may make. A hand card this state does not know (another player's, on
        a peer) may fit any pile: its plays are all listed, the reveal will judge them."""
        if state.phase != TURN or seat != state.turn:
            return []
        table = _move_table(seat)
        moves: list[Move] = []
        needed = [len(pile) + 1 for pile in state.building]
        values = state.values
        hand = state.hands[seat]
        for index, handle in enumerate(hand):
            value = values[handle]
            plays = table.hand[index]
            if value is None or value == WILD:
                moves.extend(plays)
            else:
                moves.extend(plays[t] for t in _PILES if needed[t] == value)
        owners = [(seat, 0)]
        mate = state.partner(seat)
        if mate is not None:
            owners.append((mate, 1))
        for owner, whose in owners:
            stock = state.stocks[owner]
            if stock:
                value = state.public_value(stock[-1])
                plays = table.stock[whose]
                if value == WILD:
                    moves.extend(plays)
                else:
                    moves.extend(plays[t] for t in _PILES if needed[t] == value)
            base = DISCARD_PILES * owner
            for pile in range(DISCARD_PILES):
                cards = state.discards[base + pile]
                if cards:
                    value = state.public_value(cards[-1])
                    plays = table.discard_top[whose][pile]
                    if value == WILD:
                        moves.extend(plays)
                    else:
                        moves.extend(plays[t] for t in _PILES if needed[t] == value)
        if hand:
            no_wilds = not state.options.discard_wilds
            for index, handle in enumerate(hand):
                if not (no_wilds and values[handle] == WILD):
                    moves.extend(table.discard[index])
        else:
            moves.append(table.end)
        return moves

    def apply_move_into(self, state: SkipBoState, move: Move, events: list[Event]) -> None:
        _HANDLERS[move.kind](state, move, events)

    def resume_into(self, state: SkipBoState, events: list[Event]) -> None:
        step = state.resume
        state.resume = ""
        _RESUME[step](state, events)


_PILES = range(BUILDING_PILES)


@dataclass(frozen=True)
class _MoveTable:
    """Every move one seat can ever make, built once: `hand[index][target]`,
    `stock[whose][target]` and `discard_top[whose][pile][target]` (whose: 0 own, 1 partner's),
    `discard[index][pile]`, `end`."""

    hand: tuple[tuple[Move, ...], ...]
    stock: tuple[tuple[Move, ...], ...]
    discard_top: tuple[tuple[tuple[Move, ...], ...], ...]
    discard: tuple[tuple[Move, ...], ...]
    end: Move


_MOVE_TABLES: dict[int, _MoveTable] = {}
_BUILT: dict[int, Move] = {}
"""The moves of the tables by id: valid by construction, so the schema need not check them again."""


def _move_table(seat: int) -> _MoveTable:
    table = _MOVE_TABLES.get(seat)
    if table is None:
        table = _MoveTable(
            hand=tuple(
                tuple(Move(seat, "play", source=HAND, target=t, index=i) for t in _PILES)
                for i in range(HAND_SIZE)
            ),
            stock=tuple(
                tuple(Move(seat, "play", source=source, target=t) for t in _PILES)
                for source in (STOCK, PARTNER_STOCK)
            ),
            discard_top=tuple(
                tuple(
                    tuple(Move(seat, "play", source=source, target=t, pile=p) for t in _PILES)
                    for p in range(DISCARD_PILES)
                )
                for source in (DISCARD, PARTNER_DISCARD)
            ),
            discard=tuple(
                tuple(Move(seat, "discard", index=i, pile=p) for p in range(DISCARD_PILES))
                for i in range(HAND_SIZE)
            ),
            end=Move(seat, "end"),
        )
        moves = [table.end]
        for group in (table.hand, table.stock, table.discard):
            for row in group:
                moves.extend(row)
        for whose in table.discard_top:
            for row in whose:
                moves.extend(row)
        for move in moves:
            SCHEMA.check(move)
            _BUILT[id(move)] = move
        _MOVE_TABLES[seat] = table
    return table


# --- a round: the deal (R-B1, R-B2) -----------------------------------------------------------


def start_round(state: SkipBoState, events: list[Event]) -> None:
    """Deal a round (R-B2): from the top of the deck, seat 0's stock pile (its first card on top),
    then seat 1's, ...; the rest is the draw pile. Every stock top is shown to everyone.
    Round 1's dealer is a joint random choice; afterwards the deal passes to the left."""
    state.round += 1
    state.reset_handles()
    players = state.players
    total = len(COMPOSITION)
    first = state.allocate(DECK, total)
    size = state.options.stock_size
    state.stocks = [
        tuple(range(first + (s + 1) * size - 1, first + s * size - 1, -1)) for s in range(players)
    ]
    start = first + players * size
    state.draw = list(range(first + total - 1, start - 1, -1))  # the top is the last item
    state.hands = [()] * players
    state.discards = [()] * (DISCARD_PILES * players)
    state.building = [()] * BUILDING_PILES
    state.set_aside = []
    state.phase = SETUP
    state.turn = None
    state.placing = None
    state.idle = 0
    state.active = False
    requests: list[Request] = []
    if state.dealer is None:
        requests.append(RandomRequest("dealer", players))
    requests.append(DealRequest(DECK, first, total))
    requests.extend(RevealRequest(stock[-1], None) for stock in state.stocks)
    state.ask(events, requests)
    state.resume = "dealt"


def _after_deal(state: SkipBoState, events: list[Event]) -> None:
    if state.dealer is None:
        assert state.random_value is not None
        state.dealer = state.random_value
        state.random_value = None
    _begin_turn(state, (state.dealer + 1) % state.players, events)  # left of the dealer (R-B2)


def _begin_turn(state: SkipBoState, seat: int, events: list[Event]) -> None:
    state.phase = TURN
    state.turn = seat
    state.active = False
    events.append(TurnBegan(seat))
    _refill(state, events)


def _refill(state: SkipBoState, events: list[Event]) -> None:
    """The player to move draws until they hold 5 (R-B3); only they see the cards.

    When the draw pile runs out, the set-aside building piles are shuffled jointly into a new
    draw pile (new handles: nobody knows their order) and the drawing goes on; with nothing left
    to draw, the player goes on with what they hold (R-B4).
    """
    seat = state.turn
    assert seat is not None
    hand = state.hands[seat]
    need = HAND_SIZE - len(hand)
    if need <= 0:
        return
    draw = state.draw
    take = min(need, len(draw))
    requests: list[Request] = []
    if take:
        drawn = draw[-take:]
        drawn.reverse()  # top first
        del draw[-take:]
        requests.extend(RevealRequest(handle, seat) for handle in drawn)  # fresh cards: unknown
        state.hands[seat] = hand + tuple(drawn)
        state.active = True
        events.append(Drew(seat, take))
    if take < need and state.set_aside:
        old = tuple(state.set_aside)
        state.set_aside = []
        state.ask(events, requests)  # the cards already drawn are shown first
        requests = []
        state.draw = state.reshuffle(DECK, old, events)
        state.resume = "refill"  # draw the rest once the new pile exists
    state.ask(events, requests)


# --- a turn: plays, the discard, the end (R-B3, R-B6, R-B7) ----------------------------------


def _require_turn(state: SkipBoState, move: Move) -> None:
    if state.phase != TURN:
        raise IllegalMove("the game is over" if state.phase == GAME_OVER else "the cards are being dealt")
    if move.seat != state.turn:  # out-of-turn play is refused (R-B7)
        raise IllegalMove(f"it is seat {state.turn}'s turn, not seat {move.seat}'s")


def _check_target(target: int | None) -> int:
    if target is None or not 0 <= target < BUILDING_PILES:
        raise IllegalMove(f"there is no building pile {target} (building piles are 0..{BUILDING_PILES - 1})")
    return target


def _check_discard_pile(pile: int | None) -> int:
    if pile is None or not 0 <= pile < DISCARD_PILES:
        raise IllegalMove(f"there is no discard pile {pile} (discard piles are 0..{DISCARD_PILES - 1})")
    return pile


def _hand_index(hand: tuple[int, ...], index: int | None) -> int:
    if not hand:
        raise IllegalMove("you hold no card")
    if index is None or not 0 <= index < len(hand):
        raise IllegalMove(
            f"there is no hand card {index}: you hold {len(hand)} card(s), numbered 0..{len(hand) - 1}"
        )
    return index


def _misfit(what: str, pile: int, needed: int) -> str:
    start = " (an empty pile starts with a 1 or a SKIP-BO)" if needed == 1 else ""
    return f"{what}, but building pile {pile} needs a {needed}{start}"


def _source_owner(state: SkipBoState, seat: int, source: str) -> tuple[int, str]:
    """The seat whose pile a play takes from, and how to name it in a message."""
    if source in (PARTNER_STOCK, PARTNER_DISCARD):
        mate = state.partner(seat)
        if mate is None:
            raise IllegalMove("only a team game (option teams) lets you play from a partner's piles")
        return mate, "your partner's"
    return seat, "your"


def _play(state: SkipBoState, move: Move, events: list[Event]) -> None:
    """Put a card on a building pile (R-B3): a hand card, the stock top, a discard-pile top;
    in a team game also the partner's stock top and discard tops (R-B6).

    A hand card is private: the player's own engine (and an omniscient one) knows it and refuses
    a card that does not fit here. Another peer's state cannot judge it before the public reveal
    the play asks for; `_after_play` does, and sends a card that does not fit back to the hand.
    Honest peers therefore never disagree; the check reads the private value only to refuse.
    """
    _require_turn(state, move)
    seat = move.seat
    target = _check_target(move.target)
    needed = len(state.building[target]) + 1
    source = move.source or ""
    requests: list[Request] = []
    index = -1
    if source == HAND:
        hand = state.hands[seat]
        index = _hand_index(hand, move.index)
        handle = hand[index]
        known = state.values[handle]
        if known is not None and known != WILD and known != needed:
            raise IllegalMove(_misfit(f"hand card {index} is a {known}", target, needed))
        state.hands[seat] = hand[:index] + hand[index + 1 :]
        owner = seat
        state.request_reveal(handle, None, requests)  # a played card is public
    elif source in (STOCK, PARTNER_STOCK):
        owner, whose = _source_owner(state, seat, source)
        stock = state.stocks[owner]
        if not stock:
            raise IllegalMove(f"{whose} stock pile is empty")
        handle = stock[-1]
        value = state.public_value(handle)
        if value != WILD and value != needed:
            raise IllegalMove(_misfit(f"{whose} stock top is a {value}", target, needed))
        rest = stock[:-1]
        state.stocks[owner] = rest
        if rest:
            state.request_reveal(rest[-1], None, requests)  # the next stock card turns up (R-B3)
    else:  # DISCARD or PARTNER_DISCARD: the schema admits no other source
        owner, whose = _source_owner(state, seat, source)
        pile = _check_discard_pile(move.pile)
        key = DISCARD_PILES * owner + pile
        cards = state.discards[key]
        if not cards:
            raise IllegalMove(f"{whose} discard pile {pile} is empty")
        handle = cards[-1]
        value = state.public_value(handle)
        if value != WILD and value != needed:
            raise IllegalMove(_misfit(f"the top of {whose} discard pile {pile} is a {value}", target, needed))
        state.discards[key] = cards[:-1]
    state.building[target] = state.building[target] + (handle,)
    state.placing = Placing(source, seat, owner, target, handle, index)
    state.ask(events, requests)
    state.resume = "played"


def _after_play(state: SkipBoState, events: list[Event]) -> None:
    placing = state.placing
    assert placing is not None
    state.placing = None
    seat, target = placing.seat, placing.pile
    pile = state.building[target]
    value = state.public_value(placing.handle)
    as_value = len(pile)
    if value != WILD and value != as_value:  # a hand card no honest engine would have played
        state.building[target] = pile[:-1]
        hand = state.hands[seat]
        state.hands[seat] = (*hand[: placing.index], placing.handle, *hand[placing.index :])
        reason = _misfit(f"the card is a {value}", target, as_value)
        events.append(PlayReturned(seat=seat, reason=reason, value=value))
        return
    state.active = True
    events.append(Played(seat, placing.kind, placing.owner, target, value, as_value))
    if as_value == TOP:  # a complete pile is set aside (R-B4)
        state.set_aside.extend(pile)
        state.building[target] = ()
        events.append(PileCompleted(target))
    if placing.kind in (STOCK, PARTNER_STOCK) and not state.stocks[placing.owner]:
        team = state.team(placing.owner)
        if all(not state.stocks[s] for s in team):  # the round is won at once (R-B5, R-B6)
            end_round(state, events, seat)
            return
    if not state.hands[seat]:
        _refill(state, events)  # an empty hand draws 5 more (R-B3)


def _discard(state: SkipBoState, move: Move, events: list[Event]) -> None:
    """End the turn by putting a hand card on one of your own discard piles (R-B3, R-B6)."""
    _require_turn(state, move)
    seat = move.seat
    pile = _check_discard_pile(move.pile)
    hand = state.hands[seat]
    index = _hand_index(hand, move.index)
    handle = hand[index]
    if not state.options.discard_wilds and state.values[handle] == WILD:
        raise IllegalMove("a SKIP-BO wild may not go on a discard pile (option discard_wilds is off)")
    state.hands[seat] = hand[:index] + hand[index + 1 :]
    key = DISCARD_PILES * seat + pile
    state.discards[key] = state.discards[key] + (handle,)
    requests: list[Request] = []
    state.request_reveal(handle, None, requests)  # discard piles are face up
    state.placing = Placing("discard", seat, seat, pile, handle, index)
    state.ask(events, requests)
    state.resume = "discarded"


def _after_discard(state: SkipBoState, events: list[Event]) -> None:
    placing = state.placing
    assert placing is not None
    state.placing = None
    seat, pile = placing.seat, placing.pile
    value = state.public_value(placing.handle)
    if value == WILD and not state.options.discard_wilds:  # as in _after_play: a tampered move
        key = DISCARD_PILES * seat + pile
        state.discards[key] = state.discards[key][:-1]
        hand = state.hands[seat]
        state.hands[seat] = (*hand[: placing.index], placing.handle, *hand[placing.index :])
        events.append(
            PlayReturned(seat=seat, reason="a SKIP-BO wild may not go on a discard pile", value=value)
        )
        return
    events.append(Discarded(seat, pile, value))
    state.idle = 0
    _next_turn(state, events)


def _end(state: SkipBoState, move: Move, events: list[Event]) -> None:
    """End the turn without a discard: only when the player holds no card (nothing was left to
    draw). Plays from the stock and discard piles may come first."""
    _require_turn(state, move)
    hand = state.hands[move.seat]
    if hand:
        raise IllegalMove(f"you hold {len(hand)} card(s): end your turn by discarding one")
    state.idle = 0 if state.active else state.idle + 1
    _next_turn(state, events)


def _next_turn(state: SkipBoState, events: list[Event]) -> None:
    reason = blocked_reason(state)
    if reason is not None:
        events.append(RoundBlocked(state.round, reason))
        end_round(state, events, None)
        return
    assert state.turn is not None
    _begin_turn(state, (state.turn + 1) % state.players, events)


def blocked_reason(state: SkipBoState) -> str | None:
    """Why the round can never go on (it then ends, scoring nothing), or None.

    Checked after every turn. Blocked: (a) nothing can be drawn, nobody holds a card and no stock
    top or discard-pile top fits a building pile; or (b) every player in turn ended a turn with
    nothing to draw, no card to discard and no card played: the table is as it was a lap ago.
    """
    if state.idle >= state.players:
        return "every player in turn ended a turn without drawing, playing or discarding a card"
    if state.draw or state.set_aside or any(state.hands):
        return None
    needed = {len(pile) + 1 for pile in state.building}
    for stock in state.stocks:
        if stock:
            value = state.public_value(stock[-1])
            if value == WILD or value in needed:
                return None
    for cards in state.discards:
        if cards:
            value = state.public_value(cards[-1])
            if value == WILD or value in needed:
                return None
    return "nothing is left to draw, nobody holds a card and no stock or discard top fits a building pile"


# --- the end of a round (R-B5, R-B6) ----------------------------------------------------------


def stock_groups(state: SkipBoState) -> list[tuple[int, ...]]:
    """The sides of the table: the teams in a team game (R-B6), else every seat alone."""
    if state.options.teams:
        half = state.players // 2
        return [(s, s + half) for s in range(half)]
    return [(s,) for s in range(state.players)]


def round_scores_for(state: SkipBoState, winner: tuple[int, ...] | None) -> list[int]:
    """The points of a round, per seat.

    Won (`winner` is the side whose stocks are empty): 25 + 5 per card left in every other
    side's stocks, to each seat of the winning side (R-B5, R-B6). Blocked (`winner` None): the
    side(s) with the fewest stock cards left score 5 per card that every other side has more
    than them (no 25: nobody emptied a stock); when every side has as many, nobody scores.
    """
    groups = stock_groups(state)
    left = [sum(len(state.stocks[s]) for s in group) for group in groups]
    scores = [0] * state.players
    if winner is not None:
        leaders = [groups.index(winner)]
        bonus = ROUND_BONUS
    else:
        fewest = min(left)
        leaders = [g for g, count in enumerate(left) if count == fewest]
        bonus = 0
    for g in leaders:
        points = bonus + PER_STOCK_CARD * sum(count - left[g] for count in left)
        for seat in groups[g]:
            scores[seat] = points
    return scores


def end_round(state: SkipBoState, events: list[Event], ender: int | None) -> None:
    """Score the round (won by `ender`'s side, or blocked if None), then deal the next round or
    end the game. In a team game both partners are credited the team's points, so both totals
    are the team's total; the highest total wins the game (ties share the win)."""
    winner = None if ender is None else state.team(ender)
    scores = round_scores_for(state, winner)
    for seat, points in enumerate(scores):
        state.totals[seat] += points
    record = RoundEnded(state.round, ender, tuple(scores), tuple(scores), False, tuple(state.totals))
    state.history = (*state.history, record)
    events.append(record)
    state.turn = None
    state.placing = None
    best = max(state.totals)
    if state.options.single_round or best >= state.options.target_score:
        state.phase = GAME_OVER
        state.winners = tuple(s for s, total in enumerate(state.totals) if total == best)
        events.append(GameOver(state.winners, tuple(state.totals)))
        return
    assert state.dealer is not None
    state.dealer = (state.dealer + 1) % state.players  # the deal passes to the left
    start_round(state, events)


_HANDLERS: dict[str, Callable[[SkipBoState, Move, list[Event]], None]] = {
    "play": _play,
    "discard": _discard,
    "end": _end,
}

_RESUME: dict[str, Callable[[SkipBoState, list[Event]], None]] = {
    "dealt": _after_deal,
    "refill": _refill,
    "played": _after_play,
    "discarded": _after_discard,
}

RULES = SkipBoRules()
