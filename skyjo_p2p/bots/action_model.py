"""How the `strong` SKYJO ACTION player values a table: `Model`, one decision's evaluation.

Design (docs/bots-action.md has the long form):

* **What is left** (`action_view.unseen_pool`): the playing deck minus every card this seat knows:
  every face-up card, the discard pile, its own drawn and draw-three cards, cards it peeked at.
  Any unseen card is a draw from that multiset (exact expectations, no sampling).
* **A grid's worth** (`Model.worth`): its expected final score with ``T`` turns of play left: known
  cards at their value (a star 0), unknown ones at the mean unseen value; minus what the turns left
  should gain (each turn the worst card is replaced by a random one when that helps); minus the
  expected saving of lines (columns and rows, stars wild, ``wild_min_numbers``) one card short of
  removable; minus kept lines of stars (-10 / -15). ``T`` comes from the opponents' face-down
  cards (the round ends when someone has none left).
* **A move's worth** (`Model.after`): the grid after the move and the line removals it causes;
  a move that leaves any grid without a face-down card ends the round (R-A9, even through another
  grid) and is valued as the exact end: its score with 10 per held action card, doubled with the
  probability that an opponent ends as low or lower after one last turn (normal model), net of the
  opponents' expected scores. Drawing is worth the expectation, over the unseen cards, of the best
  use of each card; discarding pays a penalty when the next player would take the card.
* **Action cards** (`Model.gain`): each kind's gain is the change of worth its best use brings,
  against the pace of an ordinary turn (``tempo``): extra-turns and defense give turns back;
  draw-three is the expected best of three cards; swap-own, remove-from-each and swap-with-others
  evaluate their best targets (opponents' worths weighted by how dangerous each is in the game
  totals; a Defense holder is not worth attacking); steal-and-play and replay-discard are the best
  card they reach. A held card costs 10 at the round end unless played first; the chance of that
  comes from the opponents' face-down cards (the round end can come before the next turn), and no
  card is taken or kept in the final lap (R-A5). A held Defense is kept while attacks are likely
  and the round end is far, played (a free turn) when the end comes near.
* **Targets**: remove-from-each takes each opponent's most valuable card (the one whose loss raises
  its worth most: a low card, a star, a card of an almost complete line), never its last face-down
  card unless ending the round pays; swap-with-others takes opponents' low cards for its high ones
  (avoiding Defense holders); peek-line looks at an opponent's line before a swap-with-others,
  else at its own line with the most unknown cards.

`action_strong` turns these values into a move for each step.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..action.cards import (
    ATTACKS,
    DEFENSE,
    DRAW_THREE,
    EXTRA_TURNS,
    KINDS,
    PEEK_LINE,
    REMOVE_FROM_EACH,
    REPLAY_DISCARD,
    STAR,
    STEAL_AND_PLAY,
    SWAP_OWN,
    SWAP_WITH_OTHERS,
)
from ..action.lines import MANDATORY, NONE, best_removals, classify
from ..action.state import ActionState
from ..core.moves import Move
from ..grid import EMPTY
from .action_view import GONE, UNK, grid_of, line_slots, removable, unseen_pool

Grid = list[int]
Ups = list[bool]


@dataclass(frozen=True)
class ActionParams:
    turns_per_card: float = 1.25  # an opponent's turns per face-down card it still has
    future_weight: float = 0.85  # how much of the estimated future gains to count
    line_weight: float = 0.75  # how much of a line's completion value to count
    feed_weight: float = 0.5  # penalty per point a discard gives the next player
    rivalry: float = 0.6  # weight of the opponents' expected scores when ending a round
    harm: float = 1.0  # weight of the harm done to opponents (attacks), times their danger weight
    danger_scale: float = 15.0  # game points over which an opponent's danger weight falls by e
    peek_value: float = 0.5  # worth of seeing one unknown card
    shield_base: float = 1.0  # worth of holding a Defense with no attack card in sight
    star_take: float = 1.0  # how much of the best card a woken star's take is counted


def _normal_above(threshold: float, mean: float, sd: float) -> float:
    if sd <= 1e-9:
        return 1.0 if mean > threshold else 0.0
    return 0.5 * math.erfc((threshold - mean) / (sd * math.sqrt(2)))


def _hazard(down: int) -> float:
    """The chance a grid with `down` face-down cards triggers the round end on its owner's turn."""
    if down <= 0:
        return 1.0
    return {1: 0.45, 2: 0.12, 3: 0.04}.get(down, 0.015)


