"""The decryption-share proofs in commitment form (protocol version 5), checked together.

Several seats' share batches are verified as one random linear combination (`crypto.
verify_share_batches`, Bellare-Garay-Rabin's small-exponent test): a live reveals job checks the
proofs of every seat's shares in one batch, `skyjo-lan verify` the proofs of the whole file. A
batch that fails is checked proof by proof, so the seat whose proof is bad is named exactly as a
check of each proof alone names it, live and offline.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import crypto
from protocol.crypto import dleq, group
from protocol.crypto.group import BASE, L, Point, add, mul_base, random_scalar
from protocol.session import Session
from protocol.transcript import dump
from protocol.vectors import __file__ as vectors_init
from protocol.verify import verify_bytes
from tests.protocol.harness import Net, assert_blamed, cheater
from tests.protocol.test_adversarial_reveal import shifted_share_fresh_proof

SEATS = 4


def _batches(ciphertexts: list[crypto.Ciphertext]) -> list[crypto.ShareCheck]:
    """Every seat's honest batch of shares of the same cards (the c1 shared by all)."""
    checks = []
    for seat in range(SEATS):
        x, pub = crypto.keygen()
        context = f"seat {seat}".encode()
        batch = crypto.make_share_batch(x, pub, ciphertexts, context)
        received = crypto.ShareBatch.from_wire(list(batch.to_wire()), len(ciphertexts))
        checks.append(crypto.ShareCheck(pub, ciphertexts, received, context))
    return checks


@pytest.fixture(params=[True, False], ids=["compiled", "pure-python"])
def extension(request: pytest.FixtureRequest) -> Iterator[bool]:
    """Each test twice: with the compiled multi-scalar multiplication and without it."""
    if request.param and not group.msm_available():
        pytest.skip("the compiled extension is not built here")
    was = group.use_extension(request.param)
    try:
        yield request.param
    finally:
        group.use_extension(was)


def test_honest_batches_of_every_seat_pass_in_one_sum(extension: bool) -> None:
    _, y = crypto.keygen()
    cards = [crypto.encrypt(mul_base(random_scalar()), y) for _ in range(3)]
    checks = _batches(cards)
    before = group.OPS.msm
    crypto.verify_share_batches(checks)
    if extension:
        assert group.OPS.msm - before == 1  # one multi-scalar multiplication for the 4 seats
    crypto.verify_share_batches(checks[:1])
    crypto.verify_share_batches([])


@pytest.mark.parametrize("bad", range(SEATS))
@pytest.mark.parametrize("how", ["response", "shifted-share", "context", "commitment"])
def test_a_bad_proof_in_a_batch_is_named(extension: bool, bad: int, how: str) -> None:
    _, y = crypto.keygen()
    cards = [crypto.encrypt(mul_base(random_scalar()), y) for _ in range(2)]
    checks = _batches(cards)
    check = checks[bad]
    proof = check.batch.proof
    if how == "response":
        wrong = dataclasses.replace(proof, response=(proof.response + 1) % L)
        check = dataclasses.replace(check, batch=dataclasses.replace(check.batch, proof=wrong))
    elif how == "shifted-share":
        shares = (add(check.batch.shares[0], BASE), *check.batch.shares[1:])
        check = dataclasses.replace(check, batch=dataclasses.replace(check.batch, shares=shares))
    elif how == "context":  # a proof is bound to its own context (session, seat, transcript)
        check = dataclasses.replace(check, context=checks[(bad + 1) % SEATS].context)
    else:
        wrong = dataclasses.replace(proof, commit_b=mul_base(random_scalar()))
        check = dataclasses.replace(check, batch=dataclasses.replace(check.batch, proof=wrong))
    checks[bad] = check
    with pytest.raises(crypto.InvalidProof) as raised:
        crypto.verify_share_batches(checks)
    assert raised.value.index == bad
    assert raised.value.reason == "batched DLEQ proof does not verify"


def test_two_proofs_that_cancel_out_do_not_pass() -> None:
    # Seat 0's response one too high and seat 1's one too low: a sum with fixed weights (1, 1)
    # would cancel the two errors; the verifier's random weights do not.
    _, y = crypto.keygen()
    cards = [crypto.encrypt(mul_base(random_scalar()), y)]
    checks = _batches(cards)
    x, pub = crypto.keygen()
    shared = crypto.make_share_batch(x, pub, cards, b"one")
    second = crypto.make_share_batch(x, pub, cards, b"one")
    up = dataclasses.replace(shared.proof, response=(shared.proof.response + 1) % L)
    down = dataclasses.replace(second.proof, response=(second.proof.response - 1) % L)
    checks[0] = crypto.ShareCheck(pub, cards, dataclasses.replace(shared, proof=up), b"one")
    checks[1] = crypto.ShareCheck(pub, cards, dataclasses.replace(second, proof=down), b"one")
    with pytest.raises(crypto.InvalidProof) as raised:
        crypto.verify_share_batches(checks)
    assert raised.value.index == 0


