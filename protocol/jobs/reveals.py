"""The reveals job: decryption shares for a batch of reveal requests, public or sealed to a seat."""

from __future__ import annotations

from typing import Any

from skyjo_p2p.core.events import Reveal, RevealRequest

from .. import crypto
from ..crypto import CryptoError
from ..errors import Misbehaviour
from ..messages import Envelope
from .base import Blocked, Job, JobContext, Unattributable, crypto_fault
from .deferred import deferring


class RevealsJob(Job):
    """Decryption shares for a batch of reveal requests, one message (and one proof) per seat.

    Which share goes where is decided so that no transcript ever holds every share of a card the
    rules keep hidden (see PROTOCOL.md, "Reveals"). For each card of the batch:

    * if it becomes public (a public request, or private ones after which every seat knows it),
      every seat whose share is not yet published publishes it;
    * otherwise one seat whose share is unpublished is the card's *keeper* (the first recipient
      that still holds an unpublished share, else the one seat that does): every other
      unpublished share is published (the card stays closed: the keeper's share is missing), and
      the keeper sends its own share encrypted to each other recipient (`crypto.seal_shares`).

    A seat owing nothing sends nothing. A recipient whose private shares do not check publishes a
    complaint that every peer can judge (`Session._judge_complaint`).

    The proofs of the published shares are checked together: a seat's `shares` message is decoded
    (and its packets' proofs of E checked) when it is consumed, in seat order as before, but its
    batch proof is put off (`pending`) and every proof put off is checked in one batch
    (`crypto.verify_share_batches`) when the job has every seat's message, before anything is
    done that depends on them (our partials, the opening of a packet sent to us, a fault found in
    a later message) and when the job's wait runs out (`postponed_checks`). A batch that fails is
    checked proof by proof in seat order, so the seat blamed is the one a check of each message on
    arrival blames. The shares are published (`CardStore.published`) only once checked.
    """

    def __init__(self, requests: tuple[RevealRequest, ...], *, disclose: bool = False) -> None:
        self.requests = requests
        self.disclose = disclose
        """Public requests the engine did not make: cards of a seat the table now plays, made
        public (`JobContext.disclose`) instead of answered."""
        self.owed: dict[int, list[int]] = {}
        """seat -> the handles whose shares it publishes."""
        self.sealed: dict[int, dict[int, list[int]]] = {}
        """seat -> recipient -> the handles whose shares it sends encrypted to that recipient."""
        self.public: set[int] = set()
        """Handles every peer can read once this job is done."""
        self.seats: list[int] = []
        self.next_index = 0
        self.sent = False
        self.rebuild: dict[int, list[int]] = {}
        """A vanished seat the table plays -> the handles whose shares of it are rebuilt from its
        escrow: every holder sends its partials (`partials`), after its shares."""
        self.partials: dict[int, list[list[crypto.Point]]] = {}
        self.waiting: tuple[int, int] | None = None
        self.own: tuple[crypto.ShareBatch | None, list[crypto.PrivateShares]] | None = None
        """What `_message` made for our own message (None if we made none in this process)."""
        self.pending: list[tuple[int, crypto.ShareCheck, bytes, list[int]]] = []
        """Consumed batches whose proof is not checked yet: (seat, the check, its frame, handles)."""
        self.contexts: dict[int, bytes] = {}
        """seat -> its proof context in this job (computed once: `_context`)."""
        self.waits: dict[int, Blocked] = {}
        """seat -> what the job waits for while it waits for that seat's shares (`blocked`)."""

    def begin(self, ctx: JobContext, number: int) -> None:
        super().begin(ctx, number)
        state = ctx.state
        assert state is not None
        players = ctx.players
        everyone = (1 << players) - 1
        recipients: dict[int, list[int | None]] = {}
        for request in self.requests:
            tos = recipients.setdefault(request.handle, [])
            if request.to not in tos:
                tos.append(request.to)
        for handle, tos in recipients.items():
            published = ctx.cards.published(handle)
            unpublished = [seat for seat in range(players) if seat not in published]
            knowers = state.seen[handle]
            for to in tos:
                # a reveal to a seat the table plays is made public: every peer runs its bot
                knowers |= everyone if to is None or ctx.played_by_table(to) else 1 << to
            if knowers == everyone:
                self.public.add(handle)
                for seat in unpublished:
                    owed = self.owed.setdefault(seat, [])
                    if handle not in owed:
                        owed.append(handle)
                continue
            if not unpublished:
                continue  # cannot happen: a card with every share published is public
            keeper = next((to for to in tos if to in unpublished), unpublished[0])
            for seat in unpublished:
                if seat != keeper:
                    self._owe(self.owed.setdefault(seat, []), handle)
            for to in tos:
                if to is not None and to != keeper:
                    self._owe(self.sealed.setdefault(keeper, {}).setdefault(to, []), handle)
        self.seats = sorted(set(self.owed) | set(self.sealed))

    @staticmethod
    def _owe(handles: list[int], handle: int) -> None:
        if handle not in handles:
            handles.append(handle)

    def _message(self, ctx: JobContext, me: int) -> dict[str, Any]:
        """Our shares: the published batch and one sealed packet per recipient."""
        assert ctx.secret is not None
        cards = ctx.cards
        cards.require_verified()  # no share before every shuffle of the deck is verified
        context = self._context(ctx, me)
        mine = self.owed.get(me, [])
        batch: list[Any] = []
        shares = None
        if mine:
            ciphertexts = [cards.ciphertexts[h] for h in mine]
            shares = crypto.make_share_batch(
                ctx.secret, ctx.public_keys[me], ciphertexts, context, rng=ctx.rng
            )
            batch = list(shares.to_wire())
        packets = []
        made = []
        for to, handles in sorted(self.sealed.get(me, {}).items()):
            packet = crypto.seal_shares(
                ctx.secret,
                ctx.public_keys[me],
                to,
                ctx.public_keys[to],
                [cards.ciphertexts[h] for h in handles],
                context,
                me,
                rng=ctx.rng,
            )
            packets.append(packet.to_wire())
            made.append(packet)
        self.own = (shares, made)
        return {"job": self.number, "batch": batch, "private": packets}

    def run(self, ctx: JobContext) -> bool:
        me = None if ctx.me is None else ctx.acting  # (an observer acts for no seat)
        if not self.sent and me is not None and me in self.seats:
            self.sent = True  # every seat sends its shares at once: no waiting for lower seats
            if not ctx.has_queued(me):
                ctx.emit("shares", self._message(ctx, me))
        try:
            if not self._consume(ctx, me):
                return False
        except Misbehaviour:
            self._check_pending(ctx)  # a seat before it may have sent a bad proof: it is first
            raise
        self._check_pending(ctx)
        if self.rebuild and not self._rebuilt(ctx):  # (`waiting` is set only when there is one)
            return False
        assert ctx.state is not None
        for request in self.requests:
            value = self._value(ctx, request)
            if self.disclose:
                assert value is not None
                ctx.disclose(request.handle, value)
            else:
                ctx.engine(Reveal(request.handle, request.to, value))
                public = request.handle in self.public and value is not None
                if public and request.to is not None and ctx.played_by_table(request.to):
                    assert value is not None
                    ctx.disclose(request.handle, value)
        return True

    def _consume(self, ctx: JobContext, me: int | None) -> bool:
        """Consume every seat's message in seat order (the proofs of their published shares put
        off); False while one is missing."""
        cards = ctx.cards
        while self.next_index < len(self.seats):
            seat = self.seats[self.next_index]
            envelope = ctx.head(seat, "shares", self.number)
            if envelope is None and (seat == me or not ctx.stands_in(seat)):
                return False  # (asked again at every frame that arrives meanwhile)
            handles = self.owed.get(seat)
            if handles is None:
                handles = []
            to_seal = self.sealed.get(seat)
            sealed = sorted(to_seal.items()) if to_seal else []
            if envelope is None:  # the table plays the seat (`stands_in` above)
                # every peer computes the seat's shares from its published key share; the ones
                # it would have sealed to a recipient are then public too (the card is the seat's)
                owed = handles + [h for _, hs in sealed for h in hs]
                if ctx.rebuilds(seat):
                    self._check_pending(ctx)  # nothing of ours goes out on shares not checked
                    self._send_partials(ctx, seat, owed)
                else:
                    computed = ctx.stand_in_shares(seat, [cards.ciphertexts[h] for h in owed])
                    for handle, share in zip(owed, computed, strict=True):
                        cards.published(handle)[seat] = share
                self.next_index += 1
                continue
            context = self.contexts.get(seat)  # (`_context`, inlined: a call at every message)
            if context is None:
                context = self.contexts[seat] = ctx.context(seat, self.start_hash)
            if seat == me and self.own is not None:
                # The message we made in this process: checking its proofs again would only
                # re-verify our own arithmetic (three multiplications a share).
                batch, packets = self.own
                own = True
            else:
                try:
                    batch, packets = self._check(ctx, seat, envelope.data, handles, sealed, context)
                except CryptoError as exc:
                    raise crypto_fault(seat, "invalid decryption shares", exc, envelope.frame) from None
                own = False
            ctx.consume(envelope)
            if batch is not None:
                if own:
                    for handle, share in zip(handles, batch.shares, strict=True):
                        cards.published(handle)[seat] = share
                else:
                    ciphertexts = [cards.ciphertexts[h] for h in handles]
                    check = crypto.ShareCheck(ctx.public_keys[seat], ciphertexts, batch, context)
                    self.pending.append((seat, check, envelope.frame, handles))
            for packet, (to, sealed_handles) in zip(packets, sealed, strict=True):
                ciphertexts = [cards.ciphertexts[h] for h in sealed_handles]
                ctx.complaints.sealed_packet(envelope, packet, ciphertexts, context)
                if to == ctx.me:
                    self._check_pending(ctx)  # before we complain about anything
                    self._open(ctx, envelope, packet, sealed_handles, ciphertexts, context)
            self.next_index += 1
        return True

    def _check_pending(self, ctx: JobContext) -> None:
        """Check the proofs put off, in one batch, and publish their shares; `Misbehaviour` for the
        first seat (in seat order) whose proof does not verify. In an offline check that defers
        them (`deferred.deferred_checks`), hand them over instead."""
        pending, self.pending = self.pending, []
        if not pending:
            return
        collector = deferring()
        if collector is not None:
            collector.defer_shares([check for _, check, _, _ in pending])
        else:
            try:
                crypto.verify_share_batches([check for _, check, _, _ in pending])
            except crypto.InvalidProof as exc:
                seat, _, frame, _ = pending[exc.index or 0]
                reason = crypto.InvalidProof(exc.reason)
                raise crypto_fault(seat, "invalid decryption shares", reason, frame) from None
        cards = ctx.cards
        for seat, check, _, handles in pending:
            for handle, share in zip(handles, check.batch.shares, strict=True):
                cards.published(handle)[seat] = share

    def postponed_checks(self, ctx: JobContext) -> None:
        self._check_pending(ctx)

    def _context(self, ctx: JobContext, seat: int) -> bytes:
        """The proof context of `seat` in this job (session, seat, the job's start hash)."""
        context = self.contexts.get(seat)
        if context is None:
            context = self.contexts[seat] = ctx.context(seat, self.start_hash)
        return context

    def _send_partials(self, ctx: JobContext, dealer: int, owed: list[int]) -> None:
        """A vanished seat owes shares here: note them, and send our partials if we hold its key."""
        self.rebuild[dealer] = owed
        me = ctx.acting
        if me is None or me not in ctx.escrows.holders(dealer) or not owed:
            return
        if any(e.data["dealer"] == dealer for e in ctx.own_queued("partials", self.number)):
            return  # already sent (we resumed from a saved game)
        batch = crypto.make_partials(
            ctx.escrows.shares[dealer],
            ctx.escrows.point(dealer, me),
            [ctx.cards.ciphertexts[h] for h in owed],
            self._context(ctx, me),
            dealer,
            me + 1,
            rng=ctx.rng,
        )
        ctx.emit("partials", {"job": self.number, "dealer": dealer, "batch": list(batch.to_wire())})

    def _rebuilt(self, ctx: JobContext) -> bool:
        """Consume every holder's partials for each vanished seat and combine them into that
        seat's shares (Lagrange at 0); a holder whose partials do not verify is blamed."""
        self.waiting = None
        for dealer in sorted(self.rebuild):
            owed = self.rebuild[dealer]
            if not owed:
                continue
            holders = ctx.escrows.holders(dealer)
            got = self.partials.setdefault(dealer, [])
            ciphertexts = [ctx.cards.ciphertexts[h] for h in owed]
            while len(got) < len(holders):
                holder = holders[len(got)]
                envelope = ctx.head(holder, "partials", self.number)
                if envelope is None:
                    if holder != ctx.acting and ctx.stands_in(holder):
                        raise Unattributable(
                            f"seat {dealer + 1}'s cards cannot be opened: seat {holder + 1}, "
                            "which holds a share of its key, is gone too"
                        )
                    self.waiting = (dealer, holder)
                    return False
                if envelope.data["dealer"] != dealer:
                    raise Misbehaviour(
                        holder,
                        f"sent partials for seat {envelope.data['dealer'] + 1}, not {dealer + 1}",
                        (envelope.frame,),
                    )
                try:
                    batch = crypto.ShareBatch.from_wire(envelope.data["batch"], expected_len=len(owed))
                    points = crypto.verify_partials(
                        ctx.escrows.point(dealer, holder),
                        ciphertexts,
                        batch,
                        self._context(ctx, holder),
                        dealer,
                        holder + 1,
                    )
                except CryptoError as exc:
                    raise crypto_fault(holder, "wrong reconstruction shares", exc, envelope.frame) from None
                ctx.consume(envelope)
                got.append(points)
            shares = crypto.combine_partials([h + 1 for h in holders], got)
            for handle, share in zip(owed, shares, strict=True):
                ctx.cards.published(handle)[dealer] = share
            self.rebuild[dealer] = []
        return True

    @staticmethod
    def _check(
        ctx: JobContext,
        seat: int,
        data: dict[str, Any],
        handles: list[int],
        sealed: list[tuple[int, list[int]]],
        context: bytes,
    ) -> tuple[crypto.ShareBatch | None, list[crypto.PrivateShares]]:
        """Decode a seat's shares message and check its packets' proofs of E (the batch proof is
        checked by `_check_pending`); a `CryptoError` names what is wrong."""
        batch = None
        if handles:
            batch = crypto.ShareBatch.from_wire(data["batch"], expected_len=len(handles))
        elif data["batch"]:
            raise crypto.MalformedData("published shares that were not due")
        if len(data["private"]) != len(sealed):
            raise crypto.MalformedData(
                f"sent {len(data['private'])} private share packet(s), {len(sealed)} due"
            )
        private = data["private"]
        packets = [crypto.PrivateShares.from_wire(wire) for wire in private] if private else []
        for packet, (to, _) in zip(packets, sealed, strict=True):
            if packet.to != to:
                raise crypto.MalformedData(f"a private share packet for seat {packet.to + 1}, not {to + 1}")
            crypto.check_packet(packet, context, seat)
        return batch, packets

    def _open(
        self,
        ctx: JobContext,
        envelope: Envelope,
        packet: crypto.PrivateShares,
        handles: list[int],
        ciphertexts: list[crypto.Ciphertext],
        context: bytes,
    ) -> None:
        """Open a packet sent to us; if it does not check, complain (publicly) and blame its sender."""
        assert ctx.secret is not None and ctx.me is not None
        sender = envelope.seat
        try:
            batch = crypto.open_shares(
                ctx.secret, packet, ctx.public_keys[sender], ciphertexts, context, sender
            )
        except CryptoError as exc:
            if ctx.replaying:
                raise Misbehaviour(
                    sender, f"sent private shares that do not check: {exc}", (envelope.frame,)
                ) from None
            key, proof = crypto.make_complaint(
                ctx.secret,
                ctx.public_keys[ctx.me],
                packet,
                crypto.complaint_context(ctx.config.session_id, ctx.me, envelope.digest),
                rng=ctx.rng,
            )
            complaint = ctx.emit(
                "complaint", {"frame": envelope.frame, "key": key, "proof": list(proof.to_wire())}
            )
            shown = (envelope.frame,) if complaint is None else (envelope.frame, complaint.frame)
            raise Misbehaviour(sender, f"sent private shares that do not check: {exc}", shown) from None
        for handle, share in zip(handles, batch.shares, strict=True):
            ctx.cards.private.setdefault(handle, {})[sender] = share

    def _value(self, ctx: JobContext, request: RevealRequest) -> int | None:
        me = ctx.me  # a card revealed to our seat privately is ours to read, whoever plays it
        handle = request.handle
        public = handle in self.public
        if not public and (request.to is None or request.to != me):
            return None
        cards = ctx.cards
        shares = dict(cards.published(handle))
        ciphertext = cards.ciphertexts[handle]
        if not public:
            assert ctx.secret is not None and me is not None
            shares.update(cards.private.get(handle, {}))
            shares[me] = crypto.decryption_share(ctx.secret, ciphertext)
        if len(shares) != ctx.players:
            raise AssertionError(f"card {handle} lacks shares")
        deck = cards.deck_of[handle]
        assert ctx.state is not None
        composition = ctx.composition(deck)
        book = cards.codebook(deck, len(composition))
        try:
            index = book.index_of(crypto.combine_shares(ciphertext, shares.values(), public=public))
        except CryptoError:
            # every share was proven and every shuffle checked: only a broken deck gets here
            raise Unattributable(f"card {handle} did not decrypt to a card of the {deck} deck") from None
        return int(composition[index])

    def blocked(self, ctx: JobContext) -> Blocked:
        if self.waiting is not None:
            _, holder = self.waiting
            return Blocked(f"job:{self.number}:partials:{holder}", (holder,), True)
        seat = self.seats[self.next_index] if self.next_index < len(self.seats) else 0
        blocked = self.waits.get(seat)  # (asked after every frame that arrives meanwhile)
        if blocked is None:
            blocked = self.waits[seat] = Blocked(f"job:{self.number}:shares:{seat}", (seat,), True)
        return blocked
