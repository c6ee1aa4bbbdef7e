"""escrow.json: seat 0's key share escrowed to seats 1 and 2 (Feldman VSS, threshold 2), a
complaint each way, and a takeover's partial decryptions combined into seat 0's shares."""

from __future__ import annotations

from typing import Any

from protocol.crypto.dleq import (
    BATCH_LABEL,
    DLEQ_LABEL,
    ShareCheck,
    _batch_coefficients,
    _batch_statement,
    decryption_share,
    share_batch_challenge,
)
from protocol.crypto.escrow import (
    BOX_LABEL,
    COMPLAINT_LABEL,
    PARTIAL_LABEL,
    EscrowDeal,
    EscrowTerms,
    _complaint_context,
    _seal,
    deal_escrow,
    judge_escrow_complaint,
    lagrange_at_zero,
    make_escrow_complaint,
    make_partials,
    open_share,
    partial_context,
)
from protocol.crypto.group import L, mul, mul_base
from protocol.crypto.hashing import HashItem, encode, hash512, make_context
from protocol.crypto.private_share import PRIVATE_LABEL, _key
from protocol.crypto.schnorr import SCHNORR_LABEL
from tools.vectors.common import SESSION_ID, deterministic, fixed_hash
from tools.vectors.crypto_sections import CryptoSections
from tools.vectors.jsonform import deck_json, hx, plain_wire, sc, tree


