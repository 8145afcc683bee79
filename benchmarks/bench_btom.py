"""Benchmark of the BToM engine on the LaBToM dataset (exp2_current plans).

Prints, per plan: hypotheses, actions, ms/action for the compiled core and for the plain
reference (same process, same machine) and their ratio; then the time to score one
statement at one time point over the largest hypothesis space, the time for the whole
dataset (20 plans, inference plus current and initial statements at every judgment point),
and the memory the hypothesis tables take with k = 3, 5 and 7 particles.

    python benchmarks/bench_btom.py [--labtom DIR] [--reference-steps N] [--repeat R]

Targets: <= 5 ms/action for 5940 hypotheses, scoring <= 1 ms, whole dataset <= 10 s,
core >= 50x faster than the reference.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import os
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

import elot.btom.model
from btom_ext import backend as load_backend
from elot.btom.hypotheses import build
from elot.btom.inference import infer
from elot.btom.dataset import dataset_root, load_dataset_plan
from elot.btom.scoring import compile_statement, score
from elot.cli import run_command

PLANS = ["1_1", "1_2", "1_3", "2_1", "2_2", "2_3", "3_1", "3_2", "3_3", "4_1", "4_2", "4_3",
         "5_1", "5_2", "6_1", "6_2", "6_3", "7_1", "7_2", "7_3"]


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


class TimedBackend:
    """A backend whose functions (and its planner's and rules' methods) add their run time to ``seconds``.

    Wrapping both backends the same way separates the numeric core from the Python work
    that inference shares between them (stepping worlds, views, bookkeeping).
    """

    def __init__(self, name: str) -> None:
        self._inner = load_backend(name)
        self.seconds = 0.0

    def _timed(self, fn):
        def call(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
        return call

    def __getattr__(self, name: str):
        attr = getattr(self._inner, name)
        if isinstance(attr, type):   # Planner, Rules: their methods are timed too
            def make(*args, **kwargs):
                made = self._timed(attr)(*args, **kwargs)
                return _Timed(made, self._timed)
            return make
        return self._timed(attr) if callable(attr) else attr


class _Timed:
    """An object of a backend (a planner, the rules) whose method calls are timed."""

    def __init__(self, inner, timed) -> None:
        self._inner, self._timed_call = inner, timed

    def __getattr__(self, name: str):
        attr = getattr(self._inner, name)
        return self._timed_call(attr) if callable(attr) else attr

    def __setattr__(self, name: str, value) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:
            setattr(self._inner, name, value)


def kernel_seconds(scenario, name: str) -> float:
    """Seconds spent inside backend ``name``'s functions during one inference run."""
    timed = TimedBackend(name)
    original = elot.btom.model.load_backend
    elot.btom.model.load_backend = lambda _name: timed
    try:
        infer(scenario, backend=name)
    finally:
        elot.btom.model.load_backend = original
    return timed.seconds


