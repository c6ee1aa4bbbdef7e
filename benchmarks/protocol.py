"""Protocol benchmark: real `Session` objects in one process, joined by in-memory pipes.

    python benchmarks/protocol.py                      # everything, medians of 3 runs
    python benchmarks/protocol.py --repeats 5 --games 3
    python benchmarks/protocol.py --only deal --peers 8 --profile
    python benchmarks/protocol.py --json

Measurements (figures and method in docs/performance.md, "Protocol"):

* **deal**: a verifiable deal of the 150-card SKYJO deck, from `Session.start()` (key commitments)
  until every peer may play the first turn: keys with proofs, N shuffles with proofs and every
  verification, the shares of the discard card and of every seat's setup reveals (2 cards each),
  and the first-player coin if there is a tie. For 2, 4 and 8 peers.
* **reveal**: one public reveal among 4 peers (a `flip`): from `submit_move` of the flip to every
  peer's state holding the card, CPU summed over the 4 sessions.
* **traffic**: whole SKYJO games (greedy bots): frames delivered and bytes, by kind, per game and
  per move; stand-alone acknowledgements (`echo` frames) shown separately. Twice: bots that move
  at once (before `ACK_DELAY` runs out: their frames carry the acknowledgements) and *paced*
  players who think longer than `ACK_DELAY` (every idle peer sends a stand-alone echo per move).
* **verify**: `skyjo-lan verify` (`protocol.verify.verify_bytes`) of one 4-peer whole SKYJO game
  as seat 0 saves it: CPU per game and per 10,000 frames, frames by kind.
* **experiments** (`--only experiments`): the deal and the reveal again with candidate
  optimisations simulated by patching this process only (see `EXPERIMENTS`); protocol/ is not
  modified.

Every time figure is also given in units of one variable-base multiplication (`group.mul`), timed
in the same run before anything else (a short loop; its cost in us is printed), so runs on
machines or libraries of different speeds compare. With `--compare`, the CPU figures of the deal,
the reveal and `verify` are each divided by a unit calibrated right before and after their own
run (`with_local_unit`): a shared machine's speed changes within a minute.

CPU is `time.process_time()` around every call into a session (`start`, `receive_frame`,
`submit_move`, `data_to_send`, `next_events`, `legal_moves`), summed per seat; bots' thinking is
not counted. Wall time is given twice: *one process* (every peer on one core, one after the
other: the sum of all peers' CPU plus the driver) and *parallel* (a discrete-event estimate of the
critical path if every peer had its own core and the network were instant: a frame reaches its
receivers at the sender's clock when it was sent; a peer handles its frames in arrival order).
The shuffle generators h_i (hash-to-group, cached once per process, ~16 ms for 150 cards) are
computed before the clock starts, since in one process only the first session would pay them.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import msgpack

from protocol.crypto import group
from protocol.crypto.shuffle import chain_generator, generators
from protocol.loopback import Loopback, bots_for, make_table, seats
from protocol.session import Session

DECK_SIZE = 150
T = TypeVar("T")


INSURED = False
"""`--insured`: every table of the run has seat insurance (escrow at the keys step)."""


class Table(Loopback):
    """N SKYJO sessions on a simulated clock, metered: CPU per peer, libsodium ops if asked."""

    def __init__(
        self,
        players: int,
        options: dict[str, Any] | None = None,
        seed: str = "bench",
        latency: float = 0.0,
        bots_first: bool = True,
    ) -> None:
        # INSURED: seat insurance (issue 17): the keys step also deals every key share in escrow
        self.config, keys = make_table(
            "skyjo", players, options, table={"insured": True} if INSURED else None
        )
        super().__init__(
            seats(self.config, keys),
            bots_for("skyjo", ["greedy"] * players, seed),
            clock=True,
            latency=latency,
            meter=time.process_time,
            bots_first=bots_first,
            strict=True,
        )
        self.ops: list[Counter[str]] = [Counter() for _ in range(players)]
        self.count_ops = False

    def call(self, seat: int, fn: Callable[..., T], *args: Any) -> T:
        before = group.OPS.snapshot() if self.count_ops else None
        result = super().call(seat, fn, *args)
        if before is not None:
            after = group.OPS.snapshot()
            self.ops[seat].update({k: after[k] - before[k] for k in after})
        return result


def warm_caches() -> None:
    generators(DECK_SIZE)
    chain_generator()


class Instrument:
    """Time the session's calls into crypto, messages and the engine (CPU, summed over peers).

    Patches the names `protocol.session` uses (`crypto.shuffle`, `open_frame`, ...) with timing
    wrappers for the duration of a `with` block. None of these calls nests another one timed
    here, so the parts add up; what is left is the session's own Python.
    """

    def __init__(self) -> None:
        import protocol.crypto as crypto_pkg
        import protocol.jobs.move as move_job_mod
        import protocol.session as session_mod
        from protocol.crypto import ShareBatch, ShuffleProof
        from protocol.deck import CardStore

        self.times: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self.targets: list[tuple[object, str, str, bool]] = [
            (crypto_pkg, "shuffle", "own shuffle + proof (crypto.shuffle)", False),
            (crypto_pkg, "prepare_shuffle", "own shuffle + proof (crypto.shuffle)", False),
            (crypto_pkg.ShuffleChainVerifier, "add", "verify shuffles (ShuffleChainVerifier)", False),
            (crypto_pkg.ShuffleChainVerifier, "check", "verify shuffles (ShuffleChainVerifier)", False),
            (crypto_pkg, "deck_from_wire", "decode received decks (deck_from_wire)", False),
            (ShuffleProof, "from_wire", "decode received shuffle proofs (ShuffleProof.from_wire)", True),
            (crypto_pkg, "make_share_batch", "make share batches", False),
            (crypto_pkg, "verify_share_batch", "verify share batches", False),
            (crypto_pkg, "verify_share_batches", "verify share batches", False),
            (ShareBatch, "from_wire", "decode share batches", True),
            (crypto_pkg, "combine_shares", "combine shares", False),
            (crypto_pkg, "decryption_share", "own share of a private card", False),
            (crypto_pkg, "keygen", "keys: keygen, prove, verify, joint key", False),
            (crypto_pkg, "prove_key", "keys: keygen, prove, verify, joint key", False),
            (crypto_pkg, "verify_key", "keys: keygen, prove, verify, joint key", False),
            (crypto_pkg, "decode_point", "keys: keygen, prove, verify, joint key", False),
            (crypto_pkg, "joint_key", "keys: keygen, prove, verify, joint key", False),
            (CardStore, "codebook", "card points M_k (codebook)", False),
            (crypto_pkg.Codebook, "initial_deck", "public deck (G, M_k + Y)", False),
            (session_mod, "open_frame", "open received frames (msgpack + Ed25519 verify)", False),
            (session_mod, "seal", "seal own frames (sign + self-check)", False),
            (session_mod, "apply", "engine (apply, legal moves, new game)", False),
            (move_job_mod, "apply", "engine (apply, legal moves, new game)", False),
            (session_mod, "legal_moves", "engine (apply, legal moves, new game)", False),
            (session_mod, "new_game", "engine (apply, legal moves, new game)", False),
        ]
        self.saved: list[tuple[object, str, Any]] = []

    def _wrap(self, fn: Callable[..., Any], label: str) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.times[label] += time.process_time() - start
                self.calls[label] += 1

        return timed

    def __enter__(self) -> Instrument:
        for owner, name, label, is_classmethod in self.targets:
            original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
            self.saved.append((owner, name, original))
            if is_classmethod:
                wrapped = classmethod(self._wrap(original.__func__, label))
            else:
                wrapped = self._wrap(original, label)
            setattr(owner, name, wrapped)
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, name, original in reversed(self.saved):
            setattr(owner, name, original)
        self.saved.clear()


# --- 1. the deal -----------------------------------------------------------------------------------


def first_turn_ready(table: Table) -> bool:
    return all(
        s.state is not None and s.state.phase == "turn" and not s.state.pending for s in table.sessions
    )


def deal_run(players: int, count_ops: bool = False) -> dict[str, Any]:
    """One deal; with `count_ops`, also libsodium operation counts and the time breakdown."""
    table = Table(players, {})
    table.count_ops = count_ops
    instrument = Instrument()
    wall = time.perf_counter()
    if count_ops:
        instrument.__enter__()
    try:
        table.start(until=lambda: first_turn_ready(table))
    finally:
        instrument.__exit__()
    wall = time.perf_counter() - wall
    if not first_turn_ready(table):
        raise RuntimeError("the deal did not reach the first turn")
    game_frames = sum(n for k, n in table.frames_delivered.items() if k != "echo")
    out = {
        "cpu_per_peer": list(table.cpu),
        "cpu_max": max(table.cpu),
        "cpu_mean": statistics.fmean(table.cpu),
        "wall_one_process": wall,
        "wall_parallel": table.wall_parallel,
        "deliveries_game": game_frames,
        "deliveries_echo": table.frames_delivered["echo"],
        "bytes": sum(table.bytes_delivered.values()),
        "cpu_per_peer_by_received_kind": {
            k: v / players for k, v in sorted(table.cpu_by_kind.items(), key=lambda kv: -kv[1])
        },
    }
    if count_ops:
        out["ops_per_peer"] = [dict(c) for c in table.ops]
        parts = {k: v / players for k, v in instrument.times.most_common()}
        parts["the session's own Python (the rest)"] = out["cpu_mean"] - sum(parts.values())
        out["breakdown_per_peer"] = parts
    return out


def bench_deal(peers: list[int], repeats: int) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for n in peers:
        runs = [with_local_unit(lambda n=n: deal_run(n)) for _ in range(repeats)]
        counted = deal_run(n, count_ops=True)
        ops = counted["ops_per_peer"]
        results[str(n)] = {
            "runs": repeats,
            "cpu_per_peer_max_median": statistics.median(r["cpu_max"] for r in runs),
            "cpu_per_peer_mean_median": statistics.median(r["cpu_mean"] for r in runs),
            "u_cpu_per_peer_max_median": statistics.median(r["cpu_max"] / r["unit_s"] for r in runs),
            "u_cpu_per_peer_mean_median": statistics.median(r["cpu_mean"] / r["unit_s"] for r in runs),
            "units_s": [r["unit_s"] for r in runs],
            "cpu_per_peer_median_run": min(runs, key=lambda r: abs(r["cpu_max"] - _median_max(runs)))[
                "cpu_per_peer"
            ],
            "wall_one_process_median": statistics.median(r["wall_one_process"] for r in runs),
            "wall_parallel_median": statistics.median(r["wall_parallel"] for r in runs),
            "deliveries_game": runs[0]["deliveries_game"],
            "deliveries_echo": runs[0]["deliveries_echo"],
            "bytes": runs[0]["bytes"],
            "cpu_per_peer_by_received_kind": {
                k: statistics.median(r["cpu_per_peer_by_received_kind"].get(k, 0.0) for r in runs)
                for k in runs[0]["cpu_per_peer_by_received_kind"]
            },
            "breakdown_per_peer (instrumented run)": counted["breakdown_per_peer"],
            "ops_per_peer_mean": {
                k: round(statistics.fmean(o.get(k, 0) for o in ops)) for k in sorted(ops[0])
            },
        }
    return results


def _median_max(runs: list[dict[str, Any]]) -> float:
    return statistics.median(r["cpu_max"] for r in runs)


# --- 2. one public reveal --------------------------------------------------------------------------


def reveal_samples(samples: int, seed: int, latency: float = 0.0) -> list[dict[str, float]]:
    """Play 4-peer games; each time a seat may `flip`, measure that flip's reveal."""
    out: list[dict[str, float]] = []
    game = 0
    while len(out) < samples:
        game += 1
        table = Table(4, {"target_score": 30}, seed=f"reveal:{seed}:{game}", latency=latency)
        table.start(bots=False)
        while len(out) < samples:
            table.run(bots=False)
            flip = _flip_ready(table)
            if flip is None:
                if not table.play_bots():
                    break
                continue
            seat, move = flip
            out.append(_measure_flip(table, seat, move))
    return out


