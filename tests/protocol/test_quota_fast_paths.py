"""The shortcuts of `protocol.quotas` (issue 29: the frames' Python) decide exactly as the full
count does: `Quotas.check_job` skips the count when the job is within reach of `seq` alone, and
`Quotas.park` asks `check_job` and `may_queue` only when their first tests do not decide."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.chains import Chain
from protocol.errors import Misbehaviour
from protocol.messages import Envelope
from protocol.quotas import JOB_LEAD, MAX_QUEUED_BYTES, Quotas


def _full_count(envelope: Envelope, acked: Mapping[int, int]) -> bool:
    """Whether the job cannot exist yet, counted in full (the rule of `check_job`'s docstring)."""
    job = envelope.data.get("job")
    if not isinstance(job, int):
        return False
    signer = envelope.seat
    held = envelope.seq + sum(acked.values()) + len(acked)
    own = acked.get(signer)
    if own is not None:
        held -= own + 1
    for seat, seq, _ in envelope.acks:
        before = acked.get(seat, -1)
        if seq > before and seat != signer:
            held += seq - before
    return bool(job > 1 + 2 * held + JOB_LEAD)


def _move(seat: int, seq: int, job: object, acks: tuple[tuple[int, int, bytes], ...]) -> Envelope:
    return Envelope(seat, seq, bytes(32), "move", {"job": job, "move": {}}, b"", b"frame", acks)


_SEQS = st.integers(0, 300)
_SEATS = st.integers(0, 3)
_JOBS = st.one_of(st.integers(0, 2000), st.booleans(), st.none())
_ACKED = st.dictionaries(_SEATS, _SEQS, max_size=4)


@settings(max_examples=500, deadline=None)
@given(
    seat=_SEATS,
    seq=_SEQS,
    job=_JOBS,
    acked=_ACKED,
    acks=st.lists(st.tuples(st.integers(0, 3), _SEQS), max_size=3, unique_by=lambda a: a[0]),
)
def test_check_job_blames_exactly_as_the_full_count(
    seat: int, seq: int, job: object, acked: dict[int, int], acks: list[tuple[int, int]]
) -> None:
    envelope = _move(seat, seq, job, tuple((s, q, bytes(32)) for s, q in sorted(acks)))
    try:
        Quotas(4, None).check_job(envelope, acked)
        blamed = False
    except Misbehaviour as fault:
        assert fault.seat == seat and fault.evidence == (b"frame",)
        blamed = True
    assert blamed == _full_count(envelope, acked)


def test_check_job_still_blames_a_job_out_of_reach() -> None:
    quotas = Quotas(4, None)
    quotas.check_job(_move(1, 10, 1 + 2 * 10 + JOB_LEAD, ()), {})  # the last job within reach
    with pytest.raises(Misbehaviour, match="a job that cannot exist yet"):
        quotas.check_job(_move(1, 10, 2 + 2 * 10 + JOB_LEAD, ()), {})
    quotas.check_job(_move(1, 10, 2 + 2 * 10 + JOB_LEAD, ((0, 0, bytes(32)),)), {})  # one more held


def _general_park(
    quotas: Quotas, envelope: Envelope, chain: Chain, acked: Mapping[int, int], queue: list[Envelope]
) -> str | None:
    """`Quotas.park` without its shortcuts: `check_job`, then `may_queue`, for every game frame."""
    if envelope.seat == quotas.me or envelope.prev != chain.last_digest:
        return None
    quotas.check_job(envelope, acked)
    if quotas.may_queue(envelope, queue):
        return None
    chain.parked = envelope
    return f"seat {envelope.seat + 1}'s game messages fill its queue: its frame #{envelope.seq} waits"


@settings(max_examples=400, deadline=None)
@given(
    seat=_SEATS,
    seq=_SEQS,
    job=_JOBS,
    acked=_ACKED,
    size=st.integers(1, 64),
    counted=st.sampled_from([0, MAX_QUEUED_BYTES - 64, MAX_QUEUED_BYTES - 5, MAX_QUEUED_BYTES, 1 << 30]),
    queued=st.lists(st.integers(1, 3 << 20), max_size=3),
    me=st.sampled_from([None, 0]),
    linked=st.booleans(),
    near=st.one_of(st.none(), st.integers(-2, 3)),
)
def test_park_decides_as_check_job_then_may_queue(
    seat: int,
    seq: int,
    job: object,
    acked: dict[int, int],
    size: int,
    counted: int,
    queued: list[int],
    me: int | None,
    linked: bool,
    near: int | None,
) -> None:
    if near is not None:  # about the last job `seq` alone reaches
        job = 1 + 2 * seq + JOB_LEAD + near
    envelope = Envelope(seat, seq, bytes(32), "move", {"job": job, "move": {}}, b"", b"f" * size, ())
    queue = [Envelope(seat, q, bytes(32), "move", {}, b"", b"q" * n, ()) for q, n in enumerate(queued)]
    outcomes = []
    for park in (Quotas.park, _general_park):
        quotas = Quotas(4, me)
        quotas.queued_bytes[seat] = counted  # (a count that may be stale: `may_queue` recounts)
        chain = Chain(seq, bytes(32) if linked else bytes(31) + b"x")
        try:
            said: object = park(quotas, envelope, chain, acked, queue)
        except Misbehaviour as fault:
            said = (fault.seat, fault.reason, fault.evidence)
        outcomes.append((said, chain.parked is envelope, list(quotas.queued_bytes)))
    assert outcomes[0] == outcomes[1]
