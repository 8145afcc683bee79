"""Food-truck results as ELoT's hypotheses: scoring statements about what the student
thought at first, and (once ``elot.judging.Desires`` exists) what it wants.

The rows are the (initial belief, utility vector) pairs of a :class:`~elot.engine.PathResult`
(initial belief major), weighted by their posterior; the worlds are the three worlds'
states (``at(truck, spot)``, ``empty(spot)``); each row's belief is the student's initial
belief over them.
"""

from __future__ import annotations

import numpy as np

from elot.domains.foodtrucks.language import AGENT, signature
from elot.domains.foodtrucks.scenarios import FoodTruckScenario
from elot.domains.foodtrucks.world import WORLD_NAMES, world_atoms
from elot.engine import Case, Engine, EngineConfig, PathResult
from elot.errors import ArgumentError
from elot.judging import Desires, Hypotheses
from elot.lang.semantics import State


def result_at(scenario: FoodTruckScenario, t: int, config: EngineConfig | None = None,
              engine: Engine | None = None) -> PathResult:
    """The inversion of ``scenario``'s first ``t`` steps (its last step, eating included, at
    ``t = steps``)."""
    from elot.domains.foodtrucks.domain import FoodTrucks

    states = scenario.states
    if not 0 <= t <= len(states) - 1:
        raise ArgumentError(f"time {t} is not one of 0..{len(states) - 1} (scenario {scenario.id})")
    engine = engine or Engine(FoodTrucks(), config)
    [[result]] = engine.run([Case(scenario.map, states[:t + 1], scenario.world, f"scenario {scenario.id}")])
    return result


def hypotheses(result: PathResult) -> Hypotheses:
    """The result's posterior rows as :class:`elot.judging.Hypotheses` (initial beliefs)."""
    worlds = tuple(State.of(world_atoms(w)) for w in range(len(WORLD_NAMES)))
    n_w, n_b, n_u = result.likelihood.shape
    beliefs = np.asarray(result.belief_space.beliefs, dtype=np.float64)
    beliefs = np.tile(np.repeat(beliefs / beliefs.sum(axis=1, keepdims=True), n_u, axis=0), (n_w, 1))
    true_index = np.repeat(np.asarray(result.worlds), n_b * n_u)
    return Hypotheses(signature(), worlds, true_index, {AGENT: beliefs},
                      result.posterior().reshape(-1), prior=result.prior().reshape(-1), per_agent=False,
                      desires=Desires(*desires(result)))


def desires(result: PathResult) -> tuple[tuple[str, ...], np.ndarray]:
    """``(objects, utilities)`` of the rows of :func:`hypotheses`: the truck constants
    (korean, lebanese, mexican) and each row's utility for each: what
    ``elot.judging.Desires(objects, utilities)`` takes."""
    return result.desires_at()
