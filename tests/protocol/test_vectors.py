"""The wire-protocol test vectors in protocol/vectors/ (see protocol/PROTOCOL.md, "Test vectors").

Two directions:
* recompute: every vector file is rebuilt by the current code (tools/vectors/, with the
  generator's fixed random streams passed as `rng=`) and must equal the stored file, value for value;
* verify: the stored bytes, read back from the files, are accepted by the product code (frames
  open and chain, proofs verify under the stated contexts, shares decrypt, the transcript
  replays in an observer session), so an implementer can check both ways.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from rbcl import crypto_core_ristretto255_from_hash

from protocol.config import TableConfig
from protocol.crypto import (
    Ciphertext,
    CoinContribution,
    DecryptionShare,
    DLEQProof,
    InvalidProof,
    PrivateShares,
    SchnorrProof,
    ShareBatch,
    ShuffleProof,
    check_packet,
    combine_coins,
    combine_shares,
    complaint_context,
    deck_from_wire,
    decode_point,
    decode_scalar,
    hash_to_point,
    judge_complaint,
    key_commitment,
    open_shares,
    verify_coin_reveal,
    verify_dleq,
    verify_key,
    verify_key_commitment,
    verify_share,
    verify_share_batch,
    verify_shuffle,
    verify_shuffle_chain,
)
from protocol.crypto.dleq import decryption_share
from protocol.crypto.elgamal import CARD_LABEL, Codebook, joint_key, reencrypt
from protocol.crypto.escrow import (
    EscrowComplaint,
    EscrowDeal,
    EscrowTerms,
    check_deal,
    combine_partials,
    judge_escrow_complaint,
    open_share,
    verify_partials,
)
from protocol.crypto.group import L, mul, mul_base
from protocol.crypto.hashing import challenge, encode, hash512, hash_to_scalar, make_context
from protocol.crypto.private_share import packet_context
from protocol.crypto.shuffle import chain_generator, generators
from protocol.errors import BadSignature, MalformedSignedFrame
from protocol.events import Blamed, FrameRejected, Halted, RoundSigned
from protocol.messages import KINDS, MAX_FRAME, SCHEMAS, body_digest, encode_body, open_frame
from protocol.session import Session
from protocol.transcript import dump as dump_transcript
from protocol.transcript import extend, load, transcript_start
from protocol.verify import verify_bytes
from tools import vectors as generate
from tools.vectors import VECTOR_DIR, DeterministicSecrets, build_all, differences, dump, untree

FILES = (
    "table.json",
    "hashing.json",
    "keys.json",
    "deck.json",
    "shuffle.json",
    "coins.json",
    "private_shares.json",
    "frames.json",
    "escrow.json",
    "signatures.json",
)
"""The small vectors (`build_all`); the whole-game vector (game.json and its transcript file) is
tested at the end."""


def stored(name: str) -> dict[str, Any]:
    content: dict[str, Any] = json.loads((VECTOR_DIR / name).read_text())
    return content


def b(text: str) -> bytes:
    return bytes.fromhex(text)


def scalar(text: str) -> int:
    return decode_scalar(b(text))


def deck(rows: list[list[str]]) -> list[Ciphertext]:
    return deck_from_wire([[b(c1), b(c2)] for c1, c2 in rows])


@pytest.fixture(scope="module")
def recomputed() -> dict[str, dict[str, Any]]:
    return {name: json.loads(dump(content)) for name, content in build_all().items()}


@pytest.fixture(scope="module")
def config() -> TableConfig:
    table = stored("table.json")
    return TableConfig.decode(b(table["genesis"]))


# --- recompute ----------------------------------------------------------------------------------


def test_the_generator_writes_exactly_these_files(recomputed: dict[str, dict[str, Any]]) -> None:
    assert tuple(recomputed) == FILES


@pytest.mark.parametrize("name", FILES)
def test_vector_file_matches_the_current_code(name: str, recomputed: dict[str, dict[str, Any]]) -> None:
    diff = differences(stored(name), recomputed[name])
    assert not diff, (
        f"protocol/vectors/{name} differs from what the current code computes "
        f"({len(diff)} difference(s)):\n  "
        + "\n  ".join(diff[:25])
        + "\nA wire-visible change: if it is intended, run `python -m tools.generate_vectors`, "
        "review the diff and update protocol/PROTOCOL.md (worked examples)."
    )


def test_the_random_stream_is_the_documented_one() -> None:
    """PROTOCOL.md, "Test vectors": block i = SHA-512(prefix + label + i as 8 bytes big-endian)."""
    stream = DeterministicSecrets("keys")
    first = stream.randbelow(L - 1) + 1
    block = hashlib.sha512(b"skyjo-lan/v1/test-vectors/keys" + (0).to_bytes(8, "big")).digest()
    assert first == int.from_bytes(block, "big") % (L - 1) + 1
    assert scalar(stored("keys.json")["seats"][0]["secret_x"]) == first
    tokens = DeterministicSecrets("coins").token_bytes(32)
    assert tokens == hashlib.sha512(b"skyjo-lan/v1/test-vectors/coins" + bytes(8)).digest()[:32]


def test_patching_restores_the_secrets_module() -> None:
    import secrets

    with generate.deterministic("x"):
        pass
    for module in generate._PATCHED:
        assert module.secrets is secrets


# --- verify: the table and the frames -------------------------------------------------------------


def test_genesis_and_transcript_start(config: TableConfig) -> None:
    table = stored("table.json")
    keys = [Ed25519PrivateKey.from_private_bytes(b(seed)) for seed in table["identity_seeds"]]
    assert [k.public_key().public_bytes_raw().hex() for k in keys] == table["identity_public_keys"]
    assert config.encode().hex() == table["genesis"]  # decode/encode round trip is exact
    assert list(config.identities) == [b(k) for k in table["identity_public_keys"]]
    assert dict(config.options) == untree(table["config"]["options"])
    genesis_hash = hashlib.sha256(b"skyjo-lan/v1/genesis" + b(table["genesis"])).digest()
    assert genesis_hash.hex() == table["genesis_hash"] == config.genesis_hash.hex()
    start = hashlib.sha256(b"skyjo-lan/v1/transcript" + genesis_hash).digest()
    assert start.hex() == table["transcript_start"] == transcript_start(config).hex()
    game_id = hashlib.sha256(b"skyjo-lan/v1/deck" + config.session_id + b"skyjo").digest()
    assert game_id.hex() == table["deck_game_ids"]["skyjo"]


def _check_frame(item: dict[str, Any], config: TableConfig) -> None:
    frame = b(item["frame"])
    assert len(frame) <= MAX_FRAME
    assert b(item["length_prefix"]) == len(frame).to_bytes(4, "big")
    assert msgpack.unpackb(frame) == [b(item["body"]), b(item["signature"])]
    envelope = open_frame(frame, config)
    assert (envelope.seat, envelope.seq, envelope.kind) == (item["seat"], item["seq"], item["kind"])
    assert envelope.prev.hex() == item["prev"]
    assert envelope.data == untree(item["data"])
    assert body_digest(b(item["body"])).hex() == item["body_digest"]
    assert hashlib.sha256(b(item["body"])).hexdigest() == item["body_digest"]
    body = msgpack.unpackb(b(item["body"]))
    # [v, sid, seat, seq, prev, kind code, acks, data in schema order]
    assert len(body) == 8 and KINDS[body[5]] == item["kind"]
    assert body[2:5] == [item["seat"], item["seq"], b(item["prev"])]
    acks = [[s, q, b(d)] for s, q, d in item.get("acks", [])]
    assert body[6] == acks and [list(a) for a in envelope.acks] == acks
    assert body[7] == [envelope.data[name] for name in SCHEMAS[item["kind"]]]


def test_every_kind_of_frame_opens_and_chains(config: TableConfig) -> None:
    frames = stored("frames.json")["frames"]
    kinds = {item["kind"] for item in frames}
    assert kinds == {
        "keycommit",
        "key",
        "shuffle",
        "shares",
        "coincommit",
        "coin",
        "move",
        "roundsig",
        "echo",
        "chat",
        "evidence",
        "complaint",
        "want",
        "halt",
        "leave",
        "away",
        "escrow",
        "vacate",
        "uphold",
        "withdraw",
        "partials",
        "return",
        "stepout",
        "remove",
    }
    assert kinds == set(SCHEMAS)
    prev = config.genesis_hash.hex()
    for seq, item in enumerate(frames):
        _check_frame(item, config)
        assert item["seq"] == seq and item["prev"] == prev
        prev = item["body_digest"]
    assert f"seq 0..{len(frames) - 1})" in stored("frames.json")["about"]


def test_want_and_halt_frames(config: TableConfig) -> None:
    """PROTOCOL.md 7 and 10: a `want` names a seat and a first number; a halt has a reason, at
    most one culprit, at most 8 absent seats and at most 8 evidence frames, each a signed frame."""
    vectors = stored("frames.json")
    frames = vectors["frames"]
    [want] = [untree(f["data"]) for f in frames if f["kind"] == "want"]
    assert want == {"seat": 0, "from": 2}
    absent, proven = [untree(f["data"]) for f in frames if f["kind"] == "halt"]
    assert absent["culprit"] == [] and absent["absent"] == [0] and absent["evidence"] == []
    assert proven["culprit"] == [2] and proven["absent"] == []
    [evidence] = proven["evidence"]
    garbage = vectors["garbage"]
    assert evidence.hex() == garbage["frame"]
    assert msgpack.unpackb(evidence) == [b(garbage["body"]), b(garbage["signature"])]
    assert hashlib.sha256(b(garbage["body"])).hexdigest() == garbage["body_digest"]
    body = msgpack.unpackb(b(garbage["body"]))
    assert (body[2], body[3], body[4].hex(), KINDS[body[5]]) == (2, 2, garbage["prev"], "chat")
    assert body[7] == [""] and untree(garbage["data"]) == {"text": ""}
    # seat 2's frame #2 follows its key frame (#1) of keys.json
    assert garbage["prev"] == stored("keys.json")["seats"][2]["key_frame"]["body_digest"]
    # the evidence is signed by the culprit and malformed: it proves the fault on its own
    with pytest.raises(MalformedSignedFrame) as refused:
        open_frame(evidence, config)
    assert refused.value.seat == 2 and refused.value.frame == evidence
    assert proven["reason"] == garbage["refused_because"] == f"seat 3: {refused.value.reason}"


def _sign(config: TableConfig, seat: int, seq: int, prev: bytes, kind: str, data: dict[str, Any]) -> bytes:
    """A frame signed by `seat` with the vector identity key, its data unchecked."""
    key = Ed25519PrivateKey.from_private_bytes(b(stored("table.json")["identity_seeds"][seat]))
    body = encode_body(config, seat, seq, prev, kind, data)
    return bytes(msgpack.packb([body, key.sign(body)], use_bin_type=True))


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        ("want", {"seat": 8, "from": 0}),  # no seat 8 in any table
        ("want", {"seat": 0, "from": -1}),
        ("want", {"seat": True, "from": 0}),
        ("halt", {"reason": "", "culprit": [], "absent": [], "evidence": []}),
        ("halt", {"reason": "x" * 501, "culprit": [], "absent": [], "evidence": []}),
        ("halt", {"reason": "x", "culprit": [0, 1], "absent": [], "evidence": []}),
        ("halt", {"reason": "x", "culprit": [], "absent": [*range(8), 0], "evidence": []}),
        ("halt", {"reason": "x", "culprit": [0], "absent": [], "evidence": [b"x"] * 9}),
        ("halt", {"reason": "x", "culprit": [0], "absent": [], "evidence": [b""]}),
    ],
)
def test_malformed_want_and_halt_are_signed_garbage(
    config: TableConfig, kind: str, data: dict[str, Any]
) -> None:
    frame = _sign(config, 1, 0, config.genesis_hash, kind, data)
    with pytest.raises(MalformedSignedFrame) as refused:
        open_frame(frame, config)
    assert refused.value.seat == 1


def _observer_after_keys(config: TableConfig) -> Session:
    """An observer that consumed keys.json's keys job: it waits for seat 0's deal shuffle."""
    observer = Session(config, None, None)
    observer.start()
    for item in stored("keys.json")["seats"]:
        observer.receive_frame(b(item["keycommit_frame"]["frame"]))
    for item in stored("keys.json")["seats"]:
        observer.receive_frame(b(item["key_frame"]["frame"]))
    assert observer.waiting_for() == ("job:2:shuffle:0", (0,))
    observer.next_events()
    return observer


def test_the_halt_frames_give_their_verdicts(config: TableConfig) -> None:
    """Fed seat 1's chain after the keys job, an observer adopts the stop without proof (seat 0
    absent, nobody blamed), then checks the second halt's evidence itself: seat 2 is blamed."""
    observer = _observer_after_keys(config)
    events: dict[str, list[Any]] = {}
    for item in stored("frames.json")["frames"]:
        observer.receive_frame(b(item["frame"]))
        events[f"{item['seq']}:{item['kind']}"] = observer.next_events()
    assert not [
        e
        for key, got in events.items()
        if not key.endswith("halt")
        for e in got
        if isinstance(e, Blamed | Halted | FrameRejected)
    ]
    halts = [got for key, got in events.items() if key.endswith("halt")]
    assert [type(e) for e in halts[0]] == [Halted]
    assert halts[0][0].culprit is None and halts[0][0].absent == (0,)
    blamed, halted = halts[1]
    assert isinstance(blamed, Blamed) and isinstance(halted, Halted)
    garbage = b(stored("frames.json")["garbage"]["frame"])
    assert (blamed.seat, blamed.evidence) == (2, (garbage,))
    assert (halted.culprit, halted.absent) == (2, ())
    assert (observer.culprit, observer.halted) == (2, halted.reason)


