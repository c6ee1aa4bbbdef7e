"""The `greedy` SKYJO ACTION player: the fixed reference. It is never tuned, so that tournament
figures stay comparable; docs/bots-action.md carries the same specification.

Words used below:

* A card's *greedy value*: a number's value; a star counts 0 (a star is kept like a 0).
* A card *completes a line* at a slot when putting it there face up makes a line through that
  slot (a column, or a row) removable (R-A7: every remaining card face up, at least 3 of them,
  equal numbers, or equal numbers and stars with at least ``wild_min_numbers`` numbers, or only
  stars) that was not removable before. So a star completes any line it would make removable.
  Lines are looked at in the engine's order: columns left to right, then rows top to bottom;
  within a line, slots in increasing order.
* *Preference order* of the action kinds: swap-with-others, extra-turns, draw-three,
  remove-from-each, steal-and-play, replay-discard, defense, swap-own, peek-line.
* *Final lap*: the round end was triggered (R-A9); no action card may be played (R-A5).

The rules:

1. **Setup.** Turn face-down cards chosen uniformly at random.
2. **Start of a turn** (``choose``). (a) If it holds an action card it may play (held before this
   turn, not in the final lap), it plays the oldest one (lowest index). (b) Otherwise it takes the
   discard top if its greedy value is at most 3 or it completes a line in its grid; otherwise it
   draws from the deck (the discard top if the deck cannot be drawn). (c) With an empty grid (no
   playing-card turn possible) it takes an action card by the choice of rule 6, else it makes the
   first legal move. It never takes an action card on its turn otherwise, and never discards one
   unused.
3. **A drawn card** is kept if its greedy value is at most 4 or it completes a line; otherwise it
   is discarded and a face-down card chosen uniformly at random is turned (with no face-down card
   the card is kept).
4. **Where a kept or taken card goes**, in this order of preference: (1) the first slot where it
   completes a line; (2) the face-up card of highest greedy value above the card's (lowest slot on
   a tie); (3) the first face-down card in a column holding a face-up card it could share a line
   with (the same number, or a star; any number if the card is a star); (4) a face-down card
   chosen uniformly at random; (5) the face-up card of highest greedy value (lowest slot).
5. **Turning a card** (after a discard, or after keeping none of draw-three): uniformly at random
   among its face-down cards.
6. **A star's take** (``offer``): in the final lap it passes (the card could not be played and
   would score 10); otherwise it takes the market card of the first kind in the preference order
   (the leftmost of that kind), or the action deck's top if the market is empty.
7. **Lines** (``lines``): it always removes, the first line offered first, its cards in slot order
   (the first legal move); it never keeps an optional line.
8. **Action cards found** (action-in-deck: drawn, turned up): kept, except in the final lap where
   they are put on the action discard. In draw-three the first such card (lowest index) is
   declared first.
9. **Playing the action cards** (targets):
   * remove-from-each: from each opponent, the face-up card of lowest greedy value (lowest slot);
     with no face-up card, its first face-down card; with no grid card, its first held card.
   * swap-own: the first pair of slots (in increasing order) whose swap completes a line; else its
     face-up card of highest greedy value (lowest slot) with its first face-down card; else its
     first two cards. Both cards land face up.
   * draw-three: the first of the three cards that completes a line, else the one of lowest
     greedy value (the first on a tie) if it is at most 4, is kept and placed as in rule 4, the
     others go to the discard pile in draw order; otherwise it keeps none (all in draw order) and
     turns a card (rule 5). If keeping none is not allowed, the lowest card is kept.
   * peek-line: its own column with the most face-down cards (the leftmost on a tie).
   * replay-discard: the card of the action discard of the first kind in the preference order
     (the topmost of that kind).
   * steal-and-play: the held card of the first kind in the preference order among the
     opponents, clockwise from its left, lowest index first.
   * swap-with-others, each of the two exchanges: its face-up card of highest greedy value (lowest
     slot; with no face-up card its first card) for the face-up card of lowest greedy value among
     all opponents (clockwise from its left, lowest slot first; with no face-up card anywhere, the
     first card of the first opponent who has one). Both land face up. It ignores Defense.
   * extra-turns and defense have no choice.
"""

from __future__ import annotations

from ..action.cards import (
    DEFENSE,
    DRAW_THREE,
    EXTRA_TURNS,
    PEEK_LINE,
    REMOVE_FROM_EACH,
    REPLAY_DISCARD,
    STAR,
    STEAL_AND_PLAY,
    SWAP_OWN,
    SWAP_WITH_OTHERS,
)
from ..action.decisions import RemoveFromEach
from ..action.lines import NONE
from ..action.state import ActionState, Step
from ..core.moves import Move
from ..core.rng import Rng
from ..engine import legal_moves
from .action_view import GONE, UNK, grid_of, line_slots, removable, value_of

