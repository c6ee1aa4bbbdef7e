"""The scenario runner: play a scripted game and report the table as JSON-ready data.

Pure: it takes the parsed JSON document and returns ``(report, exit_code)``; reading the file and
printing are the command line's job (`skyjo-lan scenario FILE`). The format is documented in
docs/scenarios.md. Each game contributes a `ScenarioFormat` (how to read its decks, how to report
its table) in its own package's ``scenario.py``.

Exit codes: 0 every move applied; 1 a move was refused (the report is the table before that move,
with ``error`` set); `MalformedScenario` (exit 2) for a document that is not a valid scenario.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .core.dealer import Dealer, DeckError, check_deck
from .core.errors import EngineError, IllegalMove, MalformedMove, OptionError
from .core.moves import Move
from .core.state import TableState
from .engine import apply, new_game, parse_move, rules_for
from .registry import game as _game
from .registry import names

S = TypeVar("S", bound=TableState)


class MalformedScenario(Exception):
    """The document is not a scenario this runner can play (exit code 2)."""


@dataclass(frozen=True)
class ScenarioFormat(Generic[S]):
    """What a game adds to the runner.

    `decks(round_entry)` returns the decks a round entry gives, as {deck name: values top first}
    (raising `MalformedScenario` for entries it cannot read); `report(state)` the game's part of
    the output.
    """

    decks: Callable[[Mapping[str, Any]], dict[str, list[int]]]
    report: Callable[[S], dict[str, Any]]


def format_for(game: str) -> ScenarioFormat[Any]:
    entry = _game(game)
    if entry is None:
        raise MalformedScenario(f"unknown game {game!r} (games: {', '.join(names())})")
    try:
        fmt: ScenarioFormat[Any] = importlib.import_module(entry.scenario_module).FORMAT
    except ModuleNotFoundError:
        raise MalformedScenario(f"game {game!r} is not available in this version") from None
    return fmt


def run(document: Any) -> tuple[dict[str, Any], int]:
    """Play a scenario document. Raises `MalformedScenario`; else returns (report, exit code)."""
    if not isinstance(document, Mapping):
        raise MalformedScenario("a scenario is a JSON object")
    unknown = set(document) - {"game", "players", "options", "seed", "rounds"}
    if unknown:
        raise MalformedScenario(f"unknown top-level field(s): {', '.join(sorted(unknown))}")
    game = document.get("game")
    if not isinstance(game, str):
        raise MalformedScenario('"game" must be a string')
    fmt = format_for(game)
    players = document.get("players")
    if not isinstance(players, int) or isinstance(players, bool):
        raise MalformedScenario('"players" must be a whole number')
    options = document.get("options", {})
    if not isinstance(options, Mapping):
        raise MalformedScenario('"options" must be an object')
    seed = document.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise MalformedScenario('"seed" must be a whole number')
    rounds = document.get("rounds", [])
    if not isinstance(rounds, list) or not all(isinstance(r, Mapping) for r in rounds):
        raise MalformedScenario('"rounds" must be a list of objects')

    try:
        state, events = new_game(game, players, options)
    except OptionError as exc:
        raise MalformedScenario(exc.reason) from None
    rules = rules_for(game)

    decks: dict[tuple[int, str], list[int]] = {}
    moves: list[list[Move]] = []
    for number, entry in enumerate(rounds, start=1):
        extra = set(entry) - {"deck", "action_deck", "moves"}
        if extra:
            raise MalformedScenario(f"round {number}: unknown field(s) {', '.join(sorted(extra))}")
        for deck, values in fmt.decks(entry).items():
            try:
                check_deck(values, rules.composition(state, deck), deck)
            except DeckError as exc:
                raise MalformedScenario(f"round {number}: {exc.reason}") from None
            decks[(number, deck)] = values
        raw_moves = entry.get("moves", [])
        if not isinstance(raw_moves, list):
            raise MalformedScenario(f'round {number}: "moves" must be a list')
        parsed = []
        for index, raw in enumerate(raw_moves):
            try:
                parsed.append(parse_move(game, raw))
            except MalformedMove as exc:
                raise MalformedScenario(f"round {number}, move {index}: {exc.reason}") from None
        moves.append(parsed)

    dealer = Dealer(rules.composition, seed=seed, decks=decks)
    try:
        state, _ = dealer.settle(state, events, apply)
        for number, round_moves in enumerate(moves, start=1):
            for index, move in enumerate(round_moves):
                reason = _out_of_place(state, number)
                if reason is None:
                    try:
                        state, events = apply(state, move)
                    except IllegalMove as exc:
                        reason = exc.reason
                if reason is not None:
                    report = _report(fmt, state)
                    report["error"] = {"round": number, "move": index, "reason": reason}
                    return report, 1
                state, _ = dealer.settle(state, events, apply)
    except DeckError as exc:  # pragma: no cover - decks are checked up front
        raise MalformedScenario(exc.reason) from None
    except EngineError as exc:  # pragma: no cover - an engine bug, reported rather than crashing
        raise MalformedScenario(f"internal error: {exc.reason}") from None
    return _report(fmt, state), 0


def _out_of_place(state: TableState, number: int) -> str | None:
    if state.phase == "game_over":
        return "the game is over"
    if state.round > number:
        return f"round {number} is over; this move belongs to a later round entry"
    if state.round < number:
        return f"round {state.round} has not ended; round {number} has not started"
    return None


def _report(fmt: ScenarioFormat[Any], state: TableState) -> dict[str, Any]:
    report: dict[str, Any] = {"game": state.game, "round": state.round}
    report.update(fmt.report(state))
    report.setdefault("winners", list(state.winners))
    report["error"] = None
    return report


def round_scores(state: TableState, seat: int) -> list[int]:
    """The scores `seat` added to its total, round by round."""
    return [record.scores[seat] for record in state.history]


def int_deck(
    entry: Mapping[str, Any], key: str, round_label: str, parse: Callable[[Any], int]
) -> list[int] | None:
    """Read one deck list of a round entry with `parse` for each card, or None if absent."""
    if key not in entry:
        return None
    raw = entry[key]
    if not isinstance(raw, list):
        raise MalformedScenario(f'{round_label}: "{key}" must be a list')
    return [parse(item) for item in raw]


def number_card(item: Any, allowed: Sequence[int]) -> int:
    if not isinstance(item, int) or isinstance(item, bool) or item not in allowed:
        raise MalformedScenario(f"{item!r} is not a card of this deck")
    return item