def test_a_halt_whose_evidence_proves_nothing_blames_its_sender(config: TableConfig) -> None:
    """Seat 1 halts blaming seat 0 with seat 0's valid key commitment: once that frame is
    consumed (here at once) and no fault was found, seat 1 is blamed with its halt frame."""
    observer = _observer_after_keys(config)
    keys = stored("keys.json")["seats"]
    prev = b(keys[1]["key_frame"]["body_digest"])
    evidence = b(keys[0]["keycommit_frame"]["frame"])
    data = {"reason": "seat 0: made up", "culprit": [0], "absent": [], "evidence": [evidence]}
    halt = _sign(config, 1, 2, prev, "halt", data)
    observer.receive_frame(halt)
    blamed = [e for e in observer.next_events() if isinstance(e, Blamed)]
    assert [(e.seat, e.evidence) for e in blamed] == [(1, (halt,))]
    assert observer.culprit == 1


def test_a_tampered_frame_is_refused(config: TableConfig) -> None:
    frame = b(stored("frames.json")["frames"][0]["frame"])
    with pytest.raises(BadSignature):
        open_frame(frame[:-1] + bytes([frame[-1] ^ 1]), config)  # the signature's last byte


# --- verify: keys, transcript ---------------------------------------------------------------------


def test_keys_job_verifies_and_replays(config: TableConfig) -> None:
    keys = stored("keys.json")
    start = transcript_start(config)
    assert keys["transcript_start"] == start.hex()
    th = start
    frames = [item["keycommit_frame"] for item in keys["seats"]] + [
        item["key_frame"] for item in keys["seats"]
    ]
    for item, expected in zip(frames, keys["transcript_hashes"], strict=True):
        _check_frame(item, config)
        th = extend(th, b(item["body_digest"]))
        assert th.hex() == expected
    assert keys["reveal_hash"] == keys["transcript_hashes"][2]
    assert th.hex() == keys["transcript_after_keys"]
    publics = []
    for seat, item in enumerate(keys["seats"]):
        public = decode_point(b(item["public_key_X"]))
        assert mul_base(scalar(item["secret_x"])) == public
        context = make_context(config.session_id, seat, start)
        assert context.hex() == item["commitment_context"]
        verify_key_commitment(b(item["commitment"]), public, context)
        proof_context = make_context(config.session_id, seat, b(keys["reveal_hash"]))
        assert proof_context.hex() == item["proof_context"]
        proof = SchnorrProof.from_wire([b(item["schnorr_challenge_e"]), b(item["schnorr_response_s"])])
        verify_key(public, proof, proof_context)
        with pytest.raises(InvalidProof):
            verify_key(public, proof, make_context(config.session_id, (seat + 1) % 3, b(keys["reveal_hash"])))
        assert mul_base(scalar(item["schnorr_nonce_w"])).hex() == item["schnorr_commitment_A"]
        assert untree(item["key_frame"]["data"]) == {
            "key": public,
            "proof": [b(item["schnorr_challenge_e"]), b(item["schnorr_response_s"])],
        }
        assert untree(item["keycommit_frame"]["data"]) == {"commit": key_commitment(public, context)}
        publics.append(public)
    assert joint_key(publics).hex() == keys["joint_key_Y"]


