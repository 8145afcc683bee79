"""Do the particle filter's standard errors cover its error? Many seeds against exact inference.

On generated maps (``elot generate``, a simulated Boltzmann agent's plan; from about a
thousand up to about 500,000 hypotheses, so that exact inference still runs), every
statement below is scored at three judgment points (a third, two thirds and the end of the
plan), about the current and the initial belief, by exact inference and by particles with
``--seeds`` seeds at each number of particles. Prints per map and N:

* ``cover``: the fraction of |ΔL| (particles against exact) within 2 reported standard
  errors (target >= 93 %: a normal error falls within 2 s.e. 95 % of the time);
* ``max z``: the largest bias z over the (statement, t, mode) cells, ``mean ΔL / (sd ΔL /
  √seeds)`` (target <= 4: with ~100 cells and 20 seeds, chance alone reaches about 3.5);
* mean |ΔL| and the mean reported s.e.

    python benchmarks/smc_coverage.py [--quick] [--seeds 20] [--particles 1000,10000]

``--quick``: the smallest map, 5 seeds, 1,000 particles (a minute on one core).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

from elot.domains.doors_keys_gems.agent import run_agent
from elot.domains.doors_keys_gems.generate import COLOURS, Spec, generate
from elot.domains.doors_keys_gems.inference import infer
from elot.domains.doors_keys_gems.scn_read import parse_scn_text
from elot.domains.doors_keys_gems.scoring import compile_statement, score

#: (name, spec, seed): generated maps from about a thousand to about 500,000 hypotheses (k = 3).
MAPS = [
    ("small", Spec(boxes=3, colours=2, doors=2, gems=3), 1),
    ("medium", Spec(boxes=5, colours=2, doors=2, gems=3), 2),
    ("large", Spec(boxes=6, colours=3, doors=2, gems=3), 3),
]

#: Statements about where a key of colour C is, for the first box and for any box.
TEMPLATES = [
    "uncertain_about(player, box(B), exists(and(key(K), iscolor(K, {c})), inside(K, B)))",
    "believes(player, formula(exists(and(key(K), iscolor(K, {c})), inside(K, box1))))",
    "believes(player, might(exists(and(key(K), iscolor(K, {c})), inside(K, box1))))",
]


@dataclass
class Cell:
    """One (statement, t, mode): exact L and, per seed, particles' L and reported s.e."""
    exact: float
    got: list
    se: list


def scenario_of(spec: Spec, seed: int):
    scenario = parse_scn_text(generate(spec, seed=seed), f"generated-{seed}.scn")
    return run_agent(scenario, seed=seed, max_steps=60).scenario


def cells_of(scenario, sizes, seeds: int, k: int) -> tuple[int, dict]:
    exact = infer(scenario, k=k)
    colours = [c for c in COLOURS if c in set(scenario.layout.colours)][:2]
    formulas = [compile_statement(exact, template.format(c=c), bind_free=True)
                for template in TEMPLATES for c in colours]
    steps = exact.steps
    times = sorted({max(1, steps // 3), max(1, 2 * steps // 3), steps})
    out = {}
    for n in sizes:
        cells = {(f, t, mode): Cell(score(exact, c, t, mode).normalized_likelihood, [], [])
                 for f, c in enumerate(formulas) for t in times for mode in ("current", "initial")}
        for seed in range(seeds):
            smc = infer(scenario, inference="smc", particles=n, seed=seed, k=k)
            for (f, t, mode), cell in cells.items():
                got = score(smc, formulas[f], t, mode)
                cell.got.append(got.normalized_likelihood)
                cell.se.append(got.stderr)
        out[n] = cells
    return len(exact), out


def summary(cells: dict) -> tuple[float, float, float, float]:
    """(fraction within 2 s.e., max |bias z|, mean |ΔL|, mean s.e.) over the cells."""
    within, zs, errors, ses = [], [], [], []
    for cell in cells.values():
        delta = np.array(cell.got) - cell.exact
        se = np.array(cell.se)
        within.extend(np.abs(delta) <= 2 * se + 1e-9)
        errors.extend(np.abs(delta))
        ses.extend(se)
        spread = delta.std(ddof=1) if len(delta) > 1 else 0.0
        if spread > 1e-12:
            zs.append(abs(delta.mean()) / (spread / np.sqrt(len(delta))))
        elif abs(delta.mean()) > 1e-9:
            zs.append(np.inf)   # the same wrong answer every seed
    return float(np.mean(within)), max(zs, default=0.0), float(np.mean(errors)), float(np.mean(ses))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the smallest map, 5 seeds, 1,000 particles")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--particles", default="1000,10000")
    parser.add_argument("--k", type=int, default=3)
    args = parser.parse_args(argv)
    maps, seeds, sizes = MAPS, args.seeds, [int(x) for x in args.particles.split(",")]
    if args.quick:
        maps, seeds, sizes = MAPS[:1], 5, [1000]
    print(f"{'map':<8} {'hypotheses':>11} {'actions':>7} {'N':>6} {'cells':>5} {'cover':>6} {'max z':>6} "
          f"{'mean|dL|':>8} {'mean se':>8} {'seconds':>7}")
    worst_cover, worst_z = 1.0, 0.0
    for name, spec, seed in maps:
        start = time.process_time()
        scenario = scenario_of(spec, seed)
        size, by_size = cells_of(scenario, sizes, seeds, args.k)
        seconds = time.process_time() - start
        for n, cells in by_size.items():
            cover, z, mean_error, mean_se = summary(cells)
            worst_cover, worst_z = min(worst_cover, cover), max(worst_z, z)
            print(f"{name:<8} {size:>11,} {len(scenario.actions):>7} {n:>6} {len(cells):>5} {cover:>6.1%} "
                  f"{z:>6.2f} {mean_error:>8.4f} {mean_se:>8.4f} {seconds:>7.0f}")
    print(f"worst: {worst_cover:.1%} within 2 s.e. (target >= 93%), max bias z {worst_z:.2f} (target <= 4)")


if __name__ == "__main__":
    main()
