"""The vector files of the cryptography: table, hashing, keys, deck, shuffle, coins."""

from __future__ import annotations

from typing import Any

from protocol.crypto.coins import CoinContribution, combine_coins
from protocol.crypto.dleq import (
    BATCH_LABEL,
    DLEQ_LABEL,
    ShareCheck,
    _batch_coefficients,
    _batch_statement,
    combine_shares,
    decryption_share,
    make_share,
    make_share_batch,
    share_batch_challenge,
)
from protocol.crypto.elgamal import CARD_LABEL, Ciphertext, Codebook, joint_key, reencrypt
from protocol.crypto.group import BASE, Point, lincomb, mul, mul_base, random_scalar
from protocol.crypto.hashing import (
    CONTEXT_LABEL,
    FIAT_SHAMIR_LABEL,
    HASH_TO_POINT_LABEL,
    HashItem,
    encode,
    hash512,
    hash_to_point,
    hash_to_scalar,
    make_context,
)
from protocol.crypto.schnorr import KEY_COMMITMENT_LABEL, SCHNORR_LABEL, key_commitment, keygen, prove_key
from protocol.crypto.shuffle import (
    CHALLENGES_LABEL,
    GENERATORS_LABEL,
    SHUFFLE_LABEL,
    _chain_commitments,
    _get_challenges,
    chain_generator,
    gen_shuffle,
    gen_shuffle_proof,
    generators,
)
from protocol.messages import Envelope, seal
from protocol.transcript import extend, header, record, transcript_start
from tools.vectors.common import (
    DECK,
    IDENTITY_SEEDS,
    PLAYERS,
    SESSION_ID,
    SHUFFLE_CARDS,
    deck_game_id,
    deterministic,
    fixed_hash,
    identity_keys,
    table_config,
)
from tools.vectors.jsonform import deck_json, frame_json, hx, sc, tree

# --- the sections: cryptography ----------------------------------------------------------------


