"""Test vectors of the skyjo-lan wire protocol: fixed keys and seeds -> exact bytes and hashes.

    python -m protocol.vectors.generate          # rewrite protocol/vectors/*.json
    python protocol/vectors/generate.py --check  # compare with the files, write nothing

Every vector is computed by the product code (`protocol.config`, `protocol.messages`,
`protocol.transcript`, `protocol.crypto`). Only the randomness is replaced, and only here and in
tests/protocol/test_vectors.py: the modules that draw secrets (`protocol.crypto.group`,
`protocol.crypto.shuffle`, `protocol.crypto.coins`) see, instead of the `secrets` module, a
`DeterministicSecrets` stream (SHA-512 in counter mode, one stream per vector file; see
`DeterministicSecrets` and protocol/PROTOCOL.md, "Test vectors"). Nothing else is patched, so
proofs, shares, signatures and frames are the bytes a peer would produce with those random values.

JSON conventions: byte strings are lowercase hex; scalars are their 32-byte little-endian wire
encoding in hex; in msgpack data trees and hash inputs a byte string is written {"bin": "<hex>"}
so that it cannot be confused with text. protocol/PROTOCOL.md explains every field.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from protocol.config import TableConfig
from protocol.crypto.coins import CoinContribution, combine_coins
from protocol.crypto.dleq import (
    BATCH_LABEL,
    DLEQ_LABEL,
    _batch_coefficients,
    _batch_statement,
    combine_shares,
    decryption_share,
    make_share,
    make_share_batch,
)
from protocol.crypto.elgamal import CARD_LABEL, Ciphertext, Codebook, joint_key, reencrypt
from protocol.crypto.group import (
    BASE,
    POINT_BYTES,
    L,
    Point,
    encode_scalar,
    from_uniform,
    lincomb,
    mul,
    mul_base,
    random_scalar,
)
from protocol.crypto.hashing import (
    CONTEXT_LABEL,
    FIAT_SHAMIR_LABEL,
    HASH_TO_POINT_LABEL,
    HashItem,
    encode,
    hash512,
    hash_to_point,
    hash_to_scalar,
    make_context,
)
from protocol.crypto.private_share import (
    _NONCE,
    COMPLAINT_LABEL,
    PRIVATE_LABEL,
    PrivateShares,
    _decode,
    _key,
    complaint_context,
    judge_complaint,
    make_complaint,
    packet_context,
    seal_shares,
)
from protocol.crypto.schnorr import KEY_COMMITMENT_LABEL, SCHNORR_LABEL, key_commitment, keygen, prove_key
from protocol.crypto.shuffle import (
    CHALLENGES_LABEL,
    GENERATORS_LABEL,
    SHUFFLE_LABEL,
    _chain_commitments,
    _get_challenges,
    chain_generator,
    gen_shuffle,
    gen_shuffle_proof,
    generators,
)
from protocol.errors import MalformedSignedFrame
from protocol.messages import Envelope, encode_body, open_frame, seal
from protocol.transcript import dump as transcript_dump
from protocol.transcript import extend, header, record, transcript_start
from skyjo_p2p.core.moves import Move

VECTOR_DIR = Path(__file__).resolve().parent
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
    """Stands in for the `secrets` module in the crypto modules while vectors are computed.

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
"""The modules that draw secrets (`protocol.crypto.shuffle` is shadowed by the function `shuffle`
in the package namespace, hence importlib)."""


@contextmanager
def patched(fake: object) -> Iterator[None]:
    """Replace `secrets` in the crypto modules by `fake` for the duration of the block."""
    saved = [module.secrets for module in _PATCHED]
    for module in _PATCHED:
        module.secrets = fake  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for module, original in zip(_PATCHED, saved, strict=True):
            module.secrets = original  # type: ignore[attr-defined]


@contextmanager
def deterministic(label: str) -> Iterator[DeterministicSecrets]:
    """One fixed stream in place of `secrets` for the duration of the block."""
    fake = DeterministicSecrets(label)
    with patched(fake):
        yield fake


class PerSeatSecrets:
    """Several sessions in one process: each draws from its own stream (`current` is switched
    by the driver before every call into a session), so a seat's draws depend on its own code
    path only."""

    def __init__(self, labels: Sequence[str]) -> None:
        self.streams = [DeterministicSecrets(label) for label in labels]
        self.current = self.streams[0]

    def randbelow(self, n: int) -> int:
        return self.current.randbelow(n)

    def token_bytes(self, k: int) -> bytes:
        return self.current.token_bytes(k)


# --- JSON helpers --------------------------------------------------------------------------------


def hx(data: bytes) -> str:
    return bytes(data).hex()


def sc(k: int) -> str:
    return encode_scalar(k % L).hex()


