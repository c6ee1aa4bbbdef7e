"""SKYJO's `GameScreen`."""

from __future__ import annotations

from collections.abc import Sequence

from skyjo_p2p.action.state import ActionState
from skyjo_p2p.core.moves import Move
from skyjo_p2p.skyjo.state import SkyjoState

from ...canvas import Canvas, Rect, Target
from ...model import Button, Decision, ScreenModel
from ..base import Logo, ScreenBase
from . import draw, model


class SkyjoScreen(ScreenBase[SkyjoState]):
    """SKYJO: lowest total wins; the score sheet shows each seat's visible points as it goes."""

    name = "skyjo"
    title = "SKYJO"
    logo = Logo(" SKYJO ", ("neg", "neg", "zero", "low", "mid", "high", "high"))
    lowest_wins = True

    def table_model(
        self, state: SkyjoState, me: int | None, names: Sequence[str], lang: str
    ) -> model.SkyjoTable:
        return model.table_model(state, me, names, lang)

    def decision(self, state: SkyjoState, me: int, moves: Sequence[Move], lang: str) -> Decision | None:
        return model.decision(state, me, moves, lang)

    def prompt(
        self,
        state: SkyjoState,
        me: int | None,
        names: Sequence[str],
        lang: str,
        dec: Decision | None,
        chosen: tuple[Target, ...],
    ) -> tuple[str, list[Button]]:
        return model.prompt(state, me, names, lang, dec, chosen)

    def turn_text(self, state: SkyjoState, me: int | None, names: Sequence[str], lang: str) -> str:
        return model.turn_text(state, me, names, lang)

    def narrator(
        self, players: int, me: int | None, names: Sequence[str], lang: str, state: SkyjoState | None
    ) -> model.SkyjoNarrator:
        return model.SkyjoNarrator(players, me, names, lang, state.shape.size if state is not None else 12)

    def live_scores(self, state: SkyjoState) -> list[int | None]:
        return grid_live_scores(state)

    def draw(self, canvas: Canvas, area: Rect, model: ScreenModel) -> None:
        draw.draw_table(canvas, area, model)


def grid_live_scores(state: SkyjoState | ActionState) -> list[int | None]:
    """Each seat's visible points on its grid (none before the setup's first card is up)."""
    if state.phase in ("setup", "deal") and not any(state.face_up):
        return []
    return [model.grid_cards(state, s, None)[1] for s in range(state.players)]


SKYJO = SkyjoScreen()