# --- a live table, and verify ------------------------------------------------------------------


def _record_batches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every batch of share proofs checked together from now on (by a live peer, or
    put in one of `verify`'s sums: `crypto.share_batch_terms`)."""
    sizes: list[int] = []
    original = crypto.verify_share_batches
    terms = crypto.share_batch_terms

    def recording(checks: list[crypto.ShareCheck], *args: Any) -> None:
        sizes.append(len(checks))
        original(checks, *args)

    def recording_terms(checks: list[crypto.ShareCheck]) -> tuple[list[int], list[Point]] | None:
        sizes.append(len(checks))
        return terms(checks)

    monkeypatch.setattr(crypto, "verify_share_batches", recording)
    monkeypatch.setattr(crypto, "share_batch_terms", recording_terms)
    return sizes


def test_the_seat_with_a_bad_proof_among_several_is_blamed_live_and_in_verify(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Four seats reveal the first discard card: each checks the three others' proofs in one
    # batch; seat 2's is bad (a share x*c1 + G with a proof made for it), seats 1 and 3 honest.
    culprit = 2

    def tamper(session: Session, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        return shifted_share_fresh_proof(session) if kind == "shares" else data

    sizes = _record_batches(monkeypatch)
    net = Net("skyjo", SEATS, {"target_score": 20}, session_factory=cheater(culprit, tamper))
    net.start()
    blamed = assert_blamed(net, culprit, "invalid decryption shares: batched DLEQ proof does not verify")
    assert 3 in sizes  # the bad proof was checked in a batch with the two honest ones
    for seat in (0, 1, 3):
        session = net.sessions[seat]
        assert session.state is not None and all(v is None for v in session.state.values)
    # offline: the whole file's proofs in one batch, which fails; checked again job by job, the
    # same seat is named for the same reason
    sizes.clear()
    verdict = verify_bytes(dump(net.config, net.sessions[0].frames))
    assert verdict.kind == "invalid" and verdict.blame == culprit
    assert verdict.fault == blamed[0].reason
    assert sizes[0] >= 3


def test_verify_checks_every_share_proof_of_a_valid_file_in_one_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pathlib import Path

    data = (Path(vectors_init).parent / "game-skyjo-2p.transcript").read_bytes()
    sizes = _record_batches(monkeypatch)
    verdict = verify_bytes(data)
    assert verdict.kind == "finished"
    # one batch: every `shares` frame that publishes shares, both seats, every job of the game
    assert len(sizes) == 1 and sizes[0] > 20


def test_a_batch_of_the_wrong_length_is_named_too() -> None:
    _, y = crypto.keygen()
    cards = [crypto.encrypt(mul_base(random_scalar()), y) for _ in range(2)]
    checks = _batches(cards)
    checks[1] = dataclasses.replace(checks[1], ciphertexts=cards[:1])
    with pytest.raises(crypto.InvalidProof) as raised:
        crypto.verify_share_batches(checks)
    assert raised.value.index == 1
    assert raised.value.reason == "share batch does not match the number of ciphertexts"


# --- the weighted sum's one-card path ------------------------------------------------------------

_POOL = [mul_base(k) for k in range(1, 9)]
"""Points to build checks from: few, so that keys, c1, shares and commitments meet (merged terms)."""


class _SeededWeights:
    """A seeded stand-in for `secrets` (as the tests of `dleq._weights` use)."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def randbelow(self, n: int, /) -> int:
        return self._rng.randrange(n)


_CHECK = st.tuples(
    st.integers(0, 7),  # key
    st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), min_size=1, max_size=3),  # (c1, share)
    st.integers(0, 7),  # A
    st.integers(0, 7),  # B
    st.integers(0, L - 1),  # response
    st.sampled_from([b"", b"ctx", bytes(64), "text"]),  # context (a str: the general path's error)
    st.booleans(),  # one share too many (a batch of the wrong length)
)


def _check(drawn: tuple[int, list[tuple[int, int]], int, int, int, Any, bool]) -> crypto.ShareCheck:
    key, cards, a, b, s, context, longer = drawn
    ciphertexts = [crypto.Ciphertext(_POOL[c1], _POOL[(c1 + 1) % 8]) for c1, _ in cards]
    shares = tuple(_POOL[d] for _, d in cards) + ((_POOL[0],) if longer else ())
    batch = crypto.ShareBatch(shares, crypto.BatchProof(_POOL[a], _POOL[b], s))
    return crypto.ShareCheck(_POOL[key], ciphertexts, batch, context)


def _reference_sum(checks: list[crypto.ShareCheck]) -> dict[Point, int] | None:
    """`_weighted_sum` as it was: `_add_weighted` of each check in turn, the weights drawn alike."""
    coefs: dict[Point, int] = {}
    weights = dleq._weights(2 * len(checks))
    try:
        for check in checks:
            dleq._add_weighted(coefs, check, next(weights), next(weights))
    except crypto.InvalidProof:
        return None
    return coefs


@settings(max_examples=200, deadline=None)
@given(st.lists(_CHECK, max_size=6), st.integers(0, 2**32))
def test_the_weighted_sum_is_the_one_of_each_check_in_turn(drawn: list[Any], seed: int) -> None:
    # the one-card path puts the hash inputs together itself: the same dict (keys in the same
    # order, the same integers) as `_add_weighted` of each check, and the same weights drawn
    checks = [_check(d) for d in drawn]
    outcomes = []
    for make in (dleq._weighted_sum, _reference_sum):
        stand_in = _SeededWeights(seed)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(dleq, "secrets", stand_in)
            try:
                got: object = make(checks)
            except TypeError as exc:
                got = ("TypeError", str(exc))
        outcomes.append(
            (None if not isinstance(got, dict) else list(got.items()), got, stand_in.randbelow(2**64))
        )
    assert outcomes[0] == outcomes[1]


def test_the_one_card_path_sums_to_the_identity_only_for_good_proofs() -> None:
    _, y = crypto.keygen()
    checks = _batches([crypto.encrypt(mul_base(random_scalar()), y)])
    assert group.lincomb_public_merged(dleq._weighted_sum(checks) or {}) == group.IDENTITY
    proof = checks[1].batch.proof
    wrong = dataclasses.replace(proof, response=(proof.response + 1) % L)
    checks[1] = dataclasses.replace(checks[1], batch=dataclasses.replace(checks[1].batch, proof=wrong))
    assert group.lincomb_public_merged(dleq._weighted_sum(checks) or {}) != group.IDENTITY


# --- a received batch, made without re-validating what was just decoded --------------------------


@pytest.mark.parametrize("cards", [1, 3])
def test_a_received_batch_is_the_batch_its_constructor_makes(extension: bool, cards: int) -> None:
    _, y = crypto.keygen()
    ciphertexts = [crypto.encrypt(mul_base(random_scalar()), y) for _ in range(cards)]
    x, pub = crypto.keygen()
    sent = crypto.make_share_batch(x, pub, ciphertexts, b"context")
    received = crypto.ShareBatch.from_wire(list(sent.to_wire()), cards)
    built = crypto.ShareBatch(
        tuple(sent.shares), crypto.BatchProof(*sent.to_wire()[1:3], sent.proof.response)
    )
    assert type(received) is crypto.ShareBatch and type(received.proof) is crypto.BatchProof
    assert type(received.shares) is tuple
    assert received == built == sent
    assert hash(received) == hash(built)
    assert (received.proof.commit_a, received.proof.commit_b) == (sent.proof.commit_a, sent.proof.commit_b)
    assert received.to_wire() == sent.to_wire()
    with pytest.raises(dataclasses.FrozenInstanceError):
        received.proof.response = 1  # type: ignore[misc]


def test_a_subclass_of_share_batch_is_still_made_by_its_constructor() -> None:
    made: list[object] = []

    @dataclasses.dataclass(frozen=True, slots=True)
    class Counted(crypto.ShareBatch):
        def __post_init__(self) -> None:
            made.append(self)

    x, pub = crypto.keygen()
    cards = [crypto.encrypt(mul_base(random_scalar()), pub)]
    sent = crypto.make_share_batch(x, pub, cards, b"context")
    received = Counted.from_wire(list(sent.to_wire()), 1)
    assert made == [received] and type(received) is Counted


@pytest.mark.parametrize(
    "response",
    [
        L.to_bytes(32, "little"),
        (2**256 - 1).to_bytes(32, "little"),
        bytes(31),
        bytes(33),
        bytearray(32),
        "",
        5,
    ],
)
def test_a_received_batch_refuses_a_bad_response_as_decode_scalar_does(response: object) -> None:
    x, pub = crypto.keygen()
    cards = [crypto.encrypt(mul_base(random_scalar()), pub)]
    wire = list(crypto.make_share_batch(x, pub, cards, b"context").to_wire())
    with pytest.raises(Exception) as expected:
        group.decode_scalar(response)
    with pytest.raises(type(expected.value)) as raised:
        crypto.ShareBatch.from_wire([*wire[:3], response], 1)
    assert str(raised.value) == str(expected.value)


def test_a_received_response_just_below_l_is_taken() -> None:
    x, pub = crypto.keygen()
    cards = [crypto.encrypt(mul_base(random_scalar()), pub)]
    wire = list(crypto.make_share_batch(x, pub, cards, b"context").to_wire())
    assert crypto.ShareBatch.from_wire([*wire[:3], (L - 1).to_bytes(32, "little")], 1).proof.response == L - 1
    assert crypto.ShareBatch.from_wire([*wire[:3], bytes(32)], 1).proof.response == 0
