"""The shortcuts of `protocol.quotas` (issue 29: the frames' Python) decide exactly as the full
count does: `Quotas.check_job` skips the count when the job is within reach of `seq` alone."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.errors import Misbehaviour
from protocol.messages import Envelope
from protocol.quotas import JOB_LEAD, Quotas


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


@settings(max_examples=500, deadline=None)
@given(
    seat=st.integers(0, 3),
    seq=_SEQS,
    job=st.one_of(st.integers(0, 2000), st.booleans(), st.none()),
    acked=st.dictionaries(st.integers(0, 3), _SEQS, max_size=4),
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
