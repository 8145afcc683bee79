"""What a run returns: the posterior over (hidden world, initial belief, desire) for each
path, with the config that ran (the planner and the method resolved) and how long each
part took. Exact inference returns a :class:`PathResult` (every hypothesis); particle
inference a :class:`SampledResult` (the hypotheses drawn). Both answer the same questions
(:class:`Posterior`): the marginals, the posterior means, and the rows a statement is
scored on (:meth:`Posterior.rows`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from elot.engine.tables.config import EngineConfig
from elot.engine.tables.protocol import BeliefSpace, DesireSpace


@dataclass(frozen=True)
class Rows:
    """A result's hypotheses as rows, what a source of ELoT hypotheses hands to scoring:
    each row's hidden world (a position in the result's ``worlds``), initial belief and
    desire (indices into the belief and desire spaces), its posterior weight and its prior
    mass. ``ess`` and ``draws`` (the effective sample size, and how many prior draws the
    prior masses come from) are None for exact rows, whose figures are not estimates."""

    world: np.ndarray
    belief: np.ndarray
    desire: np.ndarray
    weights: np.ndarray
    prior: np.ndarray
    ess: float | None = None
    draws: int | None = None


@dataclass(frozen=True, eq=False)
class Posterior:
    """What both result types hold of one path (the domain, the layout, the hidden worlds
    considered and their prior, the path, the config that ran) and answer from their
    marginals (each defines ``world_posterior``, ``belief_posterior``,
    ``desire_posterior``, ``rows``, ``possible`` and the fields ``beliefs``,
    ``belief_space``, ``desire_space`` and ``note``)."""

    domain: str
    layout: object
    worlds: tuple[int, ...]
    world_prior: np.ndarray
    path: tuple[int, ...]
    config: EngineConfig

    #: Whether the figures are estimates (particles), which carry standard errors.
    estimated = False

    @property
    def world(self) -> int | None:
        """The true world, when the observer knew it."""
        return self.worlds[0] if len(self.worlds) == 1 else None

    def mean_belief(self) -> np.ndarray:
        """The posterior mean of the agent's initial belief over the worlds."""
        return self.belief_posterior() @ self.beliefs

    def mean_utility(self, values: np.ndarray | None = None) -> np.ndarray:
        """The posterior mean of ``values`` (default: the utilities), one per object."""
        table = self.desire_space.utilities if values is None else values
        return self.desire_posterior() @ np.asarray(table, dtype=np.float64)

    def describe(self) -> dict:
        """What ran, for ``--json`` and reports."""
        return {"domain": self.domain, "layout": self.layout, "worlds": list(self.worlds),
                "steps": len(self.path) - 1, "config": self.config.as_dict(),
                "initial_beliefs": len(self.belief_space.beliefs),
                "desires": len(self.desire_space.utilities), "possible": self.possible,
                "note": self.note}


@dataclass(frozen=True, eq=False)
class PathResult(Posterior):
    """One path's exact inversion: ``likelihood[w, b, u]`` = P(path | hidden world ``worlds[w]``,
    initial belief b, desire u). A path whose true world the observer knows has one world.

    ``beliefs`` are the initial beliefs as reported (rounded, see
    :func:`elot.engine.tables.inversion.stored_beliefs`); ``config`` is what ran.
    """

    likelihood: np.ndarray
    belief_space: BeliefSpace
    desire_space: DesireSpace
    beliefs: np.ndarray
    #: Why this method ran (``auto``'s choice; "" otherwise).
    note: str = ""

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

    def desires_at(self) -> tuple[tuple[str, ...], np.ndarray]:
        """``(objects, utilities)`` for the posterior rows (world, then initial belief, then
        desire, as ``posterior().reshape(-1)`` flattens): what ``elot.judging.Desires`` holds."""
        n_rows = len(self.worlds) * len(self.belief_space.beliefs)
        return self.desire_space.objects, np.tile(self.desire_space.utilities, (n_rows, 1))

    def rows(self) -> Rows:
        """Every (world, initial belief, desire), in the order ``posterior().reshape(-1)``
        flattens them."""
        n_w, n_b, n_u = self.likelihood.shape
        return Rows(np.repeat(np.arange(n_w), n_b * n_u), np.tile(np.repeat(np.arange(n_b), n_u), n_w),
                    np.tile(np.arange(n_u), n_w * n_b), self.posterior().reshape(-1), self.prior().reshape(-1))


@dataclass(frozen=True, eq=False)
class SampledResult(Posterior):
    """One path's inversion by importance sampling from the prior: ``particles``
    hypotheses drawn from the independent priors (:mod:`elot.engine.tables.sampling`), particle
    ``n`` being hidden world ``worlds[world_of[n]]``, initial belief ``belief_of[n]`` and
    desire ``desire_of[n]`` (indices into the full spaces), weighted by
    ``likelihood[n]`` = P(path | its hypothesis). The posterior of any quantity is the
    weighted mean over the particles (self-normalised), an estimate whose precision the
    effective sample size :attr:`ess` measures. ``config`` is what ran (seed included)."""

    world_of: np.ndarray
    belief_of: np.ndarray
    desire_of: np.ndarray
    likelihood: np.ndarray
    belief_space: BeliefSpace
    desire_space: DesireSpace
    beliefs: np.ndarray
    planned: int
    note: str = ""

    estimated = True

    @property
    def particles(self) -> int:
        return len(self.likelihood)

    @property
    def possible(self) -> bool:
        """Whether any particle gives the path a positive probability."""
        return bool(self.likelihood.max() > 0)

    def weights(self) -> np.ndarray:
        """The particles' normalised weights (all 0 when none explains the path)."""
        total = self.likelihood.sum()
        return self.likelihood / total if total > 0 else np.zeros_like(self.likelihood)

    @property
    def ess(self) -> float:
        """Kish's effective sample size of the weights, ``(Σw)² / Σw²`` (0: none has weight)."""
        squares = float(np.square(self.likelihood).sum())
        return float(self.likelihood.sum()) ** 2 / squares if squares > 0 else 0.0

    def world_posterior(self) -> np.ndarray:
        return np.bincount(self.world_of, self.weights(), minlength=len(self.worlds))

    def belief_posterior(self) -> np.ndarray:
        return np.bincount(self.belief_of, self.weights(), minlength=len(self.belief_space.beliefs))

    def desire_posterior(self) -> np.ndarray:
        return np.bincount(self.desire_of, self.weights(), minlength=len(self.desire_space.utilities))

    def mean_utility(self, values: np.ndarray | None = None) -> np.ndarray:
        """The weighted mean of ``values`` (default: the utilities) over the particles (reads
        only the drawn rows of ``values``: a large space is never made dense)."""
        table = np.asarray(self.desire_space.utilities if values is None else values, dtype=np.float64)
        return self.weights() @ table[self.desire_of]

    def rows(self) -> Rows:
        """One row per particle, each one prior draw (prior mass 1: the prior probability of
        a statement is the fraction of draws where it holds)."""
        ess = self.ess
        return Rows(self.world_of, self.belief_of, self.desire_of, self.weights(), np.ones(self.particles),
                    ess if ess > 0 else None, self.particles)

    def describe(self) -> dict:
        return {**super().describe(), "particles": self.particles, "ess": self.ess,
                "planned_desires": self.planned}


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
