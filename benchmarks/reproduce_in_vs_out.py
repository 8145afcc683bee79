"""Reproduce the paper's in-context vs out-of-context comparison (its Table: maps 1-3 here).

The computation is :func:`elot.experiments.in_vs_out` (see its docstring for the rules);
this script prints each condition and model beside the paper's numbers.

    python benchmarks/reproduce_in_vs_out.py [--labtom DIR] [--models full,true-belief,non-planning]
"""

from __future__ import annotations

import argparse

from elot.experiments import PAPER, TIE, in_vs_out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labtom", help="dataset directory (default: $ELOT_LABTOM_DATA or ../shared/labtom)")
    parser.add_argument("--models", default="full,true-belief,non-planning")
    args = parser.parse_args()
    print(f"{'condition':<9} {'model':<13} {'n':>4} {'in':>5} {'out':>5} {'diff ± s.e.':>14} {'acc':>5} "
          f"{'strict':>6} {'ill':>4}   paper: in / out / diff (s.e.) / acc")
    for row in in_vs_out(args.labtom, models=tuple(args.models.split(","))):
        paper = PAPER.get((row.condition, row.model))
        ref = f"{paper[0]:.2f} / {paper[1]:.2f} / {paper[2]:+.2f} ({paper[3]:.2f}) / {paper[4]:.2f}" if paper else ""
        print(f"{row.condition:<9} {row.model:<13} {row.n:>4} {row.in_context:>5.2f} {row.out_of_context:>5.2f} "
              f"{row.diff:>+7.2f} ± {row.se:.2f} {row.accuracy:>5.2f} {row.strict:>6.2f} {row.ill_typed:>4}   {ref}")
    print(f"n: statements with in- and out-of-context rows (maps 1-3; the paper used all 7 maps); "
          f"acc: in > out + {TIE:g}; strict: in > out in floating point; "
          "ill: formulas that failed to parse/typecheck, scored 0.5")


if __name__ == "__main__":
    main()