def gold_formulas(root: Path) -> dict[str, list[str]]:
    """Gold ELoT formulas of the exp2 current statements, per plan (read from the dataset)."""
    out: dict[str, list[str]] = {}
    with (root / "statements" / "exp2_current_translations.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            out.setdefault(row["plan_id"], []).append(row["gold_elot"].strip())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labtom", default=os.environ.get("ELOT_LABTOM_DATA"),
                        help="the dataset directory (default: $ELOT_LABTOM_DATA, else a shared/labtom folder in or above the working directory)")
    parser.add_argument("--reference-steps", type=int, default=8,
                        help="actions per plan to run the slow reference on (default: %(default)s; 0 = all)")
    parser.add_argument("--repeat", type=int, default=3, help="repeats of each core timing (best is kept)")
    args = parser.parse_args()
    root = dataset_root(args.labtom)
    scenarios = {p: load_dataset_plan(root, p) for p in PLANS}

    print(f"{'plan':>5} {'|H|':>6} {'acts':>5} {'core ms/act':>12} {'ref ms/act':>11} {'ratio':>7}"
          f" {'kernel core':>12} {'kernel ref':>11} {'ratio':>7}")
    ratios, kernel_ratios = [], []
    big = []
    for plan, scenario in scenarios.items():
        core_s = best_of(args.repeat, lambda: infer(scenario))
        n = len(scenario.actions) if args.reference_steps <= 0 else min(args.reference_steps, len(scenario.actions))
        short = dataclasses.replace(scenario, actions=scenario.actions[:n], judgments=())
        core_short = best_of(args.repeat, lambda: infer(short))
        ref_s = best_of(1, lambda: infer(short, backend="reference"))
        size = len(build(scenario.initial))  # the hypotheses do not depend on the actions
        ratio = ref_s / core_short
        ratios.append(ratio)
        kernel_core = min(kernel_seconds(short, "core") for _ in range(args.repeat))
        kernel_ref = kernel_seconds(short, "reference")
        kernel_ratios.append(kernel_ref / kernel_core)
        per_action = core_s * 1e3 / len(scenario.actions)
        if size == 5940:
            big.append(per_action)
        print(f"{plan:>5} {size:>6} {len(scenario.actions):>5} {per_action:>12.2f} "
              f"{ref_s * 1e3 / n:>11.1f} {ratio:>6.0f}x {kernel_core * 1e3 / n:>12.3f} "
              f"{kernel_ref * 1e3 / n:>11.1f} {kernel_ratios[-1]:>6.0f}x")
    print(f"core ms/action on 5940-hypothesis plans: max {max(big):.2f}, mean {np.mean(big):.2f} (target <= 5)")
    print(f"core vs reference (first {args.reference_steps or 'all'} actions, setup included): "
          f"min {min(ratios):.0f}x, median {np.median(ratios):.0f}x")
    print(f"numeric core alone (time inside the backend's functions, same inputs): "
          f"min {min(kernel_ratios):.0f}x, median {np.median(kernel_ratios):.0f}x (target >= 50x)")

    # Scoring: one statement at one time point over 5940 hypotheses (compiled once).
    formulas = gold_formulas(root)
    scenario = scenarios["2_1"]
    inference = infer(scenario)
    t = scenario.judgments[-1]
    per_statement = []
    for formula in formulas["2_1"]:
        compiled = compile_statement(inference, formula, bind_free=True)
        score(inference, compiled, t)
        per_statement.append(best_of(20, lambda: score(inference, compiled, t)) * 1e3)
    print(f"scoring one statement at one time over {len(inference)} hypotheses: "
          f"mean {np.mean(per_statement):.3f} ms, max {max(per_statement):.3f} ms (target <= 1)")

    # Whole dataset: inference + current and initial statements at every judgment point. The
    # initial statements have no gold formulas in the dataset, so the current ones are
    # scored in initial mode as well (the cost is the same).
    def whole():
        for plan, scenario in scenarios.items():
            inference = infer(scenario)
            for formula in formulas[plan]:
                for t in scenario.judgments:
                    for mode in ("current", "initial"):
                        score(inference, formula, t, mode, bind_free=True)

    total = best_of(1, whole)
    print(f"whole dataset (20 plans, 5 current + 5 initial statements per judgment point): "
          f"{total:.2f} s (target <= 10)")

    # Memory against the number of hypotheses: k = 3, 5, 7 particles on the largest map.
    for k in (3, 5, 7):
        tracemalloc.start()
        inference = infer(scenarios["2_1"], k=k)
        inference.beliefs(inference.steps)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        initial = inference.space.initial_beliefs   # one table broadcast over true states
        kept = (inference.log_weights.nbytes + inference.alive.nbytes
                + (initial[0].nbytes if initial.strides[0] == 0 else initial.nbytes))
        print(f"k={k} on plan 2_1: {len(inference):>7} hypotheses; weights/tables kept {kept / 2**20:5.1f} MiB "
              f"({kept / len(inference):.0f} B each), peak traced {peak / 2**20:5.1f} MiB "
              f"({peak / len(inference):.0f} B each)")

if __name__ == "__main__":
    sys.exit(run_command(main))   # no dataset, a bad option: the message and exit 2, not a traceback
