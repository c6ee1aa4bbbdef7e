"""The SKYJO ACTION table: every pile, every grid, held action cards, and what the game waits for.

Grids are one flat list: seat s, slot i is ``grid[s * size + i]`` (EMPTY once removed). Piles are
lists from bottom to top (the top is the last item). Every field is an immutable value or a flat
list of immutable values, as `TableState` requires.

What the game waits for is always one of:

* a request (``pending``, from `TableState`): nobody may move;
* setup (``step == Step.SETUP``): every seat with setup cards left to turn may move;
* one decision: ``step`` names it, ``actor`` is the seat that decides (it may be another seat than
  the one whose turn it is, e.g. a star's owner), ``decision`` holds its data if it has any
  (a record of `decisions`).

When no decision is open the rules go on with ``agenda``, a stack of small tasks (the rest of the
turn, the lines of each grid, the end of the turn...). Things that happen "at once" (R-A6) are
queued in ``offers`` (star takes) and ``found`` (action cards turned up in the action-in-deck
variant) and come before the agenda. See `rules.advance`.
"""

from __future__ import annotations

from typing import Any, TypeVar

from ..core.events import Event, Request
from ..core.state import TableState
from ..core.steps import StepName
from ..grid import EMPTY, GridShape
from .cards import KIND_NAMES
from .decisions import Decision
from .options import ActionOptions

# Phases of a round.
SETUP, TURN, SCORING, GAME_OVER = "setup", "turn", "scoring", "game_over"


class Step(StepName):
    """The decision the table waits for (``state.step``)."""

    NONE = ""
    SETUP = "setup"  # every seat with setup cards left to turn decides
    # a turn ...
    CHOOSE = "choose"
    DRAWN = "drawn"
    TOOK = "took"
    FLIP = "flip"
    # ... things that happen at once ...
    OFFER = "offer"
    FOUND = "found"
    LINES = "lines"
    # ... and the choices of the action cards (R-A12).
    PICK = "pick"
    SWAP = "swap"
    DRAW3 = "draw-three"
    PEEK = "peek"
    REPLAY = "replay"
    STEAL = "steal"
    EXCHANGE = "exchange"


Task = tuple[Any, ...]
D = TypeVar("D", bound=Decision)


