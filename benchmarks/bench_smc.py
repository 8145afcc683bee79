"""Particle inference (SMC) against exact inference: accuracy, speed and memory.

Prints:

1. **Accuracy** on every plan of the LaBToM dataset (exp2_current): for N particles, the
   mean, 95th percentile and max of |ΔL| (particles against exact) over every gold
   statement, in current and initial mode, at every judgment point; the largest goal
   posterior error; how often |ΔL| is within two reported standard errors; time per action.
   Targets: N = 1,000 mean |ΔL| <= 0.02; N = 10^4 max |ΔL| <= 0.05.
2. **Speed** on plan 2_1 (5,940 hypotheses), one core (BLAS threads pinned to 1): CPU
   seconds per action of ``ParticleFilter.step`` for 10^4 and 10^6 particles — the mean
   (resampling and rejuvenation included), the median (steps that only reweight) and
   the slowest step. Targets: 10^4 <= 5 ms, 10^6 <= 1 s per action.
3. **Memory** per particle: the filter's state and what it keeps per step, from
   tracemalloc's peak over a run.
4. **Past exact**: a map whose space exact inference refuses (12 boxes, 4 colours, k = 5),
   run end to end with particles, statements scored.
5. **In vs out of context** (the paper's table, exp1, both conventions) with 10^4
   particles against exact: the change in each column (target within ±0.01).

    python benchmarks/bench_smc.py [--labtom DIR] [--sizes 100,1000,10000] [--seed S]
                                   [--big 10000,1000000] [--skip-speed]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")   # one core: the figures are per core

import argparse
import sys
import time
import tracemalloc

import numpy as np

from elot.domains.doors_keys_gems.inference import infer, run_filter
from elot.domains.doors_keys_gems.particles import ParticleFilter
from elot.domains.doors_keys_gems.dataset import dataset_root, load_dataset_plan
from elot.domains.doors_keys_gems.scn_read import parse_scn_text
from elot.domains.doors_keys_gems.scoring import compile_statement, score
from elot.cli import run_command
from bench_btom import PLANS, gold_formulas


def accuracy(scenarios, formulas, sizes, seed: int) -> None:
    print("1. accuracy against exact, every dataset plan (exp2_current), every gold statement in current "
          "and initial mode at every judgment point")
    print(f"{'N':>7} {'scores':>7} {'mean|dL|':>9} {'p95|dL|':>8} {'max|dL|':>8} {'max|dgoal|':>10} "
          f"{'mean s.e.':>9} {'|dL|<=2se':>9} {'ms/action':>10}")
    exact = {plan: infer(sc) for plan, sc in scenarios.items()}
    compiled = {plan: [compile_statement(exact[plan], f, bind_free=True) for f in formulas[plan]]
                for plan in scenarios}
    reference = {(plan, n, t, mode): score(exact[plan], c, t, mode).normalized_likelihood
                 for plan, sc in scenarios.items() for n, c in enumerate(compiled[plan])
                 for t in sc.judgments for mode in ("current", "initial")}
    for n_particles in sizes:
        errors, errs_se, goal_errors, seconds, actions = [], [], [], 0.0, 0
        for plan, sc in scenarios.items():
            start = time.process_time()
            smc = infer(sc, inference="smc", particles=n_particles, seed=seed)
            seconds += time.process_time() - start
            actions += len(sc.actions)
            for t in sc.judgments:
                goals_e, goals_s = exact[plan].goal_posterior(t), smc.goal_posterior(t)
                goal_errors.append(max(abs(goals_e[g] - goals_s[g]) for g in goals_e))
                for n, c in enumerate(compiled[plan]):
                    for mode in ("current", "initial"):
                        got = score(smc, c, t, mode)
                        errors.append(abs(got.normalized_likelihood - reference[(plan, n, t, mode)]))
                        errs_se.append(got.stderr)
        errors, errs_se = np.array(errors), np.array(errs_se)
        covered = np.mean(errors <= 2 * errs_se + 1e-12)
        print(f"{n_particles:>7} {len(errors):>7} {errors.mean():>9.4f} {np.percentile(errors, 95):>8.4f} "
              f"{errors.max():>8.4f} {max(goal_errors):>10.4f} {errs_se.mean():>9.4f} {covered:>9.2f} "
              f"{seconds * 1e3 / actions:>10.2f}")


def speed(scenario, sizes, seed: int) -> None:
    print(f"2. speed on plan 2_1 ({len(infer(scenario))} hypotheses, {len(scenario.actions)} actions), CPU time "
          "of one step, one core")
    print(f"{'N':>8} {'mean ms':>9} {'median ms':>10} {'max ms':>9} {'resamplings':>11}")
    for n in sizes:
        filt = ParticleFilter(scenario, particles=n, seed=seed)
        filt.init()
        times = []
        for action in scenario.actions:
            start = time.process_time()
            filt.step(action)
            times.append(time.process_time() - start)
        times = np.array(times) * 1e3
        print(f"{n:>8} {times.mean():>9.2f} {np.median(times):>10.2f} {times.max():>9.2f} "
              f"{int(np.sum(filt.resampled)):>11}")
        target = 5.0 if n <= 10_000 else 1000.0
        print(f"         mean per action {'within' if times.mean() <= target else 'OVER'} the target "
              f"of {target:g} ms")


def memory(scenario, n: int, seed: int) -> None:
    tracemalloc.start()
    result = run_filter(ParticleFilter(scenario, particles=n, seed=seed), scenario)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    p = result.particles_by_step[-1]
    kept = (p.goal.nbytes + p.state.nbytes + p.beliefs.nbytes + p.logw.nbytes) // n
    current = 8 * result.space.n_goals   # the current particles' history likelihood per goal
    print(f"3. memory, {n:,} particles on plan 2_1 (k=3, {result.steps + 1} steps kept): {kept} B per particle "
          f"per step kept, {current} B more per current particle; peak traced {peak / 2**20:.1f} MiB = {peak / n / (result.steps + 1):.0f} B per "
          f"particle per step ({peak / n:.0f} B per particle over the run)")


#: 12 closed boxes (two hiding a red and a blue key), a visible key of each of 4 colours
#: and a door of each colour before a gem: 841 initial states (0-2 hidden keys, one per
#: colour at most), so k = 5 gives about 3.6e12 beliefs, which exact inference refuses.
BIG_MAP = """name: twelve-boxes
colours: red, blue, yellow, green
goal: gem1
map:
  gWgWgWgWWWWWW
  RWBWYWEWWWWWW
  h...rbye.....
  .FOCCCCCCCCCC
