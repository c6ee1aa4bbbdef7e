"""The lobby screen: who sits at the table, their keys, who is ready; the host starts the game.

The LAN code (issue 7) fills a `LobbyView` and hands the UI a `LobbySource`; this module draws it
(`render_lobby`, a pure function like `render.render`) and runs it (`run_lobby_ui`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import trio

from client.table.evening import EveningRow
from client.table.join import JoinRefusal

from . import games
from .canvas import Canvas, Frame, Rect, Span, clip, text_width, wrap
from .caps import Caps, detect_caps, detect_lang
from .evening import evening_lines
from .i18n import tr
from .model import Button, ScreenModel, UiView
from .render import logo
from .targets import ButtonTarget
from .terminal import Terminal, open_terminal
from .widgets import MIN_HEIGHT, MIN_WIDTH, dialog, draw_buttons, too_small

if TYPE_CHECKING:
    from client.records.ranking import PlayerRecord


@dataclass
class LobbySeat:
    """One seat as the lobby shows it."""

    name: str = ""
    fingerprint: str = ""  # `client.storage.fingerprint` of the seat's identity key
    ready: bool = False
    bot: bool = False
    host: bool = False
    me: bool = False
    link: str = "connected"  # connected | connecting | reconnecting | blamed | gone | local
    retry_in: float | None = None
    known: bool | None = None  # seen before on this machine (known_peers); None: not checked
    empty: bool = False  # a free seat
    record: PlayerRecord | None = None
    """This machine's record of the seat's identity in this game (`client.records`): None shows
    nothing (not computed yet, or a bot), 0 games shows "first game here"."""


@dataclass
class LobbyView:
    """Everything the lobby screen shows; the LAN code fills it."""

    table: str
    game: str
    seats: list[LobbySeat]
    options: Mapping[str, Any] = field(default_factory=dict)
    password: bool = False
    is_host: bool = False
    address: str = ""  # HOST:PORT friends can join with
    status: str = ""  # a message in words (already in the player's language), e.g. "waiting for Ben"
    can_start: bool = False  # the host may start now (every seat taken and ready)
    starting: bool = False  # the game begins: run_lobby_ui returns "start"
    closed: str = ""  # why the table is gone (the host left ...): shown; the next key returns "closed"
    chat: list[tuple[str, str]] = field(default_factory=list)  # (name, text), oldest first
    failed_passwords: int = 0  # host only: wrong passwords given at this table so far...
    failed_from: str = ""  # ...and the address the last one came from (someone may be guessing)
    code: str = ""  # host only: the generated word code, shown so it can be read aloud
    refusal: JoinRefusal | None = None  # joiner only: the table did not seat us (shown instead)
    watching: int = 0
    """How many spectators watch the table (`skyjo-lan watch`)."""
    settings: Mapping[str, Any] = field(default_factory=dict)
    """The table's settings the host chose: "turn" (the move countdown, seconds, 0: none),
    "grace" (seconds) and "insured" (seat insurance); empty: not told (an older host)."""
    after: int = 0
    """Between games ("play again"): the number of the game that just ended at this table, as
    this program played it (0: before the first game)."""
    winners: tuple[str, ...] = ()
    """Who won that game."""
    evening: list[EveningRow] = field(default_factory=list)
    """The scores of the evening so far (`client.table.evening`), shown between games."""


class LobbySource(Protocol):
    """What the LAN code gives the lobby screen."""

    def lobby(self) -> LobbyView: ...

    def changed(self) -> trio.Event:
        """An event set at the next change (a fresh one each time, like `PeerRunner.changed`)."""
        ...

    async def set_ready(self, ready: bool) -> None: ...

    async def start(self) -> None:
        """Host only: start the game (called when `can_start`)."""
        ...

    async def send_chat(self, text: str) -> None: ...

    async def retry(self, password: str | None) -> None:
        """Joiner only: try again after a refusal, with the password typed on the screen."""
        ...

    async def leave(self) -> None: ...

    async def set_options(self, text: str) -> None:
        """The host changes the game's options (NAME=VALUE ..., checked; a joiner: nothing)."""
        ...

    async def cycle_turn(self) -> None:
        """Host only: the next move countdown of the lobby's cycle (off, 30 s, 60 s ...)."""
        ...

    async def add_bot(self) -> None:
        """Host only: one of its bots takes a free seat (`b`)."""
        ...

    async def remove_seat(self, number: int) -> None:
        """Host only, before a game: free seat `number` (its person is told; `x`)."""
        ...


