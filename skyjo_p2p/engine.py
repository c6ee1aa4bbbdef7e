"""The engine: one entry point for every game.

    state, events = new_game("skyjo", players=3)
    state, events = apply(state, answer_or_move)
    moves = legal_moves(state, seat)

`apply` is pure: it never changes the state it is given, and returns a new one with the events the
change produced. It takes either a `Move` by a seat or an *answer* to one of the requests the engine
made (see `skyjo_p2p.core.events`). A move that the rules refuse raises `IllegalMove` (R-C4);
an answer nobody asked for raises `UnexpectedAnswer`. Each game supplies its rules as an object
that follows the `Rules` protocol below; `skyjo_p2p.registry` says where each game's rules live.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeVar

from .core.errors import IllegalMove, MalformedMove, OptionError, UnexpectedAnswer, WrongGame
from .core.events import (
    ANSWER_TYPES,
    Answer,
    Event,
    Moved,
    RandomResult,
    Reveal,
    Revealed,
)
from .core.moves import Move, MoveSchema
from .core.options import shown
from .core.state import TableState
from .registry import game as _game
from .registry import names

S = TypeVar("S", bound=TableState)


class Rules(Protocol[S]):
    """What a game provides to the engine, for its own kind of state `S` (each game's rules are
    a ``Rules[ItsState]``). Methods named `*_into` change the state they are given (the engine
    hands them a fresh copy)."""

    name: str
    schema: MoveSchema
    state_type: type[S]

    def new_state(self, players: int, options: Mapping[str, Any]) -> tuple[S, list[Event]]:
        """A game before its first deal; its events hold the first requests."""
        ...

    def composition(self, state: S, deck: str) -> Sequence[int]:
        """The values of `deck`'s physical cards, in card-id order."""
        ...

    def valid_value(self, state: S, deck: str, value: int) -> bool: ...

    def legal_moves(self, state: S, seat: int) -> list[Move]: ...

    def deciders(self, state: S) -> tuple[int, ...]:
        """The seats that may move now (empty while a request is pending or the game is over)."""
        ...

    def apply_move_into(self, state: S, move: Move, events: list[Event]) -> None:
        """Check `move` (raise `IllegalMove`) and play it."""
        ...

    def resume_into(self, state: S, events: list[Event]) -> None:
        """Go on from `state.resume` once no request is pending."""
        ...


_RULES: dict[str, Rules[Any]] = {}
"""Game name -> its rules, once imported (`registry.GAMES` says where they live)."""


def games() -> tuple[str, ...]:
    """Names of the games the engine knows."""
    return names()


def rules_for(game: str) -> Rules[Any]:
    rules = _RULES.get(game)
    if rules is None:
        entry = _game(game)
        if entry is None:
            raise OptionError(f"unknown game {game!r} (games: {', '.join(names())})")
        rules = importlib.import_module(entry.package).RULES
        _RULES[game] = rules
    return rules


def validate_options(game: object, players: object, options: object = None) -> None:
    """Refuse, with an `OptionError` a person can read, an unknown game, a player count the game
    (or its variant) does not allow, or any option that is unknown, of the wrong type or out of
    its bounds (docs/rules.md, "Table options and their bounds").

    What passes can be dealt and played: `new_game` takes it and no later step of the game
    fails because of an option. Each game's ``options`` module provides the game's own
    ``check(players, options)``.
    """
    if not isinstance(game, str):
        raise OptionError(f"a game is named by text, not {shown(game)} (games: {', '.join(names())})")
    entry = _game(game)
    if entry is None:
        raise OptionError(f"unknown game {shown(game)} (games: {', '.join(names())})")
    rules_for(game)
    if (
        isinstance(players, bool)
        or not isinstance(players, int)
        or not entry.min_players <= players <= entry.max_players
    ):
        raise OptionError(
            f"{game} is played by {entry.min_players} to {entry.max_players} players, not {shown(players)}"
        )
    if options is not None and not isinstance(options, Mapping):
        raise OptionError(f"options are a map of names to values, not {shown(options)}")
    importlib.import_module(entry.options_module).check(players, options or {})


def new_game(
    game: str, players: int, options: Mapping[str, Any] | None = None
) -> tuple[TableState, list[Event]]:
    """A new game of `game` for `players` seats; its events request the first deal.

    Raises `OptionError` for whatever `validate_options` refuses.
    """
    validate_options(game, players, options)
    return rules_for(game).new_state(players, options or {})


