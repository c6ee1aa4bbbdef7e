"""SKYJO ACTION's `GameScreen`."""

from __future__ import annotations

from collections.abc import Sequence

from skyjo_p2p.action.state import ActionState
from skyjo_p2p.core.moves import Move

from ...canvas import Canvas, Rect, Target
from ...model import Button, Decision, ScreenModel
from ..base import Logo, ScreenBase
from ..skyjo.screen import grid_live_scores
from . import draw, hints, model, narrate


class ActionScreen(ScreenBase[ActionState]):
    """SKYJO ACTION: SKYJO's grids and scores, plus the action cards."""

    name = "skyjo-action"
    title = "SKYJO ACTION"
    logo = Logo(" SKYJO ACTION ", ("neg",) * 7 + ("action",) * 7)
    lowest_wins = True

    def table_model(
        self, state: ActionState, me: int | None, names: Sequence[str], lang: str
    ) -> model.ActionTable:
        return model.table_model(state, me, names, lang)

    def decision(self, state: ActionState, me: int, moves: Sequence[Move], lang: str) -> Decision | None:
        return model.decision(state, me, moves, lang)

    def prompt(
        self,
        state: ActionState,
        me: int | None,
        names: Sequence[str],
        lang: str,
        dec: Decision | None,
        chosen: tuple[Target, ...],
    ) -> tuple[str, list[Button]]:
        return model.prompt(state, me, names, lang, dec, chosen)

    def turn_text(self, state: ActionState, me: int | None, names: Sequence[str], lang: str) -> str:
        return model.turn_text(state, me, names, lang)

    def narrator(
        self, players: int, me: int | None, names: Sequence[str], lang: str, state: ActionState | None
    ) -> narrate.ActionNarrator:
        return narrate.ActionNarrator(players, me, names, lang, state.size if state is not None else 12)

    def live_scores(self, state: ActionState) -> list[int | None]:
        return grid_live_scores(state)

    def draw(self, canvas: Canvas, area: Rect, model: ScreenModel) -> None:
        draw.draw_table(canvas, area, model)

    def hint(
        self,
        state: ActionState,
        me: int,
        dec: Decision | None,
        chosen: tuple[Target, ...],
        cursor: Target | None,
        lang: str,
    ) -> tuple[str, str]:
        return hints.hint(state, me, dec, chosen, cursor, lang)


ACTION = ActionScreen()
