"""The shortcuts on the path of every received frame (issue 29: the frames' Python) give exactly
what the general path gives: `TableConfig.owners` worked out once, `SeatInsurance.paused`
answering at once while no vote was ever cast, a sealed frame's envelope made without its
dataclass `__init__`; and a frame's signature check, which decides as `cofactored_holds` does."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.config import TableConfig
from protocol.crypto import group
from protocol.crypto.signatures import cofactored_holds, identity_key
from protocol.events import Rewound
from protocol.insurance import SeatInsurance
from protocol.loopback import make_table
from protocol.messages import Envelope, open_frame, seal

from .signature_support import L, sign_twisted
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


# --- SodiumEd25519PublicKey.verify ------------------------------------------------------------------

_SIGNERS = [Ed25519PrivateKey.generate() for _ in range(2)]


def _damaged(signature: bytes, how: str, where: int) -> bytes:
    """A signature changed one way: a bit flipped, S raised by L (not below L), cut or lengthened."""
    if how == "flip":
        spot = where % len(signature)
        return signature[:spot] + bytes([signature[spot] ^ (1 << (where % 8))]) + signature[spot + 1 :]
    if how == "s+L":
        s = int.from_bytes(signature[32:], "little") + L
        return signature[:32] + s.to_bytes(32, "little") if s < 2**256 else signature
    if how == "cut":
        return signature[: where % 64]
    if how == "long":
        return signature + b"\0"
    return signature


@settings(max_examples=300, deadline=None)
@given(
    signer=st.sampled_from(range(len(_SIGNERS))),
    other=st.booleans(),
    message=st.binary(max_size=300),
    kind=st.sampled_from(["honest", "twisted"]),
    how=st.sampled_from(["none", "flip", "s+L", "cut", "long"]),
    where=st.integers(0, 10**6),
    wrap=st.sampled_from([bytes, bytearray]),
)
def test_a_signature_verifies_exactly_when_the_rule_says_so(
    signer: int, other: bool, message: bytes, kind: str, how: str, where: int, wrap: type
) -> None:
    key = _SIGNERS[signer]
    signature = key.sign(message) if kind == "honest" else sign_twisted(key, message)
    signature = _damaged(signature, how, where)
    checker = _SIGNERS[1 - signer if other else signer].public_key().public_bytes_raw()
    expected = cofactored_holds(checker, signature, message)
    try:
        identity_key(checker).verify(wrap(signature), wrap(message))
        verified = True
    except InvalidSignature:
        verified = False
    assert verified == expected
    if group._msm is not None and how == "none" and not other:
        assert verified  # (the rule accepts both honest and twisted signatures of the key)


# --- seal ---------------------------------------------------------------------------------------------

_TABLE, _TABLE_KEYS = make_table("skyjo", 4, keys=_KEYS[:4])
_SEAT = st.integers(0, 3)
_DIGEST = st.binary(min_size=32, max_size=32)


@settings(max_examples=150, deadline=None)
@given(
    seat=st.integers(0, 3),
    seq=st.integers(0, 2**20),
    prev=st.binary(min_size=32, max_size=32),
    message=st.one_of(
        st.tuples(st.just("chat"), st.fixed_dictionaries({"text": st.text(min_size=1, max_size=40)})),
        st.tuples(st.just("echo"), st.just({})),
        st.tuples(st.just("want"), st.fixed_dictionaries({"seat": _SEAT, "from": st.integers(0, 99)})),
    ),
    acked=st.dictionaries(_SEAT, st.tuples(st.integers(0, 500), _DIGEST)),
)
def test_a_sealed_envelope_is_the_one_its_constructor_makes(
    seat: int, seq: int, prev: bytes, message: tuple[str, dict[str, Any]], acked: dict[int, tuple[int, bytes]]
) -> None:
    kind, data = message
    acks = [(s, q, d) for s, (q, d) in sorted(acked.items()) if s != seat]
    sealed = seal(_TABLE, _TABLE_KEYS[seat], seat, seq, prev, kind, data, acks)
    made = Envelope(seat, seq, prev, kind, dict(data), sealed.body, sealed.frame, tuple(acks))
    assert type(sealed) is Envelope
    assert sealed == made and sealed.digest == made.digest == hashlib.sha256(sealed.body).digest()
    opened = open_frame(sealed.frame, _TABLE)
    assert opened == sealed and opened.digest == sealed.digest
