"""protocol.crypto: the sans-IO cryptographic primitives of skyjo-lan's mental-poker deck.

Pure functions and frozen dataclasses over the prime-order subgroup of edwards25519 (libsodium via
PyNaCl): no sockets, no trio, no message formats. The message layer moves proofs and shares with
their `to_wire()` / `from_wire()` forms (bytes and ints only); `from_wire` validates every field.
See docs/crypto.md for the constructions, references, validation rules and measured costs.
"""

from protocol.crypto.coins import (
    CoinContribution,
    coin_commitment,
    combine_coins,
    verify_coin_reveal,
)
from protocol.crypto.dleq import (
    DecryptionShare,
    DLEQProof,
    ShareBatch,
    combine_shares,
    decryption_share,
    make_share,
    make_share_batch,
    prove_dleq,
    reveal_card,
    verify_dleq,
    verify_share,
    verify_share_batch,
)
from protocol.crypto.elgamal import (
    Ciphertext,
    Codebook,
    card_point,
    deck_from_wire,
    deck_to_wire,
    encrypt,
    initial_deck,
    joint_key,
    reencrypt,
)
from protocol.crypto.errors import (
    CryptoError,
    InvalidCommitment,
    InvalidPoint,
    InvalidProof,
    InvalidScalar,
    MalformedData,
    UnknownCard,
)
from protocol.crypto.group import BASE, IDENTITY, L, Point, decode_point, decode_scalar
from protocol.crypto.hashing import challenge, hash_to_point, make_context
from protocol.crypto.private_share import (
    PrivateShares,
    check_packet,
    complaint_context,
    judge_complaint,
    make_complaint,
    open_shares,
    seal_shares,
)
from protocol.crypto.randomness import SYSTEM, RandomSource
from protocol.crypto.schnorr import (
    SchnorrProof,
    key_commitment,
    keygen,
    prove_key,
    verify_key,
    verify_key_commitment,
)
from protocol.crypto.shuffle import (
    ShuffleChainVerifier,
    ShuffleProof,
    check_shuffle_proof,
    shuffle,
    verify_shuffle,
    verify_shuffle_chain,
)

__all__ = [
    "BASE",
    "IDENTITY",
    "SYSTEM",
    "Ciphertext",
    "Codebook",
    "CoinContribution",
    "CryptoError",
    "DLEQProof",
    "DecryptionShare",
    "InvalidCommitment",
    "InvalidPoint",
    "InvalidProof",
    "InvalidScalar",
    "L",
    "MalformedData",
    "Point",
    "PrivateShares",
    "RandomSource",
    "SchnorrProof",
    "ShareBatch",
    "ShuffleChainVerifier",
    "ShuffleProof",
    "UnknownCard",
    "card_point",
    "challenge",
    "check_packet",
    "check_shuffle_proof",
    "coin_commitment",
    "combine_coins",
    "combine_shares",
    "complaint_context",
    "deck_from_wire",
    "deck_to_wire",
    "decode_point",
    "decode_scalar",
    "decryption_share",
    "encrypt",
    "hash_to_point",
    "initial_deck",
    "joint_key",
    "judge_complaint",
    "key_commitment",
    "keygen",
    "make_complaint",
    "make_context",
    "make_share",
    "make_share_batch",
    "open_shares",
    "prove_dleq",
    "prove_key",
    "reencrypt",
    "reveal_card",
    "seal_shares",
    "shuffle",
    "verify_coin_reveal",
    "verify_dleq",
    "verify_key",
    "verify_key_commitment",
    "verify_share",
    "verify_share_batch",
    "verify_shuffle",
    "verify_shuffle_chain",
]