def test_the_transcript_file_replays_in_an_observer(config: TableConfig) -> None:
    keys = stored("keys.json")
    data = b(keys["transcript_file"]["file"])
    loaded, frames = load(data)
    assert loaded == config
    assert [f.hex() for f in frames] == [
        *(item["keycommit_frame"]["frame"] for item in keys["seats"]),
        *(item["key_frame"]["frame"] for item in keys["seats"]),
    ]
    observer = Session(loaded, None, None)
    observer.start()
    for frame in frames:
        observer.receive_frame(frame)
    events = observer.next_events()
    assert not [e for e in events if isinstance(e, Blamed | Halted | FrameRejected)]
    assert observer.transcript_hash.hex() == keys["transcript_after_keys"]
    assert observer.joint_key is not None and observer.joint_key.hex() == keys["joint_key_Y"]
    assert observer.state is not None  # the game started: the deal (job 2) waits for seat 0


# --- verify: hashing, cards ------------------------------------------------------------------------


def test_hashing_vectors() -> None:
    vectors = stored("hashing.json")
    for example in vectors["encode"]:
        assert encode(*untree(example["items"])).hex() == example["encoding"]
    items = untree(vectors["hash512"]["items"])
    assert hashlib.sha512(encode(*items)).hexdigest() == vectors["hash512"]["digest"]
    digest = b(vectors["hash512"]["digest"])
    assert int.from_bytes(digest, "little") % L == scalar(vectors["hash_to_scalar"]["scalar"])
    assert hash_to_scalar(*items) == scalar(vectors["hash_to_scalar"]["scalar"])
    ctx = vectors["make_context"]
    assert hashlib.sha512(b(ctx["hash_input"])).hexdigest() == ctx["context"]
    assert make_context(b(ctx["session_id"]), ctx["seat"], b(ctx["transcript_hash"])).hex() == ctx["context"]
    h2p = vectors["hash_to_point"]
    digest = hash512("skyjo-lan/v1/hash-to-point", h2p["label"], untree(h2p["parts"]), h2p["counter"])
    assert digest.hex() == h2p["digest"]
    assert crypto_core_ristretto255_from_hash(digest).hex() == h2p["point"]  # RFC 9496, 4.3.4
    cards = vectors["cards"]
    for k, point in cards["points"].items():
        assert hash_to_point(CARD_LABEL, b(cards["game_id"]), int(k)).hex() == point
    assert cards["points"]["0"] == h2p["point"]
    gens = vectors["shuffle_generators"]
    assert chain_generator().hex() == gens["h"]
    assert [p.hex() for p in generators(4)] == [gens["h_i"][str(i)] for i in range(1, 5)]


