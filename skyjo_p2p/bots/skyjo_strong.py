"""The `strong` SKYJO player: expected-value play over the cards it has not seen.

How it decides (details in docs/bots.md):

* **What is left.** It counts every card it can see (all face-up cards, the discard pile, its own
  drawn card); the rest of the deck is the distribution of any unseen card (`Unseen`).
* **A grid's worth** (`Evaluator.value`): the expected final score of the grid. Face-up cards count
  their value, face-down cards the mean unseen value; from that it subtracts what the remaining
  turns should still gain (each turn, the worst slot is replaced by a random card when that helps:
  E[max(0, worst - X)]), and the expected saving of columns that may still be completed (a pair of
  equal face-up cards whose third card can still become equal; the column then vanishes).
* **A move's worth**: the grid's worth after the move, plus a penalty for discarding a card the next
  player wants. Drawing from the deck is valued as the average, over the unseen cards, of the best
  thing to do with each.
* **Ending the round**: a move that turns its last face-down card ends the round. It then compares
  "end now" (its exact score, doubled with the probability that some opponent scores as low or lower,
  against opponents frozen after one last turn) with "go on" (its grid's worth, against opponents
  who keep improving), each net of the opponents' expected scores weighted by `rivalry`.

It reads only its seat's view; the parameters below were tuned by tournament against `greedy`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.moves import Move
from ..core.rng import Rng
from ..engine import legal_moves
from ..skyjo.state import SETUP, SkyjoState, Step
from .skyjo_view import DOWN, GONE, Slot, Unseen, grids, unseen_cards


@dataclass(frozen=True)
class StrongParams:
    turns_per_card: float = 1.25  # an opponent's turns per face-down card it still has
    future_weight: float = 0.85  # how much of the estimated future gains to count
    pair_weight: float = 0.75  # how much of a column's completion value to count
    feed_weight: float = 0.5  # penalty per point a discard gives the next player
    rivalry: float = 0.6  # weight of the opponents' expected scores when ending a round
    down_bias: float = 0.0  # added to the mean for face-down cards (risk aversion)


@dataclass
class Evaluator:
    """The value model for one decision: the unseen distribution and the table's pace."""

    unseen: Unseen
    cols: int
    params: StrongParams

    def __post_init__(self) -> None:
        self.dist = self.unseen.probabilities()
        self.mean = self.unseen.mean
        self.down = self.mean + self.params.down_bias
        self._p = dict(self.dist)

    def p(self, value: int) -> float:
        return self._p.get(value, 0.0)

    def gain(self, worst: float) -> float:
        """E[max(0, worst - X)]: what one draw saves on a slot worth `worst`."""
        return sum(p * (worst - x) for x, p in self.dist if x < worst)

    def slot_estimate(self, slot: Slot) -> float:
        if slot is DOWN:
            return self.down
        assert isinstance(slot, int)
        return float(slot)

    def value(self, grid: Sequence[Slot], turns: float) -> float:
        """Expected final score of `grid` with about `turns` turns of play left."""
        estimates = [self.slot_estimate(s) for s in grid if s != GONE]
        total = sum(estimates)
        if turns > 0 and estimates:
            total -= self.params.future_weight * self._future_gain(estimates, turns)
        total -= self.params.pair_weight * self._column_potential(grid, turns)
        return total

    def _future_gain(self, estimates: list[float], turns: float) -> float:
        values = sorted(estimates, reverse=True)
        whole = int(turns)
        fraction = turns - whole
        gained = 0.0
        for step in range(whole + (1 if fraction > 0 else 0)):
            worst = values[0]
            g = self.gain(worst)
            if g <= 0.01:
                break
            weight = fraction if step == whole else 1.0
            gained += g * weight
            values[0] = worst - g
            values.sort(reverse=True)
        return gained

    def _column_potential(self, grid: Sequence[Slot], turns: float) -> float:
        rows = len(grid) // self.cols
        if rows != 3:
            return 0.0
        potential = 0.0
        for col in range(self.cols):
            slots = [grid[col + self.cols * r] for r in range(rows)]
            if GONE in slots:
                continue
            faces = [s for s in slots if isinstance(s, int)]
            if len(faces) < 2:
                continue
            for v in set(faces):
                if faces.count(v) != 2:
                    continue
                third = next(s for s in slots if s != v)
                p_v = self.p(v)
                later = 1.0 - (1.0 - p_v) ** max(turns, 0.0) if turns > 0 else 0.0
                if third is DOWN:
                    chance = p_v + (1 - p_v) * later
                    rest = self.down
                else:
                    assert isinstance(third, int)
                    chance = later
                    rest = float(third)
                potential += chance * max(0.0, 2 * v + rest)
        return potential


