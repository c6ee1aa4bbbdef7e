"""SKIP-BO's `GameScreen`."""

from __future__ import annotations

from collections.abc import Sequence

from skyjo_p2p.core.moves import Move
from skyjo_p2p.skipbo.state import SkipBoState

from ...canvas import Canvas, Rect, Target
from ...model import Button, Decision, ScreenModel
from ..base import Logo, ScreenBase
from . import draw, model


class SkipBoScreen(ScreenBase[SkipBoState]):
    """SKIP-BO: the highest total wins; no running score in a round."""

    name = "skip-bo"
    title = "SKIP-BO"
    logo = Logo(" SKIP-BO ", ("sb1", "sb1", "sb5", "sb5", "sb9", "sb9", "wild", "wild", "wild"))
    lowest_wins = False

    def table_model(
        self, state: SkipBoState, me: int | None, names: Sequence[str], lang: str
    ) -> model.SkipBoTable:
        return model.table_model(state, me, names, lang)

    def decision(self, state: SkipBoState, me: int, moves: Sequence[Move], lang: str) -> Decision | None:
        return model.decision(state, me, moves, lang)

    def prompt(
        self,
        state: SkipBoState,
        me: int | None,
        names: Sequence[str],
        lang: str,
        dec: Decision | None,
        chosen: tuple[Target, ...],
    ) -> tuple[str, list[Button]]:
        return model.prompt(state, me, names, lang, dec, chosen)

    def turn_text(self, state: SkipBoState, me: int | None, names: Sequence[str], lang: str) -> str:
        return model.turn_text(state, me, names, lang)

    def narrator(
        self, players: int, me: int | None, names: Sequence[str], lang: str, state: SkipBoState | None
    ) -> model.SkipBoNarrator:
        return model.SkipBoNarrator(players, me, names, lang)

    def draw(self, canvas: Canvas, area: Rect, model: ScreenModel) -> None:
        draw.draw_table(canvas, area, model)


SKIPBO = SkipBoScreen()