# --- verify: deck, shares -------------------------------------------------------------------------


def test_deck_and_share_vectors() -> None:
    vectors = stored("deck.json")
    keys = stored("keys.json")
    y = decode_point(b(vectors["joint_key_Y"]))
    book = Codebook(b(vectors["game_id"]), 4)
    assert [p.hex() for p in book.points] == vectors["card_points"]
    initial = deck(vectors["initial_deck"])
    for card, point in zip(initial, book.points, strict=True):
        assert card.c1 == mul_base(1)
        assert combine_shares(card, [y]) == point  # c2 - Y = M_k
    reenc = vectors["reencryption"]
    for s, before, after in zip(
        reenc["randomness_s"], deck(reenc["inputs"]), deck(reenc["outputs"]), strict=True
    ):
        assert reencrypt(before, y, scalar(s)) == after

    single = vectors["single_share"]
    public = decode_point(b(single["public_key_X"]))
    [ciphertext] = deck([single["ciphertext"]])
    share = DecryptionShare.from_wire([b(v) for v in single["wire"]])
    verify_share(public, ciphertext, share, b(single["context"]))
    with pytest.raises(InvalidProof):
        verify_share(public, ciphertext, share, b(vectors["share_batch"]["context"]))
    x0 = scalar(keys["seats"][0]["secret_x"])
    assert share.share.hex() == single["share_D"] == mul(x0, ciphertext.c1).hex()

    batch = vectors["share_batch"]
    public = decode_point(b(batch["public_key_X"]))
    wire = batch["wire"]
    parsed = ShareBatch.from_wire([[b(d) for d in wire[0]], *(b(v) for v in wire[1:])], expected_len=3)
    ciphertexts = deck(batch["ciphertexts"])
    verify_share_batch(public, ciphertexts, parsed, b(batch["context"]))
    # commitment form (version 5): A, B on the wire, e recomputed from them
    assert [parsed.proof.commit_a.hex(), parsed.proof.commit_b.hex()] == batch["commitments"]
    statement = [mul_base(1), public, [c.c1 for c in ciphertexts], list(parsed.shares)]
    commitments = [parsed.proof.commit_a, parsed.proof.commit_b]
    recomputed = challenge("skyjo-lan/v1/dleq-batch", statement, commitments, b(batch["context"]))
    assert recomputed == scalar(batch["challenge_e"])
    with pytest.raises(InvalidProof):
        verify_share_batch(public, ciphertexts[::-1], parsed, b(batch["context"]))
    seed = hash512(
        "skyjo-lan/v1/dleq-batch/coefficients",
        [mul_base(1), public, [c.c1 for c in ciphertexts], list(parsed.shares)],
        b(batch["context"]),
    )
    assert [hash_to_scalar(seed, j) for j in range(3)] == [scalar(e) for e in batch["coefficients_e_j"]]

    combine = vectors["combine"]
    [ciphertext] = deck([combine["ciphertext"]])
    shares = [decode_point(b(d)) for d in combine["shares_by_seat"]]
    message = combine_shares(ciphertext, shares)
    assert message.hex() == combine["plaintext_M"]
    assert book.index_of(message) == combine["card_index"]


