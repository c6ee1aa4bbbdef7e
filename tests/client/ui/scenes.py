"""Tables at chosen moments, played offline (engine + dealer + bots, no crypto), for the screen's
snapshot tests and the user guide's screenshots.

`OfflineSource` looks like a live table to `GameUI`: the state is the seat's own view and the log
holds the facts exactly as that seat's peer would have received them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from client.table.peer import LogEntry
from client.ui.model import LinkView
from skyjo_p2p.bots import make_bot
from skyjo_p2p.core.dealer import Dealer
from skyjo_p2p.core.events import Event, Revealed, requests_in
from skyjo_p2p.core.moves import Move
from skyjo_p2p.core.state import TableState
from skyjo_p2p.engine import apply, deciders, legal_moves, new_game, rules_for, view


@dataclass
class OfflineSource:
    game: str
    seat: int | None
    names: Sequence[str]
    table: TableState
    entries: list[LogEntry] = field(default_factory=list)
    link_states: dict[int, str] = field(default_factory=dict)
    retry: dict[int, float] = field(default_factory=dict)
    stopped: str | None = None
    away_seats: frozenset[int] = frozenset()
    taken: dict[int, str] = field(default_factory=dict)
    left: float | None = None
    """Seconds left on the seat's move countdown (None: none runs)."""

    def state(self) -> TableState | None:
        return view(self.table, self.seat)

    def log(self) -> Sequence[LogEntry]:
        return self.entries

    def legal_moves(self) -> list[Move]:
        if self.seat is None:
            return []
        return legal_moves(self.table, self.seat)

    def links(self) -> list[LinkView]:
        return [
            LinkView(s, self.names[s], self.link_states.get(s, "connected"), self.retry.get(s))
            for s in range(len(self.names))
            if s != self.seat
        ]

    def halted(self) -> str | None:
        return self.stopped

    def away(self) -> frozenset[int]:
        return self.away_seats

    def taken_over(self) -> dict[int, str]:
        return self.taken

    def time_left(self) -> float | None:
        return self.left


class OfflineTable:
    """An engine, a dealer that knows every card, and bots for every seat but `me`."""

    def __init__(
        self,
        game: str,
        players: int,
        options: dict[str, Any] | None = None,
        seed: int = 1,
        me: int | None = 0,
        names: Sequence[str] | None = None,
        level: str = "greedy",
    ) -> None:
        self.game = game
        self.me = me
        self.dealer = Dealer(rules_for(game).composition, seed=seed)
        state, events = new_game(game, players, options or {})
        self.state = state
        self.names = list(
            names or (["Anna", "Ben", "Chloé", "Dmitri", "Elsa", "Farid", "Gus", "Hana"][:players])
        )
        self.entries: list[LogEntry] = []
        self.bots = {}
        for seat in range(players):
            try:
                self.bots[seat] = make_bot(level, game, f"{seed}:{seat}")
            except ValueError:
                self.bots[seat] = make_bot("random", game, f"{seed}:{seat}")
        self._settle(events)

    def _record(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, Revealed) and event.to is not None and event.to != self.me:
                event = Revealed(event.handle, event.to, None)
            self.entries.append(LogEntry("fact", fact=event))

    def _settle(self, events: list[Event]) -> None:
        self._record(events)
        queue = requests_in(events)
        i = 0
        while i < len(queue):
            self.state, more = apply(self.state, self.dealer.answer(self.state, queue[i]))
            i += 1
            self._record(more)
            queue.extend(requests_in(more))

    def play(self, move: Move) -> None:
        self.state, events = apply(self.state, move)
        self._settle(events)

    def step(self) -> bool:
        """One move by whoever decides (a bot, or the bot standing in for `me`)."""
        seats = deciders(self.state)
        if not seats:
            return False
        seat = seats[0]
        self.play(self.bots[seat].choose(view(self.state, seat), seat))
        return True

    def until(self, stop: Callable[[TableState], bool], limit: int = 5000) -> None:
        for _ in range(limit):
            if stop(self.state):
                return
            if not self.step():
                return
        raise AssertionError("the scene's moment never came")

    def source(self) -> OfflineSource:
        return OfflineSource(self.game, self.me, self.names, self.state, list(self.entries))

    def chat(self, seat: int, text: str) -> None:
        self.entries.append(LogEntry("chat", seat=seat, text=text))


