"""The encrypted cards of a session: which ciphertext is behind each engine handle, and shares.

The engine names cards by handle; this store maps each live handle of the current round to its
ElGamal ciphertext (the output of the last shuffle that produced it), and records the decryption
shares each seat has published for it, so a card privately revealed to seat j later needs only
j's share to become public.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from .crypto import Ciphertext, Codebook, Point


class CardStore:
    def __init__(self, session_id: bytes) -> None:
        self._session_id = session_id
        self._codebooks: dict[tuple[str, int], Codebook] = {}
        self.ciphertexts: dict[int, Ciphertext] = {}
        self.deck_of: dict[int, str] = {}
        self.shares: dict[int, dict[int, Point]] = {}
        """Decryption shares published in the clear, by handle then seat (every peer holds the same)."""
        self.private: dict[int, dict[int, Point]] = {}
        """Decryption shares this peer received privately (encrypted to it), by handle then seat."""
        self.shuffling = False
        """A shuffle job is under way whose chain of proofs is not yet fully verified."""

    def codebook(self, deck: str, size: int) -> Codebook:
        """The card points M_k of `deck` (k < size): hash-to-group on (session id, deck name, k)."""
        key = (deck, size)
        book = self._codebooks.get(key)
        if book is None:
            game_id = hashlib.sha256(b"skyjo-lan/v1/deck" + self._session_id + deck.encode()).digest()
            book = Codebook(game_id, size)
            self._codebooks[key] = book
        return book

    def new_round(self) -> None:
        """A new deal: every handle of the previous round is gone."""
        self.ciphertexts.clear()
        self.deck_of.clear()
        self.shares.clear()
        self.private.clear()

    def place(self, deck: str, first: int, cards: Sequence[Ciphertext]) -> None:
        for offset, ciphertext in enumerate(cards):
            self.ciphertexts[first + offset] = ciphertext
            self.deck_of[first + offset] = deck

    def require_verified(self) -> None:
        """Raise unless every shuffle begun has been verified: no share may leave before that.

        A decryption share of a card of a deck whose shuffles are not all checked could help a
        cheating shuffler open a card it substituted; the shuffle job clears the flag only after
        its whole chain of proofs has passed.
        """
        if self.shuffling:
            raise AssertionError("a decryption share before every shuffle of the deck was verified")

    def published(self, handle: int) -> dict[int, Point]:
        return self.shares.setdefault(handle, {})
