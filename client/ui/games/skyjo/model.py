"""Classic SKYJO for the screen: the table model, the decisions, the log's sentences."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from skyjo_p2p.core.events import (
    DealRequest,
    Moved,
    Reshuffled,
    Revealed,
    RevealRequest,
    ShuffleRequest,
    TurnBegan,
)
from skyjo_p2p.core.events import LineRemoved as LineRemovedFact
from skyjo_p2p.core.moves import Move
from skyjo_p2p.grid import EMPTY
from skyjo_p2p.skyjo.state import (
    SETUP,
    TURN,
    SkyjoState,
    Step,
)

from ...canvas import Span, Target
from ...cards import BACK, EMPTY_SLOT, NO_CARD, CardView, skyjo_band, skyjo_card
from ...i18n import tr, tr_spans, who_key
from ...model import Button, Decision, Option
from ...narrate import Item, Line, Narrator, value_span
from ...targets import GridTarget, LineTarget, PileTarget
from ..base import required

DRAW: Target = PileTarget("draw")
DISCARD: Target = PileTarget("discard")


@dataclass
class GridSeat:
    """One player's grid and numbers, as the screen shows them."""

    seat: int
    name: str
    cards: list[CardView]
    rows: int
    cols: int
    total: int
    shown: int
    active: bool = False
    ender: bool = False
    me: bool = False
    waiting: bool = False
    held: list[CardView] = field(default_factory=list)
    badges: list[str] = field(default_factory=list)
    held_row: bool = False


@dataclass
class SkyjoTable:
    seats: list[GridSeat]
    me: int | None
    draw_count: int
    discard: CardView
    discard_count: int
    holding: CardView | None
    holder: int | None
    round: int
    target: int
    ender: int | None
    phase: str
    extra: dict[str, Any] = field(default_factory=dict)


def grid_cards(
    state: Any, seat: int, viewer: int | None, card: Any = skyjo_card
) -> tuple[list[CardView], int]:
    """A seat's slots as cards (and the sum of its face-up numbers), for SKYJO and ACTION."""
    size = state.shape.size
    base = seat * size
    cards: list[CardView] = []
    shown = 0
    for slot in range(size):
        handle = state.grid[base + slot]
        if handle == EMPTY:
            cards.append(EMPTY_SLOT)
            continue
        value = state.values[handle]
        if state.face_up[base + slot]:
            view = card(value)
            cards.append(view)
            if isinstance(value, int) and -2 <= value <= 12:
                shown += value
        elif value is not None and viewer is not None and state.knows(viewer, handle):
            known = card(value)
            cards.append(CardView("back", known=known.text, band=known.band))
        else:
            cards.append(BACK)
    return cards, shown


def table_model(state: SkyjoState, me: int | None, names: Sequence[str], lang: str = "en") -> SkyjoTable:
    seats = []
    turn = state.turn if state.phase == TURN else None
    for seat in range(state.players):
        cards, shown = grid_cards(state, seat, me)
        seats.append(
            GridSeat(
                seat=seat,
                name=names[seat],
                cards=cards,
                rows=state.shape.rows,
                cols=state.shape.cols,
                total=state.totals[seat],
                shown=shown,
                active=seat == turn,
                ender=seat == state.ender,
                me=seat == me,
                waiting=state.phase == SETUP and state.to_reveal[seat] > 0,
            )
        )
    top = state.discard_top()
    discard = NO_CARD if top is None else skyjo_card(state.values[top])
    holding = None
    if state.holding is not None:
        holding = skyjo_card(state.values[state.holding])
    return SkyjoTable(
        seats=seats,
        me=me,
        draw_count=len(state.draw),
        discard=discard,
        discard_count=len(state.discard),
        holding=holding,
        holder=state.turn if state.holding is not None else None,
        round=state.round,
        target=state.options.target_score,
        ender=state.ender,
        phase=state.phase,
    )


# --- decisions ----------------------------------------------------------------------------------


def decision(state: SkyjoState, me: int, moves: Sequence[Move], lang: str) -> Decision | None:
    if not moves:
        return None
    first = moves[0]
    if first.kind == "reveal":
        options = [Option(tuple(GridTarget(me, s) for s in m.slots), m) for m in moves]
        return Decision("skyjo.setup", options, multi=len(first.slots))
    options = []
    labels: dict[Target, str] = {}
    keys: dict[Target, str] = {DRAW: "1", DISCARD: "2"}
    focus: dict[Target, frozenset[Target]] = {}
    for number, move in enumerate(moves, 1):
        if move.kind == "draw":
            options.append(Option((DRAW if move.source == "deck" else DISCARD,), move))
        elif move.kind == "discard":
            options.append(Option((DISCARD,), move))
        elif move.kind in ("replace", "flip"):
            options.append(Option((GridTarget(me, required(move.slot)),), move))
        elif move.kind == "remove-line":
            target: Target = LineTarget(required(move.line), required(move.index))
            options.append(Option((target,), move))
            keys[target] = str(number)
            labels[target] = tr(lang, f"skyjo.{move.line}", n=(move.index or 0) + 1)
            line = state.shape.line(move.line or "", move.index or 0)
            if line is not None:
                focus[target] = frozenset(GridTarget(me, s) for s in line.slots)
    step = state.step if state.step in (Step.CHOOSE, Step.DRAWN, Step.TOOK, Step.FLIP, Step.LINE) else "turn"
    return Decision(f"skyjo.{step}", options, keys=keys, labels=labels, focus=focus)


