"""`verify`'s work on a saved game (issue 29): the share proofs and the shuffle chains' sums put off
and checked in a few large sums (`protocol.jobs.deferred`), every received point decoded once,
and the verdict exactly the one a check of each proof at once gives (a failed sum makes `verify`
check the file again, naming the seat of the first bad proof)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import crypto
from protocol import verify as verify_module
from protocol.crypto import group
from protocol.crypto.elgamal import Codebook, initial_deck
from protocol.crypto.errors import InvalidPoint
from protocol.crypto.hashing import CONTEXT_LABEL, hash512, make_context
from protocol.crypto.shuffle import _prove, gen_shuffle
from protocol.jobs import deferred
from protocol.session import Session
from protocol.transcript import dump
from protocol.vectors import __file__ as vectors_init
from protocol.verify import Verdict, verify_bytes
from tests.protocol import test_adversarial_reveal as reveal_cheats
from tests.protocol import test_adversarial_shuffle as shuffle_cheats
from tests.protocol.harness import Net, cheater

needs_extension = pytest.mark.skipif(not group.msm_available(), reason="the compiled extension is not built")

GAME = Path(vectors_init).parent / "game-skyjo-2p.transcript"


class _CheckingAtOnce:
    """Stands for the collector where nothing is put off (the jobs see no `deferred_checks`)."""

    def verify(self) -> bool:
        return True


@contextmanager
def _at_once() -> Iterator[_CheckingAtOnce]:
    yield _CheckingAtOnce()


def reference_verdict(data: bytes, monkeypatch: pytest.MonkeyPatch) -> Verdict:
    """The verdict with every proof checked as a live peer checks it (no sum put off)."""
    with monkeypatch.context() as patch:
        patch.setattr(verify_module, "deferred_checks", _at_once)
        return verify_bytes(data)


def collectors(monkeypatch: pytest.MonkeyPatch) -> list[deferred.DeferredChecks]:
    """The collectors `verify` uses from now on."""
    made: list[deferred.DeferredChecks] = []
    original = deferred.deferred_checks

    @contextmanager
    def recording() -> Iterator[deferred.DeferredChecks]:
        with original() as collector:
            made.append(collector)
            yield collector

    monkeypatch.setattr(verify_module, "deferred_checks", recording)
    return made


# --- a valid game -------------------------------------------------------------------------------


def test_a_valid_game_is_checked_in_one_sum_with_the_same_verdict(
    monkeypatch: pytest.MonkeyPatch, backend: bool
) -> None:
    data = GAME.read_bytes()
    expected = reference_verdict(data, monkeypatch).as_dict()
    made = collectors(monkeypatch)
    chain_checks: list[int] = []
    original_check = crypto.ShuffleChainVerifier.check

    def counting(self: crypto.ShuffleChainVerifier) -> None:
        chain_checks.append(1)
        original_check(self)

    monkeypatch.setattr(crypto.ShuffleChainVerifier, "check", counting)
    verdict = verify_bytes(data)
    assert verdict.kind == "finished"
    assert verdict.as_dict() == expected
    assert len(made) == 1 and made[0].holds
    if backend:
        # the deal's chain and every share proof of the file: one sum, no chain checked alone
        assert made[0].sums == 1 and not chain_checks
    else:  # nothing is gained by putting a shuffle off without the extension: checked at once
        assert chain_checks


@needs_extension
def test_a_long_file_is_summed_in_bounded_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    data = GAME.read_bytes()
    expected = reference_verdict(data, monkeypatch).as_dict()
    monkeypatch.setattr(deferred, "FLUSH_TERMS", 64)
    made = collectors(monkeypatch)
    verdict = verify_bytes(data)
    assert verdict.as_dict() == expected
    assert made[0].sums > 2 and made[0].holds
    assert not made[0].forms and not made[0].points and not made[0].shares  # nothing held after


# --- points decoded once --------------------------------------------------------------------------


@needs_extension
def test_share_proof_points_are_not_decoded_again_however_many_points_come_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A store far smaller than the file (a long game: the store keeps the last 8,192 points): the
    # share proofs put off to the end keep their decoded forms, so the sum decodes none of them
    # again (before, the sum at the end of a 4-seat game decoded about 1,260 points a second time).
    monkeypatch.setattr(group, "DECODED_KEPT", 64)
    group._decoded.clear()
    real: Any = group._msm
    received: set[bytes] = set()
    again: list[bytes] = []

    class Spy:
        DECODED_SIZE = real.DECODED_SIZE

        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        def lincomb_public_vartime(self, scalars: bytes, points: list[bytes]) -> bytes:
            again.extend(p for p in points if len(p) == group.POINT_BYTES and p in received)
            result: bytes = real.lincomb_public_vartime(scalars, points)
            return result

    original = crypto.ShareBatch.from_wire

    def recording(obj: object, expected_len: int | None = None) -> crypto.ShareBatch:
        batch = original(obj, expected_len)
        received.update((*batch.shares, batch.proof.commit_a, batch.proof.commit_b))
        return batch

    monkeypatch.setattr(group, "_msm", Spy())
    monkeypatch.setattr(crypto.ShareBatch, "from_wire", staticmethod(recording))
    verdict = verify_bytes(GAME.read_bytes())
    assert verdict.kind == "finished"
    assert len(received) > 200
    assert again == []


def test_the_public_deck_is_made_once_per_joint_key() -> None:
    book = Codebook(b"issue 29", 20)
    keys = [crypto.keygen()[1] for _ in range(2)]
    first = book.initial_deck(keys[0])
    assert first == initial_deck(book.points, keys[0])
    adds = group.OPS.add
    again = book.initial_deck(keys[0])
    assert again == first and again is not first  # a list of its own: the caller may change it
    assert group.OPS.add == adds  # nothing computed again
    other = book.initial_deck(keys[1])
    assert other == initial_deck(book.points, keys[1]) != first
    assert book.initial_deck(keys[0]) == first


@needs_extension
def test_the_store_of_decoded_points_keeps_the_newest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(group, "DECODED_KEPT", 16)
    group._decoded.clear()
    points = [group.mul_base(k) for k in range(1, 41)]
    for i in range(0, 40, 3):
        group.decode_points(points[i : i + 3])
    assert list(group._decoded) == points[-16:]
    assert group.kept_forms(points[:10]) == {}
    assert set(group.kept_forms(points)) == set(points[-16:])


@needs_extension
def test_a_point_refused_once_is_refused_again_with_the_same_error() -> None:
    bad = group.Point((2).to_bytes(32, "little"))  # even and canonical, no ristretto255 encoding
    with pytest.raises(InvalidPoint) as alone:
        group.decode_point(bad)
    good = group.mul_base(7)
    for _ in range(2):
        with pytest.raises(InvalidPoint) as batch:
            group.decode_points([good, bad])
        assert str(batch.value) == str(alone.value)
    assert group.kept_forms([good, bad]) == {}  # a refused call keeps nothing
    group.decode_points([good])
    forms = group.kept_forms([good, bad])
    assert set(forms) == {good}
    with pytest.raises(InvalidPoint) as summed:  # a sum put off refuses it as on receipt
        group.lincomb_public_terms([3, 5], [good, bad], forms=forms)
    assert str(summed.value) == str(alone.value)


# --- the verdict is the one checking each proof at once gives ------------------------------------------


def _shuffle_cheat_file(culprit_table: Net, cheat: str, saved_by: int) -> bytes:
    net = shuffle_cheats.cheat_from(culprit_table, 1, cheat)
    return dump(net.config, net.sessions[saved_by].frames)


def _reveal_cheat_file(table: Net, cheat: str, saved_by: int) -> bytes:
    make = reveal_cheats.CHEATS[cheat]

    def tamper(session: Session, kind: str, data: dict[str, Any]) -> dict[str, Any]:
        return make(session) if kind == "shares" else data

    net = table.clone()
    net.set_tamper(1, tamper)
    net.pump()
    return dump(net.config, net.sessions[saved_by].frames)


@pytest.fixture(scope="module")
def shuffle_table() -> Net:
    return shuffle_cheats.before_shuffle(3, 1)


@pytest.fixture(scope="module")
def reveal_table() -> Net:
    net = Net("skyjo", 2, {"target_score": 20}, session_factory=cheater(1))
    net.start(until=lambda: net.has_sent(0, "shuffle"))
    return net


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    what=st.sampled_from(
        [("shuffle", c) for c in sorted(shuffle_cheats.CHEATS)]
        + [("shares", c) for c in sorted(reveal_cheats.CHEATS)]
        + [("shuffle", None), ("shares", None)]
    ),
    saved_by=st.integers(0, 1),
)
def test_verdicts_are_those_of_checking_each_proof_at_once(
    shuffle_table: Net,
    reveal_table: Net,
    monkeypatch: pytest.MonkeyPatch,
    what: tuple[str, str | None],
    saved_by: int,
) -> None:
    kind, cheat = what
    if cheat is None:  # no cheat: the files of an honest table, cut where the cheats would be
        table = shuffle_table if kind == "shuffle" else reveal_table
        net = table.clone()
        net.pump()
        data = dump(net.config, net.sessions[saved_by].frames)
    elif kind == "shuffle":
        data = _shuffle_cheat_file(shuffle_table, cheat, saved_by)
    else:
        data = _reveal_cheat_file(reveal_table, cheat, saved_by)
    expected = reference_verdict(data, monkeypatch)
    with monkeypatch.context() as patch:
        made = collectors(patch)
        verdict = verify_bytes(data)
    assert verdict.as_dict() == expected.as_dict()
    if cheat is not None and saved_by == 0 and verdict.blame == 1 and made and not made[0].holds:
        assert verdict.kind == "invalid"  # the sum failed: the file was checked again, at once


@needs_extension
def test_a_bad_shuffle_put_off_is_found_by_the_sum_and_blamed(
    shuffle_table: Net, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "replace": a proof made for a deck that is not a permutation: its challenges are right, so
    # only the chain's sum can find it; put off, the sum fails and the file is checked again
    data = _shuffle_cheat_file(shuffle_table, "replace", 0)
    made = collectors(monkeypatch)
    verdict = verify_bytes(data)
    assert verdict.kind == "invalid" and verdict.blame == 1 and "shuffle" in (verdict.fault or "")
    assert len(made) == 1 and not made[0].holds


# --- the collector's schedule ----------------------------------------------------------------------


def test_collections_are_fewer_while_a_file_is_checked_and_as_before_after() -> None:
    before = gc.get_threshold()
    seen: list[tuple[int, int, int]] = []
    verify_module.verify_stream(
        open(GAME, "rb").read,  # noqa: SIM115 (closed when collected: a test)
        limit=None,
        progress=lambda done, total: seen.append(gc.get_threshold()),
    )
    assert seen and all(t[0] == verify_module.YOUNG_COLLECTION_THRESHOLD for t in seen)
    assert gc.get_threshold() == before


@settings(max_examples=200, deadline=None)
@given(
    session_id=st.binary(min_size=0, max_size=40),
    seat=st.integers(0, 2000),
    transcript_hash=st.binary(min_size=0, max_size=70),
)
def test_a_proof_context_is_the_hash_of_its_encoding(
    session_id: bytes, seat: int, transcript_hash: bytes
) -> None:
    # `make_context` puts the encoding together from a part kept per session: the same bytes
    assert make_context(session_id, seat, transcript_hash) == hash512(
        CONTEXT_LABEL, session_id, seat, transcript_hash
    )


def _chain(bad: bool) -> crypto.ShuffleChainVerifier:
    """A verifier fed one shuffle of a 6-card deck; `bad`: a card replaced by a copy of another,
    proven by the honest prover (its challenges are right: only the sum can see it)."""
    _, key = crypto.keygen()
    deck = [crypto.encrypt(group.mul_base(k + 1), key) for k in range(6)]
    out, r, psi = gen_shuffle(deck, key)
    if bad:
        out[2] = crypto.reencrypt(deck[psi[1]], key, r[2])
    proof = _prove(deck, out, r, psi, key, b"context")
    verifier = crypto.ShuffleChainVerifier(deck, key, batch_terms=None)
    verifier.add(out, proof, b"context")
    return verifier


@pytest.mark.parametrize("bad", [False, True])
def test_a_chain_put_off_holds_exactly_when_its_check_does(backend: bool, bad: bool) -> None:
    collector = deferred.DeferredChecks()
    if not collector.defer_shuffles(_chain(bad)):
        assert not backend  # without the extension the job checks it at once
        return
    assert collector.verify() is not bad
    assert collector.sums == 1


@needs_extension
def test_a_chain_put_off_is_summed_even_if_the_extension_goes_before_the_sum() -> None:
    collector = deferred.DeferredChecks()
    assert collector.defer_shuffles(_chain(True))
    was = group.use_extension(False)
    try:
        assert not collector.verify()
    finally:
        group.use_extension(was)
