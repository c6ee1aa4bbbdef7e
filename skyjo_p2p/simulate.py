"""Offline simulation: whole games between bots through the engine and the local dealer.

Pure and deterministic: the same arguments give the same figures. Timing is the caller's job
(the rules core has no clock); `skyjo-lan simulate` adds wall time and moves per second.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .bots.base import Bot
from .bots.random_bot import RandomBot
from .core.dealer import Dealer
from .core.events import RoundEnded
from .core.state import TableState
from .engine import apply, deciders, new_game, rules_for

BotFactory = Callable[[int, str], Bot]
"""(seat, seed label) -> a bot for that seat."""

MAX_MOVES_PER_GAME = 200_000
"""A safety net: a game longer than this is a bug, reported rather than looping forever."""


@dataclass
class Simulation:
    game: str
    players: int
    options: dict[str, Any]
    seed: int
    games: int = 0
    rounds: int = 0
    moves: int = 0
    round_score_sum: int = 0
    round_score_count: int = 0
    wins: list[float] = field(default_factory=list)

    @property
    def mean_round_score(self) -> float:
        return self.round_score_sum / self.round_score_count if self.round_score_count else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "options": self.options,
            "seed": self.seed,
            "games": self.games,
            "rounds": self.rounds,
            "moves": self.moves,
            "mean_rounds_per_game": round(self.rounds / self.games, 4) if self.games else 0.0,
            "mean_round_score": round(self.mean_round_score, 4),
            "wins_by_seat": [round(w, 4) for w in self.wins],
        }


def play_game(
    game: str,
    players: int,
    options: Mapping[str, Any],
    seed: str,
    bots: list[Bot],
    use_views: bool = True,
) -> tuple[TableState, int]:
    """One whole game; returns the final state and the number of moves played.

    With `use_views` each bot sees only its seat's view (as it would at a real table); a policy
    that provably reads nothing hidden (the random one) may skip the copy for speed.
    """
    rules = rules_for(game)
    dealer = Dealer(rules.composition, seed=f"deal:{seed}")
    state, events = new_game(game, players, options)
    state, _ = dealer.settle(state, events, apply)
    moves = 0
    while state.phase != "game_over":
        seats = deciders(state)
        if not seats:
            raise RuntimeError(f"no seat can move in phase {state.phase!r}: engine stuck")
        seat = seats[0]
        seen = state.masked_for(seat) if use_views else state
        move = bots[seat].choose(seen, seat)
        state, events = apply(state, move)
        if state.pending:
            state, _ = dealer.settle(state, events, apply)
        moves += 1
        if moves > MAX_MOVES_PER_GAME:
            raise RuntimeError(f"game {seed} did not end after {MAX_MOVES_PER_GAME} moves")
    return state, moves


def simulate(
    game: str,
    players: int,
    games: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    bot_factory: BotFactory | None = None,
) -> Simulation:
    """Play `games` games with `bot_factory`'s bots (default: random legal moves)."""
    options = dict(options or {})
    result = Simulation(game, players, options, seed, wins=[0.0] * players)
    for number in range(games):
        label = f"{seed}:{number}"
        if bot_factory is None:
            bots: list[Bot] = [RandomBot(f"policy:{label}:{s}") for s in range(players)]
            use_views = False
        else:
            bots = [bot_factory(s, label) for s in range(players)]
            use_views = True
        state, moves = play_game(game, players, options, label, bots, use_views)
        result.games += 1
        result.moves += moves
        for record in state.history:
            assert isinstance(record, RoundEnded)
            result.rounds += 1
            result.round_score_sum += sum(record.raw)
            result.round_score_count += len(record.raw)
        share = 1.0 / len(state.winners)
        for seat in state.winners:
            result.wins[seat] += share
    return result
