"""The coin job: a joint random number by commit-then-reveal (who starts, a tie-break)."""

from __future__ import annotations

from skyjo_p2p.core.events import RandomRequest, RandomResult

from .. import crypto
from ..crypto import CryptoError
from .base import Blocked, Job, JobContext, crypto_fault


class CoinJob(Job):
    """A joint random number in [0, n): every seat commits to 32 random bytes, then reveals."""

    def __init__(self, request: RandomRequest) -> None:
        self.request = request
        self.phase = "commit"
        self.next_seat = 0
        self.commits: dict[int, bytes] = {}
        self.values: dict[int, bytes] = {}
        self.mine: crypto.CoinContribution | None = None

    @property
    def label(self) -> str:
        return f"random:{self.request.purpose}:{self.number}"

    def run(self, ctx: JobContext) -> bool:
        me = ctx.acting
        if self.phase == "commit":
            if me is not None and self.mine is None:
                self.mine = ctx.coin_secret(self.number)
                if self.mine is None:
                    self.mine = crypto.CoinContribution.new(rng=ctx.rng)
                    ctx.keep_coin_secret(self.number, self.mine)  # kept for a resume until revealed
                if not ctx.has_queued(me):
                    commit = self.mine.commitment(self.label, ctx.context(me, self.start_hash), me)
                    ctx.emit("coincommit", {"job": self.number, "commit": commit})
            while self.next_seat < ctx.players:
                envelope = ctx.head(self.next_seat, "coincommit", self.number)
                if envelope is None and self.next_seat != me and ctx.stands_in(self.next_seat):
                    self.next_seat += 1  # a seat the table plays adds nothing to the coin
                    continue
                if envelope is None:
                    return False
                ctx.consume(envelope)
                self.commits[self.next_seat] = envelope.data["commit"]
                self.next_seat += 1
            self.phase, self.next_seat = "reveal", 0
            if me is not None and self.mine is not None and not ctx.has_queued(me):
                ctx.emit("coin", {"job": self.number, "reveal": list(self.mine.to_wire())})
        while self.next_seat < ctx.players:
            seat = self.next_seat
            if seat not in self.commits:  # the table plays it: it committed to nothing
                self.next_seat += 1
                continue
            envelope = ctx.head(seat, "coin", self.number)
            if envelope is None:
                return False
            try:
                reveal = crypto.CoinContribution.from_wire(envelope.data["reveal"])
                crypto.verify_coin_reveal(
                    self.commits[seat], self.label, ctx.context(seat, self.start_hash), seat, reveal
                )
            except CryptoError as exc:
                raise crypto_fault(seat, "coin reveal refused", exc, envelope.frame) from None
            ctx.consume(envelope)
            self.values[seat] = reveal.value
            self.next_seat += 1
        value = crypto.combine_coins(self.label, self.start_hash, self.values, self.request.n)
        ctx.forget_coin_secret(self.number)
        ctx.engine(RandomResult(self.request.purpose, self.request.n, value))
        return True

    def blocked(self, ctx: JobContext) -> Blocked:
        return Blocked(f"job:{self.number}:{self.phase}:{self.next_seat}", (self.next_seat,), True)