@dataclass
class LobbyScreen:
    """The lobby's view-model: the view plus the screen's own state."""

    view: LobbyView
    lang: str
    overlay: str | None = None  # help | quit | mute | remove
    chat: str | None = None
    muted: set[str] = field(default_factory=set)
    """Names whose chat this player muted (on this screen only)."""
    editing: str | None = None  # the host's game options, as typed (`o`), while being changed
    cursor: str | None = None
    password: str = ""  # typed on the refusal screen


def options_assignments(options: Mapping[str, Any]) -> str:
    """The options as `--option` takes them, to edit: "target_score=60 setup_reveals=2"."""
    parts = []
    for key in sorted(options):
        value = options[key]
        parts.append(f"{key}={('on' if value else 'off') if isinstance(value, bool) else value}")
    return " ".join(parts)


def _option_text(options: Mapping[str, Any]) -> str:
    if not options:
        return ""
    parts = []
    for key in sorted(options):
        value = options[key]
        if isinstance(value, bool):
            value = "on" if value else "off"
        parts.append(f"{key} {value}")
    return " · ".join(parts)


def settings_text(settings: Mapping[str, Any], lang: str) -> str:
    """The table's settings in words: "move countdown 60 s · grace 60 s · seat insurance on"."""
    turn = int(settings.get("turn", 0) or 0)
    parts = [
        tr(lang, "lobby.turn", s=turn) if turn else tr(lang, "lobby.turn_off"),
        tr(lang, "lobby.grace", s=int(settings.get("grace", 0) or 0)),
        tr(lang, "lobby.insured" if settings.get("insured") else "lobby.not_insured"),
    ]
    return " · ".join(parts)


RECORD_COLUMN_WIDTH = 116
"""From this width the records have a column of their own; narrower, a line under the seat."""


def record_text(record: PlayerRecord, lang: str) -> str:
    """A record in words: "12 games · 5 wins · #2 of 4", or "first game here"."""
    if record.games == 0:
        return tr(lang, "lobby.record_new")

    def count(key: str, n: int) -> str:
        one = n == 1 or (lang == "fr" and n == 0)
        return tr(lang, f"lobby.record_{key}_{'one' if one else 'many'}", n=n)

    return tr(
        lang,
        "lobby.record",
        games=count("games", record.games),
        wins=count("wins", record.wins),
        rank=record.rank,
        of=record.of,
    )


def _buttons(screen: LobbyScreen) -> list[Button]:
    view, lang = screen.view, screen.lang
    mine = next((s for s in view.seats if s.me), None)
    ready = bool(mine and mine.ready)
    buttons = [Button(ButtonTarget("ready"), tr(lang, "lobby.unready" if ready else "lobby.ready"), "r")]
    if view.is_host:
        buttons.append(Button(ButtonTarget("start"), tr(lang, "lobby.start"), "s"))
        if view.settings:
            buttons.append(Button(ButtonTarget("turn"), tr(lang, "lobby.countdown"), "c"))
    buttons.append(Button(ButtonTarget("leave"), tr(lang, "lobby.leave"), "q"))
    return buttons


