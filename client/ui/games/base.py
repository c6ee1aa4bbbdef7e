"""What a game supplies to the UI: its `GameScreen` (table model, decision, prompt, log, drawing...).

A game's screen is one object (`games.skyjo.screen.SKYJO`, ...), registered once in `games.SCREENS`;
the controller (`app`), the frame (`render`), the lobby and the replay ask the registry for it by
the game's name. The screen is generic over the game's state type; the registry, keyed by a name
read at run time, holds them as `GameScreen[Any]`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from skyjo_p2p.core.events import RoundEnded
from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.state import TableState

from ..canvas import Canvas, Rect, Target
from ..i18n import tr
from ..model import Button, Decision, ScoreCell, ScoreSheet, ScreenModel
from ..narrate import Narrator

S = TypeVar("S", bound=TableState, contravariant=True)
State = TypeVar("State", bound=TableState)
T = TypeVar("T")


@dataclass(frozen=True)
class Logo:
    """The game's name in the header: its letters, each in the colour band of a card."""

    text: str
    bands: tuple[str, ...]


class GameScreen(Protocol[S]):
    """One game on the screen. `S` is the game's state type."""

    @property
    def name(self) -> str:
        """The game's name, as the engine and the lobby know it ("skyjo", "skip-bo" ...)."""
        ...

    @property
    def title(self) -> str:
        """The game's name as shown to people ("SKYJO ACTION")."""
        ...

    @property
    def logo(self) -> Logo:
        """The header's logo."""
        ...

    @property
    def lowest_wins(self) -> bool:
        """Whether the lowest total wins (SKYJO) or the highest (SKIP-BO)."""
        ...

    def table_model(self, state: S, me: int | None, names: Sequence[str], lang: str) -> object:
        """The table's view model (what `draw` draws), built from a state."""
        ...

    def decision(self, state: S, me: int, moves: Sequence[Move], lang: str) -> Decision | None:
        """What `me` must decide now: the legal `moves` as paths of targets."""
        ...

    def prompt(
        self,
        state: S,
        me: int | None,
        names: Sequence[str],
        lang: str,
        dec: Decision | None,
        chosen: tuple[Target, ...],
    ) -> tuple[str, list[Button]]:
        """The line telling the player what to do now, and its buttons."""
        ...

    def turn_text(self, state: S, me: int | None, names: Sequence[str], lang: str) -> str:
        """Whose turn it is, for the header."""
        ...

    def narrator(
        self, players: int, me: int | None, names: Sequence[str], lang: str, state: S | None
    ) -> Narrator:
        """A fresh narrator for the log under the table."""
        ...

    def live_scores(self, state: S) -> list[int | None]:
        """Each seat's visible points in the round in progress (empty when the game has none)."""
        ...

    def subtitle(self, state: S, lang: str) -> str:
        """The header's text after the logo (round, target score)."""
        ...

    def score_sheet(
        self, state: S, names: Sequence[str], me: int | None = None, lang: str = "en"
    ) -> ScoreSheet:
        """The score sheet overlay's content."""
        ...

    def draw(self, canvas: Canvas, area: Rect, model: ScreenModel) -> None:
        """Draw the table of `model` (its `table` came from `table_model`) in `area`."""
        ...

    def hint(
        self,
        state: S,
        me: int,
        dec: Decision | None,
        chosen: tuple[Target, ...],
        cursor: Target | None,
        lang: str,
    ) -> tuple[str, str]:
        """One line about the card under the cursor, and its style ("warn": the move it leads to
        would have no effect); ("", "dim") when there is nothing to say."""
        ...


class ScreenBase(Generic[State]):
    """The parts of a `GameScreen` every game of the family shares: header subtitle and score sheet."""

    lowest_wins = True

    def live_scores(self, state: State) -> list[int | None]:
        return []

    def hint(
        self,
        state: State,
        me: int,
        dec: Decision | None,
        chosen: tuple[Target, ...],
        cursor: Target | None,
        lang: str,
    ) -> tuple[str, str]:
        """Nothing to say about a card by default (SKYJO's and SKIP-BO's cards need no words)."""
        return "", "dim"

    def subtitle(self, state: State, lang: str) -> str:
        parts = [tr(lang, "header.round", n=max(state.round, 1))]
        options = state.options
        if getattr(options, "single_round", False):
            parts.append(tr(lang, "header.single_round"))
        elif getattr(options, "target_score", None) is not None:
            parts.append(tr(lang, "header.target", n=options.target_score))
        return " · ".join(parts)

    def score_sheet(
        self, state: State, names: Sequence[str], me: int | None = None, lang: str = "en"
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


def required(value: T | None) -> T:
    """A field of a move that its kind always has (the rules check each kind's fields), typed so."""
    if value is None:
        raise ValueError("a move without a field its kind needs")
    return value
