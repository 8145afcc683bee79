"""What a run returns: the posterior over (initial belief, desire) for each path, with the
config that ran (the planner resolved) and how long each part took."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from elot.engine.config import EngineConfig
from elot.engine.protocol import BeliefSpace, DesireSpace


@dataclass(frozen=True, eq=False)
class PathResult:
    """One path's inversion: ``likelihood[b, u]`` = P(path | initial belief b, desire u).

    ``beliefs`` are the initial beliefs as reported (rounded, see
    :func:`elot.engine.inversion.stored_beliefs`); ``config`` is what ran.
    """

    domain: str
    layout: object
    world: int
    path: tuple[int, ...]
    config: EngineConfig
    likelihood: np.ndarray
    belief_space: BeliefSpace
    desire_space: DesireSpace
    beliefs: np.ndarray

    @property
    def possible(self) -> bool:
        """Whether any hypothesis gives the path a positive probability."""
        return bool(self.likelihood.max() > 0)

    def posterior(self) -> np.ndarray:
        """``float64[n_beliefs, n_desires]``: P(b0, u | path) (the priors are independent)."""
        joint = self.likelihood * self.belief_space.prior[:, None] * self.desire_space.prior[None, :]
        total = joint.sum()
        return joint / total if total > 0 else joint

    def belief_posterior(self) -> np.ndarray:
        return self.posterior().sum(axis=1)

    def desire_posterior(self) -> np.ndarray:
        return self.posterior().sum(axis=0)

    def mean_belief(self) -> np.ndarray:
        """The posterior mean of the agent's initial belief over the worlds."""
        return self.belief_posterior() @ self.beliefs

    def mean_utility(self, values: np.ndarray | None = None) -> np.ndarray:
        """The posterior mean of ``values`` (default: the utilities), one per object."""
        table = self.desire_space.utilities if values is None else values
        return self.desire_posterior() @ np.asarray(table, dtype=np.float64)

    def desires_at(self) -> tuple[tuple[str, ...], np.ndarray]:
        """``(objects, utilities)`` for the posterior rows (initial belief major, desire
        minor, as :meth:`posterior` flattens): what ``elot.judging.Desires`` holds."""
        n_b = len(self.belief_space.beliefs)
        return self.desire_space.objects, np.tile(self.desire_space.utilities, (n_b, 1))

    def describe(self) -> dict:
        """What ran, for ``--json`` and reports."""
        return {"domain": self.domain, "layout": self.layout, "world": self.world,
                "steps": len(self.path) - 1, "config": self.config.as_dict(),
                "initial_beliefs": len(self.belief_space.beliefs),
                "desires": len(self.desire_space.utilities), "possible": self.possible}


@dataclass
class Timings:
    """Seconds spent planning, building the inversions, and per beta evaluating them: wall
    clock, and the CPU time of this process (what one core spent, whatever else the
    machine is running)."""

    planning: float = 0.0
    building: float = 0.0
    evaluating: list[float] = field(default_factory=list)
    cpu_planning: float = 0.0
    cpu_building: float = 0.0
    cpu_evaluating: list[float] = field(default_factory=list)

    @property
    def total(self) -> float:
        return self.planning + self.building + sum(self.evaluating)

    @property
    def cpu_total(self) -> float:
        return self.cpu_planning + self.cpu_building + sum(self.cpu_evaluating)
