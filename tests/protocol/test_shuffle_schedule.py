"""The deal's verification schedule: every shuffle of the deck is checked in one batch, fed as
the shuffles arrive, and no decryption share leaves a peer before the whole chain has passed.

A bad shuffle in any position of an 8-seat deal is blamed on its author alone (by every honest
peer and by the offline verifier), and no seat sends a single share.
"""

from __future__ import annotations

import pytest

from protocol.deck import CardStore
from tests.protocol.harness import honest_seats
from tests.protocol.test_adversarial_shuffle import assert_refused_before_the_deal, before_shuffle, cheat_from


@pytest.mark.parametrize(
    ("culprit", "cheat"),
    [(0, "duplicate"), (3, "replace"), (5, "reuse-proof"), (7, "foreign-card")],
)
def test_a_bad_shuffle_among_eight_is_blamed_on_its_author_before_any_share(culprit: int, cheat: str) -> None:
    # "replace" and "foreign-card" fail only in the batched sum (their challenges are right),
    # "reuse-proof" fails its challenge on arrival, "duplicate" the permutation's equations
    net = cheat_from(before_shuffle(8, culprit), culprit, cheat)
    assert_refused_before_the_deal(net, culprit, offline=culprit == 3)
    for seat in range(8):
        if seat != culprit:  # the cheater trusts its own shuffle: its shares are its business
            assert not net.has_sent(seat, "shares"), f"seat {seat} released a share"
    for seat in honest_seats(net, culprit):
        assert net.sessions[seat].cards.shuffling, "the deck was never verified"


def test_no_share_can_be_made_while_a_shuffle_is_unverified() -> None:
    cards = CardStore(b"session")
    cards.require_verified()
    cards.shuffling = True
    with pytest.raises(AssertionError, match="verified"):
        cards.require_verified()