# --- the scenes of the snapshot tests and the user guide ---------------------------------------------

from client.ui.app import GameUI  # noqa: E402


@dataclass
class Scene:
    """A screen to show: a way to make its controller, and keys to press before looking."""

    name: str
    make: Callable[[], Any]
    keys: tuple[str, ...] = ()
    render: Any = None  # a render function other than client.ui.render.render (the lobby's)

    @property
    def ui(self) -> Any:
        return self.make()


def _table(
    game: str,
    players: int,
    options: dict[str, Any] | None,
    seed: int,
    stop: Callable[[Any], bool],
    me: int | None = 0,
    level: str = "random",
) -> OfflineTable:
    table = OfflineTable(game, players, options, seed=seed, me=me, level=level)
    table.until(stop)
    return table


def _mine(step: str) -> Callable[[Any], bool]:
    from skyjo_p2p.engine import deciders

    def stop(state: Any) -> bool:
        seats = deciders(state)
        return bool(seats) and seats[0] == 0 and getattr(state, "step", "") == step and state.round == 1

    return stop


def _ui(table: OfflineTable, lang: str = "en", **kwargs: Any) -> Callable[[], GameUI]:
    return lambda: GameUI(table.source(), lang, **kwargs)


def skyjo_scenes(lang: str = "en") -> list[Scene]:
    scenes = []
    t = _table("skyjo", 4, {}, 3, lambda s: s.phase == "setup")
    scenes.append(Scene("skyjo-setup", _ui(t, lang), ("enter",)))
    t = _table("skyjo", 4, {}, 3, lambda s: _mine("choose")(s) and len(t_log(s)) > 0)
    scenes.append(Scene("skyjo-turn", _ui(t, lang)))
    t = _table("skyjo", 4, {}, 3, _mine("drawn"))
    scenes.append(Scene("skyjo-drawn", _ui(t, lang), ("down", "right")))
    scenes.append(Scene("skyjo-help", _ui(t, lang), ("?",)))
    t = _table("skyjo", 4, {}, 5, _mine("flip"))
    scenes.append(Scene("skyjo-flip", _ui(t, lang)))
    t = _table("skyjo", 4, {}, 3, lambda s: s.phase == "turn" and s.turn == 2 and s.round == 1)
    scenes.append(Scene("skyjo-waiting", _ui(t, lang), ("?",)))
    t = OfflineTable("skyjo", 4, {}, seed=3, me=0, level="greedy")
    last = t.source()  # the last table the screen saw of round 1
    while not (t.state.round == 2 and t.state.phase == "setup"):
        if t.state.round == 1:
            last = t.source()
        assert t.step()

    def round_over(t: OfflineTable = t, last: OfflineSource = last) -> GameUI:
        # the screen read round 1, then round 2's setup: it shows round 1's end, every card up
        ui = GameUI(last, lang)
        ui.screen()
        ui.source = t.source()
        return ui

    scenes.append(Scene("skyjo-round-over", round_over))
    t = _table("skyjo", 4, {"target_score": 60}, 3, lambda s: s.phase == "game_over", level="greedy")
    scenes.append(
        Scene(
            "skyjo-result",
            _ui(t, lang, saved="~/.local/share/skyjo-lan/games/20250101-2000-skyjo-1a2b.skyjo"),
        )
    )
    scenes.append(Scene("skyjo-scores", _ui(t, lang), ("s",)))
    return scenes


def t_log(state: Any) -> tuple[Any, ...]:
    return state.history or (1,)