# --- verify: shuffles -----------------------------------------------------------------------------


def _proof(record: dict[str, Any]) -> ShuffleProof:
    return ShuffleProof.from_wire(untree(record["proof_wire"]), expected_len=4)


def test_shuffle_vectors_verify() -> None:
    vectors = stored("shuffle.json")
    keys = stored("keys.json")
    y = decode_point(b(vectors["joint_key_Y"]))
    book = Codebook(b(vectors["game_id"]), 4)
    session_id = b(stored("table.json")["config"]["session_id"])
    decks = [deck(vectors["shuffles"][0]["inputs"])]
    assert decks[0] == book.initial_deck(y)
    proofs, contexts = [], []
    for seat, record in enumerate(vectors["shuffles"]):
        inputs, outputs = deck(record["inputs"]), deck(record["outputs"])
        assert inputs == decks[-1]
        context = b(record["context"])
        assert make_context(session_id, seat, b(record["transcript_hash"])) == context
        proof = _proof(record)
        verify_shuffle(inputs, outputs, y, proof, context)
        with pytest.raises(InvalidProof):
            verify_shuffle(inputs, outputs[::-1], y, proof, context)
        with pytest.raises(InvalidProof):
            verify_shuffle(inputs, outputs, y, proof, b(vectors["shuffles"][(seat + 1) % 3]["context"]))
        # the witness: output i re-encrypts input psi[i] with r'_i
        for i, (j, r) in enumerate(
            zip(record["permutation_psi"], record["reencryption_r_prime"], strict=True)
        ):
            assert reencrypt(inputs[j], y, scalar(r)) == outputs[i]
        decks.append(outputs)
        proofs.append(proof)
        contexts.append(context)
    verify_shuffle_chain(decks, proofs, y, contexts)
    secrets_x = [scalar(item["secret_x"]) for item in keys["seats"]]
    order = [book.index_of(combine_shares(c, [decryption_share(x, c) for x in secrets_x])) for c in decks[-1]]
    assert order == vectors["final_card_order"]
    assert sorted(order) == [0, 1, 2, 3]


# --- verify: coins --------------------------------------------------------------------------------


def test_coin_vectors_verify() -> None:
    vectors = stored("coins.json")
    start = b(vectors["start_transcript_hash"])
    values = {}
    for item in vectors["seats"]:
        reveal = CoinContribution.from_wire([b(item["nonce"]), b(item["value"])])
        verify_coin_reveal(b(item["commitment"]), vectors["label"], b(item["context"]), item["seat"], reveal)
        values[item["seat"]] = reveal.value
    for result in vectors["results"]:
        assert combine_coins(vectors["label"], start, values, result["n"], result["index"]) == result["value"]


# --- verify: private shares and complaints ----------------------------------------------------------


def _packet(wire: Any) -> PrivateShares:
    return PrivateShares.from_wire(untree(wire))


