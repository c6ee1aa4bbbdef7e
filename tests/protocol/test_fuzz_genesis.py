"""Fuzzing the genesis: tables whose game, player count or options are anything (issue 12).

Attack: a host (or a hand-edited transcript) proposes a table the engine cannot play: an unknown
game, a player count the game does not allow, options of the wrong type or out of their bounds
(an action deck of no card, a negative target...). `TableConfig` refuses it with
`MalformedMessage` ("invalid table options: ..."), so no session is ever built on it, a joiner
decoding it refuses it, and `verify_bytes` of a transcript carrying it raises only
`MalformedMessage`. A table `TableConfig` accepts plays: its first steps raise nothing out of
`Session.receive_frame` or `Session.timer_expired`, and no honest seat is blamed.
"""

from __future__ import annotations

import secrets
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.config import PROTOCOL_VERSION, TableConfig, check_table
from protocol.errors import MalformedMessage
from protocol.transcript import dump
from protocol.verify import verify_bytes
from skyjo_p2p.action.cards import KIND_NAMES
from skyjo_p2p.action.options import SPECS as ACTION_SPECS
from skyjo_p2p.core.errors import OptionError
from skyjo_p2p.core.options import OptionSpec
from skyjo_p2p.engine import validate_options
from skyjo_p2p.skipbo.options import SPECS as SKIPBO_SPECS
from skyjo_p2p.skyjo.options import SPECS as SKYJO_SPECS
from tests.protocol.harness import Net
from tests.skyjo_p2p.test_options_validation import tables as any_table

SPECS = {"skyjo": SKYJO_SPECS, "skyjo-action": ACTION_SPECS, "skip-bo": SKIPBO_SPECS}
KEYS = [secrets.token_bytes(32) for _ in range(9)]


def genesis(game: Any, players: Any, options: Any) -> bytes:
    """Genesis bytes laid out as `TableConfig.encode` lays them out, whatever their content."""
    return bytes(
        msgpack.packb(
            {
                "v": PROTOCOL_VERSION,
                "sid": b"s" * 32,
                "game": game,
                "players": players,
                "options": options,
                "ids": KEYS[: players if isinstance(players, int) and 0 <= players <= 8 else 2],
                "names": [],
            },
            use_bin_type=True,
        )
    )


def unchecked(config: TableConfig, **fields: Any) -> TableConfig:
    """A copy of `config` with `fields` changed and no check run (what a hand-edited file holds)."""
    copy = object.__new__(TableConfig)
    for name in ("session_id", "game", "players", "identities", "options", "names", "version", "table"):
        object.__setattr__(copy, name, fields.get(name, getattr(config, name)))
    return copy


# --- strategies: values the wire can carry (and some it cannot) ---------------------------------

WIRE_JUNK = st.one_of(
    st.booleans(),
    st.integers(-(2**63), 2**64 - 1),
    st.text(max_size=70),
    st.sampled_from(["on", "off", "0", "-5", "all", "3x3", "stars-only", "numbers-only", "action-in-deck"]),
    st.sampled_from([None, 1.5, b"x", [1]]),
)


def small_card_counts() -> st.SearchStrategy[str]:
    """card_counts overrides with few copies (a big deck is valid but slow to shuffle here)."""
    card = st.sampled_from(["star", "-2", "0", "5", "12", "13", *KIND_NAMES.values()])
    count = st.one_of(st.integers(-1, 6).map(str), st.just("x"))
    return st.lists(st.tuples(card, count).map(lambda p: f"{p[0]}:{p[1]}"), max_size=4).map(",".join)


