"""The keys job: every seat commits to its ElGamal key share, then reveals it with a proof."""

from __future__ import annotations

from .. import crypto
from ..crypto import CryptoError
from .base import Blocked, Job, JobContext, crypto_fault


class KeysJob(Job):
    """Every seat commits to its key share X_i = x_i G, then reveals it with a Schnorr proof."""

    def __init__(self) -> None:
        self.phase = "commit"
        self.next_seat = 0
        self.commits: dict[int, bytes] = {}
        self.reveal_hash = b""
        self.committed = False

    def run(self, ctx: JobContext) -> bool:
        me = ctx.me
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
        ctx.joint_key = crypto.joint_key(ctx.public_keys)
        ctx.start_game()
        return True

    def blocked(self, ctx: JobContext) -> Blocked:
        kind = "keycommit" if self.phase == "commit" else "key"
        missing = tuple(s for s in range(self.next_seat, ctx.players) if not ctx.has_queued(s))
        return Blocked(f"job:{self.number}:{kind}:{self.next_seat}", missing or (self.next_seat,), True)