def _flip_ready(table: Table) -> tuple[int, Any] | None:
    for seat, session in enumerate(table.sessions):
        if not table.want_move[seat] or session.state is None or session.state.phase != "turn":
            continue
        state = session.state
        flips = [m for m in session.legal_moves() if m.kind == "flip"]
        # a flip that could end the round would also measure the scoring reveals and the next deal
        if flips and state.ender is None and len(state.face_down_slots(seat)) >= 2:
            return seat, flips[0]
    return None


def _measure_flip(table: Table, seat: int, move: Any) -> dict[str, float]:
    before = list(table.cpu)
    frames_before = sum(table.frames_delivered.values())
    echoes_before = table.frames_delivered["echo"]
    handle = None
    state = table.sessions[seat].state
    if state is not None:
        handle = state.grid[seat * state.shape.size + move.slot]
    table.want_move[seat] = False
    submitted = table.clock[seat]
    known: dict[int, float] = {}

    def watch() -> bool:
        for receiver, session in enumerate(table.sessions):
            state = session.state
            if receiver not in known and state is not None and handle is not None and state.is_public(handle):
                known[receiver] = table.clock[receiver]
        return False

    table.call(seat, table.sessions[seat].submit_move, move)
    table.moves += 1
    table.collect(seat)
    table.run(until=watch, bots=False)
    if len(known) < len(table.sessions):
        # rare (about one flip in 300): the next item is an acknowledgement timer held back for
        # the next seat's bot (`bots_first`: its move would carry the acknowledgement), and a
        # share frame waits behind it; this flip's acknowledgements go out on their own instead
        table.bots_first = False
        try:
            table.run(until=watch, bots=False)
        finally:
            table.bots_first = True
    for session in table.sessions:
        assert session.state is not None and handle is not None
        assert session.state.is_public(handle), "the flipped card is public everywhere"
    spent = [after - b for after, b in zip(table.cpu, before, strict=True)]
    return {
        "cpu_total": sum(spent),
        "cpu_max_peer": max(spent),
        "deliveries": sum(table.frames_delivered.values()) - frames_before,
        "echo_deliveries": table.frames_delivered["echo"] - echoes_before,
        "time_to_quiescence": max(table.clock) - submitted,
        "time_to_all_know": max(known.values(), default=submitted) - submitted,
    }


