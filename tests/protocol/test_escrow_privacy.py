"""Attack: a coalition of t - 1 holders of a seat's key escrow tries to learn something of the key.

Setting: a four-seat table; seat 0 deals its escrow to the three others (indices 2, 3, 4) with the
default threshold t = 3 (all the others), through the real calls (`deal_escrow`, `check_deal`,
`open_share`). Then a takeover happens and all three holders publish verified partials for two
cards (`make_partials`): the coalition sees x_i c1 of those cards too. The coalition is holders
0 and 1 (seats 1 and 2): it has the whole public deal (X_i, C_1, C_2, the three boxes with their
ephemerals and proofs), its members' key shares, its two opened shares, and the published
partials. It guesses the parity of x_i.

The statistical test (as in test_privacy_curious_peer.py). x_i is uniform in [1, L) with L odd, so
its parity is exactly one half each way; a strategy with no information is right with probability
1/2 in each deal, whatever it saw. Over D deals its number of right guesses X has mean D/2 and
variance D/4 under that hypothesis (H0), and Z = (X - D/2) / sqrt(D/4) is close to standard normal
(D = 1000). A strategy fails the test if Z > 4.0: one-sided level 3.2e-5, at most 1.9e-4 for the
six strategies together (Bonferroni), i.e. an accuracy more than about 0.063 above one half.
Accuracies and margins are printed (pytest -s).

The controls show the test has power: the same strategies win every time (a) when the coalition
has t members (interpolation at 0 through its t shares), (b) when the dealer's polynomial has
degree t - 2 (interpolating t - 1 points is then exact), and (c) when the dealer draws a small
coefficient (the commitment table finds it and the coalition solves for x_i). Case (b) cannot
even be sent: its last commitment is the identity, which `EscrowDeal.from_wire` refuses.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import pytest

from protocol.crypto.elgamal import Ciphertext, encrypt
from protocol.crypto.errors import InvalidPoint
from protocol.crypto.escrow import (
    EscrowDeal,
    EscrowTerms,
    check_deal,
    combine_partials,
    deal_escrow,
    deal_polynomial,
    lagrange_at_zero,
    make_partials,
    open_share,
    verify_partials,
)
from protocol.crypto.group import L, Point, mul_base, random_scalar
from protocol.crypto.hashing import hash_to_point, make_context
from protocol.crypto.schnorr import keygen

SESSION = b"\x6b" * 32
HOLDERS = 3
THRESHOLD = 3
COALITION = (0, 1)  # positions of the curious holders (seats 1 and 2)
CARDS = 2  # cards revealed after the takeover (all three holders publish partials)
DEALS = 1000
Z_CRITICAL = 4.0  # one-sided 3.2e-5 per strategy, family-wise 1.9e-4 for six
SMALL = 1 << 12  # the coalition's table of small multiples of G


@dataclass
class View:
    """What the coalition has after one deal and one takeover."""

    terms: EscrowTerms
    deal: EscrowDeal
    positions: tuple[int, ...]  # the coalition's holder positions
    shares: dict[int, int]  # position -> its opened share
    cards: list[Ciphertext]
    partials: list[list[Point]]  # every holder's published partials, in holder order
    truth: int  # the parity of x_i (for scoring only)

    def indices(self) -> list[int]:
        return [self.terms.holder_indices[p] for p in self.positions]


def one_deal(
    positions: Sequence[int] = COALITION, coefficients: Callable[[int], list[int]] | None = None
) -> View:
    """One escrow and one takeover with the real calls; `coefficients(x)` deals a chosen polynomial."""
    x, pub = keygen()
    keys = [keygen() for _ in range(HOLDERS)]
    terms = EscrowTerms(
        dealer=0,
        public_key=pub,
        holder_keys=tuple(k for _, k in keys),
        holder_indices=tuple(range(2, 2 + HOLDERS)),
        threshold=THRESHOLD,
        context=make_context(SESSION, 0, b"keys"),
    )
    deal = deal_escrow(x, terms) if coefficients is None else deal_polynomial(coefficients(x), terms)
    check_deal(deal, terms)
    shares = [open_share(deal, terms, p, secret) for p, (secret, _) in enumerate(keys)]
    y = mul_base(random_scalar())
    cts = [encrypt(hash_to_point("escrow-privacy-card", k), y) for k in range(CARDS)]
    takeover = make_context(SESSION, 1, b"takeover")
    partials = []
    for p, share in enumerate(shares):
        point = terms.share_point(deal, p)
        batch = make_partials(share, point, cts, takeover, 0, terms.holder_indices[p])
        partials.append(verify_partials(point, cts, batch, takeover, 0, terms.holder_indices[p]))
    return View(terms, deal, tuple(positions), {p: shares[p] for p in positions}, cts, partials, x & 1)


# --- strategies ------------------------------------------------------------------------------------


def constant(view: View) -> int:
    """No information at all: always "even"."""
    return 0


def interpolate(view: View) -> int:
    """Lagrange at 0 through the coalition's points (exact if the polynomial has degree < its size)."""
    lam = lagrange_at_zero(view.indices())
    guess = sum(lj * view.shares[p] for lj, p in zip(lam, view.positions, strict=True)) % L
    return guess & 1