def render_lobby(screen: LobbyScreen, width: int, height: int, caps: Caps) -> Frame:
    c = Canvas(width, height, caps)
    lang = screen.lang
    if width < MIN_WIDTH or height < MIN_HEIGHT:
        quit = screen.overlay == "quit"
        too_small(c, lang, (tr(lang, "lobby.leave_title"), tr(lang, "quit.keys")) if quit else None)
        return c.frame()
    view = screen.view
    if view.refusal is not None:
        _render_refusal(c, screen, view.refusal)
        return c.frame()
    c.fill(Rect(0, 0, width, 1), " ", "header")
    x = logo(c, 0, view.game)
    taken = sum(1 for s in view.seats if not s.empty)
    title = tr(lang, "lobby.header", table=view.table, n=taken, total=len(view.seats))
    right = c.put_right(width - 1, 0, f" {tr(lang, 'lobby.title')} ", "header.turn")
    c.put(x + 1, 0, title, "header", right - x - 2)

    y = 2
    label_w = 14
    facts = [
        (tr(lang, "lobby.game"), games.title(view.game), "text"),
        (tr(lang, "lobby.options"), _option_text(view.options) or tr(lang, "lobby.default_options"), "text"),
    ]
    if not view.after or view.password:  # between games: room for the evening's scores instead
        facts.append((tr(lang, "lobby.password"), tr(lang, "yes" if view.password else "no"), "text"))
    if view.settings:
        facts.append((tr(lang, "lobby.table"), settings_text(view.settings, lang), "text"))
    if view.is_host and view.password and view.code:
        facts[-1] = (tr(lang, "lobby.password"), tr(lang, "lobby.password_code", code=view.code), "text")
    if view.is_host and view.failed_passwords:
        # someone may be guessing the password: the host sees how often and from where
        failed = "lobby.failed_one" if view.failed_passwords == 1 else "lobby.failed_many"
        text = tr(lang, failed, n=view.failed_passwords, source=view.failed_from or "?")
        facts.append((tr(lang, "lobby.failed"), text, "warn"))
    if view.address:
        facts.append(
            (
                tr(lang, "lobby.join"),
                tr(lang, "lobby.join_how", table=view.table, address=view.address),
                "text",
            )
        )
    for label, value, style in facts:
        c.put(2, y, label, "dim")
        c.put(2 + label_w, y, value, style, width - label_w - 4)
        y += 1
    y += 1
    cols = [2, 8, 28, 49, 67]
    heads = ["lobby.seat", "lobby.player", "lobby.key", "lobby.link", "lobby.ready_col"]
    records = [s.record for s in view.seats if not s.empty and s.record is not None]
    wide = bool(records) and width >= RECORD_COLUMN_WIDTH
    if wide:
        cols.append(81)
        heads.append("lobby.record_col")
    for col, head in zip(cols, heads, strict=True):
        c.put(col, y, tr(lang, head), "title")
    y += 1
    c.hline(2, y, width - 4)
    y += 1
    # narrower: a record goes on a line under its seat while every seat still fits
    spare = 0 if wide else max(0, (height - 6 - y) - len(view.seats))
    for number, seat in enumerate(view.seats, 1):
        if y >= height - 6:
            break
        c.put(cols[0], y, f"{number}", "dim")
        if seat.empty:
            c.put(cols[1], y, tr(lang, "lobby.free"), "dim")
            y += 1
            continue
        name = seat.name
        tags = []
        if seat.me:
            tags.append(tr(lang, "lobby.you"))
        if seat.host:
            tags.append(tr(lang, "lobby.host"))
        if seat.bot:
            tags.append(tr(lang, "lobby.bot"))
        if seat.known is False and not seat.me:
            tags.append(tr(lang, "lobby.new_key"))
        if seat.name in screen.muted and not seat.bot and not seat.me:
            tags.append(tr(lang, "mute.tag"))
        room = cols[2] - cols[1] - 1
        label = f"{name} ({', '.join(tags)})" if tags else name
        if tags and text_width(label) > room:  # the name is cut, never what is said about it
            said = f" ({', '.join(tags)})"
            label = clip(name, max(4, room - text_width(said))) + said
        c.put(cols[1], y, label, "name.me" if seat.me else f"p{(number - 1) % 8}", room)
        c.put(
            cols[2],
            y,
            seat.fingerprint or "-",
            "warn" if seat.known is False else "text",
            cols[3] - cols[2] - 1,
        )
        symbol, style, text = _link(c, lang, seat)
        c.put(cols[3], y, f"{symbol} {text}", style, cols[4] - cols[3] - 1)
        mark = (
            f"{c.g('check')} {tr(lang, 'lobby.is_ready')}"
            if seat.ready
            else f"{c.g('dot')} {tr(lang, 'lobby.not_ready')}"
        )
        c.put(cols[4], y, mark, "good" if seat.ready else "dim", (cols[5] if wide else width) - cols[4] - 1)
        if seat.record is not None and wide:
            c.put(cols[5], y, record_text(seat.record, lang), "dim", width - cols[5] - 1)
        elif seat.record is not None and spare > 0:
            y += 1
            spare -= 1
            c.put(cols[1] + 2, y, record_text(seat.record, lang), "dim", width - cols[1] - 4)
        y += 1
    y += 1
    if view.after and view.evening:
        # between games: the scores of the evening instead of the hint about keys
        room = max(0, height - 4 - y)
        for spans in evening_lines(view.evening, lang, view.after, most=max(0, room - 2))[:room]:
            x = 2
            for span in spans:
                x += c.put(x, y, span.text, span.style, width - x - 1)
            y += 1
    else:
        for line in wrap(tr(lang, "lobby.keys_hint"), width - 4)[:2]:
            c.put(2, y, line, "dim")
            y += 1
    # chat
    chat_top = y + 1
    room = height - 3 - chat_top
    if room > 0 and view.chat:
        for offset, (name, text) in enumerate(view.chat[-room:]):
            cx = 2 + c.put(2, chat_top + offset, f"{name}: ", "title")
            if name in screen.muted:
                c.put(cx, chat_top + offset, tr(lang, "chat.muted_line"), "dim", width - cx - 2)
            else:
                c.put(cx, chat_top + offset, text, "chat", width - cx - 2)
    # prompt, buttons, status
    py = height - 3
    cursor = ButtonTarget(screen.cursor) if screen.cursor else None
    ui = UiView(candidates=frozenset(b.target for b in _buttons(screen)), cursor=cursor)
    model = ScreenModel(lang, view.game, "", "", "", None, [], ui=ui)
    if screen.editing is not None:
        x = c.put(1, py, tr(lang, "lobby.options_label"), "title") + 2
        end = x + c.put(x, py, screen.editing[-(width - x - 2) :], "input")
        c.put(end, py, "_", "cursor")
        c.put(1, py + 1, tr(lang, "lobby.options_hint"), "dim", width - 2)
    elif screen.chat is not None:
        x = c.put(1, py, tr(lang, "chat.label"), "title") + 2
        end = x + c.put(x, py, screen.chat[-(width - x - 2) :], "input")
        c.put(end, py, "_", "cursor")
        c.put(1, py + 1, tr(lang, "chat.hint"), "dim")
    else:
        mine = next((s for s in view.seats if s.me), None)
        idle = "lobby.press_ready" if mine is not None and not mine.ready else "lobby.waiting"
        status = (
            view.closed
            or view.status
            or (tr(lang, "lobby.can_start") if view.is_host and view.can_start else tr(lang, idle))
        )
        if view.after and mine is not None and not mine.ready and not view.closed:
            status = tr(
                lang,
                "lobby.again",
                table=view.table,
                n=view.after,
                names=", ".join(view.winners) or "-",
            )
        c.put(0, py, c.g("turn") + " ", "prompt.mark")
        c.put(2, py, status, "error" if view.closed else "prompt", width - 3)
        draw_buttons(c, 2, py + 1, _buttons(screen), model)
    c.fill(Rect(0, height - 1, width, 1), " ", "status")
    right = c.put_right(width - 1, height - 1, tr(lang, "lobby.status_keys"), "status.keys")
    if view.watching:
        c.put_right(right - 2, height - 1, tr(lang, "status.watching", n=view.watching), "status")
    if screen.overlay == "quit":
        dialog(
            c,
            tr(lang, "lobby.leave_title"),
            [[Span(tr(lang, "lobby.leave_text_host" if view.is_host else "lobby.leave_text"))]],
            tr(lang, "quit.keys"),
            "warn",
        )
    elif screen.overlay in ("mute", "remove"):
        mute = screen.overlay == "mute"
        lines = [
            [Span(part)] for part in wrap(tr(lang, "mute.explain" if mute else "lobby.remove_explain"), 56)
        ]
        lines.append([])
        for number, seat in seat_choices(screen, people=mute):
            said = seat.name
            if mute and seat.name in screen.muted:
                said = tr(lang, "mute.row_muted", name=seat.name)
            lines.append([Span(str(number), "key"), Span("  "), Span(said)])
        dialog(
            c,
            tr(lang, "mute.title" if mute else "lobby.remove_title"),
            lines,
            tr(lang, "mute.keys" if mute else "lobby.remove_keys"),
            "dialog" if mute else "warn",
        )
    elif screen.overlay == "help":
        rows = [
            ("r", tr(lang, "lobby.help.ready")),
            ("s", tr(lang, "lobby.help.start")),
            *([("c", tr(lang, "lobby.help.countdown"))] if view.is_host and view.settings else []),
            *([("o", tr(lang, "lobby.help.options"))] if view.is_host else []),
            *([("b", tr(lang, "lobby.help.bot"))] if view.is_host else []),
            *([("x", tr(lang, "lobby.help.remove"))] if view.is_host else []),
            ("t", tr(lang, "help.chat")),
            ("m", tr(lang, "help.mute")),
            ("q", tr(lang, "lobby.help.leave")),
            ("?", tr(lang, "help.help")),
        ]
        dialog(
            c,
            tr(lang, "help.title"),
            [[Span(k, "key"), Span("  "), Span(d)] for k, d in rows],
            tr(lang, "help.close"),
        )
    return c.frame()


