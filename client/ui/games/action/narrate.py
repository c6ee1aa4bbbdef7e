"""SKYJO ACTION's log: moves and the action cards' facts told as sentences (`ActionNarrator`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skyjo_p2p.action.cards import STAR, is_action
from skyjo_p2p.action.facts import (
    ActionDiscarded,
    ActionFound,
    ActionPlayed,
    ActionTaken,
    Blocked,
    Buried,
    Exchanged,
    ExtraTurns,
    LinesKept,
    NoEffect,
    Peeked,
    Swapped,
    TurnSkipped,
)
from skyjo_p2p.core.events import LineRemoved, Moved, Revealed, RevealRequest, TurnBegan
from skyjo_p2p.core.moves import Move
from skyjo_p2p.grid import EMPTY

from ...canvas import Span
from ...cards import skyjo_band
from ...i18n import tr, tr_spans, who_key
from ...narrate import Item, Line, Narrator, value_span
from .model import card_name


class ActionNarrator(Narrator):
    """Moves and the action cards' facts, with card values as this seat knows them.

    Cards are followed by handle: a drawn card's handle comes with its (private) reveal, so its
    value shows in the sentence once anyone may see it; a replaced face-down card is the public
    reveal that follows the move.
    """

    def __init__(self, players: int, me: int | None, names: Sequence[str], lang: str, size: int = 12) -> None:
        super().__init__(players, me, names, lang)
        self.values: dict[int, int] = {}
        self.turn: dict[str, Any] | None = None
        self.collect: list[int] | None = None
        self._moves = 0
        self._victim: int | None = None
        self._moved_values: tuple[int | None, int | None] = (None, None)
        """The two cards a swap or an exchange is about to move, where this seat knew them."""
        self.moved_values: dict[int, tuple[int | None, int | None]] = {}
        """id of a `Swapped` / `Exchanged` fact -> the two cards it moved (None: not known)."""
        self.stolen: dict[int, int] = {}
        """A stolen card's handle -> the seat it was stolen from."""
        self._touched: set[tuple[int | None, int | None]] = set()
        """Grid places moved by the log's entries read in this batch (their state is stale)."""

    def fact(self, fact: Any) -> None:
        if isinstance(fact, Revealed):
            if fact.value is not None:
                self.values[fact.handle] = fact.value
            turn = self.turn
            if turn is not None and fact.to is not None and fact.to == turn["seat"] and turn["drawn"] is None:
                turn["drawn"] = fact.handle
            if self.collect is not None and fact.to is None:
                self.collect.append(fact.handle)
        elif isinstance(fact, TurnBegan):
            self.turn = None
            self.collect = None
        elif isinstance(fact, Moved):
            self.moved(fact.move)
        elif isinstance(fact, ActionPlayed) and fact.via == "steal" and self._victim is not None:
            self.stolen[fact.handle] = self._victim
            self._victim = None
            self.items.append(Item("fact", fact, fact.seat))
        elif isinstance(fact, Swapped | Exchanged):
            self.moved_values[id(fact)] = self._moved_values
            self._moved_values = (None, None)
            self.items.append(Item("fact", fact, fact.seat))
        elif isinstance(
            fact,
            ActionTaken
            | ActionPlayed
            | ActionDiscarded
            | ActionFound
            | Blocked
            | Buried
            | Exchanged
            | Peeked
            | ExtraTurns
            | NoEffect
            | TurnSkipped
            | LinesKept
            | Swapped,
        ):
            self.items.append(Item("fact", fact, getattr(fact, "seat", None)))
        elif isinstance(fact, LineRemoved):
            self.items.append(Item("line", fact, fact.seat))
        elif not isinstance(fact, RevealRequest):
            super().fact(fact)

    def moved(self, move: Move) -> None:
        seat = move.seat
        kind = move.kind
        if kind == "reveal":
            self.collect = []
            self.items.append(Item("setup", self.collect, seat))
            return
        first = self._moves == 0  # the first move read in this batch: `before` is its table
        self._moves += 1
        if kind == "draw":
            self.turn = {"seat": seat, "source": move.source, "drawn": None, "action": "", "shown": []}
            if move.source != "deck" and first and self.before is not None:
                top = self.before.discard_top()
                self.turn["took"] = None if top is None else self.before.values[top]
            self.items.append(Item("turn", self.turn, seat))
            self.collect = None
            return
        if kind in ("replace", "discard", "flip") and self.turn is not None and self.turn["seat"] == seat:
            if kind == "flip":
                self.turn["flipped"] = []
                self.collect = self.turn["flipped"]
            else:
                self.turn["action"] = kind
                self.collect = self.turn["shown"]
                if kind == "replace" and move.slot is not None:
                    self.turn["old"] = self._face_up_before(seat, move.slot)
            self._touched.add((seat, move.slot))
            return
        if kind == "steal":
            self._victim = move.target
        if kind == "swap" and move.slot is not None and move.slot2 is not None:
            self._moved_values = (
                self._face_up_before(seat, move.slot),
                self._face_up_before(seat, move.slot2),
            )
        elif kind == "exchange" and None not in (move.slot, move.slot2, move.target):
            assert move.slot is not None and move.slot2 is not None and move.target is not None
            self._moved_values = (
                self._face_up_before(seat, move.slot),
                self._face_up_before(move.target, move.slot2),
            )
        for place in (
            (seat, move.slot),
            (seat, move.slot2),
            (move.target, move.slot2),
            (move.target, move.slot),
        ):
            self._touched.add(place)
        self.collect = None

    def update(self, log: Sequence[Any], state: Any = None) -> None:
        self._touched = set()
        self._moves = 0
        super().update(log, state)

    def _face_up_before(self, seat: int, slot: int) -> int | None:
        """The card this seat knew at a grid's place before this batch of the log, when nothing in
        the batch moved it before (a replaced card already known: no reveal names it)."""
        before = self.before
        if before is None or (seat, slot) in self._touched:
            return None
        place = seat * before.size + slot
        if place >= len(before.grid) or before.grid[place] == EMPTY:
            return None  # (a face-down card this seat knows is shown to all as it is discarded)
        value: int | None = before.values[before.grid[place]]
        return value

    def _value_span(self, value: int) -> Span:
        if value == STAR:
            return Span(tr(self.lang, "action.star"), "fg.star")
        if is_action(value):
            return Span(card_name(value, self.lang), "fg.action")
        return value_span(value, skyjo_band)

    def name_of(self, handle: int | None) -> Span:
        if handle is None or handle not in self.values:
            return Span(tr(self.lang, "action.a_card"), "dim")
        value = self.values[handle]
        if value == STAR:
            return Span(tr(self.lang, "action.star"), "fg.star")
        if is_action(value):
            return Span(card_name(value, self.lang), "fg.action")
        return value_span(value, skyjo_band)

    def tell(self, item: Item) -> list[Line]:
        lang, me = self.lang, self.me
        who = self.who(item.seat)
        if item.kind == "setup":
            if not item.data:
                return []
            line = tr_spans(lang, who_key("skyjo.log.setup", item.seat, me), who=who, cards=Span("{cards}"))
            return [_splice(line, [self.name_of(h) for h in item.data])]
        if item.kind == "turn":
            return [self.tell_turn(item.data, who)]
        if item.kind == "line":
            fact: LineRemoved = item.data
            numbers = [v for v in fact.values if v != STAR]
            v = value_span(numbers[0], skyjo_band) if numbers else Span(tr(lang, "action.stars"), "fg.star")
            return [tr_spans(lang, who_key(f"skyjo.log.{fact.line}", item.seat, me), "good", who=who, v=v)]
        if item.kind == "fact":
            return [self.tell_fact(item.data, who)]
        return super().tell(item)

    def tell_turn(self, turn: dict[str, Any], who: Span) -> Line:
        lang, me, seat = self.lang, self.me, turn["seat"]
        drawn = turn["drawn"]
        if turn["source"] == "deck":
            if drawn is not None and drawn in self.values:
                line = tr_spans(lang, who_key("skyjo.log.drew", seat, me), who=who, v=self.name_of(drawn))
            else:
                line = tr_spans(lang, who_key("skyjo.log.drew_unknown", seat, me), who=who)
        elif turn.get("took") is not None:
            line = tr_spans(
                lang, who_key("skyjo.log.took", seat, me), who=who, v=self._value_span(turn["took"])
            )
        else:
            line = tr_spans(lang, who_key("action.log.took_discard", seat, me), who=who)
        shown = [h for h in turn["shown"] if h != drawn]
        if turn["action"] == "replace":
            if shown and self.values.get(shown[0]) == STAR:
                line += tr_spans(lang, "action.replaced_hidden_star", v=self.name_of(shown[0]))
            elif shown:
                line += tr_spans(lang, "skyjo.log.replaced_hidden", v=self.name_of(shown[0]))
            elif turn.get("old") is not None:
                line += tr_spans(lang, "skyjo.log.replaced", v=self._value_span(turn["old"]))
            else:
                line += tr_spans(lang, "skyjo.log.replaced_unknown")
        elif turn["action"] == "discard":
            line += tr_spans(lang, "skyjo.log.discarded")
            flipped = turn.get("flipped")
            if flipped:
                line += tr_spans(lang, "skyjo.log.flipped", v=self.name_of(flipped[0]))
        line.append(Span("."))
        return line

    def tell_fact(self, fact: Any, who: Span) -> Line:
        lang, me = self.lang, self.me
        seat = getattr(fact, "seat", None)
        if isinstance(fact, ActionTaken):
            key = "action.log.taken_star" if fact.star else "action.log.taken"
            return tr_spans(lang, who_key(key, seat, me), who=who, card=self.name_of(fact.handle))
        if isinstance(fact, ActionPlayed) and fact.handle in self.stolen:
            return tr_spans(
                lang,
                who_key("action.log.stole", seat, me),
                "title",
                who=who,
                card=self.name_of(fact.handle),
                other=self.who(self.stolen[fact.handle], plain=True),
            )
        if isinstance(fact, ActionPlayed):
            return tr_spans(
                lang, who_key("action.log.played", seat, me), "title", who=who, card=self.name_of(fact.handle)
            )
        if isinstance(fact, ActionDiscarded):
            return tr_spans(
                lang, who_key("action.log.dropped", seat, me), who=who, card=self.name_of(fact.handle)
            )
        if isinstance(fact, ActionFound):
            key = "action.log.found_kept" if fact.kept else "action.log.found_dropped"
            return tr_spans(lang, who_key(key, seat, me), who=who, card=self.name_of(fact.handle))
        if isinstance(fact, Blocked):
            key = "action.log.blocked_mine" if fact.attacker == me and seat != me else "action.log.blocked"
            return tr_spans(
                lang,
                who_key(key, seat, me),
                "good",
                who=who,
                attacker=self.who(fact.attacker, plain=True),
            )
        if isinstance(fact, Buried):
            return tr_spans(lang, who_key("action.log.buried", seat, me), "warn", who=who)
        a, b = self.moved_values.get(id(fact), (None, None))
        if isinstance(fact, Swapped):
            if a is not None and b is not None:
                key = who_key("action.log.swapped_values", seat, me)
                return tr_spans(lang, key, who=who, a=self._value_span(a), b=self._value_span(b))
            return tr_spans(lang, who_key("action.log.swapped", seat, me), who=who)
        if isinstance(fact, Exchanged):
            if not fact.blocked and a is not None and b is not None:
                return tr_spans(
                    lang,
                    who_key("action.log.exchanged_values", seat, me),
                    who=who,
                    other=self.who(fact.other, plain=True),
                    a=self._value_span(a),
                    b=self._value_span(b),
                )
            key = "action.log.exchange_blocked" if fact.blocked else "action.log.exchanged"
            return tr_spans(lang, who_key(key, seat, me), who=who, other=self.who(fact.other, plain=True))
        if isinstance(fact, Peeked):
            line = tr(lang, f"skyjo.{fact.line}", n=fact.index + 1)
            return tr_spans(
                lang,
                who_key("action.log.peeked", seat, me),
                who=who,
                line=line,
                other=self.who(fact.target, plain=True),
            )
        if isinstance(fact, ExtraTurns):
            if fact.count == 0:
                return tr_spans(lang, who_key("action.log.extra_lost", seat, me), "dim", who=who)
            return tr_spans(lang, "action.log.extra", who=self.who(seat, plain=True), n=fact.left)
        if isinstance(fact, NoEffect):
            return tr_spans(lang, "action.log.no_effect", "dim", card=self.name_of(fact.handle))
        if isinstance(fact, TurnSkipped):
            return tr_spans(lang, who_key("action.log.skipped", seat, me), "dim", who=who)
        if isinstance(fact, LinesKept):
            return tr_spans(lang, who_key("action.log.kept_lines", seat, me), "dim", who=who)
        return [Span(str(fact), "dim")]


def _splice(line: Line, cards: list[Span]) -> Line:
    out: Line = []
    for span in line:
        if span.text == "{cards}":
            for number, card_span in enumerate(cards):
                if number:
                    out.append(Span(", "))
                out.append(card_span)
        else:
            out.append(span)
    return out