def test_private_share_vectors(config: TableConfig) -> None:
    """PROTOCOL.md 12.9: recompute every derivation from the listed values, open the box with the
    recipient's secret, check what every peer checks, and judge both complaints."""
    vectors = stored("private_shares.json")
    sender, to = vectors["sender"], vectors["recipient"]
    x_t = scalar(vectors["recipient_secret"])
    x_k = scalar(stored("keys.json")["seats"][sender]["secret_x"])
    sender_key = decode_point(b(vectors["sender_public_key"]))
    recipient_key = decode_point(b(vectors["recipient_public_key"]))
    assert mul_base(x_t) == recipient_key and mul_base(x_k) == sender_key
    cards = deck(vectors["ciphertexts"])
    # contexts
    context = make_context(config.session_id, sender, b(vectors["job_start_hash"]))
    assert context.hex() == vectors["sender_context"]
    ctx_input = encode("skyjo-lan/v1/private-share", context, sender, to)
    assert ctx_input.hex() == vectors["packet_context_hash_input"]
    ctx = hashlib.sha512(ctx_input).digest()
    assert ctx.hex() == vectors["packet_context"] == packet_context(context, sender, to).hex()
    # the ephemeral and its Schnorr proof (checked by every peer)
    e = scalar(vectors["ephemeral_e"])
    ephemeral = mul_base(e)
    assert ephemeral.hex() == vectors["ephemeral_E"]
    schnorr = vectors["schnorr"]
    assert mul_base(scalar(schnorr["nonce_w"])).hex() == schnorr["commitment_A"]
    proof = SchnorrProof.from_wire([b(schnorr["challenge_e"]), b(schnorr["response_s"])])
    verify_key(ephemeral, proof, ctx)
    # the key: Z = e X_t = x_t E, HKDF-SHA256 (no salt), ChaCha20-Poly1305 with a zero nonce
    z = mul(x_t, ephemeral)
    assert z == mul(e, recipient_key) and z.hex() == vectors["dh_Z"]
    hkdf = vectors["hkdf_sha256"]
    info_input = encode("skyjo-lan/v1/private-share", "key", ctx, ephemeral)
    assert info_input.hex() == hkdf["info_hash_input"]
    info = hashlib.sha512(info_input).digest()
    assert info.hex() == hkdf["info"] and hkdf["salt"] == "" and hkdf["ikm"] == z.hex()
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(z)
    assert key.hex() == hkdf["key"]
    assert vectors["aead"] == {"algorithm": "ChaCha20-Poly1305", "nonce": "00" * 12, "aad": ctx.hex()}
    honest, tampered = vectors["cases"]
    assert (honest["case"], tampered["case"]) == ("honest", "tampered")
    packet = _packet(honest["packet_wire"])
    assert (packet.to, packet.ephemeral, packet.proof, packet.box.hex()) == (
        to,
        ephemeral,
        proof,
        honest["box"],
    )
    plain = ChaCha20Poly1305(key).decrypt(bytes(12), packet.box, ctx)
    assert plain.hex() == honest["plaintext"]
    shares = [plain[i : i + 32] for i in range(0, len(plain), 32)]
    assert [d.hex() for d in shares[:2]] == vectors["shares_D"]
    assert [mul(x_k, c.c1) for c in cards] == shares[:2]
    # the batch proof in commitment form (version 5): D_1, D_2, A, B, s
    assert shares[2:] == [*(b(v) for v in vectors["batch"]["commitments"]), b(vectors["batch"]["response_s"])]
    # what every peer checks of the frame, and what the recipient checks
    for case in (honest, tampered):
        frame = open_frame(b(case["shares_frame"]["frame"]), config)
        _check_frame(case["shares_frame"], config)
        assert frame.seat == sender and frame.data["batch"] == []
        [wire] = frame.data["private"]
        check_packet(_packet(wire), context, sender)
        with pytest.raises(InvalidProof):
            check_packet(_packet(wire), context, 2)  # another sender
    batch = open_shares(x_t, packet, sender_key, cards, context, sender)
    assert list(batch.shares) == shares[:2]
    view = vectors["recipient_view"]
    book = Codebook(b(stored("deck.json")["game_id"]), 4)
    for c, d_k, d_o, d_t, index in zip(
        cards,
        batch.shares,
        view["published_shares_seat2"],
        view["own_shares_seat1"],
        view["card_indices"],
        strict=True,
    ):
        assert mul(x_t, c.c1).hex() == d_t
        assert book.index_of(combine_shares(c, [d_k, decode_point(b(d_o)), decode_point(b(d_t))])) == index
    bad = _packet(tampered["packet_wire"])
    assert ChaCha20Poly1305(key).decrypt(bytes(12), bad.box, ctx).hex() == tampered["plaintext"]
    with pytest.raises(InvalidProof):
        open_shares(x_t, bad, sender_key, cards, context, sender)
    # the complaints: Z with a DLEQ proof log_G X_t = log_E Z, judged by anyone
    for case, sent in ((honest, packet), (tampered, bad)):
        record = case["complaint"]
        digest = hashlib.sha256(b(case["shares_frame"]["body"])).digest()
        items = encode("skyjo-lan/v1/private-share/complaint", config.session_id, to, digest)
        assert items.hex() == record["context_hash_input"]
        complaint_ctx = hashlib.sha512(items).digest()
        assert (
            complaint_ctx.hex() == record["context"] == complaint_context(config.session_id, to, digest).hex()
        )
        w = scalar(record["nonce_w"])
        assert record["commitments"] == [mul_base(w).hex(), mul(w, ephemeral).hex()]
        opened = decode_point(b(record["key_Z"]))
        assert opened == z
        dleq = DLEQProof.from_wire([b(record["challenge_e"]), b(record["response_s"])])
        verify_dleq(recipient_key, ephemeral, opened, dleq, complaint_ctx)
        _check_frame(record["frame"], config)
        complaint = open_frame(b(record["frame"]["frame"]), config)
        assert complaint.kind == "complaint" and complaint.seat == to
        assert complaint.data == {
            "frame": b(case["shares_frame"]["frame"]),
            "key": opened,
            "proof": list(dleq.to_wire()),
        }
        args = (recipient_key, sent, sender_key, cards, context, sender)
        assert judge_complaint(opened, dleq, complaint_ctx, *args) == record["verdict"]
        # a false opening is the complainer's fault, whatever the box holds
        forged = mul_base(scalar(record["nonce_w"]))
        assert judge_complaint(forged, dleq, complaint_ctx, *args) == "complainer"
        # the proof is bound to its frame
        other = complaint_context(config.session_id, to, bytes(32))
        assert judge_complaint(opened, dleq, other, *args) == "complainer"
    assert (honest["complaint"]["verdict"], tampered["complaint"]["verdict"]) == ("complainer", "sender")
    # a box that does not open (one bit flipped) is the sender's fault too
    flipped = PrivateShares(to, ephemeral, proof, packet.box[:-1] + bytes([packet.box[-1] ^ 1]))
    record = honest["complaint"]
    dleq = DLEQProof.from_wire([b(record["challenge_e"]), b(record["response_s"])])
    args = (recipient_key, flipped, sender_key, cards, context, sender)
    assert judge_complaint(z, dleq, b(record["context"]), *args) == "sender"
    # and the frames.json complaint is the tampered case's
    [last] = [f for f in stored("frames.json")["frames"] if f["kind"] == "complaint"]
    assert last["data"] == tampered["complaint"]["frame"]["data"]


