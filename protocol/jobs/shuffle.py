"""The shuffle job: a fresh deck (deal) or a pile (reshuffle), shuffled by every seat in turn."""

from __future__ import annotations

from skyjo_p2p.core.events import DealRequest, Dealt, Shuffled, ShuffleRequest

from .. import crypto
from ..crypto import CryptoError, InvalidProof
from ..errors import Misbehaviour
from .base import Blocked, Job, JobContext, crypto_fault


class ShuffleJob(Job):
    """A fresh deck (deal) or a pile (reshuffle): each seat in turn shuffles with a proof.

    A seat checks each earlier shuffle as soon as it arrives, while it waits for its turn, so only
    the latest is left to check before it shuffles (what waits on it is one check, not all of
    them); the shuffles after its own it checks in one batch once the last is in (nobody waits on
    those, and a batch costs less). Nothing is decrypted before every shuffle has been checked.
    If a later seat times out, the shuffles received so far are checked first (that seat may have
    stopped because one of them was bad).
    """

    def __init__(self, request: DealRequest | ShuffleRequest) -> None:
        self.request = request
        self.decks: list[list[crypto.Ciphertext]] = []
        self.proofs: list[crypto.ShuffleProof] = []
        self.contexts: list[bytes] = []
        self.frames: list[bytes] = []
        self.verified = 0
        self.next_seat = 0

    def begin(self, ctx: JobContext, number: int) -> None:
        super().begin(ctx, number)
        request = self.request
        assert ctx.state is not None and ctx.joint_key is not None
        if isinstance(request, DealRequest):
            if request.first == 0:
                ctx.cards.new_round()
            composition = ctx.composition(request.deck)
            if len(composition) != request.size:
                raise AssertionError("deal size differs from the deck's composition")
            book = ctx.cards.codebook(request.deck, request.size)
            self.decks.append(book.initial_deck(ctx.joint_key))
        else:
            self.decks.append([ctx.cards.ciphertexts[h] for h in request.handles])

    def _verify(self, ctx: JobContext, upto: int) -> None:
        """Check proofs [verified, upto) in one batch; blame the first bad one."""
        if upto <= self.verified:
            return
        start = self.verified
        first_mine = ctx.me if ctx.me is not None and start <= ctx.me < upto else None
        segments = [(start, upto)] if first_mine is None else [(start, first_mine), (first_mine + 1, upto)]
        assert ctx.joint_key is not None
        for lo, hi in segments:
            if hi <= lo:
                continue
            try:
                crypto.verify_shuffle_chain(
                    self.decks[lo : hi + 1],
                    self.proofs[lo:hi],
                    ctx.joint_key,
                    self.contexts[lo:hi],
                    rng=ctx.rng,
                )
            except InvalidProof as exc:
                bad = lo + (exc.index or 0)
                raise Misbehaviour(bad, f"invalid shuffle: {exc.args[0]}", (self.frames[bad],)) from None
        self.verified = upto

    def run(self, ctx: JobContext) -> bool:
        assert ctx.joint_key is not None
        while self.next_seat < ctx.players:
            seat = self.next_seat
            context = ctx.context(seat, ctx.transcript_hash)
            if seat == ctx.me and not ctx.has_queued(seat):
                self._verify(ctx, seat)
                outputs, proof = crypto.shuffle(self.decks[-1], ctx.joint_key, context, rng=ctx.rng)
                ctx.emit(
                    "shuffle",
                    {
                        "job": self.number,
                        "deck": crypto.deck_to_wire(outputs),
                        "proof": list(proof.to_wire()),
                    },
                )
            envelope = ctx.head(seat, "shuffle", self.number)
            if envelope is None:
                return False
            try:
                outputs = crypto.deck_from_wire(envelope.data["deck"], expected_len=len(self.decks[0]))
                proof = crypto.ShuffleProof.from_wire(envelope.data["proof"])
            except CryptoError as exc:
                raise crypto_fault(seat, "malformed shuffle", exc, envelope.frame) from None
            ctx.consume(envelope)
            self.frames.append(envelope.frame)
            self.decks.append(outputs)
            self.proofs.append(proof)
            self.contexts.append(context)
            self.next_seat += 1
            if ctx.me is not None and seat < ctx.me:
                self._verify(ctx, seat + 1)  # while the next seats shuffle, not on our turn
        self._verify(ctx, ctx.players)
        request = self.request
        final = self.decks[-1]
        if isinstance(request, DealRequest):
            ctx.cards.place(request.deck, request.first, final)
            ctx.engine(Dealt(request.deck, request.first, request.size))
        else:
            ctx.cards.place(request.deck, request.first, final)
            ctx.engine(Shuffled(request.deck, request.handles, request.first))
        return True

    def blocked(self, ctx: JobContext) -> Blocked:
        return Blocked(f"job:{self.number}:shuffle:{self.next_seat}", (self.next_seat,), True)

    def postponed_checks(self, ctx: JobContext) -> None:
        self._verify(ctx, self.next_seat)
