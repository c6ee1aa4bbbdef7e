"""Checks an offline verification puts off (`deferred_checks`): `skyjo-lan verify` and `replay`.

Within `deferred_checks()`, the reveals jobs hand the share proofs they consume to the collector
instead of checking them, and the shuffle jobs hand over their chain's sum (the terms of
`crypto.ShuffleChainVerifier.check`, `take_terms`) once every shuffle of the deck is in. The
collector checks them all as few multi-scalar multiplications: one per `FLUSH_TERMS` terms or so,
and one at the end (`DeferredChecks.verify`).

Each batch is a random linear combination of its equations with weights its verifier drew after
the proofs were fixed (Bellare, Garay, Rabin, "Fast batch verification for modular
exponentiation and digital signatures", EUROCRYPT 1998, the small exponents test: see
`crypto.verify_share_batches` and `crypto.ShuffleChainVerifier`). Added up, the batches are one
such combination of all their equations, whose weights are still independent: if one equation
is false, the sum is the identity with probability at most 2^-128 over its weight. The sums are
variable time, which is safe: every scalar is public (challenges, responses, the verifier's
weights, which protect only the verifier and are never reused).

A sum that holds means every proof put off holds, so the check that took them on trust reached
exactly the verdict of a check that verified each at once. One that fails names nobody: `verify`
then checks the file again outside this block, every proof checked as a live peer checks it,
which names the seat of the first bad proof. Never for a live peer.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Final

from .. import crypto
from ..crypto import CryptoError
from ..crypto.group import IDENTITY, Point, kept_forms, lincomb_public_terms, msm_available

FLUSH_TERMS: Final[int] = 16_384
"""Terms put off before they are summed (with the extension): the sums of a long file in a few
large multi-scalar multiplications (Pippenger's method costs less per term the more terms), and
the memory they hold bounded (each term's decoded form is kept: about 200 bytes)."""


@dataclass
class DeferredChecks:
    """The proofs an offline check puts off (`deferred_checks`)."""

    shares: list[crypto.ShareCheck] = field(default_factory=list)
    """Share proofs put off, not yet in a sum."""
    scalars: list[int] = field(default_factory=list)
    points: list[Point] = field(default_factory=list)
    """Terms of the shuffle chains put off (`ShuffleChainVerifier.take_terms`), not yet summed."""
    forms: dict[Point, bytes] = field(default_factory=dict)
    """The decoded forms of the points put off, taken when each was put off: the sum would
    otherwise decode again those that the bounded store (`group.decode_points`) no longer holds."""
    holds: bool = True
    """False once a sum failed."""
    sums: int = 0
    """Sums made so far (`_flush`)."""

    def defer_shares(self, checks: list[crypto.ShareCheck]) -> None:
        """Put off `checks` (their points just decoded: their forms are kept with them)."""
        self.shares.extend(checks)
        self.forms.update(crypto.share_check_forms(checks))
        self._flush_if_full()

    def defer_shuffles(self, verifier: crypto.ShuffleChainVerifier) -> bool:
        """Put off the sum of every shuffle `verifier` holds (True), or do nothing (False: check
        at once) without the compiled extension, where a sum costs the same in any batch."""
        if not msm_available():
            return False
        scalars, points = verifier.take_terms()
        self.scalars += scalars
        self.points += points
        self.forms.update(kept_forms(points))
        self._flush_if_full()
        return True

    def verify(self) -> bool:
        """Whether every proof put off holds."""
        self._flush()
        return self.holds

    def _flush_if_full(self) -> None:
        # (each share proof adds about three terms of its own; its ciphertexts' c1 are shared)
        if msm_available() and len(self.points) + 3 * len(self.shares) >= FLUSH_TERMS:
            self._flush()

    def _flush(self) -> None:
        """Sum everything put off (one multi-scalar multiplication), and hold nothing after."""
        shares, scalars, points, forms = self.shares, self.scalars, self.points, self.forms
        self.shares, self.scalars, self.points, self.forms = [], [], [], {}
        if not (shares or points) or not self.holds:
            return
        self.sums += 1
        if not points and not msm_available():  # each share proof alone: a sum gains nothing
            try:
                crypto.verify_share_batches(shares, forms)
            except CryptoError:
                self.holds = False
            return
        terms = crypto.share_batch_terms(shares) if shares else ([], [])
        if terms is None:
            self.holds = False
            return
        scalars += terms[0]
        points += terms[1]
        try:
            self.holds = lincomb_public_terms(scalars, points, reduced=True, forms=forms) == IDENTITY
        except CryptoError:
            self.holds = False


_DEFERRED: ContextVar[DeferredChecks | None] = ContextVar("skyjo_lan_deferred_checks", default=None)


def deferring() -> DeferredChecks | None:
    """The collector of the `deferred_checks` block we are in (None outside one)."""
    return _DEFERRED.get()


@contextmanager
def deferred_checks() -> Iterator[DeferredChecks]:
    """Within this block, reveals jobs do not check the share proofs they consume and shuffle
    jobs do not sum their chain's equations: they add them to the collector yielded, checked in
    a few sums (`DeferredChecks.verify`, the module docstring).

    For `skyjo-lan verify` only, which holds the whole file: if a sum fails, it checks the file
    again without this block, so that the seat of the first bad proof is named as a live peer
    names it. Never for a live peer."""
    collector = DeferredChecks()
    token = _DEFERRED.set(collector)
    try:
        yield collector
    finally:
        _DEFERRED.reset(token)
