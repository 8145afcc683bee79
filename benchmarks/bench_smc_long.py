"""Particle inference on a long plan over a big map: per-action cost against the dataset.

Builds its map from a seed (never a checked-in file): ``elot generate`` with 12 boxes,
4 colours, 4 doors and 4 gems, widened with open floor to 20 x 20 so that the agent walks
far, then runs the model's own Boltzmann agent on it (``elot plan``'s ``run_agent``) until a
plan of at least ``--min-actions`` actions comes out (the seed moves on until one does).
Then times ``infer(..., inference="smc")`` at each number of particles (CPU time of this
process, so that other work on a shared machine does not count), beside plan 2_1 of the
dataset at the same N in the same process, and measures the peak memory traced at the
largest N: inference alone, and inference with statements scored at the last step.

    python benchmarks/bench_smc_long.py [--particles 1000,10000,100000] [--k 5] [--seed 0]

Targets (issue 27): 10^4 particles <= 5 ms/action and 10^5 <= 50 ms/action on the long
plan; per-action cost at 10^4 within 3x of plan 2_1's; peak memory at 10^5 <= 0.5 GB.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import tracemalloc

from elot.domains.doors_keys_gems.agent import run_agent
from elot.domains.doors_keys_gems.dataset import load_dataset_plan
from elot.domains.doors_keys_gems.generate import Spec, generate
from elot.domains.doors_keys_gems.inference import infer
from elot.domains.doors_keys_gems.scn_read import parse_scn_text
from elot.domains.doors_keys_gems.scoring import score
from elot.cli import run_command

SIZE = 20
#: Statements scored at the end for the memory figure (about the red key's box).
STATEMENTS = [
    "uncertain_about(player, box(B), exists(and(key(K), iscolor(K, red)), inside(K, B)))",
    "believes(player, formula(exists(and(key(K), iscolor(K, red)), inside(K, box1))))",
]


def widened(text: str, size: int = SIZE) -> str:
    """A generated ``.scn`` with its map padded with floor to ``size`` x ``size`` (its
    gems stay in their alcoves along the top; the hall grows right and down)."""
    lines = text.splitlines()
    start = lines.index("map:") + 1
    end = start
    while end < len(lines) and lines[end].startswith("  ") and lines[end].strip():
        end += 1
    rows = [line.strip() for line in lines[start:end]]
    rows = [row + ("W" if i < 2 else ".") * (size - len(row)) for i, row in enumerate(rows)]
    rows += ["." * size] * (size - len(rows))
    return "\n".join(lines[:start] + ["  " + row for row in rows] + lines[end:]) + "\n"


def long_plan(seed: int, min_actions: int):
    """A generated, widened map and a simulated agent's plan of at least ``min_actions``."""
    for attempt in range(seed, seed + 200):
        text = widened(generate(Spec(boxes=12, colours=4, doors=4, gems=4), seed=attempt))
        scenario = parse_scn_text(text)
        simulation = run_agent(scenario, seed=attempt, max_steps=1000)
        if len(simulation.scenario.actions) >= min_actions:
            return attempt, simulation.scenario
    raise SystemExit(f"no plan of {min_actions} actions in 200 seeds from {seed}")


def per_action(scenario, particles: int, k: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        infer(scenario, inference="smc", particles=particles, seed=0, k=k)
        best = min(best, time.process_time() - start)
    return best * 1e3 / len(scenario.actions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--particles", default="1000,10000,100000")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-actions", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--labtom", default=os.environ.get("ELOT_LABTOM_DATA"),
                        help="the dataset directory (default: $ELOT_LABTOM_DATA, else a shared/labtom folder in or above the working directory)")
    args = parser.parse_args()
    seed, scenario = long_plan(args.seed, args.min_actions)
    from elot.domains.doors_keys_gems.particles import ParticleFilter

    space = ParticleFilter(scenario, k=args.k, particles=1).space
    print(f"map: generate --boxes 12 --colours 4 --doors 4 --gems 4 --seed {seed}, widened to {SIZE}x{SIZE}; "
          f"{len(scenario.actions)} actions; {space.n_states} initial states, {len(space):,} hypotheses (k={args.k})")
    baseline = load_dataset_plan(args.labtom, "2_1")
    sizes = [int(n) for n in args.particles.split(",")]
    print(f"{'particles':>10} {'long ms/act':>12} {'2_1 ms/act':>11} {'ratio':>6}")
    for n in sizes:
        long_ms = per_action(scenario, n, args.k, args.repeat if n < 10**5 else 1)
        base_ms = per_action(baseline, n, 3, args.repeat)   # the dataset's k
        print(f"{n:>10,} {long_ms:>12.2f} {base_ms:>11.2f} {long_ms / base_ms:>5.1f}x")
    tracemalloc.start()
    result = infer(scenario, inference="smc", particles=max(sizes), seed=0, k=args.k)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.reset_peak()
    for statement in STATEMENTS:
        for mode in ("current", "initial"):
            score(result, statement, result.steps, mode, bind_free=True)
    scoring = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"peak memory traced at {max(sizes):,} particles: {peak / 2**30:.2f} GiB inference, "
          f"{scoring / 2**30:.2f} GiB scoring {len(STATEMENTS) * 2} statements at the end (target <= 0.5 GB)")
    # the process's whole peak (inference at every N above, then scoring), as the system counts it
    print(f"max RSS after scoring: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")


if __name__ == "__main__":
    sys.exit(run_command(main))   # no dataset, a bad option: the message and exit 2, not a traceback
