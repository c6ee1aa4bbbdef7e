"""The keys job: every seat commits to its ElGamal key share, reveals it with a proof, and (on an
insured table) escrows it among the other programs at the table."""

from __future__ import annotations

from .. import crypto
from ..crypto import CryptoError
from .base import Blocked, Job, JobContext, crypto_fault


class KeysJob(Job):
    """Every seat commits to its key share X_i = x_i G, then reveals it with a Schnorr proof.

    On an insured table (`TableConfig.insured`) every seat then deals its x_i to its escrow
    holders (`crypto.escrow`: Feldman VSS, threshold all the holders), in seat order; every
    peer checks each deal publicly and each holder opens its own box (a box that does not check
    gets a public complaint and blames the dealer). Only then does the game start, so that a
    seat that vanishes later can be played by the table (`protocol.takeover`)."""

    def __init__(self) -> None:
        self.phase = "commit"
        self.next_seat = 0
        self.commits: dict[int, bytes] = {}
        self.reveal_hash = b""
        self.escrow_hash = b""
        self.committed = False

    def run(self, ctx: JobContext) -> bool:
        me = ctx.acting
        if self.phase == "commit":
            if me is not None and not self.committed:
                self.committed = True
                if ctx.secret is None:  # a resumed session has its saved key share
                    ctx.secret, ctx.my_public_key = crypto.keygen(rng=ctx.rng)
                if not ctx.has_queued(me):  # not already in the transcript we resumed from
                    assert ctx.my_public_key is not None
                    commit = crypto.key_commitment(ctx.my_public_key, ctx.context(me, self.start_hash))
                    ctx.emit("keycommit", {"commit": commit})
            while self.next_seat < ctx.players:
                envelope = ctx.head(self.next_seat, "keycommit", None)
                if envelope is None:
                    ctx.stands_in(self.next_seat)  # a seat that left now stops the game: no key
                    return False
                ctx.consume(envelope)
                self.commits[self.next_seat] = envelope.data["commit"]
                self.next_seat += 1
            self.phase, self.next_seat = "reveal", 0
            self.reveal_hash = ctx.transcript_hash
            if me is not None and not ctx.has_queued(me):
                mine = ctx.my_public_key
                assert ctx.secret is not None and mine is not None
                proof = crypto.prove_key(ctx.secret, mine, ctx.context(me, self.reveal_hash), rng=ctx.rng)
                ctx.emit("key", {"key": mine, "proof": list(proof.to_wire())})
        if self.phase == "reveal":
            if not self._reveals(ctx):
                return False
            ctx.joint_key = crypto.joint_key(ctx.public_keys)
            if not ctx.config.insured:
                ctx.start_game()
                return True
            self.phase, self.next_seat = "escrow", 0
            self.escrow_hash = ctx.transcript_hash
            if me is not None and not ctx.has_queued(me):
                assert ctx.secret is not None
                deal = crypto.deal_escrow(ctx.secret, ctx.escrows.terms(me, self.escrow_hash), rng=ctx.rng)
                ctx.emit("escrow", {"deal": deal.to_wire()})
        while self.next_seat < ctx.players:
            seat = self.next_seat
            envelope = ctx.head(seat, "escrow", None)
            if envelope is None:
                ctx.stands_in(seat)  # a seat that left now stops the game: no escrow
                return False
            terms = ctx.escrows.terms(seat, self.escrow_hash)
            try:
                deal = crypto.EscrowDeal.from_wire(envelope.data["deal"], terms.threshold, terms.holders)
                crypto.check_deal(deal, terms)
            except CryptoError as exc:
                raise crypto_fault(seat, "key escrow refused", exc, envelope.frame) from None
            ctx.consume(envelope)
            ctx.escrows.keep(envelope, deal, terms)
            self.next_seat += 1
        ctx.start_game()
        return True

    def _reveals(self, ctx: JobContext) -> bool:
        while self.next_seat < ctx.players:
            seat = self.next_seat
            envelope = ctx.head(seat, "key", None)
            if envelope is None:
                ctx.stands_in(seat)  # a seat that left now stops the game: no key
                return False
            ctx.consume(envelope)
            try:
                public = crypto.decode_point(envelope.data["key"])
                crypto.verify_key_commitment(self.commits[seat], public, ctx.context(seat, self.start_hash))
                proof = crypto.SchnorrProof.from_wire(envelope.data["proof"])
                crypto.verify_key(public, proof, ctx.context(seat, self.reveal_hash))
            except CryptoError as exc:
                raise crypto_fault(seat, "key share refused", exc, envelope.frame) from None
            ctx.public_keys.append(public)
            self.next_seat += 1
        return True

    def blocked(self, ctx: JobContext) -> Blocked:
        kind = {"commit": "keycommit", "reveal": "key"}.get(self.phase, self.phase)
        missing = tuple(s for s in range(self.next_seat, ctx.players) if not ctx.has_queued(s))
        return Blocked(f"job:{self.number}:{kind}:{self.next_seat}", missing or (self.next_seat,), True)
