"""The `strong` SKIP-BO player: a search over the plays of this turn, with a value for its end.

How it decides (measurements in docs/bots-skip-bo.md):

* **What it knows** (`SkipBoTable`): its hand, every stock top, every discard pile, the building
  piles, and the count of each value it has not seen; nothing else.
* **The search** (`Search`). Every call searches the rest of the turn again: depth first over all
  plays (hand cards, own discard tops, and in a team game the partner's stock top and discard
  tops; the cards under a discard top are known, so chains through a discard pile are found),
  memoised by the position (building heights, hand, how much of each discard pile is left). A
  wild is tried on every building pile. The search ends a line where the future is unknown:
  * playing the own stock top scores `stock` (plus `win` if it empties the stock and wins the
    round); the next stock card is unknown, so the line goes on without a stock top and scores
    `next_stock` x P(an unknown card fits a pile the rest of the line can reach);
  * emptying the hand draws 5 unknown cards: the line stops and scores the end-of-turn value of
    that position plus `cycle_static` (or, with `cycle_samples` > 0, the average over sampled
    hands of a further search; measured: it does not pay, so it is off);
  * any position may end the turn: `stop` values it with its best discard.
  The search is bounded by `node_budget` positions per decision (a count, not a clock, so that
  decisions stay deterministic); the first move of the best line is played, except that a stock
  top that fits goes first when that is at most `stock_first` worse (its next card is news).
* **The end of the turn** (`Planner.stop`) = - feed + what we keep:
  * *feed*: for each other player in turn order with a number on its stock top, P(it can play
    that top at its turn) given the building piles as we leave them: the numbers between a pile
    and its top must come from its discard cards (each top and the run under it) or a fresh
    hand of 5 (a number there with the average chance, wilds filling what is missing). Weighted
    by `feed` (next player most); the partner's chance counts in our favour (`partner_feed`).
  * wilds kept in hand (`wild_keep`), hand slots to refill next turn (`fresh`),
  * the discard: every card of the hand on every own discard pile, valued by what it covers:
    a pile whose top is one higher (`run`) or equal (`same`), an empty pile (0), a higher
    number (`-cover`), a lower number (`-bury`), a wild (`-bury_wild`); a wild discarded stays
    playable on top (`wild_on_discard`). Ties: the highest card, the lowest-numbered pile.
* **Teams**: both stocks must empty, so a card from the larger stock counts 1 + `team_balance`
  and from the smaller 1 - `team_balance`.

The parameters were set by tournament against `greedy` (docs/bots-skip-bo.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

from ..core.moves import Move
from ..core.rng import Rng
from ..skipbo.state import SkipBoState
from .skipbo_view import (
    DISCARD_PILES,
    TOP,
    VALUE_CODES,
    WILD,
    SkipBoTable,
    discard,
    end,
    play_discard,
    play_hand,
    play_stock,
)

HAND_SIZE = 5
MAX_GAP = 6
"""A stock top more than this many cards above a building pile counts as out of that pile's reach."""


@dataclass(frozen=True)
class StrongParams:
    stock: float = 1.0  # one stock card played
    win: float = 100.0  # the round won this turn
    next_stock: float = 0.6  # x P(the next, still unknown stock card can be played this turn)
    feed: tuple[float, ...] = (0.45, 0.2, 0.1, 0.05, 0.05)  # per other player, in turn order
    partner_feed: float = 0.25  # (team game) the partner can play its stock top: in our favour
    team_balance: float = 0.3  # (team game) a stock card counts 1 +- this: the larger stock more
    wild_keep: float = 0.35  # a wild kept in hand at the end of the turn
    wild_on_discard: float = 0.25  # a wild discarded: it stays playable on top of the pile
    fresh: float = 0.03  # a hand slot to refill next turn
    run: float = 0.04  # a discard onto a top one higher (a descending run)
    same: float = 0.02  # a discard onto a top of the same value
    cover: float = 0.05  # a discard covering a higher number (not one higher)
    bury: float = 0.12  # a discard covering a lower number
    bury_wild: float = 0.3  # a discard covering a wild
    cycle_static: float = 0.3  # an emptied hand draws 5 more mid-turn: this on top of its position
    cycle_samples: int = 0  # > 0: value the 5 drawn cards by Monte Carlo over that many hands
    sample_budget: int = 150  # positions searched per Monte Carlo hand
    sampling_until: int = 1200  # no Monte Carlo hands once this many positions were searched
    node_budget: int = 2000  # positions searched per decision, Monte Carlo hands included
    stock_first: float = 0.05  # play a fitting stock top first unless the best line is this much better


