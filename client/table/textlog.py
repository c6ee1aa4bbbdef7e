"""Plain-line descriptions of what happens at the table, for headless seats and logs."""

from __future__ import annotations

from collections.abc import Sequence

from skyjo_p2p.core.events import Event, GameOver, LineRemoved, Moved, Reshuffled, RoundEnded, TurnBegan


def describe(fact: Event, names: Sequence[str]) -> str | None:
    """One line for an engine fact, or None for facts not worth a line (reveals, requests)."""

    def who(seat: int | None) -> str:
        if seat is None:
            return "nobody"
        return names[seat] if seat < len(names) else f"seat {seat + 1}"

    if isinstance(fact, Moved):
        move = fact.move
        details = ", ".join(f"{k} {v}" for k, v in move.to_dict().items() if k not in ("seat", "move"))
        return f"{who(move.seat)}: {move.kind}" + (f" ({details})" if details else "")
    if isinstance(fact, TurnBegan):
        return None
    if isinstance(fact, LineRemoved):
        return f"{who(fact.seat)} removes a {fact.line} of {fact.values[0] if fact.values else '?'}s"
    if isinstance(fact, Reshuffled):
        return f"{fact.count} cards reshuffled into a new draw pile"
    if isinstance(fact, RoundEnded):
        parts = ", ".join(
            f"{who(s)} {raw}{'x2' if fact.doubled and s == fact.ender else ''}"
            for s, raw in enumerate(fact.raw)
        )
        totals = ", ".join(f"{who(s)} {t}" for s, t in enumerate(fact.totals))
        return f"round {fact.round} over (ended by {who(fact.ender)}): {parts}; totals: {totals}"
    if isinstance(fact, GameOver):
        winners = " and ".join(who(s) for s in fact.winners)
        return f"game over: {winners} won ({', '.join(map(str, fact.totals))})"
    return None
