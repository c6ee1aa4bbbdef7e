"""The round-signature job: every seat signs the transcript hash at the end of a round."""

from __future__ import annotations

from ..crypto.group import forget_decoded
from ..errors import Misbehaviour
from ..events import RoundSigned
from .base import Blocked, Job, JobContext


class RoundSignatureJob(Job):
    """Every seat signs the transcript hash at the end of a round; all must be equal."""

    def __init__(self, round_number: int) -> None:
        self.round = round_number
        self.next_seat = 0
        self.sent = False
        self.seqs: dict[int, int] = {}

    def run(self, ctx: JobContext) -> bool:
        me = ctx.acting
        if me is not None and not self.sent:
            self.sent = True
            if not ctx.has_queued(me):
                ctx.emit("roundsig", {"job": self.number, "round": self.round, "hash": self.start_hash})
        while self.next_seat < ctx.players:
            seat = self.next_seat
            envelope = ctx.head(seat, "roundsig", self.number)
            if envelope is None and seat != me and ctx.stands_in(seat):
                self.next_seat += 1  # the table plays it: nobody signs for it
                continue
            if envelope is None:
                return False
            if envelope.data["round"] != self.round or envelope.data["hash"] != self.start_hash:
                raise Misbehaviour(
                    seat, f"signed a different transcript at the end of round {self.round}", (envelope.frame,)
                )
            ctx.consume(envelope)
            self.seqs[seat] = envelope.seq
            self.next_seat += 1
        ctx.report(RoundSigned(self.round, self.start_hash))
        ctx.compact(self.seqs)
        forget_decoded()  # the round's points are used by no later sum: memory flat from round 1
        return True

    def blocked(self, ctx: JobContext) -> Blocked:
        return Blocked(f"job:{self.number}:roundsig:{self.next_seat}", (self.next_seat,), True)
