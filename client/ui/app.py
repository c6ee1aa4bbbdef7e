"""The controller: keys in, moves out, and the `ScreenModel` of the moment.

`GameUI` reads a *source* (a live `GameRunner` through `runner.RunnerSource`, or a replay step) and keeps
what belongs to the screen only: the cursor, the targets picked so far, overlays, the chat line.
`handle_key` returns *effects* (`Submit`, `Chat`, `Quit`) that the terminal loop carries out, so
the controller itself is synchronous and easy to test. Keys are names: "left", "enter", "esc",
"tab", "btab", "backspace", "home", "end", "pgup", "pgdn", "resize", or the character typed.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from client.table.evening import Evening
from skyjo_p2p.core.events import DealRequest, RandomRequest, RevealRequest, RoundEnded, ShuffleRequest
from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.state import TableState
from skyjo_p2p.grid import EMPTY

from . import decisions, games
from .canvas import Frame, Rect, Span, Target
from .games import GameScreen
from .i18n import tr, who_key
from .model import Decision, HelpView, LinkView, ResultView, ScreenModel, UiView
from .narrate import Item, Line, LogLike, Narrator
from .recent import Tracker
from .roundend import ended_round
from .rulespage import rules_page


class Source(Protocol):
    """What the screen reads about a table."""

    game: str
    seat: int | None
    names: Sequence[str]

    def state(self) -> TableState | None: ...

    def log(self) -> Sequence[LogLike]: ...

    def legal_moves(self) -> list[Move]: ...

    def links(self) -> list[LinkView]: ...

    def halted(self) -> str | None: ...

    def away(self) -> frozenset[int]:
        """The seats whose player is away (their own program plays for them: autopilot)."""
        ...

    def taken_over(self) -> Mapping[int, str]:
        """The seats a bot plays for everyone, and why ("left" or "vanished")."""
        ...

    def time_left(self) -> float | None:
        """Seconds left on this seat's move countdown (None: none runs)."""
        ...


@dataclass(frozen=True)
class Submit:
    move: Move


@dataclass(frozen=True)
class Chat:
    text: str


@dataclass(frozen=True)
class Quit:
    """Close the screen. `leave`: the player confirmed leaving a game that is still on (the
    others are told with a signed leave before the screen closes)."""

    leave: bool = False


@dataclass(frozen=True)
class Back:
    """The away player pressed a key: they play again (the autopilot stops)."""


@dataclass(frozen=True)
class GoOn:
    """The player asks the table to go on without the seats it waits for now (`g`): a vote of
    this program, which takes a seat over only once every other program voted too."""


@dataclass(frozen=True)
class Remove:
    """The player proposes or agrees (`agree`), or refuses, that the table remove program
    `owner` (its own seat) from the game (`K`, issue 30 point 5): one agreement of this program;
    the table removes it only once every other program agreed."""

    owner: int
    agree: bool = True


Effect = Submit | Chat | Quit | Back | GoOn | Remove

_YES = ("y", "Y", "o", "O", "j", "J")  # yes, oui, ja
_NO = ("n", "N")

MAX_CHAT_LINE = 200
"""Characters of one chat line typed (or pasted) on the game screen."""

_SCROLL = {"up": -1, "k": -1, "down": 1, "j": 1, "pgup": -10, "pgdn": 10, "space": 10, " ": 10}
"""Keys that scroll a page too long for the screen (the rules, a long help)."""

ARROWS = {
    "left": "left",
    "right": "right",
    "up": "up",
    "down": "down",
    "h": "left",
    "l": "right",
    "k": "up",
    "j": "down",
}

_ANSWER_KEYS = frozenset(k for k in (*_YES, *_NO) if k not in ARROWS)
"""The keys that answer a proposal to remove a player outside its overlay (`j` moves the cursor)."""


@dataclass
class UiState:
    cursor: Target | None = None
    chosen: tuple[Target, ...] = ()
    overlay: str | None = None
    chat: str | None = None
    flash: str = ""
    sending: bool = False
    rects: dict[Target, Rect] = field(default_factory=dict)
    rounds_seen: int = -1
    result_closed: bool = False
    decision_key: tuple[str, tuple[Move, ...]] | None = None
    """The decision shown (its kind and moves): a new one resets the picks and the cursor."""
    ended: TableState | None = None
    """The round just ended, every card up: shown with its summary until a key closes it."""
    leaving: bool = False
    """The player confirmed leaving: the others are being told."""
    lost_since: dict[int, float] = field(default_factory=dict)
    """Seat -> when (time.monotonic) our link to it was seen down: "link lost 40 s ago"."""
    rules_top: int = 0
    """The first line shown of the rules page (it scrolls with the arrows)."""
    help_top: int = 0
    """The first line shown of a help too long for the screen."""
    muted: set[int] = field(default_factory=set)
    """Seats whose chat this player muted (on this screen only; nobody else is told)."""
    removals: tuple[Any, ...] = ()
    """The lines removed when the ended round's cards were turned (`LineRemoved` facts)."""
    remove_pick: int | None = None
    """(`K`) the program the player chose to propose removing, until they confirm."""
    remove_list: tuple[tuple[str, int], ...] = ()
    """(`K`) the (digit, program) pairs shown when the list opened: a digit picks the player it
    showed, even if who may be removed changed since (a vote opened or closed meanwhile)."""
    remove_why: str | None = None
    """(`K`) why nobody could be removed when the list opened empty (a `RemovalRefused` code)."""