def value_for(spec: OptionSpec) -> st.SearchStrategy[Any]:
    if spec.kind is int:
        low = -2 if spec.minimum is None else spec.minimum - 2
        high = 12 if spec.maximum is None else min(spec.maximum, low + 14) + 2
        near: st.SearchStrategy[Any] = st.one_of(st.integers(low, high), st.integers(low, high).map(str))
    elif spec.kind is bool:
        near = st.one_of(st.booleans(), st.sampled_from(["on", "off", "2"]))
    elif spec.choices:
        near = st.sampled_from(spec.choices)
    elif spec.name == "card_counts":
        near = small_card_counts()
    else:
        names = st.sampled_from([*KIND_NAMES.values(), "joker"])
        near = st.one_of(st.just("all"), st.lists(names, min_size=1, max_size=3).map(",".join))
    return st.one_of(near, near, near, WIRE_JUNK)


@st.composite
def tables(draw: st.DrawFn) -> tuple[Any, int, dict[Any, Any]]:
    """(game, players, options): mostly a real game, mostly 2 seats (1 to 4) and its options."""
    game = draw(st.sampled_from(["skyjo", "skip-bo", "skyjo-action"] * 4 + ["skyjo_action", "", "x" * 300]))
    players = draw(st.sampled_from([2, 1, 2, 3, 2, 4]))
    specs = SPECS.get(game, SKYJO_SPECS)
    options: dict[Any, Any] = {}
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.integers(0, 5)) < 5:
            spec = draw(st.sampled_from(specs))
            options[spec.name] = draw(value_for(spec))
        else:
            options[draw(st.one_of(st.text(max_size=40), st.integers(0, 3)))] = draw(WIRE_JUNK)
    return game, players, options