def parse_move(game: str, data: Mapping[str, Any]) -> Move:
    """A move from its dictionary form, checked against `game`'s kinds. Raises `MalformedMove`."""
    return Move.from_dict(data, rules_for(game).schema)


def legal_moves(state: TableState, seat: int) -> list[Move]:
    """Every move `seat` may make now; empty while a request is pending."""
    if state.pending:
        return []
    return _rules_of(state).legal_moves(state, seat)


def deciders(state: TableState) -> tuple[int, ...]:
    """The seats that may move now."""
    if state.pending:
        return ()
    return _rules_of(state).deciders(state)


def apply(state: TableState, action: Move | Answer) -> tuple[TableState, list[Event]]:
    """Play a move or take an answer; return the new state and what happened (R-C4)."""
    rules = _rules_of(state)
    events: list[Event] = []
    if isinstance(action, Move):
        if state.pending:
            raise IllegalMove(f"waiting for {_describe(state.pending[0])}; no move can be played")
        if not 0 <= action.seat < state.players:
            raise IllegalMove(f"there is no seat {action.seat} at this table")
        rules.schema.check(action)
        new = state.copy()
        rules.apply_move_into(new, action, events)
        events.insert(0, Moved(action))
    elif isinstance(action, ANSWER_TYPES):
        new = state.copy()
        _take_answer(rules, new, action, events)
    else:
        raise MalformedMove(f"not a move or an answer: {action!r}")
    while not new.pending and new.resume:  # a continuation may lead straight into another
        rules.resume_into(new, events)
    return new, events


def _rules_of(state: TableState) -> Rules[Any]:
    """The rules of `state`'s game, once sure the state is of the kind they play.

    The one runtime check of a state's type: past it, each game's rules see their own state type.
    """
    rules = rules_for(state.game)
    if not isinstance(state, rules.state_type):
        raise WrongGame(f"a {type(state).__name__} is not a state of {state.game}")
    return rules


def _take_answer(rules: Rules[Any], state: TableState, answer: Answer, events: list[Event]) -> None:
    request = answer.answers()
    if request not in state.pending:
        raise UnexpectedAnswer(f"nothing asked for {answer!r}")
    pending = list(state.pending)
    pending.remove(request)
    state.pending = tuple(pending)
    if isinstance(answer, Reveal):
        handle = answer.handle
        if answer.value is not None and not rules.valid_value(state, state.deck_of[handle], answer.value):
            raise UnexpectedAnswer(f"{answer.value!r} is not a card of the {state.deck_of[handle]} deck")
        state.learn(handle, answer.to, answer.value)
        events.append(Revealed(handle, answer.to, state.values[handle]))
    elif isinstance(answer, RandomResult):
        if not 0 <= answer.value < answer.n:
            raise UnexpectedAnswer(f"random value {answer.value} is not below {answer.n}")
        state.random_value = answer.value


def disclose(state: TableState, handle: int, value: int) -> tuple[TableState, list[Event]]:
    """Make a card some seats know privately public, outside the rules: the seat that knew it
    is now played by a bot every peer runs alike, so every peer must see what that bot sees
    (RULINGS: a seat's cards become public once a bot plays it for everyone). The rules never
    ask for this; it changes only who knows the card. Raises `UnexpectedAnswer` for a value that
    is not a card of the handle's deck or contradicts what this state knows."""
    rules = _rules_of(state)
    if not 0 <= handle < len(state.seen):
        raise UnexpectedAnswer(f"no card {handle} to disclose")
    if not rules.valid_value(state, state.deck_of[handle], value):
        raise UnexpectedAnswer(f"{value!r} is not a card of the {state.deck_of[handle]} deck")
    new = state.copy()
    new.learn(handle, None, value)
    return new, [Revealed(handle, None, value)]


def _describe(request: object) -> str:
    return type(request).__name__.replace("Request", " request").lower()


def view(state: TableState, seat: int | None) -> TableState:
    """What `seat` may know of `state` (None: an onlooker who sees only public cards)."""
    return state.masked_for(seat)


def state_hash(state: TableState) -> str:
    """A stable hash of the public state (equal on every peer after the same moves and answers)."""
    return state.state_hash()
