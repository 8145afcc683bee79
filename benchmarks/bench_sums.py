"""The cost of machine-independent sums (elot.numeric) where scoring adds numbers up.

Prints, for N judged rows (5 940, 46 332 and 231 660: LaBToM plan 2_1's hypotheses at
k = 3, 5, 7): one statement's ``scores_of`` (P, π and the total behind π); the BLAS dot
product it replaced (``weights @ truth``) beside ``elot.numeric.dot``; and ``prob_of`` over
N rows × S worlds (``compile_formula(...).truth``), with NumPy's row sums of the masked
beliefs beside ``sum_columns_in_order``. Needs no dataset.

    python benchmarks/bench_sums.py [--repeat R]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from elot.judging import scores_of
from elot.lang.semantics import compile_formula
from elot.lang.states import State
from elot.lang.signature import Signature


def best_of(repeat: int, fn, number: int = 5) -> float:
    """The best of ``repeat`` timings of ``number`` calls, in ms per call."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return 1000 * min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    try:
        from elot.numeric import dot, sum_columns_in_order
    except ImportError:   # an elot from before elot.numeric: time what it has
        dot = sum_columns_in_order = None
    rng = np.random.default_rng(0)
    signature = Signature.default()
    print(f"{'N':>7} {'scores_of':>10} {'w @ truth':>10} {'dot':>8}   {'S':>3} {'prob_of truth':>14} "
          f"{'(b*m).sum(1)':>13} {'in order':>9}   (ms)")
    for n in (5_940, 46_332, 231_660):
        weights = rng.random(n)
        weights /= weights.sum()
        truth = rng.random(n) < 0.4
        prior = np.full(n, 3.0)
        score = best_of(args.repeat, lambda: scores_of(truth, weights, "paper", prior=prior))
        blas = best_of(args.repeat, lambda: weights @ truth)
        ours = best_of(args.repeat, lambda: dot(weights, truth)) if dot else float("nan")
        s = 16
        worlds = [State.of([("inside", "key1", f"box{1 + i % 4}"), ("iscolor", "key1", f"c{i}")]) for i in range(s)]
        beliefs = np.asfortranarray(rng.dirichlet(np.full(s, 0.3), size=n))
        true_index = rng.integers(0, s, size=n)
        formula = compile_formula("believes(player, formula(inside(key1, box1)))", signature)
        formula.truth(worlds, beliefs, true_index)   # fill the per-world cache, as scoring does
        prob = best_of(args.repeat, lambda: formula.truth(worlds, beliefs, true_index))
        mask = np.arange(s) % 4 == 0
        columns = np.ascontiguousarray(beliefs.T)
        numpy_rows = best_of(args.repeat, lambda: (beliefs * mask).sum(axis=1))
        ordered = best_of(args.repeat, lambda: sum_columns_in_order(columns, mask)) if sum_columns_in_order \
            else float("nan")
        print(f"{n:>7} {score:>10.3f} {blas:>10.3f} {ours:>8.3f}   {s:>3} {prob:>14.3f} {numpy_rows:>13.3f} "
              f"{ordered:>9.3f}")


if __name__ == "__main__":
    main()