def share_parities(view: View) -> int:
    """Parities of the shares and of their difference, combined (a linear-algebra guess)."""
    s = [view.shares[p] for p in view.positions]
    return (s[0] ^ s[-1] ^ ((s[0] - s[-1]) % L)) & 1


@cache
def small_multiples() -> dict[Point, int]:
    return {mul_base(k): k for k in range(1, SMALL)}


def _solve(view: View, known: int, value: int) -> int | None:
    """x_i from the coalition's two shares when coefficient a_known = value (t = 3): the other two
    unknowns of x + a_1 z + a_2 z^2 solve a 2x2 system; None if it is singular."""
    (i1, i2), (p1, p2) = view.indices(), view.positions
    rows = [[pow(i, k, L) for k in range(3)] for i in (i1, i2)]
    rhs = [(view.shares[p] - value * row[known]) % L for p, row in zip((p1, p2), rows, strict=True)]
    cols = [k for k in range(3) if k != known]
    a, b = rows[0][cols[0]], rows[0][cols[1]]
    c, d = rows[1][cols[0]], rows[1][cols[1]]
    det = (a * d - b * c) % L
    if det == 0:
        return None
    unknowns = [
        (d * rhs[0] - b * rhs[1]) * pow(det, -1, L) % L,
        (a * rhs[1] - c * rhs[0]) * pow(det, -1, L) % L,
    ]
    return unknowns[0] if cols[0] == 0 else unknowns[1]


def small_coefficient(view: View) -> int:
    """Look the commitments up in a table of small multiples of G; a hit gives a coefficient, the
    two shares then give x_i (checked against X_i). Otherwise interpolate."""
    table = small_multiples()
    for k, commitment in enumerate(view.deal.commitments, start=1):
        if commitment in table:
            x = _solve(view, k, table[commitment])
            if x is not None and mul_base(x) == view.terms.public_key:
                return x & 1
    return interpolate(view)


def public_bytes(view: View) -> int:
    """The parity of the public bytes: commitments, the other holder's box, the key X_i."""
    data = b"".join(view.deal.commitments) + view.deal.boxes[-1].sealed + view.terms.public_key
    return int.from_bytes(data, "little").bit_count() & 1


def takeover_partials(view: View) -> int:
    """Combine the published partials (x_i c1 of a revealed card) and read a bit of the point
    (bit 1: bit 0 of a canonical encoding is always 0)."""
    combined = combine_partials(view.terms.holder_indices, view.partials)
    return combined[0][0] >> 1 & 1


STRATEGIES: dict[str, Callable[[View], int]] = {
    "constant": constant,
    "interpolate": interpolate,
    "share-parities": share_parities,
    "small-coefficient": small_coefficient,
    "public-bytes": public_bytes,
    "takeover-partials": takeover_partials,
}


def score(views: list[View], strategy: Callable[[View], int]) -> tuple[int, float]:
    """(right guesses, Z under H0: right with probability 1/2 in each deal)."""
    right = sum(strategy(v) == v.truth for v in views)
    n = len(views)
    return right, (right - n / 2) / math.sqrt(n / 4)


@pytest.fixture(scope="module")
def views() -> list[View]:
    return [one_deal() for _ in range(DEALS)]


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_a_coalition_below_the_threshold_guesses_no_better_than_chance(views: list[View], name: str) -> None:
    right, z = score(views, STRATEGIES[name])
    margin = Z_CRITICAL * math.sqrt(len(views) / 4) / len(views)
    print(
        f"\n{name}: {right}/{len(views)} right ({right / len(views):.3f}), chance 0.500, Z = {z:+.2f} "
        f"(fails above {Z_CRITICAL}, i.e. above 0.5 + {margin:.3f})"
    )
    assert z <= Z_CRITICAL, f"{name} beats chance: {right} right out of {len(views)}"


# --- the controls: the same strategies win when the coalition has what it needs -------------------


def test_the_test_detects_a_full_coalition() -> None:
    full = [one_deal(positions=(0, 1, 2)) for _ in range(40)]
    right, z = score(full, interpolate)
    assert right == len(full) and z > Z_CRITICAL, (right, z)


def test_the_test_detects_a_dealer_of_too_low_degree() -> None:
    low = [one_deal(coefficients=lambda x: [x, random_scalar(), 0]) for _ in range(40)]
    right, z = score(low, interpolate)
    assert right == len(low) and z > Z_CRITICAL, (right, z)
    # such a deal cannot be sent: its top commitment is the identity
    with pytest.raises(InvalidPoint):
        EscrowDeal.from_wire(low[0].deal.to_wire(), THRESHOLD, HOLDERS)


@pytest.mark.parametrize("which", [1, 2])
def test_the_test_detects_a_small_coefficient(which: int) -> None:
    def weak(x: int) -> list[int]:
        a = [x, random_scalar(), random_scalar()]
        a[which] = 1 + random_scalar() % (SMALL - 1)
        return a

    leaky = [one_deal(coefficients=weak) for _ in range(40)]
    right, z = score(leaky, small_coefficient)
    assert right == len(leaky) and z > Z_CRITICAL, (right, z)
