"""The `greedy` SKIP-BO player: the fixed reference. This docstring is its exact specification.

It is deliberately simple and is never tuned, so that tournament figures stay comparable.
"Always play the stock top when possible, then any card that leads toward the stock top, then
discard the highest hand card onto the pile it matches best", made precise:

Words. A building pile p has a *height* h (the number it has reached, 0 when empty) and *needs*
h + 1; a card *fits* p when it is a wild or equals what p needs. Building piles, discard piles
and hand positions are numbered from 0 and tried in increasing number. The player's *targets*
are its own stock top and, in a team game, its partner's stock top (the own one first); an
empty stock has no target. The *distance* from pile p to a number target t is the number of
cards still to be played on p before t fits it: (t - needs(p)) mod 12. A pile set aside at 12
starts again from 1, so the distance counts round the top: a pile that needs 11 is 4 cards
away from a target 3 (11, 12, then 1, 2).

Each decision (one move) takes the first rule that applies:

1. **Stock.** If the own stock top fits a building pile, play it onto the lowest-numbered pile it
   fits (a wild stock top therefore always goes on pile 0). In a team game, then the same for
   the partner's stock top.
2. **Toward a target.** (Every target left is a number: a wild fits every pile and was played by
   rule 1.) For each target t in order (own, then partner's): the candidates are the number
   cards c (not wilds) from the player's own discard-pile tops, then (team game) the partner's
   discard-pile tops, then the hand, that fit a building pile p. Such a play leads toward t:
   it brings p one card closer to t. If there is a candidate, play the one that leaves its pile
   closest to t (the smallest (t - c - 1) mod 12, i.e. the pile nearest the target first); ties:
   the earlier source in the order above (own discard piles 0..3, partner's discard piles 0..3,
   hand positions 0..4), then the lowest-numbered building pile.
3. **Wild to a target.** For each target t in order: if some building pile is at distance 1
   from t (it needs t - 1; for t = 1, it needs 12) and the player has a wild in its hand (else
   on top of one of its own discard piles, else, in a team game, of its partner's), play that
   wild (the first hand position, else the lowest-numbered discard pile) onto the
   lowest-numbered such building pile: the target then fits at once. (Rule 2 leaves nothing to
   play before this, so it only applies when no number card fits any pile.)
4. **Discard.** If the hand holds a card, end the turn with a discard. The card: the highest
   number in the hand (ties: the first position); a wild only when the hand holds nothing but
   wilds (the first one). With option `discard_wilds` off such a hand cannot be discarded: play
   its first card onto building pile 0 instead. The discard pile for a number c: the
   lowest-numbered pile whose top is c + 1 (the card extends a descending run), else whose top
   is c, else the lowest-numbered empty pile, else the pile with the highest top (a wild top
   counts as 0, so a wild is covered last; ties: the lowest-numbered). For a wild: the
   lowest-numbered empty pile, else the pile with the highest top as above.
5. **End.** Otherwise (no hand card, nothing played by rules 1-3) end the turn with `end`.

Rule 2 thus plays every number card that fits, nearest-the-target first; it never plays a wild
(rules 1 and 3 do). The seed is accepted for the common bot interface; the policy is
deterministic and uses no randomness.
"""

from __future__ import annotations

from ..core.moves import Move
from ..skipbo.state import SkipBoState
from .skipbo_view import (
    BUILDING_PILES,
    DISCARD_PILES,
    TOP,
    WILD,
    SkipBoTable,
    discard,
    end,
    fits,
    play_discard,
    play_hand,
    play_stock,
)


class SkipBoGreedyBot:
    name = "greedy"

    def __init__(self, seed: int | str = 0) -> None:
        self.seed = seed

    def choose(self, view: SkipBoState, seat: int) -> Move:
        return greedy_move(SkipBoTable.of(view, seat))


def distance(target: int, needs: int) -> int:
    """Cards still to be played on a pile that needs `needs` before the number `target` fits it."""
    return (target - needs) % TOP


def greedy_move(t: SkipBoTable) -> Move:
    """The greedy decision on the table `t` (rules 1-5 of the module docstring)."""
    seat, mate = t.seat, t.partner
    heights = t.heights
    owners = [seat] if mate is None else [seat, mate]

    # 1. Stock tops: own, then the partner's.
    for owner in owners:
        top = t.stock_tops[owner]
        if top is None:
            continue
        for pile in range(BUILDING_PILES):
            if fits(top, heights[pile]):
                return play_stock(seat, pile, partner=owner != seat)

    targets = [top for owner in owners if (top := t.stock_tops[owner]) is not None and top != WILD]

    # 2. A number card that brings a building pile closer to a target. Sources in order of
    # preference: own discard tops, the partner's discard tops, hand positions.
    sources: list[tuple[int, str, int]] = []  # (value, kind, discard pile or hand position)
    for owner in owners:
        kind = "own" if owner == seat else "partner"
        for dpile in range(DISCARD_PILES):
            cards = t.discards[owner][dpile]
            if cards:
                sources.append((cards[-1], kind, dpile))
    sources.extend((value, "hand", index) for index, value in enumerate(t.hand))
    for target in targets:
        best: tuple[int, int, int] | None = None  # (distance left, source rank, building pile)
        for rank, (value, _, _) in enumerate(sources):
            if value == WILD:
                continue
            for pile in range(BUILDING_PILES):
                if heights[pile] + 1 == value:
                    key = (distance(target, value + 1), rank, pile)
                    if best is None or key < best:
                        best = key
        if best is not None:
            _, rank, pile = best
            _, kind, number = sources[rank]
            if kind == "hand":
                return play_hand(seat, number, pile)
            return play_discard(seat, number, pile, partner=kind == "partner")

    # 3. A wild that makes a target fit at once.
    for target in targets:
        piles = [p for p in range(BUILDING_PILES) if distance(target, heights[p] + 1) == 1]
        if not piles:
            continue
        pile = piles[0]
        if WILD in t.hand:
            return play_hand(seat, t.hand.index(WILD), pile)
        for owner in owners:
            for dpile in range(DISCARD_PILES):
                cards = t.discards[owner][dpile]
                if cards and cards[-1] == WILD:
                    return play_discard(seat, dpile, pile, partner=owner != seat)

    # 4. Discard the highest card onto the pile it matches best.
    if t.hand:
        numbers = [v for v in t.hand if v != WILD]
        if numbers:
            card = max(numbers)
            index = t.hand.index(card)
        else:
            if not t.discard_wilds:
                return play_hand(seat, 0, 0)
            card, index = WILD, 0
        return discard(seat, index, discard_pile_for(card, t.discards[seat]))

    # 5. Nothing left to do.
    return end(seat)


def discard_pile_for(card: int, piles: tuple[tuple[int, ...], ...]) -> int:
    """The discard pile greedy puts `card` on (rule 4)."""
    tops = [cards[-1] if cards else None for cards in piles]
    if card != WILD:
        for wanted in (card + 1, card):
            if wanted in tops:
                return tops.index(wanted)
    if None in tops:
        return tops.index(None)
    ranks = [top if top is not None and top != WILD else 0 for top in tops]
    return ranks.index(max(ranks))
