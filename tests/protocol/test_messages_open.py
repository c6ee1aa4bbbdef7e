"""`messages.open_frame`'s fast path (`_exact_contents`, `_envelope`) against the general check.

The fast path decides only bodies of the exact types msgpack decodes to that the general check
(`_contents_error`) accepts, and builds the same envelope; anything else goes to the general
check, whose verdict and wording stand. Checked on the bodies of a real game's frames and on
random variations of them (wrong types, ranges, orders, counts, subclasses of int and bytes).
"""

from __future__ import annotations

import random
from typing import Any

import msgpack  # type: ignore[import-untyped]

from protocol.messages import (
    BODY_ITEMS,
    KINDS,
    MAX_LIST,
    SCHEMAS,
    Envelope,
    _contents_error,
    _envelope,
    _exact_contents,
)
from tests.protocol.harness import Net


class _Int(int):
    pass


class _Bytes(bytes):
    pass


def _bodies() -> list[list[Any]]:
    net = Net("skyjo", 2, {"target_score": 20})
    net.start(until=lambda: net.has_sent(1, "keycommit"))
    net.pump(until=lambda: net.moves >= 6)
    return [msgpack.unpackb(msgpack.unpackb(frame)[0]) for _, frame in net.sent]


def _variant(head: list[Any], rng: random.Random) -> list[Any]:
    head = list(head)
    slot = rng.choice([3, 4, 5, 6, 6, 6, 7, 7])
    odd: list[Any] = [True, -1, 1 << 40, _Int(1), b"x" * 31, _Bytes(b"y" * 32), "s", None, [], [1, 2, 3]]
    odd += [(1 << 40) - 1, [0] * MAX_LIST, [0] * (MAX_LIST + 1), {}]  # (the fast tests' bounds)
    if slot == 6:
        acks = [list(a) for a in head[6]]
        choice = rng.randrange(5)
        if choice == 0 and acks:
            acks[rng.randrange(len(acks))][rng.randrange(3)] = rng.choice(odd)
        elif choice == 1:
            acks.append([rng.randrange(9), rng.randrange(5), b"z" * 32])
        elif choice == 2:
            acks.reverse()
            acks = acks + acks
        elif choice == 3:
            acks = [[head[2], 0, b"z" * 32], *acks]
        else:
            acks = rng.choice(odd)
        head[6] = acks
    elif slot == 7 and isinstance(head[7], list) and head[7]:
        data = list(head[7])
        if rng.random() < 0.3:
            data.append(rng.choice(odd))
        else:
            data[rng.randrange(len(data))] = rng.choice(odd)
        head[7] = data
    else:
        head[slot] = rng.choice([*odd, len(KINDS), 0])
    return head


def test_the_fast_path_accepts_only_what_the_general_check_accepts_and_builds_the_same() -> None:
    rng = random.Random(29)
    bodies = _bodies()
    assert bodies
    heads = bodies + [_variant(rng.choice(bodies), rng) for _ in range(3000)]
    fast = 0
    for head in heads:
        assert len(head) == BODY_ITEMS
        seat = head[2]
        _, _, _, seq, prev, code, acks, data = head
        opened = _exact_contents(seq, prev, code, acks, data, seat, 2)
        if opened is None:
            continue
        fast += 1
        assert _contents_error(head, 2) is None
        kind = KINDS[code]
        assert opened == (kind, dict(zip(SCHEMAS[kind], data, strict=True)), tuple(map(tuple, acks)))
        body = msgpack.packb(head)
        built = _envelope(seat, seq, prev, kind, opened[1], body, b"f", opened[2])
        general = Envelope(seat, seq, prev, kind, opened[1], body, b"f", opened[2])
        assert type(built) is Envelope and built == general and built.digest == general.digest
    assert len(bodies) <= fast < len(heads)  # every real body took it, and not every variation
