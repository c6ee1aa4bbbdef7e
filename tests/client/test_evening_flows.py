"""Issue 28 ("the evening flows") on the screens and controllers (no network, no terminal).

Point 5: what the game-over screen of a table that plays again says `q` does, who it shows gone,
the host's leave question in the lobby, and `q` pressed before the game's end is settled.
Points 3 and 4: whom the table waits for and until when (a countdown to the moment it plays a
vanished seat, a steady link display), a table that cannot go on said at once and in names, and
the warning when a leave leaves the table unable to replace anyone else."""

from __future__ import annotations

import dataclasses

import trio
from trio.testing import MockClock

from client.table.peer import LogEntry
from client.ui.app import GameUI, Quit
from client.ui.caps import Caps
from client.ui.lobby import LobbyScreen, LobbySeat, LobbyView, render_lobby
from client.ui.network import _settled
from client.ui.render import render
from protocol.waiting import FIRST, VOTING, Wait
from tests.client.ui.scenes import OfflineSource, OfflineTable

CAPS = Caps(color=True, unicode=True)


def over(**links: str) -> GameUI:
    table = OfflineTable("skyjo", 3, {"target_score": 1}, seed=3, me=0, level="greedy")
    table.until(lambda s: s.phase == "game_over")
    names = table.source().names
    states = {names.index(name): status for name, status in links.items()}
    return GameUI(dataclasses.replace(table.source(), link_states=states), "en", again=True)


def test_the_game_over_screen_of_a_table_that_plays_again_says_q_goes_back_to_the_lobby() -> None:
    ui = over()
    text = "\n".join(render(ui.screen(), 100, 30, CAPS).text())
    assert "q back to the lobby" in text  # the box
    assert "q back to the lobby" in text  # the line under the table
    assert "q quit" not in text and "q quits" not in text
    ui.handle_key("esc")  # the box closed: the table, its prompt and status line
    text = "\n".join(render(ui.screen(), 100, 30, CAPS).text())
    assert "Enter the result, s the score sheet, q back to the lobby" in text
    assert "q quit" not in text
    assert ui.handle_key("q") == [Quit()]


def test_players_gone_back_to_the_lobby_are_not_shown_gone_on_the_game_over_screen() -> None:
    ui = over()
    names = list(ui.source.names)
    ui = over(**{names[1]: "gone", names[2]: "gone"})
    ui.handle_key("esc")
    text = "\n".join(render(ui.screen(), 100, 30, CAPS).text())
    assert "gone" not in text


def test_the_hosts_leave_question_in_the_lobby_says_the_table_closes() -> None:
    seats = [LobbySeat("ann", "a" * 19, ready=True, host=True, me=True), LobbySeat(empty=True)]
    screen = LobbyScreen(LobbyView("Kitchen", "skyjo", seats, is_host=True), "en")
    screen.overlay = "quit"
    text = "\n".join(render_lobby(screen, 80, 24, CAPS).text())
    assert "leaving closes it for everyone" in text and "seat becomes free" not in text
    joiner = [LobbySeat("ann", "a" * 19, ready=True, host=True), LobbySeat("ben", "b" * 19, me=True)]
    screen = LobbyScreen(LobbyView("Kitchen", "skyjo", joiner), "en")
    screen.overlay = "quit"
    assert "Your seat becomes free again." in "\n".join(render_lobby(screen, 80, 24, CAPS).text())


class _Status:
    finished = False
    halted: str | None = None


class _Runner:
    """A game over on screen whose last signatures are still coming."""

    def __init__(self) -> None:
        self.status = _Status()
        self.changed = trio.Event()

    def finish(self) -> None:
        self.status.finished = True
        self.changed.set()
        self.changed = trio.Event()


async def test_q_before_the_games_end_is_settled_waits_for_it_then_the_lobby() -> None:
    runner = _Runner()
    got: list[bool] = []

    async def quit_now() -> None:
        got.append(await _settled(runner))  # type: ignore[arg-type]

    async with trio.open_nursery() as nursery:
        nursery.start_soon(quit_now)
        await trio.testing.wait_all_tasks_blocked()
        assert got == []  # not "not finished, exit" at once
        runner.finish()
    assert got == [True]


