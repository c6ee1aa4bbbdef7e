"""The shortcuts on the path of every received frame (issue 29: the frames' Python) give exactly
what the general path gives: `TableConfig.owners` worked out once, `SeatInsurance.paused`
answering at once while no vote was ever cast."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.config import TableConfig
from protocol.events import Rewound
from protocol.insurance import SeatInsurance
from protocol.loopback import make_table

from .test_seat_insurance import GAMES, GONE, events, insured

# --- TableConfig.owners ---------------------------------------------------------------------------


def _general_owners(config: TableConfig) -> tuple[int, ...]:
    """`owners` as the table's settings say it, read afresh."""
    owners = config.table.get("owners")
    return tuple(owners) if owners else tuple(range(config.players))


@st.composite
def _tables(draw: st.DrawFn) -> dict[str, Any]:
    """Table settings with or without owners (each seat owned by a seat that runs itself)."""
    players = draw(st.integers(2, 8))
    table: dict[str, Any] = {"insured": draw(st.booleans())}
    if draw(st.booleans()):
        runs = draw(st.sets(st.integers(0, players - 1), min_size=1))
        table["owners"] = [s if s in runs else draw(st.sampled_from(sorted(runs))) for s in range(players)]
    table["players"] = players
    return table


_KEYS = make_table("skyjo", 8)[1]


@settings(max_examples=200, deadline=None)
@given(table=_tables(), shape=st.sampled_from(["list", "tuple"]))
def test_owners_is_what_the_settings_say_read_once_or_many_times(table: dict[str, Any], shape: str) -> None:
    players = table.pop("players")
    if "owners" in table and shape == "tuple":
        table["owners"] = tuple(table["owners"])
    config, _ = make_table("skyjo", players, keys=_KEYS[:players], table=table)
    expected = _general_owners(config)
    assert config.owners == expected and type(config.owners) is tuple
    assert config.owners == expected  # (the second read: the kept answer)
    # a table decoded from its genesis, and one made without its checks (a hand-edited file's)
    decoded = TableConfig.decode(config.encode())
    assert decoded.owners == _general_owners(decoded) == expected
    unchecked = object.__new__(TableConfig)
    for name in ("session_id", "game", "players", "identities", "options", "names", "version", "table"):
        object.__setattr__(unchecked, name, getattr(config, name))
    assert unchecked.owners == expected
    assert decoded.encode() == config.encode()  # (the kept answer is no field of the genesis)


# --- SeatInsurance.paused ---------------------------------------------------------------------


def _general_paused(insurance: SeatInsurance) -> bool | None:
    """`paused` of a player's session by its general path, without its side effect (`_catching_up`
    may end the catching up); None for an observer (its path has no shortcut)."""
    me = insurance.session.me
    if me is None:
        return None
    catching_up = insurance.catching_up and bool(insurance.session.queues[me])
    return insurance._voted_about_us() and not catching_up


@contextmanager
def _checked_paused(seen: list[tuple[bool, bool]]) -> Iterator[None]:
    """Every `paused` asked compared with the general path; (no vote cast yet, answer) noted."""
    plain = SeatInsurance.paused

    def paused(self: SeatInsurance) -> bool:
        expected = _general_paused(self)
        got = plain(self)
        if expected is not None:
            assert got == expected, (self.session.me, dict(self.ballots.attempts))
            seen.append((not self.ballots.attempts, got))
        return got

    SeatInsurance.paused = paused  # type: ignore[method-assign]
    try:
        yield
    finally:
        SeatInsurance.paused = plain  # type: ignore[method-assign]


def test_paused_gives_the_general_answer_before_and_after_the_votes() -> None:
    # a player cut off who played on: the others vote about its program and play its seat; it is
    # paused by their votes, then rewound
    seen: list[tuple[bool, bool]] = []
    with _checked_paused(seen):
        net = insured("skyjo", options={**GAMES["skyjo"], "target_score": 100})
        net.pump(until=lambda: net.want_move[GONE])
        net.withhold = lambda seat, frame: seat == GONE
        net.pump()
        net.fire_timers([0, 1], prefix="job:", until=lambda: all(net.sessions[s].taken_over for s in (0, 1)))
        net.pump(play=False)
    assert len(events(net, GONE, Rewound)) == 1
    # both paths were taken: no vote at all (the shortcut), votes and a pause (the general one)
    assert any(none_cast for none_cast, _ in seen)
    assert any(not none_cast and not got for none_cast, got in seen)
    assert any(got for _, got in seen), "the voted program was paused at least once"


@pytest.mark.parametrize("me", [0, GONE])
def test_paused_is_false_while_no_vote_was_ever_cast(me: int) -> None:
    net = insured("skyjo", moves=4)
    insurance = net.sessions[me].insurance
    assert not insurance.ballots.attempts
    assert insurance.paused() is False and _general_paused(insurance) is False