TAKE_AT_MOST = 3
KEEP_AT_MOST = 4
PREFERENCE = (
    SWAP_WITH_OTHERS,
    EXTRA_TURNS,
    DRAW_THREE,
    REMOVE_FROM_EACH,
    STEAL_AND_PLAY,
    REPLAY_DISCARD,
    DEFENSE,
    SWAP_OWN,
    PEEK_LINE,
)
"""The fixed preference order of the action kinds (takes, replay-discard, steal-and-play)."""


def greedy_value(card: int) -> int:
    """A number's value; a star (and anything that is not a number) counts 0."""
    return card if card < STAR else 0


def rank(kind: int) -> int:
    return PREFERENCE.index(kind) if kind in PREFERENCE else len(PREFERENCE)


def completes(
    vals: list[int], ups: list[bool], slot: int, card: int, lines: tuple[tuple[int, ...], ...], wild_min: int
) -> bool:
    """Does putting `card` face up at `slot` make a line through it removable that was not?"""
    if card > STAR or vals[slot] == GONE:
        return False
    trial_vals = list(vals)
    trial_ups = list(ups)
    trial_vals[slot] = card
    trial_ups[slot] = True
    for slots in lines:
        if slot not in slots:
            continue
        if removable(vals, ups, slots, wild_min) != NONE:
            continue
        if removable(trial_vals, trial_ups, slots, wild_min) != NONE:
            return True
    return False


def completing_slot(
    vals: list[int], ups: list[bool], card: int, lines: tuple[tuple[int, ...], ...], wild_min: int
) -> int | None:
    """The first slot where `card` completes a line (lines in the engine's order)."""
    for slots in lines:
        for slot in slots:
            if vals[slot] != GONE and completes(vals, ups, slot, card, (slots,), wild_min):
                return slot
    return None


def shares_column(vals: list[int], ups: list[bool], slot: int, card: int, cols: int) -> bool:
    """Does the column of `slot` hold a face-up card `card` could share a line with?"""
    col = slot % cols
    for other in range(col, len(vals), cols):
        if other == slot or vals[other] == GONE or not ups[other]:
            continue
        value = vals[other]
        if value in (card, STAR) or (card == STAR and value < STAR):
            return True
    return False


