"""What each seat changed last, read from the table's log: marked on the table until that seat acts
again (issue 30, point 2).

A seat's *last change* is every card its latest run of moves touched (a run ends when another
seat moves): the grid slots it replaced, turned, swapped or exchanged, the building and discard
piles it played on (SKIP-BO). Cards that left the table in that run stay visible as ghosts for
the same time: a removed line's cards where the line was, an action card stolen or removed from
a seat's hand. A new round clears everything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from skyjo_p2p.action.facts import ActionPlayed, Blocked, Buried
from skyjo_p2p.core.events import LineRemoved, Moved, Revealed, RoundEnded
from skyjo_p2p.skipbo.state import Discarded, Played

from .canvas import Target
from .targets import BuildingTarget, GridTarget, SeatDiscardTarget


@dataclass
class SeatChange:
    """One seat's last run of moves: the cards it touched, the cards it made leave."""

    touched: list[Target] = field(default_factory=list)
    gone: dict[Target, int] = field(default_factory=dict)
    """A removed card's place -> its value (shown there, struck through, while the mark lasts)."""
    taken: list[tuple[int, int]] = field(default_factory=list)
    """Action cards this run took from another seat's hand: (that seat, the card's value)."""


@dataclass
class Changes:
    """Every seat's last change."""

    by_seat: dict[int, SeatChange] = field(default_factory=dict)
    last_round_removals: tuple[Any, ...] = ()
    """The lines removed as the last ended round's cards were turned (after its last move)."""

    @property
    def recent(self) -> frozenset[Target]:
        return frozenset(t for change in self.by_seat.values() for t in change.touched)

    @property
    def gone(self) -> dict[Target, int]:
        return {t: v for change in self.by_seat.values() for t, v in change.gone.items()}

    @property
    def taken(self) -> list[tuple[int, int]]:
        return [pair for change in self.by_seat.values() for pair in change.taken]


def _move_targets(move: Any) -> list[Target]:
    seat, kind = move.seat, move.kind
    if kind in ("replace", "flip") and move.slot is not None:
        return [GridTarget(seat, move.slot)]
    if kind == "reveal":
        return [GridTarget(seat, s) for s in move.slots]
    if kind == "swap" and move.slot is not None and move.slot2 is not None:
        return [GridTarget(seat, move.slot), GridTarget(seat, move.slot2)]
    if kind == "exchange" and move.slot is not None and move.slot2 is not None and move.target is not None:
        return [GridTarget(seat, move.slot), GridTarget(move.target, move.slot2)]
    if kind == "keep" and move.slot is not None:
        return [GridTarget(seat, move.slot)]
    if kind == "pick" and move.slot is not None and move.target is not None:
        return [GridTarget(move.target, move.slot)]  # the refilled card
    return []


class Tracker:
    """Reads the log as it grows (`update`) and keeps every seat's last change (`changes`)."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self.changes = Changes()
        self.fed = 0
        self.values: dict[int, int] = {}
        self.actor: int | None = None
        self.since_move: list[Any] = []
        """The lines removed since the last move (at a round's end: those of the final reveal)."""
        self.pending_steal: tuple[int, int] | None = None
        """(thief, victim) after a steal: the next card played is the victim's."""

    def update(self, log: Sequence[Any]) -> Changes:
        if len(log) < self.fed:  # another log (a replay stepped back): read it again
            self._reset()
        for entry in log[self.fed :]:
            fact = getattr(entry, "fact", None)
            if fact is not None:
                self.fact(fact)
        self.fed = len(log)
        return self.changes

    def fact(self, fact: Any) -> None:
        changes = self.changes
        if isinstance(fact, RoundEnded):
            changes.by_seat.clear()
            changes.last_round_removals = tuple(self.since_move)
            self.actor = None
            return
        if isinstance(fact, LineRemoved):
            self.since_move.append(fact)
        if isinstance(fact, Revealed):
            if fact.value is not None:
                self.values[fact.handle] = fact.value
            return
        if isinstance(fact, Moved):
            self.since_move = []
            seat = fact.move.seat
            if seat != self.actor:
                changes.by_seat[seat] = SeatChange()
                self.actor = seat
            changes.by_seat[seat].touched.extend(_move_targets(fact.move))
            if fact.move.kind == "steal" and fact.move.target is not None:
                self.pending_steal = (seat, fact.move.target)
            return
        change = changes.by_seat.get(self.actor) if self.actor is not None else None
        if change is None:
            return
        if isinstance(fact, LineRemoved):
            for slot, value in zip(fact.slots, fact.values, strict=False):
                change.gone[GridTarget(fact.seat, slot)] = value
        elif isinstance(fact, Played):  # SKIP-BO: a card on a building pile
            change.touched.append(BuildingTarget(fact.pile))
        elif isinstance(fact, Discarded):  # SKIP-BO: the turn's discard
            change.touched.append(SeatDiscardTarget(fact.seat, fact.pile))
        elif isinstance(fact, ActionPlayed) and self.pending_steal is not None:
            thief, victim = self.pending_steal
            self.pending_steal = None
            if thief == fact.seat and fact.handle in self.values:
                change.taken.append((victim, self.values[fact.handle]))
        elif isinstance(fact, Buried) and fact.slot is None and fact.handle in self.values:
            change.taken.append((fact.seat, self.values[fact.handle]))  # a held card removed
        elif isinstance(fact, Blocked):
            self.pending_steal = None


def last_changes(log: Sequence[Any]) -> Changes:
    """Every seat's last change, from the whole log."""
    return Tracker().update(log)