def tree(obj: Any) -> Any:
    """A msgpack value or hash input as JSON: bytes become {"bin": hex}."""
    if isinstance(obj, bytes | bytearray):
        return {"bin": bytes(obj).hex()}
    if isinstance(obj, dict):
        return {str(k): tree(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [tree(v) for v in obj]
    return obj


def untree(obj: Any) -> Any:
    """Inverse of `tree` (JSON lists become lists)."""
    if isinstance(obj, dict):
        if set(obj) == {"bin"}:
            return bytes.fromhex(obj["bin"])
        return {k: untree(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [untree(v) for v in obj]
    return obj


def deck_json(deck: Sequence[Ciphertext]) -> list[list[str]]:
    return [[hx(c.c1), hx(c.c2)] for c in deck]


def frame_json(envelope: Envelope, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "seat": envelope.seat,
        "seq": envelope.seq,
        "prev": hx(envelope.prev),
        "kind": envelope.kind,
        "data": tree(data),
        "body": hx(envelope.body),
        "body_digest": hx(envelope.digest),
        "signature": hx(envelope.frame[-64:]),
        "frame": hx(envelope.frame),
        "length_prefix": hx(len(envelope.frame).to_bytes(4, "big")),
    }


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


# --- the sections --------------------------------------------------------------------------------


class Builder:
    """Computes every vector file; later sections reuse earlier results (keys, joint key)."""

    def __init__(self) -> None:
        self.config = table_config()
        self.keys = identity_keys()
        self.secrets: list[int] = []
        self.publics: list[Point] = []
        self.key_frames: list[Envelope] = []
        self.key_proofs: list[list[bytes]] = []
        self.commitments: list[bytes] = []
        self.after_keys = b""
        self.y: Point = BASE
        self.batch_wire: list[Any] = []
        self.shuffle_out: list[Ciphertext] = []
        self.shuffle_proof_wire: list[Any] = []
        self.coin_commits: list[bytes] = []
        self.coin_reveals: list[CoinContribution] = []
        self.deck_ciphertexts: list[Ciphertext] = []
        self.complaint_data: dict[str, Any] = {}
        self.garbage_json: dict[str, Any] = {}

    def all(self) -> dict[str, dict[str, Any]]:
        return {
            "table.json": self.table(),
            "hashing.json": self.hashing(),
            "keys.json": self.keys_job(),
            "deck.json": self.deck(),
            "shuffle.json": self.shuffle(),
            "coins.json": self.coins(),
            "private_shares.json": self.private_shares(),
            "frames.json": self.frames(),
        }

    # table.json ------------------------------------------------------------------------------

    def table(self) -> dict[str, Any]:
        config = self.config
        return {
            "about": "The fixed table of every vector: identity keys, genesis, transcript start.",
            "identity_seeds": [hx(s) for s in IDENTITY_SEEDS],
            "identity_public_keys": [hx(k) for k in config.identities],
            "config": {
                "session_id": hx(config.session_id),
                "game": config.game,
                "players": config.players,
                "options": tree(dict(config.options)),
                "names": list(config.names),
                "version": config.version,
            },
            "genesis": hx(config.encode()),
            "genesis_hash": hx(config.genesis_hash),
            "transcript_start": hx(transcript_start(config)),
            "deck_game_ids": {DECK: hx(deck_game_id(DECK))},
        }

    # hashing.json ----------------------------------------------------------------------------

    def hashing(self) -> dict[str, Any]:
        examples: list[list[HashItem]] = [
            [b""],
            [b"\x01\x02"],
            [0],
            [255, 256],
            ["skyjo-lan/v1", "é"],
            [[b"\x01", 2, "c", []]],
            [[], [[]]],
        ]
        encodings = [{"items": tree(items), "encoding": hx(encode(*items))} for items in examples]
        th = transcript_start(self.config)
        context_items: list[HashItem] = [CONTEXT_LABEL, SESSION_ID, 1, th]
        game_id = deck_game_id(DECK)
        h2p_digest = hash512(HASH_TO_POINT_LABEL, CARD_LABEL, [game_id, 0], 0)
        scalar_items: list[HashItem] = ["skyjo-lan/v1/test-vectors", b"\xff" * 8]
        return {
            "about": "encode(), SHA-512, hash_to_scalar, make_context, hash_to_point, cards, generators.",
            "encode": encodings,
            "hash512": {"items": tree(scalar_items), "digest": hx(hash512(*scalar_items))},
            "hash_to_scalar": {"items": tree(scalar_items), "scalar": sc(hash_to_scalar(*scalar_items))},
            "make_context": {
                "session_id": hx(SESSION_ID),
                "seat": 1,
                "transcript_hash": hx(th),
                "hash_input": hx(encode(*context_items)),
                "context": hx(make_context(SESSION_ID, 1, th)),
            },
            "fiat_shamir_label": FIAT_SHAMIR_LABEL,
            "hash_to_point": {
                "label": CARD_LABEL,
                "parts": tree([game_id, 0]),
                "counter": 0,
                "digest": hx(h2p_digest),
                "from_uniform_first_half": hx(from_uniform(h2p_digest[:32])),
                "from_uniform_second_half": hx(from_uniform(h2p_digest[32:])),
                "point": hx(hash_to_point(CARD_LABEL, game_id, 0)),
            },
            "cards": {
                "deck": DECK,
                "session_id": hx(SESSION_ID),
                "game_id": hx(game_id),
                "points": {str(k): hx(hash_to_point(CARD_LABEL, game_id, k)) for k in (0, 1, 2, 3, 4, 149)},
            },
            "shuffle_generators": {
                "label": GENERATORS_LABEL,
                "h": hx(chain_generator()),
                "h_i": {str(i + 1): hx(p) for i, p in enumerate(generators(4))},
            },
            "base_point": hx(BASE),
        }

    # keys.json: the keys job of the 3 seats, as frames, and the transcript -------------------

    def keys_job(self) -> dict[str, Any]:
        config = self.config
        start = transcript_start(config)
        genesis = config.genesis_hash
        seats: list[dict[str, Any]] = []
        with deterministic("keys") as stream:
            for _ in range(PLAYERS):
                x, public = keygen()
                self.secrets.append(x)
                self.publics.append(public)
            th = start
            hashes = []
            commit_frames = []
            for seat in range(PLAYERS):
                context = make_context(SESSION_ID, seat, start)
                commit = key_commitment(self.publics[seat], context)
                self.commitments.append(commit)
                data: dict[str, Any] = {"commit": commit}
                envelope = seal(config, self.keys[seat], seat, 0, genesis, "keycommit", data)
                commit_frames.append((envelope, data, context))
                th = extend(th, envelope.digest)
                hashes.append(hx(th))
            reveal_hash = th
            key_frames = []
            for seat in range(PLAYERS):
                context = make_context(SESSION_ID, seat, reveal_hash)
                before = len(stream.scalars())
                proof = prove_key(self.secrets[seat], self.publics[seat], context)
                nonce = stream.scalars()[before]
                wire = [bytes(v) for v in proof.to_wire()]
                self.key_proofs.append(wire)
                data = {"key": bytes(self.publics[seat]), "proof": wire}
                envelope = seal(config, self.keys[seat], seat, 1, commit_frames[seat][0].digest, "key", data)
                key_frames.append((envelope, data, context, nonce, proof))
                th = extend(th, envelope.digest)
                hashes.append(hx(th))
        self.after_keys = th
        self.y = joint_key(self.publics)
        self.key_frames = [f[0] for f in commit_frames] + [f[0] for f in key_frames]
        for seat in range(PLAYERS):
            envelope, data, context = commit_frames[seat]
            k_envelope, k_data, k_context, nonce, proof = key_frames[seat]
            seats.append(
                {
                    "seat": seat,
                    "secret_x": sc(self.secrets[seat]),
                    "public_key_X": hx(self.publics[seat]),
                    "commitment_context": hx(context),
                    "commitment": hx(self.commitments[seat]),
                    "keycommit_frame": frame_json(envelope, data),
                    "proof_context": hx(k_context),
                    "schnorr_nonce_w": sc(nonce),
                    "schnorr_commitment_A": hx(mul_base(nonce)),
                    "schnorr_challenge_e": sc(proof.challenge),
                    "schnorr_response_s": sc(proof.response),
                    "key_frame": frame_json(k_envelope, k_data),
                }
            )
        frames = [e.frame for e in self.key_frames]
        return {
            "about": (
                "The keys job of the 3-seat table: keycommit frames (seq 0) then key frames (seq 1), "
                "consumed in seat order; the transcript hash after each; the transcript file."
            ),
            "stream": "keys",
            "key_commitment_label": KEY_COMMITMENT_LABEL,
            "schnorr_label": SCHNORR_LABEL,
            "transcript_start": hx(start),
            "seats": seats,
            "consumption_order": [[e.seat, e.seq, e.kind] for e in self.key_frames],
            "transcript_hashes": hashes,
            "reveal_hash": hx(reveal_hash),
            "transcript_after_keys": hx(th),
            "joint_key_Y": hx(self.y),
            "next_context_seat0_shuffle": hx(make_context(SESSION_ID, 0, th)),
            "transcript_file": {
                "header": hx(header(config)),
                "records": [hx(record(f)) for f in frames],
                "file": hx(header(config) + b"".join(record(f) for f in frames)),
            },
        }

    # deck.json: card ciphertexts, re-encryption, decryption shares ---------------------------

    def deck(self) -> dict[str, Any]:
        y = self.y
        game_id = deck_game_id(DECK)
        book = Codebook(game_id, SHUFFLE_CARDS)
        initial = book.initial_deck(y)
        with deterministic("deck") as stream:
            re_r = [random_scalar() for _ in range(3)]
            ciphertexts = [reencrypt(c, y, s) for c, s in zip(initial[:3], re_r, strict=True)]
            self.deck_ciphertexts = ciphertexts
            # one share with its own DLEQ proof (seat 0, card 0)
            single_context = make_context(SESSION_ID, 0, fixed_hash("single-share"))
            before = len(stream.scalars())
            single = make_share(self.secrets[0], self.publics[0], ciphertexts[0], single_context)
            single_nonce = stream.scalars()[before]
            # a batch of 3 shares by seat 1
            batch_context = make_context(SESSION_ID, 1, fixed_hash("share-batch"))
            before = len(stream.scalars())
            batch = make_share_batch(self.secrets[1], self.publics[1], ciphertexts, batch_context)
            batch_nonce = stream.scalars()[before]
        statement = _batch_statement(self.publics[1], ciphertexts, batch.shares)
        coefs = _batch_coefficients(statement, batch_context, len(ciphertexts))
        c_combined = lincomb((e_j, ct.c1) for e_j, ct in zip(coefs, ciphertexts, strict=True))
        d_combined = lincomb((e_j, d) for e_j, d in zip(coefs, batch.shares, strict=True))
        self.batch_wire = [list(batch.shares), *batch.to_wire()[1:]]
        shares_all = [decryption_share(x, ciphertexts[0]) for x in self.secrets]
        message = combine_shares(ciphertexts[0], shares_all)
        return {
            "about": (
                "The public starting deck (G, M_k + Y), re-encryption (c1 + sG, c2 + sY), "
                "a single DLEQ share, a batch of 3 shares with one proof, combining shares."
            ),
            "stream": "deck",
            "joint_key_Y": hx(y),
            "game_id": hx(game_id),
            "card_points": [hx(p) for p in book.points],
            "initial_deck": deck_json(initial),
            "reencryption": {
                "randomness_s": [sc(v) for v in re_r],
                "inputs": deck_json(initial[:3]),
                "outputs": deck_json(ciphertexts),
            },
            "single_share": {
                "label": DLEQ_LABEL,
                "seat": 0,
                "public_key_X": hx(self.publics[0]),
                "ciphertext": deck_json(ciphertexts[:1])[0],
                "context": hx(single_context),
                "context_transcript_hash": hx(fixed_hash("single-share")),
                "share_D": hx(single.share),
                "nonce_w": sc(single_nonce),
                "commitments": [hx(mul_base(single_nonce)), hx(mul(single_nonce, ciphertexts[0].c1))],
                "challenge_e": sc(single.proof.challenge),
                "response_s": sc(single.proof.response),
                "wire": [hx(v) for v in single.to_wire()],
            },
            "share_batch": {
                "label": BATCH_LABEL,
                "seat": 1,
                "public_key_X": hx(self.publics[1]),
                "ciphertexts": deck_json(ciphertexts),
                "context": hx(batch_context),
                "context_transcript_hash": hx(fixed_hash("share-batch")),
                "coefficients_e_j": [sc(e) for e in coefs],
                "combined_C": hx(c_combined),
                "combined_D": hx(d_combined),
                "nonce_w": sc(batch_nonce),
                "commitments": [hx(mul_base(batch_nonce)), hx(mul(batch_nonce, c_combined))],
                "challenge_e": sc(batch.proof.challenge),
                "response_s": sc(batch.proof.response),
                "wire": [[hx(d) for d in batch.shares], hx(self.batch_wire[1]), hx(self.batch_wire[2])],
            },
            "combine": {
                "ciphertext": deck_json(ciphertexts[:1])[0],
                "shares_by_seat": [hx(d) for d in shares_all],
                "plaintext_M": hx(message),
                "card_index": book.index_of(message),
            },
        }

    # shuffle.json: three 4-card shuffles in seat order, with proofs --------------------------

    def shuffle(self) -> dict[str, Any]:
        y = self.y
        book = Codebook(deck_game_id(DECK), SHUFFLE_CARDS)
        deck = book.initial_deck(y)
        decks = [deck]
        records = []
        n = SHUFFLE_CARDS
        with deterministic("shuffle") as stream:
            for seat in range(PLAYERS):
                transcript_hash = fixed_hash(f"shuffle-{seat}")
                context = make_context(SESSION_ID, seat, transcript_hash)
                before = len(stream.scalars())
                outputs, r_prime, psi = gen_shuffle(decks[-1], y)
                proof = gen_shuffle_proof(decks[-1], outputs, r_prime, psi, y, context)
                drawn = stream.scalars()[before:]
                # draw order: r'_1..r'_N, then in GenShuffleProof r_1..r_N (permutation commitments),
                # r^_1..r^_N (chain), w1, w2, w3, w4, w^_1..w^_N, w'_1..w'_N
                assert drawn[:n] == r_prime
                nonces = drawn[n:]
                u = _get_challenges(decks[-1], outputs, proof.commitments, y, context)
                t_hat = _chain_commitments(proof, chain_generator())
                wire = proof.to_wire()
                records.append(
                    {
                        "seat": seat,
                        "transcript_hash": hx(transcript_hash),
                        "context": hx(context),
                        "inputs": deck_json(decks[-1]),
                        "permutation_psi": psi,
                        "reencryption_r_prime": [sc(v) for v in r_prime],
                        "nonces": {
                            "r": [sc(v) for v in nonces[0:n]],
                            "r_hat": [sc(v) for v in nonces[n : 2 * n]],
                            "w1_w2_w3_w4": [sc(v) for v in nonces[2 * n : 2 * n + 4]],
                            "w_hat": [sc(v) for v in nonces[2 * n + 4 : 3 * n + 4]],
                            "w_prime": [sc(v) for v in nonces[3 * n + 4 : 4 * n + 4]],
                        },
                        "challenges_u": [sc(v) for v in u],
                        "chain_commitments_t_hat": [hx(p) for p in t_hat],
                        "outputs": deck_json(outputs),
                        "proof": {
                            "t": [hx(p) for p in (proof.t1, proof.t2, proof.t3, proof.t41, proof.t42)],
                            "challenge_e": sc(proof.challenge),
                            "s1_s2_s3_s4": [sc(v) for v in (proof.s1, proof.s2, proof.s3, proof.s4)],
                            "s_hat": [sc(v) for v in proof.s_hat],
                            "s_prime": [sc(v) for v in proof.s_prime],
                            "commitments_c": [hx(p) for p in proof.commitments],
                            "chain_c_hat": [hx(p) for p in proof.chain],
                        },
                        "proof_wire": tree(wire),
                    }
                )
                if seat == 1:
                    self.shuffle_out = outputs
                    self.shuffle_proof_wire = wire
                decks.append(outputs)
        final = decks[-1]
        order = [
            book.index_of(combine_shares(c, [decryption_share(x, c) for x in self.secrets])) for c in final
        ]
        return {
            "about": (
                "A 4-card deal: the public deck, then seats 0, 1, 2 each shuffle with a "
                "Terelius-Wikstrom proof; the final deck decrypts to the card order given."
            ),
            "stream": "shuffle",
            "labels": {
                "generators": GENERATORS_LABEL,
                "challenges": CHALLENGES_LABEL,
                "proof": SHUFFLE_LABEL,
            },
            "joint_key_Y": hx(y),
            "game_id": hx(book.game_id),
            "generators": {
                "h": hx(chain_generator()),
                "h_i": [hx(p) for p in generators(n)],
            },
            "shuffles": records,
            "final_card_order": order,
        }

    # coins.json ------------------------------------------------------------------------------

    def coins(self) -> dict[str, Any]:
        start_hash = fixed_hash("coin-job")
        label = "random:first-player:7"
        seats = []
        with deterministic("coins"):
            for seat in range(PLAYERS):
                contribution = CoinContribution.new()
                context = make_context(SESSION_ID, seat, start_hash)
                commit = contribution.commitment(label, context, seat)
                self.coin_commits.append(commit)
                self.coin_reveals.append(contribution)
                seats.append(
                    {
                        "seat": seat,
                        "context": hx(context),
                        "nonce": hx(contribution.nonce),
                        "value": hx(contribution.value),
                        "commitment": hx(commit),
                    }
                )
        values = {seat: c.value for seat, c in enumerate(self.coin_reveals)}
        results = [
            {"n": n, "index": index, "value": combine_coins(label, start_hash, values, n, index)}
            for n, index in ((3, 0), (2, 0), (150, 0), (3, 1))
        ]
        return {
            "about": (
                "A joint coin of job 7 (purpose first-player): commitments, reveals, and the "
                "combined value for several ranges n. The combination's context is the job's start "
                "transcript hash itself, not a make_context output."
            ),
            "stream": "coins",
            "label": label,
            "start_transcript_hash": hx(start_hash),
            "seats": seats,
            "results": results,
        }

    # private_shares.json: a keeper's shares encrypted to one recipient, and complaints -------

    def private_shares(self) -> dict[str, Any]:
        """Seat 0 (the keeper of two cards) sends its shares of them to seat 1 only (PROTOCOL.md,
        8.4 and 12.9); seat 2 has published its shares. Then the same packet with a wrong share
        inside (the share of another card), and seat 1's complaint about each packet."""
        config = self.config
        sender, to, other = 0, 1, 2
        cards = self.deck_ciphertexts[:2]
        wrong_card = self.deck_ciphertexts[2]
        start_hash = fixed_hash("private-shares")
        job = 12
        context = make_context(SESSION_ID, sender, start_hash)
        ctx = packet_context(context, sender, to)
        x_k, x_t = self.secrets[sender], self.secrets[to]
        with deterministic("private-shares") as stream:
            packet = seal_shares(x_k, self.publics[sender], to, self.publics[to], cards, context, sender)
            batch_w, ephemeral_e, schnorr_w = stream.scalars()[-3:]
            shares = [decryption_share(x_k, c) for c in cards]
            z = mul(ephemeral_e, self.publics[to])
            info_items: list[HashItem] = [PRIVATE_LABEL, "key", ctx, packet.ephemeral]
            key = _key(z, packet.ephemeral, ctx)
            plain = ChaCha20Poly1305(key).decrypt(_NONCE, packet.box, ctx)
            batch = _decode(plain, len(cards))
            # the cheat: the keeper's share of another card in place of its share of card 1
            bad_plain = (
                plain[:POINT_BYTES] + bytes(decryption_share(x_k, wrong_card)) + plain[2 * POINT_BYTES :]
            )
            bad_box = ChaCha20Poly1305(key).encrypt(_NONCE, bad_plain, ctx)
            bad_packet = PrivateShares(to, packet.ephemeral, packet.proof, bad_box)
            cases = []
            for name, sent, text in (
                ("honest", packet, plain),
                ("tampered", bad_packet, bad_plain),
            ):
                data: dict[str, Any] = {"job": job, "batch": [], "private": [_plain(sent.to_wire())]}
                envelope = seal(
                    config,
                    self.keys[sender],
                    sender,
                    9,
                    fixed_hash(f"private-shares/{name}/prev"),
                    "shares",
                    data,
                )
                complaint_items: list[HashItem] = [COMPLAINT_LABEL, SESSION_ID, to, envelope.digest]
                complaint_ctx = complaint_context(SESSION_ID, to, envelope.digest)
                opened, proof = make_complaint(x_t, self.publics[to], sent, complaint_ctx)
                nonce = stream.scalars()[-1]
                complaint = {"frame": envelope.frame, "key": bytes(opened), "proof": list(proof.to_wire())}
                c_envelope = seal(
                    config,
                    self.keys[to],
                    to,
                    9,
                    fixed_hash(f"private-shares/{name}/complaint-prev"),
                    "complaint",
                    complaint,
                )
                verdict = judge_complaint(
                    opened,
                    proof,
                    complaint_ctx,
                    self.publics[to],
                    sent,
                    self.publics[sender],
                    cards,
                    context,
                    sender,
                )
                if name == "tampered":
                    self.complaint_data = complaint
                cases.append(
                    {
                        "case": name,
                        "plaintext": hx(text),
                        "box": hx(sent.box),
                        "packet_wire": tree(sent.to_wire()),
                        "shares_frame": frame_json(envelope, data),
                        "complaint": {
                            "complainer": to,
                            "context_hash_input": hx(encode(*complaint_items)),
                            "context": hx(complaint_ctx),
                            "key_Z": hx(opened),
                            "nonce_w": sc(nonce),
                            "commitments": [hx(mul_base(nonce)), hx(mul(nonce, sent.ephemeral))],
                            "challenge_e": sc(proof.challenge),
                            "response_s": sc(proof.response),
                            "frame": frame_json(c_envelope, complaint),
                            "verdict": verdict,
                        },
                    }
                )
        book = Codebook(deck_game_id(DECK), SHUFFLE_CARDS)
        published = [decryption_share(self.secrets[other], c) for c in cards]
        own = [decryption_share(x_t, c) for c in cards]
        indices = [
            book.index_of(combine_shares(c, [d_k, d_o, d_t]))
            for c, d_k, d_o, d_t in zip(cards, batch.shares, published, own, strict=True)
        ]
        statement = _batch_statement(self.publics[sender], cards, shares)
        return {
            "about": (
                "Private re-reveal: keeper seat 0 sends its shares of two cards to seat 1 only "
                "(hashed ElGamal + HKDF-SHA256 + ChaCha20-Poly1305, Schnorr proof of E, batched "
                "Chaum-Pedersen proof inside); seat 1 opens it and reads the cards with seat 2's "
                "published shares and its own. Then a tampered box (a share of another card inside) "
                "and seat 1's complaint about each box: the honest box makes the complaint false "
                "(verdict complainer), the tampered one proves the sender cheated (verdict sender). "
                "The two shares frames are alternatives, not one chain."
            ),
            "stream": "private-shares",
            "labels": {"packet": PRIVATE_LABEL, "complaint": COMPLAINT_LABEL, "schnorr": SCHNORR_LABEL},
            "sender": sender,
            "recipient": to,
            "sender_public_key": hx(self.publics[sender]),
            "recipient_public_key": hx(self.publics[to]),
            "recipient_secret": sc(x_t),
            "job": job,
            "job_start_hash": hx(start_hash),
            "sender_context": hx(context),
            "packet_context_hash_input": hx(encode(PRIVATE_LABEL, context, sender, to)),
            "packet_context": hx(ctx),
            "ciphertexts": deck_json(cards),
            "shares_D": [hx(d) for d in shares],
            "batch": {
                "coefficients_e_j": [sc(e) for e in _batch_coefficients(statement, ctx, len(cards))],
                "nonce_w": sc(batch_w),
                "challenge_e": sc(batch.proof.challenge),
                "response_s": sc(batch.proof.response),
            },
            "ephemeral_e": sc(ephemeral_e),
            "ephemeral_E": hx(packet.ephemeral),
            "schnorr": {
                "nonce_w": sc(schnorr_w),
                "commitment_A": hx(mul_base(schnorr_w)),
                "challenge_e": sc(packet.proof.challenge),
                "response_s": sc(packet.proof.response),
            },
            "dh_Z": hx(z),
            "hkdf_sha256": {
                "ikm": hx(z),
                "salt": "",
                "info_hash_input": hx(encode(*info_items)),
                "info": hx(hash512(*info_items)),
                "length": 32,
                "key": hx(key),
            },
            "aead": {"algorithm": "ChaCha20-Poly1305", "nonce": hx(_NONCE), "aad": hx(ctx)},
            "recipient_view": {
                "published_shares_seat2": [hx(d) for d in published],
                "own_shares_seat1": [hx(d) for d in own],
                "card_indices": indices,
            },
            "cases": cases,
        }

    # frames.json: one frame of every kind -----------------------------------------------------

    def frames(self) -> dict[str, Any]:
        config = self.config
        seat = 1
        key = self.keys[seat]
        commit_frames = self.key_frames[:PLAYERS]
        contents: list[tuple[str, dict[str, Any]]] = [
            ("keycommit", {"commit": self.commitments[seat]}),
            ("key", {"key": bytes(self.publics[seat]), "proof": self.key_proofs[seat]}),
            (
                "shuffle",
                {
                    "job": 2,
                    "deck": [[bytes(c.c1), bytes(c.c2)] for c in self.shuffle_out],
                    "proof": _plain(self.shuffle_proof_wire),
                },
            ),
            ("shares", {"job": 3, "batch": _plain(self.batch_wire), "private": []}),
            ("coincommit", {"job": 4, "commit": self.coin_commits[seat]}),
            ("coin", {"job": 4, "reveal": [self.coin_reveals[seat].nonce, self.coin_reveals[seat].value]}),
            ("move", {"job": 5, "move": Move(seat=seat, kind="draw", source="deck").to_dict()}),
            ("move", {"job": 6, "move": Move(seat=seat, kind="reveal", slots=(0, 5)).to_dict()}),
            ("roundsig", {"job": 9, "round": 1, "hash": fixed_hash("round-1")}),
            (
                "echo",
                {"acks": [[0, 0, commit_frames[0].digest], [2, 0, commit_frames[2].digest]]},
            ),
            ("chat", {"text": "bonne partie é"}),
            ("evidence", {"frame": commit_frames[0].frame}),
            ("complaint", self.complaint_data),
            # seat 1 lacks seat 0's frames from #2 on (an echo showed they exist)
            ("want", {"seat": 0, "from": 2}),
            # a stop without proof: the deal's first shuffle (seat 0's) never came
            (
                "halt",
                {
                    "reason": "seat(s) 0 did not answer in time (job:2:shuffle:0)",
                    "culprit": [],
                    "absent": [0],
                    "evidence": [],
                },
            ),
            # a proven fault: seat 2 signed a malformed frame; the frame is the evidence
            self.culprit_halt(),
        ]
        prev = config.genesis_hash
        out = []
        for seq, (kind, data) in enumerate(contents):
            envelope = seal(config, key, seat, seq, prev, kind, data)
            out.append(frame_json(envelope, data))
            prev = envelope.digest
        return {
            "about": (
                f"One chain of frames by seat 1 (seq 0..{len(contents) - 1}) showing every message "
                "kind. The data are well-formed but not a playable sequence (keys.json has one that "
                "is). The last halt's evidence is `garbage`: seat 2's frame #2 (after its keys.json "
                "frames), signed but malformed (a chat with empty text), which proves the fault "
                "the halt names to any peer."
            ),
            "seat": seat,
            "frames": out,
            "garbage": self.garbage_json,
        }

    def culprit_halt(self) -> tuple[str, dict[str, Any]]:
        """A halt naming seat 2, with its signed garbage as the one evidence frame."""
        culprit = 2
        kind, data = "chat", {"text": ""}  # signed, but `text` must have 1..500 characters
        prev = self.key_frames[PLAYERS + culprit].digest  # seat 2's key frame, #1 in keys.json
        body = encode_body(self.config, culprit, 2, prev, kind, data)
        frame = bytes(msgpack.packb([body, self.keys[culprit].sign(body)], use_bin_type=True))
        try:
            open_frame(frame, self.config)
        except MalformedSignedFrame as exc:
            reason = f"seat {exc.seat}: {exc.reason}"  # what the session's halt says
        else:
            raise RuntimeError("the garbage vector opened as a valid frame")
        self.garbage_json = {
            "seat": culprit,
            "seq": 2,
            "prev": hx(prev),
            "kind": kind,
            "data": tree(data),
            "body": hx(body),
            "body_digest": hx(hashlib.sha256(body).digest()),
            "signature": hx(frame[-64:]),
            "frame": hx(frame),
            "refused_because": reason,
        }
        return "halt", {"reason": reason, "culprit": [culprit], "absent": [], "evidence": [frame]}


def _plain(obj: Any) -> Any:
    """Wire objects as msgpack will see them: tuples become lists."""
    if isinstance(obj, list | tuple):
        return [_plain(v) for v in obj]
    return obj


# --- game.json and game-skyjo-2p.transcript: a whole game --------------------------------------

GAME_FILE = "game-skyjo-2p.transcript"
GAME_SESSION_ID = hashlib.sha256(b"skyjo-lan/v1/test-vectors/game-session").digest()
GAME_OPTIONS: dict[str, Any] = {"target_score": 1}


def game_config() -> TableConfig:
    return TableConfig(
        session_id=GAME_SESSION_ID,
        game=GAME,
        players=2,
        identities=tuple(k.public_key().public_bytes_raw() for k in identity_keys()[:2]),
        options=dict(GAME_OPTIONS),
        names=NAMES[:2],
    )


def play_game() -> tuple[TableConfig, list[bytes], dict[str, Any]]:
    """A whole 2-seat SKYJO game (one round: target score 1) between two real sessions.

    Greedy bots (seeds "vector:0", "vector:1"); frames delivered in FIFO order, every frame to
    the other seat; each seat's randomness is the stream "game/seat<s>". Returns the table, the
    frames in the order seat 0 accepted them (its transcript file) and a summary.
    """
    from protocol.events import Blamed, Halted, MoveRefused, RoundSigned, YourMove
    from protocol.session import Session
    from skyjo_p2p.bots import make_bot

    config = game_config()
    keys = identity_keys()[:2]
    fake = PerSeatSecrets([f"game/seat{seat}" for seat in range(2)])
    rounds: list[str] = []
    with patched(fake):
        sessions = [Session(config, seat, keys[seat]) for seat in range(2)]
        bots = [make_bot("greedy", GAME, f"vector:{seat}") for seat in range(2)]
        queue: deque[tuple[int, bytes]] = deque()
        want = [False, False]

        def call(seat: int, fn: Callable[..., Any], *args: Any) -> Any:
            fake.current = fake.streams[seat]
            result = fn(*args)
            for frame in sessions[seat].data_to_send():
                queue.append((1 - seat, frame))
            for event in sessions[seat].next_events():
                if isinstance(event, YourMove | MoveRefused):
                    want[seat] = True
                elif isinstance(event, Blamed | Halted):
                    raise RuntimeError(f"the vector game stopped at seat {seat}: {event}")
                elif isinstance(event, RoundSigned) and seat == 0:
                    rounds.append(hx(event.transcript_hash))
            return result

        for seat in range(2):
            call(seat, sessions[seat].start)
        while True:
            while queue:
                receiver, frame = queue.popleft()
                call(receiver, sessions[receiver].receive_frame, frame)
            moved = False
            for seat in range(2):
                state = sessions[seat].state
                if want[seat] and state is not None and sessions[seat].legal_moves():
                    want[seat] = False
                    call(seat, sessions[seat].submit_move, bots[seat].choose(state, seat))
                    moved = True
            if not moved:
                break
    state = sessions[0].state
    if state is None or state.phase != "game_over":
        raise RuntimeError("the vector game did not finish")
    frames = list(sessions[0].frames)
    kinds: dict[str, int] = {}
    for frame in frames:
        kind = msgpack.unpackb(msgpack.unpackb(frame)[0])["kind"]
        kinds[kind] = kinds.get(kind, 0) + 1
    summary = {
        "frames": len(frames),
        "frames_by_kind": dict(sorted(kinds.items())),
        "transcript_hash_seat0": hx(sessions[0].transcript_hash),
        "transcript_hash_seat1": hx(sessions[1].transcript_hash),
        "round_signatures": rounds,
        "rounds": state.round,
        "totals": list(state.totals),
        "winners": list(state.winners),
    }
    return config, frames, summary


def build_game() -> tuple[dict[str, Any], bytes]:
    """game.json and the transcript file of the vector game."""
    config, frames, summary = play_game()
    data = transcript_dump(config, frames)
    content = {
        "about": (
            "A whole 2-seat SKYJO game (one round) played by two sessions with fixed identities, "
            "fixed random streams and greedy bots. Its transcript file is " + GAME_FILE + ": "
            "replayed into an observer it must give exactly this outcome."
        ),
        "streams": ["game/seat0", "game/seat1"],
        "genesis": hx(config.encode()),
        "genesis_hash": hx(config.genesis_hash),
        "file": GAME_FILE,
        "file_bytes": len(data),
        "file_sha256": hashlib.sha256(data).hexdigest(),
        **summary,
    }
    return content, data


# --- writing and checking ------------------------------------------------------------------------


def build_all() -> dict[str, dict[str, Any]]:
    """Every vector file's content, computed by the current code."""
    return Builder().all()


def dump(content: dict[str, Any]) -> str:
    return json.dumps(content, indent=1, ensure_ascii=False) + "\n"


def differences(expected: Any, actual: Any, path: str = "$") -> list[str]:
    """Paths where two JSON trees differ (for readable test failures)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = []
        for key in expected.keys() | actual.keys():
            if key not in actual:
                out.append(f"{path}.{key}: missing from the recomputed vector")
            elif key not in expected:
                out.append(f"{path}.{key}: not in the stored vector")
            else:
                out.extend(differences(expected[key], actual[key], f"{path}.{key}"))
        return out
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return [f"{path}: {len(expected)} items stored, {len(actual)} recomputed"]
        out = []
        for index, (a, b) in enumerate(zip(expected, actual, strict=True)):
            out.extend(differences(a, b, f"{path}[{index}]"))
        return out
    if expected != actual:
        if isinstance(expected, str) and isinstance(actual, str) and len(expected) > 100:
            at = next((i for i, (x, y) in enumerate(zip(expected, actual, strict=False)) if x != y), None)
            at = min(len(expected), len(actual)) if at is None else at
            lo = max(0, at - 16)
            return [
                f"{path}: {len(expected)} chars stored, {len(actual)} recomputed; first difference at "
                f"char {at}: stored ...{expected[lo : at + 24]}..., recomputed ...{actual[lo : at + 24]}..."
            ]
        return [f"{path}: stored {_short(expected)}, recomputed {_short(actual)}"]
    return []


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 100 else text[:97] + "..."


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored files, write nothing")
    parser.add_argument("--no-game", action="store_true", help="skip the whole-game vector (a few seconds)")
    args = parser.parse_args(argv)
    contents = build_all()
    game_data = b""
    if not args.no_game:
        contents["game.json"], game_data = build_game()
    status = 0
    for name, content in contents.items():
        path = VECTOR_DIR / name
        if args.check:
            stored = json.loads(path.read_text()) if path.exists() else None
            diff = differences(stored, json.loads(dump(content))) if stored is not None else ["missing"]
            if diff:
                status = 1
                print(f"{name}: {len(diff)} difference(s)")
                for line in diff[:20]:
                    print(f"  {line}")
            else:
                print(f"{name}: ok")
        else:
            path.write_text(dump(content))
            print(f"wrote {path.relative_to(VECTOR_DIR.parents[1])}")
    if game_data:
        path = VECTOR_DIR / GAME_FILE
        if args.check:
            same = path.exists() and path.read_bytes() == game_data
            status = status or (0 if same else 1)
            print(f"{GAME_FILE}: {'ok' if same else 'differs'}")
        else:
            path.write_bytes(game_data)
            print(f"wrote {path.relative_to(VECTOR_DIR.parents[1])} ({len(game_data)} bytes)")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
