"""`verify` against damaged and forged saved games: it never crashes, never hangs, and names a seat
only when that seat's own signature is on the evidence (not a test: a long random campaign).

    python benchmarks/verify_mutations.py                         # 300 mutations of 3 new games
    python benchmarks/verify_mutations.py --runs 2000 --seed 5
    python benchmarks/verify_mutations.py --file game.skyjo       # one saved game (no forgeries)

The games are played for the purpose by bots of known keys (`tests/client/saved_games.py`), one
of each kind: SKYJO, SKYJO ACTION and SKIP-BO. Each run changes one of them, at random, as a disk,
a copy or a player could:

* a damaged file (nobody can sign): bits flipped anywhere, the file cut short, records swapped,
  repeated, dropped, shuffled, cut short, or junk records put in. `verify` must answer (a verdict,
  or the one `MalformedMessage` of a file that is not a transcript) and blame **nobody**; a file
  holding the same frames in another order or with copies must get the same verdict as the game;
* a forgery by one seat (it holds its own key): one of its frames with a field of its data changed,
  signed again. `verify` may blame **that seat only**, never another.

Every run is bounded (60 s of time each, by SIGALRM). A file that breaks a rule is saved beside the
report for a look, and the run's exit status is 1.
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from protocol.errors import MalformedMessage  # noqa: E402
from protocol.messages import open_frame, seal  # noqa: E402
from protocol.transcript import dump, load  # noqa: E402
from protocol.verify import Verdict, verify_bytes  # noqa: E402
from tests.client.saved_games import KEYS, NAMES, play  # noqa: E402

DAMAGES = ("flip", "truncate", "swap", "repeat", "drop", "shuffle", "framecut", "frameflip", "junk")
SAME_GAME = ("swap", "repeat", "shuffle")
"""Damages that keep every frame: the verdict must be the game's own."""


class Hang(Exception):
    """Raised by SIGALRM: a check ran past its bound."""


def _alarm(*_: object) -> None:
    raise Hang


def damage(rng: random.Random, data: bytes, frames: list[bytes], config: Any) -> tuple[str, bytes]:
    """A damaged copy of the file: which damage, and the bytes."""
    kind = rng.choice(DAMAGES)
    out = list(frames)
    if kind == "flip":
        raw = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
        return kind, bytes(raw)
    if kind == "truncate":
        return kind, data[: rng.randrange(len(data))]
    if kind == "swap":
        i, j = rng.randrange(len(out)), rng.randrange(len(out))
        out[i], out[j] = out[j], out[i]
    elif kind == "repeat":
        for _ in range(rng.randint(1, 5)):
            out.insert(rng.randrange(len(out)), out[rng.randrange(len(out))])
    elif kind == "drop":
        for _ in range(rng.randint(1, 3)):
            del out[rng.randrange(len(out))]
    elif kind == "shuffle":
        rng.shuffle(out)
    elif kind == "framecut":
        i = rng.randrange(len(out))
        out[i] = out[i][: rng.randrange(len(out[i]))]
    elif kind == "frameflip":
        i = rng.randrange(len(out))
        raw = bytearray(out[i])
        raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
        out[i] = bytes(raw)
    else:
        out.insert(rng.randrange(len(out)), rng.randbytes(rng.randrange(1, 200)))
    return kind, dump(config, out)


def _changed(rng: random.Random, value: Any) -> tuple[bool, Any]:
    """`value` with one leaf changed (False if it has none this can change)."""
    if isinstance(value, dict) and value:
        key = rng.choice(sorted(value, key=str))
        done, new = _changed(rng, value[key])
        return done, {**value, key: new}
    if isinstance(value, list | tuple) and value:
        i = rng.randrange(len(value))
        done, new = _changed(rng, value[i])
        items = list(value)
        items[i] = new
        return done, type(value)(items) if isinstance(value, tuple) else items
    if isinstance(value, bool):
        return True, not value
    if isinstance(value, int):
        return True, value + rng.choice((-1, 1))
    if isinstance(value, bytes) and value:
        raw = bytearray(value)
        raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
        return True, bytes(raw)
    if isinstance(value, str):
        return True, value + "x"
    return False, value


