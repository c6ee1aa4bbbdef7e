"""Every small vector file: the cryptographic sections, then private shares and frames.

`Builder` adds to `CryptoSections` the files that reuse their results: private_shares.json (a
keeper's shares sealed to one recipient, and complaints), frames.json (one frame of every kind)
and escrow.json (`escrow_section`).
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgpack  # type: ignore[import-untyped,unused-ignore]
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from protocol.crypto.dleq import (
    ShareCheck,
    _batch_coefficients,
    _batch_statement,
    combine_shares,
    decryption_share,
    make_share_batch,
    share_batch_challenge,
)
from protocol.crypto.elgamal import Codebook
from protocol.crypto.escrow import EscrowTerms, deal_escrow
from protocol.crypto.group import POINT_BYTES, encode_scalar, mul, mul_base
from protocol.crypto.hashing import HashItem, encode, hash512, make_context
from protocol.crypto.private_share import (
    _NONCE,
    COMPLAINT_LABEL,
    PRIVATE_LABEL,
    PrivateShares,
    _decode,
    _key,
    complaint_context,
    judge_complaint,
    make_complaint,
    packet_context,
    seal_shares,
)
from protocol.crypto.schnorr import SCHNORR_LABEL
from protocol.errors import MalformedSignedFrame
from protocol.messages import encode_body, open_frame, seal
from skyjo_p2p.core.moves import Move
from tools.vectors.common import (
    DECK,
    PLAYERS,
    SESSION_ID,
    SHUFFLE_CARDS,
    deck_game_id,
    deterministic,
    fixed_hash,
)
from tools.vectors.crypto_sections import CryptoSections
from tools.vectors.escrow_section import escrow_vector
from tools.vectors.jsonform import deck_json, frame_json, hx, plain_wire, sc, tree
from tools.vectors.signature_section import signature_vector


class Builder(CryptoSections):
    """Computes every small vector file (`all`), in order."""

    def all(self) -> dict[str, dict[str, Any]]:
        return {
            "table.json": self.table(),
            "hashing.json": self.hashing(),
            "keys.json": self.keys_job(),
            "deck.json": self.deck(),
            "shuffle.json": self.shuffle(),
            "coins.json": self.coins(),
            "private_shares.json": self.private_shares(),
            "frames.json": self.frames(),
            "escrow.json": escrow_vector(self),
            "signatures.json": signature_vector(),
        }

    def private_shares(self) -> dict[str, Any]:
        """Seat 0 (the keeper of two cards) sends its shares of them to seat 1 only (PROTOCOL.md,
        8.4 and 12.9); seat 2 has published its shares. Then the same packet with a wrong share
        inside (the share of another card), and seat 1's complaint about each packet."""
        config = self.config
        sender, to, other = 0, 1, 2
        cards = self.deck_ciphertexts[:2]
        wrong_card = self.deck_ciphertexts[2]
        start_hash = fixed_hash("private-shares")
        job = 12
        context = make_context(SESSION_ID, sender, start_hash)
        ctx = packet_context(context, sender, to)
        x_k, x_t = self.secrets[sender], self.secrets[to]
        with deterministic("private-shares") as stream:
            packet = seal_shares(
                x_k, self.publics[sender], to, self.publics[to], cards, context, sender, rng=stream
            )
            batch_w, ephemeral_e, schnorr_w = stream.scalars()[-3:]
            shares = [decryption_share(x_k, c) for c in cards]
            z = mul(ephemeral_e, self.publics[to])
            info_items: list[HashItem] = [PRIVATE_LABEL, "key", ctx, packet.ephemeral]
            key = _key(z, packet.ephemeral, ctx)
            plain = ChaCha20Poly1305(key).decrypt(_NONCE, packet.box, ctx)
            batch = _decode(plain, len(cards))
            # the cheat: the keeper's share of another card in place of its share of card 1
            bad_plain = (
                plain[:POINT_BYTES] + bytes(decryption_share(x_k, wrong_card)) + plain[2 * POINT_BYTES :]
            )
            bad_box = ChaCha20Poly1305(key).encrypt(_NONCE, bad_plain, ctx)
            bad_packet = PrivateShares(to, packet.ephemeral, packet.proof, bad_box)
            cases = []
            for name, sent, text in (
                ("honest", packet, plain),
                ("tampered", bad_packet, bad_plain),
            ):
                data: dict[str, Any] = {"job": job, "batch": [], "private": [plain_wire(sent.to_wire())]}
                envelope = seal(
                    config,
                    self.keys[sender],
                    sender,
                    9,
                    fixed_hash(f"private-shares/{name}/prev"),
                    "shares",
                    data,
                )
                complaint_items: list[HashItem] = [COMPLAINT_LABEL, SESSION_ID, to, envelope.digest]
                complaint_ctx = complaint_context(SESSION_ID, to, envelope.digest)
                opened, proof = make_complaint(x_t, self.publics[to], sent, complaint_ctx, rng=stream)
                nonce = stream.scalars()[-1]
                complaint = {"frame": envelope.frame, "key": bytes(opened), "proof": list(proof.to_wire())}
                c_envelope = seal(
                    config,
                    self.keys[to],
                    to,
                    9,
                    fixed_hash(f"private-shares/{name}/complaint-prev"),
                    "complaint",
                    complaint,
                )
                verdict = judge_complaint(
                    opened,
                    proof,
                    complaint_ctx,
                    self.publics[to],
                    sent,
                    self.publics[sender],
                    cards,
                    context,
                    sender,
                )
                if name == "tampered":
                    self.complaint_data = complaint
                cases.append(
                    {
                        "case": name,
                        "plaintext": hx(text),
                        "box": hx(sent.box),
                        "packet_wire": tree(sent.to_wire()),
                        "shares_frame": frame_json(envelope, data),
                        "complaint": {
                            "complainer": to,
                            "context_hash_input": hx(encode(*complaint_items)),
                            "context": hx(complaint_ctx),
                            "key_Z": hx(opened),
                            "nonce_w": sc(nonce),
                            "commitments": [hx(mul_base(nonce)), hx(mul(nonce, sent.ephemeral))],
                            "challenge_e": sc(proof.challenge),
                            "response_s": sc(proof.response),
                            "frame": frame_json(c_envelope, complaint),
                            "verdict": verdict,
                        },
                    }
                )
        book = Codebook(deck_game_id(DECK), SHUFFLE_CARDS)
        published = [decryption_share(self.secrets[other], c) for c in cards]
        own = [decryption_share(x_t, c) for c in cards]
        indices = [
            book.index_of(combine_shares(c, [d_k, d_o, d_t]))
            for c, d_k, d_o, d_t in zip(cards, batch.shares, published, own, strict=True)
        ]
        statement = _batch_statement(self.publics[sender], cards, shares)
        return {
            "about": (
                "Private re-reveal: keeper seat 0 sends its shares of two cards to seat 1 only "
                "(hashed ElGamal + HKDF-SHA256 + ChaCha20-Poly1305, Schnorr proof of E, batched "
                "Chaum-Pedersen proof inside); seat 1 opens it and reads the cards with seat 2's "
                "published shares and its own. Then a tampered box (a share of another card inside) "
                "and seat 1's complaint about each box: the honest box makes the complaint false "
                "(verdict complainer), the tampered one proves the sender cheated (verdict sender). "
                "The two shares frames are alternatives, not one chain."
            ),
            "stream": "private-shares",
            "labels": {"packet": PRIVATE_LABEL, "complaint": COMPLAINT_LABEL, "schnorr": SCHNORR_LABEL},
            "sender": sender,
            "recipient": to,
            "sender_public_key": hx(self.publics[sender]),
            "recipient_public_key": hx(self.publics[to]),
            "recipient_secret": sc(x_t),
            "job": job,
            "job_start_hash": hx(start_hash),
            "sender_context": hx(context),
            "packet_context_hash_input": hx(encode(PRIVATE_LABEL, context, sender, to)),
            "packet_context": hx(ctx),
            "ciphertexts": deck_json(cards),
            "shares_D": [hx(d) for d in shares],
            "batch": {
                "coefficients_e_j": [sc(e) for e in _batch_coefficients(statement, ctx, len(cards))],
                "nonce_w": sc(batch_w),
                "commitments": [hx(batch.proof.commit_a), hx(batch.proof.commit_b)],
                "challenge_e": sc(share_batch_challenge(ShareCheck(self.publics[sender], cards, batch, ctx))),
                "response_s": sc(batch.proof.response),
            },
            "ephemeral_e": sc(ephemeral_e),
            "ephemeral_E": hx(packet.ephemeral),
            "schnorr": {
                "nonce_w": sc(schnorr_w),
                "commitment_A": hx(mul_base(schnorr_w)),
                "challenge_e": sc(packet.proof.challenge),
                "response_s": sc(packet.proof.response),
            },
            "dh_Z": hx(z),
            "hkdf_sha256": {
                "ikm": hx(z),
                "salt": "",
                "info_hash_input": hx(encode(*info_items)),
                "info": hx(hash512(*info_items)),
                "length": 32,
                "key": hx(key),
            },
            "aead": {"algorithm": "ChaCha20-Poly1305", "nonce": hx(_NONCE), "aad": hx(ctx)},
            "recipient_view": {
                "published_shares_seat2": [hx(d) for d in published],
                "own_shares_seat1": [hx(d) for d in own],
                "card_indices": indices,
            },
            "cases": cases,
        }

    # frames.json: one frame of every kind -----------------------------------------------------

    def frames(self) -> dict[str, Any]:
        config = self.config
        seat = 1
        key = self.keys[seat]
        commit_frames = self.key_frames[:PLAYERS]
        holders = (0, 2)  # seat 1's escrow holders at an insured table of three programs
        terms = EscrowTerms(
            1,
            self.publics[seat],
            tuple(self.publics[h] for h in holders),
            tuple(h + 1 for h in holders),
            2,
            make_context(SESSION_ID, seat, fixed_hash("frames/escrow")),
        )
        with deterministic("frames/escrow") as stream:
            deal = deal_escrow(self.secrets[seat], terms, rng=stream)
            # seat 1 holds a share of seat 0's key: its partials for two cards
            partials = make_share_batch(
                self.secrets[seat],
                self.publics[seat],
                self.deck_ciphertexts[:2],
                fixed_hash("frames/partials"),
                rng=stream,
            )
        contents: list[tuple[str, dict[str, Any]]] = [
            ("keycommit", {"commit": self.commitments[seat]}),
            ("key", {"key": bytes(self.publics[seat]), "proof": self.key_proofs[seat]}),
            (
                "shuffle",
                {
                    "job": 2,
                    "deck": [[bytes(c.c1), bytes(c.c2)] for c in self.shuffle_out],
                    "proof": plain_wire(self.shuffle_proof_wire),
                },
            ),
            ("shares", {"job": 3, "batch": plain_wire(self.batch_wire), "private": []}),
            ("coincommit", {"job": 4, "commit": self.coin_commits[seat]}),
            ("coin", {"job": 4, "reveal": [self.coin_reveals[seat].nonce, self.coin_reveals[seat].value]}),
            ("move", {"job": 5, "move": Move(seat=seat, kind="draw", source="deck").to_dict()}),
            ("move", {"job": 6, "move": Move(seat=seat, kind="reveal", slots=(0, 5)).to_dict()}),
            ("roundsig", {"job": 9, "round": 1, "hash": fixed_hash("round-1")}),
            ("echo", {}),  # a stand-alone acknowledgement: its acks are in the body (below)
            ("chat", {"text": "bonne partie é"}),
            ("evidence", {"frame": commit_frames[0].frame}),
            ("complaint", self.complaint_data),
            # seat 1 lacks seat 0's frames from #2 on (an echo showed they exist)
            ("want", {"seat": 0, "from": 2}),
            # a stop without proof: the deal's first shuffle (seat 0's) never came
            (
                "halt",
                {
                    "reason": "seat(s) 1 did not answer in time (job:2:shuffle:0)",
                    "culprit": [],
                    "absent": [0],
                    "evidence": [],
                },
            ),
            # a proven fault: seat 2 signed a malformed frame; the frame is the evidence
            self.culprit_halt(),
            # the player at seat 1 is away: its own program plays for it (autopilot), then back
            ("away", {"away": True}),
            ("away", {"away": False}),
            # the player at seat 1 leaves the table for good with its key share (PROTOCOL.md 10.7)
            ("leave", {"reason": "left the table", "key": encode_scalar(self.secrets[seat])}),
            # (the kinds of seat insurance; in a real chain they come before any leave)
            ("escrow", {"deal": plain_wire(deal.to_wire())}),
            ("vacate", {"owner": 2, "held": [[2, 3, fixed_hash("seat-2-frame-2")]], "attempt": 0}),
            ("uphold", {"owner": 2, "attempt": 0}),  # every vote held, nothing of seat 3 after them
            ("withdraw", {"owner": 2, "attempt": 1}),  # a vote of a later attempt withdrawn
            ("partials", {"job": 14, "dealer": 0, "batch": plain_wire(partials.to_wire())}),
            ("return", {}),  # back after the table played the seat (acknowledged like a game frame)
            ("stepout", {}),  # its player pressed Ctrl-C: the others vote at once (10.9)
            # removing a player (10.9, "Removing a player"): an agreement about program 0, then an
            # answer (in a real chain they come before any leave or stepout)
            (
                "remove",
                {"owner": 0, "attempt": 0, "say": "agree", "held": [[0, 5, fixed_hash("seat-0-frame-4")]]},
            ),
            ("remove", {"owner": 0, "attempt": 0, "say": "confirm", "held": []}),
        ]
        prev = config.genesis_hash
        out = []
        # every frame may carry acknowledgements; the echo carries these (seats 0 and 2, #0)
        echo_acks = [(0, 0, commit_frames[0].digest), (2, 0, commit_frames[2].digest)]
        for seq, (kind, data) in enumerate(contents):
            acks = echo_acks if kind == "echo" else []
            envelope = seal(config, key, seat, seq, prev, kind, data, acks)
            out.append(frame_json(envelope, data))
            prev = envelope.digest
        return {
            "about": (
                f"One chain of frames by seat 1 (seq 0..{len(contents) - 1}) showing every message "
                "kind. The data are well-formed but not a playable sequence (keys.json has one that "
                "is). The last halt's evidence is `garbage`: seat 2's frame #2 (after its keys.json "
                "frames), signed but malformed (a chat with empty text), which proves the fault "
                "the halt names to any peer."
            ),
            "seat": seat,
            "frames": out,
            "garbage": self.garbage_json,
        }

    def culprit_halt(self) -> tuple[str, dict[str, Any]]:
        """A halt naming seat 2, with its signed garbage as the one evidence frame."""
        culprit = 2
        kind, data = "chat", {"text": ""}  # signed, but `text` must have 1..500 characters
        prev = self.key_frames[PLAYERS + culprit].digest  # seat 2's key frame, #1 in keys.json
        body = encode_body(self.config, culprit, 2, prev, kind, data)
        frame = bytes(msgpack.packb([body, self.keys[culprit].sign(body)], use_bin_type=True))
        try:
            open_frame(frame, self.config)
        except MalformedSignedFrame as exc:
            reason = f"seat {exc.seat + 1}: {exc.reason}"  # what the session's halt says
        else:
            raise RuntimeError("the garbage vector opened as a valid frame")
        self.garbage_json = {
            "seat": culprit,
            "seq": 2,
            "prev": hx(prev),
            "kind": kind,
            "data": tree(data),
            "body": hx(body),
            "body_digest": hx(hashlib.sha256(body).digest()),
            "signature": hx(frame[-64:]),
            "frame": hx(frame),
            "refused_because": reason,
        }
        return "halt", {"reason": reason, "culprit": [culprit], "absent": [], "evidence": [frame]}


def build_all() -> dict[str, dict[str, Any]]:
    """Every vector file's content, computed by the current code."""
    return Builder().all()