def profile_reveals(samples: int) -> pstats.Stats:
    """cProfile of `samples` flips among 4 peers (the same measurement as `reveal_samples`)."""
    profile = cProfile.Profile()
    done = 0
    game = 0
    while done < samples:
        game += 1
        table = Table(4, {"target_score": 30}, seed=f"reveal-profile:{game}")
        table.start(bots=False)
        while done < samples:
            table.run(bots=False)
            flip = _flip_ready(table)
            if flip is None:
                if not table.play_bots():
                    break
                continue
            profile.enable()
            _measure_flip(table, *flip)
            profile.disable()
            done += 1
    return pstats.Stats(profile)


CATEGORIES = (
    ("lincomb_public_vartime", "multi-scalar multiplication (compiled extension)"),
    ("lincomb_public_wnaf", "multi-scalar multiplication (compiled extension)"),
    ("_msm.decode_points", "point decoding (compiled extension)"),
    ("_msm.decode_list", "point decoding (compiled extension)"),
    ("_msm.sum_public", "point addition (compiled extension)"),
    ("crypto/signatures.py:verify", "Ed25519 signature verification (libsodium)"),
    ("crypto/signatures.py:sign", "Ed25519 signing (libsodium)"),
    ("crypto_scalarmult_ristretto255_base", "fixed-base scalar multiplication (libsodium)"),
    ("crypto_scalarmult_ristretto255", "variable-base scalar multiplication (libsodium)"),
    ("crypto_core_ristretto255_is_valid_point", "point validation in decode_point (libsodium)"),
    ("crypto_core_ristretto255_add", "point addition (libsodium)"),
    ("crypto_core_ristretto255_sub", "point addition (libsodium)"),
    ("crypto_core_ristretto255_from_hash", "hash to the group (libsodium)"),
    ("crypto_core_ristretto255_scalar", "secret scalar arithmetic (libsodium)"),
    ("Ed25519PublicKey' objects>", "Ed25519 signature verification (cryptography)"),
    ("'verify' of", "Ed25519 signature verification (cryptography)"),
    ("'sign' of", "Ed25519 signing (cryptography)"),
    ("openssl_sha", "SHA-256/SHA-512"),
    ("'digest' of '_hashlib", "SHA-256/SHA-512"),
    ("'update' of '_hashlib", "SHA-256/SHA-512"),
    ("msgpack", "msgpack"),
    ("skyjo_p2p", "engine (skyjo_p2p)"),
    ("benchmarks/protocol.py", "benchmark driver"),
    ("protocol/loopback.py", "benchmark driver"),
)


def categorize(stats: pstats.Stats) -> dict[str, float]:
    """Exclusive time of every profiled function, summed by category (seconds, profiled)."""
    out: Counter[str] = Counter()
    for (filename, _, name), row in stats.stats.items():  # type: ignore[attr-defined]
        label = f"{filename}:{name}"
        for needle, category in CATEGORIES:
            if needle in label:
                out[category] += row[2]
                break
        else:
            out["Python: protocol/, builtins"] += row[2]
    return dict(out.most_common())


def shares_of(categories: dict[str, float]) -> dict[str, float]:
    """Fractions of the sessions' profiled time (the driver's own work left out)."""
    kept = {k: v for k, v in categories.items() if k != "benchmark driver"}
    total = sum(kept.values()) or 1.0
    return {k: round(v / total, 4) for k, v in kept.items()}


