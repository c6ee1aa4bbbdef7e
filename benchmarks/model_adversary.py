"""The adversary model test of issue 12 as a long run: many seeded runs, every finding listed.

    python benchmarks/model_adversary.py --runs 2000 --seed 0
    python benchmarks/model_adversary.py --runs 1 --seed 1234 --verbose   # replay one run
    python benchmarks/model_adversary.py --runs 2600 --seed 400 --kick-crash  # one draw only
    python benchmarks/model_adversary.py --runs 400 --seed 0 --cut-resume     # another

Each run is `tests.protocol.model.run_model(seed)`: honest sessions and one adversary that
deviates at random (withholds, holds, delays, equivocates game frames or echoes, sends garbage,
stops and comes back, crashes) on a simulated clock; see that module for what is checked. The CI
test (tests/protocol/test_model_adversary.py) plays a few dozen seeds; this plays as many as you
like and prints: the run count, the CPU time, the outcomes, per behaviour how many runs it acted
in and how many of those had findings, and every finding with its seed (replay a seed with
`--runs 1 --seed S`). Exit status 1 if anything was found. Results: docs/protocol-testing.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.protocol.model import BEHAVIOURS, Model, Run, run_model


def category(finding: str) -> str:
    """A short name for the kind of a finding (for the tally)."""
    text = finding.split(": ", 1)[-1]
    for marker, name in (
        ("take over honest seat", "an honest (present) seat taken over"),
        ("blamed honest seat", "an honest seat blamed"),
        ("as culprit", "an honest seat named culprit"),
        ("absent", "an honest seat named absent"),
        ("disagree", "honest seats disagree"),
        ("neither finished nor halted", "not settled"),
        ("does not verify", "finished transcript does not verify"),
        ("raised", "exception"),
        ("illegal move", "bot move refused"),
    ):
        if marker in text:
            return name
    return "other"


def kick_crash(seed: int) -> bool:
    """Whether the seed's plan (cheap: nothing runs) has the unanimous kick whose adversary dies
    right after its agreement (`tests.protocol.model.draw_kick`, `count` 2)."""
    model = Model(seed)
    return bool(model.insured) and any(d.behaviour == "kicker" and d.count == 2 for d in model.deviations)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=200, help="how many runs (seeds seed..seed+runs-1)")
    parser.add_argument("--seed", type=int, default=0, help="the first seed")
    parser.add_argument("--verbose", action="store_true", help="one line per run")
    parser.add_argument(
        "--kick-crash",
        action="store_true",
        help="only the seeds whose plan has a unanimous kick whose adversary dies after agreeing",
    )
    parser.add_argument(
        "--cut-resume",
        action="store_true",
        help="only the seeds whose plan has a long cut ended by a --resume (draw_cut_resume)",
    )
    args = parser.parse_args(argv)

    started = time.process_time()
    acted: Counter[str] = Counter()
    acted_found: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    tables: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    findings: list[str] = []
    failed_runs = 0
    played = 0
    for seed in range(args.seed, args.seed + args.runs):
        if args.kick_crash and not kick_crash(seed):
            continue
        if args.cut_resume and not any(d.behaviour == "cutresume" for d in Model(seed).deviations):
            continue
        played += 1
        run: Run = run_model(seed)
        found = run.findings()
        tables[f"{run.game} {run.players}"] += 1
        results = {run.outcome(s) for s in run.honest}
        outcomes[" / ".join(sorted(o if o != "halted" else f"halted (culprit {c})" for o, c in results))] += 1
        did = sorted(run.effects) or ["none (honest throughout)"]
        if run.effects["kicker_crash"]:
            outcomes[f"(kicker_crash acted) {' / '.join(sorted(o for o, _ in results))}"] += 1
        for behaviour in did:
            acted[behaviour] += 1
            if found:
                acted_found[behaviour] += 1
        if found:
            failed_runs += 1
            findings.extend(found)
            kinds.update({category(f) for f in found})
        if args.verbose:
            print(run.summary())
            for line in found:
                print("   ", line)
    cpu = time.process_time() - started

    print(f"runs: {played} (seeds {args.seed}..{args.seed + args.runs - 1}), CPU {cpu:.0f} s")
    print(f"runs with findings: {failed_runs}; findings: {len(findings)}")
    print("tables:", ", ".join(f"{t} x{n}" for t, n in sorted(tables.items())))
    print("honest outcomes:")
    for outcome, count in outcomes.most_common():
        print(f"  {count:6d}  {outcome}")
    print("behaviours (runs it acted in / of those, runs with findings):")
    for behaviour in (
        *BEHAVIOURS,
        "impatient",
        "kicker_crash",
        "returnvote",
        "outage",
        "slowlinks",
        "twisted",
        "none (honest throughout)",
    ):
        print(f"  {behaviour:26s} {acted[behaviour]:6d} {acted_found[behaviour]:6d}")
    if kinds:
        print("runs with a finding of each kind:")
        for kind, count in kinds.most_common():
            print(f"  {count:6d}  {kind}")
    if findings:
        print("findings:")
        for line in findings:
            print(" ", line)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
