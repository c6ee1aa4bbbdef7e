"""Issue 29's figures in instructions, counted by valgrind (callgrind): the same on every run.

    python benchmarks/instructions.py                          # deal (8 peers), flip, verify
    python benchmarks/instructions.py --only verify --verify-file /tmp/game.skyjo
    python benchmarks/instructions.py --only flip --flips 20 --pure   # without the extension
    python benchmarks/instructions.py --only flip --deterministic     # the same count every run

Why: `benchmarks/protocol.py` gives CPU time in units of one `group.mul` (u). On a shared,
virtualised machine that unit and the Python around it change speed independently from minute
to minute (docs/performance.md, "sixth stop": the same flip measured 73-102 u within minutes),
so a change of a few per cent cannot be seen, let alone kept or refused. Instructions retired
do not depend on the neighbours: two runs of the same code on the same input agree to about
0.01 %. This script counts them, only inside the calls `benchmarks/protocol.py` times, and
divides them by the instructions of one `group.mul` (Ir-u).

An Ir-u is **not** a u. A multiplication's field arithmetic retires several instructions a
cycle; the interpreter's loads, branches and dictionary lookups retire fewer, and fewer still on a
busy shared core. So a figure in Ir-u is smaller than the same figure in u, by a factor that is
the machine's (about 2 for `verify` on the machine of the seventh stop), and issue 29's goals
are in u: this script is the tool to compare two versions of the code, not the judge of a goal.

What is counted (the same windows as `benchmarks/protocol.py`):
* **deal**: every call into a session from `start()` until every peer may play the first turn,
  summed over the peers and divided by their number (the mean per peer; callgrind has one
  counter, so the busiest seat is not told apart);
* **flip**: every call into the four sessions from `submit_move` of a flip until every peer's
  state holds the card, per flip (`benchmarks/protocol.py`'s `reveal_samples`);
* **verify**: `protocol.verify.verify_bytes` of a whole 4-peer game, per 10,000 frames;
* **unit**: a loop of `group.mul` by one point, as `calibrate_mul` times it.

Each figure is one child process under `valgrind --tool=callgrind --collect-atstart=no`,
switching the collection on and off around the counted calls through a 5-line C helper built
here (`CALLGRIND_TOGGLE_COLLECT`, valgrind's client request). Needs valgrind with its headers
and a C compiler; a deal of 8 peers takes about 2 minutes under valgrind, a verify about 1.
The secrets of each run are fresh (as in a game): the deal and the flips vary by well under 1 %
from run to run; `verify` of one file does not vary (`--verify-file` to keep one across runs).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TOGGLE_SOURCE = """\
#include <valgrind/callgrind.h>
/* Switch callgrind's collection on or off (a no-op when not run under valgrind). */
void skyjo_cg_toggle(void) { CALLGRIND_TOGGLE_COLLECT; }
"""

FIGURES = ("unit", "deal", "flip", "verify")


def build_toggle(workdir: Path) -> Path:
    """The helper library: `skyjo_cg_toggle()` switches callgrind's collection."""
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        raise SystemExit("a C compiler is needed to build the collection switch (cc or gcc)")
    source = workdir / "cgtoggle.c"
    source.write_text(TOGGLE_SOURCE)
    library = workdir / "libcgtoggle.so"
    done = subprocess.run(
        [compiler, "-O2", "-shared", "-fPIC", "-o", str(library), str(source)], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"could not build the collection switch (valgrind's headers?):\n{done.stderr}")
    return library


def counted(workdir: Path, figure: str, child_args: list[str]) -> dict[str, Any]:
    """Run one figure's child under callgrind; its instructions collected and what it printed."""
    out = workdir / f"callgrind.{figure}.out"
    command = [
        "valgrind",
        "--tool=callgrind",
        "--collect-atstart=no",
        f"--callgrind-out-file={out}",
        sys.executable,
        str(Path(__file__).resolve()),
        "--child",
        figure,
        *child_args,
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"the {figure} child failed:\n{done.stdout}\n{done.stderr[-3000:]}")
    totals = [line for line in out.read_text().splitlines() if line.startswith(("totals:", "summary:"))]
    if not totals:
        raise SystemExit(f"no totals in {out}")
    report = json.loads(done.stdout.strip().splitlines()[-1])
    report["instructions"] = int(totals[-1].split()[1])
    report["by library"] = by_library(out)
    return report