# What a plan knows of a stock pile.
KNOWN, UNKNOWN, EMPTY = 0, 1, 2

# Kinds of play in a plan.
STOCK, MATE_STOCK, HAND, OWN, MATE = "stock", "mate-stock", "hand", "own", "mate"

State = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], int, int, bool]
"""A position in a plan: (building heights, sorted; hand, sorted; own discard-pile lengths;
partner's discard-pile lengths; own stock status; partner's stock status; a pile was completed,
so that cards can be drawn). The piles are alike, so sorting the heights loses nothing."""

Child = tuple[float, State, str, int, int, bool]
"""(reward, next position, kind of play, the card's value or the discard pile, height played on,
the play wins the round)."""


def _gaps() -> list[list[tuple[int, int]]]:
    """GAPS[top]: (what a pile needs, bit mask of the numbers to play from there up to top - 1),
    for every pile at most MAX_GAP cards below the stock top `top`, counting round the 12."""
    out: list[list[tuple[int, int]]] = [[] for _ in range(TOP + 1)]
    for top in range(1, TOP + 1):
        for needs in range(1, TOP + 1):
            gap = (top - needs) % TOP
            if gap > MAX_GAP:
                continue
            mask, value = 0, needs
            for _ in range(gap):
                mask |= 1 << value
                value = value % TOP + 1
            out[top].append((needs, mask))
    return out


GAPS = _gaps()


class SkipBoStrongBot:
    name = "strong"

    def __init__(self, seed: int | str = 0, params: StrongParams | None = None) -> None:
        self.rng = Rng(seed)
        self.params = params or StrongParams()

    def choose(self, view: SkipBoState, seat: int) -> Move:
        return Planner(SkipBoTable.of(view, seat), self.params, self.rng).best_move()


def run_cards(piles: tuple[tuple[int, ...], ...]) -> tuple[int, int]:
    """(bit mask of the numbers, count of wilds) a player can use from these discard piles while
    building up: each top, and under it the cards that follow one by one (5 over 6 over 7)."""
    mask, wilds = 0, 0
    for cards in piles:
        if not cards:
            continue
        i = len(cards) - 1
        if cards[i] == WILD:
            wilds += 1
            continue
        mask |= 1 << cards[i]
        while i > 0 and cards[i - 1] == cards[i] + 1:
            i -= 1
            mask |= 1 << cards[i]
    return mask, wilds


