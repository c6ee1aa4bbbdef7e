"""The `strong` SKYJO ACTION player: expected-value play over the cards it has not seen.

`action_model.Model` values the table (its docstring has the design; docs/bots-action.md the long
form); here each decision step picks the move of best value. It reads only its seat's view, and
is deterministic given its seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..action.cards import ATTACKS, STAR
from ..action.decisions import Exchange, RemoveFromEach, TurnedUp
from ..action.state import ActionState, Step
from ..core.moves import Move
from ..core.rng import Rng
from ..engine import legal_moves
from .action_model import ActionParams, Model
from .action_view import GONE, UNK, value_of


class ActionStrongBot:
    name = "strong"

    def __init__(self, seed: int | str = 0, params: ActionParams | None = None) -> None:
        self.rng = Rng(seed)
        self.params = params or ActionParams()

    def choose(self, view: ActionState, seat: int) -> Move:
        if view.step == Step.SETUP:
            return self._setup(view, seat)
        model = Model(view, seat, self.params)
        handler = _STEPS.get(view.step)
        if handler is None:  # pragma: no cover - every step has a rule
            raise ValueError(f"strong has no rule for step {view.step!r}")
        return handler(model)

    def _setup(self, view: ActionState, seat: int) -> Move:
        # Cards of one column: a pair found early is worth building on.
        count = view.to_reveal[seat]
        down = view.face_down_slots(seat)
        cols = view.shape.cols
        start = self.rng.below(cols)
        column = [s for s in down if s % cols == start]
        others = [s for s in down if s % cols != start]
        self.rng.shuffle(others)
        chosen = (column + others)[:count]
        return Move(seat, "reveal", slots=tuple(sorted(chosen)))


# --- the decisions --------------------------------------------------------------------------------


def _choose(m: Model) -> Move:
    view, me = m.view, m.me
    moves = legal_moves(view, me)
    options: list[tuple[float, int, Move]] = []
    held = list(m.held[me])
    still = m.still()
    for order, move in enumerate(moves):
        if move.kind == "draw" and move.source == "deck":
            u = m.draw_u() + m.h0()
        elif move.kind == "draw":
            top = view.discard_top()
            assert top is not None
            card = view.public_value(top)
            u = m.keep_u(card, taken=True)[0] + m.h0()
            if u > still + m.h0() + 1e-9:
                u = math.inf  # a take that makes things worse is a pass: draw instead
        elif move.kind == "take":
            if m.final_lap:
                u = still + m.held_term([*held, 0])
            elif move.source == "market":
                assert move.index is not None
                kind = view.public_value(view.market[move.index])
                u = still + m.held_term([*held, kind])
            else:
                u = still + sum(p * m.held_term([*held, k]) for k, p in m.deck_kinds())
        elif move.kind == "play":
            assert move.index is not None
            kind = held[move.index]
            rest = held[: move.index] + held[move.index + 1 :]
            u = still - m.gain(kind) + m.held_term(rest)
        elif move.kind == "discard-action":
            assert move.index is not None
            rest = held[: move.index] + held[move.index + 1 :]
            u = still + m.held_term(rest)
        else:
            u = math.inf
        options.append((u, order, move))
    return min(options, key=lambda o: (o[0], o[1]))[2]


def _held_card(m: Model) -> int:
    assert m.view.holding
    card = value_of(m.view, m.me, m.view.holding[0])
    assert card is not None, "a seat sees the card it holds"
    return card


def _drawn(m: Model) -> Move:
    card = _held_card(m)
    if card > STAR:
        return _declare(m, card, None)
    keep, slot = m.keep_u(card)
    if m.down_count(m.vals, m.ups):
        toss = m.flip_u()[0] + m.feed(card)
        if toss < keep:
            return Move(m.me, "discard")
    return Move(m.me, "replace", slot=slot)


def _took(m: Model) -> Move:
    return Move(m.me, "replace", slot=m.keep_u(_held_card(m), taken=True)[1])


def _flip(m: Model) -> Move:
    return Move(m.me, "flip", slot=m.flip_u()[1])


def _declare(m: Model, kind: int, index: int | None) -> Move:
    keep = not m.final_lap and m.take_value(kind) > 0
    return Move(m.me, "keep-action" if keep else "drop-action", index=index)


def _found(m: Model) -> Move:
    handle = m.view.decision_as(TurnedUp).handle
    return _declare(m, m.view.public_value(handle), None)


def _offer(m: Model) -> Move:
    if m.final_lap:
        return Move(m.me, "pass")
    value, move = m.best_take()
    return move if move is not None and value > 0 else Move(m.me, "pass")


def _lines(m: Model) -> Move:
    """Equal numbers must go; numbers with stars go when they add up to more than 0 (a kept line
    can be broken by an attack before the end); lines of stars stay (-10, -15). Among the
    removals, the one leaving the best grid, its cards ordered to leave the next player the least."""
    best: tuple[float, int, Move] | None = None
    keep: Move | None = None
    for order, move in enumerate(legal_moves(m.view, m.me)):
        if move.kind != "remove-line":
            keep = move
            continue
        vals = list(m.vals)
        ups = list(m.ups)
        line = m.view.shape.line(move.line or "", move.index if move.index is not None else -1)
        assert line is not None
        slots = move.order or tuple(s for s in line.slots if vals[s] != GONE)
        cards = [vals[s] for s in slots]
        if STAR in cards and sum(v for v in cards if v != STAR) <= 0:
            continue  # optional, and worth keeping
        for s in slots:
            vals[s] = GONE
            ups[s] = False
        m.settle(vals, ups, slots)
        u = m.worth(vals, m.turns) + m.feed(cards[-1])
        if best is None or u < best[0] - 1e-9:
            best = (u, order, move)
    if best is None:
        assert keep is not None, "a mandatory line is always removable"
        return keep
    return best[2]


def _draw_three(m: Model) -> Move:
    view, me = m.view, m.me
    cards = [value_of(view, me, h) for h in view.holding]
    for index, card in enumerate(cards):
        if card is not None and card > STAR:
            return _declare(m, card, index)
    numbers = [c if c is not None else UNK for c in cards]
    moves = legal_moves(view, me)
    options: list[tuple[float, int, Move]] = []
    if any(mv.kind == "keep-none" for mv in moves):
        order = tuple(sorted(range(len(numbers)), key=lambda i: (-m.feed(numbers[i]), i)))
        if m.down_count(m.vals, m.ups):
            u = m.flip_u()[0] + m.feed(numbers[order[-1]])
        else:
            u = m.after(m.vals, m.ups)
        options.append((u, 0, Move(me, "keep-none", order=order)))
    for index, card in enumerate(numbers):
        u, slot = m.keep_u(card)
        rest = tuple(i for i in range(len(numbers)) if i != index)
        options.append((u, 1 + index, Move(me, "keep", index=index, slot=slot, order=rest)))
    return min(options, key=lambda o: (o[0], o[1]))[2]


def _pick(m: Model) -> Move:
    victim = m.view.decision_as(RemoveFromEach).victim
    vals, _ = m.grids[victim]
    best: tuple[float, Move] | None = None
    for slot in range(m.size):
        if vals[slot] == GONE:
            continue
        u = m._pick_value(victim, slot)
        if best is None or u < best[0] - 1e-9:
            best = (u, Move(m.me, "pick", target=victim, slot=slot))
    weight = m.danger()[victim]
    for index, kind in enumerate(m.held[victim]):
        u = -m.p.harm * weight * (3.0 if kind not in ATTACKS else 5.0)
        if best is None or u < best[0] - 1e-9:
            best = (u, Move(m.me, "pick", target=victim, index=index))
    assert best is not None
    return best[1]


def _swap(m: Model) -> Move:
    move = m.best_swap_own()[1]
    assert move is not None
    return move


def _peek(m: Model) -> Move:
    return m.best_peek()[1]


def _replay(m: Model) -> Move:
    pile = m.view.action_discard
    best = max(range(len(pile)), key=lambda i: (m.gain(m.view.public_value(pile[i]), 1), i))
    return Move(m.me, "replay", index=best)


def _steal(m: Model) -> Move:
    best: tuple[float, Move] | None = None
    for s in m.others:
        blocked = m.holds_defense(s)
        for index, kind in enumerate(m.held[s]):
            value = 0.3 if blocked else m.gain(kind, 1) + m.p.harm * m.danger()[s] * 2.0
            if best is None or value > best[0] + 1e-9:
                best = (value, Move(m.me, "steal", target=s, index=index))
    assert best is not None
    return best[1]


def _exchange(m: Model) -> Move:
    exchange = m.view.decision_as(Exchange)
    attacked, immune = exchange.attacked, exchange.immune
    options = m.exchange_options(attacked, immune)
    return min(options, key=lambda o: o[0])[1]


_STEPS: dict[str, Callable[[Model], Move]] = {
    Step.CHOOSE: _choose,
    Step.DRAWN: _drawn,
    Step.TOOK: _took,
    Step.FLIP: _flip,
    Step.OFFER: _offer,
    Step.LINES: _lines,
    Step.FOUND: _found,
    Step.DRAW3: _draw_three,
    Step.PICK: _pick,
    Step.SWAP: _swap,
    Step.PEEK: _peek,
    Step.REPLAY: _replay,
    Step.STEAL: _steal,
    Step.EXCHANGE: _exchange,
}
