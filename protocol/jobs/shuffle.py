"""The shuffle job: a fresh deck (deal) or a pile (reshuffle), shuffled by every seat in turn."""

from __future__ import annotations

from skyjo_p2p.core.events import DealRequest, Dealt, Shuffled, ShuffleRequest

from .. import crypto
from ..crypto import CryptoError, InvalidProof
from ..crypto.shuffle import BATCH_TERMS
from ..errors import Misbehaviour
from .base import Blocked, Job, JobContext, crypto_fault
from .deferred import deferring


class ShuffleJob(Job):
    """A fresh deck (deal) or a pile (reshuffle): each seat in turn shuffles with a proof.

    Every shuffle of the deck is checked in one batch (`crypto.ShuffleChainVerifier`), fed each
    shuffle as it arrives, so that most of the work is done while the next seats shuffle and
    only the last deck is left when the last shuffle is in. A seat whose turn comes next
    shuffles first and checks the shuffle before its own at the next frame it receives (an echo
    of its shuffle, usually), once its shuffle has left: the seats' turns are the critical path
    of the deal, and shuffling a deck not yet checked reveals nothing (no key share is used).
    The last seat checks at once: nothing may be left to a frame that might not come. The part of
    our own shuffle that does not depend on the deck (`crypto.prepare_shuffle`) is computed when
    the job begins, so our turn costs 4 multiplications per card instead of 6.
    No card is placed, so no decryption share can be made (`CardStore.require_verified`), before
    the whole chain has been checked. If a later seat times out, the shuffles received so far are
    checked first (that seat may have stopped because one of them was bad).
    """

    def __init__(self, request: DealRequest | ShuffleRequest) -> None:
        self.request = request
        self.decks: list[list[crypto.Ciphertext]] = []
        self.proofs: list[crypto.ShuffleProof | None] = []
        """Each seat's proof; None for a seat the table plays (it does not shuffle)."""
        self.contexts: list[bytes] = []
        self.frames: list[bytes] = []
        self.verifier: crypto.ShuffleChainVerifier | None = None
        self.setup: crypto.ShuffleSetup | None = None
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
        ctx.cards.shuffling = True
        # an observer (`verify`, `replay`) has no turn to be quick for: its sums wait for the
        # check, one multi-scalar multiplication for the whole deck, the cheapest per term
        self.verifier = crypto.ShuffleChainVerifier(
            self.decks[0],
            ctx.joint_key,
            rng=ctx.rng,
            batch_terms=None if ctx.acting is None else BATCH_TERMS,
        )
        if ctx.acting is not None and not ctx.has_queued(ctx.acting):
            # the part of our shuffle that does not need the deck, done before our turn
            self.setup = crypto.prepare_shuffle(len(self.decks[0]), ctx.joint_key, rng=ctx.rng)

    def _fault(self, exc: InvalidProof) -> Misbehaviour:
        bad = exc.index or 0
        return Misbehaviour(bad, f"invalid shuffle: {exc.reason}", (self.frames[bad],))

    def _absorb(self, ctx: JobContext) -> None:
        """Feed the verifier every received shuffle it has not seen (ours is trusted)."""
        verifier = self.verifier
        assert verifier is not None
        for k in range(verifier.count, len(self.proofs)):
            try:
                proof = self.proofs[k]
                verifier.add(
                    self.decks[k + 1], proof, self.contexts[k], trusted=k == ctx.acting or proof is None
                )
            except InvalidProof as exc:
                raise self._fault(exc) from None

    def _check(self, ctx: JobContext) -> None:
        """Everything received so far, checked; `Misbehaviour` names the first bad shuffle. In an
        offline check that puts the sums off (`deferred.deferred_checks`), the chain's sum is
        handed over instead (each proof's challenges and shape are still checked here)."""
        self._absorb(ctx)
        assert self.verifier is not None
        collector = deferring()
        if collector is not None and collector.defer_shuffles(self.verifier):
            return
        try:
            self.verifier.check()
        except InvalidProof as exc:
            raise self._fault(exc) from None

    def run(self, ctx: JobContext) -> bool:
        assert ctx.joint_key is not None
        shuffled: tuple[list[crypto.Ciphertext], crypto.ShuffleProof] | None = None
        if self.next_seat != ctx.acting:
            self._absorb(ctx)  # what we put off to send our shuffle at once
        while self.next_seat < ctx.players:
            seat = self.next_seat
            context = ctx.context(seat, ctx.transcript_hash)
            if seat == ctx.acting and not ctx.has_queued(seat):
                setup, self.setup = self.setup, None
                outputs, proof = crypto.shuffle(
                    self.decks[-1], ctx.joint_key, context, rng=ctx.rng, setup=setup
                )
                shuffled = outputs, proof
                ctx.emit(
                    "shuffle",
                    {
                        "job": self.number,
                        "deck": crypto.deck_to_wire(outputs),
                        "proof": list(proof.to_wire()),
                    },
                )
            envelope = ctx.head(seat, "shuffle", self.number)
            if envelope is None and seat != ctx.acting and ctx.stands_in(seat):
                # the table plays this seat: it does not shuffle (the others' shuffles are
                # enough: one honest shuffler makes the order secret)
                self.frames.append(b"")
                self.decks.append(self.decks[-1])
                self.proofs.append(None)
                self.contexts.append(context)
                self.next_seat += 1
                continue
            if envelope is None:
                return False
            if shuffled is not None and seat == ctx.acting:
                outputs, proof = shuffled  # what we just encoded: decoding it again proves nothing
            else:
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
            if shuffled is None and self.next_seat != ctx.acting:
                self._absorb(ctx)  # while the next seats shuffle
        self._check(ctx)
        ctx.cards.shuffling = False
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
        self._check(ctx)
