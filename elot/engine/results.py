"""What a run returns: the posterior over (initial belief, desire) for each path, with the
config that ran (the planner resolved) and how long each part took."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from elot.engine.config import EngineConfig
from elot.engine.protocol import BeliefSpace, DesireSpace


@dataclass(frozen=True, eq=False)
class PathResult:
    """One path's inversion: ``likelihood[w, b, u]`` = P(path | hidden world ``worlds[w]``,
    initial belief b, desire u). A path whose true world the observer knows has one world.

    ``beliefs`` are the initial beliefs as reported (rounded, see
    :func:`elot.engine.inversion.stored_beliefs`); ``config`` is what ran.
    """

    domain: str
    layout: object
    worlds: tuple[int, ...]
    world_prior: np.ndarray
    path: tuple[int, ...]
    config: EngineConfig
    likelihood: np.ndarray
    belief_space: BeliefSpace
    desire_space: DesireSpace
    beliefs: np.ndarray

    @property
    def world(self) -> int | None:
        """The true world, when the observer knew it."""
        return self.worlds[0] if len(self.worlds) == 1 else None

    @property
    def possible(self) -> bool:
        """Whether any hypothesis gives the path a positive probability."""
        return bool(self.likelihood.max() > 0)

    def prior(self) -> np.ndarray:
        """``float64[n_worlds, n_beliefs, n_desires]``: the independent priors' product."""
        return (self.world_prior[:, None, None] * self.belief_space.prior[None, :, None]
                * self.desire_space.prior[None, None, :])

    def posterior(self) -> np.ndarray:
        """``float64[n_worlds, n_beliefs, n_desires]``: P(world, b0, u | path)."""
        joint = self.likelihood * self.prior()
        total = joint.sum()
        return joint / total if total > 0 else joint

    def world_posterior(self) -> np.ndarray:
        return self.posterior().sum(axis=(1, 2))

    def belief_posterior(self) -> np.ndarray:
        return self.posterior().sum(axis=(0, 2))

    def desire_posterior(self) -> np.ndarray:
        return self.posterior().sum(axis=(0, 1))

    def mean_belief(self) -> np.ndarray:
        """The posterior mean of the agent's initial belief over the worlds."""
        return self.belief_posterior() @ self.beliefs

    def mean_utility(self, values: np.ndarray | None = None) -> np.ndarray:
        """The posterior mean of ``values`` (default: the utilities), one per object."""
        table = self.desire_space.utilities if values is None else values
        return self.desire_posterior() @ np.asarray(table, dtype=np.float64)

    def desires_at(self) -> tuple[tuple[str, ...], np.ndarray]:
        """``(objects, utilities)`` for the posterior rows (world, then initial belief, then
        desire, as ``posterior().reshape(-1)`` flattens): what ``elot.judging.Desires`` holds."""
        n_rows = len(self.worlds) * len(self.belief_space.beliefs)
        return self.desire_space.objects, np.tile(self.desire_space.utilities, (n_rows, 1))

    def describe(self) -> dict:
        """What ran, for ``--json`` and reports."""
        return {"domain": self.domain, "layout": self.layout, "worlds": list(self.worlds),
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
