"""The shared driver of benchmarks/alanqary2021.py and alanqary2021_blockwords.py: fit every
model family on the dev split, print the dev r beside the authors' stored models, write the
chosen model's predictions for all stimuli."""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from elot.domains.pddl.dataset import load_study  # noqa: E402
from elot.domains.pddl.fitting import BOLTZMANN, choose, families, fit, predictions, prepare, stored_dev  # noqa: E402


def main(title: str, default_data: str, confusions: bool, targets: dict, argv=None) -> int:
    parser = argparse.ArgumentParser(description=title)
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "alanqary2021" / default_data))
    parser.add_argument("-o", "--output", default="predictions.csv")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    study = load_study(args.data)
    human = study.human()
    items = prepare(study, confusions=confusions)
    prepared = time.perf_counter() - start
    fits = fit(items, human, families(confusions))
    fitted = time.perf_counter() - start
    print(f"{title}: {len(study.stimuli)} stimuli, dev {sum(s.dev for s in study.stimuli)} "
          f"({len(human)} values); grounded and tabulated in {prepared:.1f} s, grid search done at {fitted:.1f} s")
    print(f"\n{'model':18} {'dev r':>6} {'LOSO r':>7}  per category (dev)            parameters")
    for f in fits:
        cats = " ".join(f"{c}:{r:.2f}" for c, r in f.per_category.items())
        params = ", ".join(f"{k}={v:g}" for k, v in f.params.items())
        print(f"elot {f.family.name:13} {f.r:6.3f} {f.loso:7.3f}  {cats:30} {params}  ({len(f.table)} grid points)")
    for model, (r, n, cats) in stored_dev(study, human).items():
        shown = " ".join(f"{c}:{v:.2f}" for c, v in cats.items())
        print(f"authors {model:10} {r:6.3f} {'':>7}  {shown:30} (stored predictions, {n} values)")
    best = choose(fits)
    boltz = choose(fits, BOLTZMANN)
    print(f"\nchosen on dev among every family: {best.fit.family.name} ({best.fit.family.what}), "
          f"r = {best.r:.3f}, LOSO of the whole choice {best.loso:.3f}")
    print(f"elot's Boltzmann agent (the better of {', '.join(BOLTZMANN)} on dev): {boltz.fit.family.name}, "
          f"r = {boltz.r:.3f}, LOSO {boltz.loso:.3f}")
    for name, (mine, theirs) in targets.items():
        chosen = boltz if mine == "boltzmann" else best
        verdict = "REACHED" if chosen.r >= theirs else "NOT reached"
        print(f"target {name}: elot {chosen.fit.family.name} {chosen.r:.3f} vs authors {theirs:.3f}: {verdict}")
    rows = predictions(items, best.fit.family.name, best.fit.params)
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["scenario", "t", "goal", "value"])
        writer.writerows(rows)
    print(f"wrote {len(rows)} predictions ({len(study.stimuli)} stimuli) to {out}; "
          f"total {time.perf_counter() - start:.1f} s")
    return 0