class ActionState(TableState):
    __slots__ = (
        "action_deck",
        "action_discard",
        "actor",
        "agenda",
        "claims",
        "decision",
        "discard",
        "draw",
        "ender",
        "extra",
        "face_up",
        "first",
        "found",
        "fresh",
        "grid",
        "held",
        "holding",
        "in_play",
        "kept",
        "laps_left",
        "lines_clear",
        "market",
        "offers",
        "settled",
        "shape",
        "size",
        "starter",
        "step",
        "to_reveal",
        "turn",
        "watch",
    )

    options: ActionOptions
    shape: GridShape
    size: int  # slots per grid (shape.size, kept as a plain int: it is read very often)
    grid: list[int]
    face_up: list[bool]
    draw: list[int]  # playing cards, bottom .. top
    discard: list[int]  # playing cards, bottom .. top (buried cards lie face down at the bottom)
    # Tuples, not lists, for what changes rarely: a state is copied on every apply, lists with it.
    market: tuple[int, ...]  # four face-up action cards (EMPTY: a hole the empty piles left)
    action_deck: tuple[int, ...]  # bottom .. top, face down
    action_discard: tuple[int, ...]  # bottom .. top, face up
    held: tuple[tuple[int, ...], ...]  # each seat's action cards, face up beside the grid
    fresh: tuple[int, ...]  # cards taken during the current turn: not playable in it (R-A4)
    in_play: tuple[int, ...]  # action cards resolving, outermost first (nested plays)
    holding: tuple[int, ...]  # playing cards in the active seat's hand (1 drawn, or draw-three's)
    step: Step
    actor: int | None
    decision: Decision | None
    agenda: tuple[Task, ...]  # the last task runs next
    watch: tuple[tuple[int, int, int, bool], ...]  # (seat, slot or -1: the pile, handle, may wake a star)
    claims: tuple[tuple[int, bool, int], ...]  # (handle, is an action card, seat): checked once public
    offers: tuple[int, ...]  # seats owed a star's take (R-A6), in order
    found: tuple[tuple[int, int, int], ...]  # (seat, handle, grid index or -1): action cards turned up
    kept: tuple[tuple[int, ...], ...]  # optional lines their owner kept (their handles)
    lines_clear: tuple[tuple[int, ...], ...]  # per seat: grid and faces when last found clear
    settled: tuple[int, ...]  # every grid and face at the last end of turn with nothing to do
    to_reveal: tuple[int, ...]
    turn: int | None
    first: int | None
    starter: int | None
    ender: int | None
    laps_left: int
    extra: int  # extra turns the active seat still has (R-A12 extra-turns, defense)

    def __init__(self, players: int, options: ActionOptions) -> None:
        super().__init__("skyjo-action", players, options)
        self.shape = options.shape
        self.size = options.shape.size
        self.grid = []
        self.face_up = []
        self.draw = []
        self.discard = []
        self.market = ()
        self.action_deck = ()
        self.action_discard = ()
        self.held = ((),) * players
        self.fresh = ()
        self.in_play = ()
        self.holding = ()
        self.step = Step.NONE
        self.actor = None
        self.decision = None
        self.agenda = ()
        self.watch = ()
        self.claims = ()
        self.offers = ()
        self.found = ()
        self.kept = ()
        self.lines_clear = ((),) * players
        self.settled = ()
        self.to_reveal = (0,) * players
        self.turn = None
        self.first = None
        self.starter = None
        self.ender = None
        self.laps_left = 0
        self.extra = 0

    # --- reading the table ------------------------------------------------------------------

    def slots_of(self, seat: int) -> list[int]:
        size = self.size
        return self.grid[seat * size : (seat + 1) * size]

    def card_slots(self, seat: int) -> list[int]:
        """Slots of `seat` that still hold a card."""
        base = seat * self.size
        grid = self.grid
        return [i for i in range(self.size) if grid[base + i] != EMPTY]

    def face_down_slots(self, seat: int) -> list[int]:
        base = seat * self.size
        grid, up = self.grid, self.face_up
        return [i for i in range(self.size) if grid[base + i] != EMPTY and not up[base + i]]

    def has_face_down(self, seat: int) -> bool:
        size = self.size
        base = seat * size
        # removed slots are never face up, so: face up + removed < size <=> a card is face down
        return (
            self.face_up[base : base + size].count(True) + self.grid[base : base + size].count(EMPTY) < size
        )

    def has_cards(self, seat: int) -> bool:
        size = self.size
        return self.grid[seat * size : (seat + 1) * size].count(EMPTY) < size

    def set_held(self, seat: int, cards: tuple[int, ...]) -> None:
        held = self.held
        self.held = (*held[:seat], cards, *held[seat + 1 :])

    def to_action_discard(self, handle: int, under: bool = False) -> None:
        """Put an action card face up on the action discard (or under it)."""
        self.action_discard = (handle, *self.action_discard) if under else (*self.action_discard, handle)

    def discard_top(self) -> int | None:
        return self.discard[-1] if self.discard else None

    def held_names(self, seat: int) -> list[str]:
        return [KIND_NAMES[self.public_value(h)] for h in self.held[seat]]

    def holds(self, seat: int, code: int) -> int | None:
        """Position of the first held card of kind `code`, or None."""
        for index, handle in enumerate(self.held[seat]):
            if self.public_value(handle) == code:
                return index
        return None

    def can_take_action(self) -> bool:
        """Is there an action card to take, from the market or the action deck (R-A10)?"""
        if not self.options.has_market:
            return False
        return bool(self.action_deck or self.action_discard) or any(h != EMPTY for h in self.market)

    def to_move(self) -> int | None:
        """The seat whose turn it is, or None during setup and at game over."""
        return self.turn if self.phase == TURN else None

    def locations(self) -> dict[int, str]:
        """Where every live card lies (for tests and tools)."""
        out: dict[int, str] = {}
        size = self.size
        for index, handle in enumerate(self.grid):
            if handle != EMPTY:
                out[handle] = f"grid:{index // size}:{index % size}"
        for name, pile in (
            ("draw", self.draw),
            ("discard", self.discard),
            ("action_deck", self.action_deck),
            ("action_discard", self.action_discard),
        ):
            for handle in pile:
                out[handle] = name
        for position, handle in enumerate(self.market):
            if handle != EMPTY:
                out[handle] = f"market:{position}"
        for seat, cards in enumerate(self.held):
            for handle in cards:
                out[handle] = f"held:{seat}"
        for handle in self.in_play:
            out[handle] = "in_play"
        for handle in self.holding:
            out[handle] = f"hand:{self.turn}"
        return out

    # --- waiting for things -----------------------------------------------------------------

    def reveal_public(self, handle: int, events: list[Event]) -> None:
        requests: list[Request] = []
        self.request_reveal(handle, None, requests)
        self.ask(events, requests)

    def reveal_to(self, handle: int, seat: int, events: list[Event]) -> None:
        requests: list[Request] = []
        self.request_reveal(handle, seat, requests)
        self.ask(events, requests)

    def push(self, *tasks: Task) -> None:
        """Schedule tasks: the first given runs first, before anything already scheduled."""
        self.agenda = self.agenda + tuple(reversed(tasks))

    def decide(self, step: Step, actor: int, decision: Decision | None = None) -> None:
        """Open a decision: `actor` decides `step`, with its data if it has any."""
        self.step = step
        self.actor = actor
        self.decision = decision

    def decision_as(self, kind: type[D]) -> D:
        """The open decision's data, which its step says is a `kind` (anything else is a bug)."""
        decision = self.decision
        if not isinstance(decision, kind):
            raise AssertionError(f"step {self.step!r} holds {decision!r}, not a {kind.__name__}")
        return decision

    def public_key(self) -> tuple[Any, ...]:
        # The decision enters the hash as the plain tuple it always was (see `decisions`).
        key = super().public_key()
        at = _DECISION_AT
        data = () if self.decision is None else self.decision.key()
        return (*key[:at], data, *key[at + 1 :])

    def done(self) -> None:
        """The open decision is settled."""
        self.step = Step.NONE
        self.actor = None
        self.decision = None


_DECISION_AT = ActionState._all_slots().index("decision")