def prompt(
    state: SkyjoState,
    me: int | None,
    names: Sequence[str],
    lang: str,
    dec: Decision | None,
    chosen: tuple[Target, ...],
) -> tuple[str, list[Button]]:
    """The line telling the player what to do now (or what the table waits for)."""
    if dec is not None:
        kind = dec.kind.split(".", 1)[1]
        if kind == "setup":
            return tr(lang, "skyjo.prompt.setup", n=dec.multi, left=dec.multi - len(chosen)), []
        if kind == "choose":
            top = state.discard_top()
            value = state.values[top] if top is not None else None
            buttons = [Button(DRAW, tr(lang, "skyjo.button.draw"), "1")]
            if any(o.path == (DISCARD,) for o in dec.options):
                buttons.append(Button(DISCARD, tr(lang, "skyjo.button.take", v=value), "2"))
            return tr(lang, "skyjo.prompt.choose"), buttons
        if kind in ("drawn", "took"):
            value = state.values[state.holding] if state.holding is not None else None
            buttons = []
            if any(o.path == (DISCARD,) for o in dec.options):
                buttons.append(Button(DISCARD, tr(lang, "skyjo.button.discard", v=value), "2"))
            return tr(lang, f"skyjo.prompt.{kind}", v=value), buttons
        if kind == "flip":
            return tr(lang, "skyjo.prompt.flip"), []
        if kind == "line":
            buttons = [
                Button(o.path[0], dec.labels.get(o.path[0], "?"), dec.keys.get(o.path[0]))
                for o in dec.options
            ]
            return tr(lang, "skyjo.prompt.line"), buttons
    return waiting_text(state, me, names, lang), []


def waiting_text(state: Any, me: int | None, names: Sequence[str], lang: str) -> str:
    if state.phase == SETUP:
        waiting = [names[s] for s in range(state.players) if state.to_reveal[s] > 0 and s != me]
        if waiting:
            return tr(lang, "prompt.setup_wait", names=", ".join(waiting))
        return tr(lang, "prompt.dealing")
    if state.phase == "scoring":
        return tr(lang, "prompt.scoring")
    if state.phase == "game_over":
        return tr(lang, "prompt.game_over")
    actor: int | None = getattr(state, "actor", None)
    step: str = getattr(state, "step", "")
    seat = actor if actor is not None and step else state.turn
    if seat is None:
        return ""
    if seat == me:
        return tr(lang, "prompt.wait_engine")
    return tr(lang, "prompt.waiting", who=names[seat])


def turn_text(state: Any, me: int | None, names: Sequence[str], lang: str) -> str:
    if state.phase == SETUP:
        return tr(lang, "header.setup")
    if state.phase == "game_over":
        return tr(lang, "header.game_over")
    if state.phase == "scoring":
        return tr(lang, "header.scoring")
    seat = state.turn
    if seat is None:
        return ""
    if seat == me:
        return tr(lang, "header.your_turn")
    return tr(lang, "header.turn_of", who=names[seat])


# --- the log ------------------------------------------------------------------------------------


@dataclass
class TurnRecord:
    seat: int
    source: str  # deck | discard
    drawn: int | None = None
    action: str = ""  # replace | discard
    old: int | None = None
    hidden: bool = False
    flipped: int | None = None


