"""Benchmark of judging statements against user-supplied hypotheses (elot.embedding).

A user's belief model hands elot N hypotheses as arrays (worlds, each agent's (N, S)
beliefs, posterior weights). This prints, for several statements, the time of one
``judge(statement, hypotheses)`` over N = 10^4 hypotheses (the statement already compiled,
as it is after its first use), beside a baseline run in the same process: the same
compiled program called once per hypothesis (what a loop over the user's hypotheses
would do), and their ratio. It also prints the one-off costs: checking the arrays
(``Hypotheses.from_arrays``), building hypotheses from 10^4 Python triples, and compiling.

    python benchmarks/bench_embedding.py [--n 10000] [--repeat 20] [--baseline-rows 500]

Target: judging 10^4 hypotheses for one statement <= 5 ms.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time

import numpy as np

from elot.embedding import Hypotheses, declare, judge
from elot.lang.semantics import compile_formula
from elot.lang.states import Belief, State
from elot.lang.semantics import _compile, _compile_text  # the compile caches, cleared to time compiling

DOMAIN = declare(
    objects={"agent": ["alice", "bob"], "box": [f"box{i}" for i in range(1, 7)],
             "key": ["key1", "key2"], "color": ["red", "blue"]},
    predicates={"inside": ("key", "box"), "iscolor": ("key", "color")},
)
BOXES = [f"box{i}" for i in range(1, 7)]
PLACEMENTS = [(r, b) for r, b in itertools.product(BOXES, repeat=2) if r != b]   # 30 worlds
WORLDS = [State.parse(f"inside(key1, {r}), inside(key2, {b}), iscolor(key1, red), iscolor(key2, blue)",
                      signature=DOMAIN) for r, b in PLACEMENTS]
RED_IN = "exists(and(key(K), iscolor(K, red)), inside(K, {}))"
STATEMENTS = {
    "believes": f"believes(alice, formula({RED_IN.format('box2')}))",
    "knows_about": "knows_about(bob, box(B), inside(key2, B))",
    "more likely": f"believes(alice, more(likely, {RED_IN.format('box2')}, {RED_IN.format('box3')}))",
    "uncertain_if": f"uncertain_if(bob, formula({RED_IN.format('box1')}), formula({RED_IN.format('box2')}))",
    "most likely box": "believes(alice, most(likely, box2, B, box(B), inside(key1, B)))",
    "two agents": f">(prob_of(alice, {RED_IN.format('box2')}), prob_of(bob, {RED_IN.format('box2')}))",
}


def random_arrays(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    s = len(WORLDS)
    beliefs = {a: rng.dirichlet(np.full(s, 0.3), size=n) for a in ("alice", "bob")}
    weights = rng.dirichlet(np.ones(n))
    true_index = rng.integers(0, s, size=n)
    return beliefs, weights, true_index


def timed(repeat: int, fn) -> float:
    """Median seconds of ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="number of hypotheses (default 10^4)")
    parser.add_argument("--repeat", type=int, default=20, help="repetitions per timing (median)")
    parser.add_argument("--baseline-rows", type=int, default=500,
                        help="rows the per-hypothesis baseline runs (its time is scaled to N)")
    args = parser.parse_args()

    beliefs, weights, true_index = random_arrays(args.n)
    check_s = timed(3, lambda: Hypotheses.from_arrays(DOMAIN, WORLDS, beliefs, weights, true_index))
    rows = Hypotheses.from_arrays(DOMAIN, WORLDS, beliefs, weights, true_index)
    m = min(args.n, 2000)
    triples = [(WORLDS[true_index[i]],
                {a: Belief.of(zip(WORLDS, beliefs[a][i])) for a in beliefs}, weights[i] / weights[:m].sum())
               for i in range(m)]
    triples_s = timed(1, lambda: Hypotheses.of(triples, DOMAIN)) * args.n / m

    print(f"{args.n} hypotheses over {len(WORLDS)} worlds, beliefs of 2 agents "
          f"(median of {args.repeat} runs; baseline on {args.baseline_rows} rows, scaled to N)")
    print(f"one-off: checking the arrays {check_s * 1e3:.2f} ms; building from Python triples "
          f"{triples_s * 1e3:.0f} ms (measured on {m}, scaled)")
    print(f"{'statement':<17} {'compile ms':>10} {'judge ms':>9} {'baseline ms':>12} {'ratio':>7}   P      L")
    worst = 0.0
    for label, text in STATEMENTS.items():
        _compile.cache_clear()
        _compile_text.cache_clear()
        compile_s = timed(1, lambda: compile_formula(text, DOMAIN))
        judge(text, rows)  # warm: the compiled program and its per-world truth tables
        judge_s = timed(args.repeat, lambda: judge(text, rows))
        worst = max(worst, judge_s)
        program = compile_formula(text, DOMAIN)
        k = min(args.baseline_rows, args.n)

        def one_by_one():
            out = np.empty(k, dtype=bool)
            for i in range(k):
                out[i] = program.truth(WORLDS, {a: beliefs[a][i:i + 1] for a in beliefs}, true_index[i:i + 1])[0]
            return out

        baseline_s = timed(max(1, args.repeat // 10), one_by_one) * args.n / k
        vectorized = program.truth(WORLDS, beliefs, true_index)[:k]
        assert (one_by_one() == vectorized).all(), "the vectorized and per-row truth values differ"
        result = judge(text, rows)
        print(f"{label:<17} {compile_s * 1e3:>10.2f} {judge_s * 1e3:>9.2f} {baseline_s * 1e3:>12.0f} "
              f"{baseline_s / judge_s:>6.0f}x   {result.P:.3f}  {result.L:.3f}")
    print(f"slowest judge: {worst * 1e3:.2f} ms for {args.n} hypotheses (target <= 5 ms): "
          + ("met" if worst <= 5e-3 else "NOT met"))


if __name__ == "__main__":
    main()
