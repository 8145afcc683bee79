"""The authors' models of the food-truck experiment run on the engine, and their outputs.

* ``btom`` — belief-space value iteration (28-point grid, utilities -20..100 step 20,
  gamma 0.99, 50 sweeps, unit costs), initial beliefs on the shrunk grid;
* ``true-belief`` — the student knows the true world (one MDP per world);
* ``no-cost`` — as ``btom`` with every action free and gamma 1.

Outputs per scenario: **desires** K, L, M (the posterior mean utility level on the people's
1..7 scale) and **beliefs** L, M, N (the posterior mean of the student's initial belief about
spot 2, as the engine reports it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from elot.domains.foodtrucks.domain import FoodTrucks, levels
from elot.domains.foodtrucks.scenarios import FoodTruckScenario
from elot.domains.foodtrucks.world import ROLES
from elot.engine import Case, Engine, EngineConfig, PathResult
from elot.errors import ArgumentError

#: The authors' models, as changes to the engine's settings.
VARIANTS = {
    "btom": {},
    "true-belief": {"planner": "qmdp", "true_belief": True},
    "no-cost": {"costs": False, "gamma": 1.0},
}
#: What each model is.
MODELS = {
    "btom": "the student plans over its beliefs (belief-space value iteration)",
    "true-belief": "the student knows what is behind the building",
    "no-cost": "every move is free (and the future is not discounted)",
}
#: Options of each judgment, in the order of the prediction files.
DESIRE_OPTIONS = ROLES                 # K, L, M
BELIEF_OPTIONS = ("L", "M", "N")       # spot 2 holds L, M, or nothing
#: The authors' beta grid: 0.5, 1.0, ..., 10.0.
BETAS = tuple(np.round(np.arange(1, 21) * 0.5, 1))


def variant_config(variant: str, **changes) -> EngineConfig:
    """The config of ``variant`` with ``changes`` (e.g. ``backend=``, ``planner=``)."""
    if variant not in VARIANTS:
        raise ArgumentError(f"unknown food-truck model {variant!r}",
                            hint=f"choose one of {', '.join(VARIANTS)}")
    return EngineConfig(**{**VARIANTS[variant], **changes})


@dataclass(frozen=True)
class Prediction:
    """One scenario's outputs."""

    scenario: int
    desire: np.ndarray   # K, L, M on 1..7
    belief: np.ndarray   # L, M, N

    def rows(self) -> list[tuple[int, str, str, float]]:
        return ([(self.scenario, "desire", o, float(v)) for o, v in zip(DESIRE_OPTIONS, self.desire)]
                + [(self.scenario, "belief", o, float(v)) for o, v in zip(BELIEF_OPTIONS, self.belief)])


def prediction_of(scenario: FoodTruckScenario, result: PathResult) -> Prediction:
    return Prediction(scenario.id, result.mean_utility(levels(result.desire_space.utilities)),
                      result.mean_belief())


def predict(scenarios: Sequence[FoodTruckScenario], config: EngineConfig,
            betas: Sequence[float] | None = None,
            progress: Callable[[int, int], None] | None = None) -> tuple[Engine, list[list[Prediction]]]:
    """For each beta (default: the config's), the predictions of every scenario, in order."""
    engine = Engine(FoodTrucks(), config)
    cases = [Case(s.map, s.states, s.world, f"scenario {s.id}") for s in scenarios]
    return engine, [[prediction_of(s, r) for s, r in zip(scenarios, results)]
                    for results in engine.each_beta(cases, betas, progress)]