class GameUI:
    """The screen's state for one table, and what each key does."""

    def __init__(
        self,
        source: Source,
        lang: str = "en",
        *,
        saved: str = "",
        footer: str = "",
        read_only: bool = False,
        banner: str = "",
        players: Sequence[str] = (),
        evening: Callable[[TableState], Evening] | None = None,
        again: bool = False,
    ) -> None:
        self.source = source
        self.lang = lang
        self.saved = saved
        self.footer = footer
        self.read_only = read_only
        """A spectator: no move, no chat, no leave; `q` quits at once."""
        self.banner = banner
        self.players = list(players)
        """A spectator: each seat as "NAME [fingerprint] (seat N)", listed in the help."""
        self.evening = evening
        """The scores of the evening with a finished game counted ("play again"), if kept."""
        self.again = again
        """Another game may follow at this table: q at the end goes back to its lobby."""
        self.ui = UiState()
        self.game_screen: GameScreen[Any] = games.screen(source.game)
        self.narrator: Narrator | None = None
        self.decision: Decision | None = None
        self._state: TableState | None = None
        self.bell = True
        """Ring when it becomes this seat's turn (`--no-bell`; the `b` key toggles it)."""
        self.tracker = Tracker()
        """Each seat's last change, read from the log (marked on the table)."""
        self._seen: tuple[TableState, int] | None = None
        """The last state read, and the log's length then (to rebuild a round's end)."""
        self._ending: tuple[tuple[TableState, int], int] | None = None
        """A round's end still to rebuild: `_seen` before it, and the rounds ended since."""

    # --- reading the table ------------------------------------------------------------------------

    def _narrator(self, state: TableState | None) -> Narrator:
        if self.narrator is None:
            players = len(self.source.names)
            self.narrator = self.game_screen.narrator(
                players, self.source.seat, self.source.names, self.lang, state
            )
        return self.narrator

    def refresh(self) -> None:
        """Recompute the decision from the source (call before drawing)."""
        source = self.source
        state = source.state()
        if state is not self._state:
            self._state = state
            self.ui.sending = False
        if state is None or source.seat is None or self.ui.sending or self.away():
            self._set_decision(None)  # (away: the autopilot decides, until a key)
        else:
            moves = source.legal_moves()
            self._set_decision(
                self.game_screen.decision(state, source.seat, moves, self.lang) if moves else None
            )
        if state is not None:
            rounds = sum(1 for r in state.history if isinstance(r, RoundEnded))
            if self.ui.rounds_seen < 0:
                self.ui.rounds_seen = rounds
            elif rounds > self.ui.rounds_seen:
                self.ui.rounds_seen = rounds
                if self.ui.overlay in (None, "help", "scores", "rules"):
                    # the round's end first, on its own: the result (at game over) comes after it
                    self.ui.overlay = "round"
                    self.ui.ended = None
                    over = state.phase == "game_over"  # (the final table is the round's end)
                    self._ending = (self._seen, rounds) if self._seen is not None and not over else None
                    self.ui.removals = self.tracker.update(source.log()).last_round_removals
            if self.ui.overlay != "round":
                self._ending = None
            elif self._ending is not None:
                # the session moves on in a worker thread and its facts reach the log after: a
                # screen woken in between reads a state whose round ended before the log says
                # how, so the round is rebuilt at a later refresh, once the log has caught up
                (before, length), ended = self._ending
                facts = [
                    f for item in source.log()[length:] if (f := getattr(item, "fact", None)) is not None
                ]
                self.ui.ended = self._ended_round(before, ended, facts)
                if self.ui.ended is not None or any(isinstance(f, RoundEnded) for f in facts):
                    self._ending = None  # rebuilt, or never will be: the log has the whole round
                    self.ui.removals = self.tracker.update(source.log()).last_round_removals
            if state.phase == "game_over" and not self.ui.result_closed and self.ui.overlay is None:
                self.ui.overlay = "result"
            self._seen = (state, len(source.log()))

    @staticmethod
    def _ended_round(before: TableState, rounds: int, facts: list[object]) -> TableState | None:
        """Round `rounds`, just ended, its cards up, from the last state seen of it and the facts
        logged since; None until those facts hold the round's end."""
        if sum(1 for r in before.history if isinstance(r, RoundEnded)) != rounds - 1:
            return None
        return ended_round(before, facts)

    def away(self) -> bool:
        """This seat's player is away: their program plays for them until they press a key."""
        return self.source.seat is not None and self.source.seat in self.source.away()

    def shown_names(self) -> list[str]:
        """The seats' names as the table shows them: "Ben (away, bot playing)", "Ben (bot: left)"."""
        names = list(self.source.names)
        away, taken = self.source.away(), self.source.taken_over()
        return [seat_label(self.lang, name, seat in away, taken.get(seat)) for seat, name in enumerate(names)]

    def holding(self) -> TableState | None:
        """The ended round shown instead of the table (until a key closes its summary)."""
        if self.ui.overlay != "round":
            return None
        if self.ui.ended is None and self._game_over():
            return self.source.state()  # the last round: the final table is its end
        return self.ui.ended

    def _set_decision(self, dec: Decision | None) -> None:
        ui = self.ui
        key = None if dec is None else (dec.kind, tuple(o.move for o in dec.options))
        if key != ui.decision_key:
            ui.decision_key = key
            ui.chosen = ()
            previous = ui.rects.get(ui.cursor) if ui.cursor is not None else None
            self.decision = dec
            ui.cursor = None
            self._place_cursor(previous)
        else:
            self.decision = dec

    def _candidates(self) -> list[Target]:
        if self.decision is None:
            return []
        return decisions.candidates(self.decision, self.ui.chosen)

    def _place_cursor(self, previous: Rect | None = None) -> None:
        targets = self._candidates()
        ui = self.ui
        if ui.cursor in targets:
            return
        if not targets:
            ui.cursor = None
            return
        if self.decision is not None and self.decision.multi and previous is not None:
            ui.cursor = decisions.nearest(previous, targets, ui.rects)
            return
        ui.cursor = targets[0]

    def screen(self) -> ScreenModel:
        """The model of the screen now."""
        self.refresh()
        source, lang, ui = self.source, self.lang, self.ui
        state = source.state()
        me = source.seat
        names = self.shown_names()
        ad = self.game_screen
        model = ScreenModel(
            lang=lang,
            game=source.game,
            title=source.game.upper(),
            subtitle="",
            turn_text="",
            me=me,
            names=names,
            links=[replace(link, name=self._link_name(names, link.seat)) for link in source.links()],
            footer=self.footer or (tr(lang, "status.keys_watch") if self.read_only else ""),
            banner=self.banner,
            watching=watching_of(source),
        )
        narrator = self._narrator(state)
        narrator.muted = ui.muted
        narrator.update(source.log(), state)
        halted = source.halted()
        narrator.stopped = bool(halted)
        model.log = narrator.lines(60)
        model.since = since_last_turn(narrator, me)
        if state is None:
            model.notice = "\n".join([tr(lang, "notice.keys"), tr(lang, "notice.keys_hint")])
            if halted:
                model.notice = "\n".join([tr(lang, "notice.halted"), halted])
        elif (ended := self.holding()) is not None:
            # the round just ended, every card up, until a key closes its summary (the table
            # goes on meanwhile: others do not wait for it)
            model.subtitle = ad.subtitle(ended, lang)
            if state.phase == "game_over":
                model.turn_text = ad.turn_text(state, me, names, lang)
            model.table = ad.table_model(ended, me, names, lang)
            last = state.phase == "game_over"
            model.prompt, model.prompt_style = tr(lang, "round.held_last" if last else "round.held"), "dim"
            model.round_keys = tr(lang, "round.result_next" if last else "round.continue")
            model.scores = ad.score_sheet(state, list(source.names), me, lang)
            model.round_over = self._round_over(ended, list(source.names))
        else:
            model.subtitle = ad.subtitle(state, lang)
            model.turn_text = ad.turn_text(state, me, names, lang)
            model.table = ad.table_model(state, me, names, lang)
            text, buttons = ad.prompt(state, me, names, lang, self.decision, ui.chosen)
            model.prompt, model.buttons = text, buttons
            if self.decision is None:
                busy = busy_text(state, lang)
                if busy:
                    model.prompt = busy
                    model.prompt_style = "dim"
            if ui.leaving:  # (the leave stops this seat's game: not "press q to leave" then)
                model.prompt = tr(lang, "prompt.leaving")
                model.prompt_style = "dim"
            elif halted:
                model.prompt = self._stop_text(halted)
                model.prompt_style = "error"
            elif self.away() and state.phase != "game_over":
                model.prompt, model.buttons = tr(lang, "prompt.away"), []
                model.prompt_style = "warn"
            elif self.decision is None and state.phase != "game_over":
                # waiting for the others: say whose link is down, since when
                lost = self._links_lost(source.links())
                if lost:
                    model.prompt = f"{model.prompt} ({lost})" if model.prompt else lost
                plan = self._plan(names, bool(lost))
                if plan:  # and until when, and what the table does then
                    model.prompt = f"{model.prompt} {plan}" if model.prompt else plan
            removal = self._removal_line(names) if not halted and state.phase != "game_over" else ""
            if removal:  # a proposal to remove a player: the others' say is wanted
                model.prompt = f"{model.prompt} {removal}" if model.prompt else removal
            left = source.time_left()
            if left is not None and not halted and not self.away() and state.phase != "game_over":
                model.countdown = max(0, int(left + 0.999))  # whole seconds, rounded up: 0 at the end
                waits = countdown_waits(source)
                if waits is not None:  # it stands still while the table waits for someone else
                    model.countdown_paused = True
                    who = [names[s] for s in waits if 0 <= s < len(names)]
                    paused = tr(
                        lang,
                        "prompt.countdown_paused" if who else "prompt.countdown_paused_self",
                        s=model.countdown,
                        names=join_names(lang, who),
                    )
                    model.prompt = f"{model.prompt} {paused}" if model.prompt else paused
            model.scores = ad.score_sheet(state, list(source.names), me, lang)
            if state.phase == "game_over":
                model.result = self._result(state, list(source.names))
                # the game is over: a closed link is the normal course (the others went back to
                # the lobby or home), not news to show as "✗ gone"
                model.links = [link for link in model.links if link.status in ("connected", "local")]
                if self.again and not halted and not self.read_only:
                    model.prompt = tr(lang, "prompt.game_over_again")
                    model.footer = model.footer or tr(lang, "status.keys_again")
            model.round_over = self._round_over(state, list(source.names))
        live = self.decision is not None and self.holding() is None
        candidates = self._candidates() if live else []
        keys = self.decision.key_map(len(ui.chosen)) if self.decision is not None and live else {}
        focus: frozenset[Target] = frozenset()
        if self.decision is not None and live and ui.cursor is not None:
            focus = self.decision.focus.get(ui.cursor, frozenset())
        changes = self.tracker.update(source.log())
        marked = state is not None and self.holding() is None and state.phase != "game_over"
        if marked:
            self._badge_taken(model, changes.taken)
        model.ui = UiView(
            recent=changes.recent if marked else frozenset(),
            gone={t: str(v) for t, v in changes.gone.items() if _empty_now(state, t)} if marked else {},
            candidates=frozenset(candidates),
            # no frame on a card while it is not this player's decision (others play)
            cursor=ui.cursor if live else None,
            chosen=ui.chosen,
            keys={t: k for t, k in keys.items() if t in candidates},
            focus=focus,
        )
        if live and me is not None and state is not None and ui.cursor is not None:
            model.hint, model.hint_style = ad.hint(state, me, self.decision, ui.chosen, ui.cursor, lang)
        model.overlay = ui.overlay
        if ui.overlay == "quit" and leave_ends_spares(self.source):
            model.quit_note = tr(lang, "quit.no_spare")
        if ui.overlay == "help":
            model.help = self._help()
            model.help_top = ui.help_top
        elif ui.overlay == "mute":
            model.help = self._mute_list()
        elif ui.overlay == "remove":
            model.help = self._remove_view()
        elif ui.overlay == "rules":
            model.rules = rules_page(lang, source.game)
            ui.rules_top = max(0, min(ui.rules_top, len(model.rules) - 1))
            model.rules_top = ui.rules_top
        model.chat = ui.chat
        model.flash = ui.flash
        return model

    def _link_name(self, names: Sequence[str], seat: int) -> str:
        """A seat's name on the status line: "Ben (muted)" when this player muted its chat."""
        if seat in self.ui.muted:
            return tr(self.lang, "chat.muted_name", name=names[seat])
        return names[seat]

    def _mute_list(self) -> HelpView:
        """The players, each with its digit: pressing it mutes or unmutes their chat (here only)."""
        rows: list[tuple[str, str]] = [("", tr(self.lang, "mute.explain")), ("", "")]
        for digit, seat in self._mutable():
            key = "mute.row_muted" if seat in self.ui.muted else "mute.row"
            rows.append((digit, tr(self.lang, key, name=self.source.names[seat])))
        return HelpView(tr(self.lang, "mute.title"), rows)

    # --- removing a player (issue 30 point 5) ---------------------------------------------------

    def _to_answer(self) -> Any:
        """The open proposal to remove a player that this player's program has not agreed to
        (its `RemovalChanged`), or None."""
        me = self.source.seat
        for proposal in removals(self.source):
            if me in proposal.needed and me not in proposal.agreed:
                return proposal
        return None

    def _agreed(self) -> Any:
        """The open proposal this player's program agreed to (it may take it back), or None."""
        me = self.source.seat
        return next((p for p in removals(self.source) if me in p.agreed), None)

    def _removal_line(self, names: Sequence[str]) -> str:
        """ "Anna proposes to remove Ben (1 of 2 agree): y to agree, n to refuse." while a
        proposal is open (said to the player it is about too)."""
        me = self.source.seat
        for proposal in removals(self.source):
            n, of = len(proposal.agreed), len(proposal.needed)
            who = names[proposal.owner] if 0 <= proposal.owner < len(names) else "?"
            by = names[proposal.proposer] if 0 <= proposal.proposer < len(names) else "?"
            if me not in proposal.needed:
                return tr(self.lang, "remove.status_me", by=by, n=n, of=of)
            if me in proposal.agreed:
                return tr(self.lang, "remove.status_waiting", who=who, n=n, of=of)
            return tr(self.lang, "remove.status_answer", by=by, who=who, n=n, of=of)
        return ""

    def _decision_keys(self) -> set[str]:
        dec = self.decision
        return set(dec.key_map(len(self.ui.chosen)).values()) if dec is not None else set()

    def _answer_removal(self, proposal: Any, agree: bool) -> list[Effect]:
        names = self.source.names
        who = names[proposal.owner] if 0 <= proposal.owner < len(names) else "?"
        self.ui.flash = tr(self.lang, "remove.agreed" if agree else "remove.refused", who=who)
        return [Remove(proposal.owner, agree)]

    def _remove_view(self) -> HelpView:
        """`K`: the proposal to answer, or the confirmation of ours, or the players this player
        may propose to remove (each with its digit), or why nobody can be removed here."""
        lang, names, ui = self.lang, self.source.names, self.ui
        rows: list[tuple[str, str]] = [("", tr(lang, "remove.explain")), ("", "")]
        proposal = self._to_answer()
        if ui.remove_pick is None and proposal is not None:
            rows.append(("", self._removal_line(names)))
            rows += [("y", tr(lang, "remove.agree")), ("n", tr(lang, "remove.refuse"))]
        elif ui.remove_pick is None and self._agreed() is not None:
            rows.append(("", self._removal_line(names)))
            rows.append(("n", tr(lang, "remove.take_back")))
        elif ui.remove_pick is not None:
            rows.append(("", tr(lang, "remove.confirm", who=names[ui.remove_pick])))
            rows += [("y", tr(lang, "remove.yes")), ("n", tr(lang, "remove.no"))]
        else:
            if not ui.remove_list:
                rows.append(("", tr(lang, f"remove.why.{ui.remove_why or 'no-game'}")))
            for digit, owner in ui.remove_list:
                rows.append((digit, names[owner]))
        return HelpView(tr(lang, "remove.title"), rows)

    def _removable(self) -> list[tuple[str, int]]:
        """(digit, program) for every program this player may propose to remove (at most nine)."""
        may, _ = may_remove(self.source)
        return [(str(i + 1), owner) for i, owner in enumerate(may[:9]) if owner < len(self.source.names)]

    def _remove_key(self, key: str) -> list[Effect]:
        ui = self.ui
        proposal = self._to_answer()
        if ui.remove_pick is None and proposal is not None:
            ui.overlay = None
            if key in _YES or key in _NO:
                return self._answer_removal(proposal, key in _YES)
            return []
        if ui.remove_pick is None and (mine := self._agreed()) is not None:
            ui.overlay = None
            return self._answer_removal(mine, False) if key in _NO else []
        if ui.remove_pick is not None:
            owner, ui.remove_pick, ui.overlay = ui.remove_pick, None, None
            if key in _YES:
                self.ui.flash = tr(self.lang, "remove.proposed", who=self.source.names[owner])
                return [Remove(owner)]
            return []
        picked = dict(ui.remove_list).get(key)
        if picked is None:
            ui.overlay = None
        else:
            ui.remove_pick = picked
        return []

    def _mutable(self) -> list[tuple[str, int]]:
        """(digit, seat) for every other player (at most nine)."""
        seats = [s for s in range(len(self.source.names)) if s != self.source.seat]
        return [(str(i + 1), seat) for i, seat in enumerate(seats[:9])]

    def _badge_taken(self, model: ScreenModel, taken: Sequence[tuple[int, int]]) -> None:
        """An action card just stolen or removed from a seat's hand, on that seat's box ("lost
        ROB") until the player who took it acts again."""
        seats = getattr(model.table, "seats", None)
        if not taken or not seats:
            return
        from skyjo_p2p.action.cards import KIND_NAMES, is_action

        for victim, value in taken:
            if not is_action(value):
                continue
            short = tr(self.lang, f"action.short.{KIND_NAMES[value]}")
            for seat in seats:
                if getattr(seat, "seat", None) == victim and hasattr(seat, "badges"):
                    seat.badges.append(tr(self.lang, "recent.lost", card=short))

    def _stop_text(self, halted: str) -> str:
        """Why the game stopped, said as what it is ("Anna left the table; the game cannot go
        on."; a timeout is never a cheat), in names, and how to leave."""
        line = self.narrator.stopped_by() if self.narrator is not None else None
        if line:
            said = "".join(span.text for span in line)
        else:
            said = stop_in_names(self.lang, halted, list(self.source.names))
        said = said.rstrip()
        if said and said[-1] not in ".!?…":
            said += "."  # a reason from the table ends its sentence before the keys' own
        return f"{said} {tr(self.lang, 'prompt.stopped_keys')}"

    def _plan(self, names: Sequence[str], lost: bool) -> str:
        """What the table will do about seats that do not answer, and when: "Unless Ben is back,
        the table plays his seat with its bot in 1:40." Said once a waited seat's link is down,
        the wait has gone long, or the table already cannot replace the seat (issue 28)."""
        found = table_wait(self.source)
        if found is None:
            return ""
        wait, seconds = found
        if not (lost or wait.phase != "first" or wait.blockers):
            return ""  # an ordinary wait for a move or a share: nothing to say
        lang = self.lang
        who = join_names(lang, [names[s] for s in wait.seats if 0 <= s < len(names)])
        if wait.insured and wait.phase == "voting":
            return tr(lang, "wait.voting", who=who) + self._go_on_key(names)
        when = clock_text(seconds) if seconds is not None else None
        if wait.insured:
            said = tr(lang, "wait.takeover", who=who, time=when) if when else tr(lang, "wait.voting", who=who)
            return said + self._go_on_key(names)
        if wait.blockers:
            gone = join_names(lang, [names[s] for s in wait.blockers if 0 <= s < len(names)])
            key = "wait.cannot" if when else "wait.cannot_now"
            return tr(lang, key, who=who, holders=gone, time=when or "")
        return tr(lang, "wait.stop", who=who, time=when) if when else ""

    def _go_on_key(self, names: Sequence[str]) -> str:
        """ " g: go on without Ben now." once this player may ask it (also while the others vote:
        each player says it once), else nothing."""
        without = may_go_on(self.source)
        if not without:
            return ""
        who = join_names(self.lang, [names[s] for s in without if 0 <= s < len(names)])
        return " " + tr(self.lang, "wait.go_on_key", who=who)

    def _links_lost(self, links: Sequence[LinkView]) -> str:
        """For each seat whose link is down, "Anna: link lost 40 s ago" (counts while it lasts)."""
        now = time.monotonic()
        lost = self.ui.lost_since
        parts = []
        taken = self.source.taken_over()
        for link in links:
            if link.seat in taken:  # a bot plays that seat for everyone: nobody waits for its link
                lost.pop(link.seat, None)
                continue
            if link.seat == self.source.seat or link.status in ("connected", "local"):
                lost.pop(link.seat, None)
                continue
            if link.status not in ("reconnecting", "connecting"):
                continue
            since = lost.setdefault(link.seat, now)
            parts.append(tr(self.lang, "prompt.link_lost", who=link.name, s=round(now - since)))
        return "; ".join(parts)

    def _result(self, state: TableState, names: list[str]) -> ResultView:
        me = self.source.seat
        order = sorted(
            range(state.players), key=lambda s: state.totals[s], reverse=not self.game_screen.lowest_wins
        )
        winners = list(state.winners)
        shown = [tr(self.lang, "you") if s == me else names[s] for s in range(state.players)]
        evening = self.evening(state) if self.evening is not None else None
        return ResultView(
            winners=[shown[s] for s in winners],
            ranking=[(shown[s], state.totals[s], s in winners) for s in order],
            me_won=me in winners,
            saved=self.saved,
            evening=evening.rows() if evening is not None and len(evening.results) > 1 else [],
            games=len(evening.results) if evening is not None else 0,
            again=self.again,
        )

    def _round_over(self, state: TableState, names: list[str]) -> tuple[str, list[str]] | None:
        """The round summary: each seat's points spelled out (cards, held action cards, the
        ender's doubling), its total; then what was removed as the cards were turned, and why the
        ender's score was (not) doubled."""
        records = [r for r in state.history if isinstance(r, RoundEnded)]
        if not records:
            return None
        record = records[-1]
        lang = self.lang
        me = self.source.seat
        shown = [tr(lang, "you") if s == me else names[s] for s in range(state.players)]
        held_cards = getattr(state, "held", None)
        multiplier = getattr(state.options, "ender_multiplier", 2)
        any_held = False
        width = max(len(n[:16]) for n in shown)
        points = max(len(str(v)) for v in record.scores)
        rows = []
        for seat in range(state.players):
            held = len(held_cards[seat]) if held_cards is not None and self.ui.overlay == "round" else 0
            any_held = any_held or held > 0
            doubled = record.doubled and seat == record.ender
            score = str(record.scores[seat]).rjust(points)
            total = tr(lang, "round.total", n=record.totals[seat])
            rows.append(f"{shown[seat][:16].ljust(width)}  {score}   {total}")
            if held or doubled:  # how the points came: the cards, the held cards, the doubling
                parts = [str(record.raw[seat] - 10 * held)]
                if held:
                    parts.append(tr(lang, "round.row_held", n=held, points=10 * held, raw=record.raw[seat]))
                if doubled:
                    parts.append(tr(lang, "round.times", m=multiplier, score=record.scores[seat]))
                rows.append(" " * (width + 2) + "= " + " ".join(parts))
        notes = []
        for fact in self.ui.removals:
            v = fact.values[0] if fact.values else "?"
            stars = all(x == 20 for x in fact.values) if fact.values else False
            key = f"round.removed_{fact.line}" if fact.line in ("column", "row") else "round.removed_line"
            notes.append(
                tr(
                    lang,
                    who_key(key, fact.seat, me),
                    who=shown[fact.seat],
                    v=tr(lang, "action.stars") if stars else v,
                )
            )
        if any_held:
            notes.append(tr(lang, "round.held_note"))
        if record.ender is not None:
            if self.game_screen.lowest_wins:
                key = "round.ender_doubled" if record.doubled else "round.ender"
            else:
                key = "round.stock_emptied"
            notes.append(tr(lang, who_key(key, record.ender, me), who=shown[record.ender]))
        if notes:
            rows.append("")
            rows.extend(notes)
        return tr(lang, "round.title", n=record.round), rows

    def _help(self) -> HelpView:
        lang = self.lang
        rows: list[tuple[str, str]] = []
        dec = self.decision
        if dec is not None:
            state = self.source.state()
            buttons = {}
            if state is not None:
                _, shown = self.game_screen.prompt(
                    state, self.source.seat, list(self.source.names), lang, dec, self.ui.chosen
                )
                buttons = {b.target: b.label for b in shown}
            rows += decisions.help_rows(
                lang, dec, self.ui.chosen, buttons, list(self.source.names), self.source.seat
            )
        else:
            rows.append(("", tr(lang, "help.waiting")))
            rows.append(("", ""))
        rows.append(("s", tr(lang, "help.scores")))
        if self.read_only:
            rows.append(("r", tr(lang, "help.rules", game=self.game_screen.title)))
            rows.append(("q", tr(lang, "help.watch_quit")))
            rows.append(("?", tr(lang, "help.help")))
            if self.players:
                rows += [("", ""), ("", tr(lang, "help.watch_players"))]
                rows += [("", who) for who in self.players]
            return HelpView(tr(lang, "help.title"), rows)
        rows.append(("r", tr(lang, "help.rules", game=self.game_screen.title)))
        rows.append(("t", tr(lang, "help.chat")))
        if may_go_on(self.source):
            rows.append(("g", tr(lang, "help.go_on")))
        rows.append(("m", tr(lang, "help.mute")))
        if callable(getattr(self.source, "may_remove", None)):  # a live table's
            rows.append(("K", tr(lang, "help.remove")))
        rows.append(("b", tr(lang, "help.bell_on" if self.bell else "help.bell_off")))
        rows.append(("q", tr(lang, "help.quit")))
        rows.append(("?", tr(lang, "help.help")))
        return HelpView(tr(lang, "help.title"), rows)

    def describe(self, target: Target) -> str:
        """A target in words, for the help overlay."""
        return decisions.describe(self.lang, self.decision, target, list(self.source.names), self.source.seat)

    # --- keys ---------------------------------------------------------------------------------------

    def on_frame(self, frame: Frame) -> None:
        """Remember where the last frame drew each target (for the arrows)."""
        self.ui.rects = frame.targets

    def submitted(self, error: str | None) -> None:
        """The terminal loop reports how a `Submit` went."""
        if error:
            self.ui.sending = False
            self.ui.flash = tr(self.lang, "flash.refused", reason=error)
            self.ui.decision_key = None

    def handle_key(self, key: str) -> list[Effect]:
        ui = self.ui
        if key == "resize":
            return []
        if self.away() and not self.source.halted() and not ui.leaving and not self._game_over():
            # (once the game is over there is nothing to come back to: the keys are the result's)
            # any key: the player is back (the key does nothing else: it was not aimed at a move)
            ui.overlay = None if ui.overlay == "quit" else ui.overlay
            return [Back()]
        if self.read_only and (key == "q" or (key in ("t", "b") and ui.overlay is None)):
            if key == "q":
                return [Quit()]  # a spectator leaves nothing: no confirmation, no signed leave
            ui.flash = tr(self.lang, "watch.read_only")
            return []
        if ui.chat is not None:
            return self._chat_key(key)
        if ui.overlay == "quit":
            if key in ("y", "Y", "o", "O", "j", "J"):  # yes, oui, ja
                ui.overlay = None
                if self._game_over() or self.source.halted():
                    return [Quit()]
                ui.leaving = True
                return [Quit(leave=True)]
            if key in ("n", "N", "esc", "q"):
                ui.overlay = None
            return []
        if ui.leaving:
            return []
        if self.source.halted() and ui.overlay is None and key in ("q", "enter", "esc"):
            return [Quit()]  # the game stopped: nothing to confirm
        if ui.overlay == "mute":
            seat = dict(self._mutable()).get(key)
            if seat is None:
                ui.overlay = None
            elif seat in ui.muted:
                ui.muted.discard(seat)
            else:
                ui.muted.add(seat)
            return []
        if ui.overlay == "remove":
            return self._remove_key(key)
        if ui.overlay == "help" and key == "r":
            ui.overlay, ui.rules_top = "rules", 0
            return []
        if ui.overlay == "help" and key in _SCROLL:  # a help longer than the screen scrolls
            ui.help_top = max(0, min(ui.help_top + _SCROLL[key], 40))
            return []
        if ui.overlay == "rules":
            if key in _SCROLL:
                ui.rules_top = max(0, ui.rules_top + _SCROLL[key])
                return []
            ui.overlay = "help" if key == "?" else None
            return []
        if ui.overlay in ("help", "scores", "round"):
            if key == "q" and self._game_over():
                return [Quit()]
            previous = ui.overlay
            ui.overlay = None
            ui.ended = None
            if key == "s" and previous != "scores":
                ui.overlay = "scores"
            elif key == "?" and previous != "help":
                ui.overlay = "help"
            elif key == "q":
                ui.overlay = "quit"
            if previous in ("scores", "round") and self._game_over() and not ui.result_closed:
                ui.overlay = "result" if key not in ("s", "q") else ui.overlay
            return []
        if ui.overlay == "result":
            if key == "q":
                return [Quit()]
            if key == "s":
                ui.overlay = "scores"
            elif key in ("esc", "enter"):
                ui.overlay = None
                ui.result_closed = True
            return []
        ui.flash = ""
        if key == "?":
            ui.overlay, ui.help_top = "help", 0
            return []
        if key == "s":
            ui.overlay = "scores"
            return []
        if key == "t":
            ui.chat = ""
            return []
        if key == "m" and self._mutable():
            ui.overlay = "mute"
            return []
        if key == "K":
            ui.overlay, ui.remove_pick, ui.remove_list = "remove", None, tuple(self._removable())
            ui.remove_why = may_remove(self.source)[1]
            return []
        if key in _ANSWER_KEYS and key not in self._decision_keys():
            proposal = self._to_answer()
            if proposal is not None:
                return self._answer_removal(proposal, key in _YES)
        if key == "b":
            self.bell = not self.bell
            ui.flash = tr(self.lang, "bell.on" if self.bell else "bell.off")
            return []
        if key == "q":
            if self._game_over():
                return [Quit()]
            ui.overlay = "quit"
            return []
        if key == "g" and (gone := may_go_on(self.source)):
            names = list(self.source.names)
            who = join_names(self.lang, [names[s] for s in gone if 0 <= s < len(names)])
            ui.flash = tr(self.lang, "wait.went_on", who=who)
            return [GoOn()]
        if key == "enter" and self._game_over() and self.decision is None:
            ui.overlay = "result"
            ui.result_closed = False
            return []
        return self._decision_key(key)

    def paste(self, text: str) -> list[Effect]:
        """Pasted text: into the chat line being typed, else nowhere (a paste never moves)."""
        ui = self.ui
        if ui.chat is not None:
            ui.chat = (ui.chat + text)[:MAX_CHAT_LINE]
        elif not self.read_only:
            ui.flash = tr(self.lang, "paste.ignored")
        return []

    def my_turn(self) -> bool:
        """Whether it is this seat's turn (the moment the bell rings for)."""
        state = self.source.state()
        me = self.source.seat
        return (
            state is not None
            and me is not None
            and state.phase == "turn"
            and getattr(state, "turn", None) == me
        )

    def _game_over(self) -> bool:
        state = self.source.state()
        return state is not None and state.phase == "game_over"

    def _chat_key(self, key: str) -> list[Effect]:
        ui = self.ui
        assert ui.chat is not None
        if key == "esc":
            ui.chat = None
        elif key == "enter":
            text, ui.chat = ui.chat.strip(), None
            if text:
                return [Chat(text)]
        elif key == "backspace":
            ui.chat = ui.chat[:-1]
        elif len(key) == 1 and key.isprintable() and len(ui.chat) < MAX_CHAT_LINE:
            ui.chat += key
        elif key == "space":
            ui.chat += " "
        return []

    def _decision_key(self, key: str) -> list[Effect]:
        ui = self.ui
        dec = self.decision
        if dec is None:
            return []
        targets = self._candidates()
        if key in ARROWS:
            ui.cursor = decisions.move_cursor(ui.cursor, ARROWS[key], targets, ui.rects)
        elif key == "tab":
            ui.cursor = decisions.cycle(ui.cursor, 1, targets, ui.rects)
        elif key == "btab":
            ui.cursor = decisions.cycle(ui.cursor, -1, targets, ui.rects)
        elif key in ("enter", "space", " "):
            if ui.cursor is not None and (ui.cursor in targets or ui.cursor in ui.chosen):
                return self.pick(ui.cursor)
        elif key in ("esc", "backspace"):
            if ui.chosen:
                last = ui.chosen[-1]
                ui.chosen = ui.chosen[:-1]
                ui.cursor = last
        else:
            keys = dec.key_map(len(ui.chosen))
            for target in targets:
                if keys.get(target) == key:
                    ui.cursor = target
                    return self.pick(target)
        return []

    def pick(self, target: Target) -> list[Effect]:
        """Choose `target`: one more step of the decision, or the move itself."""
        ui = self.ui
        dec = self.decision
        if dec is None:
            return []
        if dec.multi:
            if target in ui.chosen:
                ui.chosen = tuple(t for t in ui.chosen if t != target)
                return []
            ui.chosen = (*ui.chosen, target)
        else:
            ui.chosen = (*ui.chosen, target)
        option = decisions.complete(dec, ui.chosen)
        if option is not None:
            ui.sending = True
            ui.chosen = ()
            self.decision = None
            ui.decision_key = None
            return [Submit(option.move)]
        remaining = self._candidates()
        if not dec.multi and len(remaining) == 1 and remaining[0].kind in dec.auto:
            return self.pick(remaining[0])
        if not dec.multi:
            ui.cursor = remaining[0] if remaining else None
        elif remaining and ui.cursor not in remaining:
            # the next card in reading order after the one just picked
            ordered = decisions.order([*remaining, target], ui.rects)
            after = ordered[ordered.index(target) + 1 :] + ordered[: ordered.index(target)]
            ui.cursor = after[0] if after else remaining[0]
        return []