class ActionGreedyBot:
    name = "greedy"

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = Rng(seed)

    # --- helpers ------------------------------------------------------------------------------

    def _setup(self, view: ActionState, seat: int) -> Move:
        down = view.face_down_slots(seat)
        self.rng.shuffle(down)
        return Move(seat, "reveal", slots=tuple(sorted(down[: view.to_reveal[seat]])))

    def _random_down(self, ups: list[bool], vals: list[int]) -> int:
        down = [s for s in range(len(vals)) if vals[s] != GONE and not ups[s]]
        return down[self.rng.below(len(down))]

    def placement(self, view: ActionState, seat: int, card: int) -> int:
        """Rule 4: where a kept or taken card goes."""
        vals, ups = grid_of(view, seat, seat)
        lines = line_slots(view.shape)
        slot = completing_slot(vals, ups, card, lines, view.options.wild_min_numbers)
        if slot is not None:
            return slot
        mine = greedy_value(card)
        face_up = [(greedy_value(vals[s]), s) for s in range(len(vals)) if vals[s] != GONE and ups[s]]
        above = [(v, s) for v, s in face_up if v > mine]
        if above:
            best = max(v for v, _ in above)
            return min(s for v, s in above if v == best)
        down = [s for s in range(len(vals)) if vals[s] != GONE and not ups[s]]
        cols = view.shape.cols
        helped = [s for s in down if shares_column(vals, ups, s, card, cols)]
        if helped:
            return helped[0]
        if down:
            return down[self.rng.below(len(down))]
        best = max(v for v, _ in face_up)
        return min(s for v, s in face_up if v == best)

    def _keeps(self, view: ActionState, seat: int, card: int) -> bool:
        if greedy_value(card) <= KEEP_AT_MOST:
            return True
        vals, ups = grid_of(view, seat, seat)
        lines = line_slots(view.shape)
        return completing_slot(vals, ups, card, lines, view.options.wild_min_numbers) is not None

    def _take(self, view: ActionState, seat: int) -> Move:
        """Rule 6: the market card of the first kind in the preference order, else the deck top."""
        best: tuple[int, int] | None = None
        for position, handle in enumerate(view.market):
            if handle == -1:
                continue
            key = (rank(view.public_value(handle)), position)
            if best is None or key < best:
                best = key
        if best is not None:
            return Move(seat, "take", source="market", index=best[1])
        return Move(seat, "take", source="action-deck")

    # --- the decision -------------------------------------------------------------------------

    def choose(self, view: ActionState, seat: int) -> Move:
        step = view.step
        if step == Step.SETUP:
            return self._setup(view, seat)
        handlers = {
            Step.CHOOSE: self._choose,
            Step.DRAWN: self._drawn,
            Step.TOOK: self._took,
            Step.FLIP: self._flip,
            Step.OFFER: self._offer,
            Step.LINES: self._lines,
            Step.FOUND: self._found,
            Step.DRAW3: self._draw_three,
            Step.PICK: self._pick,
            Step.SWAP: self._swap,
            Step.PEEK: self._peek,
            Step.REPLAY: self._replay,
            Step.STEAL: self._steal,
            Step.EXCHANGE: self._exchange,
        }
        handler = handlers.get(step)
        if handler is None:  # pragma: no cover - every step has a rule
            raise ValueError(f"greedy has no rule for step {step!r}")
        return handler(view, seat)

    def _choose(self, view: ActionState, seat: int) -> Move:
        moves = legal_moves(view, seat)
        plays = [m for m in moves if m.kind == "play"]
        if plays:
            return min(plays, key=lambda m: m.index or 0)
        draws = {m.source for m in moves if m.kind == "draw"}
        if draws:
            top = view.discard_top()
            if "discard" in draws and top is not None:
                card = view.public_value(top)
                vals, ups = grid_of(view, seat, seat)
                lines = line_slots(view.shape)
                wild = view.options.wild_min_numbers
                completing = completing_slot(vals, ups, card, lines, wild) is not None
                if greedy_value(card) <= TAKE_AT_MOST or completing:
                    return Move(seat, "draw", source="discard")
            if "deck" in draws:
                return Move(seat, "draw", source="deck")
            return Move(seat, "draw", source="discard")
        if any(m.kind == "take" for m in moves):
            return self._take(view, seat)
        return moves[0]

    def _held_card(self, view: ActionState, seat: int) -> int:
        assert view.holding
        card = value_of(view, seat, view.holding[0])
        assert card is not None, "a seat sees the card it holds"
        return card

    def _took(self, view: ActionState, seat: int) -> Move:
        return Move(seat, "replace", slot=self.placement(view, seat, self._held_card(view, seat)))

    def _drawn(self, view: ActionState, seat: int) -> Move:
        card = self._held_card(view, seat)
        if card > STAR:  # an action card drawn (action-in-deck): rule 8
            return Move(seat, "drop-action" if view.ender is not None else "keep-action")
        vals, ups = grid_of(view, seat, seat)
        has_down = any(vals[s] != GONE and not ups[s] for s in range(len(vals)))
        if self._keeps(view, seat, card) or not has_down:
            return Move(seat, "replace", slot=self.placement(view, seat, card))
        return Move(seat, "discard")

    def _flip(self, view: ActionState, seat: int) -> Move:
        vals, ups = grid_of(view, seat, seat)
        return Move(seat, "flip", slot=self._random_down(ups, vals))

    def _offer(self, view: ActionState, seat: int) -> Move:
        if view.ender is not None:
            return Move(seat, "pass")
        return self._take(view, seat)

    def _lines(self, view: ActionState, seat: int) -> Move:
        return legal_moves(view, seat)[0]

    def _found(self, view: ActionState, seat: int) -> Move:
        return Move(seat, "drop-action" if view.ender is not None else "keep-action")

    def _draw_three(self, view: ActionState, seat: int) -> Move:
        cards = [value_of(view, seat, h) for h in view.holding]
        for index, card in enumerate(cards):
            if card is not None and card > STAR:
                kind = "drop-action" if view.ender is not None else "keep-action"
                return Move(seat, kind, index=index)
        numbers = [c if c is not None else UNK for c in cards]
        vals, ups = grid_of(view, seat, seat)
        lines = line_slots(view.shape)
        wild = view.options.wild_min_numbers
        keep: int | None = None
        for index, card in enumerate(numbers):
            if completing_slot(vals, ups, card, lines, wild) is not None:
                keep = index
                break
        lowest = min(range(len(numbers)), key=lambda i: (greedy_value(numbers[i]), i))
        if keep is None and greedy_value(numbers[lowest]) <= KEEP_AT_MOST:
            keep = lowest
        may_none = any(m.kind == "keep-none" for m in legal_moves(view, seat))
        if keep is None and not may_none:
            keep = lowest
        if keep is None:
            return Move(seat, "keep-none", order=tuple(range(len(numbers))))
        rest = tuple(i for i in range(len(numbers)) if i != keep)
        slot = self.placement(view, seat, numbers[keep])
        return Move(seat, "keep", index=keep, slot=slot, order=rest)

    def _pick(self, view: ActionState, seat: int) -> Move:
        victim = view.decision_as(RemoveFromEach).victim
        vals, ups = grid_of(view, seat, victim)
        face_up = [(greedy_value(vals[s]), s) for s in range(len(vals)) if vals[s] != GONE and ups[s]]
        if face_up:
            return Move(seat, "pick", target=victim, slot=min(face_up)[1])
        cards = [s for s in range(len(vals)) if vals[s] != GONE]
        if cards:
            return Move(seat, "pick", target=victim, slot=cards[0])
        return Move(seat, "pick", target=victim, index=0)

    def _swap(self, view: ActionState, seat: int) -> Move:
        vals, ups = grid_of(view, seat, seat)
        lines = line_slots(view.shape)
        wild = view.options.wild_min_numbers
        cards = [s for s in range(len(vals)) if vals[s] != GONE]
        for i, a in enumerate(cards):
            for b in cards[i + 1 :]:
                if vals[a] == UNK or vals[b] == UNK:
                    continue
                trial_vals = list(vals)
                trial_ups = list(ups)
                trial_vals[a], trial_vals[b] = vals[b], vals[a]
                trial_ups[a] = trial_ups[b] = True
                before = [removable(vals, ups, ln, wild) for ln in lines]
                after = [removable(trial_vals, trial_ups, ln, wild) for ln in lines]
                if any(x != NONE and y == NONE for x, y in zip(after, before, strict=True)):
                    return Move(seat, "swap", slot=a, slot2=b, face_up=(True, True))
        face_up = [(greedy_value(vals[s]), s) for s in cards if ups[s]]
        down = [s for s in cards if not ups[s]]
        if face_up and down:
            high = max(v for v, _ in face_up)
            a = min(s for v, s in face_up if v == high)
            b = down[0]
            first, second = min(a, b), max(a, b)
            return Move(seat, "swap", slot=first, slot2=second, face_up=(True, True))
        return Move(seat, "swap", slot=cards[0], slot2=cards[1], face_up=(True, True))

    def _peek(self, view: ActionState, seat: int) -> Move:
        vals, ups = grid_of(view, seat, seat)
        cols = view.shape.cols
        counts = [
            sum(1 for s in range(c, len(vals), cols) if vals[s] != GONE and not ups[s]) for c in range(cols)
        ]
        best = max(counts)
        return Move(seat, "peek", target=seat, line="column", index=counts.index(best))

    def _replay(self, view: ActionState, seat: int) -> Move:
        pile = view.action_discard
        best = min(range(len(pile)), key=lambda i: (rank(view.public_value(pile[i])), -i))
        return Move(seat, "replay", index=best)

    def _steal(self, view: ActionState, seat: int) -> Move:
        best: tuple[int, int, int, int] | None = None
        n = view.players
        for k in range(1, n):
            other = (seat + k) % n
            for index, handle in enumerate(view.held[other]):
                key = (rank(view.public_value(handle)), k, index, other)
                if best is None or key < best:
                    best = key
        assert best is not None
        return Move(seat, "steal", target=best[3], index=best[2])

    def _exchange(self, view: ActionState, seat: int) -> Move:
        vals, ups = grid_of(view, seat, seat)
        mine = [s for s in range(len(vals)) if vals[s] != GONE]
        face_up = [(greedy_value(vals[s]), s) for s in mine if ups[s]]
        if face_up:
            high = max(v for v, _ in face_up)
            slot = min(s for v, s in face_up if v == high)
        else:
            slot = mine[0]
        n = view.players
        best: tuple[int, int, int, int] | None = None
        fallback: tuple[int, int] | None = None
        for k in range(1, n):
            other = (seat + k) % n
            theirs, their_ups = grid_of(view, seat, other)
            for s in range(len(theirs)):
                if theirs[s] == GONE:
                    continue
                if fallback is None:
                    fallback = (other, s)
                if their_ups[s]:
                    key = (greedy_value(theirs[s]), k, s, other)
                    if best is None or key < best:
                        best = key
        if best is not None:
            target, slot2 = best[3], best[2]
        else:
            assert fallback is not None
            target, slot2 = fallback
        return Move(seat, "exchange", slot=slot, target=target, slot2=slot2, face_up=(True, True))
