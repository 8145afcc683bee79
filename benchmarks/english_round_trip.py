"""ELoT → English → ELoT: does the English elot shows for a formula say what the formula says?

For each gold formula (our corpus ``tests/fixtures/translation_corpus.csv``, and the
dataset's ``exp2_current_gold_unique.csv`` and exp1 in-vs-out formulas when
``../shared/labtom`` is there), say it with :func:`elot.lang.english.english` (in the
row's mode), translate the sentence back with the offline translator, and count:

* back exactly: the translation's canonical text is the formula's;
* back equivalent: :func:`elot.lang.equivalence.equivalent` (free variables bound);
* refused: the offline parser has no translation for the sentence;
* with formula text: the sentence shows a part as formula text (no words for it);

and the time to say one formula (µs), against the time to parse it in the same run.

    python benchmarks/english_round_trip.py [--quick] [--show-misses]

The offline translator's rules were written from the dataset's sentences, not from these,
so a refusal says as much about the translator as about the English.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import time
from pathlib import Path

from elot.errors import ElotError
from elot.lang.english import english
from elot.lang.equivalence import equivalent
from elot.lang.parser import parse
from elot.lang.printer import pretty
from elot.translate import translate

REPO = Path(__file__).resolve().parent.parent


def gold_sets() -> dict[str, list[tuple[str, str]]]:
    """(formula, mode) pairs by set name, repeated pairs once."""
    sets: dict[str, list[tuple[str, str]]] = {}
    corpus = REPO / "tests" / "fixtures" / "translation_corpus.csv"
    sets["corpus"] = [(r["gold_elot"].strip(), r.get("mode") or "current") for r in csv.DictReader(corpus.open())]
    root = Path(os.environ.get("ELOT_LABTOM_DATA", REPO.parent / "shared" / "labtom")) / "statements"
    gold = root / "exp2_current_gold_unique.csv"
    if gold.is_file():
        sets["exp2 gold"] = [(r["gold_elot"].strip(), "current") for r in csv.DictReader(gold.open())]
    for mode in ("current", "initial"):
        path = root / "exp1" / f"exp1_{mode}_in_vs_out.csv"
        if path.is_file():
            sets[f"exp1 {mode}"] = [(r["formula"].strip(), mode) for r in csv.DictReader(path.open())]
    return {name: list(dict.fromkeys(pairs)) for name, pairs in sets.items()}


def score(pairs: list[tuple[str, str]], show: bool) -> dict[str, float]:
    counts = {"formulas": 0, "exact": 0, "equivalent": 0, "refused": 0, "formula_text": 0, "unparsed": 0}
    for formula, mode in pairs:
        try:
            tree = parse(formula)
        except ElotError:
            counts["unparsed"] += 1   # the dataset's few ill-formed formulas
            continue
        counts["formulas"] += 1
        sentence = english(tree, mode)
        if re.search(r"[a-z_]+\(", sentence):
            counts["formula_text"] += 1
        try:
            back = translate(sentence, translator="offline").formula
        except ElotError:
            counts["refused"] += 1
            if show:
                print(f"  refused  {sentence}\n           {formula}")
            continue
        if pretty(parse(back)) == pretty(tree):
            counts["exact"] += 1
            counts["equivalent"] += 1
            continue
        try:
            same = equivalent(back, formula, bind_free=True)[0]
        except ElotError:
            same = False
        counts["equivalent"] += bool(same)
        if show and not same:
            print(f"  differs  {sentence}\n           {formula}\n        -> {back}")
    return counts


def timing(pairs: list[tuple[str, str]], repeats: int) -> tuple[float, float]:
    """µs to say one formula (tree parsed beforehand), and µs to parse one, same run."""
    trees = []
    for formula, mode in pairs:
        try:
            trees.append((parse(formula), mode, formula))
        except ElotError:
            pass
    start = time.perf_counter()
    for _ in range(repeats):
        for tree, mode, _ in trees:
            english(tree, mode)
    say = (time.perf_counter() - start) / (repeats * len(trees)) * 1e6
    start = time.perf_counter()
    for _ in range(repeats):
        for _, _, text in trees:
            parse(text)
    read = (time.perf_counter() - start) / (repeats * len(trees)) * 1e6
    return say, read


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the first 20 formulas of each set, one timing pass")
    parser.add_argument("--show-misses", action="store_true", help="print each sentence that does not come back")
    args = parser.parse_args(argv)
    print(f"{'set':<14} {'formulas':>8} {'exact':>7} {'equiv.':>7} {'refused':>8} {'fml text':>9} {'unparsed':>9}")
    every = []
    for name, pairs in gold_sets().items():
        pairs = pairs[:20] if args.quick else pairs
        every += pairs
        c = score(pairs, args.show_misses)
        n = max(c["formulas"], 1)
        print(f"{name:<14} {c['formulas']:>8} {c['exact'] / n:>7.0%} {c['equivalent'] / n:>7.0%} "
              f"{c['refused'] / n:>8.0%} {c['formula_text']:>9} {c['unparsed']:>9}")
    say, read = timing(every, 1 if args.quick else 20)
    print(f"saying one formula: {say:.0f} µs; parsing it: {read:.0f} µs (ratio {say / read:.2f})")


if __name__ == "__main__":
    main()