def bench_reveal(samples: int, latency: float) -> dict[str, Any]:
    measured = with_local_unit(lambda: {"runs": reveal_samples(samples, seed=1)})
    runs, unit = measured["runs"], measured["unit_s"]
    slow = reveal_samples(max(3, samples // 3), seed=2, latency=latency)
    return {
        "latency_simulated_s": latency,
        "time_to_all_know_median_no_latency": statistics.median(r["time_to_all_know"] for r in runs),
        "time_to_all_know_median_with_latency": statistics.median(r["time_to_all_know"] for r in slow),
        "samples": len(runs),
        "cpu_total_median": statistics.median(r["cpu_total"] for r in runs),
        "u_cpu_total_median": statistics.median(r["cpu_total"] for r in runs) / unit,
        "u_cpu_max_peer_median": statistics.median(r["cpu_max_peer"] for r in runs) / unit,
        "units_s": [unit],
        "cpu_total_min": min(r["cpu_total"] for r in runs),
        "cpu_total_max": max(r["cpu_total"] for r in runs),
        "cpu_max_peer_median": statistics.median(r["cpu_max_peer"] for r in runs),
        "deliveries_median": statistics.median(r["deliveries"] for r in runs),
        "echo_deliveries_median": statistics.median(r["echo_deliveries"] for r in runs),
    }


# --- 3. traffic of whole games ---------------------------------------------------------------------


def game_run(players: int, seed: str, paced: bool = False) -> dict[str, Any]:
    table = Table(players, {}, seed=seed, bots_first=not paced)
    wall = time.perf_counter()
    table.start()
    wall = time.perf_counter() - wall
    states = [s.state for s in table.sessions]
    if not all(s is not None and s.phase == "game_over" for s in states):
        raise RuntimeError("the game did not finish")
    assert states[0] is not None
    return {
        "moves": table.moves,
        "rounds": states[0].round,
        "deliveries": dict(table.frames_delivered),
        "bytes": dict(table.bytes_delivered),
        "sent": dict(table.frames_sent),
        "cpu_per_peer": list(table.cpu),
        "wall_one_process": wall,
        "wall_parallel": table.wall_parallel,
    }


def bench_traffic(peers: list[int], games: int, paced: bool = False) -> dict[str, Any]:
    """Whole games; `paced`: the players think longer than `ACK_DELAY` (a stand-alone
    acknowledgement goes out wherever no frame of theirs carried one), otherwise the bots move at
    once (their moves carry the acknowledgements)."""
    results: dict[str, Any] = {}
    for n in peers:
        runs = [game_run(n, f"traffic:{n}:{g}", paced) for g in range(games)]

        def med(fn: Callable[[dict[str, Any]], float], runs: list[dict[str, Any]] = runs) -> float:
            return statistics.median(fn(r) for r in runs)

        kinds = sorted({k for r in runs for k in r["deliveries"]})
        game_kinds = tuple(k for k in kinds if k != "echo")

        def game_sum(r: dict[str, Any], field: str, game_kinds: tuple[str, ...] = game_kinds) -> float:
            return sum(r[field].get(k, 0) for k in game_kinds)

        results[str(n)] = {
            "games": games,
            "moves_median": med(lambda r: r["moves"]),
            "rounds_median": med(lambda r: r["rounds"]),
            "deliveries_game_median": med(lambda r: game_sum(r, "deliveries")),
            "deliveries_echo_median": med(lambda r: r["deliveries"].get("echo", 0)),
            "bytes_game_median": med(lambda r: game_sum(r, "bytes")),
            "bytes_echo_median": med(lambda r: r["bytes"].get("echo", 0)),
            "per_move": {
                "deliveries_game": med(lambda r: game_sum(r, "deliveries") / r["moves"]),
                "deliveries_echo": med(lambda r: r["deliveries"].get("echo", 0) / r["moves"]),
                "frames_sent_game": med(lambda r: game_sum(r, "sent") / r["moves"]),
                "bytes_game": med(lambda r: game_sum(r, "bytes") / r["moves"]),
                "bytes_echo": med(lambda r: r["bytes"].get("echo", 0) / r["moves"]),
            },
            # every game's bytes over every game's moves: steadier than a median of ratios, since
            # a round's four shuffles are a fixed cost spread over however many moves it had
            "pooled_per_move": {
                "bytes": sum(sum(r["bytes"].values()) for r in runs) / sum(r["moves"] for r in runs),
                "deliveries": sum(sum(r["deliveries"].values()) for r in runs)
                / sum(r["moves"] for r in runs),
            },
            "by_kind": {
                k: {
                    "deliveries": med(lambda r, k=k: r["deliveries"].get(k, 0)),
                    "bytes": med(lambda r, k=k: r["bytes"].get(k, 0)),
                }
                for k in kinds
            },
            "cpu_per_peer_per_game_median": med(lambda r: statistics.fmean(r["cpu_per_peer"])),
            "wall_one_process_median": med(lambda r: r["wall_one_process"]),
            "wall_parallel_median": med(lambda r: r["wall_parallel"]),
        }
    return results


# --- 4. `skyjo-lan verify` of a whole game ----------------------------------------------------------


def verify_game(seed: str) -> tuple[bytes, int]:
    """A 4-peer whole SKYJO game (greedy bots), as seat 0 saves it: the transcript and its moves."""
    from protocol.transcript import dump

    table = Table(4, {}, seed=seed)
    table.start()
    state = table.sessions[0].state
    if state is None or state.phase != "game_over":
        raise RuntimeError("the game did not finish")
    return dump(table.config, table.sessions[0].frames), table.moves


def frames_by_kind(data: bytes) -> dict[str, int]:
    """How many frames of each kind a transcript holds (opened as a peer opens them)."""
    from protocol.messages import open_frame
    from protocol.transcript import load

    config, frames = load(data)
    return dict(Counter(open_frame(frame, config).kind for frame in frames).most_common())


def bench_verify(repeats: int, path: str | None = None) -> dict[str, Any]:
    """`protocol.verify.verify_bytes` of one 4-peer whole game: CPU, median of `repeats` runs.

    With `path`: the game saved there (made and saved first if the file does not exist), so that
    two versions of the code can be timed on the very same transcript."""
    from protocol.verify import verify_bytes

    if path is not None and Path(path).exists():
        data, moves = Path(path).read_bytes(), 0
    else:
        data, moves = verify_game("verify:4:0")
        if path is not None:
            Path(path).write_bytes(data)

    def check() -> dict[str, Any]:
        before = group.OPS.snapshot()
        start = time.process_time()
        verdict = verify_bytes(data)
        spent = time.process_time() - start
        after = group.OPS.snapshot()  # (the unit's calibration, around this, is not counted)
        if verdict.kind != "finished":
            raise RuntimeError(f"the game's transcript does not verify: {verdict.fault}")
        return {"s": spent, "verdict": verdict, "ops": {k: after[k] - before[k] for k in after}}

    runs = [with_local_unit(check) for _ in range(repeats)]
    times = [r["s"] for r in runs]
    units = [r["unit_s"] for r in runs]
    verdict, ops = runs[-1]["verdict"], runs[-1]["ops"]
    in_units = statistics.median(t / u for t, u in zip(times, units, strict=True))
    per_game = statistics.median(times)
    return {
        "runs": repeats,
        "frames": verdict.frames,
        "moves": moves,
        "bytes": len(data),
        "s_per_game_median": per_game,
        "s_per_game_min": min(times),
        "s_per_10k_frames": per_game / verdict.frames * 10_000,
        "u_per_game_median": in_units,
        "u_per_10k_frames_median": in_units / verdict.frames * 10_000,
        "units_s": units,
        "rounds": verdict.round,
        "s_per_round": per_game / max(1, verdict.round),
        "frames_by_kind": frames_by_kind(data),
        "ops": ops,
    }


# --- every figure in units of one variable-base multiplication ---------------------------------------


def bench_replay(repeats: int, path: str | None = None) -> dict[str, Any]:
    """`skyjo-lan replay`'s loading (`client.ui.replay.replay_beside_check`) of one 4-peer game:
    CPU until the first screen can be drawn (the first steps published) and until the verdict,
    against the check-then-replay of before issue 29 (`verify_file`, then `replay_of`)."""
    import tempfile

    from client.storage import verify_file
    from client.ui.replay import Replay, replay_beside_check, replay_of

    if path is None or not Path(path).exists():
        data, _ = verify_game("verify:4:0")
        path = path or str(Path(tempfile.mkdtemp(prefix="skyjo-lan-bench-")) / "replay.skyjo")
        Path(path).write_bytes(data)
    first: list[float] = []
    verdict: list[float] = []
    before: list[float] = []
    frames = 0
    for _ in range(repeats):
        start = time.process_time()
        seen: list[float] = []
        holder: list[Replay] = []

        def progress(done: int, total: int, holder: list[Replay] = holder, seen: list[float] = seen) -> None:
            if not seen and holder and holder[0].steps:
                seen.append(time.process_time())

        replay_beside_check(path, holder.append, progress)
        verdict.append(time.process_time() - start)
        first.append(seen[0] - start)
        start = time.process_time()
        checked = verify_file(path, keep_order=True)
        replay_of(checked)
        before.append(time.process_time() - start)
        frames = checked.verdict.frames
    return {
        "runs": repeats,
        "frames": frames,
        "s_first_screen_median": statistics.median(first),
        "s_verdict_median": statistics.median(verdict),
        "s_first_screen_before_median": statistics.median(before),
    }


def calibrate_mul(loops: int = 5, count: int = 200) -> float:
    """Seconds (CPU) per variable-base multiplication `group.mul`: median of `loops` timed loops."""
    point = group.mul_base(group.random_scalar())
    scalars = [group.random_scalar() for _ in range(count)]
    per: list[float] = []
    for _ in range(loops):
        start = time.process_time()
        for k in scalars:
            group.mul(k, point)
        per.append((time.process_time() - start) / count)
    return statistics.median(per)


def with_local_unit(run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """`run()`, its result with `unit_s`: u calibrated right before and right after it, the smaller.

    On a shared machine the speed of the core changes from minute to minute (a multiplication took
    61-109 us within minutes on the machine of docs/performance.md's sixth stop), so a unit
    measured once for the whole run divides figures measured at another speed. The smaller of the
    two neighbours is kept for the reason `main` keeps the smaller of its two: a calibration slowed
    by something else would make every figure look smaller than it is."""
    before = calibrate_mul()
    out = run()
    out["unit_s"] = min(before, calibrate_mul())
    return out


def in_mul_units(results: dict[str, Any], mul_s: float) -> dict[str, float]:
    """Every time figure of `results` in units of one `group.mul`: the CPU figures of the deal, the
    reveal and `verify` divided by the unit calibrated beside each of their runs (`with_local_unit`),
    medians of the ratios; the other figures (and results made without local units) by `mul_s`."""
    out: dict[str, float] = {}
    for n, r in results.get("deal", {}).items():
        local = statistics.median(r["units_s"]) if "units_s" in r else mul_s
        out[f"deal {n} peers: CPU per peer, max"] = r.get(
            "u_cpu_per_peer_max_median", r["cpu_per_peer_max_median"] / mul_s
        )
        out[f"deal {n} peers: CPU per peer, mean"] = r.get(
            "u_cpu_per_peer_mean_median", r["cpu_per_peer_mean_median"] / mul_s
        )
        out[f"deal {n} peers: wall, one process"] = r["wall_one_process_median"] / local
        out[f"deal {n} peers: wall, parallel"] = r["wall_parallel_median"] / local
    if "reveal" in results:
        r = results["reveal"]
        out["reveal (4 peers): CPU total"] = r.get("u_cpu_total_median", r["cpu_total_median"] / mul_s)
        out["reveal (4 peers): CPU, busiest peer"] = r.get(
            "u_cpu_max_peer_median", r["cpu_max_peer_median"] / mul_s
        )
    for n, r in results.get("traffic", {}).items():
        out[f"whole game {n} peers: CPU per peer"] = r["cpu_per_peer_per_game_median"] / mul_s
    if "replay" in results:
        r = results["replay"]
        out["replay (4-peer game): first screen"] = r["s_first_screen_median"] / mul_s
        out["replay (4-peer game): verdict"] = r["s_verdict_median"] / mul_s
        out["replay (4-peer game): first screen before issue 29"] = r["s_first_screen_before_median"] / mul_s
    if "verify" in results:
        r = results["verify"]
        per_game = r.get("u_per_game_median", r["s_per_game_median"] / mul_s)
        out["verify (4-peer game): per game"] = per_game
        out["verify (4-peer game): per round"] = per_game / max(1, r["rounds"])
        out["verify (4-peer game): per 10,000 frames"] = r.get(
            "u_per_10k_frames_median", r["s_per_10k_frames"] / mul_s
        )
    return out


def bench_compare(
    peers: list[int], repeats: int, reveals: int, latency: float, path: str | None, mul_s: float
) -> dict[str, Any]:
    """`--compare`: the deal, the flip and `verify` with the compiled multi-scalar multiplication
    switched off and on (`group.use_extension`), side by side in this run, each pair measured one
    right after the other; every figure also in units of `group.mul` (u)."""
    if group._msm_module is None:
        raise SystemExit("--compare needs the compiled extension: reinstall with a C compiler present")
    out: dict[str, dict[str, Any]] = {"pure Python": {}, "compiled": {}}
    if path is None:  # one transcript for both, so that the two verifications check the same game
        import tempfile

        path = str(Path(tempfile.mkdtemp(prefix="skyjo-lan-bench-")) / "verify.skyjo")
    measures: list[tuple[str, Callable[[], dict[str, Any]]]] = [
        ("deal", lambda: bench_deal(peers, repeats)),
        ("reveal", lambda: bench_reveal(reveals, latency)),
        ("verify", lambda: bench_verify(repeats, path)),
    ]
    was = group.use_extension(True)
    try:
        for name, run in measures:
            for label, enabled in (("pure Python", False), ("compiled", True)):
                group.use_extension(enabled)
                out[label][name] = run()
    finally:
        group.use_extension(was)
    return {label: {**r, "in_mul_units": in_mul_units(r, mul_s)} for label, r in out.items()}


def print_compare(compare: dict[str, Any], mul_s: float) -> None:
    off, on = compare["pure Python"]["in_mul_units"], compare["compiled"]["in_mul_units"]
    print(
        f"Without and with the compiled multi-scalar multiplication (u = one group.mul, {mul_s * 1e6:.1f} us)"
    )
    print(f"  {'figure':<48} {'pure Python':>12} {'compiled':>12} {'change':>8}")
    for label, value in off.items():
        new = on.get(label, float("nan"))
        print(f"  {label:<48} {value:>10,.0f} u {new:>10,.0f} u {100 * (new / value - 1):>7.0f}%")
    print()


def print_verify(r: dict[str, Any]) -> None:
    met = "met" if r["s_per_10k_frames"] < 2.0 else "NOT met"
    print(f"skyjo-lan verify of a 4-peer whole SKYJO game (verify_bytes, CPU, median of {r['runs']} runs)")
    print(
        f"  {r['frames']} frames, {r['rounds']} rounds, {r['moves'] or '?'} moves, "
        f"{r['bytes'] / 1024:.0f} KiB: {r['s_per_game_median']:.2f} s per game "
        f"(min {r['s_per_game_min']:.2f} s), {r['s_per_round']:.2f} s per round, "
        f"{r['s_per_10k_frames']:.2f} s per 10,000 frames; target < 2 s per 10,000 frames: {met}"
    )
    kinds = ", ".join(f"{k} {n}" for k, n in r["frames_by_kind"].items())
    print(f"  frames by kind: {kinds}")
    print(f"  libsodium ops of one verification: {r['ops']}")
    print()


def print_units(units: dict[str, float], mul_s: float) -> None:
    print(
        f"The figures above in units of one variable-base multiplication ({mul_s * 1e6:.1f} us at the start "
        "of this run; the CPU figures of the deal, the reveal and verify each by a unit calibrated "
        "right before and after their own run)"
    )
    for label, value in units.items():
        print(f"  {value:>10,.0f} mul  {label}")
    print()


# --- profile ---------------------------------------------------------------------------------------


def profile_deal(players: int) -> pstats.Stats:
    profile = cProfile.Profile()
    profile.enable()
    deal_run(players)
    profile.disable()
    return pstats.Stats(profile)


def print_categories(shares: dict[str, float], total: float, per: str) -> None:
    """Profile shares, scaled to the unprofiled CPU time `total` (cProfile inflates Python code)."""
    for category, share in shares.items():
        print(f"    {share * 100:5.1f} %  ~{total * share * 1000:7.1f} ms {per}  {category}")


def raw_profile(stats: pstats.Stats, top: int) -> str:
    stream = io.StringIO()
    stats.stream = stream  # type: ignore[attr-defined]
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return stream.getvalue()


# --- experiments: optimisations simulated by patching this process only --------------------------

EXPERIMENTS = (
    "structural-decode",
    "verify-at-end",
)
"""What each experiment changes (in this benchmark process only; protocol/ is not modified):

structural-decode  received shuffle decks and proofs: length, canonical s and not-identity checks
                   only (libsodium decodes each point when the verification multiplies it)
verify-at-end      no shuffle is fed to the batch verifier before the last one is in
(One echo per burst, no self-check in `seal` and shares sent at the start of a reveal job were
experiments here; the session does all three now. Verifying signatures with PyNaCl's libsodium was
one too, dropped with PyNaCl: rbcl has no signatures.)
"""


class Experiment:
    """Apply some of `EXPERIMENTS` for the duration of a `with` block (and to new Tables)."""

    active: frozenset[str] = frozenset()

    def __init__(self, names: tuple[str, ...]) -> None:
        unknown = set(names) - set(EXPERIMENTS)
        if unknown:
            raise ValueError(f"unknown experiment(s): {sorted(unknown)}")
        self.names = frozenset(names)
        self.saved: list[tuple[object, str, Any]] = []

    def _patch(self, owner: object, name: str, value: Any) -> None:
        current = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
        self.saved.append((owner, name, current))
        setattr(owner, name, value)

    def __enter__(self) -> Experiment:
        import importlib

        from protocol.jobs import ShuffleJob

        elgamal = importlib.import_module("protocol.crypto.elgamal")
        shuffle_mod = importlib.import_module("protocol.crypto.shuffle")
        from protocol.crypto.errors import InvalidPoint

        if "structural-decode" in self.names:

            def structural(data: object) -> Any:
                if not isinstance(data, bytes) or len(data) != 32:
                    raise InvalidPoint("a point is 32 bytes")
                s = int.from_bytes(data, "little")
                if s >= 2**255 - 19 or s & 1:
                    raise InvalidPoint("non-canonical point encoding")
                if s == 0:
                    raise InvalidPoint("the identity point is not allowed")
                return data

            self._patch(elgamal, "decode_point", structural)
            self._patch(shuffle_mod, "decode_point", structural)
            # the batch decoder that validates (and keeps decoded) a whole deck or proof
            self._patch(elgamal, "decode_points", lambda items: [structural(p) for p in items])
            self._patch(shuffle_mod, "decode_points", lambda items: [structural(p) for p in items])
        if "verify-at-end" in self.names:
            original_absorb = ShuffleJob._absorb

            def absorb(job: Any, session: Session) -> None:
                if job.next_seat >= session.players:
                    original_absorb(job, session)

            self._patch(ShuffleJob, "_absorb", absorb)
        Experiment.active = self.names
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, name, original in reversed(self.saved):
            setattr(owner, name, original)
        self.saved.clear()
        Experiment.active = frozenset()


def bench_experiments(configs: list[tuple[str, ...]], repeats: int, latency: float) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for names in configs:
        label = "+".join(names) if len(names) < len(EXPERIMENTS) else "all of them"
        with Experiment(names):
            deal8 = [deal_run(8) for _ in range(repeats)]
            deal4 = [deal_run(4) for _ in range(repeats)]
            flips = reveal_samples(6, seed=3)
            slow = reveal_samples(3, seed=4, latency=latency)
        results[label or "baseline"] = {
            "deal8_cpu_mean": statistics.median(r["cpu_mean"] for r in deal8),
            "deal8_cpu_max": statistics.median(r["cpu_max"] for r in deal8),
            "deal8_wall_parallel": statistics.median(r["wall_parallel"] for r in deal8),
            "deal8_deliveries": statistics.median(r["deliveries_game"] + r["deliveries_echo"] for r in deal8),
            "deal4_cpu_max": statistics.median(r["cpu_max"] for r in deal4),
            "reveal_cpu_total": statistics.median(r["cpu_total"] for r in flips),
            "reveal_deliveries": statistics.median(r["deliveries"] for r in flips),
            "reveal_latency": statistics.median(r["time_to_all_know"] for r in slow),
        }
    return results


def print_experiments(results: dict[str, Any], latency: float) -> None:
    print("Optimisations simulated by patching this process (protocol/ unchanged); medians")
    print(
        f"{'experiment':18} | {'8p CPU mean':>11} | {'8p CPU max':>10} | {'8p wall par':>11} | "
        f"{'8p frames':>9} | {'4p CPU max':>10} | {'reveal CPU':>10} | {'frames':>6} | "
        f"{'latency @' + format(latency * 1000, '.0f') + 'ms':>12}"
    )
    for label, r in results.items():
        print(
            f"{label:18} | {r['deal8_cpu_mean']:>9.3f} s | {r['deal8_cpu_max']:>8.3f} s | "
            f"{r['deal8_wall_parallel']:>9.2f} s | {r['deal8_deliveries']:>9.0f} | "
            f"{r['deal4_cpu_max']:>8.3f} s | {ms(r['reveal_cpu_total']):>10} | "
            f"{r['reveal_deliveries']:>6.0f} | {ms(r['reveal_latency']):>12}"
        )
    print()


# --- output ----------------------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def print_tables(results: dict[str, Any]) -> None:
    if "deal" in results:
        print("Verifiable deal of the 150-card SKYJO deck, start -> first turn (medians)")
        print(
            f"{'peers':>5} | {'CPU/peer max':>12} | {'CPU/peer mean':>13} | {'wall 1 proc':>11} | "
            f"{'wall parallel':>13} | {'frames (game+echo)':>18} | {'bytes':>9} | "
            "target at 8 peers: CPU <= 0.40 s/peer, wall parallel <= 1.0 s"
        )
        for n, r in results["deal"].items():
            if str(n) != "8":
                met = "-"
            else:
                cpu_ok = r["cpu_per_peer_max_median"] <= 0.40
                wall_ok = r["wall_parallel_median"] <= 1.0
                met = f"CPU {'met' if cpu_ok else 'NOT met'}, wall {'met' if wall_ok else 'NOT met'}"
            frames = f"{r['deliveries_game']}+{r['deliveries_echo']}"
            print(
                f"{n:>5} | {r['cpu_per_peer_max_median']:>10.3f} s | "
                f"{r['cpu_per_peer_mean_median']:>11.3f} s | "
                f"{r['wall_one_process_median']:>9.2f} s | {r['wall_parallel_median']:>11.2f} s | "
                f"{frames:>18} | {r['bytes']:>9} | {met}"
            )
        for n, r in results["deal"].items():
            per = ", ".join(f"{c:.3f}" for c in r["cpu_per_peer_median_run"])
            print(f"  {n} peers, CPU per seat (s): {per}; libsodium ops per peer: {r['ops_per_peer_mean']}")
            kinds = ", ".join(f"{k} {v * 1000:.0f}" for k, v in r["cpu_per_peer_by_received_kind"].items())
            print(f"  {n} peers, CPU per peer (ms) by what triggered it: {kinds}")
            print(f"  {n} peers, where the CPU goes, per peer (one instrumented run):")
            for part, seconds in r["breakdown_per_peer (instrumented run)"].items():
                print(f"    {seconds * 1000:8.1f} ms  {part}")
        print()
    if "reveal" in results:
        r = results["reveal"]
        met = "met" if r["cpu_total_median"] <= 0.003 else "NOT met"
        print(f"One public reveal (flip) among 4 peers, {r['samples']} samples")
        print(
            f"  CPU total over 4 sessions: median {ms(r['cpu_total_median'])} "
            f"(min {ms(r['cpu_total_min'])}, max {ms(r['cpu_total_max'])}); busiest peer "
            f"{ms(r['cpu_max_peer_median'])}; frames delivered {r['deliveries_median']:.0f} "
            f"(echo {r['echo_deliveries_median']:.0f}); target <= 3 ms total: {met}"
        )
        print(
            f"  simulated time from the flip until every peer knows the card, one core per peer: "
            f"{ms(r['time_to_all_know_median_no_latency'])} with an instant network, "
            f"{ms(r['time_to_all_know_median_with_latency'])} with "
            f"{r['latency_simulated_s'] * 1000:.1f} ms per hop"
        )
        if "profile_shares" in r:
            print_categories(r["profile_shares"], r["cpu_total_median"], "over the 4 peers")
        print()
    for key, title in (
        ("traffic", "bots move at once: their frames carry the acknowledgements"),
        ("traffic_paced", "players think longer than the acknowledgement delay"),
    ):
        if key in results:
            print_traffic(results[key], title)


def print_traffic(traffic: dict[str, Any], title: str) -> None:
    """The traffic table of one pace."""
    print(f"Whole SKYJO games, greedy bots, target 100, {title} (medians)")
    print(
        f"{'peers':>5} | {'moves':>5} | {'rounds':>6} | {'game frames':>11} | {'echo frames':>11} | "
        f"{'game bytes':>10} | {'echo bytes':>10} | {'frames/move g+e':>15} | {'bytes/move g+e':>15}"
    )
    for n, r in traffic.items():
        p = r["per_move"]
        print(
            f"{n:>5} | {r['moves_median']:>5.0f} | {r['rounds_median']:>6.0f} | "
            f"{r['deliveries_game_median']:>11.0f} | {r['deliveries_echo_median']:>11.0f} | "
            f"{r['bytes_game_median']:>10.0f} | {r['bytes_echo_median']:>10.0f} | "
            f"{p['deliveries_game']:>6.1f}+{p['deliveries_echo']:<8.1f} | "
            f"{p['bytes_game']:>6.0f}+{p['bytes_echo']:<8.0f}"
        )
    for n, r in traffic.items():
        pooled = r["pooled_per_move"]
        target = ""
        if n == "4":
            met = "met" if pooled["bytes"] <= 4_700 else "NOT met"
            target = f"; target <= 4,700 bytes per move (half of 9.4 kB): {met}"
        print(
            f"  {n} peers, pooled over {r['games']} games: {pooled['bytes']:.0f} bytes and "
            f"{pooled['deliveries']:.1f} deliveries per move{target}"
        )
    for n, r in traffic.items():
        kinds = ", ".join(
            f"{k} {v['deliveries']:.0f}/{v['bytes'] / 1024:.0f} KiB" for k, v in r["by_kind"].items()
        )
        print(f"  {n} peers by kind (deliveries/bytes per game): {kinds}")
        print(
            f"  {n} peers: CPU per peer per game {r['cpu_per_peer_per_game_median']:.1f} s, wall one "
            f"process {r['wall_one_process_median']:.1f} s, "
            f"wall parallel {r['wall_parallel_median']:.1f} s"
        )
    print()


def machine() -> dict[str, Any]:
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    from importlib.metadata import version

    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "rbcl": version("rbcl"),
        "msgpack": ".".join(map(str, msgpack.version)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", choices=("deal", "reveal", "traffic", "verify", "replay", "experiments"), action="append"
    )
    parser.add_argument("--peers", type=int, action="append", help="peer counts for the deal (2, 4, 8)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per deal measurement")
    parser.add_argument("--reveals", type=int, default=15, help="flips measured")
    parser.add_argument("--games", type=int, default=3, help="whole games per peer count (traffic)")
    parser.add_argument(
        "--latency", type=float, default=0.001, help="simulated one-way delay for the reveal's latency (s)"
    )
    parser.add_argument(
        "--verify-file", help="verify: time the transcript in this file (made and saved there if absent)"
    )
    parser.add_argument(
        "--insured", action="store_true", help="seat insurance on every table (key escrow at the keys step)"
    )
    parser.add_argument(
        "--compare",
        action="store_true",
        help="the deal, the flip and verify without and with the compiled extension, side by side",
    )
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one deal")
    parser.add_argument("--profile-peers", type=int, default=8)
    parser.add_argument("--raw-profile", action="store_true", help="with --profile: print pstats too")
    parser.add_argument("--json", action="store_true", help="print the results as JSON instead of tables")
    parser.add_argument("--json-file", help="also write the results as JSON to this file")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, like the crypto benchmark
    warm_caches()
    global INSURED
    INSURED = args.insured
    chosen = args.only or ["deal", "reveal", "traffic", "verify"]
    results: dict[str, Any] = {"machine": machine()}
    mul_s = calibrate_mul()
    print(f"crypto backend: {group.backend()}", file=sys.stderr)
    if args.compare:
        results["compare"] = bench_compare(
            args.peers or [8], args.repeats, args.reveals, args.latency, args.verify_file, mul_s
        )
        after = calibrate_mul()
        # the unit is the smaller of the two calibrations: on a shared machine the other one was
        # slowed by something else (a start-up calibration 40-60 % high was seen), and a unit
        # too large makes every figure look smaller than it is
        unit = min(mul_s, after)
        for figures in results["compare"].values():
            figures["in_mul_units"] = in_mul_units(figures, unit)
        results["mul_us"], results["mul_us_after"], results["unit_us"] = mul_s * 1e6, after * 1e6, unit * 1e6
        if args.json_file:
            Path(args.json_file).write_text(json.dumps(results, indent=2) + "\n")
        print(f"machine: {results['machine']}\n")
        print_compare(results["compare"], unit)
        print(
            f"group.mul: {results['mul_us']:.1f} us at the start, {results['mul_us_after']:.1f} us at "
            f"the end (u for the wall figures: the smaller); the CPU figures of the deal, the reveal "
            f"and verify are each divided by u calibrated right before and after each run (the smaller)"
        )
        for label, figures in results["compare"].items():
            units = [
                *(u for r in figures["deal"].values() for u in r["units_s"]),
                *figures["reveal"]["units_s"],
                *figures["verify"]["units_s"],
            ]
            print(f"  local units, {label}: {min(units) * 1e6:.1f}-{max(units) * 1e6:.1f} us")
        return 0
    if "deal" in chosen:
        results["deal"] = bench_deal(args.peers or [2, 4, 8], args.repeats)
    if "reveal" in chosen:
        results["reveal"] = bench_reveal(args.reveals, args.latency)
        results["reveal"]["profile_shares"] = shares_of(
            categorize(profile_reveals(max(5, args.reveals // 2)))
        )
    if "traffic" in chosen:
        results["traffic"] = bench_traffic([2, 4], args.games)
        results["traffic_paced"] = bench_traffic([2, 4], args.games, paced=True)
    if "verify" in chosen:
        results["verify"] = bench_verify(args.repeats, args.verify_file)
    if "replay" in chosen:
        results["replay"] = bench_replay(args.repeats, args.verify_file)
    results["mul_us"] = mul_s * 1e6
    results["in_mul_units"] = in_mul_units(results, mul_s)
    if "experiments" in chosen:
        configs: list[tuple[str, ...]] = [(), *((name,) for name in EXPERIMENTS), EXPERIMENTS]
        results["experiments"] = bench_experiments(configs, max(1, args.repeats // 2), args.latency)
    stats = None
    if args.profile:
        stats = profile_deal(args.profile_peers)
        results["deal_profile"] = {"peers": args.profile_peers, "shares": shares_of(categorize(stats))}
    if args.json_file:
        Path(args.json_file).write_text(json.dumps(results, indent=2) + "\n")
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"machine: {results['machine']}\n")
    print_tables(results)
    if "verify" in results:
        print_verify(results["verify"])
    print_units(results["in_mul_units"], mul_s)
    if "experiments" in results:
        print_experiments(results["experiments"], args.latency)
    if stats is not None:
        n = str(args.profile_peers)
        total = results.get("deal", {}).get(n, {}).get("cpu_per_peer_mean_median", 0.0)
        print(f"Where the time goes in the {n}-peer deal (cProfile, exclusive time by category):")
        print_categories(results["deal_profile"]["shares"], total, "per peer")
        if args.raw_profile:
            print(raw_profile(stats, 40))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
