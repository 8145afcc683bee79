"""Exact inference at its kernel's speed (issue 27 item 3): the dataset's exp2_current plans.

Prints, per plan: hypotheses, actions, ms/action of a whole ``infer`` (best of R), how
that splits into the set-up (checking the plan, building the hypothesis space, the first
observation, the result) and the steps, and the share of the time spent inside the
backend's functions (path costs, stepping rows, views, likelihoods; the rest is Python).
Then the mean and max ms/action over the 5,940-hypothesis plans against the target.

    python benchmarks/bench_exact.py [--labtom DIR] [--repeat R] [--quick]

Target: <= 0.1 ms/action mean over the 5,940-hypothesis plans.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))   # bench_btom, beside this script

from bench_btom import PLANS, best_of, kernel_seconds  # noqa: E402
from elot.domains.doors_keys_gems.dataset import dataset_root, load_dataset_plan  # noqa: E402
from elot.domains.doors_keys_gems.inference import ExactFilter, infer
from elot.domains.doors_keys_gems.model import true_trajectory  # noqa: E402
from elot.cli import run_command  # noqa: E402

TARGET_MS = 0.1


def set_up(scenario) -> None:
    """What a run does besides its steps: check the plan, build, observe, hand back."""
    true_trajectory(scenario)
    filt = ExactFilter(scenario)
    filt.init()
    filt.result()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labtom", default=os.environ.get("ELOT_LABTOM_DATA"),
                        help="the dataset directory (default: $ELOT_LABTOM_DATA, else a shared/labtom folder in or above the working directory)")
    parser.add_argument("--repeat", type=int, default=20, help="repeats of each timing (best is kept)")
    parser.add_argument("--quick", action="store_true", help="the 5,940-hypothesis plans only, 5 repeats")
    args = parser.parse_args()
    repeat = 5 if args.quick else args.repeat
    root = dataset_root(args.labtom)
    print(f"{'plan':>5} {'|H|':>6} {'acts':>5} {'ms/act':>8} {'set-up ms':>10} {'steps ms/act':>13} {'in kernels':>11}")
    big = []
    for plan in PLANS:
        scenario = load_dataset_plan(root, plan)
        n = len(scenario.actions)
        size = len(ExactFilter(scenario).space)
        if args.quick and size != 5940:
            continue
        total = best_of(repeat, lambda: infer(scenario))
        setup = best_of(repeat, lambda: set_up(scenario))
        kernels = min(kernel_seconds(scenario, "core") for _ in range(max(repeat // 4, 1)))
        per_action = total * 1e3 / n
        if size == 5940:
            big.append(per_action)
        print(f"{plan:>5} {size:>6} {n:>5} {per_action:>8.4f} {setup * 1e3:>10.3f} "
              f"{max(total - setup, 0) * 1e3 / n:>13.4f} {kernels / total:>10.0%}")
    print(f"exact ms/action on the 5,940-hypothesis plans: mean {np.mean(big):.4f}, max {max(big):.4f} "
          f"(target <= {TARGET_MS}; mean {np.mean(big) / TARGET_MS:.2f}x the target)")


if __name__ == "__main__":
    sys.exit(run_command(main))   # no dataset, a bad option: the message and exit 2, not a traceback
