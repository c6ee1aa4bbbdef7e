"""Attack: a curious peer. It follows the protocol but records everything it receives (the public
deck, the other seat's shuffled deck and shuffle proof, every decryption share published) and
everything it knows itself (its secret key, its own permutation and randomness), then guesses a
face-down card. It must do no better than chance.

The statistical test. Many independent deals of a small deck, each run with the same crypto
calls as the session (`Codebook.initial_deck`, `crypto.shuffle` per seat in seat order with the
seat's proof context, `make_share_batch` for the public reveals): two seats, the curious one
alternately first and second to shuffle. After both shuffles, positions 1..REVEALED are revealed
publicly (both seats publish shares); position 0 stays face down and is the card to guess.

If the protocol hides the card, then given the public reveals it is uniform over the cards not
revealed, whatever the curious peer saw: a guess g made in deal d is right with probability
p_d = (cards of value g left) / (cards left). Over D deals the number of right guesses X has mean
E = sum p_d and variance V = sum p_d (1 - p_d) under that hypothesis (H0), and
Z = (X - E) / sqrt(V) is approximately standard normal (D = 200, every p_d at most 3/4). Each
strategy fails the test if Z > 4.0: one-sided level 3.2e-5 per strategy, so at most 1.6e-4 for
the five strategies together (Bonferroni): the test fails wrongly about once in 6000 runs. With
D = 200 that means an accuracy more than about 0.12-0.14 above chance. Accuracies and margins
are printed (pytest -s).

The control shows the test has power: if the other seat "shuffles" without permuting (a valid
proof of the identity permutation: allowed by the proof, harmless only because the curious seat's
own shuffle is then the only one), the curious seat's own-permutation strategy is right every
time when it shuffled first, and the test fails as it should.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from protocol import crypto
from protocol.crypto.group import Point, mul_base, random_scalar, sub
from protocol.crypto.shuffle import gen_shuffle, gen_shuffle_proof, generators
from protocol.deck import CardStore
from tests.protocol.harness import Net

SESSION = b"\x5a" * 32
COMPOSITION = (0, 0, 0, 1, 1, 2)  # card index -> value (the most frequent: 1/2)
REVEALED = 2  # positions 1..2 are revealed publicly, position 0 is the hidden card
DEALS = 200
Z_CRITICAL = 4.0  # one-sided 3.2e-5 per strategy, family-wise 1.6e-4 for five


@dataclass
class View:
    """What the curious seat has after one deal."""

    me: int
    secret: int
    public: list[crypto.Ciphertext]  # the starting deck (card index k at position k)
    decks: list[list[crypto.Ciphertext]]  # after seat 0's shuffle, after seat 1's
    other_proof: crypto.ShuffleProof  # the other seat's shuffle proof
    my_psi: list[int]  # my shuffle: my output i is my input my_psi[i]
    revealed: dict[int, int]  # final position -> value, for the public reveals
    other_shares: dict[int, Point]  # final position -> the other seat's published share
    hidden: int  # the truth (for scoring only)


def deal(curious: int, other_identity: bool = False) -> View:
    """One deal, with the session's crypto calls; `curious` records what it sees."""
    store = CardStore(SESSION)
    book = store.codebook("deck", len(COMPOSITION))
    keys = [crypto.keygen(), crypto.keygen()]
    y = crypto.joint_key(pub for _, pub in keys)
    transcript = SESSION
    public = book.initial_deck(y)
    decks: list[list[crypto.Ciphertext]] = []
    other_proof: crypto.ShuffleProof | None = None
    my_psi: list[int] = []
    current = public
    for seat in (0, 1):
        context = crypto.make_context(SESSION, seat, transcript)
        if seat == curious:  # what `crypto.shuffle` does, keeping the permutation it draws (its own
            out, _, my_psi = gen_shuffle(current, y)  # proof, which tells it nothing, is not made)
        elif other_identity:  # the control: a valid proof of the identity permutation
            psi = list(range(len(current)))
            r = [random_scalar() for _ in psi]
            out = [crypto.reencrypt(current[j], y, rj) for j, rj in zip(psi, r, strict=True)]
            other_proof = gen_shuffle_proof(current, out, r, psi, y, context)
        else:
            out, other_proof = crypto.shuffle(current, y, context)
        decks.append(out)
        current = out
        transcript = crypto.hashing.hash512("next", transcript)
    final = decks[-1]
    assert other_proof is not None
    # public reveals of positions 1..REVEALED: every seat publishes its shares (one batch each)
    shown = final[1 : REVEALED + 1]
    context = crypto.make_context(SESSION, 1 - curious, transcript)
    x_other, pub_other = keys[1 - curious]
    batch = crypto.make_share_batch(x_other, pub_other, shown, context)
    crypto.verify_share_batch(pub_other, shown, batch, context)
    x_me = keys[curious][0]
    revealed: dict[int, int] = {}
    for offset, (ciphertext, share) in enumerate(zip(shown, batch.shares, strict=True)):
        index = crypto.reveal_card(ciphertext, [share, crypto.decryption_share(x_me, ciphertext)], book)
        revealed[offset + 1] = COMPOSITION[index]
    truth = book.index_of(
        crypto.combine_shares(final[0], [crypto.decryption_share(x, final[0]) for x, _ in keys])
    )
    return View(
        curious,
        x_me,
        public,
        decks,
        other_proof,
        my_psi,
        revealed,
        {p + 1: s for p, s in enumerate(batch.shares)},
        COMPOSITION[truth],
    )


def left(view: View) -> Counter[int]:
    """Values of the cards not publicly revealed."""
    remaining = Counter(COMPOSITION)
    remaining.subtract(view.revealed.values())
    return +remaining