def fuzz(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --- the regressions of issue 12 -------------------------------------------------------------

ZERO_ACTION_CARDS = {"action_kinds": "peek-line", "card_counts": "peek-line:0"}


@pytest.mark.parametrize(
    ("game", "players", "options", "reason"),
    [
        ("skyjo-action", 3, ZERO_ACTION_CARDS, "at least one action card"),
        ("skyjo", 2, {"target_score": -5}, "target_score"),
        ("skyjo", 2, {"rows": 1}, "rows"),
        ("skip-bo", 3, {"teams": True}, "teams"),
        ("skip-bo", 7, {}, "players"),
        ("skyjo-action", 7, {}, "3x3"),
        ("chess", 2, {}, "unknown game"),
    ],
)
def test_invalid_table_is_refused_by_config_and_decode(
    game: str, players: int, options: dict[str, Any], reason: str
) -> None:
    with pytest.raises(MalformedMessage, match="invalid table options") as built:
        TableConfig(b"s" * 32, game, players, tuple(KEYS[:players]), options)
    assert reason in built.value.reason
    with pytest.raises(MalformedMessage, match="invalid table options") as decoded:
        TableConfig.decode(genesis(game, players, options))
    assert reason in decoded.value.reason


def test_transcript_with_invalid_options_is_not_a_transcript() -> None:
    net = Net("skyjo-action", 2, {"action_kinds": "peek-line"})
    net.start(until=lambda: net.moves >= 1)
    frames = net.sessions[0].frames
    assert verify_bytes(dump(net.config, frames)).valid
    for options in (ZERO_ACTION_CARDS, {"target_score": -5}, {"grid": "4x4"}):
        bad = unchecked(net.config, options=options)
        with pytest.raises(MalformedMessage, match="invalid table options"):
            verify_bytes(dump(bad, frames))
    for changed in ({"game": "skip-bo", "options": {"teams": True}}, {"game": "chess"}):
        with pytest.raises(MalformedMessage, match="invalid table options"):
            verify_bytes(dump(unchecked(net.config, **changed), frames))


# --- the properties ------------------------------------------------------------------------------


@fuzz(400)
@given(table=tables())
def test_decoding_any_genesis_raises_only_malformed_message(table: tuple[Any, int, dict[Any, Any]]) -> None:
    game, players, options = table
    try:
        config = TableConfig.decode(genesis(game, players, options))
    except MalformedMessage:
        return
    assert (config.game, config.players, dict(config.options)) == (game, players, options)
    validate_options(game, players, options)  # what a joiner accepts, its engine plays


@fuzz(20)
@given(table=tables())
def test_any_genesis_is_refused_or_its_table_plays(table: tuple[Any, int, dict[Any, Any]]) -> None:
    game, players, options = table
    try:
        net = Net(game, players, options)
    except MalformedMessage as exc:
        assert exc.reason.startswith(("invalid table options: ", "option")), exc.reason
        return
    # `pump` delivers frames through `receive_frame` and `fire_timers` calls `timer_expired`:
    # an exception out of either fails this test.
    net.start(until=lambda: net.moves >= 2)  # dealt, and the first moves
    assert all(session.state is not None for session in net.sessions)
    assert net.blamed() == [], [(b.seat, b.reason) for b in net.blamed()]
    net.fire_timers(until=lambda: True)


def long_texts() -> st.SearchStrategy[dict[str, str]]:
    """Valid SKYJO ACTION text options of any length (every kind listed is over 64 characters)."""
    names = sorted(KIND_NAMES.values())
    kinds = st.lists(st.sampled_from(names), min_size=1, max_size=9, unique=True).map(",".join)
    pair = st.tuples(st.sampled_from(["star", "5", *names]), st.integers(3, 20))
    counts = st.lists(pair.map(lambda p: f"{p[0]}:{p[1]}"), max_size=10).map(",".join)
    return st.fixed_dictionaries({"action_kinds": kinds, "card_counts": counts})


@fuzz(300)
@given(table=st.one_of(any_table(), long_texts().map(lambda options: ("skyjo-action", 2, options))))
def test_a_genesis_carries_what_the_rules_accept_within_the_wire_limits(
    table: tuple[Any, Any, dict[Any, Any]],
) -> None:
    """`check_table` (the host's check) is exactly what `TableConfig` accepts: the rules'
    `validate_options`, and beyond it only the wire's limits (text of at most 64 characters)."""
    game, players, options = table
    try:
        validate_options(game, players, options)
        by_rules = ""
    except OptionError as exc:
        by_rules = exc.reason
    try:
        check_table(game, players, options)
        by_table = ""
    except MalformedMessage as exc:
        by_table = exc.reason
    wire_limit = any(words in by_table for words in ("at most 64 characters", "short text", "small map"))
    if by_rules:
        assert by_table == f"invalid table options: {by_rules}" or wire_limit, by_table
    elif by_table:
        assert wire_limit, by_table
    keys = tuple(KEYS[: players if isinstance(players, int) and 1 <= players <= 8 else 2])
    if by_table:
        with pytest.raises(MalformedMessage):
            TableConfig(b"s" * 32, game, players, keys, options)
    else:
        config = TableConfig(b"s" * 32, game, players, keys, options)
        assert TableConfig.decode(config.encode()) == config


@fuzz(30)
@given(table=tables(), seed=st.integers(0, 3))
def test_transcript_with_any_genesis_verifies_or_is_malformed(
    recorded: list[bytes], table: tuple[Any, int, dict[Any, Any]], seed: int
) -> None:
    """Frames of a real game under another genesis: refused as malformed, or checked (and found
    not to belong to that table) without any other exception."""
    game, players, options = table
    header = msgpack.packb(
        {"skyjo-lan": "transcript", "v": 1, "genesis": genesis(game, players, options)}, use_bin_type=True
    )
    data = header + b"".join(msgpack.packb(f, use_bin_type=True) for f in recorded[: 5 + seed * 5])
    try:
        verdict = verify_bytes(data)
    except MalformedMessage:
        return
    assert not verdict.valid or verdict.frames == 0 or verdict.rejected


@pytest.fixture(scope="module")
def recorded() -> list[bytes]:
    net = Net("skyjo", 2, {"target_score": 20})
    net.start(until=lambda: net.moves >= 1)
    return list(net.sessions[0].frames)
