"""Test helpers: build decks, and play a table the way the network would.

`Table` keeps the omniscient state (the dealer's, which knows every card) and, beside it, one
*mirror* per seat: the state that seat's peer would hold, fed only the answers that peer would
get (a private reveal to another seat arrives without its value). After every step each mirror
must equal the omniscient state's view for its seat, and every public state must hash the same:
that is the privacy and determinism contract of the engine, checked on every step.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from skyjo_p2p.core.dealer import Dealer
from skyjo_p2p.core.events import Event, Reveal, requests_in
from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.state import TableState
from skyjo_p2p.engine import apply, deciders, legal_moves, new_game, rules_for, view


def build_deck(front: Sequence[int], composition: Sequence[int], tail: Sequence[int] = ()) -> list[int]:
    """A full deck, top first: `front`, then the unused cards, ending with `tail` at the bottom."""
    rest = Counter(composition)
    rest.subtract(Counter(front))
    rest.subtract(Counter(tail))
    if any(n < 0 for n in rest.values()):
        raise ValueError(f"not enough cards for this deck: {[(v, n) for v, n in rest.items() if n < 0]}")
    middle = [v for v in sorted(rest, key=repr) for _ in range(rest[v])]
    return [*front, *middle, *tail]


def mask(answer: Any, seat: int) -> Any:
    """The answer as the peer at `seat` receives it."""
    if isinstance(answer, Reveal) and answer.to is not None and answer.to != seat:
        return Reveal(answer.handle, answer.to, None)
    return answer


class Table:
    def __init__(
        self,
        game: str,
        players: int,
        options: dict[str, Any] | None = None,
        seed: int | str = 0,
        decks: dict[tuple[int, str], list[int]] | None = None,
        mirrors: bool = True,
        on_apply: Callable[[TableState, list[Event]], None] | None = None,
    ) -> None:
        self.rules = rules_for(game)
        self.dealer = Dealer(self.rules.composition, seed=seed, decks=decks)
        self.state, events = new_game(game, players, options)
        self.mirrors: list[TableState] | None = [self.state] * players if mirrors else None
        self.events: list[Event] = []
        self.on_apply = on_apply
        self._hashed_phase = ""
        self._settle(events)

    def _settle(self, events: list[Event]) -> None:
        self.events.extend(events)
        queue = requests_in(events)
        i = 0
        while i < len(queue):
            answer = self.dealer.answer(self.state, queue[i])
            i += 1
            self.state, more = apply(self.state, answer)
            if self.on_apply is not None:
                self.on_apply(self.state, more)
            if self.mirrors is not None:
                self.mirrors = [apply(m, mask(answer, s))[0] for s, m in enumerate(self.mirrors)]
            self.events.extend(more)
            queue.extend(requests_in(more))
        self.check()

    def check(self) -> None:
        """Every peer's state is its view of the table and agrees on the public state (C3).

        The public states are compared as values at every step, and by `state_hash` whenever the
        phase changes (a round's end, the game's): the hash is the digest of the value's repr,
        and hashing every step cost the property tests about a third of their time."""
        if self.mirrors is None:
            return
        public = self.state.public_key()
        hashed = self.state.phase != self._hashed_phase
        digest = self.state.state_hash() if hashed else ""
        self._hashed_phase = self.state.phase
        for seat, mirror in enumerate(self.mirrors):
            assert mirror == view(self.state, seat), f"seat {seat}'s peer state differs from its view"
            assert mirror.public_key() == public, f"seat {seat} disagrees on the public state"
            assert not hashed or mirror.state_hash() == digest

    def play(self, move: Move | dict[str, Any]) -> list[Event]:
        if isinstance(move, dict):
            move = Move.from_dict(move, self.rules.schema)
        start = len(self.events)
        self.state, events = apply(self.state, move)
        if self.on_apply is not None:
            self.on_apply(self.state, events)
        if self.mirrors is not None:
            self.mirrors = [apply(m, move)[0] for m in self.mirrors]
        self._settle(events)
        return self.events[start:]

    def play_all(self, moves: Iterable[Move | dict[str, Any]]) -> None:
        for move in moves:
            self.play(move)

    def legal(self, seat: int) -> list[Move]:
        return legal_moves(self.state, seat)

    def deciders(self) -> tuple[int, ...]:
        return deciders(self.state)