class SkyjoNarrator(Narrator):
    """Follows the cards' handles through the facts, to name the values each move involved."""

    def __init__(self, players: int, me: int | None, names: Sequence[str], lang: str, size: int = 12) -> None:
        super().__init__(players, me, names, lang)
        self.size = size
        self.values: dict[int, int] = {}
        self.grid: list[list[int]] = [[EMPTY] * size for _ in range(players)]
        self.up: list[list[bool]] = [[False] * size for _ in range(players)]
        self.discard: list[int] = []
        self.holding: int | None = None
        self.await_draw: int | None = None
        self.turn: TurnRecord | None = None
        self.ender: int | None = None
        self.started = False

    def fact(self, fact: Any) -> None:
        if isinstance(fact, DealRequest):
            size, players = self.size, self.players
            self.grid = [[fact.first + s * size + i for i in range(size)] for s in range(players)]
            self.up = [[False] * size for _ in range(players)]
            self.discard = [fact.first + players * size]
            self.holding = None
            self.turn = None
            self.ender = None
            self.started = False
        elif isinstance(fact, ShuffleRequest):
            self.discard = self.discard[-1:]
        elif isinstance(fact, Reshuffled):
            self.items.append(Item("reshuffle"))
        elif isinstance(fact, RevealRequest):
            if self.await_draw is not None and fact.to == self.await_draw:
                self.holding = fact.handle
                if self.turn is not None:
                    self.turn.drawn = fact.handle
                self.await_draw = None
        elif isinstance(fact, Revealed):
            if fact.value is not None:
                self.values[fact.handle] = fact.value
        elif isinstance(fact, TurnBegan):
            if not self.started:
                self.started = True
                self.items.append(Item("starts", None, fact.seat))
        elif isinstance(fact, Moved):
            self.moved(fact.move)
        elif isinstance(fact, LineRemovedFact):
            for slot in fact.slots:
                self.discard.append(self.grid[fact.seat][slot])
                self.grid[fact.seat][slot] = EMPTY
                self.up[fact.seat][slot] = False
            self.items.append(Item("line", fact, fact.seat))
        else:
            super().fact(fact)

    def moved(self, move: Move) -> None:
        seat = move.seat
        if move.kind == "reveal":
            for slot in move.slots:
                self.up[seat][slot] = True
            self.items.append(Item("setup", tuple(self.grid[seat][s] for s in move.slots), seat))
        elif move.kind == "draw":
            if move.source == "deck":
                self.await_draw = seat
                self.turn = TurnRecord(seat, "deck")
            else:
                self.holding = self.discard.pop() if self.discard else None
                self.turn = TurnRecord(seat, "discard", drawn=self.holding)
            self.items.append(Item("turn", self.turn, seat))
        elif move.kind == "replace" and move.slot is not None:
            old = self.grid[seat][move.slot]
            hidden = not self.up[seat][move.slot]
            if self.holding is not None:
                self.grid[seat][move.slot] = self.holding
            self.up[seat][move.slot] = True
            self.discard.append(old)
            if self.turn is not None:
                self.turn.action, self.turn.old, self.turn.hidden = "replace", old, hidden
            self.holding = None
            self.check_ender(seat)
        elif move.kind == "discard":
            if self.holding is not None:
                self.discard.append(self.holding)
            if self.turn is not None:
                self.turn.action = "discard"
            self.holding = None
        elif move.kind == "flip" and move.slot is not None:
            self.up[seat][move.slot] = True
            if self.turn is not None:
                self.turn.flipped = self.grid[seat][move.slot]
            self.check_ender(seat)

    def check_ender(self, seat: int) -> None:
        if self.ender is None and all(
            up or handle == EMPTY for up, handle in zip(self.up[seat], self.grid[seat], strict=True)
        ):
            self.ender = seat
            self.items.append(Item("ender", None, seat))

    def v(self, handle: int | None) -> Span | None:
        if handle is None or handle not in self.values:
            return None
        return value_span(self.values[handle], skyjo_band)

    def tell(self, item: Item) -> list[Line]:
        lang, me = self.lang, self.me
        who = self.who(item.seat)
        if item.kind == "setup":
            values = [self.v(h) for h in item.data]
            shown: list[Span] = []
            for value in values:
                if shown:
                    shown.append(Span(", "))
                shown.append(value or Span("?", "dim"))
            line = tr_spans(lang, who_key("skyjo.log.setup", item.seat, me), who=who, cards=Span("{cards}"))
            return [_splice(line, "{cards}", shown)]
        if item.kind == "starts":
            return [tr_spans(lang, who_key("log.starts", item.seat, me), who=who)]
        if item.kind == "turn":
            return [self.tell_turn(item.data, who)]
        if item.kind == "line":
            fact: LineRemovedFact = item.data
            key = who_key(f"skyjo.log.{fact.line}", item.seat, me)
            return [tr_spans(lang, key, "good", who=who, v=value_span(fact.values[0], skyjo_band))]
        if item.kind == "ender":
            return [tr_spans(lang, who_key("skyjo.log.ender", item.seat, me), "warn", who=who)]
        if item.kind == "reshuffle":
            return [tr_spans(lang, "skyjo.log.reshuffle", "dim")]
        return super().tell(item)

    def tell_turn(self, turn: TurnRecord, who: Span) -> Line:
        lang, me = self.lang, self.me
        drawn = self.v(turn.drawn)
        if turn.source == "deck":
            if drawn is None:
                line = tr_spans(lang, who_key("skyjo.log.drew_unknown", turn.seat, me), who=who)
            else:
                line = tr_spans(lang, who_key("skyjo.log.drew", turn.seat, me), who=who, v=drawn)
        else:
            line = tr_spans(lang, who_key("skyjo.log.took", turn.seat, me), who=who, v=drawn or Span("?"))
        if turn.action == "replace":
            old = self.v(turn.old)
            if old is None:
                line += tr_spans(lang, "skyjo.log.replaced_unknown")
            else:
                key = "skyjo.log.replaced_hidden" if turn.hidden else "skyjo.log.replaced"
                line += tr_spans(lang, key, v=old)
        elif turn.action == "discard":
            line += tr_spans(lang, "skyjo.log.discarded")
            if turn.flipped is not None:
                flipped = self.v(turn.flipped)
                line += tr_spans(lang, "skyjo.log.flipped", v=flipped or Span("?", "dim"))
        line.append(Span("."))
        return line


def _splice(line: Line, marker: str, spans: list[Span]) -> Line:
    out: Line = []
    for span in line:
        if span.text == marker:
            out.extend(spans)
        else:
            out.append(span)
    return out
