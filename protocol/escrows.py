"""Key escrow on insured tables (PROTOCOL.md 10.8): every seat's key share, split among the others.

At the keys step each seat of an insured table deals its ElGamal key share to every other
program, Shamir-shared with a threshold of all of them and proven publicly
(`crypto.escrow`). Every peer keeps each seat's box (`Escrows.keep`); a holder opens its own
share of it, and a box that does not open gets a public `complaint` that anyone can judge
(`complaints.Complaints.judge_escrow`). The shares are used only when the table decided to play
a vanished seat (`protocol.insurance`): its holders then publish partial decryptions.
"""

from __future__ import annotations

from typing import Any, Protocol

from . import crypto
from .config import TableConfig
from .crypto.randomness import RandomSource
from .errors import Misbehaviour
from .messages import Envelope


class EscrowContext(Protocol):
    """What the escrow bookkeeping needs of its session."""

    me: int | None
    config: TableConfig
    secret: int | None
    public_keys: list[crypto.Point]
    replaying: bool
    rng: RandomSource

    def emit(self, kind: str, data: dict[str, Any]) -> Envelope | None: ...

    def context(self, seat: int, transcript_hash: bytes) -> bytes: ...

    def escrow_kept(self, dealer: int, seq: int) -> None: ...


class Escrows:
    """Each seat's key escrow box, once consumed, and our shares of them."""

    def __init__(self, ctx: EscrowContext) -> None:
        self.ctx = ctx
        self.boxes: dict[int, tuple[crypto.EscrowDeal, crypto.EscrowTerms, Envelope]] = {}
        """dealer -> its escrow, checked publicly at the keys step."""
        self.shares: dict[int, int] = {}
        """dealer -> our share of its key (we are one of its holders; opened and checked)."""

    def holders(self, seat: int) -> tuple[int, ...]:
        """The seats holding shares of `seat`'s key."""
        return self.ctx.config.escrow_holders(seat)

    def point(self, dealer: int, holder: int) -> crypto.Point:
        """S_h = s_h G for holder `holder` of `dealer`'s escrow (public, from the commitments)."""
        deal, terms, _ = self.boxes[dealer]
        return terms.share_point(deal, self.holders(dealer).index(holder))

    def terms(self, dealer: int, transcript_hash: bytes) -> crypto.EscrowTerms:
        """What `dealer`'s escrow is about: its key share, its holders (one per other program,
        Shamir index seat + 1), the threshold (all of them) and the proof context."""
        ctx = self.ctx
        holders = self.holders(dealer)
        return crypto.EscrowTerms(
            dealer,
            ctx.public_keys[dealer],
            tuple(ctx.public_keys[h] for h in holders),
            tuple(h + 1 for h in holders),
            len(holders),
            ctx.context(dealer, transcript_hash),
        )

    def keep(self, envelope: Envelope, deal: crypto.EscrowDeal, terms: crypto.EscrowTerms) -> None:
        """A dealer's escrow, checked publicly: keep it; open our box if we hold one. A box that
        does not check gets a public complaint (anyone can judge it) and blames the dealer."""
        ctx = self.ctx
        dealer = envelope.seat
        self.boxes[dealer] = (deal, terms, envelope)
        ctx.escrow_kept(dealer, envelope.seq)
        holders = self.holders(dealer)
        if ctx.me is None or ctx.me not in holders or ctx.secret is None:
            return
        position = holders.index(ctx.me)
        try:
            self.shares[dealer] = crypto.open_share(deal, terms, position, ctx.secret)
        except crypto.EscrowShareInvalid as exc:
            shown: tuple[bytes, ...] = (envelope.frame,)
            if not ctx.replaying:
                complaint = crypto.make_escrow_complaint(deal, terms, position, ctx.secret, rng=ctx.rng)
                wire = complaint.to_wire()
                sent = ctx.emit("complaint", {"frame": envelope.frame, "key": wire[0], "proof": wire[1:]})
                shown = shown if sent is None else (envelope.frame, sent.frame)
            raise Misbehaviour(dealer, f"escrowed a key share that does not check: {exc}", shown) from None


__all__ = ["EscrowContext", "Escrows"]
