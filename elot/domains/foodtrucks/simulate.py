"""The simulated student: the food-truck model's own agent run forward (``elot plan`` on a
``.trucks`` scenario).

The student has utilities for the three trucks and an initial belief about what spot 2
holds. Its Q comes from the engine's planner (:func:`elot.engine.planners.plan`, the
domain's ``belief-vi`` by default) solved for that one utility vector, and it acts by the
same softmax at beta that the inversion scores paths with
(``btom_ext``'s ``mixed_policies`` on :meth:`~elot.engine.planners.Plan.corners`), so the
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

import math
import re
from dataclasses import dataclass, replace

import numpy as np

from elot.domains.foodtrucks.domain import FoodTrucks
from elot.domains.foodtrucks.scenarios import FoodTruckScenario
from elot.domains.foodtrucks.world import ACTIONS, FINISHED, SPOT2_CONTENT, TRUCKS, cell_index, cell_of
from elot.engine.config import EngineConfig
from elot.engine.inversion import normalise, quantise
from elot.engine.planners import Plan, kernels, plan
from elot.engine.protocol import DesireSpace
from elot.errors import ArgumentError, ScenarioError

POLICIES = ("boltzmann", "optimal")
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
    values = _pairs(text, "--utilities", TRUCKS, UTILITY_HINT)
    missing = [t for t in TRUCKS if t not in values]
    if missing:
        raise ArgumentError(f"--utilities gives no utility for {', '.join(missing)}", hint=UTILITY_HINT)
    return np.array([values[t] for t in TRUCKS])


def parse_belief(text: str, world: int) -> np.ndarray:
    """The student's initial belief over spot 2's content (``float64[3]``: lebanese,
    mexican, none): ``uniform``, ``true`` (it knows ``world``) or weights summing to 1."""
    word = text.strip().lower()
    if word == "uniform":
        return np.full(3, 1.0 / 3.0)
    if word == "true":
        return np.eye(3)[world]
    values = _pairs(text, "--belief", tuple(BELIEF_NAMES), BELIEF_HINT)
    belief = np.zeros(3)
    for name, value in values.items():
        if value < 0:
            raise ArgumentError(f"--belief: {name}={value:g} is negative", hint=BELIEF_HINT)
        if belief[BELIEF_NAMES[name]]:
            raise ArgumentError(f"--belief gives spot 2 being empty twice ({name})", hint=BELIEF_HINT)
        belief[BELIEF_NAMES[name]] = value
    if abs(belief.sum() - 1.0) > 1e-6:
        raise ArgumentError(f"--belief sums to {belief.sum():g}, not 1", hint=BELIEF_HINT)
    return belief / belief.sum()


def _pairs(text: str, option: str, names: tuple[str, ...], hint: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",")):
        found = re.fullmatch(r"([A-Za-z]+)\s*[=:]\s*(\S+)", part)
        if not found:
            raise ArgumentError(f"{option}: {part!r} is not NAME=NUMBER", hint=hint)
        name, number = found.group(1).lower(), found.group(2)
        if name not in names:
            raise ArgumentError(f"{option}: unknown name {found.group(1)!r}",
                                hint=f"the names are {', '.join(names)}; {hint}")
        if name in out:
            raise ArgumentError(f"{option} gives {name} twice", hint=hint)
        try:
            value = float(number)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise ArgumentError(f"{option}: {name}={number} is not a finite number", hint=hint)
        out[name] = value
    return out


@dataclass(frozen=True)
class Simulated:
    """A simulated scenario and what the student thought at each step (``beliefs[t]``:
    its belief over lebanese, mexican, none in the cell of step t)."""

    scenario: FoodTruckScenario
    beliefs: tuple[tuple[float, ...], ...]
    gave_up: bool


class Student:
    """The model's student for one map and one utility vector."""

    def __init__(self, map_number: int, utilities, config: EngineConfig | None = None):
        domain = FoodTrucks()
        self.config = (config or EngineConfig()).resolved(domain.default_planner)
        self.tables = domain.tables(map_number)
        utilities = np.asarray(utilities, dtype=np.float64).reshape(1, len(TRUCKS))
        self.plan: Plan = plan(self.tables, DesireSpace(TRUCKS, utilities, np.ones(1)), self.config)

    def q(self, belief: np.ndarray, state: int) -> np.ndarray:
        """The student's Q over the actions at ``belief`` in ``state``."""
        corners, weights = self.plan.corners(belief[None, :], np.array([state]))
        n_a = self.plan.n_actions
        mixed = np.zeros(n_a)
        for corner, weight in zip(corners[0], weights[0]):
            if corner >= 0:
                mixed += weight * self.plan.q[corner * n_a:(corner + 1) * n_a, 0]
        return mixed

    def policy(self, belief: np.ndarray, state: int) -> np.ndarray:
        """The softmax policy at beta, by the kernel the inversion uses."""
        corners, weights = self.plan.corners(belief[None, :], np.array([state]))
        pi = kernels(self.config.backend).mixed_policies(self.plan.q, corners, weights, self.plan.n_actions,
                                                         self.config.beta)
        return np.asarray(pi).reshape(self.plan.n_actions)

    def perceive(self, belief: np.ndarray, state: int, world: int, rng: np.random.Generator,
                 reach: np.ndarray | None = None) -> np.ndarray:
        """The belief after entering ``state`` and drawing a percept in the true ``world``."""
        obs = np.asarray(self.tables.observations, dtype=np.float64)
        seen = obs[world, state]
        percept = int(rng.choice(len(seen), p=seen / seen.sum()))
        likely = obs[:, state, percept] * (1.0 if reach is None else reach)
        joint = belief * likely
        if joint.sum() <= 0:    # it was sure of what it now sees is false: it believes its eyes
            joint = likely
        return normalise(quantise(normalise(joint[None, :]), self.config.belief_quantum))[0]


