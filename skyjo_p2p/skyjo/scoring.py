"""Round scoring and the end of the game, shared by SKYJO and SKYJO ACTION (R-S8, R-S9, R-A8)."""

from __future__ import annotations

from collections.abc import Sequence


def ender_rule(raw: Sequence[int], ender: int | None, multiplier: int) -> tuple[list[int], bool]:
    """Apply the round ender's penalty (R-S8).

    The ender's round score is multiplied when it is positive and some other player scored lower
    or the same. Returns the scores to add and whether the ender was penalised.
    """
    scores = list(raw)
    if ender is None or multiplier == 1:
        return scores, False
    mine = raw[ender]
    if mine > 0 and any(raw[j] <= mine for j in range(len(raw)) if j != ender):
        scores[ender] = mine * multiplier
        return scores, True
    return scores, False


def game_over(totals: Sequence[int], target: int) -> bool:
    """The game ends after the round in which any total reaches the target (R-S9)."""
    return max(totals) >= target


def winners(totals: Sequence[int]) -> tuple[int, ...]:
    """Lowest total wins; equal lowest totals share the win (R-S9)."""
    best = min(totals)
    return tuple(seat for seat, total in enumerate(totals) if total == best)
