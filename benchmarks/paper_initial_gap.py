"""Where the paper conventions' initial-belief levels could differ from the paper's (SPEC §7.1).

Prints, on the exp1 in-vs-out statements (maps 1-3), under the ``paper`` conventions:
the rows per map (how far a subset of maps moves a row), then the initial-belief row of the
full model under each candidate reading of the reference's evaluation (in / out / diff,
strict accuracy). docs/btom.md quotes these figures.

    python benchmarks/paper_initial_gap.py [--labtom DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Callable

import numpy as np

from elot.domains.doors_keys_gems.experiments import in_vs_out
from elot.domains.doors_keys_gems.inference import infer
from elot.domains.doors_keys_gems.dataset import dataset_root, load_dataset_plan
from elot.domains.doors_keys_gems.scoring import compile_statement
from elot.judging import normalized_likelihood
from elot.numeric import dot
from elot.cli import run_command

#: (inference, compiled formula, judgment point t) -> normalized likelihood
Reading = Callable[[object, object, int], float]


def judged(inference, compiled, t: int, *, world: int, belief: int, live: int, over: int | None = None,
           epsilon: bool = True) -> float:
    """L with the true world at time ``world``, the belief's weights at ``belief`` over the
    worlds at ``over`` (default: at ``belief``), the posterior at t and π over the
    hypotheses live at ``live``; without ``epsilon``, states with no particle weigh 0."""
    n = inference.space.n_states
    weights = inference.beliefs(belief).reshape(-1, n)
    if not epsilon:
        weights = np.where(weights < np.finfo(float).tiny, 0.0, weights)
    over = belief if over is None else over
    if over == world:
        truth = compiled.truth(inference.states(world), weights, inference._pair_states)
    else:  # two lists of worlds side by side: beliefs over the first, true worlds in the second
        worlds = tuple(inference.states(over)) + tuple(inference.states(world))
        padded = np.concatenate([weights, np.zeros_like(weights)], axis=1)
        truth = compiled.truth(worlds, padded, inference._pair_states + n)
    posterior = min(1.0, max(0.0, dot(inference.pair_posterior(t).ravel(), truth)))
    return normalized_likelihood(posterior, dot(inference.live_pairs(live), truth) / len(inference))


def initial_readings() -> dict[str, tuple[Reading, str]]:
    """Candidate readings of how the reference judged initial-belief statements; the second
    item is the conventions the inference is built with."""
    return {
        "as implemented: (s0, b0), pi over hypotheses live at t":
            (lambda i, c, t: judged(i, c, t, world=0, belief=0, live=t), "paper"),
        "elot's key names instead of the reference's":
            (lambda i, c, t: judged(i, c, t, world=0, belief=0, live=t), "elot"),
        "b paired with the previous state: (s0, b1)":
            (lambda i, c, t: judged(i, c, t, world=0, belief=min(1, i.steps), live=t), "paper"),
        "the world at t: (st, b0)":
            (lambda i, c, t: judged(i, c, t, world=t, belief=0, live=t), "paper"),
        "b0's weights over the states' histories at t":
            (lambda i, c, t: judged(i, c, t, world=0, belief=0, live=t, over=t), "paper"),
        "no epsilon: states with no particle weigh 0":
            (lambda i, c, t: judged(i, c, t, world=0, belief=0, live=t, epsilon=False), "paper"),
        "pi over hypotheses live at 0":
            (lambda i, c, t: judged(i, c, t, world=0, belief=0, live=0), "paper"),
        "judged one action later":
            (lambda i, c, t: judged(i, c, min(t + 1, i.steps), world=0, belief=0, live=min(t + 1, i.steps)), "paper"),
    }


def compare(root, condition: str, model: str, reading: Reading, conventions: str, maps=None):
    """(n, in, out, diff, strict) over the statements of ``maps`` (default: all)."""
    def judge(inference, formula, t, _condition):
        return reading(inference, compile_statement(inference, formula, bind_free=True), t)

    (row,) = in_vs_out(root, (condition,), (model,), conventions, maps=maps, judge=judge)
    return row.n, row.in_context, row.out_of_context, row.diff, row.strict


def fmt(row) -> str:
    n, a, b, d, acc = row
    return f"n={n:>2} {a:.2f} / {b:.2f} / {d:+.2f}, strict {acc:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labtom", default=os.environ.get("ELOT_LABTOM_DATA"),
                        help="the dataset directory (default: $ELOT_LABTOM_DATA, else a shared/labtom folder in or above the working directory)")
    root = dataset_root(parser.parse_args().labtom)
    current = initial_readings()["as implemented: (s0, b0), pi over hypotheses live at t"][0]
    as_is = {"current": lambda i, c, t: judged(i, c, t, world=t, belief=t, live=t), "initial": current}
    print("per map, paper conventions: in / out / diff, strict")
    for condition in ("current", "initial"):
        for model in ("full", "non-planning", "true-belief-paper"):
            cells = [fmt(compare(root, condition, model, as_is[condition], "paper", maps={m})) for m in "123"]
            print(f"  {condition:<8} {model:<18} " + " | ".join(f"map {m}: {c}" for m, c in zip("123", cells)))
    print("initial-belief statements under candidate readings, paper conventions")
    for model in ("full", "non-planning"):
        for name, (reading, conventions) in initial_readings().items():
            print(f"  {model:<13} {name:<58} {fmt(compare(root, 'initial', model, reading, conventions))}")
    lowest = min(float(np.min(lw[np.isfinite(lw)]))
                 for plan in (f"{m}_{p}" for m in "123" for p in "123")
                 for s in [load_dataset_plan(root, plan, exp="exp1")]
                 for lw in [infer(s, conventions="paper").log_weights[s.judgments[0]]])
    print(f"lowest finite log weight at a judgment point (full model): {lowest:.1f} "
          "(the reference's cutoff for 'ruled out' is -1000)")


if __name__ == "__main__":
    sys.exit(run_command(main))   # no dataset, a bad option: the message and exit 2, not a traceback
