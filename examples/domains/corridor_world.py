"""A world model for the engine's second protocol (docs/domains.md, "Domains too large to
tabulate"), written against the engine alone: what a domain whose worlds are too many to
list gives the engine's exact and particle filters.

A corridor of five cells, the agent at cell 2, two goals (``west`` at cell 0, ``east`` at
cell 4) and two hidden worlds, ``clear`` and ``walled`` (a wall before the east end makes
the way there ``DETOUR`` steps longer). The agent sees which world it is in once it stands
on cell 3 or beyond. ``Corridor(Config())`` is the scenario where the real world is
``clear`` and the agent goes right twice::

    from elot.engine.worlds.exact import ExactFilter
    from elot.engine.worlds.filters import run_filter
    result = run_filter(ExactFilter(Corridor(Config()), Config()))
    result.goal_posterior(2)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from btom_ext import backend
from elot.engine.worlds.spaces import HypothesisSpace, exact_estimate, initial_beliefs
from elot.errors import ScenarioError

CELLS, START, DETOUR = 5, 2, 6
GOALS = {"west": 0, "east": 4}
WORLDS = ("clear", "walled")
MOVES = {"left": -1, "right": 1}


@dataclass(frozen=True)
class Config:
    """What the engine's filters read of a configuration (a domain brings its own)."""

    variant: str = "full"
    beta: float = 1.5
    k: int = 2
    conventions: str = "elot"
    method: str = "exact"
    particles: int = 4000
    seed: int | None = 11
    backend: str = "core"
    max_hypotheses: int = 10_000
    max_bytes: int | None = None

    def ran(self, method: str, **resolved) -> "Config":
        return replace(self, method=method, **resolved)

    def runs_particles(self, fits: bool) -> bool:
        return self.method == "smc" or (self.method == "auto" and not fits)

    def described(self) -> dict:
        return {"method": self.method, "model": self.variant}


@dataclass(frozen=True)
class Cell:
    """A world: the agent's cell and the hidden world's name."""

    cell: int
    world: str

    def atoms(self) -> frozenset:
        return frozenset()


class Scenario:
    def signature(self):   # not read by these tests
        raise NotImplementedError


def cost(world: str, cell: int, goal: str) -> int:
    """Steps from ``cell`` to ``goal``'s cell in ``world``."""
    target = GOALS[goal]
    steps = abs(cell - target)
    return steps + DETOUR if goal == "east" and world == "walled" and cell < target else steps


def view(world: Cell) -> int:
    """What the agent sees: its cell, and the wall from cell 3 on."""
    return world.cell * 2 + (world.cell >= 3 and world.world == "walled")


class Corridor:
    """The corridor as a :class:`~elot.engine.worlds.protocol.WorldModel`."""

    goal_sort = "goal"

    def __init__(self, config: Config, actions=("right", "right"), real: str = "clear") -> None:
        self.config, self.scenario = config, Scenario()
        self.actions = tuple((a,) for a in actions)
        self.truth = real
        self.core = backend(config.backend)

    def hypotheses(self):
        return tuple(GOALS), tuple(Cell(START, w) for w in WORLDS), None

    def exact_space(self, *, steps, belief_tables, max_bytes):
        goals, states, _ = self.hypotheses()
        return HypothesisSpace(self.config.variant, goals, states,
                               initial_beliefs(self.config.variant, len(states), self.config.k), goal_sort="goal")

    def exact_estimate(self, *, steps, belief_tables):
        return exact_estimate(self.config.variant, len(GOALS), len(WORLDS), self.config.k, steps=steps,
                              belief_tables=belief_tables)

    def check_particle_cost(self, *, particles, prior_draws):
        pass

    def check_actions(self):
        cell = START
        for (action,) in self.actions:
            cell += MOVES[action]
            if not 0 <= cell < CELLS:
                raise ScenarioError(f"{action} leaves the corridor")

    def plan(self, goals, max_bytes=None):
        self.goal_columns = np.array([list(GOALS).index(g) for g in goals], dtype=np.intp)

    def start(self, states):
        self.worlds = tuple(states)
        self.real = [Cell(START, self.truth)]
        return self._labels()

    def _labels(self):
        return np.array([view(w) for w in (*self.worlds, self.real[-1])], dtype=np.int64)

    def offered(self):
        cell = self.real[-1].cell
        return tuple((a,) for a, d in MOVES.items() if 0 <= cell + d < CELLS)

    def options(self, action):
        options = self.offered()
        return options, options.index(action)

    def path_costs(self, states, options):
        return np.array([[cost(self.worlds[s].world, self.worlds[s].cell + MOVES[o[0]], g) for g in GOALS]
                         for s in states for o in options], dtype=np.int32)

    def advance(self, action):
        shift = MOVES[action[0]]
        self.worlds = tuple(Cell(w.cell + shift, w.world) for w in self.worlds)
        self.real.append(Cell(self.real[-1].cell + shift, self.truth))
        return self._labels()

    def open_goals(self, goals):
        return np.array([GOALS[g] != self.real[-1].cell for g in goals], dtype=np.uint8)

    def reveals(self, action):
        return True

    def hint(self, case, family=None):
        return "the corridor has no other worlds"
