"""Issue 29, point 5 (PROTOCOL.md 6.1): a session holds no more after round k than after round 2.

Two seats play short SKYJO rounds on the loopback (seeded: the same game on every run), the
driver releasing the frames it has "saved" as `PeerRunner` does. At the end of every round
(`RoundSigned`) the test counts the entries of every container reachable from each session (its
chains, acknowledgements, relays, quotas, complaints, escrows, insurance, cards, game state...),
by attribute path. What a round's frames need may differ from round to round, but nothing may
grow with the number of rounds played: the count of every path after the last round stays within
twice its count after round 1 or 2 (plus a few entries: a score per round is a legitimate growth,
and tiny).
"""

from __future__ import annotations

import random
from array import array
from collections import Counter, deque
from typing import Any, TypeVar

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.events import RoundSigned, SessionEvent
from protocol.loopback import Loopback, bots_for, make_table, seats
from protocol.session import Session

ROUNDS = 5
SLACK = 8


def entries(root: Session) -> Counter[str]:
    """The number of entries of every container reachable from `root` (by attribute path; the
    elements of a container add up under one path), objects of `protocol` and `skyjo_p2p` only."""
    out: Counter[str] = Counter()
    seen: set[int] = set()
    stack: list[tuple[Any, str]] = [(root, "session")]
    while stack:
        obj, path = stack.pop()
        if id(obj) in seen or isinstance(obj, bytes | str | int | float | None):
            continue
        seen.add(id(obj))
        if isinstance(obj, dict):
            out[path] += len(obj)
            stack.extend((value, path + "{}") for value in obj.values())
            stack.extend((key, path + "{key}") for key in obj)
        elif isinstance(obj, list | tuple | deque | set | frozenset | array):
            out[path] += len(obj)
            stack.extend((value, path + "[]") for value in obj)
        elif type(obj).__module__.startswith(("protocol", "skyjo_p2p")):
            fields = dict(getattr(obj, "__dict__", {}))
            for slot in getattr(type(obj), "__slots__", ()):
                if hasattr(obj, slot):
                    fields[slot] = getattr(obj, slot)
            stack.extend((value, f"{path}.{name}") for name, value in fields.items())
    return out


class SavingDriver(Loopback):
    """Releases each seat's frames as a saving driver does, and keeps no record of its own
    events (it would grow: it is the harness's, not the session's)."""

    def on_event(self, seat: int, event: SessionEvent) -> None:
        super().on_event(seat, event)
        self.events[seat].clear()

    def collected(self, seat: int) -> None:
        session = self.sessions[seat]
        session.release_frames(session.frame_count)  # on disk, in a real peer


class _Table(SavingDriver):
    """Samples each session at its round ends."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.samples: list[list[Counter[str]]] = [[] for _ in range(self.players)]

    def on_event(self, seat: int, event: SessionEvent) -> None:
        super().on_event(seat, event)
        if isinstance(event, RoundSigned):
            self.samples[seat].append(entries(self.sessions[seat]))


class _Seeded:
    """A reproducible (not secret) random source for one seat: the same game on every run."""

    def __init__(self, seed: str) -> None:
        self._rng = random.Random(seed)

    def randbelow(self, n: int) -> int:
        return self._rng.randrange(n)

    def token_bytes(self, n: int) -> bytes:
        return self._rng.randbytes(n)


Driver = TypeVar("Driver", bound=SavingDriver)


def seeded_table(driver: type[Driver]) -> Driver:
    """Two seats, the same short SKYJO rounds on every run, not started: ten cards face up from
    the start, a target no round reaches."""
    keys = [Ed25519PrivateKey.from_private_bytes(bytes([seat + 1]) * 32) for seat in range(2)]
    options = {"target_score": 1000, "setup_reveals": 10}
    config, keys = make_table("skyjo", 2, options, session_id=b"\x29" * 32, keys=keys)
    rngs = [_Seeded(f"memory:{seat}") for seat in range(2)]
    bots = bots_for("skyjo", ["greedy", "greedy"], "memory")
    return driver(seats(config, keys, rng=rngs), bots, strict=True)


def play(rounds: int) -> _Table:
    table = seeded_table(_Table)
    table.start(until=lambda: min(len(s) for s in table.samples) >= rounds)
    return table


def grown(samples: list[Counter[str]]) -> dict[str, list[int]]:
    """The paths whose count after the last round exceeds twice that after round 1 or 2."""
    last = samples[-1]
    return {
        path: [sample[path] for sample in samples]
        for path in last
        if last[path] > 2 * max(samples[0][path], samples[1][path]) + SLACK
    }


def test_a_session_holds_no_more_after_five_rounds_than_after_two() -> None:
    table = play(ROUNDS)
    for seat in range(2):
        assert len(table.samples[seat]) >= ROUNDS
        assert grown(table.samples[seat][:ROUNDS]) == {}, f"seat {seat}"
        assert table.samples[seat][ROUNDS - 1]["session.chains[].frames"] > 0  # a round, kept whole


def test_the_check_sees_a_session_that_does_not_compact(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: without compaction the chains keep every frame."""
    monkeypatch.setattr(Session, "compact", lambda self, signed: None)
    table = play(ROUNDS)
    assert "session.chains[].frames" in grown(table.samples[0][:ROUNDS])