def place(grid: Sequence[Slot], slot: int, card: int, cols: int) -> list[Slot]:
    """The grid after `card` replaces `slot`, with a completed column removed (R-S6)."""
    out = list(grid)
    out[slot] = card
    col = slot % cols
    slots = [col + cols * r for r in range(len(out) // cols)]
    if len(slots) == 3 and all(out[s] == card for s in slots):
        for s in slots:
            out[s] = GONE
    return out


def final_score(grid: Sequence[Slot]) -> int:
    return sum(s for s in grid if isinstance(s, int))


def _normal_above(threshold: float, mean: float, sd: float) -> float:
    if sd <= 1e-9:
        return 1.0 if mean > threshold else 0.0
    return 0.5 * math.erfc((threshold - mean) / (sd * math.sqrt(2)))


class SkyjoStrongBot:
    name = "strong"

    def __init__(self, seed: int | str = 0, params: StrongParams | None = None) -> None:
        self.rng = Rng(seed)
        self.params = params or StrongParams()

    # --- the table as this seat sees it -----------------------------------------------------

    def choose(self, view: SkyjoState, seat: int) -> Move:
        if view.phase == SETUP:
            return self._setup(view, seat)
        if view.step == Step.LINE:
            return legal_moves(view, seat)[0]
        table = _Table(view, seat, self.params)
        if view.step == Step.CHOOSE:
            return table.choose_source()
        if view.step in (Step.DRAWN, Step.TOOK):
            card = view.values[view.holding] if view.holding is not None else None
            assert card is not None, "a seat sees the card it holds"
            return table.use_card(card, may_discard=view.step == Step.DRAWN)
        if view.step == Step.FLIP:
            return table.flip()
        raise ValueError(f"strong has no rule for step {view.step!r}")

    def _setup(self, view: SkyjoState, seat: int) -> Move:
        # Two cards of one column: a pair found early is worth building on.
        count = view.to_reveal[seat]
        down = view.face_down_slots(seat)
        cols = view.shape.cols
        start = self.rng.below(cols)
        column = [s for s in down if s % cols == start]
        others = [s for s in down if s % cols != start]
        self.rng.shuffle(others)
        chosen = (column + others)[:count]
        return Move(seat, "reveal", slots=tuple(sorted(chosen)))


class _Table:
    """One decision: the seat's grid, the opponents, the pace, and the evaluation of moves."""

    def __init__(self, view: SkyjoState, seat: int, params: StrongParams) -> None:
        self.view = view
        self.seat = seat
        self.params = params
        self.cols = view.shape.cols
        self.grids = grids(view)
        self.mine = self.grids[seat]
        self.eval = Evaluator(unseen_cards(view, seat), self.cols, params)
        self.final_lap = view.ender is not None
        others = [s for s in range(view.players) if s != seat]
        self.others = others
        if self.final_lap:
            self.turns = 0.0
        else:
            paces = [self._down(self.grids[s]) * params.turns_per_card for s in others]
            self.turns = max(0.0, min(paces)) if paces else 6.0
        nxt = (seat + 1) % view.players
        self.next_grid = self.grids[nxt] if view.players > 1 else None
        self._opp_going_on: float | None = None
        self._best_flip: float | None = None

    @staticmethod
    def _down(grid: Sequence[Slot]) -> int:
        return sum(1 for s in grid if s is DOWN)

    # --- values -------------------------------------------------------------------------------

    def worth(self, grid: Sequence[Slot]) -> float:
        """The utility of leaving my grid as `grid` (lower is better)."""
        if not self.final_lap and self._down(grid) == 0:
            return self._ending_worth(grid)
        return self.eval.value(grid, self.turns) - self.params.rivalry * self._opponents_going_on()

    def _opponents_going_on(self) -> float:
        if self._opp_going_on is None:
            values = [self.eval.value(self.grids[s], self.turns) for s in self.others]
            self._opp_going_on = sum(values) / len(values) if values else 0.0
        return self._opp_going_on

    def _ending_worth(self, grid: Sequence[Slot]) -> float:
        """My expected points if this move ends the round, net of the opponents' (R-S7, R-S8)."""
        score = final_score(grid)
        finals = []
        p_lowest = 1.0
        for s in self.others:
            theirs = self.grids[s]
            mean = self.eval.value(theirs, 1.0)
            sd = math.sqrt(self._down(theirs) * self.eval.unseen.variance)
            finals.append(mean)
            p_lowest *= _normal_above(score + 0.5, mean, sd)
        multiplier = self.view.options.ender_multiplier
        mine = score * (p_lowest + multiplier * (1 - p_lowest)) if score > 0 else float(score)
        return mine - self.params.rivalry * (sum(finals) / len(finals) if finals else 0.0)

    def feed(self, card: int) -> float:
        """What discarding `card` gives the next player, if they would take it."""
        grid = self.next_grid
        if grid is None:
            return 0.0
        faces = [s for s in grid if isinstance(s, int)]
        worst = max([*faces, self.eval.mean]) if faces else self.eval.mean
        completes = any(
            place(grid, slot, card, self.cols)[slot] == GONE
            for slot, s in enumerate(grid)
            if s != GONE and s != card
        )
        if completes:
            return self.params.feed_weight * (2 * card + worst if card > 0 else worst)
        if card <= 3:
            return self.params.feed_weight * max(0.0, worst - card)
        return 0.0

    def best_placement(self, card: int) -> tuple[float, int]:
        best: tuple[float, int] | None = None
        for slot, current in enumerate(self.mine):
            if current == GONE:
                continue
            grid = place(self.mine, slot, card, self.cols)
            replaced = current if isinstance(current, int) else None
            worth = self.worth(grid) + (self.feed(replaced) if replaced is not None else 0.0)
            if best is None or worth < best[0] - 1e-9:
                best = (worth, slot)
        assert best is not None
        return best

    def discard_and_flip_worth(self, card: int) -> float | None:
        """Discarding `card` and turning the best face-down card (None if there is none)."""
        if self._best_flip is None:
            down = [s for s, v in enumerate(self.mine) if v is DOWN]
            if not down:
                return None
            self._best_flip = min(self._flip_worth(s) for s in down)
        return self._best_flip + self.feed(card)

    def _flip_worth(self, slot: int) -> float:
        total = 0.0
        for value, p in self.eval.dist:
            total += p * self.worth(place(self.mine, slot, value, self.cols))
        return total

    # --- decisions ----------------------------------------------------------------------------

    def choose_source(self) -> Move:
        seat = self.seat
        top = self.view.discard_top()
        take = None
        if top is not None:
            take, _ = self.best_placement(self.view.public_value(top))
        if not self.view.draw and len(self.view.discard) <= 1:
            return Move(seat, "draw", source="discard")
        draw = 0.0
        for value, p in self.eval.dist:
            keep, _ = self.best_placement(value)
            toss = self.discard_and_flip_worth(value)
            draw += p * (keep if toss is None else min(keep, toss))
        if take is not None and take < draw:
            return Move(seat, "draw", source="discard")
        return Move(seat, "draw", source="deck")

    def use_card(self, card: int, may_discard: bool) -> Move:
        keep, slot = self.best_placement(card)
        if may_discard:
            toss = self.discard_and_flip_worth(card)
            if toss is not None and toss < keep:
                return Move(self.seat, "discard")
        return Move(self.seat, "replace", slot=slot)

    def flip(self) -> Move:
        down = [s for s, v in enumerate(self.mine) if v is DOWN]
        best = min(down, key=lambda s: (self._flip_worth(s), s))
        return Move(self.seat, "flip", slot=best)
