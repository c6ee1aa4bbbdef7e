"""Hashing: unambiguous encoding, Fiat-Shamir challenges, hash-to-group.

Why one module: every proof of `protocol.crypto` derives its challenge through `challenge()`, so the
rules "hash a domain label, the whole statement, every commitment and the caller's context" and
"length-prefix every item" are written once (Bernhard, Pereira, Warinschi, "How not to prove
yourself: pitfalls of the Fiat-Shamir heuristic", ASIACRYPT 2012, Sections 3-4: a challenge that
omits part of the statement gives malleable or unsound proofs).

Encoding (`encode`): each item is a one-byte tag, an 8-byte big-endian length, then the payload:
  b"B" raw bytes | b"I" non-negative int, minimal big-endian | b"S" UTF-8 text |
  b"L" a list, whose length field is the item count and whose payload is the items' encodings.
No two different item trees have the same encoding, so the hash input is unambiguous.

All digests are SHA-512 (hashlib). A scalar is a 512-bit digest reduced mod L (bias < 2^-259).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
from collections.abc import Sequence
from typing import Final, TypeAlias

from protocol.crypto.group import IDENTITY, LITTLE, L, Point, from_hash

HashItem: TypeAlias = "bytes | int | str | Sequence[HashItem]"
"""What `encode` accepts: bytes, non-negative ints, text, and (nested) sequences of those."""

DOMAIN: Final[str] = "skyjo-lan/v1"
FIAT_SHAMIR_LABEL: Final[str] = f"{DOMAIN}/fiat-shamir"
HASH_TO_POINT_LABEL: Final[str] = f"{DOMAIN}/hash-to-point"
CONTEXT_LABEL: Final[str] = f"{DOMAIN}/proof-context"


_PREFIX_32: Final[bytes] = b"B" + (32).to_bytes(8, "big")
"""The prefix of a 32-byte string (a point, a digest): most items of a proof's statement."""

_ONLY_BYTES: Final[set[type]] = {bytes}
_ONLY_32: Final[set[int]] = {32}

