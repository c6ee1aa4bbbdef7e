"""Issue 28 point 3, the screen: once the table may go on without a player whose program is gone,
the waiting line says so with its key (`g`), the help lists it, and `g` asks the table (one vote
of this program: `GoOn`), telling the player what happens next. The protocol side is
tests/protocol/test_issue28_go_on.py."""

from __future__ import annotations

import dataclasses

from client.ui.app import GoOn
from protocol.waiting import FIRST, LAST, VOTING, Wait

from .test_evening_flows import WaitingSource, shown, waiting_on_ben


@dataclasses.dataclass
class GoOnSource(WaitingSource):
    """A live table's source that also says whom the player may go on without now."""

    without: tuple[int, ...] = ()

    def may_go_on(self) -> tuple[int, ...]:
        return self.without


def _screen(without: tuple[int, ...], phase: str = LAST):
    ui = waiting_on_ben(Wait("job:9:shares:1", (1,), phase, 0.0, insured=True), 30.0, Ben="reconnecting")
    fields = {f: getattr(ui.source, f) for f in ui.source.__dataclass_fields__}
    ui.source = GoOnSource(**fields, without=without)  # type: ignore[assignment]
    return ui


def test_issue28_3_the_waiting_line_offers_to_go_on_without_a_vanished_player() -> None:
    ui = _screen((1,))
    text = shown(ui, 160)
    plan = "Unless Ben is back, the table plays their seat with its bot in 30 s."
    assert f"{plan} g: go on without Ben now." in text
    ui.handle_key("?")
    assert "go on without a player whose program is gone (every other player must agree)" in shown(ui, 160)


def test_issue28_3_g_asks_the_table_and_says_what_happens_next() -> None:
    ui = _screen((1,))
    assert ui.handle_key("g") == [GoOn()]
    told = "You asked to go on without Ben: the table plays their seat as soon as every other player"
    assert told in shown(ui, 200)


def test_issue28_3_the_key_is_offered_while_the_others_vote_too() -> None:
    ui = waiting_on_ben(Wait("job:9:shares:1", (1,), VOTING, 0.0, insured=True), None, Ben="reconnecting")
    fields = {f: getattr(ui.source, f) for f in ui.source.__dataclass_fields__}
    ui.source = GoOnSource(**fields, without=(1,))  # type: ignore[assignment]
    text = shown(ui, 160)
    assert "The table is agreeing to play Ben's seat with its bot. g: go on without Ben now." in text


def test_issue28_3_no_key_before_the_table_may_go_on() -> None:
    ui = _screen((), FIRST)  # the first wait still runs, or a frame of Ben's came meanwhile
    assert "g: go on without" not in shown(ui, 160)
    assert ui.handle_key("g") == []
