"""The local dealer: answers an engine's requests from decks it knows, for offline play.

Scenarios, simulations, bots' look-ahead and tests have no mental-poker session; this dealer plays
its part. It knows every card: decks are either given (a scenario's `deck`, top first) or dealt from
a seeded `Rng`, and it answers each request exactly as the protocol would, with the values.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .errors import EngineError
from .events import (
    Answer,
    DealRequest,
    Dealt,
    Event,
    RandomRequest,
    RandomResult,
    Request,
    Reveal,
    RevealRequest,
    Shuffled,
    ShuffleRequest,
    requests_in,
)
from .rng import Rng
from .state import TableState

Composition = Callable[[TableState, str], Sequence[int]]
"""(state, deck name) -> the values of that deck's physical cards, in card-id order."""


class DeckError(EngineError):
    """A given deck is not the game's deck (wrong size or composition)."""


class Dealer:
    """Answers requests with real values. `decks` maps (round, deck name) to a deck, top first."""

    def __init__(
        self,
        composition: Composition,
        seed: int | str = 0,
        decks: Mapping[tuple[int, str], Sequence[int]] | None = None,
    ) -> None:
        self._composition = composition
        self._rng = Rng(seed)
        self._decks = dict(decks or {})
        self.values: dict[int, int] = {}
        self._round = -1

    @classmethod
    def knowing(cls, composition: Composition, values: Mapping[int, int], seed: int | str = 0) -> Dealer:
        """A dealer for a state whose hidden cards were filled in (a bot's sampled world)."""
        dealer = cls(composition, seed)
        dealer.values = dict(values)
        return dealer

    def answer(self, state: TableState, request: Request) -> Answer:
        if state.round != self._round and isinstance(request, DealRequest):
            self._round = state.round
            if request.first == 0:
                self.values = {}
        if isinstance(request, DealRequest):
            deck = self._deck_for(state, request)
            for offset, value in enumerate(deck):
                self.values[request.first + offset] = value
            return Dealt(request.deck, request.first, request.size)
        if isinstance(request, ShuffleRequest):
            cards = [self.values[h] for h in request.handles]
            self._rng.shuffle(cards)
            for offset, value in enumerate(cards):
                self.values[request.first + offset] = value
            return Shuffled(request.deck, request.handles, request.first)
        if isinstance(request, RevealRequest):
            return Reveal(request.handle, request.to, self.values[request.handle])
        if isinstance(request, RandomRequest):
            return RandomResult(request.purpose, request.n, self._rng.below(request.n))
        raise TypeError(f"not a request: {request!r}")  # pragma: no cover

    def _deck_for(self, state: TableState, request: DealRequest) -> list[int]:
        expected = list(self._composition(state, request.deck))
        given = self._decks.get((state.round, request.deck))
        if given is None:
            deck = expected
            self._rng.shuffle(deck)
            return deck
        check_deck(given, expected, request.deck)
        return list(given)

    def settle(
        self,
        state: TableState,
        events: list[Event],
        apply: Callable[[Any, Any], tuple[Any, list[Event]]],
    ) -> tuple[Any, list[Event]]:
        """Answer every request in `events` (and those the answers raise) until none is pending.

        Returns the final state and every event seen, the answers' own included.
        """
        out = list(events)
        queue = requests_in(events)
        i = 0
        while i < len(queue):
            state, more = apply(state, self.answer(state, queue[i]))
            i += 1
            out.extend(more)
            queue.extend(requests_in(more))
        return state, out


def check_deck(given: Sequence[Any], expected: Sequence[int], deck: str) -> None:
    """Raise `DeckError` unless `given` holds exactly the cards of `expected`."""
    if len(given) != len(expected):
        raise DeckError(f"the {deck} deck must have {len(expected)} cards, not {len(given)}")
    if Counter(given) != Counter(expected):
        want, got = Counter(expected), Counter(given)
        diffs = []
        for value in sorted(set(want) | set(got), key=lambda v: (str(type(v)), v)):
            if want[value] != got[value]:
                diffs.append(f"{value}: {got[value]} instead of {want[value]}")
        raise DeckError(f"the {deck} deck has the wrong cards ({'; '.join(diffs[:4])})")
