"""What the tests of the compiled sums share: the naive sum they are checked against and random
points (their `backend` fixture is in conftest.py)."""

from __future__ import annotations

import random

from protocol.crypto import group
from protocol.crypto.group import IDENTITY, L, Point, add, mul


def naive_sum(terms: list[tuple[int, Point]]) -> Point:
    """sum(k * P) one libsodium multiplication and addition at a time."""
    acc = IDENTITY
    for k, p in terms:
        acc = add(acc, mul(k, p))
    return acc


def random_points(rng: random.Random, n: int) -> list[Point]:
    """n random points of the group (never the identity)."""
    return [group.mul_base(rng.randrange(1, L)) for _ in range(n)]