actions:
  right, open box1, right x2, open box3, right x3, pickup key3
statements current:
  believes(player, formula(exists(and(key(K), iscolor(K, blue)), inside(K, box2))))
  believes(player, might(exists(and(key(K), iscolor(K, blue)), inside(K, box5))))
  uncertain_about(player, box(B), exists(and(key(K), iscolor(K, blue)), inside(K, B)))
"""


def past_exact(n: int, seed: int) -> None:
    scenario = parse_scn_text(BIG_MAP, "twelve-boxes.scn")
    start = time.perf_counter()
    result = infer(scenario, inference="auto", k=5, particles=n, seed=seed)
    scores = [score(result, st.text, t, st.mode) for t in range(result.steps + 1) for st in scenario.statements]
    seconds = time.perf_counter() - start
    print(f"4. past exact: {scenario.name}, {result.space.n_states:,} initial states, k=5: {len(result):,} "
          f"hypotheses; {result.note}")
    print(f"   {n:,} particles, {result.steps} actions, {len(scores)} scores: {seconds:.2f} s end to end; "
          f"min ESS {result.ess.min():.0f}, goal posterior at the end "
          + ", ".join(f"{g} {p:.2f}" for g, p in result.goal_posterior(result.steps).items()))


def in_vs_out_deltas(labtom, n: int, seed: int) -> None:
    """The paper's in- vs out-of-context table (exp1, both conventions) with particles,
    against the exact one: the largest difference in the in, out and diff columns."""
    from elot.domains.doors_keys_gems.experiments import in_vs_out

    print(f"5. in vs out of context (exp1), {n:,} particles against exact: largest |delta| per column")
    print(f"{'conventions':<11} {'condition':<9} {'model':<13} {'d in':>7} {'d out':>7} {'d diff':>7} {'d acc':>7}")
    worst = 0.0
    for conventions in ("elot", "paper"):
        models = ("full", "non-planning", "true-belief")
        exact = in_vs_out(labtom, models=models, conventions=conventions)
        smc = in_vs_out(labtom, models=models, conventions=conventions,
                        inference={"inference": "smc", "particles": n, "seed": seed})
        for a, b in zip(exact, smc):
            deltas = (b.in_context - a.in_context, b.out_of_context - a.out_of_context, b.diff - a.diff,
                      b.accuracy - a.accuracy)
            worst = max(worst, *(abs(d) for d in deltas[:3]))
            print(f"{conventions:<11} {a.condition:<9} {a.model:<13} " + " ".join(f"{d:>+7.4f}" for d in deltas))
    print(f"   largest |delta| of in, out, diff: {worst:.4f} (target <= 0.01)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labtom", default=os.environ.get("ELOT_LABTOM_DATA"),
                        help="the dataset directory (default: $ELOT_LABTOM_DATA, else a shared/labtom folder in or above the working directory)")
    parser.add_argument("--sizes", default="100,1000,10000", help="particle counts for the accuracy table")
    parser.add_argument("--big", default="10000,1000000", help="particle counts for the speed figures")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-speed", action="store_true")
    args = parser.parse_args()
    root = dataset_root(args.labtom)
    scenarios = {p: load_dataset_plan(root, p) for p in PLANS}
    accuracy(scenarios, gold_formulas(root), [int(x) for x in args.sizes.split(",")], args.seed)
    if not args.skip_speed:
        speed(scenarios["2_1"], [int(x) for x in args.big.split(",")], args.seed)
        memory(scenarios["2_1"], 100_000, args.seed)
    past_exact(10_000, args.seed)
    in_vs_out_deltas(args.labtom, 10_000, args.seed)


if __name__ == "__main__":
    sys.exit(run_command(main))   # no dataset, a bad option: the message and exit 2, not a traceback
