"""The part of a game state every game shares: card handles, who knows what, and what we wait for.

A card is a *handle*: an integer naming a position in a dealt (or reshuffled) deck. What the card
is, its *value*, reaches a state only through a `Reveal` answer. For each handle the state keeps

* ``deck_of[h]``: which deck it belongs to (a game may have several, e.g. SKYJO ACTION's two);
* ``seen[h]``: a bit mask of the seats that know its value (all bits set: the card is public);
* ``values[h]``: its value *if this state knows it*, else None.

The first two are public: every peer's state holds the same. ``values`` is not: a peer's state holds
the public values and its own private ones; an offline dealer's state holds everything. The rules
only ever read public values, so every peer computes the same public state; `view` turns any
state into what one seat may know, and `public_key` (hence the state hash) ignores private values.

States are treated as immutable by the engine: `apply` copies, then changes the copy. To keep the
copy cheap and safe, a state's fields are only ever immutable values (ints, strings, tuples, frozen
records) or *flat* lists/dicts of immutable values, never nested mutable containers.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable, Sequence
from typing import Any, Self

from .errors import UnexpectedAnswer
from .events import EVERYONE, Event, Request, Reshuffled, RevealRequest, ShuffleRequest


class TableState:
    """Base of every game's state. Games subclass it and add their own slots."""

    __slots__ = (
        "deck_of",
        "game",
        "history",
        "options",
        "pending",
        "phase",
        "players",
        "random_value",
        "resume",
        "round",
        "seen",
        "totals",
        "values",
        "winners",
    )

    game: str
    players: int
    options: Any
    round: int
    phase: str
    deck_of: list[str]
    seen: list[int]
    values: list[int | None]
    pending: tuple[Request, ...]
    resume: str
    random_value: int | None
    totals: list[int]
    history: tuple[Any, ...]
    winners: tuple[int, ...]

    def __init__(self, game: str, players: int, options: Any) -> None:
        self.game = game
        self.players = players
        self.options = options
        self.round = 0
        self.phase = "deal"
        self.deck_of = []
        self.seen = []
        self.values = []
        self.pending = ()
        self.resume = ""
        self.random_value = None
        self.totals = [0] * players
        self.history = ()
        self.winners = ()

    # --- copying, equality, hashing ---------------------------------------------------------

    @classmethod
    def _all_slots(cls) -> tuple[str, ...]:
        cached: tuple[str, ...] | None = cls.__dict__.get("_slot_names_cache")
        if cached is None:
            names: list[str] = []
            for klass in reversed(cls.__mro__):
                for name in klass.__dict__.get("__slots__", ()):
                    if name not in names:
                        names.append(name)
            cached = tuple(names)
            type.__setattr__(cls, "_slot_names_cache", cached)
        return cached

    def copy(self) -> Self:
        """A copy whose lists and dicts are new objects (their items are immutable)."""
        copier = type(self).__dict__.get("_copier")
        if copier is None:
            copier = _make_copier(type(self), self)
        new: Self = copier(self)
        return new

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self._all_slots())

    __hash__ = None  # type: ignore[assignment]  # mutable in principle: compare, don't hash

    def public_key(self) -> tuple[Any, ...]:
        """Everything every peer agrees on: all fields, with only public values kept."""
        out: list[Any] = []
        for name in self._all_slots():
            if name == "values":
                full = self.everyone
                out.append(
                    tuple(v if s == full else None for v, s in zip(self.values, self.seen, strict=True))
                )
            else:
                value = getattr(self, name)
                out.append(tuple(value) if type(value) is list else value)
        return tuple(out)

    def state_hash(self) -> str:
        """A stable hash of the public state: equal on every peer that saw the same moves."""
        data = repr(self.public_key()).encode()
        return hashlib.blake2b(data, digest_size=16).hexdigest()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.game} round={self.round} phase={self.phase}>"

    # --- knowledge --------------------------------------------------------------------------

    @property
    def everyone(self) -> int:
        return (1 << self.players) - 1

    def allocate(self, deck: str, count: int) -> int:
        """Make `count` new, unknown handles of `deck`; return the first."""
        first = len(self.seen)
        self.deck_of.extend([deck] * count)
        self.seen.extend([0] * count)
        self.values.extend([None] * count)
        return first

    def reset_handles(self) -> None:
        """Forget every handle (a new round deals a new deck)."""
        self.deck_of = []
        self.seen = []
        self.values = []

    def is_public(self, handle: int) -> bool:
        return self.seen[handle] == self.everyone

    def knows(self, seat: int | None, handle: int) -> bool:
        """May `seat` (None: an onlooker) know this card's value?"""
        seen = self.seen[handle]
        if seat is None:
            return seen == self.everyone
        return bool(seen >> seat & 1)

    def public_value(self, handle: int) -> int:
        """The value of a card the rules have made public. A missing one is a bug, not bad input."""
        value = self.values[handle]
        if value is None or self.seen[handle] != self.everyone:
            raise AssertionError(f"the rules read card {handle} before it was made public")
        return value

    def value_for(self, seat: int | None, handle: int) -> int | None:
        """The value of `handle` as `seat` may know it, or None."""
        if self.knows(seat, handle):
            return self.values[handle]
        return None

    def learn(self, handle: int, to: int | None, value: int | None) -> None:
        """Record a reveal: `to` (None: everyone) now knows `handle`; maybe its value too."""
        if to is EVERYONE:
            if value is None:
                raise UnexpectedAnswer(f"a public reveal of card {handle} must carry its value")
            self.seen[handle] = self.everyone
        else:
            self.seen[handle] |= 1 << to
        if value is not None:
            known = self.values[handle]
            if known is not None and known != value:
                raise UnexpectedAnswer(
                    f"card {handle} was revealed as {value} but is already known as {known}"
                )
            self.values[handle] = value

    def request_reveal(self, handle: int, to: int | None, out: list[Request]) -> None:
        """Ask for `handle` to be shown to `to`, unless they already know it."""
        if to is EVERYONE:
            if self.seen[handle] == self.everyone:
                return
        elif self.seen[handle] >> to & 1:
            return
        req = RevealRequest(handle, to)
        if req not in self.pending and req not in out:
            out.append(req)

    def ask(self, events: list[Event], requests: Sequence[Request]) -> None:
        """Make `requests` pending (the engine waits for their answers) and report them."""
        if requests:
            self.pending = self.pending + tuple(requests)
            events.extend(requests)

    def reshuffle(self, deck: str, cards: tuple[int, ...], events: list[Event]) -> list[int]:
        """Shuffle `cards` jointly (R-C2) into a new face-down pile; return it, bottom first.

        The cards get new handles: nobody knows their new order, even of faces everyone saw.
        """
        first = self.allocate(deck, len(cards))
        events.append(Reshuffled(deck, len(cards)))
        self.ask(events, [ShuffleRequest(deck, cards, first)])
        return list(range(first + len(cards) - 1, first - 1, -1))

    def masked_for(self, seat: int | None) -> Self:
        """What `seat` may know (None: an onlooker): a copy with every other value hidden."""
        new = self.copy()
        full = self.everyone
        if seat is None:
            new.values = [v if s == full else None for v, s in zip(self.values, self.seen, strict=True)]
        else:
            bit = 1 << seat
            new.values = [v if s & bit else None for v, s in zip(self.values, self.seen, strict=True)]
        return new


def _make_copier(cls: type[TableState], sample: TableState) -> Callable[[Any], Any]:
    """Write (once per class) a copy function that copies exactly the list and dict fields.

    A state is copied on every `apply`; a generated function is several times faster than a loop
    over the slots with getattr/setattr, and it is what keeps the engine above 30,000 moves/s.
    """
    annotations: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        annotations.update({k: str(v) for k, v in inspect.get_annotations(klass).items()})
    lines = ["def copier(self):", "    new = new_object(cls)"]
    for name in cls._all_slots():
        kind = annotations.get(name, "")
        mutable = kind.startswith(("list", "dict"))
        if not mutable and type(getattr(sample, name, None)) in (list, dict, set):
            raise TypeError(f"{cls.__name__}.{name} holds a mutable container: annotate it list[...]")
        if mutable:
            lines.append(f"    new.{name} = self.{name}.copy()")
        else:
            lines.append(f"    new.{name} = self.{name}")
    lines.append("    return new")
    namespace: dict[str, Any] = {"cls": cls, "new_object": object.__new__}
    exec("\n".join(lines), namespace)
    copier: Callable[[Any], Any] = namespace["copier"]
    type.__setattr__(cls, "_copier", copier)
    return copier