# --- verify: key escrow -------------------------------------------------------------------------------


def test_escrow_vectors(config: TableConfig) -> None:
    """The escrow of seat 0's key share: recompute every derivation from the listed values, open
    each box with cryptography's HKDF and AEAD directly, check the Feldman equation by hand, judge
    both complaints, verify the partials and combine them with Lagrange coefficients by hand."""
    vectors = stored("escrow.json")
    keys = stored("keys.json")["seats"]
    dealer, holders, indices = vectors["dealer"], vectors["holders"], vectors["holder_indices"]
    x = scalar(vectors["dealer_secret"])
    assert x == scalar(keys[dealer]["secret_x"]) and mul_base(x).hex() == vectors["dealer_public_key"]
    holder_secrets = [scalar(s) for s in vectors["holder_secrets"]]
    assert [mul_base(s).hex() for s in holder_secrets] == vectors["holder_public_keys"]
    assert indices == [h + 1 for h in holders]
    context = make_context(config.session_id, dealer, b(vectors["keys_transcript_hash"]))
    assert context.hex() == vectors["context"]
    terms = EscrowTerms(
        dealer=dealer,
        public_key=decode_point(b(vectors["dealer_public_key"])),
        holder_keys=tuple(decode_point(b(k)) for k in vectors["holder_public_keys"]),
        holder_indices=tuple(indices),
        threshold=vectors["threshold"],
        context=context,
    )
    deal = EscrowDeal.from_wire(untree(vectors["deal_wire"]), terms.threshold, len(holders))
    check_deal(deal, terms)
    a_1 = scalar(vectors["coefficient_a_1"])
    assert [c.hex() for c in deal.commitments] == vectors["commitments_C"] == [mul_base(a_1).hex()]
    shares = []
    for p, record in enumerate(vectors["boxes"]):
        index, box = indices[p], deal.boxes[p]
        items = encode("skyjo-lan/v1/escrow/box", context, dealer, index, b(vectors["holder_public_keys"][p]))
        assert items.hex() == record["box_context_hash_input"]
        ctx = hashlib.sha512(items).digest()
        assert ctx.hex() == record["box_context"]
        e = scalar(record["ephemeral_e"])
        assert mul_base(e) == box.ephemeral and box.ephemeral.hex() == record["ephemeral_E"]
        schnorr = record["schnorr"]
        assert mul_base(scalar(schnorr["nonce_w"])).hex() == schnorr["commitment_A"]
        verify_key(
            box.ephemeral, SchnorrProof.from_wire([b(schnorr["challenge_e"]), b(schnorr["response_s"])]), ctx
        )
        z = mul(holder_secrets[p], box.ephemeral)
        assert z == mul(e, terms.holder_keys[p]) and z.hex() == record["dh_Z"]
        info_input = encode("skyjo-lan/v1/private-share", "key", ctx, box.ephemeral)
        assert info_input.hex() == record["hkdf_sha256"]["info_hash_input"]
        info = hashlib.sha512(info_input).digest()
        assert info.hex() == record["hkdf_sha256"]["info"]
        key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(z)
        assert key.hex() == record["hkdf_sha256"]["key"]
        plain = ChaCha20Poly1305(key).decrypt(bytes(12), box.sealed, ctx)
        share = decode_scalar(plain)
        assert plain.hex() == record["share_s"] and share == (x + a_1 * index) % L
        assert mul_base(share).hex() == record["share_point_S"] == terms.share_point(deal, p).hex()
        assert open_share(deal, terms, p, holder_secrets[p]) == share
        shares.append(share)
    # the complaints: the honest box makes the complaint false, the box holding s + 1 is the dealer's fault
    honest, cheat = vectors["complaints"]
    bad = EscrowDeal.from_wire(
        [untree(vectors["deal_wire"])[0], [deal.boxes[0].to_wire(), untree(cheat["box_wire"])]], 2, 2
    )
    check_deal(bad, terms)
    for record, judged, verdict in ((honest, deal, False), (cheat, bad, True)):
        position = holders.index(record["holder"])
        items = encode("skyjo-lan/v1/escrow/complaint", terms.box_context(position))
        assert items.hex() == record["context_hash_input"]
        assert hashlib.sha512(items).hexdigest() == record["context"]
        complaint = EscrowComplaint.from_wire(untree(record["complaint_wire"]))
        assert complaint.key == mul(holder_secrets[position], judged.boxes[position].ephemeral)
        assert complaint.key.hex() == record["key_Z"]
        verify_dleq(
            terms.holder_keys[position],
            judged.boxes[position].ephemeral,
            complaint.key,
            complaint.proof,
            b(record["context"]),
        )
        assert (
            judge_escrow_complaint(complaint, judged, terms, position) is verdict is record["dealer_cheated"]
        )
    assert scalar(cheat["box_share"]) == (shares[1] + 1) % L
    # the takeover: verified partials combined at 0
    takeover = vectors["takeover"]
    cards = deck(takeover["ciphertexts"])
    partials = []
    for p, record in enumerate(takeover["partials"]):
        seat, index = record["holder"], indices[p]
        holder_context = make_context(config.session_id, seat, b(takeover["transcript_hash"]))
        assert holder_context.hex() == record["context"]
        items = encode("skyjo-lan/v1/escrow/partial", holder_context, dealer, index)
        assert items.hex() == record["partial_context_hash_input"]
        assert hashlib.sha512(items).hexdigest() == record["partial_context"]
        batch = ShareBatch.from_wire(untree(record["batch_wire"]), len(cards))
        assert [mul(shares[p], c.c1).hex() for c in cards] == record["partials_E"]
        point = terms.share_point(deal, p)
        partials.append(verify_partials(point, cards, batch, holder_context, dealer, index))
        verify_share_batch(point, cards, batch, b(record["partial_context"]))
    i1, i2 = indices
    lagrange = [i2 * pow(i2 - i1, -1, L) % L, i1 * pow(i1 - i2, -1, L) % L]
    assert [scalar(v) for v in takeover["lagrange_at_zero"]] == lagrange
    combined = combine_partials(indices, partials)
    assert [d.hex() for d in combined] == takeover["combined_x0_c1"]
    assert combined == [decryption_share(x, c) for c in cards]