def refusal_lines(refusal: JoinRefusal, lang: str) -> tuple[str, str]:
    """What the refusal screen says: what happened, and what to do next."""
    table = refusal.table or tr(lang, "refused.at", address=refusal.address or "?")
    kind = refusal.kind
    what = tr(
        lang,
        f"refused.{kind}",
        table=table,
        taken=refusal.taken,
        seats=refusal.seats,
        wait=round(refusal.wait),
        reason=refusal.reason,
    )
    if kind == "full" and not refusal.seats:
        what = tr(lang, "refused.full_plain", table=table)
    if kind == "wait" and refusal.wait <= 0:
        what = tr(lang, "refused.wait_over")
    return what[:1].upper() + what[1:], tr(lang, f"refused.{kind}.next")


def _render_refusal(c: Canvas, screen: LobbyScreen, refusal: JoinRefusal) -> None:
    """A join the table refused: the refusal in words, what to do next, the password field."""
    lang, width, height = screen.lang, c.width, c.height
    c.fill(Rect(0, 0, width, 1), " ", "header")
    x = logo(c, 0, screen.view.game) if screen.view.game else 0
    right = c.put_right(width - 1, 0, f" {tr(lang, 'refused.title')} ", "header.turn")
    c.put(x + 1, 0, refusal.table or refusal.address, "header", right - x - 2)
    what, then = refusal_lines(refusal, lang)
    y = 3
    for line in wrap(what, width - 4):
        c.put(2, y, line, "warn")
        y += 1
    y += 1
    for line in wrap(then, width - 4):
        c.put(2, y, line, "text")
        y += 1
    y += 1
    if refusal.asks_password:
        x = 2 + c.put(2, y, tr(lang, "refused.password_label"), "title") + 1
        x += c.put(x, y, "*" * min(len(screen.password), width - x - 2), "input")
        c.put(x, y, "_", "cursor")
        keys = tr(lang, "refused.keys_password")
    else:
        keys = tr(lang, "refused.keys")
    py = height - 3
    c.put(0, py, c.g("turn") + " ", "prompt.mark")
    c.put(2, py, keys, "prompt", width - 3)
    c.fill(Rect(0, height - 1, width, 1), " ", "status")
    c.put_right(width - 1, height - 1, keys, "status.keys")