def skipbo_scenes(lang: str = "en") -> list[Scene]:
    scenes = []
    t = _table(
        "skip-bo", 4, {}, 3, lambda s: s.phase == "turn" and s.turn == 0 and s.round == 1 and len(s.draw) < 60
    )
    scenes.append(Scene("skipbo-turn", _ui(t, lang)))
    scenes.append(Scene("skipbo-hand-card", _ui(t, lang), ("2",)))
    t = _table("skip-bo", 3, {}, 4, lambda s: s.phase == "turn" and s.turn == 1 and len(s.draw) < 90)
    scenes.append(Scene("skipbo-waiting", _ui(t, lang)))
    t = _table("skip-bo", 4, {"stock_size": 5, "single_round": True}, 3, lambda s: s.phase == "game_over")
    scenes.append(Scene("skipbo-result", _ui(t, lang)))
    return scenes


def _search(
    game: str, players: int, options: dict[str, Any], stop: Callable[[Any], bool], seeds: range
) -> OfflineTable:
    """The first seed whose game reaches `stop` (a fixed search: the same table every time)."""
    for seed in seeds:
        table = OfflineTable(game, players, options, seed=seed, level="random")
        try:
            table.until(lambda s: stop(s) or s.phase == "game_over")
        except AssertionError:
            continue
        if stop(table.state):
            return table
    raise AssertionError(f"no seed in {seeds} reaches the scene")


def action_scenes(lang: str = "en") -> list[Scene]:
    scenes = []
    for step, keys in (
        ("choose", ()),
        ("offer", ()),
        ("swap", ("enter", "right", "enter")),
        ("exchange", ("enter", "up", "enter")),
        ("draw-three", ()),
        ("peek", ("enter",)),
        ("replay", ()),
        ("lines", ()),
        ("pick", ()),
        ("steal", ()),
    ):

        def stop(s: Any, step: str = step) -> bool:
            return _mine(step)(s) and (step != "choose" or (len(s.action_discard) > 3 and bool(s.held[0])))

        t = _search("skyjo-action", 4, {}, stop, range(1, 60))
        scenes.append(Scene(f"action-{step}", _ui(t, lang), keys))
    t = _table("skyjo-action", 3, {"target_score": 40}, 2, lambda s: s.phase == "game_over")
    scenes.append(Scene("action-scores", _ui(t, lang), ("s",)))
    scenes += action_card_scenes(lang)
    return scenes


def _cursor_on(table: OfflineTable, lang: str, target: Any) -> Callable[[], GameUI]:
    """A controller whose cursor is on `target` (as the arrows would put it)."""

    def make() -> GameUI:
        ui = GameUI(table.source(), lang)
        ui.screen()
        ui.ui.cursor = target
        return ui

    return make


def action_card_scenes(lang: str = "en") -> list[Scene]:
    """The card under the cursor in one line, and the warning before a move without effect (issue 30)."""
    from client.ui.targets import HeldTarget, MarketTarget

    t = _search("skyjo-action", 4, {}, _mine("choose"), range(1, 60))
    scenes = [Scene("action-card-hint", _cursor_on(t, lang, MarketTarget(1)))]

    def lonely_thief(s: Any) -> bool:
        return _mine("choose")(s) and bool(s.held[0]) and not any(s.held[o] for o in range(1, s.players))

    t = _search("skyjo-action", 2, {"action_kinds": "steal-and-play"}, lonely_thief, range(1, 60))
    scenes.append(Scene("action-no-effect", _cursor_on(t, lang, HeldTarget(0, 0))))
    return scenes


def _last_round(game: str, players: int, options: dict[str, Any], ok: Callable[[Any], bool]) -> Any:
    """A game played to its end (the first seed whose end passes `ok`), and the last table the
    screen saw before the end: the screen then reads the end, as a live one does."""
    from skyjo_p2p.core.events import RoundEnded

    for seed in range(1, 80):
        table = OfflineTable(game, players, options, seed=seed, level="greedy")
        last = table.source()
        while table.state.phase != "game_over":
            last = table.source()
            assert table.step()
        record = [r for r in table.state.history if isinstance(r, RoundEnded)][-1]
        if ok((table.state, record)):
            return table, last
    raise AssertionError("no seed ends as the scene needs")