class Planner:
    """One decision: the odds at this table, and the value of ending the turn."""

    def __init__(self, table: SkipBoTable, params: StrongParams, rng: Rng) -> None:
        self.t = table
        self.p = params
        self.rng = rng
        self.seat = seat = table.seat
        self.mate = mate = table.partner
        self.own = table.discards[seat]
        self.mate_piles = table.discards[mate] if mate is not None else ((), (), (), ())
        self.own_top = table.stock_tops[seat]
        self.own_size = table.stock_sizes[seat]
        self.mate_top = table.stock_tops[mate] if mate is not None else None
        self.mate_size = table.stock_sizes[mate] if mate is not None else 0
        total = sum(table.unseen)
        self.prob = [c / total if total else 0.0 for c in table.unseen]
        self.pool = [v for v in range(VALUE_CODES) for _ in range(table.unseen[v])]
        self.feed_memo: dict[tuple[int, ...], float] = {}
        self.keep_memo: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[float, int, int]] = {}
        self.feed_tables = self._feed_tables()
        self.work = 0  # positions searched so far in this decision, by every search
        # A team wins when both stocks are empty: the larger one is the one to shorten.
        self.own_weight = self.mate_weight = 1.0
        if mate is not None and self.own_size != self.mate_size:
            bigger = 1.0 + params.team_balance
            smaller = 1.0 - params.team_balance
            own_bigger = self.own_size > self.mate_size
            self.own_weight = bigger if own_bigger else smaller
            self.mate_weight = smaller if own_bigger else bigger

    # --- the other players' chances -----------------------------------------------------------

    def _feed_tables(self) -> list[tuple[float, list[float]]]:
        """(weight, P(the player can play its stock top) by what a pile needs) per other player."""
        t, p = self.t, self.p
        out: list[tuple[float, list[float]]] = []
        for rank, other in enumerate(t.after(self.seat)):
            top = t.stock_tops[other]
            if top is None or top == WILD:
                continue  # nothing we do changes its chances
            mask, wilds = run_cards(t.discards[other])
            odds = self.cover_odds(HAND_SIZE, wilds)
            table = [0.0] * (TOP + 1)
            for needs, gap in GAPS[top]:
                table[needs] = odds[(gap & ~mask).bit_count()]
            weight = -p.partner_feed if other == self.mate else p.feed[min(rank, len(p.feed) - 1)]
            out.append((weight, table))
        return out

    def cover_odds(self, fresh: int, wilds: int) -> list[float]:
        """P(k missing numbers can all be supplied), by k: each is among `fresh` unknown cards
        with the average chance of a number, and wilds (`wilds` held, plus those among the
        fresh cards) stand for the others."""
        numbers = self.prob[1:]
        m = (1.0 - sum(numbers) / len(numbers)) ** fresh  # P(a number is not among the fresh)
        pw = self.prob[WILD]
        exact = [comb(fresh, k) * pw**k * (1 - pw) ** (fresh - k) for k in range(fresh + 1)]
        at_least = [sum(exact[k:]) for k in range(fresh + 1)] + [0.0] * (MAX_GAP + 1)
        out = []
        for k in range(MAX_GAP + 1):
            total = 0.0
            for j in range(k + 1):  # j of the k numbers are not among the fresh cards
                pj = comb(k, j) * m**j * (1 - m) ** (k - j)
                total += pj * (1.0 if j <= wilds else at_least[j - wilds])
            out.append(total)
        return out

    def feed(self, heights: tuple[int, ...]) -> float:
        """The weighted chances these building piles give the players after us."""
        got = self.feed_memo.get(heights)
        if got is None:
            got = 0.0
            for weight, table in self.feed_tables:
                miss = 1.0
                for h in heights:
                    miss *= 1.0 - table[h + 1]
                got += weight * (1.0 - miss)
            self.feed_memo[heights] = got
        return got

    # --- the end of the turn ------------------------------------------------------------------

    def stop(self, s: State) -> tuple[float, int, int]:
        """(value, card, discard pile) of ending the turn at `s` with the best discard; card -1
        when the hand is empty (the move is then `end`)."""
        heights, hand, dl = s[0], s[1], s[2]
        key = (hand, dl)
        kept = self.keep_memo.get(key)
        if kept is None:
            kept = self.discard_choice(hand, dl)
            self.keep_memo[key] = kept
        return (kept[0] - self.feed(heights), kept[1], kept[2])

    def discard_choice(self, hand: tuple[int, ...], dl: tuple[int, ...]) -> tuple[float, int, int]:
        """(worth of what we keep after the best discard, card, pile)."""
        p = self.p
        if not hand:
            return (HAND_SIZE * p.fresh, -1, -1)
        fresh = HAND_SIZE - len(hand) + 1
        wilds = hand.count(WILD)
        best: tuple[float, int, int] | None = None
        for card in sorted(set(hand), reverse=True):
            if card == WILD and not self.t.discard_wilds:
                continue
            held = p.wild_keep * (wilds - (card == WILD)) + p.fresh * fresh
            for pile in range(DISCARD_PILES):
                v = held + self.placing(card, pile, dl[pile])
                if best is None or v > best[0] + 1e-12:
                    best = (v, card, pile)
        return best if best is not None else (-10.0, -1, -1)

    def placing(self, card: int, pile: int, height: int) -> float:
        """The worth of putting `card` on own discard pile `pile`, then `height` cards high."""
        p = self.p
        bonus = p.wild_on_discard if card == WILD else 0.0
        if height == 0:
            return bonus
        top = self.own[pile][height - 1]
        if top == WILD:
            return bonus - p.bury_wild
        if card == WILD:
            return bonus - p.cover
        if top == card + 1:
            return p.run
        if top == card:
            return p.same
        if top < card:
            return -p.bury
        return -p.cover

    # --- the decision -------------------------------------------------------------------------

    def root(self) -> State:
        return (
            tuple(sorted(self.t.heights)),
            tuple(sorted(self.t.hand)),
            tuple(len(c) for c in self.own),
            tuple(len(c) for c in self.mate_piles),
            KNOWN if self.own_top is not None else EMPTY,
            KNOWN if self.mate_top is not None else EMPTY,
            False,
        )

    def best_move(self) -> Move:
        t, seat = self.t, self.seat
        search = Search(self, self.p.node_budget, sample=self.p.cycle_samples > 0)
        root = self.root()
        stop_value, card, pile = self.stop(root)
        best: tuple[float, Move] | None = None
        best_stock: tuple[float, Move] | None = None
        for reward, child, kind, number, height, won in search.children(root):
            v = reward if won else reward + search.after(child, kind)
            move = self._move(kind, number, height)
            if best is None or v > best[0] + 1e-12:
                best = (v, move)
            if kind in (STOCK, MATE_STOCK) and (best_stock is None or v > best_stock[0] + 1e-12):
                best_stock = (v, move)
        if best_stock is not None and best is not None and best_stock[0] >= best[0] - self.p.stock_first:
            best = best_stock  # a stock top that fits goes first: its next card is news
        if best is not None and best[0] > stop_value + 1e-12:
            return best[1]
        if not t.hand:
            return end(seat)
        if card < 0:  # only wilds, which may not be discarded, and none could be played
            return play_hand(seat, 0, 0)
        return discard(seat, t.hand.index(card), pile)

    def _move(self, kind: str, number: int, height: int) -> Move:
        seat = self.seat
        target = self.t.heights.index(height)  # the piles of one height are alike: the first
        if kind == STOCK:
            return play_stock(seat, target)
        if kind == MATE_STOCK:
            return play_stock(seat, target, partner=True)
        if kind == HAND:
            return play_hand(seat, self.t.hand.index(number), target)
        return play_discard(seat, number, target, partner=kind == MATE)

    def sample_hand(self) -> tuple[int, ...]:
        """5 cards drawn at random from those this seat has not seen."""
        pool = self.pool
        chosen: set[int] = set()
        while len(chosen) < HAND_SIZE:
            chosen.add(self.rng.below(len(pool)))
        return tuple(sorted(pool[i] for i in chosen))


