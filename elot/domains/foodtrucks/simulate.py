"""The simulated student: the food-truck model's own agent run forward (``elot plan`` on a
``.trucks`` scenario).

The student has utilities for the three trucks and an initial belief about what spot 2
holds. Its Q comes from the engine's planner (:func:`elot.engine.tables.planners.plan`, the
domain's ``belief-vi`` by default) solved for that one utility vector, and it acts by the
same softmax at beta that the inversion scores paths with
(``btom_ext``'s ``mixed_policies`` on :meth:`~elot.engine.tables.planners.Plan.corners`), so the
model explains its own agent. ``policy="optimal"`` takes the best action instead (ties
broken by the seed).

It perceives as the model's student does: on entering a cell it sees spot 2 with the
cell's visible fraction (line of sight, :func:`~elot.domains.foodtrucks.world.visibility`),
the percept drawn in the true world, and updates its belief by Bayes' rule (rounded to the
config's quantum, as in the inversion). Eating at a truck ends the path. Moves already in
the scenario are replayed first (the student perceives along them) and the rest is
simulated.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from elot.domains.agent import belief_of, utilities_of
from elot.domains.foodtrucks.domain import FoodTrucks
from elot.domains.foodtrucks.scenarios import FoodTruckScenario
from elot.domains.foodtrucks.world import FINISHED, SPOT2_CONTENT, TRUCKS, cell_of
from elot.engine.tables.config import EngineConfig
from elot.engine.tables.simulate import SimulatedAgent, check_belief, simulate as run_agent
from elot.errors import ScenarioError
#: Actions the student takes at most before it gives up (the experiment's paths: 1 to 27).
DEFAULT_MAX_STEPS = 60
#: Names of the worlds in a ``--belief``: what spot 2 holds.
BELIEF_NAMES = {"lebanese": 0, "mexican": 1, "none": 2, "empty": 2}
BELIEF_HINT = "write what spot 2 holds with its probability, e.g. lebanese=0.5,mexican=0.25,none=0.25 " \
              "(names: lebanese, mexican, none; left out: 0), or uniform, or true"
UTILITY_HINT = "give each truck a number, e.g. korean=100,lebanese=40,mexican=-20"


def parse_utilities(text: str) -> np.ndarray:
    """``korean=100,lebanese=40,mexican=-20`` as ``float64[3]`` in truck order (K, L, M);
    every truck must be given."""
    return utilities_of(text, TRUCKS, UTILITY_HINT)


def parse_belief(text: str, world: int) -> np.ndarray:
    """The student's initial belief over spot 2's content (``float64[3]``: lebanese,
    mexican, none): ``uniform``, ``true`` (it knows ``world``) or weights summing to 1."""
    return belief_of(text, ("lebanese", "mexican", "spot 2 being empty"), world, BELIEF_HINT, BELIEF_NAMES)


@dataclass(frozen=True)
class Simulated:
    """A simulated scenario and what the student thought at each step (``beliefs[t]``:
    its belief over lebanese, mexican, none in the cell of step t)."""

    scenario: FoodTruckScenario
    beliefs: tuple[tuple[float, ...], ...]
    gave_up: bool


def student(map_number: int, utilities, config: EngineConfig | None = None) -> SimulatedAgent:
    """The model's student for one map and one utility vector (K, L, M): the engine's
    simulated agent in that map's tables."""
    domain = FoodTrucks()
    return SimulatedAgent(domain.tables(map_number), TRUCKS, utilities, config or EngineConfig(),
                          domain.default_planner)


def simulate(scenario: FoodTruckScenario, utilities, belief, *, config: EngineConfig | None = None,
             policy: str = "boltzmann", seed: int | None = 0, max_steps: int = DEFAULT_MAX_STEPS,
             agent: SimulatedAgent | None = None) -> Simulated:
    """The scenario with its moves completed by the student (its own moves replayed
    first). ``belief`` is over spot 2's content (lebanese, mexican, none)."""
    belief = check_belief(belief, 3, BELIEF_HINT)
    agent = agent or student(scenario.map, utilities, config)
    run = run_agent(agent, scenario.world, scenario.states, belief, policy=policy, seed=seed,
                    max_steps=max_steps)
    cells = tuple(cell_of(s) for s in run.path if s != FINISHED)
    done = replace(scenario, cells=cells, finished=run.finished)
    return Simulated(done, run.beliefs, not run.finished)


def eaten(scenario: FoodTruckScenario) -> str | None:
    """The truck a finished scenario ends by eating at, else None."""
    if not scenario.finished:
        return None
    x, y = scenario.cells[-1]
    truck = 0 if (x, y) == (0, 0) else SPOT2_CONTENT[scenario.world]
    if truck is None:   # read_trucks refuses this; a scenario built by hand may not
        raise ScenarioError(f"scenario {scenario.name or scenario.id} ends by eating where there is no truck")
    return TRUCKS[truck]