def simulate(scenario: FoodTruckScenario, utilities, belief, *, config: EngineConfig | None = None,
             policy: str = "boltzmann", seed: int | None = 0, max_steps: int = DEFAULT_MAX_STEPS,
             student: Student | None = None) -> Simulated:
    """The scenario with its moves completed by the student (its own moves replayed
    first). ``belief`` is over spot 2's content (lebanese, mexican, none)."""
    if policy not in POLICIES:
        raise ArgumentError(f"unknown policy {policy!r}", hint=f"use one of: {', '.join(POLICIES)}")
    belief = np.asarray(belief, dtype=np.float64)
    if belief.shape != (3,) or (belief < 0).any() or abs(belief.sum() - 1) > 1e-6:
        raise ArgumentError("the belief must be three probabilities summing to 1", hint=BELIEF_HINT)
    rng = np.random.default_rng(seed)
    student = student or Student(scenario.map, utilities, config)
    trans = np.asarray(student.tables.transitions)
    world = scenario.world
    states = list(scenario.states)
    belief = student.perceive(belief, states[0], world, rng)
    beliefs = [tuple(belief)]
    for here, there in zip(states, states[1:]):        # the moves given: perceived along the way
        if there == FINISHED:
            break
        reach = (trans[:, here, :] == there).any(axis=1).astype(np.float64)
        belief = student.perceive(belief, there, world, rng, reach)
        beliefs.append(tuple(belief))
    cells = list(scenario.cells)
    finished = scenario.finished
    taken = 0
    while not finished and taken < max_steps:
        state = cell_index(*cells[-1])
        if policy == "boltzmann":
            action = int(rng.choice(len(ACTIONS), p=student.policy(belief, state)))
        else:
            q = student.q(belief, state)
            best = np.flatnonzero(q >= q.max() - 1e-9 * max(1.0, abs(q.max())))
            action = int(rng.choice(best))
        taken += 1
        there = int(trans[world, state, action])
        if there == FINISHED:
            finished = True
            break
        reach = (trans[:, state, action] == there).astype(np.float64)
        belief = student.perceive(belief, there, world, rng, reach)
        cells.append(cell_of(there))
        beliefs.append(tuple(belief))
    done = replace(scenario, cells=tuple(cells), finished=finished)
    return Simulated(done, tuple(beliefs), not finished)


def eaten(scenario: FoodTruckScenario) -> str | None:
    """The truck a finished scenario ends by eating at, else None."""
    if not scenario.finished:
        return None
    x, y = scenario.cells[-1]
    truck = 0 if (x, y) == (0, 0) else SPOT2_CONTENT[scenario.world]
    if truck is None:   # read_trucks refuses this; a scenario built by hand may not
        raise ScenarioError(f"scenario {scenario.name or scenario.id} ends by eating where there is no truck")
    return TRUCKS[truck]