# --- the whole game -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def game_vector() -> tuple[dict[str, Any], bytes]:
    return stored("game.json"), (VECTOR_DIR / generate.GAME_FILE).read_bytes()


def test_the_game_vector_is_recomputed_byte_for_byte(game_vector: tuple[dict[str, Any], bytes]) -> None:
    content, data = game_vector
    fresh, fresh_data = generate.build_game()
    diff = differences(content, json.loads(dump(fresh)))
    assert not diff and fresh_data == data, (
        "protocol/vectors/game.json or game-skyjo-2p.transcript differs from a replay of the vector "
        "game with the current code:\n  "
        + "\n  ".join(diff[:25] or [f"transcript file: {len(data)} bytes stored, {len(fresh_data)} now"])
        + "\nThe session's messages or their order changed: if intended, run "
        "`python -m tools.generate_vectors` and review the diff."
    )


def test_the_game_transcript_verifies(game_vector: tuple[dict[str, Any], bytes]) -> None:
    content, data = game_vector
    assert hashlib.sha256(data).hexdigest() == content["file_sha256"]
    assert len(data) == content["file_bytes"]
    verdict = verify_bytes(data)
    assert verdict.valid and verdict.finished, verdict.fault
    assert verdict.frames == content["frames"]
    assert verdict.totals == content["totals"] and verdict.winners == content["winners"]
    assert verdict.rounds_signed == len(content["round_signatures"])
    config, frames = load(data)
    assert config.encode().hex() == content["genesis"]
    observer = Session(config, None, None)
    observer.start()
    signed = []
    for frame in frames:
        observer.receive_frame(frame)
        signed += [e.transcript_hash.hex() for e in observer.next_events() if isinstance(e, RoundSigned)]
    assert observer.transcript_hash.hex() == content["transcript_hash_seat0"]
    assert signed == content["round_signatures"]


def test_a_reordered_game_transcript_still_verifies(game_vector: tuple[dict[str, Any], bytes]) -> None:
    """Order between senders does not matter: each sender's chain fixes the game's order."""
    content, data = game_vector
    config, frames = load(data)
    by_seat: dict[int, list[bytes]] = {0: [], 1: []}
    for frame in frames:
        by_seat[msgpack.unpackb(msgpack.unpackb(frame)[0])[2]].append(frame)  # the seat
    reordered = by_seat[1] + by_seat[0]  # all of seat 1's frames first
    verdict = verify_bytes(dump_transcript(config, reordered))
    assert verdict.valid and verdict.finished and verdict.totals == content["totals"]