def _link(c: Canvas, lang: str, seat: LobbySeat) -> tuple[str, str, str]:
    if seat.me:
        return c.g("dot"), "dim", tr(lang, "lobby.link.me")
    if seat.link in ("connected", "local"):
        return c.g("ok"), "link.ok", tr(lang, f"lobby.link.{seat.link}")
    if seat.link in ("connecting", "reconnecting"):
        extra = f" {round(seat.retry_in)}s" if seat.retry_in is not None else ""
        return c.g("wait"), "link.wait", tr(lang, f"lobby.link.{seat.link}") + extra
    return (
        c.g("bad"),
        "link.bad",
        tr(lang, f"lobby.link.{seat.link}" if seat.link in ("blamed", "gone") else "lobby.link.gone"),
    )


def seat_choices(screen: LobbyScreen, *, people: bool = False) -> list[tuple[int, LobbySeat]]:
    """The seats one may pick by their number (1-9, as the lobby lists them): not one's own, not a
    free one; `people` (to mute): the people only, the host too (a bot does not chat); else (to
    free a seat): not the host's."""
    out = []
    for number, seat in enumerate(screen.view.seats[:9], 1):
        if seat.empty or seat.me or (people and seat.bot) or (seat.host and not people):
            continue
        out.append((number, seat))
    return out