def round_end_scenes(lang: str = "en") -> list[Scene]:
    """The end of the last round on its own screen before the result (issue 30, point 3): every
    grid turned, the held action cards' +10, the ender's doubling."""
    scenes = []

    def held_and_doubled(end: Any) -> bool:
        state, record = end
        return record.doubled and any(state.held[s] for s in range(state.players))

    table, last = _last_round("skyjo-action", 3, {"target_score": 1}, held_and_doubled)

    def make(table: Any = table, last: Any = last) -> GameUI:
        ui = GameUI(last, lang)
        ui.screen()
        ui.source = table.source()
        return ui

    scenes.append(Scene("action-round-end", make))
    scenes.append(Scene("action-round-end-result", make, ("enter",)))
    return scenes


def rules_scenes(lang: str = "en") -> list[Scene]:
    """The rules page of each game, opened from the help (issue 30)."""
    scenes = []
    for game, name, keys in (
        ("skyjo", "skyjo-rules", ("?", "r")),
        ("skyjo-action", "action-rules", ("?", "r", "pgdn", "pgdn")),
        ("skip-bo", "skipbo-rules", ("?", "r")),
    ):
        t = _table(game, 2, {}, 3, lambda s: s.phase in ("setup", "turn"))
        scenes.append(Scene(name, _ui(t, lang), keys))
    return scenes


def lobby_choice_scenes(lang: str, view: Any) -> list[Scene]:
    """Muting a player's chat in the lobby, and the host freeing a seat (issue 30, point 5)."""
    from dataclasses import replace

    from client.ui.lobby import LobbyUI, render_lobby

    hosted = replace(
        view,
        is_host=True,
        seats=[replace(seat, me=seat.host) for seat in view.seats],
    )

    class Source:
        def __init__(self, shown: Any) -> None:
            self.shown = shown

        def lobby(self) -> Any:
            return self.shown

    def ui(shown: Any) -> Callable[[], Any]:
        return lambda: LobbyUI(Source(shown), lang)  # type: ignore[arg-type]

    return [
        Scene("lobby-mute", ui(view), ("m", "4"), render=render_lobby),
        Scene("lobby-muted", ui(view), ("m", "4", "esc"), render=render_lobby),
        Scene("lobby-remove", ui(hosted), ("x",), render=render_lobby),
    ]


def other_scenes(lang: str = "en") -> list[Scene]:
    from client.ui.lobby import LobbyScreen, LobbySeat, LobbyView, render_lobby

    scenes = []
    t = _table("skyjo", 4, {}, 3, lambda s: _mine("choose")(s))
    scenes.append(Scene("too-small", _ui(t, lang)))
    scenes.append(Scene("quit", _ui(t, lang), ("q",)))
    scenes.append(Scene("chat", _ui(t, lang), ("t", *"on y va ?")))
    talk = _table("skyjo", 3, {}, 3, lambda s: _mine("choose")(s))
    talk.chat(1, "hurry up!")
    talk.chat(2, "shh")
    scenes.append(Scene("game-mute", _ui(talk, lang), ("m", "1")))  # issue 30: Ben muted here
    scenes.append(Scene("game-muted", _ui(talk, lang), ("m", "1", "esc")))
    source = t.source()
    source.link_states = {1: "reconnecting", 2: "blamed"}
    source.retry = {1: 4.0}
    scenes.append(Scene("links", lambda: GameUI(source, lang)))
    view = LobbyView(
        "Kitchen",
        "skyjo",
        [
            LobbySeat("Anna", "k3xq-7vpa-m2rd-9hbe", ready=True, host=True, link="connected", known=True),
            LobbySeat("Ben", "a9fz-qq2m-x7lw-4ncd", me=True),
            LobbySeat("Ada", "p2rt-8mcx-vv4n-k1zs", ready=True, bot=True, link="local"),
            LobbySeat("Chloé", "zz3w-8b2k-rt5a-mm0p", link="reconnecting", retry_in=3.2, known=False),
            LobbySeat(empty=True),
        ],
        options={"target_score": 150, "rows": True},
        password=True,
        address="192.168.1.20:45123",
        chat=[("Anna", "on commence quand tout le monde est là"), ("Chloé", "j'arrive !")],
    )

    class Lobby:
        def screen(self) -> LobbyScreen:
            return LobbyScreen(view, lang)

        def handle_key(self, key: str) -> list[Any]:
            return []

        def on_frame(self, frame: Any) -> None:
            pass

    scenes.append(Scene("lobby", Lobby, render=render_lobby))
    scenes += lobby_choice_scenes(lang, view)
    scenes += again_scenes(lang)
    scenes.append(Scene("replay", _replay(lang), ("n", "n", "n")))
    return scenes


