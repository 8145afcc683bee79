"""The theory-of-mind battery (issue 43): the classic tasks of examples/domains/tom/ run on
elot's engine, each question judged at its time, against the answer the literature expects.

    python benchmarks/tom_battery.py [--inference exact|smc] [--particles N] [--seed S] [--csv FILE]

For each task (Sally–Anne and the variant where she peeks, Smarties, seeing leads to knowing,
Perner & Wimmer's ice-cream van; each with its true-belief control) and each question:
the expected answer, elot's posterior P and normalized likelihood L, pass (P > 0.5 for
"yes", P < 0.5 for "no") or FAIL, and the time, which includes inverting the case from
scratch (a fresh engine: planning, the inversion, the situations and every agent's belief
table) and judging the question. Target: each ≤ 1 s. Exit status 1 if any question fails.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TASKS = REPO / "examples" / "domains" / "tom"
FILES = ("sally_anne.py", "smarties.py", "seeing.py", "ice_cream.py")


def load(path: Path):
    """A task's domain file as a module (its ``domain`` and ``QUESTIONS``)."""
    spec = importlib.util.spec_from_file_location(f"tom_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def battery(inference: str = "exact", particles: int = 4000, seed: int = 1) -> list[dict]:
    """Every question of every task, judged (see the module)."""
    from elot.domains.tabular import TabularFront
    from elot.engine.settings import InferenceSettings
    from elot.judging import score
    from elot.lang.semantics import compile_formula

    rows = []
    for name in FILES:
        module = load(TASKS / name)
        for case, t, mode, statement, expected, what in module.QUESTIONS:
            start = time.perf_counter()
            front = TabularFront(module.domain, origin=str(TASKS / name))
            settings = front.settings(inference=InferenceSettings(method=inference, particles=particles, seed=seed)
                                      if inference != "exact" else None)
            source = front.run(front.episode(case), settings)
            got = score(compile_formula(statement, source.signature), source.at(t, mode))
            seconds = time.perf_counter() - start
            rows.append({"task": module.domain.name, "case": case, "t": t, "mode": mode, "question": what,
                         "statement": statement, "expected": "yes" if expected else "no", "P": got.P, "L": got.L,
                         "pass": (got.P > 0.5) == expected, "seconds": seconds})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inference", choices=("exact", "smc"), default="exact")
    parser.add_argument("--particles", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--csv", type=Path, help="also write the table here")
    args = parser.parse_args(argv)
    rows = battery(args.inference, args.particles, args.seed)
    print(f"theory-of-mind battery, inference {args.inference}"
          + (f" ({args.particles:,} particles, seed {args.seed})" if args.inference == "smc" else ""))
    print(f"{'task':24s} {'case':13s} {'t':>2s} {'question':66s} {'expected':>8s} {'P':>6s} {'L':>6s} "
          f"{'':4s} {'time':>7s}")
    for row in rows:
        print(f"{row['task']:24s} {row['case']:13s} {row['t']:2d} {row['question'][:66]:66s} {row['expected']:>8s} "
              f"{row['P']:6.3f} {row['L']:6.3f} {'pass' if row['pass'] else 'FAIL':4s} {row['seconds']:6.3f}s")
    passed = sum(row["pass"] for row in rows)
    slowest = max(row["seconds"] for row in rows)
    print(f"{passed} of {len(rows)} questions answered as expected; slowest {slowest:.3f} s (target <= 1 s each)")
    if args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return 0 if passed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
