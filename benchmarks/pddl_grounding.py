"""States per second of elot's grounded search: the compiled kernel against its NumPy twin and
a plain Python successor function over the lifted domain, on the Alanqary et al. problems.

    python benchmarks/pddl_grounding.py [--data ../shared/alanqary2021]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from elot.domains.pddl.ground import ground  # noqa: E402
from elot.domains.pddl.interpret import Interpreter  # noqa: E402
from elot.domains.pddl.read import read_domain, read_problem  # noqa: E402
from elot.domains.pddl.space import state_space  # noqa: E402


def timed(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "alanqary2021"))
    args = parser.parse_args(argv)
    root = Path(args.data)
    print(f"{'problem':32} {'states':>7} {'compiled/s':>12} {'twin/s':>10} {'python/s':>10} {'vs twin':>8} {'vs python':>9}")
    for study, name in (("doors-keys-gems", "scenario-1-4"), ("doors-keys-gems", "scenario-4-1"),
                        ("block-words", "scenario-1-1")):
        domain = read_domain(root / study / "domain.pddl")
        problem = read_problem(root / study / "problems" / f"{name}.pddl", domain)
        g = ground(domain, problem)
        n = len(state_space(g))
        core = n / timed(lambda: state_space(g, "core"), 20)
        twin = n / timed(lambda: state_space(g, "reference"), 2)
        interp = Interpreter(domain, problem)
        assert interp.reachable() == n
        plain = n / timed(interp.reachable, 1)
        print(f"{study + '/' + name:32} {n:7,} {core:12,.0f} {twin:10,.0f} {plain:10,.0f} "
              f"{core / twin:7.0f}x {core / plain:8.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