def pts(value: int, mean: float) -> float:
    """What a card counts: a number its value, a star 0, an unknown card the mean."""
    if value < STAR:
        return float(value)
    if value == STAR:
        return 0.0
    return mean


class Model:
    """One decision of one seat: what it knows, and the worth of the positions its moves lead to."""

    def __init__(self, view: ActionState, me: int, params: ActionParams) -> None:
        self.view = view
        self.me = me
        self.p = params
        self.n = view.players
        self.size = view.size
        self.cols = view.shape.cols
        self.lines = line_slots(view.shape)
        self.lines_at: list[tuple[int, ...]] = [
            tuple(i for i, ln in enumerate(self.lines) if s in ln) for s in range(self.size)
        ]
        self.wild = view.options.wild_min_numbers
        self.grids = [grid_of(view, me, s) for s in range(self.n)]
        self.vals, self.ups = self.grids[me]
        pool = unseen_pool(view, me)
        self.dist = pool.probabilities()
        self.p_of = dict(self.dist)
        self.p_star = self.p_of.get(STAR, 0.0)
        self.mean = sum(p * (0.0 if v == STAR else v) for v, p in self.dist)
        self.var = sum(p * ((0.0 if v == STAR else v) - self.mean) ** 2 for v, p in self.dist)
        xs = sorted({0.0 if v == STAR else float(v) for v, _ in self.dist})
        weight: dict[float, float] = {}
        for v, p in self.dist:
            x = 0.0 if v == STAR else float(v)
            weight[x] = weight.get(x, 0.0) + p
        self._xs = xs
        self._cum_p = [0.0]
        self._cum_px = [0.0]
        for x in xs:
            self._cum_p.append(self._cum_p[-1] + weight[x])
            self._cum_px.append(self._cum_px[-1] + weight[x] * x)
        self.final_lap = view.ender is not None
        self.others = [s for s in range(self.n) if s != me]
        downs = [self.down_count(self.grids[s][0], self.grids[s][1]) for s in self.others]
        if self.final_lap:
            self.turns = 0.0
        elif downs:
            self.turns = max(0.0, min(downs) * params.turns_per_card)
        else:  # solitaire: no one else ends the round; the last face-down card waits for the end
            self.turns = max(0.0, (self.down_count(self.vals, self.ups) - 1) * params.turns_per_card)
        # A round that goes on and on (the discard pile reshuffled again and again, e.g. players
        # who all wait for someone else to end it) is pushed to its end: each face-down card
        # left costs `stall` points.
        options = view.options
        reshuffled = len(view.deck_of) - len(options.playing_deck) - len(options.action_deck)
        self.stall = 5.0 * max(0.0, reshuffled / max(1, len(options.playing_deck)) - 2.0)
        survive = 1.0
        for d in downs:
            survive *= 1.0 - _hazard(d)
        self.p_end_next = 1.0 if self.final_lap else 1.0 - survive
        self.held = [tuple(view.public_value(h) for h in view.held[s]) for s in range(self.n)]
        self.market = view.options.has_market
        self._worth_cache: dict[tuple[tuple[int, ...], float], float] = {}
        self._line_cache: dict[tuple[tuple[int, ...], float], tuple[bool, float]] = {}
        self._later_cache: dict[tuple[int, float], float] = {}
        self._gain_cache: dict[int, float] = {}
        self._weights: list[float] | None = None
        self._opp_now: list[float] | None = None
        self._flip_u: tuple[float, int] | None = None
        self._keep_u: dict[int, tuple[float, int]] = {}
        self._feed_cache: dict[int, float] = {}
        self._h0: float | None = None
        self._going_on: float | None = None
        self._star_value: float | None = None

    # --- small readings -------------------------------------------------------------------------

    @staticmethod
    def down_count(vals: Grid, ups: Ups) -> int:
        return sum(1 for v, u in zip(vals, ups, strict=True) if v != GONE and not u)

    def danger(self) -> list[float]:
        """Each seat's weight among the opponents (sums to 1): the lower its projected game total,
        the more it matters to hold it back."""
        if self._weights is None:
            projected = {
                s: self.view.totals[s] + self.worth(self.grids[s][0], self.turns) for s in self.others
            }
            weights = [0.0] * self.n
            if projected:
                low = min(projected.values())
                raw = {s: math.exp(-(v - low) / self.p.danger_scale) for s, v in projected.items()}
                total = sum(raw.values())
                for s, r in raw.items():
                    weights[s] = r / total
            self._weights = weights
        return self._weights

    def opp_now(self) -> list[float]:
        """Each opponent's worth as it lies (T turns left)."""
        if self._opp_now is None:
            self._opp_now = [
                0.0 if s == self.me else self.worth(self.grids[s][0], self.turns) for s in range(self.n)
            ]
        return self._opp_now

    def holds_defense(self, seat: int) -> bool:
        return DEFENSE in self.held[seat]

    # --- the worth of a grid ----------------------------------------------------------------------

    def gain_of_draw(self, worst: float) -> float:
        """E[max(0, worst - X)]: what one random card saves on a card worth `worst`."""
        k = bisect_left(self._xs, worst)
        return worst * self._cum_p[k] - self._cum_px[k]

    def _later(self, value: int, turns: float) -> float:
        key = (value, turns)
        got = self._later_cache.get(key)
        if got is None:
            q = self.p_of.get(value, 0.0)
            got = 1.0 - (1.0 - q) ** turns if turns > 0 else 0.0
            self._later_cache[key] = got
        return got

    def worth(self, vals: Sequence[int], turns: float) -> float:
        """Expected final score of a grid with about `turns` turns of play left (lower is better)."""
        key = (tuple(vals), turns)
        got = self._worth_cache.get(key)
        if got is not None:
            return got
        mean = self.mean
        lines = self._line_cache
        complete = False
        potential = 0.0
        for line in self.lines:
            line_key = (tuple([vals[s] for s in line]), turns)
            info = lines.get(line_key)
            if info is None:
                info = lines[line_key] = self._line(line_key[0], turns)
            complete = complete or info[0]
            potential += info[1]
        ests = [v if v < STAR else (0.0 if v == STAR else mean) for v in vals if v != GONE]
        if complete:
            # lines complete in what I know: removed at best, kept lines of stars counted (R-A8)
            shown = tuple(None if v == GONE else (v if v <= STAR else UNK) for v in vals)
            points, _ = best_removals(shown, self.view.shape, self.wild)
            total = points + shown.count(UNK) * (mean - UNK)
        else:
            total = sum(ests)
        if turns > 0 and ests:
            total -= self.p.future_weight * self._future(ests, turns)
        total -= self.p.line_weight * potential
        self._worth_cache[key] = total
        return total

    def _future(self, ests: list[float], turns: float) -> float:
        """What `turns` turns should still save: each turn, the worst card is replaced by a random
        one when that helps."""
        values = list(ests)
        whole = int(turns)
        fraction = turns - whole
        gained = 0.0
        for step in range(whole + (1 if fraction > 0 else 0)):
            worst = max(values)
            g = self.gain_of_draw(worst)
            if g <= 0.01:
                break
            gained += g * (fraction if step == whole else 1.0)
            values[values.index(worst)] = worst - g
        return gained

    def _line(self, cards: tuple[int, ...], turns: float) -> tuple[bool, float]:
        """(complete and removable in what I know, expected saving if one card short) of a line."""
        mean = self.mean
        wild = self.wild
        count = 0
        stars = 0
        unknown = 0
        numbers: dict[int, int] = {}
        odd_value = 0
        for v in cards:
            if v == GONE:
                continue
            count += 1
            if v == STAR:
                stars += 1
            elif v < STAR:
                numbers[v] = numbers.get(v, 0) + 1
            else:
                unknown += 1
        if count < 3:
            return False, 0.0
        if not numbers:
            return unknown == 0, 0.0  # a line of stars is removable (or kept: -10, -15)
        if len(numbers) == 1:
            target, match = next(iter(numbers.items()))
            odd = 0
        else:
            target, match = max(numbers.items(), key=lambda kv: (kv[1], kv[0]))
            odd = count - stars - unknown - match
            if odd == 1:
                odd_value = next(v for v in numbers if v != target)
        need = unknown + odd
        if need == 0:
            return stars == 0 or match >= wild, 0.0
        if need != 1 or (target <= 0 and match * target + mean <= 0):
            return False, 0.0
        ok_number = stars == 0 or match + 1 >= wild
        ok_star = match >= wild
        p_now = (self.p_of.get(target, 0.0) if ok_number else 0.0) + (self.p_star if ok_star else 0.0)
        later = self._later(target, turns) if ok_number else 0.0
        if unknown == 1:
            chance = p_now + (1.0 - p_now) * later
            rest = mean
        else:
            chance = later
            rest = float(odd_value)
        saving = match * target + rest
        return False, chance * saving if saving > 0 else 0.0

    # --- moves on grids ---------------------------------------------------------------------------

    def settle(self, vals: Grid, ups: Ups, changed: Sequence[int]) -> None:
        """Remove, in place, the lines a change at `changed` completes, as this bot would decide
        (equal numbers must go; numbers and stars go when their sum is positive; stars stay)."""
        todo = {i for s in changed for i in self.lines_at[s]}
        wild = self.wild
        while todo:
            index = min(todo)
            todo.discard(index)
            line = self.lines[index]
            cards = []
            for s in line:
                v = vals[s]
                if v == GONE:
                    continue
                if v > STAR or not ups[s]:  # unknown, or face down: not complete
                    break
                cards.append(v)
            else:
                if len(cards) < 3:
                    continue
                kind = classify(cards, wild)
                if kind == NONE:
                    continue
                if kind != MANDATORY and sum(v for v in cards if v != STAR) <= 0:
                    continue
                for s in line:
                    if vals[s] != GONE:
                        vals[s] = GONE
                        ups[s] = False
                        todo.update(self.lines_at[s])

    def ends(self, grids: dict[int, tuple[Grid, Ups]]) -> bool:
        """Would the round end after this turn, given the grids changed by it (others as they are)?"""
        if self.final_lap:
            return False
        for vals, ups in grids.values():  # the other grids have face-down cards (not the final lap)
            for v, u in zip(vals, ups, strict=True):
                if not u and v != GONE:
                    break
            else:
                return True
        return False

    def final_score(self, vals: Grid) -> float:
        """My exact round score if every card is known, else the expected one at the reveal."""
        if UNK in vals or any(v > STAR and v != UNK for v in vals):
            return self.worth(vals, 0.0)
        shown = tuple(None if v == GONE else v for v in vals)
        points, _ = best_removals(shown, self.view.shape, self.wild)
        return float(points)

    def ending(self, mine: Grid, held_after: int, others: dict[int, tuple[Grid, Ups]]) -> float:
        """My utility if the round ends after this turn, with me as the ender (R-A9, R-S8)."""
        score = self.final_score(mine) + 10.0 * held_after
        weights = self.danger()
        p_safe = 1.0
        against = 0.0
        for s in self.others:
            vals = others.get(s, self.grids[s])[0]
            mean = self.worth(vals, 1.0) + 10.0 * len(self.held[s])
            unknown = sum(1 for v in vals if v == UNK)
            sd = math.sqrt(unknown * self.var + 1.0)
            p_safe *= _normal_above(score + 0.5, mean, sd)
            against += weights[s] * mean
        multiplier = self.view.options.ender_multiplier
        if self.others and score > 0:
            score *= p_safe + multiplier * (1.0 - p_safe)
        return score - self.p.rivalry * against

    def going_on(self) -> float:
        """The opponents' part of my utility while the round goes on."""
        if self._going_on is None:
            weights = self.danger()
            now = self.opp_now()
            self._going_on = -self.p.rivalry * sum(weights[s] * now[s] for s in self.others)
        return self._going_on

    def after(self, vals: Grid, ups: Ups, others: dict[int, tuple[Grid, Ups]] | None = None) -> float:
        """My utility once my turn leaves my grid as (`vals`, `ups`) (lines removed), holding what I
        hold now, *less* the cost of those held cards (`h0`, the same for every move that keeps
        them): a round ended by the move makes every held card cost 10."""
        changed = dict(others) if others else {}
        changed[self.me] = (vals, ups)
        if self.ends(changed):
            return self.ending(vals, len(self.held[self.me]), changed) - self.h0()
        harm = 0.0
        if others:
            weights = self.danger()
            now = self.opp_now()
            for s, (theirs, _) in others.items():
                harm += self.p.harm * weights[s] * (self.worth(theirs, self.turns) - now[s])
        stall = self.stall * self.down_count(vals, ups) if self.stall else 0.0
        return self.worth(vals, self.turns) + self.going_on() - harm + stall

    def still(self) -> float:
        """`after` for a turn that changes no grid (an action card taken, played or discarded)."""
        stall = self.stall * self.down_count(self.vals, self.ups) if self.stall else 0.0
        return self.worth(self.vals, self.turns) + self.going_on() + stall

    def place(self, vals: Grid, ups: Ups, slot: int, card: int) -> tuple[Grid, Ups]:
        out_vals = list(vals)
        out_ups = list(ups)
        out_vals[slot] = card
        out_ups[slot] = True
        self.settle(out_vals, out_ups, (slot,))
        return out_vals, out_ups

    # --- the next player --------------------------------------------------------------------------

    def feed(self, card: int) -> float:
        """What putting `card` on top of the discard pile gives the next player."""
        if self.n < 2 or card == UNK or card > STAR:
            return 0.0
        got = self._feed_cache.get(card)
        if got is not None:
            return got
        nxt = (self.me + 1) % self.n
        vals, ups = self.grids[nxt]
        faces = [pts(v, self.mean) for v, u in zip(vals, ups, strict=True) if v != GONE and u]
        worst = max([*faces, self.mean])
        value = pts(card, self.mean)
        completes = False
        for slot in range(self.size):
            if vals[slot] == GONE or (ups[slot] and vals[slot] == card):
                continue
            trial_vals = list(vals)
            trial_ups = list(ups)
            trial_vals[slot] = card
            trial_ups[slot] = True
            for i in self.lines_at[slot]:
                line = self.lines[i]
                if (
                    removable(trial_vals, trial_ups, line, self.wild) != NONE
                    and removable(vals, ups, line, self.wild) == NONE
                ):
                    completes = True
                    break
            if completes:
                break
        if completes:
            got = self.p.feed_weight * (2 * value + worst if value > 0 else worst)
        elif value <= 3:
            got = self.p.feed_weight * max(0.0, worst - value)
        else:
            got = 0.0
        self._feed_cache[card] = got
        return got

    # --- held action cards ------------------------------------------------------------------------

    def tempo(self) -> float:
        """What one ordinary turn is worth now (the model's one-turn gain)."""
        return max(0.0, self.worth(self.vals, self.turns) - self.worth(self.vals, self.turns + 1))

    def shield(self) -> float:
        """What a held Defense is worth against the attacks in sight."""
        threat = self.p.shield_base
        for s in self.others:
            for kind in self.held[s]:
                if kind in ATTACKS:
                    threat += 4.0
        return min(threat, 10.0)

    def card_worth(self, kind: int) -> tuple[float, float]:
        """(surplus of playing it at a later turn over an ordinary turn, shield) of a held card."""
        gain = self.gain(kind, quick=True)
        surplus = max(gain, 0.0) - self.tempo()
        return surplus, self.shield() if kind == DEFENSE else 0.0

    def held_term(self, kinds: list[int]) -> float:
        """My expected cost of holding these cards: played one per turn (the best first), each
        stuck for 10 points if the round end comes first (R-A4, R-A5)."""
        if not kinds:
            return 0.0
        if self.final_lap:
            return 10.0 * len(kinds)
        worths = sorted((self.card_worth(k) for k in kinds), key=lambda w: -(w[0] + w[1]))
        total = 0.0
        survive = 1.0 - self.p_end_next
        for i, (surplus, shield) in enumerate(worths, 1):
            stuck = 1.0 - survive**i
            total -= (1.0 - stuck) * surplus + shield - stuck * 10.0
        return total

    def h0(self) -> float:
        """The cost of the cards I hold now."""
        if self._h0 is None:
            self._h0 = 0.0  # provisional: a card's gain may look at a round end, which reads it
            self._h0 = self.held_term(list(self.held[self.me]))
        return self._h0

    def take_value(self, kind: int) -> float:
        """How much taking a card of `kind` (for free) improves my utility."""
        mine = list(self.held[self.me])
        return self.h0() - self.held_term([*mine, kind])

    def deck_kinds(self) -> list[tuple[int, float]]:
        """The action deck's top: the kinds not in sight, with their chances."""
        view = self.view
        counts = Counter(view.options.action_deck)
        sighted = [*view.market, *view.action_discard, *view.in_play, *(h for hs in view.held for h in hs)]
        for handle in sighted:
            if handle != EMPTY and view.knows(self.me, handle):
                value = view.values[handle]
                if value is not None:
                    counts[value] -= 1
        total = sum(n for n in counts.values() if n > 0)
        if total == 0:
            return [(kind, 1.0 / len(KINDS)) for kind in KINDS]
        return [(k, n / total) for k, n in sorted(counts.items()) if n > 0]

    def best_take(self) -> tuple[float, Move | None]:
        """The best card to take for free (a star's take), by how much it improves my utility."""
        best: tuple[float, Move | None] = (0.0, None)
        for position, handle in enumerate(self.view.market):
            if handle == EMPTY:
                continue
            value = self.take_value(self.view.public_value(handle))
            if value > best[0] + 1e-9:
                best = (value, Move(self.me, "take", source="market", index=position))
        if self.view.action_deck or self.view.action_discard:
            value = sum(p * self.take_value(k) for k, p in self.deck_kinds())
            if value > best[0] + 1e-9:
                best = (value, Move(self.me, "take", source="action-deck"))
        return best

    def star_value(self) -> float:
        """What waking a star is worth: a free take (standard game, not in the final lap)."""
        if self._star_value is None:
            value = 0.0
            if self.market and not self.final_lap and self.view.can_take_action():
                value = self.p.star_take * self.best_take()[0]
            self._star_value = value
        return self._star_value

    # --- the gain of each action card ------------------------------------------------------------

    def gain(self, kind: int, depth: int = 0, quick: bool = False) -> float:
        """How much playing `kind` now improves my utility over doing nothing this turn (`quick`:
        draw-three estimated from the pace alone, for the worth of cards held for later)."""
        if quick and kind == DRAW_THREE:
            return 1.5 * self.tempo()
        nested = kind in (STEAL_AND_PLAY, REPLAY_DISCARD)
        got = self._gain_cache.get(kind) if depth == 0 or not nested else None
        if got is not None:
            return got
        now = self.worth(self.vals, self.turns)
        if kind == EXTRA_TURNS:
            got = now - self.worth(self.vals, self.turns + 2)
        elif kind == DEFENSE:
            got = now - self.worth(self.vals, self.turns + 1)
        elif kind == DRAW_THREE:
            got = self._draw_three_gain()
        elif kind == SWAP_OWN:
            got = -self.best_swap_own()[0]
        elif kind == PEEK_LINE:
            got = self.p.peek_value * self.best_peek()[0]
        elif kind == REMOVE_FROM_EACH:
            got = self._remove_gain()
        elif kind == SWAP_WITH_OTHERS:
            got = self._exchange_gain()
        elif kind == STEAL_AND_PLAY:
            got = 0.0
            if depth < 1:
                for s in self.others:
                    if self.holds_defense(s):
                        continue
                    for k in self.held[s]:
                        got = max(got, self.gain(k, depth + 1, quick))
        elif kind == REPLAY_DISCARD:
            got = 0.0
            if depth < 1:
                for handle in self.view.action_discard:
                    got = max(got, self.gain(self.view.public_value(handle), depth + 1, quick))
        else:
            got = 0.0
        if not nested or (depth == 0 and not quick):
            self._gain_cache[kind] = got
        return got

    def _draw_three_gain(self) -> float:
        """E[best use of the best of three cards] (keeping none: the best flip)."""
        flip = self.flip_u()[0] if self.down_count(self.vals, self.ups) else math.inf
        ranked = sorted((min(self.keep_u(v)[0], flip), p) for v, p in self.dist)
        expected = 0.0
        above = 1.0
        for u, p in ranked:
            below = above - p
            expected += u * (above**3 - max(below, 0.0) ** 3)
            above = below
        return self.still() - expected

    def _remove_gain(self) -> float:
        total = 0.0
        for s in self.others:
            if self.holds_defense(s):
                continue
            best = 0.0
            for slot in range(self.size):
                best = max(best, -self._pick_value(s, slot))
            total += best
        return total

    def _pick_value(self, victim: int, slot: int) -> float:
        """Change of my utility when `victim` loses the card at `slot` (refilled face up, unknown)."""
        vals, ups = self.grids[victim]
        if vals[slot] == GONE:
            return math.inf
        new_vals = list(vals)
        new_ups = list(ups)
        new_vals[slot] = UNK
        new_ups[slot] = True
        if self.down_count(new_vals, new_ups) == 0 and not self.final_lap:
            ending = self.ending(self.vals, len(self.held[self.me]), {victim: (new_vals, new_ups)})
            return ending - self.h0() - self.still()
        weight = self.danger()[victim]
        return -self.p.harm * weight * (self.worth(new_vals, self.turns) - self.opp_now()[victim])

    def _exchange_gain(self) -> float:
        """Two exchanges, each my most costly card for an opponent's cheapest (a quick estimate)."""
        weights = self.danger()
        mine = sorted((pts(v, self.mean) for v in self.vals if v != GONE), reverse=True)
        theirs: list[tuple[float, float]] = []
        for s in self.others:
            if self.holds_defense(s):
                continue
            vals, _ = self.grids[s]
            for v in vals:
                if v != GONE:
                    theirs.append((pts(v, self.mean), weights[s]))
        theirs.sort()
        total = 0.0
        for k in range(min(2, len(mine), len(theirs))):
            value, weight = theirs[k]
            total += max(0.0, (mine[k] - value) * (1.0 + self.p.harm * weight))
        return total

    # --- playing cards: draws, placements, flips ---------------------------------------------------

    def keep_u(self, card: int, taken: bool = False) -> tuple[float, int]:
        """(utility, slot) of the best place for `card` (replaced card on the discard pile).
        A card `taken` from the discard pile never replaces an equal face-up card: that would be
        a pass, and two players passing so could play forever."""
        key = card + 1000 * taken
        got = self._keep_u.get(key)
        if got is not None:
            return got
        best: tuple[float, int] | None = None
        wake = self.star_value() if card == STAR else 0.0
        for slot in range(self.size):
            old = self.vals[slot]
            if old == GONE or (taken and old == card and self.ups[slot]):
                continue
            vals, ups = self.place(self.vals, self.ups, slot, card)
            u = self.after(vals, ups) + (self.feed(old) if old != UNK else 0.0) - wake
            if best is None or u < best[0] - 1e-9:
                best = (u, slot)
        if best is None:  # every card is that card, face up
            best = (math.inf, next(s for s in range(self.size) if self.vals[s] != GONE))
        self._keep_u[key] = best
        return best

    def flip_u(self) -> tuple[float, int]:
        """(expected utility, slot) of the best face-down card to turn."""
        if self._flip_u is None:
            best: tuple[float, int] | None = None
            wake = self.star_value()
            for slot in range(self.size):
                if self.vals[slot] == GONE or self.ups[slot]:
                    continue
                known = self.vals[slot]
                if known != UNK and known <= STAR:
                    vals, ups = self.place(self.vals, self.ups, slot, known)
                    u = self.after(vals, ups) - (wake if known == STAR else 0.0)
                else:
                    u = 0.0
                    for value, p in self.dist:
                        vals, ups = self.place(self.vals, self.ups, slot, value)
                        u += p * (self.after(vals, ups) - (wake if value == STAR else 0.0))
                if best is None or u < best[0] - 1e-9:
                    best = (u, slot)
            assert best is not None
            self._flip_u = best
        return self._flip_u

    def draw_u(self) -> float:
        """Expected utility of drawing from the deck, then using the card at best."""
        can_flip = self.down_count(self.vals, self.ups) > 0
        total = 0.0
        for value, p in self.dist:
            keep = self.keep_u(value)[0]
            if can_flip:
                keep = min(keep, self.flip_u()[0] + self.feed(value))
            total += p * keep
        return total

    # --- swap-own, peek-line, exchanges -------------------------------------------------------------

    def best_swap_own(self) -> tuple[float, Move | None]:
        """(utility change, move) of the best swap of two of my cards."""
        base = self.after(self.vals, self.ups)
        best: tuple[float, Move | None] = (math.inf, None)
        cards = [s for s in range(self.size) if self.vals[s] != GONE]
        for i, a in enumerate(cards):
            for b in cards[i + 1 :]:
                va, vb = self.vals[a], self.vals[b]
                natural = (self.ups[b], self.ups[a])
                facings = [natural] + [f for f in ((True, True), (False, False)) if f != natural]
                for faces in facings:
                    vals = list(self.vals)
                    ups = list(self.ups)
                    vals[a], vals[b] = vb, va
                    ups[a], ups[b] = faces
                    self.settle(vals, ups, (a, b))
                    u = self.after(vals, ups) - base
                    if u < best[0] - 1e-9:
                        best = (u, Move(self.me, "swap", slot=a, slot2=b, face_up=faces))
        return best

    def best_peek(self) -> tuple[int, Move]:
        """(unknown cards seen, move): before a swap-with-others an opponent's line, else my own."""
        view = self.view
        shape = view.shape
        targets = [self.me]
        if SWAP_WITH_OTHERS in self.held[self.me]:
            targets = [s for s in self.others if not self.holds_defense(s)] + [self.me]
        best: tuple[int, Move] | None = None
        for seat in targets:
            vals, ups = self.grids[seat]
            for line in shape.lines(True):
                unknown = sum(1 for s in line.slots if vals[s] == UNK and not ups[s])
                if best is None or unknown > best[0]:
                    best = (unknown, Move(self.me, "peek", target=seat, line=line.kind, index=line.index))
        assert best is not None
        return best

    def exchange_options(
        self, attacked: tuple[int, ...], immune: tuple[int, ...]
    ) -> list[tuple[float, Move]]:
        """Every exchange of swap-with-others, with my utility change (lower is better)."""
        base = self.still()
        weights = self.danger()
        now = self.opp_now()
        out: list[tuple[float, Move]] = []
        mine_after: dict[tuple[int, int], float] = {}
        for other in self.others:
            theirs, their_ups = self.grids[other]
            blocked = other in immune or (other not in attacked and self.holds_defense(other))
            for b in range(self.size):
                if theirs[b] == GONE:
                    continue
                for a in range(self.size):
                    if self.vals[a] == GONE:
                        continue
                    faces = (True, their_ups[b])
                    move = Move(self.me, "exchange", slot=a, target=other, slot2=b, face_up=faces)
                    if blocked:
                        out.append((-0.3, move))
                        continue
                    key = (a, theirs[b])
                    mine_u = mine_after.get(key)
                    new_theirs = list(theirs)
                    new_their_ups = list(their_ups)
                    new_theirs[b] = self.vals[a]
                    new_their_ups[b] = their_ups[b]
                    if self.vals[a] == UNK:
                        new_theirs[b] = UNK
                    self.settle(new_theirs, new_their_ups, (b,))
                    vals = list(self.vals)
                    ups = list(self.ups)
                    vals[a] = theirs[b]
                    ups[a] = True
                    self.settle(vals, ups, (a,))
                    changed = {self.me: (vals, ups), other: (new_theirs, new_their_ups)}
                    if self.ends(changed):
                        u = self.ending(vals, len(self.held[self.me]), changed) - self.h0() - base
                    else:
                        if mine_u is None:
                            mine_u = self.worth(vals, self.turns) - self.worth(self.vals, self.turns)
                            mine_after[key] = mine_u
                        harm = self.worth(new_theirs, self.turns) - now[other]
                        u = mine_u - self.p.harm * weights[other] * harm
                    out.append((u, move))
        return out
