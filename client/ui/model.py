"""The view-model: everything a screen shows, as plain data, already in the player's language.

`build_screen` (in `app`) fills a `ScreenModel` from a table source (a live `PeerRunner` or a
replay step) and the controller's state (cursor, overlays...); `render.render` draws it. Each game
contributes, through its `games.GameScreen`, its table model (`games.skyjo.model.SkyjoTable`, ...)
and its `Decision`s: the legal moves of the moment, each reached by a *path* of targets the player picks
one after the other (a card to take, then a pile to put it on). The player can only walk paths
that exist, so no illegal move can ever be composed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from client.table.evening import EveningRow
from skyjo_p2p.core.moves import Move

from .canvas import Span, Target


@dataclass(frozen=True)
class Option:
    """A legal move and the targets to pick to make it."""

    path: tuple[Target, ...]
    move: Move


@dataclass
class Decision:
    """What this seat must decide now.

    `kind` names it (for the prompt and the help); `multi` > 0 means "pick that many targets, in
    any order" (SKYJO's setup); `keys` gives some targets a digit; `labels` names the targets
    shown as buttons (choices that are not a card on the table).
    """

    kind: str
    options: list[Option]
    multi: int = 0
    keys: dict[Target, str] = field(default_factory=dict)
    labels: dict[Target, str] = field(default_factory=dict)
    depth_keys: dict[int, dict[Target, str]] = field(default_factory=dict)
    """Digits that differ by step: depth -> target -> key (overrides `keys`)."""
    focus: dict[Target, frozenset[Target]] = field(default_factory=dict)
    """Targets to highlight while the cursor is on a target (a line's cards)."""
    auto: frozenset[str] = frozenset()
    """Kinds of target picked without asking when they are the only choice left (an order)."""

    def key_map(self, depth: int) -> dict[Target, str]:
        return {**self.keys, **self.depth_keys.get(depth, {})}


@dataclass(frozen=True)
class Button:
    target: Target
    label: str
    key: str | None = None


@dataclass
class UiView:
    """The controller's state, as the renderer needs it."""

    candidates: frozenset[Target] = frozenset()
    cursor: Target | None = None
    chosen: tuple[Target, ...] = ()
    keys: dict[Target, str] = field(default_factory=dict)
    focus: frozenset[Target] = frozenset()
    """Targets to highlight along with the cursor (e.g. the cards of a line being chosen)."""
    recent: frozenset[Target] = frozenset()
    """The cards each seat changed last (marked until that seat acts again)."""
    gone: dict[Target, str] = field(default_factory=dict)
    """Places of cards that just left the table (a removed line) -> the card, shown struck out."""


@dataclass(frozen=True)
class LinkView:
    seat: int
    name: str
    status: str  # connected | connecting | reconnecting | blamed | gone | local
    retry_in: float | None = None


@dataclass(frozen=True)
class ScoreCell:
    points: int
    raw: int
    doubled: bool = False
    ender: bool = False


@dataclass
class ScoreSheet:
    names: list[str]
    rounds: list[tuple[int, list[ScoreCell]]]
    totals: list[int]
    lowest_wins: bool = True
    live: list[int | None] = field(default_factory=list)
    """The round in progress: each seat's visible points (SKYJO), or None."""


@dataclass
class ResultView:
    winners: list[str]
    ranking: list[tuple[str, int, bool]]  # name, total, winner
    me_won: bool
    saved: str = ""
    evening: list[EveningRow] = field(default_factory=list)
    """The scores of the evening, this game counted (shown from the second game on)."""
    games: int = 0
    """How many games the evening counts."""
    again: bool = False
    """Another game may follow: q goes back to the table's lobby."""


@dataclass
class HelpView:
    title: str
    rows: list[tuple[str, str]]


@dataclass
class ScreenModel:
    lang: str
    game: str
    title: str
    subtitle: str
    turn_text: str
    me: int | None
    names: list[str]
    table: Any = None
    prompt: str = ""
    prompt_style: str = "prompt"
    buttons: list[Button] = field(default_factory=list)
    log: list[list[Span]] = field(default_factory=list)
    since: tuple[int, list[list[Span]]] | None = None
    """Since this player's last turn: how many of `log`'s last lines, and the same told as one
    line per other player (what a log too short for them shows instead)."""
    links: list[LinkView] = field(default_factory=list)
    ui: UiView = field(default_factory=UiView)
    overlay: str | None = None  # help | scores | round | quit | result | chat
    help: HelpView | None = None
    scores: ScoreSheet | None = None
    round_over: tuple[str, list[str]] | None = None
    round_keys: str = ""
    """The round summary's footer ("any key: next round"; at game over, the result comes next)."""
    result: ResultView | None = None
    chat: str | None = None
    flash: str = ""
    hint: str = ""
    """One line above the prompt about the card under the cursor (SKYJO ACTION's cards)."""
    hint_style: str = "dim"
    """"warn" when the move under the cursor would have no effect."""
    rules: list[str] = field(default_factory=list)
    """The rules page of the game (overlay "rules"), line by line."""
    rules_top: int = 0
    """The first line of `rules` shown (the page scrolls)."""
    help_top: int = 0
    """The first line of the help shown, when it is longer than the screen (it scrolls)."""
    footer: str = ""
    notice: str = ""
    """A centred message instead of the table (before the game starts, while loading ...)."""
    countdown: int | None = None
    """Seconds left on this player's move countdown (None: none runs); shown by the turn marker."""
    quit_note: str = ""
    """A line the leave question adds (the table could replace no one else after this leave)."""
    countdown_paused: bool = False
    """The countdown stands still: the table waits for someone else (it counts only the time
    in which the player can act)."""
    watching: int = 0
    """How many spectators watch the table (shown on the status line when any do)."""
    banner: str = ""
    """A spectator's header: "watching TABLE (N players)" (empty for a player)."""