def table_wait(source: Source) -> tuple[Any, float | None] | None:
    """What the table waits for from other seats and the seconds left (a live table only)."""
    wait = getattr(source, "table_wait", None)
    value = wait() if callable(wait) else None
    return value if isinstance(value, tuple) else None


def leave_ends_spares(source: Source) -> bool:
    """Whether this seat's leave would leave the table unable to replace anyone else."""
    ends = getattr(source, "leave_ends_spares", None)
    return bool(ends()) if callable(ends) else False


def clock_text(seconds: float) -> str:
    """A countdown as a clock shows it: "42 s", "1:40"."""
    whole = max(0, int(seconds + 0.999))
    return f"{whole} s" if whole < 60 else f"{whole // 60}:{whole % 60:02d}"


_SEAT = re.compile(r"\bseat\(s\) ([\d, ]+\d)|\bseat (\d+)")


def stop_in_names(lang: str, reason: str, names: Sequence[str]) -> str:
    """Why the game stopped (the protocol's words), with names for seat numbers; the reason a
    vanished seat could not be played said as people say it."""
    if re.fullmatch(
        r"the table removed .*: every other player agreed, and the table plays on without this program",
        reason,
    ):
        return tr(lang, "halt.removed")
    found = re.fullmatch(
        r"seat (\d+)'s cards cannot be opened: seat (\d+), which holds a share of its key, is gone too",
        reason,
    )
    if found is not None:
        seat, holder = int(found.group(1)) - 1, int(found.group(2)) - 1
        if 0 <= seat < len(names) and 0 <= holder < len(names):
            return tr(lang, "halt.unopenable", who=names[seat], holder=names[holder])

    def named(match: re.Match[str]) -> str:
        numbers = [int(n) for n in re.findall(r"\d+", match.group(0))]
        if all(1 <= n <= len(names) for n in numbers):
            return join_names(lang, [names[n - 1] for n in numbers])
        return match.group(0)

    return tr(lang, "prompt.halted", reason=_SEAT.sub(named, reason))


