"""Particle inference in the engine against exact, on the food-truck experiment's scenarios.

For each number of particles N (and a few seeds), runs importance sampling from the prior
(``EngineConfig(method="smc")``) over the scenarios and prints, against the exact run made
in the same process: the error of the domain's outputs (the posterior mean desire on the
1..7 scale, and the mean initial belief L, M, N: the largest absolute difference per
scenario, then its mean and maximum over the scenarios), the median effective sample size,
the distinct utility vectors planned, and the time (CPU seconds of this process, and the
ratio to exact's).

``--fine LEVELS`` also runs a desire space exact finds expensive: the same domain with
``LEVELS`` utility levels per truck (LEVELS³ vectors, -20 to 100), exact once and particles
for each N, on the first ``--fine-scenarios`` scenarios of map 1 (one layout planned: the
exact plan of 15 levels alone holds about 1 GiB; planning dominates, and this is where
particles pay: only the distinct vectors drawn are planned).

    python benchmarks/engine_particles.py --data ../shared/baker2017 [--particles 250,1000,4000,16000]
        [--seeds 3] [--scenarios 78] [--fine 11 --fine-scenarios 12]

Exits 0 with a note when the data are absent.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from elot.domains.foodtrucks.domain import FoodTrucks  # noqa: E402
from elot.domains.foodtrucks.domain import levels  # noqa: E402
from elot.domains.foodtrucks.scenarios import read_scenarios  # noqa: E402
from elot.engine import Case, DesireSpace, Engine, EngineConfig  # noqa: E402


def default_data() -> str:
    return os.environ.get("ELOT_BAKER2017_DATA") or str(REPO.parent / "shared" / "baker2017")


class FineTrucks(FoodTrucks):
    """Food trucks with ``n`` utility levels per truck from -20 to 100 (n³ vectors)."""

    def __init__(self, n: int):
        self.n = n

    def desires(self) -> DesireSpace:
        steps = np.linspace(-20.0, 100.0, self.n)
        vectors = np.array(np.meshgrid(steps, steps, steps, indexing="ij")).reshape(3, -1).T
        return DesireSpace(("korean", "lebanese", "mexican"), vectors, np.full(len(vectors), 1.0 / len(vectors)))


def timed(domain, config: EngineConfig, cases):
    start = time.process_time()
    results = Engine(domain, config).run(cases)[0]
    return results, time.process_time() - start


def errors(exact, sampled) -> tuple[float, float]:
    """The largest |sampled - exact| of one scenario's desire (1..7) and belief outputs."""
    table = levels(exact.desire_space.utilities)
    desire = np.abs(sampled.mean_utility(table) - exact.mean_utility(table)).max()
    belief = np.abs(sampled.mean_belief() - exact.mean_belief()).max()
    return float(desire), float(belief)


def compare(name: str, domain, cases, particles: list[int], seeds: int) -> None:
    exact, exact_s = timed(domain, EngineConfig(), cases)
    n_desires = len(exact[0].desire_space.utilities)
    print(f"\n{name}: {len(cases)} scenarios, {n_desires:,} utility vectors; exact: {exact_s:.2f} s CPU")
    print(f"{'N':>7} {'desire err mean':>16} {'max':>7} {'belief err mean':>16} {'max':>7} "
          f"{'median ESS':>11} {'planned':>8} {'CPU s':>7} {'vs exact':>9}")
    for n in particles:
        desire, belief, ess, planned, seconds = [], [], [], [], []
        for seed in range(1, seeds + 1):
            sampled, took = timed(domain, EngineConfig(method="smc", particles=n, seed=seed), cases)
            seconds.append(took)
            for want, got in zip(exact, sampled):
                d, b = errors(want, got)
                desire.append(d)
                belief.append(b)
                ess.append(got.ess)
            planned.append(sampled[0].planned)
        took = statistics.mean(seconds)
        print(f"{n:>7,} {statistics.mean(desire):>16.4f} {max(desire):>7.3f} {statistics.mean(belief):>16.4f} "
              f"{max(belief):>7.3f} {statistics.median(ess):>11.1f} {int(statistics.mean(planned)):>8,} "
              f"{took:>7.2f} {took / exact_s:>8.2f}x")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=default_data(), help="the food-truck experiment's folder")
    p.add_argument("--particles", default="250,1000,4000,16000", help="numbers of particles, comma-separated")
    p.add_argument("--seeds", type=int, default=3, help="seeds per N (errors pooled over them)")
    p.add_argument("--scenarios", type=int, default=78, help="how many of the scenarios (from the first; 0: none)")
    p.add_argument("--fine", type=int, default=0, help="also a space of LEVELS³ utility vectors (0: no)")
    p.add_argument("--fine-scenarios", type=int, default=12, help="scenarios (of map 1) of the --fine comparison")
    args = p.parse_args(argv)
    path = Path(args.data) / "scenarios.json"
    if not path.is_file():
        print(f"no food-truck data at {args.data} (give --data DIR): nothing to measure")
        return 0
    particles = [int(x) for x in args.particles.split(",") if x.strip()]
    scenarios = read_scenarios(path)
    cases = [Case(s.map, s.states, s.world, f"scenario {s.id}") for s in scenarios]
    print("errors: the largest absolute difference from exact per scenario (desire on the 1..7 scale, "
          "belief a probability), pooled over seeds; time: CPU seconds of this process")
    if args.scenarios > 0:
        compare("food trucks (the authors' 7 levels)", FoodTrucks(), cases[:args.scenarios], particles, args.seeds)
    if args.fine:
        compare(f"food trucks with {args.fine} levels per truck", FineTrucks(args.fine),
                [c for c in cases if c.layout == 1][:args.fine_scenarios], particles, 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