_SMALL_INTS: Final[tuple[bytes, ...]] = tuple(
    b"I" + ((j.bit_length() + 7) // 8).to_bytes(8, "big") + j.to_bytes((j.bit_length() + 7) // 8, "big")
    for j in range(1024)
)
"""The encodings of the ints 0..1023 (seats, indices, counters: most ints hashed)."""
_TEXTS: dict[str, bytes] = {}
"""The encodings of the texts hashed so far (labels: a few dozen), up to `_MAX_TEXTS`."""
_MAX_TEXTS: Final[int] = 256


class Encoded(bytes):
    """The encoding of an item, made beforehand by `encoded`: `encode` puts these bytes in as they
    are, so hashing a statement that holds one gives the same digest as holding the item itself.
    For an item hashed several times (a shuffle's deck: in two challenges, of two proofs)."""

    __slots__ = ()


def encoded(item: HashItem) -> Encoded:
    """`encode(item)`'s bytes, to stand for `item` in the items of later hashes."""
    return Encoded(encode(item))


def _encode_into(item: HashItem, out: list[bytes]) -> None:
    # Every proof's challenge and every context goes through here, item by item: the exact types
    # come first (lists, then bytes: `encode` takes bytes itself), small ints and labels from
    # tables; the output is the same bytes as the general branches at the end give.
    if type(item) is list or type(item) is tuple:
        out.append(b"L" + len(item).to_bytes(8, "big"))
        if len(item) > 8 and set(map(type, item)) == _ONLY_BYTES and set(map(len, item)) == _ONLY_32:
            # The statements of shuffle proofs are lists of hundreds of points: prefix, point,
            # prefix, point... in one join (a tenth of a deal's Python time item by item)
            out.append(_PREFIX_32)
            out.append(_PREFIX_32.join(item))
            return
        for sub in item:
            if type(sub) is bytes:
                out.append(_PREFIX_32 if len(sub) == 32 else b"B" + len(sub).to_bytes(8, "big"))
                out.append(sub)
            else:
                _encode_into(sub, out)
        return
    if type(item) is bytes:
        size = len(item)
        out.append(_PREFIX_32 if size == 32 else b"B" + size.to_bytes(8, "big"))
        out.append(item)
        return
    if type(item) is int and 0 <= item < 1024:
        out.append(_SMALL_INTS[item])
        return
    if type(item) is str:
        encoded = _TEXTS.get(item)
        if encoded is None:
            raw = item.encode("utf-8")
            encoded = b"S" + len(raw).to_bytes(8, "big") + raw
            if len(_TEXTS) < _MAX_TEXTS:
                _TEXTS[item] = encoded
        out.append(encoded)
        return
    if type(item) is Encoded:
        out.append(item)
        return
    if isinstance(item, bytes):
        out.append(b"B" + len(item).to_bytes(8, "big"))
        out.append(item)
    elif isinstance(item, str):
        raw = item.encode("utf-8")
        out.append(b"S" + len(raw).to_bytes(8, "big"))
        out.append(raw)
    elif isinstance(item, int):
        if item < 0:
            raise ValueError("negative integers cannot be hashed")
        raw = item.to_bytes((item.bit_length() + 7) // 8, "big")
        out.append(b"I" + len(raw).to_bytes(8, "big"))
        out.append(raw)
    else:
        out.append(b"L" + len(item).to_bytes(8, "big"))
        for sub in item:
            _encode_into(sub, out)


def encode(*items: HashItem) -> bytes:
    """Unambiguous, length-prefixed encoding of a sequence of items (see the module docstring)."""
    # (the commonest items, a string of bytes, a small int, a label, without a call each)
    out: list[bytes] = []
    for item in items:
        if type(item) is bytes:
            out.append(_PREFIX_32 if len(item) == 32 else b"B" + len(item).to_bytes(8, "big"))
            out.append(item)
        elif type(item) is int and 0 <= item < 1024:
            out.append(_SMALL_INTS[item])
        elif type(item) is str and item in _TEXTS:
            out.append(_TEXTS[item])
        else:
            _encode_into(item, out)
    return b"".join(out)


def hash512(*items: HashItem) -> bytes:
    """SHA-512 of `encode(*items)`; the first item should be a domain label."""
    return hashlib.sha512(encode(*items)).digest()


def hash_to_scalar(*items: HashItem) -> int:
    """A scalar in [0, L) from SHA-512 of the encoded items (512 bits reduced mod L)."""
    return int.from_bytes(hash512(*items), "little") % L


def indexed_scalars(prefix: HashItem, count: int) -> list[int]:
    """[hash_to_scalar(prefix, j) for j in range(count)], with the prefix encoded once.

    The same scalars (the same SHA-512 inputs: the prefix's encoding, then the index's), for a
    fraction of the cost when `count` is large (a shuffle proof's N challenges u_j). A short
    prefix (the callers' 64-byte seeds) and an index fit in one SHA-512 block, so each input is
    hashed whole; a long one is hashed once and the hash object copied for each index.
    """
    head = encode(prefix)
    suffixes = _index_encodings(count)
    if len(head) > _ONE_BLOCK_HEAD:
        copy = hashlib.sha512(head).copy
        digests = []
        for suffix in suffixes:
            digest = copy()
            digest.update(suffix)
            digests.append(digest.digest())
    else:
        sha512 = hashlib.sha512
        digests = [sha512(head + suffix).digest() for suffix in suffixes]
    return list(map(L.__rmod__, map(int.from_bytes, digests, LITTLE)))


_ONE_BLOCK_HEAD: Final[int] = 96
"""A prefix's encoding up to this length and an index's (at most 17 bytes) fit in one block of
SHA-512 (128 bytes, of which 17 are padding and length)."""


@functools.lru_cache(maxsize=16)
def _index_encodings(count: int) -> tuple[bytes, ...]:
    """encode(j) for j in range(count) (the few deck sizes of a game are kept)."""
    return tuple(encode(j) for j in range(count))


def challenge(
    label: str,
    statement: Sequence[HashItem],
    commitments: Sequence[HashItem],
    context: bytes,
) -> int:
    """The Fiat-Shamir challenge of every proof in this package.

    `label` names the proof system (domain separation), `statement` is everything the proof is
    about (generators, public keys, ciphertexts...), `commitments` are the prover's first messages,
    and `context` is supplied by the caller (session id, seat, current transcript hash: see
    `make_context`), so a proof made for one seat, session or moment never verifies for another.
    """
    if not isinstance(context, bytes):
        raise TypeError("context must be bytes")
    return hash_to_scalar(FIAT_SHAMIR_LABEL, label, statement, commitments, context)


def make_context(session_id: bytes, seat: int, transcript_hash: bytes) -> bytes:
    """The standard `context` of a proof: who proves (seat), in which session, after what."""
    plain = type(session_id) is bytes and type(transcript_hash) is bytes
    if plain and type(seat) is int and len(transcript_hash) == 32:
        # (every share frame of a game asks for one) the bytes before the hash, kept by (session,
        # seat); the type tests keep out a key equal to one of them (a bool seat, a bytes subclass)
        head = _CONTEXT_HEADS.get((session_id, seat))
        if head is not None:
            return hashlib.sha512(head + transcript_hash).digest()
    if plain and type(seat) is int and 0 <= seat < len(_SMALL_INTS):
        # the same bytes as `encode`'s, the label and session's part encoded once per session
        # (every reveal of a game asks for a context per seat)
        head = _context_head(session_id) + _SMALL_INTS[seat]
        if len(transcript_hash) == 32:
            if len(_CONTEXT_HEADS) >= _CONTEXT_HEADS_KEPT:
                _CONTEXT_HEADS.clear()
            head = _CONTEXT_HEADS[session_id, seat] = head + _PREFIX_32
            return hashlib.sha512(head + transcript_hash).digest()
        return hashlib.sha512(head + encode(transcript_hash)).digest()
    return hash512(CONTEXT_LABEL, session_id, seat, transcript_hash)


_CONTEXT_HEADS: dict[tuple[bytes, int], bytes] = {}
"""`encode(CONTEXT_LABEL, session_id, seat)` and a 32-byte string's prefix, by (session, seat)
(all dropped when full: a process holds a few sessions)."""
_CONTEXT_HEADS_KEPT: Final[int] = 256


@functools.lru_cache(maxsize=16)
def _context_head(session_id: bytes) -> bytes:
    return encode(CONTEXT_LABEL, session_id)


def hash_to_point(label: str, *parts: HashItem) -> Point:
    """Hash to ristretto255, with no known discrete logarithm to any other point.

    SHA-512 of the domain-separated input gives 64 uniform bytes, mapped to the group by RFC 9496's
    one-way map (Section 4.3.4: Elligator on each 32-byte half, the two points added), which is
    libsodium's `crypto_core_ristretto255_from_hash` (`group.from_hash`). This is the
    `hash_to_ristretto255` of RFC 9380 (Appendix B) with SHA-512 of our unambiguous encoding as
    the expander: its output is close to uniform in the group. Every output is a valid element;
    in the (2^-250-unlikely) case of the identity, the counter is increased and we hash again, so
    the function is total and deterministic and never returns the identity.
    """
    for counter in itertools.count():
        point = from_hash(hash512(HASH_TO_POINT_LABEL, label, list(parts), counter))
        if point != IDENTITY:
            return point
    raise AssertionError("unreachable")  # pragma: no cover