class CryptoSections:
    """The cryptographic vector files; later sections reuse earlier results (keys, joint key)."""

    def __init__(self) -> None:
        self.config = table_config()
        self.keys = identity_keys()
        self.secrets: list[int] = []
        self.publics: list[Point] = []
        self.key_frames: list[Envelope] = []
        self.key_proofs: list[list[bytes]] = []
        self.commitments: list[bytes] = []
        self.after_keys = b""
        self.y: Point = BASE
        self.batch_wire: list[Any] = []
        self.shuffle_out: list[Ciphertext] = []
        self.shuffle_proof_wire: list[Any] = []
        self.coin_commits: list[bytes] = []
        self.coin_reveals: list[CoinContribution] = []
        self.deck_ciphertexts: list[Ciphertext] = []
        self.complaint_data: dict[str, Any] = {}
        self.garbage_json: dict[str, Any] = {}

    # table.json ------------------------------------------------------------------------------

    def table(self) -> dict[str, Any]:
        config = self.config
        return {
            "about": "The fixed table of every vector: identity keys, genesis, transcript start.",
            "identity_seeds": [hx(s) for s in IDENTITY_SEEDS],
            "identity_public_keys": [hx(k) for k in config.identities],
            "config": {
                "session_id": hx(config.session_id),
                "game": config.game,
                "players": config.players,
                "options": tree(dict(config.options)),
                "names": list(config.names),
                "version": config.version,
            },
            "genesis": hx(config.encode()),
            "genesis_hash": hx(config.genesis_hash),
            "transcript_start": hx(transcript_start(config)),
            "deck_game_ids": {DECK: hx(deck_game_id(DECK))},
        }

    # hashing.json ----------------------------------------------------------------------------

    def hashing(self) -> dict[str, Any]:
        examples: list[list[HashItem]] = [
            [b""],
            [b"\x01\x02"],
            [0],
            [255, 256],
            ["skyjo-lan/v1", "é"],
            [[b"\x01", 2, "c", []]],
            [[], [[]]],
        ]
        encodings = [{"items": tree(items), "encoding": hx(encode(*items))} for items in examples]
        th = transcript_start(self.config)
        context_items: list[HashItem] = [CONTEXT_LABEL, SESSION_ID, 1, th]
        game_id = deck_game_id(DECK)
        h2p_digest = hash512(HASH_TO_POINT_LABEL, CARD_LABEL, [game_id, 0], 0)
        scalar_items: list[HashItem] = ["skyjo-lan/v1/test-vectors", b"\xff" * 8]
        return {
            "about": "encode(), SHA-512, hash_to_scalar, make_context, hash_to_point, cards, generators.",
            "encode": encodings,
            "hash512": {"items": tree(scalar_items), "digest": hx(hash512(*scalar_items))},
            "hash_to_scalar": {"items": tree(scalar_items), "scalar": sc(hash_to_scalar(*scalar_items))},
            "make_context": {
                "session_id": hx(SESSION_ID),
                "seat": 1,
                "transcript_hash": hx(th),
                "hash_input": hx(encode(*context_items)),
                "context": hx(make_context(SESSION_ID, 1, th)),
            },
            "fiat_shamir_label": FIAT_SHAMIR_LABEL,
            "hash_to_point": {
                "label": CARD_LABEL,
                "parts": tree([game_id, 0]),
                "counter": 0,
                "digest": hx(h2p_digest),
                "point": hx(hash_to_point(CARD_LABEL, game_id, 0)),
            },
            "cards": {
                "deck": DECK,
                "session_id": hx(SESSION_ID),
                "game_id": hx(game_id),
                "points": {str(k): hx(hash_to_point(CARD_LABEL, game_id, k)) for k in (0, 1, 2, 3, 4, 149)},
            },
            "shuffle_generators": {
                "label": GENERATORS_LABEL,
                "h": hx(chain_generator()),
                "h_i": {str(i + 1): hx(p) for i, p in enumerate(generators(4))},
            },
            "base_point": hx(BASE),
        }

    # keys.json: the keys job of the 3 seats, as frames, and the transcript -------------------

    def keys_job(self) -> dict[str, Any]:
        config = self.config
        start = transcript_start(config)
        genesis = config.genesis_hash
        seats: list[dict[str, Any]] = []
        with deterministic("keys") as stream:
            for _ in range(PLAYERS):
                x, public = keygen(rng=stream)
                self.secrets.append(x)
                self.publics.append(public)
            th = start
            hashes = []
            commit_frames = []
            for seat in range(PLAYERS):
                context = make_context(SESSION_ID, seat, start)
                commit = key_commitment(self.publics[seat], context)
                self.commitments.append(commit)
                data: dict[str, Any] = {"commit": commit}
                envelope = seal(config, self.keys[seat], seat, 0, genesis, "keycommit", data)
                commit_frames.append((envelope, data, context))
                th = extend(th, envelope.digest)
                hashes.append(hx(th))
            reveal_hash = th
            key_frames = []
            for seat in range(PLAYERS):
                context = make_context(SESSION_ID, seat, reveal_hash)
                before = len(stream.scalars())
                proof = prove_key(self.secrets[seat], self.publics[seat], context, rng=stream)
                nonce = stream.scalars()[before]
                wire = [bytes(v) for v in proof.to_wire()]
                self.key_proofs.append(wire)
                data = {"key": bytes(self.publics[seat]), "proof": wire}
                envelope = seal(config, self.keys[seat], seat, 1, commit_frames[seat][0].digest, "key", data)
                key_frames.append((envelope, data, context, nonce, proof))
                th = extend(th, envelope.digest)
                hashes.append(hx(th))
        self.after_keys = th
        self.y = joint_key(self.publics)
        self.key_frames = [f[0] for f in commit_frames] + [f[0] for f in key_frames]
        for seat in range(PLAYERS):
            envelope, data, context = commit_frames[seat]
            k_envelope, k_data, k_context, nonce, proof = key_frames[seat]
            seats.append(
                {
                    "seat": seat,
                    "secret_x": sc(self.secrets[seat]),
                    "public_key_X": hx(self.publics[seat]),
                    "commitment_context": hx(context),
                    "commitment": hx(self.commitments[seat]),
                    "keycommit_frame": frame_json(envelope, data),
                    "proof_context": hx(k_context),
                    "schnorr_nonce_w": sc(nonce),
                    "schnorr_commitment_A": hx(mul_base(nonce)),
                    "schnorr_challenge_e": sc(proof.challenge),
                    "schnorr_response_s": sc(proof.response),
                    "key_frame": frame_json(k_envelope, k_data),
                }
            )
        frames = [e.frame for e in self.key_frames]
        return {
            "about": (
                "The keys job of the 3-seat table: keycommit frames (seq 0) then key frames (seq 1), "
                "consumed in seat order; the transcript hash after each; the transcript file."
            ),
            "stream": "keys",
            "key_commitment_label": KEY_COMMITMENT_LABEL,
            "schnorr_label": SCHNORR_LABEL,
            "transcript_start": hx(start),
            "seats": seats,
            "consumption_order": [[e.seat, e.seq, e.kind] for e in self.key_frames],
            "transcript_hashes": hashes,
            "reveal_hash": hx(reveal_hash),
            "transcript_after_keys": hx(th),
            "joint_key_Y": hx(self.y),
            "next_context_seat0_shuffle": hx(make_context(SESSION_ID, 0, th)),
            "transcript_file": {
                "header": hx(header(config)),
                "records": [hx(record(f)) for f in frames],
                "file": hx(header(config) + b"".join(record(f) for f in frames)),
            },
        }

    # deck.json: card ciphertexts, re-encryption, decryption shares ---------------------------

    def deck(self) -> dict[str, Any]:
        y = self.y
        game_id = deck_game_id(DECK)
        book = Codebook(game_id, SHUFFLE_CARDS)
        initial = book.initial_deck(y)
        with deterministic("deck") as stream:
            re_r = [random_scalar(rng=stream) for _ in range(3)]
            ciphertexts = [reencrypt(c, y, s) for c, s in zip(initial[:3], re_r, strict=True)]
            self.deck_ciphertexts = ciphertexts
            # one share with its own DLEQ proof (seat 0, card 0)
            single_context = make_context(SESSION_ID, 0, fixed_hash("single-share"))
            before = len(stream.scalars())
            single = make_share(self.secrets[0], self.publics[0], ciphertexts[0], single_context, rng=stream)
            single_nonce = stream.scalars()[before]
            # a batch of 3 shares by seat 1
            batch_context = make_context(SESSION_ID, 1, fixed_hash("share-batch"))
            before = len(stream.scalars())
            batch = make_share_batch(self.secrets[1], self.publics[1], ciphertexts, batch_context, rng=stream)
            batch_nonce = stream.scalars()[before]
        statement = _batch_statement(self.publics[1], ciphertexts, batch.shares)
        coefs = _batch_coefficients(statement, batch_context, len(ciphertexts))
        c_combined = lincomb((e_j, ct.c1) for e_j, ct in zip(coefs, ciphertexts, strict=True))
        d_combined = lincomb((e_j, d) for e_j, d in zip(coefs, batch.shares, strict=True))
        self.batch_wire = [list(batch.shares), *batch.to_wire()[1:]]
        shares_all = [decryption_share(x, ciphertexts[0]) for x in self.secrets]
        message = combine_shares(ciphertexts[0], shares_all)
        return {
            "about": (
                "The public starting deck (G, M_k + Y), re-encryption (c1 + sG, c2 + sY), "
                "a single DLEQ share, a batch of 3 shares with one proof, combining shares."
            ),
            "stream": "deck",
            "joint_key_Y": hx(y),
            "game_id": hx(game_id),
            "card_points": [hx(p) for p in book.points],
            "initial_deck": deck_json(initial),
            "reencryption": {
                "randomness_s": [sc(v) for v in re_r],
                "inputs": deck_json(initial[:3]),
                "outputs": deck_json(ciphertexts),
            },
            "single_share": {
                "label": DLEQ_LABEL,
                "seat": 0,
                "public_key_X": hx(self.publics[0]),
                "ciphertext": deck_json(ciphertexts[:1])[0],
                "context": hx(single_context),
                "context_transcript_hash": hx(fixed_hash("single-share")),
                "share_D": hx(single.share),
                "nonce_w": sc(single_nonce),
                "commitments": [hx(mul_base(single_nonce)), hx(mul(single_nonce, ciphertexts[0].c1))],
                "challenge_e": sc(single.proof.challenge),
                "response_s": sc(single.proof.response),
                "wire": [hx(v) for v in single.to_wire()],
            },
            "share_batch": {
                "label": BATCH_LABEL,
                "seat": 1,
                "public_key_X": hx(self.publics[1]),
                "ciphertexts": deck_json(ciphertexts),
                "context": hx(batch_context),
                "context_transcript_hash": hx(fixed_hash("share-batch")),
                "coefficients_e_j": [sc(e) for e in coefs],
                "combined_C": hx(c_combined),
                "combined_D": hx(d_combined),
                "nonce_w": sc(batch_nonce),
                "commitments": [hx(mul_base(batch_nonce)), hx(mul(batch_nonce, c_combined))],
                "challenge_e": sc(
                    share_batch_challenge(ShareCheck(self.publics[1], ciphertexts, batch, batch_context))
                ),
                "response_s": sc(batch.proof.response),
                "wire": [[hx(d) for d in batch.shares], *(hx(v) for v in self.batch_wire[1:])],
            },
            "combine": {
                "ciphertext": deck_json(ciphertexts[:1])[0],
                "shares_by_seat": [hx(d) for d in shares_all],
                "plaintext_M": hx(message),
                "card_index": book.index_of(message),
            },
        }

    # shuffle.json: three 4-card shuffles in seat order, with proofs --------------------------

    def shuffle(self) -> dict[str, Any]:
        y = self.y
        book = Codebook(deck_game_id(DECK), SHUFFLE_CARDS)
        deck = book.initial_deck(y)
        decks = [deck]
        records = []
        n = SHUFFLE_CARDS
        with deterministic("shuffle") as stream:
            for seat in range(PLAYERS):
                transcript_hash = fixed_hash(f"shuffle-{seat}")
                context = make_context(SESSION_ID, seat, transcript_hash)
                before = len(stream.scalars())
                outputs, r_prime, psi = gen_shuffle(decks[-1], y, rng=stream)
                proof = gen_shuffle_proof(decks[-1], outputs, r_prime, psi, y, context, rng=stream)
                drawn = stream.scalars()[before:]
                # draw order: r'_1..r'_N, then in GenShuffleProof r_1..r_N (permutation commitments),
                # r^_1..r^_N (chain), w1, w2, w3, w4, w^_1..w^_N, w'_1..w'_N
                assert drawn[:n] == r_prime
                nonces = drawn[n:]
                u = _get_challenges(decks[-1], outputs, proof.commitments, y, context)
                t_hat = _chain_commitments(proof, chain_generator())
                assert list(proof.t_hat) == t_hat  # sent in the proof (version 4), and recomputable
                wire = proof.to_wire()
                records.append(
                    {
                        "seat": seat,
                        "transcript_hash": hx(transcript_hash),
                        "context": hx(context),
                        "inputs": deck_json(decks[-1]),
                        "permutation_psi": psi,
                        "reencryption_r_prime": [sc(v) for v in r_prime],
                        "nonces": {
                            "r": [sc(v) for v in nonces[0:n]],
                            "r_hat": [sc(v) for v in nonces[n : 2 * n]],
                            "w1_w2_w3_w4": [sc(v) for v in nonces[2 * n : 2 * n + 4]],
                            "w_hat": [sc(v) for v in nonces[2 * n + 4 : 3 * n + 4]],
                            "w_prime": [sc(v) for v in nonces[3 * n + 4 : 4 * n + 4]],
                        },
                        "challenges_u": [sc(v) for v in u],
                        "chain_commitments_t_hat": [hx(p) for p in t_hat],
                        "outputs": deck_json(outputs),
                        "proof": {
                            "t": [hx(p) for p in (proof.t1, proof.t2, proof.t3, proof.t41, proof.t42)],
                            "challenge_e": sc(proof.challenge),
                            "s1_s2_s3_s4": [sc(v) for v in (proof.s1, proof.s2, proof.s3, proof.s4)],
                            "s_hat": [sc(v) for v in proof.s_hat],
                            "s_prime": [sc(v) for v in proof.s_prime],
                            "commitments_c": [hx(p) for p in proof.commitments],
                            "chain_c_hat": [hx(p) for p in proof.chain],
                            "chain_commitments_t_hat": [hx(p) for p in proof.t_hat],
                        },
                        "proof_wire": tree(wire),
                    }
                )
                if seat == 1:
                    self.shuffle_out = outputs
                    self.shuffle_proof_wire = wire
                decks.append(outputs)
        final = decks[-1]
        order = [
            book.index_of(combine_shares(c, [decryption_share(x, c) for x in self.secrets])) for c in final
        ]
        return {
            "about": (
                "A 4-card deal: the public deck, then seats 0, 1, 2 each shuffle with a "
                "Terelius-Wikstrom proof; the final deck decrypts to the card order given."
            ),
            "stream": "shuffle",
            "labels": {
                "generators": GENERATORS_LABEL,
                "challenges": CHALLENGES_LABEL,
                "proof": SHUFFLE_LABEL,
            },
            "joint_key_Y": hx(y),
            "game_id": hx(book.game_id),
            "generators": {
                "h": hx(chain_generator()),
                "h_i": [hx(p) for p in generators(n)],
            },
            "shuffles": records,
            "final_card_order": order,
        }

    # coins.json ------------------------------------------------------------------------------

    def coins(self) -> dict[str, Any]:
        start_hash = fixed_hash("coin-job")
        label = "random:first-player:7"
        seats = []
        with deterministic("coins") as stream:
            for seat in range(PLAYERS):
                contribution = CoinContribution.new(rng=stream)
                context = make_context(SESSION_ID, seat, start_hash)
                commit = contribution.commitment(label, context, seat)
                self.coin_commits.append(commit)
                self.coin_reveals.append(contribution)
                seats.append(
                    {
                        "seat": seat,
                        "context": hx(context),
                        "nonce": hx(contribution.nonce),
                        "value": hx(contribution.value),
                        "commitment": hx(commit),
                    }
                )
        values = {seat: c.value for seat, c in enumerate(self.coin_reveals)}
        results = [
            {"n": n, "index": index, "value": combine_coins(label, start_hash, values, n, index)}
            for n, index in ((3, 0), (2, 0), (150, 0), (3, 1))
        ]
        return {
            "about": (
                "A joint coin of job 7 (purpose first-player): commitments, reveals, and the "
                "combined value for several ranges n. The combination's context is the job's start "
                "transcript hash itself, not a make_context output."
            ),
            "stream": "coins",
            "label": label,
            "start_transcript_hash": hx(start_hash),
            "seats": seats,
            "results": results,
        }

    # private_shares.json: a keeper's shares encrypted to one recipient, and complaints -------