LIBRARIES = (
    ("_msm.", "the extension (protocol/crypto/_msm.c)"),
    ("libsodium", "libsodium (rbcl)"),
    ("libcrypto", "OpenSSL (hashes)"),
    ("_hashlib", "OpenSSL (hashes)"),
    ("libpython", "CPython (the interpreter, its objects)"),
    ("msgpack", "msgpack"),
)


def by_library(out: Path) -> dict[str, float]:
    """Shares of the collected instructions by the library that retired them (each function's
    own instructions: `callgrind_annotate --inclusive=no`); empty if callgrind_annotate fails."""
    done = subprocess.run(
        ["callgrind_annotate", "--inclusive=no", "--threshold=100", str(out)], capture_output=True, text=True
    )
    shares: dict[str, int] = {}
    for line in done.stdout.splitlines():
        parts = line.split()
        if not parts or not line.endswith("]") or "[" not in line:
            continue
        try:
            count = int(parts[0].replace(",", ""))
        except ValueError:
            continue
        library = line[line.rindex("[") + 1 : -1]
        name = next((label for key, label in LIBRARIES if key in library), "other (libc, ctypes...)")
        shares[name] = shares.get(name, 0) + count
    total = sum(shares.values())
    if not total:
        return {}
    return {name: count / total for name, count in sorted(shares.items(), key=lambda kv: -kv[1])}


# --- the child: runs under valgrind, counts only inside the windows ---------------------------------


def child(figure: str, args: argparse.Namespace) -> dict[str, Any]:
    """Do one figure's work, with the collection on only inside the counted calls."""
    from benchmarks import protocol as bp
    from protocol.crypto import group

    toggle: Callable[[], None] = ctypes.CDLL(args.toggle).skyjo_cg_toggle
    if args.pure:
        group.use_extension(False)
    if args.deterministic:
        _repeatable()
    bp.warm_caches()
    if figure == "unit":
        point = group.mul_base(group.random_scalar())
        scalars = [group.random_scalar() for _ in range(args.muls)]
        toggle()
        for k in scalars:
            group.mul(k, point)
        toggle()
        return {"muls": args.muls}
    if figure == "verify":
        from protocol.verify import verify_bytes

        data = Path(args.verify_file).read_bytes()
        toggle()
        verdict = verify_bytes(data)
        toggle()
        if not verdict.valid:
            raise SystemExit(f"the game does not verify: {verdict}")
        return {"frames": frames_in(data)}
    window = {"open": False}
    plain_call = bp.Table.call

    def call(self: Any, seat: int, fn: Callable[..., Any], *fn_args: Any) -> Any:
        if not window["open"]:
            return plain_call(self, seat, fn, *fn_args)

        def inside(*a: Any) -> Any:
            toggle()
            try:
                return fn(*a)
            finally:
                toggle()

        return plain_call(self, seat, inside, *fn_args)

    bp.Table.call = call  # type: ignore[method-assign]
    if figure == "deal":
        window["open"] = True
        bp.deal_run(args.peers)
        window["open"] = False
        return {"peers": args.peers}
    plain_measure = bp._measure_flip

    def measure(table: Any, seat: int, move: Any) -> dict[str, float]:
        window["open"] = True
        try:
            return plain_measure(table, seat, move)
        finally:
            window["open"] = False

    bp._measure_flip = measure
    bp.reveal_samples(args.flips, seed=1)
    return {"flips": args.flips}