@dataclass(frozen=True)
class LobbyAction:
    name: str  # ready | unready | start | turn (next countdown) | chat | retry | leave | bot | remove
    text: str = ""


class LobbyUI:
    """Keys of the lobby screen -> actions for the LAN code."""

    def __init__(self, source: LobbySource, lang: str) -> None:
        self.source = source
        self.screen_state = LobbyScreen(source.lobby(), lang)
        self.rects: dict[Any, Rect] = {}

    def screen(self) -> LobbyScreen:
        self.screen_state.view = self.source.lobby()
        return self.screen_state

    def on_frame(self, frame: Frame) -> None:
        self.rects = frame.targets

    def handle_key(self, key: str) -> list[LobbyAction]:
        s = self.screen_state
        view = s.view
        if view.refusal is not None:
            return self._refused_key(key, view.refusal)
        if view.closed:
            return [LobbyAction("closed")]
        if s.editing is not None:
            if key == "esc":
                s.editing = None
            elif key == "enter":
                text, s.editing = s.editing.strip(), None
                return [LobbyAction("options", text)]
            elif key == "backspace":
                s.editing = s.editing[:-1]
            elif key == "space":
                s.editing += " "
            elif len(key) == 1 and key.isprintable():
                s.editing += key
            return []
        if s.chat is not None:
            if key == "esc":
                s.chat = None
            elif key == "enter":
                text, s.chat = s.chat.strip(), None
                return [LobbyAction("chat", text)] if text else []
            elif key == "backspace":
                s.chat = s.chat[:-1]
            elif key == "space":
                s.chat += " "
            elif len(key) == 1 and key.isprintable():
                s.chat += key
            return []
        if s.overlay == "quit":
            if key in ("y", "Y", "o", "O", "j", "J"):  # yes, oui, ja
                return [LobbyAction("leave")]
            s.overlay = None
            return []
        if s.overlay == "help":
            s.overlay = None
            return []
        if s.overlay in ("mute", "remove"):
            chosen = dict(seat_choices(s, people=s.overlay == "mute")).get(int(key) if key.isdigit() else -1)
            if s.overlay == "remove":
                s.overlay = None
                return [LobbyAction("remove", key)] if chosen is not None else []
            if chosen is None:
                s.overlay = None
            elif chosen.name in s.muted:
                s.muted.discard(chosen.name)
            else:
                s.muted.add(chosen.name)
            return []
        mine = next((seat for seat in view.seats if seat.me), None)
        if key in ("r", "space") or (key == "enter" and s.cursor in (None, "ready")):
            return [LobbyAction("unready" if mine and mine.ready else "ready")]
        if (key == "enter" and s.cursor == "start") or key == "s":
            return [LobbyAction("start")] if view.is_host and view.can_start else []
        if (key == "enter" and s.cursor == "turn") or key == "c":
            return [LobbyAction("turn")] if view.is_host and view.settings else []
        if key == "enter" and s.cursor == "leave":
            s.overlay = "quit"
        elif key in ("left", "right", "tab", "h", "l"):
            host = ["start", *(["turn"] if view.settings else [])] if view.is_host else []
            names = ["ready", *host, "leave"]
            index = names.index(s.cursor) if s.cursor in names else 0
            index = (index + (-1 if key in ("left", "h") else 1)) % len(names)
            s.cursor = names[index]
        elif key == "t":
            s.chat = ""
        elif key == "o" and view.is_host and not view.starting:
            s.editing = options_assignments(view.options)
        elif key == "b" and view.is_host and not view.starting and any(seat.empty for seat in view.seats):
            return [LobbyAction("bot")]
        elif key == "x" and view.is_host and not view.starting and seat_choices(s):
            s.overlay = "remove"
        elif key == "m" and seat_choices(s, people=True):
            s.overlay = "mute"
        elif key == "?":
            s.overlay = "help"
        elif key == "q":
            s.overlay = "quit"
        return []

    def paste(self, text: str) -> list[LobbyAction]:
        """Pasted text: into the field being typed (options, chat, password), else nowhere: a
        paste never toggles ready, starts or leaves."""
        s = self.screen_state
        refusal = s.view.refusal
        if refusal is not None:
            if refusal.asks_password:
                s.password += text
        elif s.editing is not None:
            s.editing += text
        elif s.chat is not None:
            s.chat += text
        return []

    def _refused_key(self, key: str, refusal: JoinRefusal) -> list[LobbyAction]:
        """Keys on the refusal screen: the password typed on the spot (Esc leaves, since `q` may
        be in a password), else Enter tries again and q or Esc leave."""
        s = self.screen_state
        if key == "esc" or (key == "q" and not refusal.asks_password):
            return [LobbyAction("leave")]
        if key == "enter":
            if not refusal.asks_password:
                return [LobbyAction("retry")]
            text, s.password = s.password.strip(), ""
            return [LobbyAction("retry", text)] if text else []
        if refusal.asks_password:
            if key == "backspace":
                s.password = s.password[:-1]
            elif key == "space":
                s.password += " "
            elif len(key) == 1 and key.isprintable():
                s.password += key
        return []


