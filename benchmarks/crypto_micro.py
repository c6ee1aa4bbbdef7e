"""Micro-benchmarks of protocol.crypto, and what they imply for a verifiable deal.

    python benchmarks/crypto_micro.py               # default: medians of 5 runs
    python benchmarks/crypto_micro.py --repeats 9

Times are CPU time of this process (time.process_time), one core, medians of --repeats runs.
"var-mul/card" counts libsodium variable-base scalar multiplications (the dominant cost) per card,
from the counter in protocol.crypto.group. The last table estimates the CPU one peer spends on the
deal of a 150-card deck among 8 peers: one shuffle and proof, decoding and verifying the 7 other
shuffles (separately, or batched in one chain check), and the decryption shares of a SKYJO deal
(12 private cards per seat: 7 share batches made for the others, 7 received and verified, and one
public card).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol.crypto.dleq import (
    ShareBatch,
    ShareCheck,
    make_share,
    make_share_batch,
    verify_share,
    verify_share_batch,
    verify_share_batches,
)
from protocol.crypto.elgamal import Ciphertext, Codebook, deck_from_wire, deck_to_wire, joint_key
from protocol.crypto.group import (
    OPS,
    L,
    Point,
    add,
    decode_point,
    from_hash,
    mul,
    mul_base,
    random_scalar,
    scalar_mul,
    scalar_muladd,
)
from protocol.crypto.hashing import hash_to_point, make_context
from protocol.crypto.schnorr import keygen, prove_key, verify_key
from protocol.crypto.shuffle import (
    ShuffleProof,
    generators,
    shuffle,
    verify_shuffle,
    verify_shuffle_chain,
)
from protocol.crypto.signatures import _verify as libsodium_verify
from protocol.crypto.signatures import identity_key

PEERS = 8
DEAL_CARDS = 150
HAND = 12


def median_time(fn: Callable[[], object], repeats: int, number: int = 1) -> float:
    """Median CPU seconds of one call of fn, over `repeats` batches of `number` calls."""
    samples = []
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(number):
            fn()
        samples.append((time.process_time() - start) / number)
    return statistics.median(samples)


def median_time_cold(fn: Callable[[], object], repeats: int, number: int = 1) -> float:
    """`median_time` with 3 MB written before each call (its tables evicted from the caches, as
    when a live peer checks a frame between other work), only the call itself timed."""
    junk = bytearray(3 << 20)
    zeros = bytes(len(junk[::64]))
    samples = []
    for _ in range(repeats):
        spent = 0.0
        for _ in range(number):
            junk[::64] = zeros
            start = time.process_time()
            fn()
            spent += time.process_time() - start
        samples.append(spent / number)
    return statistics.median(samples)


def count_var_mul(fn: Callable[[], object]) -> int:
    OPS.reset()
    fn()
    return OPS.var_mul


def ctx(seat: int) -> bytes:
    return make_context(b"bench-session", seat, b"\x00" * 64)


def primitives(repeats: int) -> list[tuple[str, float]]:
    x = random_scalar()
    p = mul_base(random_scalar())
    q = mul_base(random_scalar())
    pb = bytes(p)
    e, w = random_scalar(), random_scalar()
    digest = bytes(range(64))
    sx, spub = keygen()
    spk = prove_key(sx, spub, ctx(0))
    c = Ciphertext(mul_base(random_scalar()), mul_base(random_scalar()))
    share = make_share(sx, spub, c, ctx(0))
    hand = [Ciphertext(mul_base(random_scalar()), mul_base(random_scalar())) for _ in range(HAND)]
    batch = make_share_batch(sx, spub, hand, ctx(0))
    batch_wire = batch.to_wire()
    signer = Ed25519PrivateKey.generate()
    raw_key = signer.public_key().public_bytes_raw()
    frame_key = identity_key(raw_key)
    body = bytes(range(256)) * 2  # a share frame's body is about this size
    signature = signer.sign(body)
    frame_key.verify(signature, body)  # its kept tables built before the timing
    n = 2000
    rows = [
        ("libsodium variable-base scalarmult", median_time(lambda: mul(x, p), repeats, n)),
        ("fixed-base scalarmult (G)", median_time(lambda: mul_base(x), repeats, n)),
        ("point addition", median_time(lambda: add(p, q), repeats, n)),
        ("decode_point (full validation)", median_time(lambda: decode_point(pb), repeats, n)),
        ("from_hash (RFC 9496 one-way map)", median_time(lambda: from_hash(digest), repeats, n)),
        ("scalar product mod L (Python int)", median_time(lambda: x * x % L, repeats, n)),
        ("scalar product mod L (group.scalar_mul)", median_time(lambda: scalar_mul(x, x), repeats, n)),
        ("response w + e x mod L (Python int)", median_time(lambda: (w + e * x) % L, repeats, n)),
        ("response w + e x (group.scalar_muladd)", median_time(lambda: scalar_muladd(e, x, w), repeats, n)),
        ("hash_to_point", median_time(lambda: hash_to_point("bench", 1), repeats, 500)),
        (
            "Ed25519 frame signature check (kept tables)",
            median_time(lambda: frame_key.verify(signature, body), repeats, n),
        ),
        (
            "Ed25519 frame signature check, caches evicted before each",
            median_time_cold(lambda: frame_key.verify(signature, body), repeats, n // 4),
        ),
        *(
            [
                (
                    "Ed25519 signature check (libsodium's)",
                    median_time(lambda: libsodium_verify(signature, body, len(body), raw_key), repeats, n),
                )
            ]
            if libsodium_verify is not None
            else []
        ),
        ("Schnorr prove", median_time(lambda: prove_key(sx, spub, ctx(0)), repeats, 300)),
        ("Schnorr verify", median_time(lambda: verify_key(spub, spk, ctx(0)), repeats, 300)),
        ("DLEQ share + prove", median_time(lambda: make_share(sx, spub, c, ctx(0)), repeats, 300)),
        ("DLEQ verify", median_time(lambda: verify_share(spub, c, share, ctx(0)), repeats, 300)),
        (
            f"batch DLEQ {HAND} shares + prove",
            median_time(lambda: make_share_batch(sx, spub, hand, ctx(0)), repeats, 20),
        ),
        (
            f"batch DLEQ {HAND} shares decode + verify",
            median_time(
                lambda: verify_share_batch(spub, hand, ShareBatch.from_wire(batch_wire), ctx(0)),
                repeats,
                20,
            ),
        ),
    ]
    return rows


def shuffle_row(n: int, y: Point, repeats: int) -> tuple[int, float, float, float, float, int, int]:
    """Timings and multiplication counts for one deck size (a deck that is no longer the public one)."""
    generators(n)  # warm the per-process generator cache, as a running client would have
    deck, _ = shuffle(Codebook(b"bench", n).initial_deck(y), y, ctx(0))
    out, proof = shuffle(deck, y, ctx(1))
    deck_wire, proof_wire = deck_to_wire(out), proof.to_wire()
    prove = median_time(lambda: shuffle(deck, y, ctx(1)), repeats)
    verify = median_time(lambda: verify_shuffle(deck, out, y, proof, ctx(1)), repeats)
    decode = median_time(
        lambda: (deck_from_wire(deck_wire, n), ShuffleProof.from_wire(proof_wire, n)), repeats
    )
    chain_decks, chain_proofs = [deck], []
    for seat in range(3):
        nxt, nxt_proof = shuffle(chain_decks[-1], y, ctx(seat))
        chain_decks.append(nxt)
        chain_proofs.append(nxt_proof)
    contexts = [ctx(s) for s in range(3)]
    chain = median_time(lambda: verify_shuffle_chain(chain_decks, chain_proofs, y, contexts), repeats) / 3
    prove_mul = count_var_mul(lambda: shuffle(deck, y, ctx(1)))
    verify_mul = count_var_mul(lambda: verify_shuffle(deck, out, y, proof, ctx(1)))
    return (n, prove, verify, chain, decode, prove_mul, verify_mul)


def deal_estimate(repeats: int) -> list[tuple[str, float]]:
    """Per-peer CPU of an 8-peer, 150-card verifiable deal, from measured pieces."""
    keys = [keygen() for _ in range(PEERS)]
    y = joint_key(pub for _, pub in keys)
    book = Codebook(b"deal", DEAL_CARDS)
    decks = [book.initial_deck(y)]
    proofs = []
    for seat in range(PEERS):
        out, proof = shuffle(decks[-1], y, ctx(seat))
        decks.append(out)
        proofs.append(proof)
    wires = [(deck_to_wire(decks[s + 1]), proofs[s].to_wire()) for s in range(PEERS)]
    me = 0
    others = [s for s in range(PEERS) if s != me]
    final = decks[-1]
    x, pub = keys[me]

    setup = median_time(
        lambda: (
            Codebook(b"deal-2", DEAL_CARDS).initial_deck(y),
            [verify_key(keys[s][1], prove_key(keys[s][0], keys[s][1], ctx(s)), ctx(s)) for s in others],
        ),
        repeats,
    )
    own_shuffle = median_time(lambda: shuffle(decks[me], y, ctx(me)), repeats)
    decode = median_time(
        lambda: [
            (deck_from_wire(wires[s][0], DEAL_CARDS), ShuffleProof.from_wire(wires[s][1])) for s in others
        ],
        repeats,
    )
    separate = median_time(
        lambda: [verify_shuffle(decks[s], decks[s + 1], y, proofs[s], ctx(s)) for s in others], repeats
    )
    chained = median_time(
        lambda: verify_shuffle_chain(decks[1:], proofs[1:], y, [ctx(s) for s in others]), repeats
    )
    hands = {s: final[s * HAND : (s + 1) * HAND] for s in range(PEERS)}
    their_batches = {s: make_share_batch(keys[s][0], keys[s][1], hands[me], ctx(s)).to_wire() for s in others}
    public_card = final[PEERS * HAND]
    public_shares = {s: make_share(keys[s][0], keys[s][1], public_card, ctx(s)) for s in others}
    shares = median_time(
        lambda: (
            [make_share_batch(x, pub, hands[s], ctx(me)) for s in others],
            [
                verify_share_batch(keys[s][1], hands[me], ShareBatch.from_wire(their_batches[s]), ctx(s))
                for s in others
            ],
            make_share(x, pub, public_card, ctx(me)),
            [verify_share(keys[s][1], public_card, public_shares[s], ctx(s)) for s in others],
        ),
        repeats,
    )
    rows = [
        ("setup: card points, public deck, 7 key proofs", setup),
        ("own shuffle + proof", own_shuffle),
        ("decode 7 received decks + proofs (from_wire)", decode),
        ("verify 7 shuffles separately", separate),
        ("verify 7 shuffles as one chain (batched)", chained),
        (f"shares: 7 batches of {HAND} made, 7 verified, 1 public card", shares),
    ]
    common = setup + own_shuffle + decode + shares
    rows.append(("TOTAL per peer, separate verification", common + separate))
    rows.append(("TOTAL per peer, chain verification", common + chained))
    return rows


def msm_rows(
    repeats: int, sizes: Sequence[int] = (1, 2, 3, 10, 50, 150, 600, 5400)
) -> list[tuple[int, float, float]]:
    """Per term, in u (one `group.mul`, timed here): the compiled multi-scalar multiplication
    (`group.msm_public_vartime`) and the pure-Python sum (`group.lincomb`: one libsodium
    multiplication and one addition per distinct point), on n random distinct points."""
    from protocol.crypto import group

    point = mul_base(5)
    unit = median_time(lambda: mul(random_scalar(), point), repeats, 50)
    rows = []
    for n in sizes:
        points = [mul_base(random_scalar()) for _ in range(n)]
        scalars = [random_scalar() for _ in range(n)]
        terms = list(zip(scalars, points, strict=True))
        compiled = float("nan")
        if group._msm_module is not None:
            fast = functools.partial(group.msm_public_vartime, scalars, points)
            compiled = median_time(fast, repeats) / n / unit
        plain = median_time(functools.partial(group.lincomb, terms), 3 if n > 600 else repeats) / n / unit
        rows.append((n, compiled, plain))
    return rows


def share_check_rows(repeats: int) -> list[tuple[str, int, float, float]]:
    """Per share proof (a batch of one card), in u (one `group.mul`, timed here): checked alone
    (`verify_share_batch`) and k at once (`verify_share_batches`), with the compiled extension and
    without. The proofs are of a table's seats revealing the same cards (the c1 shared, each seat's
    key X repeated), as in a flip (k = seats - 1) or a whole file checked by `verify`."""
    from protocol.crypto import group

    point = mul_base(5)
    unit = median_time(lambda: mul(random_scalar(), point), repeats, 50)
    cases = [("a flip, 4 seats: 3 proofs at one peer", 4, 1), ("a flip, 8 seats: 7 proofs", 8, 1)]
    cases.append(("a file: 250 cards, 4 seats each (1,000 proofs)", 4, 250))
    rows = []
    for name, seats, cards in cases:
        keys = [keygen() for _ in range(seats)]
        y = joint_key([pub for _, pub in keys])
        checks = []
        for _ in range(cards):
            card = [Ciphertext(mul_base(random_scalar()), mul_base(random_scalar()))]
            for seat, (x, pub) in enumerate(keys[: seats - 1 if cards == 1 else seats]):
                batch = ShareBatch.from_wire(make_share_batch(x, pub, card, ctx(seat)).to_wire(), 1)
                checks.append(ShareCheck(pub, card, batch, ctx(seat)))
        del y
        n = len(checks)
        number = 1 if n > 100 else 20

        def alone(checks: list[ShareCheck] = checks) -> None:
            for c in checks:
                verify_share_batch(c.public_key, c.ciphertexts, c.batch, c.context)

        together = functools.partial(verify_share_batches, checks)
        for compiled in (True, False):
            if compiled and group._msm_module is None:
                continue
            was = group.use_extension(compiled)
            try:
                one = median_time(alone, repeats, number) / n / unit
                many = median_time(together, repeats, number) / n / unit
            finally:
                group.use_extension(was)
            rows.append((f"{name}, {'compiled' if compiled else 'pure Python'}", n, one, many))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per figure (median reported)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 52, 150], help="deck sizes")
    args = parser.parse_args()

    print("primitive                                         median")
    for name, seconds in primitives(args.repeats):
        print(f"  {name:<46} {seconds * 1e6:9.1f} us")

    print()
    print("shuffle of N cards   prove   verify  chain/shuffle  decode   var-mul/card (prove, verify)")
    print("  (chain/shuffle: a 3-shuffle chain checked in one batch, per shuffle)")
    _, y = keygen()
    for n in args.sizes:
        n, prove, verify, chain, decode, pm, vm = shuffle_row(n, y, args.repeats)
        print(
            f"  N = {n:<4}       {prove * 1e3:7.1f} {verify * 1e3:7.1f} ms {chain * 1e3:8.1f} ms"
            f" {decode * 1e3:7.1f} ms   {pm / n:4.2f}, {vm / n:4.2f}"
        )

    print()
    print("sum of n terms, per term, in u (one group.mul): compiled multi-scalar multiplication, pure Python")
    for n, compiled, plain in msm_rows(args.repeats):
        print(f"  n = {n:<5} {compiled:6.3f} u   {plain:6.3f} u")

    print()
    print("share proofs (1 card each), per proof, in u: checked alone, checked together")
    for name, n, one, many in share_check_rows(args.repeats):
        print(f"  {name:<62} k = {n:<5} {one:6.2f} u   {many:6.2f} u")

    print()
    print(f"deal of {DEAL_CARDS} cards among {PEERS} peers, CPU of one peer")
    for name, seconds in deal_estimate(args.repeats):
        print(f"  {name:<58} {seconds * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
