"""One adapter per game: how its state becomes a table model, decisions, a prompt and a log."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from skyjo_p2p.core.events import RoundEnded
from skyjo_p2p.core.state import TableState

from ..i18n import tr
from ..model import ScoreCell, ScoreSheet
from ..narrate import Narrator


@dataclass(frozen=True)
class GameAdapter:
    name: str
    table_model: Callable[[Any, int | None, Sequence[str], str], Any]
    decision: Callable[..., Any]
    prompt: Callable[..., Any]
    turn_text: Callable[..., str]
    narrator: Callable[..., Narrator]
    lowest_wins: bool
    live_scores: Callable[[Any], list[int | None]]

    def subtitle(self, state: TableState, lang: str) -> str:
        parts = [tr(lang, "header.round", n=max(state.round, 1))]
        options = state.options
        if getattr(options, "single_round", False):
            parts.append(tr(lang, "header.single_round"))
        elif getattr(options, "target_score", None) is not None:
            parts.append(tr(lang, "header.target", n=options.target_score))
        return " · ".join(parts)

    def score_sheet(
        self, state: TableState, names: Sequence[str], me: int | None = None, lang: str = "en"
    ) -> ScoreSheet:
        rounds = []
        for record in state.history:
            if not isinstance(record, RoundEnded):
                continue
            cells = [
                ScoreCell(
                    points=record.scores[s],
                    raw=record.raw[s],
                    doubled=record.doubled and s == record.ender,
                    ender=s == record.ender,
                )
                for s in range(state.players)
            ]
            rounds.append((record.round, cells))
        live = self.live_scores(state) if state.phase not in ("game_over",) else []
        shown = [tr(lang, "you") if seat == me else name for seat, name in enumerate(names)]
        return ScoreSheet(shown, rounds, list(state.totals), self.lowest_wins, live)


def _skyjo_live(state: Any) -> list[int | None]:
    from .skyjo.model import grid_cards

    if state.phase in ("setup", "deal") and not any(state.face_up):
        return []
    return [grid_cards(state, s, None)[1] for s in range(state.players)]


def _none_live(state: Any) -> list[int | None]:
    return []


def adapter(game: str) -> GameAdapter:
    if game == "skyjo":
        from .skyjo import model as skyjo_vm

        return GameAdapter(
            "skyjo",
            skyjo_vm.table_model,
            skyjo_vm.decision,
            skyjo_vm.prompt,
            skyjo_vm.turn_text,
            lambda players, me, names, lang, state: skyjo_vm.SkyjoNarrator(
                players, me, names, lang, state.shape.size if state is not None else 12
            ),
            True,
            _skyjo_live,
        )
    if game == "skip-bo":
        from .skipbo import model as skipbo_vm

        return GameAdapter(
            "skip-bo",
            skipbo_vm.table_model,
            skipbo_vm.decision,
            skipbo_vm.prompt,
            skipbo_vm.turn_text,
            lambda players, me, names, lang, state: skipbo_vm.SkipBoNarrator(players, me, names, lang),
            False,
            _none_live,
        )
    if game == "skyjo-action":
        from .action import model as action_vm

        return GameAdapter(
            "skyjo-action",
            action_vm.table_model,
            action_vm.decision,
            action_vm.prompt,
            action_vm.turn_text,
            lambda players, me, names, lang, state: action_vm.ActionNarrator(
                players, me, names, lang, state.size if state is not None else 12
            ),
            True,
            _skyjo_live,
        )
    raise ValueError(f"no screen for the game {game!r}")
