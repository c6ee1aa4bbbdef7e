"""protocol.jobs: the steps of the game's order, one module per job.

The session runs one job at a time (see `protocol.session`); each consumes a known message from
known seats, in seat order, and sees only a `JobContext` (what it needs of the session), never
the Session itself. `job_for` picks the job the game's state asks for.
"""

from __future__ import annotations

from skyjo_p2p.core.events import DealRequest, RandomRequest, RevealRequest, ShuffleRequest
from skyjo_p2p.core.state import TableState
from skyjo_p2p.engine import deciders

from .base import Blocked, Job, JobContext, Unattributable, crypto_fault
from .coin import CoinJob
from .keys import KeysJob
from .move import MoveJob
from .reveals import RevealsJob
from .round_signature import RoundSignatureJob
from .shuffle import ShuffleJob

__all__ = [
    "Blocked",
    "CoinJob",
    "Job",
    "JobContext",
    "KeysJob",
    "MoveJob",
    "RevealsJob",
    "RoundSignatureJob",
    "ShuffleJob",
    "Unattributable",
    "crypto_fault",
    "job_for",
]


def job_for(state: TableState) -> Job | None:
    """The job the game's state asks for next: the first pending request's (reveal requests in a
    row make one batch), else the move of the lowest seat that may decide; None if nobody may."""
    if state.pending:
        first = state.pending[0]
        if isinstance(first, DealRequest | ShuffleRequest):
            return ShuffleJob(first)
        if isinstance(first, RandomRequest):
            return CoinJob(first)
        batch = []
        for request in state.pending:
            if not isinstance(request, RevealRequest):
                break
            batch.append(request)
        return RevealsJob(tuple(batch))
    seats = deciders(state)
    return MoveJob(min(seats)) if seats else None
