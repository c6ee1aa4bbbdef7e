"""SKYJO ACTION for the screen: the table model and every decision of the nine action cards as
paths of targets (the log's sentences are in `narrate`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from skyjo_p2p.action.cards import KIND_NAMES, STAR, is_action
from skyjo_p2p.action.decisions import Exchange, PickLine, RemoveFromEach
from skyjo_p2p.action.state import (
    TURN,
    ActionState,
    Step,
)
from skyjo_p2p.core.moves import Move
from skyjo_p2p.grid import EMPTY

from ...canvas import Target
from ...cards import BACK, NO_CARD, CardView, skyjo_card
from ...i18n import tr
from ...model import Button, Decision, Option
from ...targets import (
    ButtonTarget,
    Drawn3Target,
    FacesTarget,
    GridTarget,
    HeldTarget,
    LineTarget,
    MarketTarget,
    MenuTarget,
    OrderTarget,
    PileTarget,
)
from ..base import required
from ..skyjo.model import DISCARD, DRAW, GridSeat, SkyjoTable, grid_cards, waiting_text

ACTION_PILE: Target = PileTarget("action")
ACTION_DISCARD: Target = PileTarget("action-discard")
BUTTONLIKE = frozenset({"button", "line", "order", "faces", "menu"})


def decider(state: ActionState) -> int | None:
    """The seat that must decide now (None during setup, requests, scoring and at game over)."""
    if state.pending or state.step in (Step.NONE, Step.SETUP):
        return None
    actor: int | None = state.actor
    return actor


def card(value: int | None, lang: str = "en") -> CardView:
    """Any ACTION card: a number, a star or an action card (its short name in `lang`)."""
    if value is None:
        return BACK
    if value == STAR:
        return CardView("face", "★", "star", short="★", special=True)
    if is_action(value):
        kind = KIND_NAMES[value]
        return CardView(
            "face",
            tr(lang, f"action.short.{kind}"),
            "action",
            short=tr(lang, f"action.tiny.{kind}"),
            sub=tr(lang, f"action.sub.{kind}"),
            special=True,
            title=tr(lang, f"action.name.{kind}"),
        )
    return skyjo_card(value)


def card_name(value: int | None, lang: str) -> str:
    """A card in words: "7", "a star", "Swap own"."""
    if value is None:
        return "?"
    if value == STAR:
        return tr(lang, "action.star")
    if is_action(value):
        return tr(lang, f"action.name.{KIND_NAMES[value]}")
    return str(value)


@dataclass
class ActionTable(SkyjoTable):
    market: list[CardView] = field(default_factory=list)
    action_deck: int = 0
    action_discard: list[CardView] = field(default_factory=list)
    in_play: list[CardView] = field(default_factory=list)
    drawn: list[CardView] = field(default_factory=list)
    has_market: bool = True
    actor: int | None = None


def table_model(state: ActionState, me: int | None, names: Sequence[str], lang: str = "en") -> ActionTable:
    turn = state.turn if state.phase == TURN else None
    actor = decider(state)
    seats = []
    for seat in range(state.players):
        cards, shown = grid_cards(state, seat, me, lambda v: card(v, lang))
        badges = []
        if seat == turn and state.extra:
            badges.append(f"+{state.extra}")
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
                waiting=state.step == Step.SETUP and state.to_reveal[seat] > 0,
                held=[card(state.values[h], lang) for h in state.held[seat]],
                badges=badges,
                held_row=state.options.has_market,
            )
        )
    top = state.discard_top()
    discard = NO_CARD
    if top is not None:
        discard = card(state.values[top], lang) if state.is_public(top) else BACK
    drawn = [card(state.values[h], lang) for h in state.holding]
    return ActionTable(
        seats=seats,
        me=me,
        draw_count=len(state.draw),
        discard=discard,
        discard_count=len(state.discard),
        holding=drawn[0] if len(drawn) == 1 else None,
        holder=turn if state.holding else None,
        round=state.round,
        target=state.options.target_score,
        ender=state.ender,
        phase=state.phase,
        market=[NO_CARD if h == EMPTY else card(state.values[h], lang) for h in state.market],
        action_deck=len(state.action_deck),
        action_discard=[card(state.values[h], lang) for h in state.action_discard],
        in_play=[card(state.values[h], lang) for h in state.in_play],
        drawn=drawn if len(drawn) > 1 else [],
        has_market=state.options.has_market,
        actor=actor,
    )


# --- decisions ----------------------------------------------------------------------------------


def _order_label(lang: str, values: list[int | None]) -> str:
    names = [card_name(v, lang) for v in values]
    if len(names) == 1:
        return names[0]
    return tr(lang, "action.order", seq=", ".join(names), top=names[-1])


def paths(state: ActionState, me: int, move: Move, lang: str) -> list[tuple[Target, ...]]:
    """The ways to pick `move`, target by target."""
    kind = move.kind
    size = state.size
    base = me * size
    if kind == "draw":
        return [(DRAW if move.source == "deck" else DISCARD,)]
    if kind == "take":
        return [(MarketTarget(required(move.index)),)] if move.source == "market" else [(ACTION_PILE,)]
    if kind in ("play", "discard-action"):
        return [(HeldTarget(me, required(move.index)), ButtonTarget(kind))]
    if kind in ("replace", "flip"):
        return [(GridTarget(me, required(move.slot)),)]
    if kind == "discard":
        return [(DISCARD,)]
    if kind in ("pass", "keep-lines"):
        return [(ButtonTarget(kind),)]
    if kind == "remove-line":
        line = next(
            (
                ln
                for ln, _ in state.decision_as(PickLine).options
                if ln.kind == move.line and ln.index == move.index
            ),
            None,
        )
        order = move.order or (line.slots if line is not None else ())
        values = [state.values[state.grid[base + s]] for s in order]
        return [
            (LineTarget(required(move.line), required(move.index)), OrderTarget(_order_label(lang, values)))
        ]
    if kind == "pick":
        if move.slot is not None:
            return [(GridTarget(required(move.target), required(move.slot)),)]
        return [(HeldTarget(required(move.target), required(move.index)),)]
    if kind == "swap":
        a, b = GridTarget(me, required(move.slot)), GridTarget(me, required(move.slot2))
        up = move.face_up
        return [(a, b, FacesTarget(up[1], up[0])), (b, a, FacesTarget(up[0], up[1]))]
    if kind == "keep":
        others = (
            [state.values[state.holding[i]] for i in move.order]
            if move.order
            else [state.values[h] for i, h in enumerate(state.holding) if i != move.index]
        )
        return [
            (
                Drawn3Target(required(move.index)),
                GridTarget(me, required(move.slot)),
                OrderTarget(_order_label(lang, others)),
            )
        ]
    if kind == "keep-none":
        order = move.order or tuple(range(len(state.holding)))
        return [
            (
                ButtonTarget("keep-none"),
                OrderTarget(_order_label(lang, [state.values[state.holding[i]] for i in order])),
            )
        ]
    if kind == "peek":
        line = state.shape.line(move.line or "", move.index or 0)
        slots = line.slots if line is not None else ()
        target = move.target
        tbase = (target or 0) * size
        return [
            (GridTarget(required(target), s), ButtonTarget(required(move.line)))
            for s in slots
            if state.grid[tbase + s] != EMPTY
        ]
    if kind == "replay":
        return [(MenuTarget(required(move.index)),)]
    if kind == "steal":
        return [(HeldTarget(required(move.target), required(move.index)),)]
    if kind == "exchange":
        up = move.face_up
        return [
            (
                GridTarget(me, required(move.slot)),
                GridTarget(required(move.target), required(move.slot2)),
                FacesTarget(up[1], up[0]),
            )
        ]
    if kind in ("keep-action", "drop-action"):
        if move.index is not None and state.step == Step.DRAW3:
            return [(Drawn3Target(required(move.index)), ButtonTarget(kind))]
        return [(ButtonTarget(kind),)]
    return []


def decision(state: ActionState, me: int, moves: Sequence[Move], lang: str) -> Decision | None:
    if not moves:
        return None
    if moves[0].kind == "reveal":
        options = [Option(tuple(GridTarget(me, s) for s in m.slots), m) for m in moves]
        return Decision("action.setup", options, multi=len(moves[0].slots))
    options = [Option(path, move) for move in moves for path in paths(state, me, move, lang)]
    depth_keys: dict[int, dict[Target, str]] = {}
    reserved: dict[Target, str] = {DRAW: "1", DISCARD: "2", ACTION_PILE: "7"}
    reserved.update({MarketTarget(i): str(3 + i) for i in range(4)})
    for depth in range(max(len(o.path) for o in options)):
        keys: dict[Target, str] = {}
        number = 0
        seen: set[Target] = set()
        for option in options:
            if depth >= len(option.path):
                continue
            target = option.path[depth]
            if target in seen:
                continue
            seen.add(target)
            if depth == 0 and target in reserved:
                keys[target] = reserved[target]
            elif target.kind in BUTTONLIKE and number < 9:
                number += 1
                keys[target] = str(number)
        depth_keys[depth] = keys
    labels = {
        t: button_label(state, me, t, (), lang) for o in options for t in o.path if t.kind in BUTTONLIKE
    }
    focus: dict[Target, frozenset[Target]] = {}
    for option in options:
        for target in option.path:
            if isinstance(target, LineTarget):
                line = state.shape.line(target.axis, target.number)
                if line is not None:
                    focus[target] = frozenset(GridTarget(me, s) for s in line.slots)
    step = state.step if state.step else "turn"
    return Decision(
        f"action.{step}",
        options,
        labels=labels,
        depth_keys=depth_keys,
        focus=focus,
        auto=frozenset({"order"}),
    )


def _value_at(state: ActionState, target: Target) -> int | None:
    if isinstance(target, GridTarget):
        handle = state.grid[target.seat * state.size + target.slot]
        return None if handle == EMPTY else state.values[handle]
    if isinstance(target, Drawn3Target):
        index = target.place
        return state.values[state.holding[index]] if index < len(state.holding) else None
    if isinstance(target, HeldTarget):
        cards = state.held[target.seat]
        index = target.place
        return state.values[cards[index]] if index < len(cards) else None
    return None


def button_label(state: ActionState, me: int, target: Target, chosen: tuple[Target, ...], lang: str) -> str:
    if isinstance(target, ButtonTarget):
        name = target.name
        if name in ("row", "column") and chosen:
            line = _line_of(state, chosen[-1], name)
            return tr(lang, f"action.peek.{name}", n=(line or 0) + 1)
        return tr(lang, f"action.button.{name}")
    if isinstance(target, LineTarget):
        return tr(lang, f"action.remove.{target.axis}", n=target.number + 1)
    if isinstance(target, OrderTarget):
        return target.label
    if isinstance(target, MenuTarget):
        index = target.place
        handle = state.action_discard[index] if index < len(state.action_discard) else None
        return card_name(state.values[handle] if handle is not None else None, lang)
    if isinstance(target, FacesTarget):
        first, second = bool(target.first), bool(target.second)
        if len(chosen) >= 2:
            a = (
                card_name(_value_at(state, chosen[0]), lang)
                if _known(state, me, chosen[0])
                else tr(lang, "action.hidden")
            )
            b = (
                card_name(_value_at(state, chosen[1]), lang)
                if _known(state, me, chosen[1])
                else tr(lang, "action.hidden")
            )
        else:
            a, b = tr(lang, "action.first"), tr(lang, "action.second")
        up, down = tr(lang, "action.up"), tr(lang, "action.down")
        if len(chosen) >= 2 and a == b:
            a, b = f"{a}1", f"{b}2"
        return f"{a} {up if first else down}  {b} {up if second else down}"
    return str(tuple(target))


def _known(state: ActionState, me: int, target: Target) -> bool:
    if not isinstance(target, GridTarget):
        return True
    handle = state.grid[target.seat * state.size + target.slot]
    return handle != EMPTY and state.knows(me, handle)


def _line_of(state: ActionState, target: Target, kind: str) -> int | None:
    if not isinstance(target, GridTarget):
        return None
    slot = target.slot
    cols: int = state.shape.cols
    return slot % cols if kind == "column" else slot // cols


def prompt(
    state: ActionState,
    me: int | None,
    names: Sequence[str],
    lang: str,
    dec: Decision | None,
    chosen: tuple[Target, ...],
) -> tuple[str, list[Button]]:
    if dec is None or me is None:
        text = waiting_text(state, me, names, lang)
        actor = decider(state)
        if (
            actor is not None
            and actor != me
            and state.step not in (Step.CHOOSE, Step.DRAWN, Step.TOOK, Step.FLIP)
        ):
            text = tr(lang, "action.wait.step", who=names[actor], what=tr(lang, f"action.what.{state.step}"))
        return text, []
    step = dec.kind.split(".", 1)[1]
    depth = len(chosen)
    keys = dec.key_map(depth)
    from ...decisions import candidates

    buttons = [
        Button(t, button_label(state, me, t, chosen, lang), keys.get(t))
        for t in candidates(dec, chosen)
        if t.kind in BUTTONLIKE and t.kind != "menu"
    ]
    if step == "setup":
        return tr(lang, "skyjo.prompt.setup", n=dec.multi, left=dec.multi - len(chosen)), []
    if step == Step.CHOOSE:
        if chosen:
            value = _value_at(state, chosen[0])
            return tr(lang, "action.prompt.held", card=card_name(value, lang)), buttons
        return tr(lang, "action.prompt.choose"), buttons
    if step in (Step.DRAWN, Step.TOOK):
        value = state.values[state.holding[0]] if state.holding else None
        if step == Step.DRAWN and any(o.path == (DISCARD,) for o in dec.options):
            buttons.append(Button(DISCARD, tr(lang, "skyjo.button.discard", v=card_name(value, lang)), "2"))
        return tr(lang, f"skyjo.prompt.{step}", v=card_name(value, lang)), buttons
    if step == Step.FLIP:
        return tr(lang, "skyjo.prompt.flip"), buttons
    if step == Step.OFFER:
        text = tr(lang, "action.prompt.offer")
        more = state.offers.count(me)
        if more:
            text += " " + tr(lang, "action.prompt.offer_more", n=more + 1)
        return text, buttons
    if step == Step.LINES:
        key = "action.prompt.lines_order" if chosen else "action.prompt.lines"
        return tr(lang, key), buttons
    if step == Step.PICK:
        victim = state.decision.victim if isinstance(state.decision, RemoveFromEach) else 0
        return tr(lang, "action.prompt.pick", who=names[victim]), buttons
    if step == Step.SWAP:
        return tr(
            lang, ("action.prompt.swap", "action.prompt.swap2", "action.prompt.faces")[min(depth, 2)]
        ), buttons
    if step == Step.DRAW3:
        if depth == 0:
            return tr(lang, "action.prompt.draw3"), buttons
        if chosen[0].kind == "drawn3" and depth == 1:
            return tr(
                lang, "action.prompt.draw3_slot", v=card_name(_value_at(state, chosen[0]), lang)
            ), buttons
        return tr(lang, "action.prompt.order"), buttons
    if step == Step.PEEK:
        return tr(lang, "action.prompt.peek2" if chosen else "action.prompt.peek"), buttons
    if step == Step.REPLAY:
        return tr(lang, "action.prompt.replay"), buttons
    if step == Step.STEAL:
        return tr(lang, "action.prompt.steal"), buttons
    if step == Step.EXCHANGE:
        left = state.decision.left if isinstance(state.decision, Exchange) else 1
        number = 3 - left
        key = ("action.prompt.exchange", "action.prompt.exchange2", "action.prompt.faces")[min(depth, 2)]
        return tr(lang, key, n=number), buttons
    if step == Step.FOUND:
        return tr(lang, "action.prompt.found"), buttons
    return tr(lang, "help.skyjo.turn"), buttons


def turn_text(state: ActionState, me: int | None, names: Sequence[str], lang: str) -> str:
    from ..skyjo.model import turn_text as classic

    return classic(state, me, names, lang)
