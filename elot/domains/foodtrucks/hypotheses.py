"""Food-truck results as ELoT's hypotheses: scoring statements about what the student
thought at first, and (once ``elot.judging.Desires`` exists) what it wants.

The rows are the (initial belief, utility vector) pairs of a :class:`~elot.engine.PathResult`
(initial belief major), weighted by their posterior, or the particles of a
:class:`~elot.engine.SampledResult`; the worlds are the three worlds'
states (``at(truck, spot)``, ``empty(spot)``); each row's belief is the student's initial
belief over them.
"""

from __future__ import annotations

import numpy as np

from elot.domains.foodtrucks.language import signature
from elot.domains.foodtrucks.scenarios import FoodTruckScenario
from elot.domains.foodtrucks.world import WORLD_NAMES, world_atoms
from elot.engine import Case, Engine, EngineConfig, PathResult, Result
from elot.domains.tabular_source import result_hypotheses
from elot.errors import ArgumentError
from elot.judging import Hypotheses
from elot.lang.states import State


def result_at(scenario: FoodTruckScenario, t: int, config: EngineConfig | None = None,
              engine: Engine | None = None) -> Result:
    """The inversion of ``scenario``'s first ``t`` steps (its last step, eating included, at
    ``t = steps``)."""
    from elot.domains.foodtrucks.domain import FoodTrucks

    states = scenario.states
    if not 0 <= t <= len(states) - 1:
        raise ArgumentError(f"time {t} is not one of 0..{len(states) - 1} (scenario {scenario.id})")
    engine = engine or Engine(FoodTrucks(), config)
    [[result]] = engine.run([Case(scenario.map, states[:t + 1], scenario.world, f"scenario {scenario.id}")])
    return result


def hypotheses(result: Result) -> Hypotheses:
    """The result's posterior rows as :class:`elot.judging.Hypotheses` (initial beliefs):
    every hypothesis of an exact result, the particles of a sampled one."""
    worlds = tuple(State.of(world_atoms(w)) for w in range(len(WORLD_NAMES)))
    return result_hypotheses(result, signature(), worlds, per_agent=False)


def desires(result: PathResult) -> tuple[tuple[str, ...], np.ndarray]:
    """``(objects, utilities)`` of the rows of :func:`hypotheses` of an exact result: the
    truck constants (korean, lebanese, mexican) and each row's utility for each: what
    ``elot.judging.Desires(objects, utilities)`` takes."""
    return result.desires_at()
