"""Reproduce the paper's in-context vs out-of-context comparison (its Table: maps 1-3 here).

For each statement of ``statements/exp1/exp1_{current,initial}_in_vs_out.csv`` the
normalized likelihood is computed in its own plan (in context) and in the other plans of
its map (out of context), at each plan's exp1 judgment point, with free variables bound
existentially. A statement is classified correctly when its in-context score is strictly
higher than the mean of its out-of-context scores. Formulas that do not parse or
typecheck score 0.5 and are counted.

    python benchmarks/reproduce_in_vs_out.py [--labtom DIR] [--models full,true-belief,non-planning]
"""

from __future__ import annotations

import argparse
import csv
import math
from collections import defaultdict

import numpy as np

from elot.errors import ElotError
from elot.inference import infer
from elot.scenario import dataset_root, load_dataset_plan
from elot.scoring import score

PAPER = {  # (in, out, diff, s.e., accuracy) from the paper, all 7 maps
    ("current", "full"): (0.78, 0.48, 0.30, 0.03, 0.71),
    ("current", "non-planning"): (0.70, 0.54, 0.16, 0.02, 0.65),
    ("current", "true-belief"): (0.35, 0.35, 0.01, 0.01, 0.11),
    ("initial", "full"): (0.73, 0.51, 0.22, 0.03, 0.70),
    ("initial", "non-planning"): (0.70, 0.70, -0.01, 0.01, 0.39),
    ("initial", "true-belief"): (0.51, 0.50, 0.00, 0.01, 0.16),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labtom", help="dataset directory (default: $ELOT_LABTOM_DATA or ../shared/labtom)")
    parser.add_argument("--models", default="full,true-belief,non-planning")
    args = parser.parse_args()
    root = dataset_root(args.labtom)
    models = args.models.split(",")
    scenarios: dict[str, object] = {}
    inferences: dict[tuple[str, str], object] = {}

    print(f"{'condition':<9} {'model':<13} {'n':>4} {'in':>5} {'out':>5} {'diff ± s.e.':>14} {'acc':>5} {'ill':>4}"
          f"   paper: in / out / diff (s.e.) / acc")
    for condition in ("current", "initial"):
        path = root / "statements" / "exp1" / f"exp1_{condition}_in_vs_out.csv"
        with path.open(encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        for model in models:
            ins: dict[str, float] = {}
            outs: dict[str, list[float]] = defaultdict(list)
            ill: set[str] = set()
            for row in rows:
                plan = row["plan_id"]
                if plan not in scenarios:
                    scenarios[plan] = load_dataset_plan(root, plan, exp="exp1")
                scenario = scenarios[plan]
                (t,) = scenario.judgments
                assert int(row["timestep"]) == t + 1, (plan, row["timestep"], t)
                if (plan, model) not in inferences:
                    inferences[(plan, model)] = infer(scenario, model=model)
                try:
                    value = score(inferences[(plan, model)], row["formula"].strip(), t, condition,
                                  bind_free=True).normalized_likelihood
                except ElotError:
                    ill.add(row["statement_id"])
                    value = 0.5
                if row["match"].upper() == "TRUE":
                    ins[row["statement_id"]] = value
                else:
                    outs[row["statement_id"]].append(value)
            ids = [s for s in ins if outs[s]]
            in_scores = np.array([ins[s] for s in ids])
            out_scores = np.array([np.mean(outs[s]) for s in ids])
            diff = in_scores - out_scores
            se = diff.std(ddof=1) / math.sqrt(len(diff))
            acc = float((in_scores > out_scores).mean())
            paper = PAPER.get((condition, model))
            ref = f"{paper[0]:.2f} / {paper[1]:.2f} / {paper[2]:+.2f} ({paper[3]:.2f}) / {paper[4]:.2f}" if paper else ""
            print(f"{condition:<9} {model:<13} {len(ids):>4} {in_scores.mean():>5.2f} {out_scores.mean():>5.2f} "
                  f"{diff.mean():>+7.2f} ± {se:.2f} {acc:>5.2f} {len(ill):>4}   {ref}")
    print("n: statements with in- and out-of-context rows (maps 1-3; the paper used all 7 maps); "
          "ill: formulas that failed to parse/typecheck, scored 0.5")


if __name__ == "__main__":
    main()