async def run_lobby_ui(
    source: LobbySource,
    *,
    lang: str | None = None,
    caps: Caps | None = None,
    terminal: Terminal | None = None,
) -> str:
    """Show the lobby until the game starts ("start"), the player leaves ("leave") or the table
    closes ("closed"). With no `terminal`, one is opened (and closed) here."""
    language = detect_lang(lang)
    if terminal is None:
        async with open_terminal(caps or detect_caps()) as opened:
            return await run_lobby_ui(source, lang=language, terminal=opened)
    from .run import run_screen

    ui = LobbyUI(source, language)
    outcome = {"result": "leave"}

    class _Adapter:
        def screen(self) -> Any:
            return ui.screen()

        def handle_key(self, key: str) -> list[Any]:
            return ui.handle_key(key)

        def paste(self, text: str) -> list[Any]:
            return ui.paste(text)

        def on_frame(self, frame: Frame) -> None:
            ui.on_frame(frame)

    async with trio.open_nursery() as nursery:

        async def on_effect(action: Any) -> bool:
            if not isinstance(action, LobbyAction):
                return False
            if action.name in ("ready", "unready"):
                nursery.start_soon(source.set_ready, action.name == "ready")
            elif action.name == "start":
                nursery.start_soon(source.start)
            elif action.name == "turn":
                await source.cycle_turn()
            elif action.name == "options":
                await source.set_options(action.text)
            elif action.name == "bot":
                await source.add_bot()
            elif action.name == "remove" and action.text.isdigit():
                remove = getattr(source, "remove_seat", None)  # the host's lobby only
                if remove is not None:
                    await remove(int(action.text))
            elif action.name == "chat":
                nursery.start_soon(source.send_chat, action.text)
            elif action.name == "retry":
                nursery.start_soon(source.retry, action.text or None)
            elif action.name == "leave":
                await source.leave()
                outcome["result"] = "leave"
                return True
            elif action.name == "closed":
                outcome["result"] = "closed"
                return True
            return False

        async def watch_start(cancel: Callable[[], None]) -> None:
            while True:
                if source.lobby().starting:
                    outcome["result"] = "start"
                    cancel()
                    return
                await source.changed().wait()

        with trio.CancelScope() as scope:
            nursery.start_soon(watch_start, scope.cancel)
            await run_screen(
                terminal,
                _Adapter(),
                on_effect,
                changed=source.changed,
                render_fn=lambda screen, w, h, caps: render_lobby(screen, w, h, caps),
            )
        nursery.cancel_scope.cancel()
    return outcome["result"]