def _replay(lang: str) -> Callable[[], Any]:
    """A replay of an offline game (as `skyjo-lan replay` shows a saved one): an onlooker's view."""
    from client.ui.replay import LogItem, Replay, ReplayUI, Step

    table = OfflineTable("skyjo", 4, {}, seed=3, me=None, level="greedy")
    replay = Replay("skyjo", table.names)
    for _ in range(40):
        replay.steps.append(Step(view(table.state, None), len(table.entries), len(table.state.history)))
        if not table.step():
            break
    replay.log = [LogItem(e.kind, e.fact, e.seat, e.text) for e in table.entries]

    def make() -> ReplayUI:
        ui = ReplayUI(replay, lang)
        ui.go(30)
        return ui

    return make


_CACHE: dict[str, list[Scene]] = {}


def all_scenes(lang: str = "en") -> list[Scene]:
    """Every scene (the tables are played once per language and kept)."""
    if lang not in _CACHE:
        _CACHE[lang] = (
            skyjo_scenes(lang)
            + skipbo_scenes(lang)
            + action_scenes(lang)
            + rules_scenes(lang)
            + round_end_scenes(lang)
            + other_scenes(lang)
        )
    return _CACHE[lang]


def evening_of_two(state: Any, names: Sequence[str]) -> Any:
    """An evening of two games at a table of four (play again, issue 18): a first game made up,
    then the one that ended in `state`."""
    from client.table.evening import Evening, GameResult

    fps = ("k3xq-7vpa-m2rd-9hbe", "a9fz-qq2m-x7lw-4ncd", "p2rt-8mcx-vv4n-k1zs", "zz3w-8b2k-rt5a-mm0p")
    return Evening(
        [
            GameResult(b"1" * 32, state.game, tuple(names), fps, (104, 71, 88, 120), (1,)),
            GameResult(b"2" * 32, state.game, tuple(names), fps, tuple(state.totals), tuple(state.winners)),
        ]
    )


def again_scenes(lang: str = "en") -> list[Scene]:
    """Play again: the lobby between games, and the game-over dialog with the evening's scores."""
    from client.ui.lobby import LobbyScreen, LobbySeat, LobbyView, render_lobby

    t = _table("skyjo", 4, {"target_score": 60}, 3, lambda s: s.phase == "game_over", level="greedy")
    names = ["Anna", *t.names[1:]]
    evening = evening_of_two(t.state, names)
    fps = evening.results[0].fingerprints
    view = LobbyView(
        "Kitchen",
        "skyjo",
        [
            LobbySeat(names[0], fps[0], ready=True, host=True, link="connected", known=True),
            LobbySeat(names[1], fps[1], me=True),
            LobbySeat(names[2], fps[2], ready=True, link="connected", known=True),
            LobbySeat(empty=True),
        ],
        options={"target_score": 60},
        address="192.168.1.20:45123",
        settings={"turn": 60, "grace": 60, "insured": True},
        after=2,
        winners=evening.last.winner_names,
        evening=evening.rows(),
    )

    class Lobby:
        def screen(self) -> LobbyScreen:
            return LobbyScreen(view, lang)

        def handle_key(self, key: str) -> list[Any]:
            return []

        def on_frame(self, frame: Any) -> None:
            pass

    scenes = [Scene("lobby-again", Lobby, render=render_lobby)]
    scenes.append(Scene("skyjo-evening", _ui(t, lang, evening=lambda state: evening, again=True)))
    return scenes
