"""A small seeded random generator for offline play: scenarios, simulations, bots and tests (R-C2).

xoshiro256** (Blackman and Vigna, 2018) seeded through SplitMix64. Written out here rather than
taken from `random` so that a seed replays the same game on every Python version and platform:
scenario outputs and simulation figures are part of the documentation. Not for secrets: the
network game draws every secret from `secrets` in the protocol layer.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")
_MASK = (1 << 64) - 1


def _splitmix64(state: int) -> tuple[int, int]:
    state = (state + 0x9E3779B97F4A7C15) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return state, z ^ (z >> 31)


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & _MASK


class Rng:
    """Deterministic generator: the same seed gives the same sequence, everywhere."""

    __slots__ = ("_s",)

    def __init__(self, seed: int | str = 0) -> None:
        if isinstance(seed, str):
            acc = 0xCBF29CE484222325  # FNV-1a of the text, to accept labels as seeds
            for byte in seed.encode():
                acc = ((acc ^ byte) * 0x100000001B3) & _MASK
            seed = acc
        state = seed & _MASK
        words = []
        for _ in range(4):
            state, word = _splitmix64(state)
            words.append(word)
        self._s = words

    def next64(self) -> int:
        s = self._s
        result = (_rotl((s[1] * 5) & _MASK, 7) * 9) & _MASK
        t = (s[1] << 17) & _MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        return result

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), without modulo bias."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = _MASK - (_MASK + 1) % n
        while True:
            x = self.next64()
            if x <= limit:
                return x % n

    def random(self) -> float:
        """A uniform float in [0, 1)."""
        return (self.next64() >> 11) * (1.0 / (1 << 53))

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def fork(self, label: str) -> Rng:
        """An independent generator derived from this one's next output and a label."""
        return Rng(f"{self.next64()}:{label}")