def forge(rng: random.Random, frames: list[bytes], config: Any) -> tuple[str, int, bytes] | None:
    """One seat's frame changed and signed again by that seat: (what, the seat, the file)."""
    for _ in range(20):
        i = rng.randrange(len(frames))
        envelope = open_frame(frames[i], config)
        seat = envelope.seat
        if seat is None or not 0 <= seat < len(NAMES) or config.names[seat] not in KEYS:
            continue
        done, data = _changed(rng, dict(envelope.data))
        if not done:
            continue
        try:
            forged = seal(
                config,
                KEYS[config.names[seat]],
                seat,
                envelope.seq,
                envelope.prev,
                envelope.kind,
                data,
                envelope.acks,
            )
        except (MalformedMessage, ValueError, TypeError):
            continue  # not a frame of that kind: the schema refuses it before signing
        out = list(frames)
        if rng.random() < 0.5:
            out[i] = forged.frame  # in place of the frame
        else:
            out.insert(i + 1, forged.frame)  # beside it: two frames of one number (equivocation)
        return f"forge {envelope.kind}", seat, dump(config, out)
    return None


def check(data: bytes) -> Verdict | str:
    """The verdict, or "malformed" (not a transcript), "HANG" or "CRASH: ..."."""
    signal.alarm(60)
    try:
        return verify_bytes(data)
    except MalformedMessage:
        return "malformed"
    except Hang:
        return "HANG"
    except Exception:
        return "CRASH: " + traceback.format_exc(limit=4)
    finally:
        signal.alarm(0)


def _result(verdict: Verdict) -> tuple[str, tuple[int, ...]]:
    return verdict.kind, tuple(verdict.totals)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--file", help="a saved game to damage (no forgeries: its keys are not known)")
    parser.add_argument("--out", help="folder for the files that break a rule (default: a new temporary one)")
    args = parser.parse_args()
    signal.signal(signal.SIGALRM, _alarm)
    rng = random.Random(args.seed)
    if args.file:
        games = [Path(args.file).read_bytes()]
    else:
        games = [play(game, seed=f"m{args.seed}").data for game in ("skyjo", "skyjo-action", "skip-bo")]
    base = []
    for data in games:
        config, frames = load(data)
        verdict = check(data)
        assert isinstance(verdict, Verdict) and verdict.valid, verdict
        base.append((data, config, frames, verdict))
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="verify-mutations-"))
    out.mkdir(parents=True, exist_ok=True)
    outcomes: Counter[str] = Counter()
    broken = 0
    slowest = 0.0
    for run in range(args.runs):
        data, config, frames, game_verdict = rng.choice(base)
        culprit: int | None = None
        if args.file is None and rng.random() < 0.4:
            forged = forge(rng, frames, config)
            if forged is None:
                continue
            what, culprit, changed = forged
        else:
            what, changed = damage(rng, data, frames, config)
        began = time.process_time()
        verdict = check(changed)
        slowest = max(slowest, time.process_time() - began)
        said = verdict if isinstance(verdict, str) else verdict.kind
        wrong = ""
        if said == "HANG" or said.startswith("CRASH"):
            wrong = said
        elif isinstance(verdict, Verdict):
            if verdict.blame is not None and verdict.blame != culprit:
                wrong = f"blames seat {verdict.blame} ({verdict.fault})"
            elif what in SAME_GAME and (verdict.kind, verdict.totals) != (
                game_verdict.kind,
                game_verdict.totals,
            ):
                wrong = f"the same frames, another verdict: {verdict.kind} {verdict.fault}"
            if verdict.blame is not None:
                said += " (blames the forger)"
        outcomes[f"{what.split(' ')[0]:9} {said}"] += 1
        if wrong:
            broken += 1
            path = out / f"run{run}.skyjo"
            path.write_bytes(changed)
            print(f"run {run}: {what}: {wrong} -> {path}", flush=True)
    print(
        f"{args.runs} runs (seed {args.seed}); rules broken: {broken}; slowest check {slowest:.2f} s of CPU"
    )
    for outcome, count in sorted(outcomes.items()):
        print(f"  {count:6}  {outcome}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
