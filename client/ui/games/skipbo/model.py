"""SKIP-BO for the screen: the table model, the decisions, the log's sentences."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from skyjo_p2p.core.events import Reshuffled, RoundEnded, TurnBegan
from skyjo_p2p.core.moves import Move
from skyjo_p2p.skipbo.cards import BUILDING_PILES, DISCARD_PILES, WILD
from skyjo_p2p.skipbo.state import (
    DISCARD,
    HAND,
    PARTNER_STOCK,
    SETUP,
    STOCK,
    TURN,
    Discarded,
    PileCompleted,
    Played,
    RoundBlocked,
    SkipBoState,
)

from ...canvas import Span, Target
from ...cards import BACK, NO_CARD, CardView, skipbo_band, skipbo_card
from ...i18n import tr, tr_spans, who_key
from ...model import Button, Decision, Option
from ...narrate import Item, Line, Narrator, value_span
from ...targets import BuildingTarget, ButtonTarget, HandTarget, SeatDiscardTarget, StockTarget
from ..base import required

END: Target = ButtonTarget("end")


@dataclass
class BuildingView:
    top: CardView
    height: int
    needs: int


@dataclass
class SkipBoSeat:
    seat: int
    name: str
    stock_top: CardView
    stock_count: int
    hand: list[CardView]
    discards: list[list[CardView]]
    total: int
    active: bool
    me: bool
    partner: int | None


@dataclass
class SkipBoTable:
    seats: list[SkipBoSeat]
    me: int | None
    building: list[BuildingView]
    draw_count: int
    set_aside: int
    round: int
    target: int
    single_round: bool
    phase: str


def _value(state: SkipBoState, handle: int) -> int | None:
    return state.values[handle]


def table_model(state: SkipBoState, me: int | None, names: Sequence[str], lang: str = "en") -> SkipBoTable:
    turn = state.turn if state.phase == TURN else None
    seats = []
    for seat in range(state.players):
        stock = state.stocks[seat]
        top = skipbo_card(_value(state, stock[-1])) if stock else NO_CARD
        hand = [skipbo_card(_value(state, h)) if seat == me else BACK for h in state.hands[seat]]
        piles = [
            [skipbo_card(_value(state, h)) for h in state.discard_pile(seat, p)] for p in range(DISCARD_PILES)
        ]
        seats.append(
            SkipBoSeat(
                seat=seat,
                name=names[seat],
                stock_top=top,
                stock_count=len(stock),
                hand=hand,
                discards=piles,
                total=state.totals[seat],
                active=seat == turn,
                me=seat == me,
                partner=state.partner(seat),
            )
        )
    building = []
    for pile in state.building:
        if pile:
            value = _value(state, pile[-1])
            card = skipbo_card(value)
            if value == WILD:
                card = CardView("face", "SB", "wild", sub=f"={len(pile)}", special=True)
            building.append(BuildingView(card, len(pile), len(pile) + 1))
        else:
            building.append(BuildingView(NO_CARD, 0, 1))
    return SkipBoTable(
        seats=seats,
        me=me,
        building=building,
        draw_count=len(state.draw),
        set_aside=len(state.set_aside),
        round=state.round,
        target=state.options.target_score,
        single_round=state.options.single_round,
        phase=state.phase,
    )


# --- decisions ----------------------------------------------------------------------------------


def source_target(move: Move, me: int, mate: int | None) -> Target:
    if move.source == HAND:
        return HandTarget(me, required(move.index))
    if move.source == STOCK:
        return StockTarget(me)
    if move.source == PARTNER_STOCK:
        return StockTarget(required(mate))
    if move.source == DISCARD:
        return SeatDiscardTarget(me, required(move.pile))
    return SeatDiscardTarget(required(mate), required(move.pile))  # PARTNER_DISCARD


def decision(state: SkipBoState, me: int, moves: Sequence[Move], lang: str) -> Decision | None:
    if not moves:
        return None
    mate = state.partner(me)
    options = []
    for move in moves:
        if move.kind == "play":
            options.append(
                Option((source_target(move, me, mate), BuildingTarget(required(move.target))), move)
            )
        elif move.kind == "discard":
            options.append(
                Option(
                    (HandTarget(me, required(move.index)), SeatDiscardTarget(me, required(move.pile))), move
                )
            )
        elif move.kind == "end":
            options.append(Option((END,), move))
    first: dict[Target, str] = {HandTarget(me, i): str(i + 1) for i in range(5)}
    first[StockTarget(me)] = "6"
    first.update({SeatDiscardTarget(me, p): "7890"[p] for p in range(DISCARD_PILES)})
    first[END] = "e"
    second: dict[Target, str] = {BuildingTarget(t): str(t + 1) for t in range(BUILDING_PILES)}
    # the discard piles keep their keys when a card goes on them (one set of keys for them)
    second.update({SeatDiscardTarget(me, p): "7890"[p] for p in range(DISCARD_PILES)})
    return Decision(
        "skipbo.turn",
        options,
        labels={END: tr(lang, "skipbo.button.end")},
        depth_keys={0: first, 1: second},
    )


def chosen_value(state: SkipBoState, target: Target) -> int | None:
    if isinstance(target, HandTarget):
        hand = state.hands[target.seat]
        index = target.place
        return state.values[hand[index]] if index < len(hand) else None
    if isinstance(target, StockTarget):
        stock = state.stocks[target.seat]
        return state.values[stock[-1]] if stock else None
    if isinstance(target, SeatDiscardTarget):
        pile = state.discard_pile(target.seat, target.pile)
        return state.values[pile[-1]] if pile else None
    return None


def card_name(lang: str, value: int | None) -> str:
    if value is None:
        return "?"
    return "SKIP-BO" if value == WILD else str(value)


def prompt(
    state: SkipBoState,
    me: int | None,
    names: Sequence[str],
    lang: str,
    dec: Decision | None,
    chosen: tuple[Target, ...],
) -> tuple[str, list[Button]]:
    if dec is not None:
        buttons = []
        if not chosen:
            if any(o.path == (END,) for o in dec.options):
                buttons.append(Button(END, dec.labels[END], "e"))
                return tr(lang, "skipbo.prompt.empty_hand"), buttons
            cards = len(state.hands[me]) if me is not None else 0
            hand = f"1-{cards}" if cards > 1 else "1" if cards else "-"
            return tr(lang, "skipbo.prompt.pick", hand=hand), buttons
        value = card_name(lang, chosen_value(state, chosen[0]))
        next_targets = {o.path[1] for o in dec.options if o.path[:1] == chosen and len(o.path) > 1}
        fits = any(t.kind == "building" for t in next_targets)
        if chosen[0].kind == "hand":
            key = "skipbo.prompt.hand" if fits else "skipbo.prompt.hand_nofit"
            return tr(lang, key, v=value), buttons
        return tr(lang, "skipbo.prompt.place", v=value), buttons
    if state.phase == SETUP:
        return tr(lang, "prompt.dealing"), []
    if state.phase == "game_over":
        return tr(lang, "prompt.game_over"), []
    if state.turn is None:
        return "", []
    if state.turn == me:
        return tr(lang, "prompt.wait_engine"), []
    return tr(lang, "prompt.waiting", who=names[state.turn]), []


def turn_text(state: SkipBoState, me: int | None, names: Sequence[str], lang: str) -> str:
    if state.phase == SETUP:
        return tr(lang, "header.dealing")
    if state.phase == "game_over":
        return tr(lang, "header.game_over")
    if state.turn is None:
        return ""
    if state.turn == me:
        return tr(lang, "header.your_turn")
    return tr(lang, "header.turn_of", who=names[state.turn])


# --- the log ------------------------------------------------------------------------------------


@dataclass
class SkipBoTurn:
    seat: int
    plays: list[Played]
    discarded: int | None = None


class SkipBoNarrator(Narrator):
    lowest_wins = False

    def __init__(self, players: int, me: int | None, names: Sequence[str], lang: str) -> None:
        super().__init__(players, me, names, lang)
        self.turn: SkipBoTurn | None = None

    def fact(self, fact: Any) -> None:
        if isinstance(fact, TurnBegan):
            self.turn = SkipBoTurn(fact.seat, [])
            self.items.append(Item("turn", self.turn, fact.seat))
        elif isinstance(fact, Played):
            if self.turn is None or self.turn.seat != fact.seat:
                self.turn = SkipBoTurn(fact.seat, [])
                self.items.append(Item("turn", self.turn, fact.seat))
            self.turn.plays.append(fact)
        elif isinstance(fact, Discarded):
            if self.turn is not None and self.turn.seat == fact.seat:
                self.turn.discarded = fact.value
        elif isinstance(fact, PileCompleted):
            self.items.append(Item("complete", fact.pile))
        elif isinstance(fact, RoundBlocked):
            self.items.append(Item("blocked", fact))
        elif isinstance(fact, Reshuffled):
            self.items.append(Item("reshuffle"))
        elif isinstance(fact, RoundEnded):
            self.turn = None
            super().fact(fact)
        else:
            super().fact(fact)

    def tell(self, item: Item) -> list[Line]:
        lang, me = self.lang, self.me
        if item.kind == "turn":
            turn: SkipBoTurn = item.data
            if not turn.plays and turn.discarded is None:
                return []
            who = self.who(turn.seat)
            line: Line = []
            if turn.plays:
                line = tr_spans(lang, who_key("skipbo.log.played", turn.seat, me), who=who)
                for number, play in enumerate(turn.plays):
                    if number:
                        line.append(Span(", "))
                    line.extend(self.play(play))
                if turn.discarded is not None:
                    line += tr_spans(lang, "skipbo.log.and_discarded", v=self.card(turn.discarded))
            else:
                line = tr_spans(
                    lang, who_key("skipbo.log.discarded", turn.seat, me), who=who, v=self.card(turn.discarded)
                )
            line.append(Span("."))
            return [line]
        if item.kind == "complete":
            return [tr_spans(lang, "skipbo.log.complete", "good", n=int(item.data) + 1)]
        if item.kind == "blocked":
            return [tr_spans(lang, "skipbo.log.blocked", "warn")]
        if item.kind == "reshuffle":
            return [tr_spans(lang, "skipbo.log.reshuffle", "dim")]
        return super().tell(item)

    def tell_round(self, fact: RoundEnded) -> list[Line]:
        lines = super().tell_round(fact)
        if fact.ender is not None:
            who = self.who(fact.ender)
            lines.insert(
                0,
                tr_spans(
                    self.lang,
                    who_key("skipbo.log.won_round", fact.ender, self.me),
                    "good",
                    who=who,
                    points=fact.scores[fact.ender],
                ),
            )
        return lines

    def card(self, value: int | None) -> Span:
        if value == WILD:
            return Span("SB", "fg.wild")
        return value_span(value, skipbo_band)

    def play(self, play: Played) -> Line:
        spans: Line = [self.card(play.value)]
        if play.value == WILD:
            spans.append(Span(f"={play.as_value}", "fg.wild"))
        if play.source != HAND:
            spans.append(Span(" "))
            spans.append(Span(tr(self.lang, f"skipbo.source.{play.source}"), "dim"))
        return spans
