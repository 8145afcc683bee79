"""Reproduce the paper's in-context vs out-of-context comparison (its Table: maps 1-3 here).

The computation is :func:`elot.domains.doors_keys_gems.experiments.in_vs_out` (see its docstring for the rules);
this script prints each condition and model beside the paper's numbers, once per set of
conventions: ``elot`` (SPEC §4-5) and ``paper`` (the reference pipeline, SPEC §7). The
paper's True Belief row is printed beside both ``true-belief`` (SPEC §5's ablation) and
``true-belief-paper`` (the reference's evaluation artifact, SPEC §7.4).

    python benchmarks/reproduce_in_vs_out.py [--labtom DIR] [--conventions elot|paper|both]
        [--models full,non-planning,true-belief,true-belief-paper] [--llm TABLE [--llm-maps 1,2]]

``--llm TABLE`` (repeatable) adds a row per language model and condition from the table of
``elot baseline --in-vs-out`` (:func:`elot.domains.doors_keys_gems.experiments.in_vs_out_of_table`), beside
the paper's GPT-4o row (image + narrative); ``--llm-only`` prints those rows alone.
"""

from __future__ import annotations

import argparse
import os
import sys

from elot.settings import CONVENTIONS
from elot.errors import ElotError
from elot.domains.doors_keys_gems.experiments import PAPER, PAPER_LLM, TIE, in_vs_out, in_vs_out_of_table

MODELS = "full,non-planning,true-belief,true-belief-paper"
HEADER = (f"{'condition':<9} {'model':<17} {'n':>4} {'in':>5} {'out':>5} {'diff ± s.e.':>14} {'acc':>5} "
          f"{'strict':>6} {'ill':>4}   paper: in / out / diff (s.e.) / acc")
NOTES = {
    "elot": "SPEC §4-5: π over all hypotheses; elot's state order and key names",
    "paper": "SPEC §7: π with ruled-out hypotheses false, the reference's state order and key "
             "names; compare the paper's accuracy with 'strict'",
}


def table(labtom, conventions: str, models: tuple[str, ...]) -> list[str]:
    """The lines printed for one set of conventions: a header line naming them, then one
    row per condition and model."""
    lines = [f"conventions: {conventions} ({NOTES[conventions]})", HEADER]
    for row in in_vs_out(labtom, models=models, conventions=conventions):
        paper = PAPER.get((row.condition, row.model))
        ref = f"{paper[0]:.2f} / {paper[1]:.2f} / {paper[2]:+.2f} ({paper[3]:.2f}) / {paper[4]:.2f}" if paper else ""
        lines.append(f"{row.condition:<9} {row.model:<17} {row.n:>4} {row.in_context:>5.2f} {row.out_of_context:>5.2f} "
                     f"{row.diff:>+7.2f} ± {row.se:.2f} {row.accuracy:>5.2f} {row.strict:>6.2f} {row.ill_typed:>4}   {ref}")
    return lines


def llm_table(labtom, tables: list[str], maps: str | None = None) -> list[str]:
    """The lines of the language-model rows: one per table, model and condition, beside
    the paper's GPT-4o row and the full model's."""
    from elot.study.tables import read_table

    chosen = set(maps.split(",")) if maps else None
    width = max([17] + [len(m) for path in tables for m in {r["model"] for r in read_table(path)}])
    lines = ["language models (elot baseline --in-vs-out; the value is (rating - 1) / 6"
             + (f"; maps {maps} only" if chosen else "") + ")",
             f"{'condition':<9} {'model':<{width}} {'n':>4} {'in':>5} {'out':>5} {'diff ± s.e.':>16} {'acc':>5} "
             f"{'strict':>6} {'ill':>4}   paper GPT-4o: in / out / diff / acc"]
    for path in tables:
        for row in in_vs_out_of_table(read_table(path), labtom, maps=chosen):
            gpt = PAPER_LLM[row.condition]
            full = PAPER[(row.condition, "full")]
            lines.append(f"{row.condition:<9} {row.model:<{width}} {row.n:>4} {row.in_context:>5.2f} "
                         f"{row.out_of_context:>5.2f} {row.diff:>+7.3f} ± {row.se:.3f} {row.accuracy:>5.2f} "
                         f"{row.strict:>6.2f} {row.ill_typed:>4}   {gpt[0]:.2f} / {gpt[1]:.2f} / {gpt[2]:+.2f} / "
                         f"{gpt[3]:.2f} (LaBToM: acc {full[4]:.2f})")
    lines.append("ill: prompts no answer rated, left out (never scored 0.5)")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labtom", default=os.environ.get("ELOT_LABTOM_DATA"),
                        help="the dataset directory (default: $ELOT_LABTOM_DATA, else a shared/labtom folder in or above the working directory)")
    parser.add_argument("--models", default=MODELS)
    parser.add_argument("--conventions", default="both", choices=(*CONVENTIONS, "both"),
                        help="elot, paper or both (default: %(default)s)")
    parser.add_argument("--llm", action="append", default=[], metavar="TABLE",
                        help="a table of elot baseline --in-vs-out: add its language-model rows")
    parser.add_argument("--llm-maps", metavar="M,...", help="the maps the --llm tables rated (default: all)")
    parser.add_argument("--llm-only", action="store_true", help="print only the --llm rows")
    args = parser.parse_args()
    chosen = CONVENTIONS if args.conventions == "both" else (args.conventions,)
    try:
        if args.llm:
            print("\n".join(llm_table(args.labtom, args.llm, args.llm_maps)))
            if args.llm_only:
                return 0
            print()
        for n, conventions in enumerate(chosen):
            if n:
                print()
            print("\n".join(table(args.labtom, conventions, tuple(args.models.split(",")))))
    except ElotError as error:
        print(error.render(), file=sys.stderr)
        return 2
    print(f"\nn: statements with in- and out-of-context rows (maps 1-3; the paper used all 7 maps); "
          f"acc: in > out + {TIE:g}; strict: in > out in floating point; "
          "ill: formulas that failed to parse/typecheck, scored 0.5")
    return 0


if __name__ == "__main__":
    sys.exit(main())