class Search:
    """Depth-first search over the plays of the rest of the turn, memoised by position."""

    def __init__(self, planner: Planner, budget: int, sample: bool) -> None:
        self.pl = planner
        self.p = planner.p
        self.budget = budget
        self.sample = sample
        self.nodes = 0
        self.memo: dict[State, tuple[float, int]] = {}
        self.cycle_memo: dict[State, float] = {}

    def children(self, s: State) -> list[Child]:
        """Every distinct play from `s` (a card onto any of several piles of one height is one
        play), stock tops first."""
        pl, p = self.pl, self.p
        heights, hand, dl, mdl, ss, ps, done = s
        out: list[Child] = []
        distinct = sorted(set(heights))

        def onto(value: int) -> list[tuple[int, tuple[int, ...], bool]]:
            """(height played on, new heights, pile completed) for each pile `value` fits."""
            res = []
            for h in distinct:
                if value == WILD or value == h + 1:
                    new = list(heights)
                    new[new.index(h)] = 0 if h + 1 == TOP else h + 1
                    res.append((h, tuple(sorted(new)), h + 1 == TOP))
            return res

        if ss == KNOWN:
            assert pl.own_top is not None
            last = pl.own_size == 1
            won = last and (pl.mate is None or ps == EMPTY)
            reward = p.stock * pl.own_weight + (p.win if won else 0.0)
            status = EMPTY if last else UNKNOWN
            for h, nh, comp in onto(pl.own_top):
                out.append((reward, (nh, hand, dl, mdl, status, ps, done or comp), STOCK, 0, h, won))
        if ps == KNOWN:
            assert pl.mate_top is not None
            last = pl.mate_size == 1
            won = last and ss == EMPTY
            reward = p.stock * pl.mate_weight + (p.win if won else 0.0)
            status = EMPTY if last else UNKNOWN
            for h, nh, comp in onto(pl.mate_top):
                out.append((reward, (nh, hand, dl, mdl, ss, status, done or comp), MATE_STOCK, 0, h, won))
        previous = None
        for i, value in enumerate(hand):
            if value == previous:
                continue
            previous = value
            rest = hand[:i] + hand[i + 1 :]
            for h, nh, comp in onto(value):
                out.append((0.0, (nh, rest, dl, mdl, ss, ps, done or comp), HAND, value, h, False))
        for pile in range(DISCARD_PILES):
            n = dl[pile]
            if n:
                ndl = (*dl[:pile], n - 1, *dl[pile + 1 :])
                for h, nh, comp in onto(pl.own[pile][n - 1]):
                    out.append((0.0, (nh, hand, ndl, mdl, ss, ps, done or comp), OWN, pile, h, False))
            n = mdl[pile]
            if n:
                nmdl = (*mdl[:pile], n - 1, *mdl[pile + 1 :])
                for h, nh, comp in onto(pl.mate_piles[pile][n - 1]):
                    out.append((0.0, (nh, hand, dl, nmdl, ss, ps, done or comp), MATE, pile, h, False))
        return out

    def value(self, s: State) -> tuple[float, int]:
        """(best value of the rest of the turn from `s`, bit mask of the numbers that some
        building pile can be made to need from `s` without the own stock)."""
        got = self.memo.get(s)
        if got is not None:
            return got
        self.nodes += 1
        self.pl.work += 1
        mask = 0
        for h in s[0]:
            mask |= 1 << (h + 1)
        best = self.pl.stop(s)[0]
        if self.nodes <= self.budget and self.pl.work <= self.p.node_budget:
            for reward, child, kind, _, _, won in self.children(s):
                v = reward if won else reward + self.after(child, kind)
                if kind != STOCK:
                    sub = self.memo.get(child)
                    if sub is not None:
                        mask |= sub[1]
                if v > best:
                    best = v
        result = (best, mask)
        self.memo[s] = result
        return result

    def after(self, child: State, kind: str) -> float:
        """The value of `child`, reached by a play of `kind`."""
        hand, ss = child[1], child[4]
        if kind == HAND and not hand and (child[6] or self.pl.t.can_draw()):
            return self.refill(child)
        v, mask = self.value(child)
        if kind == STOCK and ss == UNKNOWN:
            v += self.p.next_stock * self.p.stock * self.fit_chance(mask)
        return v

    def fit_chance(self, mask: int) -> float:
        """P(an unknown card fits a building pile this turn): a wild, or a number in `mask`."""
        prob = self.pl.prob
        total = prob[WILD]
        for v in range(1, TOP + 1):
            if mask >> v & 1:
                total += prob[v]
        return total

    def refill(self, s: State) -> float:
        """The hand emptied mid-turn and 5 unknown cards come: the position's end-of-turn value
        plus `cycle_static`, or (Monte Carlo) the average over sampled hands of a search of the
        rest of the turn, a further refill then valued without sampling."""
        got = self.cycle_memo.get(s)
        if got is not None:
            return got
        pl, p = self.pl, self.p
        heights, _, dl, mdl, ss, ps, done = s
        if not self.sample or len(pl.pool) < HAND_SIZE or pl.work > p.sampling_until:
            result = pl.stop(s)[0] + p.cycle_static
        else:
            total = 0.0
            for _ in range(p.cycle_samples):
                sub = Search(pl, p.sample_budget, sample=False)
                total += sub.value((heights, pl.sample_hand(), dl, mdl, ss, ps, done))[0]
            result = total / p.cycle_samples
        self.cycle_memo[s] = result
        return result