def mode(view: View) -> int:
    """The best guess without any leak: the most frequent value left."""
    counts = left(view)
    return max(sorted(counts), key=lambda v: counts[v])


def own_permutation(view: View) -> int:
    """Assume the other seat kept the order, and follow the card through my own shuffle.

    First to shuffle: final position 0 is the other's output 0, i.e. (kept) my output 0, which
    is card my_psi[0]. Last: it is my output 0, my input my_psi[0], i.e. (kept) card my_psi[0].
    """
    return COMPOSITION[view.my_psi[0]]


def _source_of_hidden(view: View) -> tuple[int, Callable[[int], int]]:
    """Which output of the other seat's shuffle becomes the hidden card, and how an input of
    that shuffle maps to a card index as far as I know."""
    if view.me == 0:  # the other shuffled last: its output 0; its input i is my output i
        return 0, lambda i: view.my_psi[i]
    # the other shuffled first (from the public deck, input j = card j); my output 0 came from
    # my input my_psi[0], which is its output my_psi[0]
    return view.my_psi[0], lambda j: j


def nearest_ciphertext(view: View) -> int:
    """Link the hidden card to the other seat's input whose encoding is closest (Hamming)."""
    other = 1 - view.me
    output, card_of = _source_of_hidden(view)
    inputs = view.public if other == 0 else view.decks[0]
    target = view.decks[other][output]

    def distance(c: crypto.Ciphertext) -> int:
        a = int.from_bytes(c.c1 + c.c2, "little")
        b = int.from_bytes(target.c1 + target.c2, "little")
        return (a ^ b).bit_count()

    return COMPOSITION[card_of(min(range(len(inputs)), key=lambda j: distance(inputs[j])))]


def partial_decryption(view: View) -> int:
    """Strip my own share off the hidden card and read the leftover bits as a guess."""
    hidden = view.decks[-1][0]
    rest = sub(hidden.c2, crypto.decryption_share(view.secret, hidden))  # = M + x_other * c1
    values = sorted(set(COMPOSITION))
    return values[rest[0] % len(values)]


_SMALL = {mul_base(k): k for k in range(1, 256)}


def commitment_opening(view: View) -> int:
    """Open the other seat's permutation commitments, hoping its randomness is small.

    Column j commits to h_i for the output i that input j went to: c_j = r_j G + h_i. With a
    small r_j, c_j - h_i is in a table of small multiples of G and gives the link away.
    """
    output, card_of = _source_of_hidden(view)
    proof = view.other_proof
    h = generators(proof.n)[output]
    for j, commitment in enumerate(proof.commitments):
        if sub(commitment, h) in _SMALL:
            return COMPOSITION[card_of(j)]
    return mode(view)


STRATEGIES: dict[str, Callable[[View], int]] = {
    "mode": mode,
    "own-permutation": own_permutation,
    "nearest-ciphertext": nearest_ciphertext,
    "partial-decryption": partial_decryption,
    "commitment-opening": commitment_opening,
}


def score(views: list[View], strategy: Callable[[View], int]) -> tuple[int, float, float]:
    """(right guesses X, expected E under H0, Z)."""
    right, expected, variance = 0, 0.0, 0.0
    for view in views:
        guess = strategy(view)
        counts = left(view)
        p = counts[guess] / sum(counts.values())
        right += guess == view.hidden
        expected += p
        variance += p * (1 - p)
    return right, expected, (right - expected) / math.sqrt(variance)


@pytest.fixture(scope="module")
def views() -> list[View]:
    return [deal(curious=d % 2) for d in range(DEALS)]


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_curious_peer_guesses_hidden_cards_no_better_than_chance(views: list[View], name: str) -> None:
    right, expected, z = score(views, STRATEGIES[name])
    margin = Z_CRITICAL * (right - expected) / z / len(views) if z else float("nan")
    print(
        f"\n{name}: {right}/{len(views)} right ({right / len(views):.3f}), "
        f"chance {expected / len(views):.3f}, Z = {z:+.2f} "
        f"(fails above {Z_CRITICAL}, i.e. above chance + {margin:.3f})"
    )
    assert z <= Z_CRITICAL, f"{name} beats chance: {right} right where {expected:.1f} were expected"


def test_the_test_detects_a_leak() -> None:
    # the other seat does not permute: following my own shuffle finds the card when I shuffled
    # first (when I shuffle last, my shuffle hides the order from me as well: chance again)
    leaky = [deal(curious=0, other_identity=True) for _ in range(40)]
    right, expected, z = score(leaky, own_permutation)
    assert right == len(leaky) and z > Z_CRITICAL, (right, expected, z)


# --- the session does not hand out plaintexts ----------------------------------------------------


def test_no_share_of_a_face_down_card_is_ever_published() -> None:
    # through a real SKYJO deal, setup and first turns between two sessions: a peer's state
    # holds only the values it may know, and decryption shares were published only for cards
    # revealed to someone (never for a face-down card)
    net = Net("skyjo", 2, {"target_score": 20})
    net.start(until=lambda: net.moves >= 6)
    net.pump(play=False)
    for seat, session in enumerate(net.sessions):
        state = session.state
        assert state is not None and state.phase == "turn"
        for handle, value in enumerate(state.values):
            if value is not None:
                assert state.knows(seat, handle), f"seat {seat} knows card {handle}"
        published = {h for h, shares in session.cards.shares.items() if shares}
        assert published and all(state.seen[h] for h in published)
        assert any(not state.seen[h] for h in range(len(state.seen))), "some cards stay face down"