def may_go_on(source: Source) -> tuple[int, ...]:
    """The seats the player may ask the table to go on without now (a live table's source
    says; an offline one has none)."""
    may = getattr(source, "may_go_on", None)
    value = may() if callable(may) else ()
    return value if isinstance(value, tuple) else ()


def removals(source: Source) -> tuple[Any, ...]:
    """The open proposals to remove a player (a live table's source says; others have none)."""
    found = getattr(source, "removals", None)
    value = found() if callable(found) else ()
    return value if isinstance(value, tuple) else ()


def may_remove(source: Source) -> tuple[tuple[int, ...], str | None]:
    """The programs the player may propose to remove now, and why none when none (a live
    table's source says; elsewhere nobody can be removed: "no-game")."""
    may = getattr(source, "may_remove", None)
    value = may() if callable(may) else ((), "no-game")
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], tuple):
        return value[0], value[1] if isinstance(value[1], str) or value[1] is None else None
    return (), "no-game"


def countdown_waits(source: Source) -> tuple[int, ...] | None:
    """The seats a stopped move countdown waits for, if the source says (a live table)."""
    waits = getattr(source, "countdown_waits", None)
    value = waits() if callable(waits) else None
    return value if isinstance(value, tuple) else None


def join_names(lang: str, names: Sequence[str]) -> str:
    """ "Anna", "Anna and Ben", "Anna, Ben and Chloé"."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} {tr(lang, 'and')} {names[-1]}"


def _empty_now(state: TableState | None, target: Target) -> bool:
    """Whether a grid place is empty on the table now (a removed card's ghost is shown only there)."""
    slots_of = getattr(state, "slots_of", None)
    seat, slot = getattr(target, "seat", None), getattr(target, "slot", None)
    if slots_of is None or seat is None or slot is None:
        return False
    slots = slots_of(seat)
    return bool(slot < len(slots) and slots[slot] == EMPTY)


def watching_of(source: Source) -> int:
    """How many spectators watch, if the source knows (a live table; a replay does not)."""
    count = getattr(source, "watching", None)
    value = count() if callable(count) else 0
    return value if isinstance(value, int) else 0


def seat_label(lang: str, name: str, away: bool, taken: str | None) -> str:
    """A seat's name, with who plays it when that is not its player: "Ben (away, bot playing)"
    (their own program: autopilot), "Ben (bot: left)", "Ben (bot: vanished)" (a bot for everyone)."""
    if taken in ("left", "vanished", "removed"):
        return tr(lang, f"name.bot_{taken}", name=name)
    if taken is not None:
        return tr(lang, "name.bot", name=name)
    if away:
        return tr(lang, "name.away", name=name)
    return name


def busy_text(state: TableState, lang: str) -> str:
    """What the table is busy with while nobody may move (the protocol's steps)."""
    if not state.pending:
        return ""
    first = state.pending[0]
    if isinstance(first, DealRequest):
        return tr(lang, "busy.deal")
    if isinstance(first, ShuffleRequest):
        return tr(lang, "busy.shuffle")
    if isinstance(first, RandomRequest):
        return tr(lang, "busy.random")
    if isinstance(first, RevealRequest):
        return tr(lang, "busy.reveal")
    return ""


_OWN_LINES = (
    "chat",
    "blame",
    "absent",
    "info",
    "round",
    "gameover",
    "left",
    "away",
    "takeover",
    "returned",
    "removal",
)
"""Log items told on their own line even in the summary since the player's last turn."""


def since_last_turn(narrator: Narrator, me: int | None) -> tuple[int, list[Line]] | None:
    """What happened since `me`'s last turn, one line per other player (their turns, lines and
    last-turn notices joined), other news on its own line; and how many log lines that replaces.
    None before `me` has played."""
    items = narrator.items
    last = next(
        (i for i in range(len(items) - 1, -1, -1) if items[i].kind == "turn" and items[i].seat == me),
        None,
    )
    if me is None or last is None:
        return None
    after: list[Item] = items[last + 1 :]
    full = 0
    out: list[Line] = []
    by_seat: dict[int, Line] = {}
    for item in after:
        told = narrator.tell(item)
        full += len(told)
        if item.seat is None or item.seat == me or item.kind in _OWN_LINES:
            out.extend(told)
            continue
        line = by_seat.get(item.seat)
        if line is None:
            line = by_seat[item.seat] = []
            out.append(line)
        for sentence in told:
            if line:
                line.append(Span(" "))
            line.extend(sentence)
    return full, out
