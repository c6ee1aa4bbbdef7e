"""The short log under the table: engine facts, chat and protocol news told as sentences.

A narrator reads `PeerRunner.log` (or a replay's) entry by entry and keeps *items*; sentences are
made from items each time the log is drawn, so a sentence fills in as the cards it names are
revealed ("bot 1 drew a card" becomes "bot 1 drew 7, replaced a hidden 11"). Each game subclasses
`Narrator` for its own facts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from skyjo_p2p.core.events import GameOver, RoundEnded

from .canvas import Span
from .i18n import join_names, tr, tr_spans, who_key


class LogLike(Protocol):
    kind: str
    fact: Any
    seat: int | None
    text: str


@dataclass
class Item:
    kind: str
    data: Any = None
    seat: int | None = None
    unconfirmed: bool = False
    """A chat the table never confirmed (a closing chat: PROTOCOL.md 11, final side frames)."""


Line = list[Span]

_SIGNED = re.compile(r"^round (\d+) signed by every seat$")
_REFUSED = re.compile(r"^move refused: (.*)$")
_STOPPED = re.compile(r"^game stopped: (.*)$")


KEEP_ITEMS = 1000
"""Items kept: the screen tells at most a few dozen of the newest (`lines`, `since_last_turn`);
kept whole, they grew with the game."""


class Narrator:
    """Common items: chat, protocol news, round ends and the game's end."""

    lowest_wins = True

    def __init__(self, players: int, me: int | None, names: Sequence[str], lang: str) -> None:
        self.players = players
        self.me = me
        self.names = list(names)
        self.lang = lang
        self.items: list[Item] = []
        self.fed = 0
        self.muted: set[int] = set()
        """Seats whose chat this player muted (their lines say so, without their text)."""
        self.before: Any = None
        """The table as it was when the log was last read (None: not known)."""
        self.stopped = False
        """The game has stopped (set by the screen): a seat's leave is then told as the stop.
        Otherwise the table plays on (a bot takes the seat: issue 17), and it is told as a leave."""

    # --- reading the log ------------------------------------------------------------------------

    def update(self, log: Sequence[LogLike], state: Any = None) -> None:
        """Read the log's new entries; `state` is the table as it is after them (kept as
        `before`: what the next entries changed, for a game that names a card by its place)."""
        for entry in log[self.fed :]:
            self.entry(entry)
        self.fed = len(log)
        self.before = state
        if len(self.items) > 2 * KEEP_ITEMS:  # the screen tells the last few dozen (issue 29)
            del self.items[: len(self.items) - KEEP_ITEMS]

    def entry(self, entry: LogLike) -> None:
        if entry.kind == "fact":
            self.fact(entry.fact)
        elif entry.kind == "chat":
            late = bool(getattr(entry, "unconfirmed", False))
            self.items.append(Item("chat", entry.text, entry.seat, unconfirmed=late))
        elif entry.kind == "blame":
            self.items.append(Item("blame", entry.text, entry.seat))
        elif entry.kind == "absent":
            waited = getattr(entry, "waited", None)
            self.items.append(Item("absent", (waited, bool(getattr(entry, "no_link", False))), entry.seat))
        elif entry.kind == "left":
            self.items.append(Item("left", entry.text, entry.seat))
        elif entry.kind == "away":
            self.items.append(Item("away", entry.text == "away", entry.seat))
        elif entry.kind == "takeover":
            disclosed = int(getattr(entry, "disclosed", 0) or 0)
            self.items.append(Item("takeover", (entry.text, disclosed), entry.seat))
        elif entry.kind == "returned":
            self.items.append(Item("returned", None, entry.seat))
        elif entry.kind == "removal":
            self.items.append(Item("removal", (entry.text, getattr(entry, "by", None)), entry.seat))
        elif entry.kind == "no_spare":
            self.items.append(Item("no_spare", None, entry.seat))
        elif entry.kind == "info":
            self.items.append(Item("info", entry.text))

    def fact(self, fact: Any) -> None:
        if isinstance(fact, RoundEnded):
            self.items.append(Item("round", fact))
        elif isinstance(fact, GameOver):
            self.items.append(Item("gameover", fact))

    # --- telling ----------------------------------------------------------------------------------

    def lines(self, count: int) -> list[Line]:
        """The last `count` sentences (oldest first)."""
        out: list[Line] = []
        for item in reversed(self.items):
            for line in reversed(self.tell(item)):
                out.append(line)
                if len(out) >= count:
                    return list(reversed(out))
        return list(reversed(out))

    def tell(self, item: Item) -> list[Line]:
        lang = self.lang
        if item.kind == "chat":
            if item.seat in self.muted:  # muted here only: the others still read it
                return [[self.who(item.seat), Span(": ", "dim"), Span(tr(lang, "chat.muted_line"), "dim")]]
            line = [self.who(item.seat), Span(": ", "chat"), Span(str(item.data), "chat")]
            if item.unconfirmed:
                line += [Span(" "), Span(tr(lang, "chat.unconfirmed"), "dim")]
            return [line]
        if item.kind == "blame":
            return [tr_spans(lang, "log.blame", "error", who=self.who(item.seat), reason=str(item.data))]
        if item.kind == "left" and (not self.stopped or self._taken_over_after(item)):
            # the others play on with a bot in that seat: not a stop
            return [self.seat_sentence("log.left_on", item.seat, "warn")]
        if item.kind in ("absent", "left"):
            return [self.stop_sentence(item)]
        if item.kind == "away":
            if item.data:
                return [self.seat_sentence("log.away", item.seat, "warn")]
            return [self.seat_sentence("log.back", item.seat, "dim")]
        if item.kind == "takeover":
            how, disclosed = item.data
            key = {
                "vanished": "log.takeover.vanished",
                "stepped out": "log.takeover.stepped_out",
                "removed": "log.takeover.removed",
            }.get(how, "log.takeover.left")
            line = self.seat_sentence(key, item.seat, "warn")
            if disclosed:
                line += [Span(" "), *tr_spans(lang, "log.takeover.disclosed", "dim", n=disclosed)]
            return [line]
        if item.kind == "returned":
            return [self.seat_sentence("log.returned", item.seat, "good")]
        if item.kind == "removal":
            return [self.removal_sentence(item)]
        if item.kind == "no_spare" and not self.stopped:
            return [tr_spans(lang, "log.no_spare", "warn")]
        if item.kind == "info":
            return [self.info(str(item.data))]
        if item.kind == "round":
            return self.tell_round(item.data)
        if item.kind == "gameover":
            fact: GameOver = item.data
            names = [self.name(s) for s in fact.winners]
            total = fact.totals[fact.winners[0]] if fact.winners else 0
            if len(fact.winners) > 1:
                key = "log.gameover.many"
            else:
                key = "log.gameover.me" if self.me in fact.winners else "log.gameover"
            return [tr_spans(lang, key, "good", names=join_names(lang, names), total=total)]
        return []

    def removal_sentence(self, item: Item) -> Line:
        """A proposal to remove a player from the game: made ("Anna proposes to remove Ben from
        the game."), decided or over (issue 30 point 5)."""
        outcome, by = item.data if isinstance(item.data, tuple) else ("open", None)
        if outcome == "open":
            if item.seat == self.me:
                return tr_spans(self.lang, "log.removal.proposed.me", "warn", by=self.who(by))
            key = "log.removal.proposed.mine" if by == self.me else "log.removal.proposed"
            return tr_spans(self.lang, key, "warn", by=self.who(by), who=self.who(item.seat, plain=True))
        key = "log.removal.removed" if outcome == "removed" else "log.removal.refused"
        style = "warn" if outcome == "removed" else "dim"
        return tr_spans(
            self.lang, who_key(key, item.seat, self.me), style, who=self.who(item.seat, plain=True)
        )

    def seat_sentence(self, key: str, seat: int | None, style: str) -> Line:
        """A sentence about a seat (its ".me" variant for the player's own)."""
        return tr_spans(self.lang, who_key(key, seat, self.me), style, who=self.who(seat))

    def _taken_over_after(self, item: Item) -> bool:
        """Whether a bot took `item`'s seat after it (the game went on without its player)."""
        at = next((i for i, known in enumerate(self.items) if known is item), len(self.items))
        return any(later.kind == "takeover" and later.seat == item.seat for later in self.items[at + 1 :])

    def stopped_by(self) -> Line | None:
        """Why the game stopped, when a seat left or stopped answering: the last such sentence."""
        for item in reversed(self.items):
            if item.kind in ("absent", "left") and not self._taken_over_after(item):
                return self.stop_sentence(item)
        return None

    def stop_sentence(self, item: Item) -> Line:
        """The sentence for a seat that left or stopped answering, never a cheat: "Anna left the
        table; the game cannot go on.", "Anna stopped answering (no link for 5 min); ..."."""
        lang = self.lang
        if item.kind == "left":
            return tr_spans(lang, who_key("log.left", item.seat, self.me), "error", who=self.who(item.seat))
        waited, no_link = item.data if isinstance(item.data, tuple) else (None, False)
        if waited is None:
            why = tr(lang, "log.absent.unknown")
        else:
            why = tr(
                lang, "log.absent.no_link" if no_link else "log.absent.no_answer", time=duration(lang, waited)
            )
        return tr_spans(lang, "log.absent", "error", who=self.who(item.seat), why=why)

    def info(self, text: str) -> Line:
        lang = self.lang
        match = _SIGNED.match(text)
        if match:
            return tr_spans(lang, "log.signed", "dim", n=int(match.group(1)))
        match = _REFUSED.match(text)
        if match:
            return tr_spans(lang, "log.refused", "error", reason=match.group(1))
        match = _STOPPED.match(text)
        if match:
            return tr_spans(lang, "log.stopped", "error", reason=match.group(1))
        return [Span(text, "dim")]

    def tell_round(self, fact: RoundEnded) -> list[Line]:
        lang = self.lang
        parts: list[Span] = tr_spans(lang, "log.round", "title", n=fact.round)
        for seat, points in enumerate(fact.scores):
            if seat:
                parts.append(Span(", ", "text"))
            parts.append(self.who(seat, plain=True))
            parts.append(Span(f" {points}", "bold"))
        lines = [parts]
        if fact.doubled and fact.ender is not None:
            lines.append(
                tr_spans(
                    lang,
                    who_key("log.doubled", fact.ender, self.me),
                    "warn",
                    who=self.who(fact.ender),
                    raw=fact.raw[fact.ender],
                    score=fact.scores[fact.ender],
                )
            )
        return lines

    # --- helpers ----------------------------------------------------------------------------------

    def name(self, seat: int | None) -> str:
        if seat is None:
            return "?"
        if seat == self.me:
            return tr(self.lang, "you")
        return self.names[seat] if 0 <= seat < len(self.names) else f"#{seat}"

    def who(self, seat: int | None, plain: bool = False) -> Span:
        """A seat's name as the subject of a sentence (capitalised "You" for the player)."""
        if seat is None:
            return Span("?", "dim")
        style = "name.me" if seat == self.me else f"p{seat % 8}"
        if seat == self.me:
            return Span(tr(self.lang, "you" if plain else "You"), style)
        return Span(self.name(seat), style)


def duration(lang: str, seconds: float) -> str:
    """A wait as a person says it: "40 s", "5 min"."""
    whole = max(0, round(seconds))
    if whole < 90:
        return tr(lang, "time.seconds", n=whole)
    return tr(lang, "time.minutes", n=round(whole / 60))


def value_span(value: int | None, band: Callable[[int], str], text: str | None = None) -> Span:
    if value is None:
        return Span(text or "?", "dim")
    return Span(text if text is not None else str(value), f"fg.{band(value)}")