def _repeatable() -> None:
    """`--deterministic`, in the child only: the same instructions on every run of the same code.

    A flip's or a deal's count otherwise moves by a few per cent from run to run (the same code
    measured 45.9, 46.6 and 49.1 Ir-u): the keys and secrets are fresh, and the loopback's clock
    follows the measured CPU, so frames arrive in another order and acknowledgements go out in
    other frames. Here `secrets` draws from a seeded stream (its functions replaced, so that the
    code takes the same paths as with the real module), identity keys come from the same stream,
    the loopback's clock advances by a fixed step per metered call, and the cyclic collector is
    off. Nothing of this is secret: a benchmark's child process, never a game."""
    import gc
    import random
    import secrets
    import time

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    gc.disable()
    stream = random.Random(12345)
    secrets.token_bytes = lambda n=32: stream.randbytes(n)  # type: ignore[assignment]
    secrets.randbelow = stream.randrange  # type: ignore[assignment]
    from_bytes = Ed25519PrivateKey.from_private_bytes
    Ed25519PrivateKey.generate = staticmethod(lambda: from_bytes(stream.randbytes(32)))  # type: ignore[method-assign]
    ticks = [0.0]

    def tick() -> float:
        ticks[0] += 1e-4
        return ticks[0]

    time.process_time = tick


def frames_in(data: bytes) -> int:
    from protocol.transcript import load

    return len(load(data)[1])


# --- the parent ---------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=FIGURES[1:], action="append", help="a figure (repeatable)")
    parser.add_argument("--peers", type=int, default=8, help="peers of the deal")
    parser.add_argument("--flips", type=int, default=20, help="flips counted")
    parser.add_argument("--muls", type=int, default=400, help="multiplications of the unit")
    parser.add_argument("--verify-file", help="the game to verify (made and saved there if absent)")
    parser.add_argument("--pure", action="store_true", help="without the compiled extension")
    parser.add_argument(
        "--deterministic",
        action="store_true",
        help="seeded secrets and keys, a counter for the loopback's clock, no collector: the flip "
        "and the deal count the same on every run",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--child", choices=FIGURES, help=argparse.SUPPRESS)
    parser.add_argument("--toggle", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args)))
        return 0
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed: this benchmark counts instructions under callgrind")
    workdir = Path(tempfile.mkdtemp(prefix="skyjo-lan-instructions-"))
    toggle = build_toggle(workdir)
    chosen = args.only or list(FIGURES[1:])
    common = ["--toggle", str(toggle)] + (["--pure"] if args.pure else [])
    common += ["--deterministic"] if args.deterministic else []
    results: dict[str, Any] = {"backend": "pure Python" if args.pure else "compiled"}
    unit = counted(workdir, "unit", [*common, "--muls", str(args.muls)])
    per_mul = unit["instructions"] / unit["muls"]
    results["instructions per group.mul (Ir-u)"] = round(per_mul)
    if "deal" in chosen:
        deal = counted(workdir, "deal", [*common, "--peers", str(args.peers)])
        per_peer = deal["instructions"] / args.peers
        results[f"deal {args.peers} peers, per peer (mean)"] = {
            "instructions": round(per_peer),
            "Ir-u": round(per_peer / per_mul, 1),
            "by library": deal["by library"],
        }
    if "flip" in chosen:
        flip = counted(workdir, "flip", [*common, "--flips", str(args.flips)])
        per_flip = flip["instructions"] / args.flips
        results["flip among 4 peers, in total"] = {
            "instructions": round(per_flip),
            "Ir-u": round(per_flip / per_mul, 1),
            "by library": flip["by library"],
        }
    if "verify" in chosen:
        path = Path(args.verify_file) if args.verify_file else workdir / "verify.skyjo"
        if not path.exists():
            from benchmarks import protocol as bp

            path.write_bytes(bp.verify_game("verify:4:0")[0])
        check = counted(workdir, "verify", [*common, "--verify-file", str(path)])
        per_10k = check["instructions"] * 10_000 / check["frames"]
        results["verify, per 10,000 frames"] = {
            "frames": check["frames"],
            "instructions": round(per_10k),
            "Ir-u": round(per_10k / per_mul),
            "by library": check["by library"],
        }
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        unit_ir = results["instructions per group.mul (Ir-u)"]
        print(f"backend: {results['backend']}; one group.mul: {unit_ir:,} Ir")
        for name, figure in results.items():
            if isinstance(figure, dict):
                extra = f" ({figure['frames']:,} frames)" if "frames" in figure else ""
                print(f"  {name:<40} {figure['Ir-u']:>10,} Ir-u   {figure['instructions']:>16,} Ir{extra}")
                for library, share in figure["by library"].items():
                    print(f"      {100 * share:5.1f} %  {library}")
    shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
