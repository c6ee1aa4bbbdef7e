"""Typed errors of the crypto layer.

Every failure caused by data from another peer raises a subclass of `CryptoError` with a short,
human-readable reason, so that the session layer can blame the sender ("seat 3 sent a shuffle proof
that does not verify: ...") instead of crashing on a library exception.
"""

from __future__ import annotations


class CryptoError(Exception):
    """Base class of every error raised by `protocol.crypto`."""


class MalformedData(CryptoError):
    """A wire value has the wrong type, length or count (before any cryptographic check)."""


class InvalidPoint(MalformedData):
    """Bytes that are not the canonical encoding of a non-identity ristretto255 element."""


class InvalidScalar(MalformedData):
    """Bytes that are not the 32-byte little-endian encoding of an integer in [0, L)."""


class InvalidProof(CryptoError):
    """A zero-knowledge proof (Schnorr, DLEQ, shuffle) that does not verify.

    `index` names the offending item when a batch of proofs is checked at once (for blame).
    """

    def __init__(self, reason: str, index: int | None = None) -> None:
        super().__init__(reason if index is None else f"{reason} (item {index})")
        self.reason = reason
        self.index = index


class InvalidCommitment(CryptoError):
    """A revealed value (key, coin contribution) that does not match its earlier commitment."""


class UnknownCard(CryptoError):
    """A decrypted point that is not the encoding of any card of this deck."""
