"""Issue 15, point 2, the pure parts: `q` asks, `y` leaves with a signed leave (`Quit(leave=True)`);
once the game stopped, `q` leaves without a question; the screen says who left or stopped
answering, and for how long, never "cheated"; a lost link counts up while the table waits."""

from __future__ import annotations

from client.table.peer import LogEntry
from client.table.seat import duration as plain_duration
from client.table.seat import stopped_answering
from client.ui.app import GameUI, Quit
from client.ui.narrate import duration

from .scenes import OfflineTable


def _ui(lang: str = "en") -> tuple[GameUI, object]:
    table = OfflineTable("skyjo", 3, {"target_score": 30}, seed=3)
    source = table.source()
    return GameUI(source, lang), source


def test_q_asks_then_y_leaves_with_a_signed_leave() -> None:
    ui, _ = _ui()
    assert ui.handle_key("q") == []
    assert ui.screen().overlay == "quit"
    assert ui.handle_key("y") == [Quit(leave=True)]
    assert ui.ui.leaving
    assert ui.handle_key("q") == [], "keys do nothing while the others are told"
    assert "Leaving the table" in ui.screen().prompt


def test_n_stays() -> None:
    ui, _ = _ui()
    ui.handle_key("q")
    assert ui.handle_key("n") == []
    assert ui.screen().overlay is None and not ui.ui.leaving


def test_after_a_leave_of_another_seat_q_leaves_at_once_and_the_prompt_says_who() -> None:
    ui, source = _ui()
    source.entries.append(LogEntry("left", seat=1, text="left the table"))  # type: ignore[attr-defined]
    source.stopped = "Ben (seat 2) left the table"  # type: ignore[attr-defined]
    model = ui.screen()
    assert model.prompt == "Ben left the table; the game cannot go on. Press q or Enter to leave."
    assert "cheated" not in model.prompt
    assert ui.handle_key("q") == [Quit()]


def test_a_timeout_is_told_as_what_it_is() -> None:
    ui, source = _ui("fr")
    source.entries.append(  # type: ignore[attr-defined]
        LogEntry("absent", seat=2, text="did not answer", waited=300.0, no_link=True)
    )
    source.stopped = "Chloé (seat 3) did not answer in time"  # type: ignore[attr-defined]
    model = ui.screen()
    assert model.prompt.startswith("Chloé ne répond plus (pas de liaison depuis 5 min)")
    ui2, source2 = _ui()
    source2.entries.append(LogEntry("absent", seat=1, text="x", waited=40, no_link=False))  # type: ignore[attr-defined]
    source2.stopped = "x"  # type: ignore[attr-defined]
    assert ui2.screen().prompt.startswith(
        "Ben stopped answering (no answer for 40 s); the game cannot go on."
    )


def test_a_lost_link_shows_since_when() -> None:
    table = OfflineTable("skyjo", 3, {"target_score": 30}, seed=3, me=None)  # nothing to decide
    source = table.source()
    ui = GameUI(source, "en")
    source.link_states[1] = "reconnecting"
    assert "Ben: link lost 0 s ago" in ui.screen().prompt
    ui.ui.lost_since[1] -= 40
    assert "Ben: link lost 40 s ago" in ui.screen().prompt
    source.link_states[1] = "connected"
    assert "link lost" not in ui.screen().prompt and 1 not in ui.ui.lost_since


def test_durations() -> None:
    assert duration("en", 40) == "40 s"
    assert duration("en", 300) == "5 min"
    assert plain_duration(61) == "61 s"
    assert plain_duration(300) == "5 min"
    assert stopped_answering(["Anna", "Ben"], 1, 300, True) == (
        "Ben (seat 2) stopped answering (no link for 5 min); the game cannot go on."
    )
    assert "no answer)" in stopped_answering(["Anna", "Ben"], 0, None, False)
