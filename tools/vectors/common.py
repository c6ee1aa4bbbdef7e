"""The fixed table of the test vectors and their deterministic randomness.

Only the randomness is fixed when vectors are computed: every function that draws a secret (and
each session of the whole-game vector) is passed a `DeterministicSecrets` stream as `rng=`
(SHA-512 in counter mode, one stream per vector file or seat; see protocol/PROTOCOL.md, "Test
vectors"). So proofs, shares, signatures and frames are the bytes a peer would produce with those
random values. Meanwhile a draw from `secrets` (one that forgot `rng=`) raises.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.config import TableConfig
from protocol.crypto.group import L

VECTOR_DIR = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
"""Where the vector files live: package data of `protocol`, read by tests/protocol/test_vectors.py."""
STREAM_PREFIX = b"skyjo-lan/v1/test-vectors/"
PLAYERS = 3
SESSION_ID = hashlib.sha256(b"skyjo-lan/v1/test-vectors/session").digest()
IDENTITY_SEEDS = tuple(
    hashlib.sha256(b"skyjo-lan/v1/test-vectors/identity/" + bytes([seat])).digest() for seat in range(PLAYERS)
)
GAME = "skyjo"
OPTIONS: dict[str, Any] = {"target_score": 50, "setup_reveals": 2, "rows": False}
NAMES = ("ann", "bob", "cy")
DECK = "skyjo"
DECK_SIZE = 150
SHUFFLE_CARDS = 4

# --- deterministic randomness (vectors only) ----------------------------------------------------


class DeterministicSecrets:
    """The random source of a vector: passed as `rng=` to every function that draws a secret
    (and to the sessions of the whole-game vector).

    Block i of the stream is SHA-512(b"skyjo-lan/v1/test-vectors/" + label + i as 8 bytes
    big-endian), i = 0, 1, 2... Each `randbelow(n)` takes one block: int(block, big-endian) mod n.
    Each `token_bytes(k)` takes ceil(k / 64) blocks and keeps the first k bytes. So
    `group.random_scalar()` = (int(block) mod (L - 1)) + 1 and `gen_permutation` draws
    randbelow(n - i) for i = 0..n-1. `log` records every draw, in order.
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self.counter = 0
        self.log: list[tuple[str, int, int | bytes]] = []

    def _block(self) -> bytes:
        block = hashlib.sha512(STREAM_PREFIX + self.label.encode() + self.counter.to_bytes(8, "big")).digest()
        self.counter += 1
        return block

    def randbelow(self, n: int) -> int:
        if n <= 0:
            raise ValueError("randbelow needs a positive bound")
        value = int.from_bytes(self._block(), "big") % n
        self.log.append(("randbelow", n, value))
        return value

    def token_bytes(self, k: int) -> bytes:
        out = b""
        while len(out) < k:
            out += self._block()
        self.log.append(("token_bytes", k, out[:k]))
        return out[:k]

    def scalars(self) -> list[int]:
        """The values of the random scalars drawn so far (randbelow(L - 1) + 1), in order."""
        return [v + 1 for kind, n, v in self.log if kind == "randbelow" and n == L - 1 and isinstance(v, int)]


_PATCHED = tuple(importlib.import_module(f"protocol.crypto.{name}") for name in ("group", "shuffle", "coins"))
"""The modules that draw from `secrets` when no `rng` is passed (`protocol.crypto.shuffle` is
shadowed by the function `shuffle` in the package namespace, hence importlib)."""


class _NoSystemDraws:
    """In place of `secrets` while a vector is computed: a draw not passed the stream fails."""

    def randbelow(self, n: int) -> int:
        raise RuntimeError("a vector drew from `secrets`: pass the stream as rng=")

    def token_bytes(self, n: int) -> bytes:
        raise RuntimeError("a vector drew from `secrets`: pass the stream as rng=")


@contextmanager
def no_system_draws() -> Iterator[None]:
    """For the duration of the block, any draw from `secrets` in the crypto modules raises: every
    random value of a vector must come from its stream (a draw that forgot `rng=` would make the
    vector non-reproducible). The modules get `secrets` back afterwards."""
    saved = [module.secrets for module in _PATCHED]
    for module in _PATCHED:
        module.secrets = _NoSystemDraws()  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for module, original in zip(_PATCHED, saved, strict=True):
            module.secrets = original  # type: ignore[attr-defined]


@contextmanager
def deterministic(label: str) -> Iterator[DeterministicSecrets]:
    """The fixed stream `label`, to pass as `rng=`; inside the block nothing may draw from `secrets`."""
    with no_system_draws():
        yield DeterministicSecrets(label)


# --- the fixed table -----------------------------------------------------------------------------


def identity_keys() -> list[Ed25519PrivateKey]:
    return [Ed25519PrivateKey.from_private_bytes(seed) for seed in IDENTITY_SEEDS]


def table_config() -> TableConfig:
    return TableConfig(
        session_id=SESSION_ID,
        game=GAME,
        players=PLAYERS,
        identities=tuple(k.public_key().public_bytes_raw() for k in identity_keys()),
        options=dict(OPTIONS),
        names=NAMES,
    )


def deck_game_id(deck: str) -> bytes:
    """protocol.deck.CardStore.codebook: SHA-256("skyjo-lan/v1/deck" || session id || deck name)."""
    return hashlib.sha256(b"skyjo-lan/v1/deck" + SESSION_ID + deck.encode()).digest()


def fixed_hash(name: str) -> bytes:
    """A stand-in transcript hash for vectors that do not follow from frames."""
    return hashlib.sha256(b"skyjo-lan/v1/test-vectors/transcript/" + name.encode()).digest()