def escrow_vector(sections: CryptoSections) -> dict[str, Any]:
    """The vector; `sections` has run its keys job (the seats' key shares) and deck."""
    dealer, holders = 0, (1, 2)
    x = sections.secrets[dealer]
    holder_secrets = [sections.secrets[h] for h in holders]
    keys_hash = fixed_hash("escrow/keys")
    terms = EscrowTerms(
        dealer=dealer,
        public_key=sections.publics[dealer],
        holder_keys=tuple(sections.publics[h] for h in holders),
        holder_indices=tuple(h + 1 for h in holders),
        threshold=2,
        context=make_context(SESSION_ID, dealer, keys_hash),
    )
    cards = sections.deck_ciphertexts[:2]
    takeover_hash = fixed_hash("escrow/takeover")
    with deterministic("escrow") as stream:
        deal = deal_escrow(x, terms, rng=stream)
        a_1, *box_draws = stream.scalars()
        boxes = []
        shares = []
        for p, box in enumerate(deal.boxes):
            e, w = box_draws[2 * p : 2 * p + 2]
            ctx = terms.box_context(p)
            share = open_share(deal, terms, p, holder_secrets[p])
            shares.append(share)
            z = mul(e, terms.holder_keys[p])
            info_items: list[HashItem] = [PRIVATE_LABEL, "key", ctx, box.ephemeral]
            box_items: list[HashItem] = [
                BOX_LABEL,
                terms.context,
                dealer,
                terms.holder_indices[p],
                terms.holder_keys[p],
            ]
            boxes.append(
                {
                    "holder": holders[p],
                    "index": terms.holder_indices[p],
                    "share_s": sc(share),
                    "share_point_S": hx(terms.share_point(deal, p)),
                    "box_context_hash_input": hx(encode(*box_items)),
                    "box_context": hx(ctx),
                    "ephemeral_e": sc(e),
                    "ephemeral_E": hx(box.ephemeral),
                    "schnorr": {
                        "nonce_w": sc(w),
                        "commitment_A": hx(mul_base(w)),
                        "challenge_e": sc(box.proof.challenge),
                        "response_s": sc(box.proof.response),
                    },
                    "dh_Z": hx(z),
                    "hkdf_sha256": {
                        "info_hash_input": hx(encode(*info_items)),
                        "info": hx(hash512(*info_items)),
                        "key": hx(_key(z, box.ephemeral, ctx)),
                    },
                    "sealed": hx(box.sealed),
                }
            )
        # the complaints: holder 1 (seat 2) complains about its honest box (a false complaint),
        # then about a box with its share plus one inside (the dealer cheated)
        cheat_box = _seal((shares[1] + 1) % L, terms, 1, stream)
        cheat = EscrowDeal(deal.commitments, (deal.boxes[0], cheat_box))
        complaints = []
        for name, judged in (("honest", deal), ("wrong-share", cheat)):
            complaint = make_escrow_complaint(judged, terms, 1, holder_secrets[1], rng=stream)
            w = stream.scalars()[-1]
            record: dict[str, Any] = {
                "case": name,
                "holder": holders[1],
                "context_hash_input": hx(encode(COMPLAINT_LABEL, terms.box_context(1))),
                "context": hx(_complaint_context(terms, 1)),
                "key_Z": hx(complaint.key),
                "nonce_w": sc(w),
                "commitments": [hx(mul_base(w)), hx(mul(w, judged.boxes[1].ephemeral))],
                "complaint_wire": tree(complaint.to_wire()),
                "dealer_cheated": judge_escrow_complaint(complaint, judged, terms, 1),
            }
            if name == "wrong-share":
                record["box_wire"] = tree(cheat_box.to_wire())
                record["box_share"] = sc((shares[1] + 1) % L)
            complaints.append(record)
        # the takeover: both holders publish their partials of two cards, which combine into
        # seat 0's decryption shares
        partials = []
        for p, share in enumerate(shares):
            seat, index = holders[p], terms.holder_indices[p]
            context = make_context(SESSION_ID, seat, takeover_hash)
            point = terms.share_point(deal, p)
            batch = make_partials(share, point, cards, context, dealer, index, rng=stream)
            ctx = partial_context(context, dealer, index)
            statement = _batch_statement(point, cards, list(batch.shares))
            partials.append(
                {
                    "holder": seat,
                    "context": hx(context),
                    "partial_context_hash_input": hx(encode(PARTIAL_LABEL, context, dealer, index)),
                    "partial_context": hx(ctx),
                    "partials_E": [hx(d) for d in batch.shares],
                    "coefficients_e_j": [sc(c) for c in _batch_coefficients(statement, ctx, len(cards))],
                    "nonce_w": sc(stream.scalars()[-1]),
                    "commitments": [hx(batch.proof.commit_a), hx(batch.proof.commit_b)],
                    "challenge_e": sc(share_batch_challenge(ShareCheck(point, cards, batch, ctx))),
                    "response_s": sc(batch.proof.response),
                    "batch_wire": tree(plain_wire(batch.to_wire())),
                }
            )
    lagrange = lagrange_at_zero(terms.holder_indices)
    return {
        "about": (
            "Key escrow: seat 0 shares its key share x_0 with seats 1 and 2 (Shamir indices 2 and 3, "
            "threshold 2) by Feldman VSS: f(z) = x_0 + a_1 z, commitment C_1 = a_1 G (C_0 = X_0 is "
            "not sent), each share s_h = f(index) sealed to its holder with hashed ElGamal + "
            "HKDF-SHA256 + ChaCha20-Poly1305 (the private-share KEM) and a Schnorr proof of the "
            "ephemeral. Seat 2 complains about its honest box (dealer_cheated false) and about a box "
            "holding s + 1 (dealer_cheated true). Then a takeover: each holder publishes E = s_h c1 "
            "of two cards with one batched Chaum-Pedersen proof against S_h = C_0 + index C_1; the "
            "Lagrange coefficients at 0 combine them into x_0 c1."
        ),
        "stream": "escrow",
        "labels": {
            "box": BOX_LABEL,
            "complaint": COMPLAINT_LABEL,
            "partial": PARTIAL_LABEL,
            "kdf_info": PRIVATE_LABEL,
            "schnorr": SCHNORR_LABEL,
            "dleq": DLEQ_LABEL,
            "dleq_batch": BATCH_LABEL,
        },
        "dealer": dealer,
        "dealer_public_key": hx(terms.public_key),
        "dealer_secret": sc(x),
        "holders": list(holders),
        "holder_indices": list(terms.holder_indices),
        "holder_public_keys": [hx(k) for k in terms.holder_keys],
        "holder_secrets": [sc(s) for s in holder_secrets],
        "threshold": terms.threshold,
        "keys_transcript_hash": hx(keys_hash),
        "context": hx(terms.context),
        "coefficient_a_1": sc(a_1),
        "commitments_C": [hx(c) for c in deal.commitments],
        "boxes": boxes,
        "aead": {"algorithm": "ChaCha20-Poly1305", "nonce": "00" * 12, "aad": "the box context"},
        "deal_wire": tree(plain_wire(deal.to_wire())),
        "complaints": complaints,
        "takeover": {
            "transcript_hash": hx(takeover_hash),
            "ciphertexts": deck_json(cards),
            "partials": partials,
            "lagrange_at_zero": [sc(v) for v in lagrange],
            "combined_x0_c1": [hx(decryption_share(x, c)) for c in cards],
        },
    }
