"""Where the secrets come from: a `RandomSource` passed in, `SYSTEM` (the `secrets` module) by default.

Why: every function of `protocol.crypto` that draws a secret (keys, proof nonces, re-encryption
randomness, permutations, coin contributions, batch-verification weights) takes a keyword
`rng: RandomSource = SYSTEM`, and the Session hands its own `rng` to every such call. Production
code never passes one, so it always draws from `secrets`; the test-vector generator passes a
deterministic stream and gets the exact bytes a peer would produce with those values. Nothing else
(no `random`, no clock) may ever feed a secret.

The draws of one operation happen in a fixed order (documented by the functions that make them), so
a deterministic source reproduces the same values byte for byte.
"""

from __future__ import annotations

import secrets
from typing import Final, Protocol


class RandomSource(Protocol):
    """A source of uniform randomness, shaped like the part of `secrets` the protocol uses."""

    def randbelow(self, n: int, /) -> int:
        """A uniform integer in [0, n), n > 0."""
        ...

    def token_bytes(self, n: int, /) -> bytes:
        """`n` uniform random bytes."""
        ...


class _SystemRandom:
    """The `secrets` module as a `RandomSource` (the operating system's CSPRNG)."""

    __slots__ = ()

    def randbelow(self, n: int, /) -> int:
        return secrets.randbelow(n)

    def token_bytes(self, n: int, /) -> bytes:
        return secrets.token_bytes(n)

    def __repr__(self) -> str:
        return "SYSTEM"


SYSTEM: Final[RandomSource] = _SystemRandom()
"""The default source everywhere: the `secrets` module."""
