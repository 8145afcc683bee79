"""Translation accuracy on the LaBToM gold statements (issue #5).

For each row of a gold CSV (``statement`` and ``gold_elot``, or ``formula``; ``plan_id``
names the problem whose objects form the signature), translate the statement and score:

* exact: canonical text equality after parse + pretty;
* equivalent: :func:`elot.equivalence.equivalent` on the plan's problem signature
  (free variables bound, as the reference does);

and report the seconds per sentence. The paper's LLM parser reached 0.81 exact and 0.91
equivalent on the same set; those are the bar.

    python benchmarks/translation_accuracy.py [--gold CSV] [--backend offline|llm]
        [--model PATH] [-n N] [--limit K] [--show-misses]

Default gold: ``$ELOT_LABTOM_DATA/statements/exp2_current_translations.csv`` or
``../shared/labtom/...`` beside the repository.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from functools import lru_cache
from pathlib import Path

from elot.equivalence import equivalent
from elot.errors import ElotError
from elot.parser import parse
from elot.printer import pretty
from elot.signature import Signature
from elot.translate import translate

REPO = Path(__file__).resolve().parent.parent
PAPER = {"exact": 0.81, "equivalent": 0.91}


def labtom_root() -> Path:
    env = os.environ.get("ELOT_LABTOM_DATA")
    return Path(env) if env else REPO.parent / "shared" / "labtom"


@lru_cache(maxsize=None)
def plan_signature(root: str, plan_id: str) -> Signature:
    problem = Path(root) / "problems" / f"{plan_id}.pddl"
    if not plan_id or not problem.is_file():
        return Signature.default()
    return Signature.from_pddl(Path(root) / "domain.pddl", problem)


def read_gold(path: Path) -> list[dict]:
    """Rows with ``statement``, ``gold`` and ``plan_id``; duplicates (same statement,
    formula and plan) are kept once."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            rows, header = list(reader), reader.fieldnames or []
    except OSError as error:
        raise SystemExit(f"error: cannot read {path}: {error.strerror or error}")
    column = "gold_elot" if "gold_elot" in header else "formula"
    if "statement" not in header or column not in header:
        raise SystemExit(f"error: {path} needs a 'statement' column and a 'gold_elot' (or 'formula') one; "
                         "use exp2_current_translations.csv or an exp1 *_in_vs_out.csv file")
    out, seen = [], set()
    for row in rows:
        key = (row["statement"], row[column].strip(), row.get("plan_id", ""))
        if column == "formula" and key in seen:  # the in-vs-out files repeat each pair
            continue
        seen.add(key)
        out.append({"statement": row["statement"].strip(), "gold": row[column].strip(),
                    "plan_id": row.get("plan_id", "")})
    return out


def score(row: dict, root: Path, backend: str, model: str | None, n: int) -> dict:
    signature = plan_signature(str(root), row["plan_id"])
    start = time.perf_counter()
    try:
        result = translate(row["statement"], signature=signature, backend=backend, model=model, n=n)
        got, error, used = result.formula, None, result.backend
    except ElotError as exc:
        got, error, used = None, exc.message, backend
    seconds = time.perf_counter() - start
    try:
        gold = pretty(parse(row["gold"]))
    except ElotError:
        gold = row["gold"]
    exact = got is not None and got == gold
    equiv = exact
    if got is not None and not exact:
        try:
            equiv, _ = equivalent(got, gold, signature, bind_free=True)
        except ElotError:
            equiv = False  # an ill-formed gold formula has no meaning to compare with
    return {**row, "got": got, "error": error, "exact": exact, "equivalent": bool(equiv),
            "seconds": seconds, "backend": used}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gold", type=Path,
                        default=labtom_root() / "statements" / "exp2_current_translations.csv")
    parser.add_argument("--backend", choices=("offline", "llm"), default="offline")
    parser.add_argument("--model", help="local GGUF file or transformers directory (llm backend)")
    parser.add_argument("-n", "--samples", type=int, default=5, help="LLM samples per sentence")
    parser.add_argument("--limit", type=int, help="only the first K rows")
    parser.add_argument("--show-misses", action="store_true", help="list the sentences not matched exactly")
    args = parser.parse_args(argv)
    if not args.gold.is_file():
        print(f"gold file not found: {args.gold} (set ELOT_LABTOM_DATA)", file=sys.stderr)
        return 2
    root = args.gold.resolve().parents[1] if args.gold.parent.name == "statements" else args.gold.resolve().parents[2]
    rows = read_gold(args.gold)[: args.limit]
    results = [score(row, root, args.backend, args.model, args.samples) for row in rows]
    total = len(results)
    exact = sum(r["exact"] for r in results) / total
    equiv = sum(r["equivalent"] for r in results) / total
    failed = sum(r["got"] is None for r in results)
    seconds = sum(r["seconds"] for r in results) / total
    label = args.backend + (f" ({Path(args.model).name}, n={args.samples})" if args.backend == "llm" and args.model else "")
    print(f"gold: {args.gold.name}  rows: {total}  backend: {label}")
    print(f"  exact match : {exact:.3f}   (paper: {PAPER['exact']:.2f})")
    print(f"  equivalent  : {equiv:.3f}   (paper: {PAPER['equivalent']:.2f})")
    print(f"  no answer   : {failed}")
    print(f"  s/sentence  : {seconds:.4f}")
    if args.show_misses:
        for r in results:
            if not r["exact"]:
                tag = "equiv" if r["equivalent"] else "MISS"
                print(f"[{tag}] {r['statement']}\n    gold: {r['gold']}\n    got : {r['got'] or 'error: ' + str(r['error'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