async def test_a_game_that_never_settles_ends_the_wait(autojump_clock: MockClock) -> None:
    assert await _settled(_Runner()) is False  # type: ignore[arg-type]


# --- points 3 and 4: whom the table waits for, until when, and when it cannot go on -------------


@dataclasses.dataclass
class WaitingSource(OfflineSource):
    """A live table's source that also says what the table waits for (as `RunnerSource` does)."""

    wait: Wait | None = None
    seconds: float | None = None
    spares_end: bool = False

    def table_wait(self) -> tuple[Wait, float | None] | None:
        return None if self.wait is None else (self.wait, self.seconds)

    def leave_ends_spares(self) -> bool:
        return self.spares_end


def waiting_on_ben(wait: Wait | None, seconds: float | None, **links: str) -> GameUI:
    """Anna's screen while the table waits for Ben's move (seat 1)."""
    table = OfflineTable("skyjo", 3, {"target_score": 100}, seed=4, me=0, level="greedy")
    table.until(lambda s: s.phase == "turn" and s.turn == 1)
    base = table.source()
    states = {base.names.index(name): status for name, status in links.items()}
    fields = {f: getattr(base, f) for f in base.__dataclass_fields__}
    source = WaitingSource(**{**fields, "link_states": states}, wait=wait, seconds=seconds)
    return GameUI(source, "en")


def shown(ui: GameUI, width: int = 120) -> str:
    return " ".join(" ".join(render(ui.screen(), width, 30, CAPS).text()).split())


def test_a_vanished_player_is_counted_down_to_the_moment_the_table_plays_the_seat() -> None:
    wait = Wait("job:9:move:1", (1,), FIRST, 60.0, insured=True)
    text = shown(waiting_on_ben(wait, 100.0, Ben="reconnecting"))
    assert "Unless Ben is back, the table plays their seat with its bot in 1:40." in text
    assert "reconnecting" in text and "reconnecting 4s" not in text  # a steady link display
    # an ordinary wait for a move (the link is up): nothing to count down
    assert "Unless Ben" not in shown(waiting_on_ben(wait, 100.0))
    voting = Wait("job:9:move:1", (1,), VOTING, 0.0, insured=True)
    assert "The table is agreeing to play Ben's seat with its bot." in shown(waiting_on_ben(voting, None))


def test_a_table_that_cannot_go_on_says_so_at_once_in_names() -> None:
    wait = Wait("job:9:move:1", (1,), FIRST, 60.0, insured=False, blockers=(2,))
    text = shown(waiting_on_ben(wait, 100.0))  # at the first wait, before any link is seen lost
    assert (
        "The table cannot play Ben's seat (Chloé, gone, held a share of its key): unless Ben is back, "
        "the game stops in 1:40." in text
    )


def test_the_leave_question_warns_when_the_table_could_then_replace_no_one() -> None:
    ui = waiting_on_ben(None, None)
    ui.source.spares_end = True  # type: ignore[attr-defined]
    ui.handle_key("q")
    note = "After you leave, the table can no longer play the seat of anyone else whose program stops"
    assert ui.screen().quit_note.startswith(note)
    assert "After you leave, the table can no longer" in shown(ui)  # in the box
    ui.source.spares_end = False  # type: ignore[attr-defined]
    assert "can no longer" not in shown(ui)


def test_the_others_are_told_once_a_leave_leaves_no_spare() -> None:
    ui = waiting_on_ben(None, None)
    ui.source.entries.append(LogEntry("left", seat=2, text="left"))
    ui.source.entries.append(LogEntry("no_spare", seat=2))
    lines = ["".join(span.text for span in line) for line in ui.screen().log]
    assert lines[-2:] == [
        "Chloé left the table.",
        "From now on the table cannot play the seat of anyone else whose program stops: the game would stop.",
    ]


def test_a_stop_is_said_in_names_not_seat_numbers() -> None:
    ui = waiting_on_ben(None, None)
    ui.source.stopped = "seat 2's cards cannot be opened: seat 3, which holds a share of its key, is gone too"
    text = shown(ui)
    assert "Ben's program stopped answering, and the table could not play Ben's seat, as Chloé" in text
    assert "seat 3" not in text
    ui.source.stopped = "seat(s) 2, 3 did not answer in time (the table could not agree)"
    assert "Ben and Chloé did not answer in time" in shown(ui)
