"""What a run returns: the posterior over (hidden world, initial belief, desire) for each
path, with the config that ran (the planner and the method resolved) and how long each
part took. Exact inference returns a :class:`PathResult` (every hypothesis); particle
inference a :class:`SampledResult` (the hypotheses drawn). Both answer the same questions
(:class:`Posterior`): the marginals, the posterior means, and the rows a statement is
scored on (:meth:`Posterior.rows`; about the agent's belief at the path's end,
:meth:`Posterior.current_rows` over its possible states there, :meth:`Posterior.now`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from elot.engine.tables import current
from elot.engine.tables.config import EngineConfig
from elot.engine.tables.protocol import BeliefSpace, DesireSpace
from elot.engine.tables.smc import effective_size
from elot.numeric import dot_columns, fsum
from elot.settings import FEW_EFFECTIVE


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
    #: For rows about the agent's current belief: each row's entry of :meth:`Posterior.now`
    #: (its world, initial belief and state at the path's end); None for the other rows.
    entry: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class Posterior:
    """What both result types hold of one path (the domain, the layout, the hidden worlds
    considered and their prior, the path, the config that ran, the initial beliefs and the
    desires, why the method ran) and answer from their marginals (each defines
    ``world_posterior``, ``belief_posterior``, ``desire_posterior``, ``rows`` and
    ``possible``).

    ``beliefs`` are the initial beliefs as reported (rounded, see
    :func:`elot.engine.tables.inversion.stored_beliefs`); ``config`` is what ran."""

    domain: str
    layout: object
    worlds: tuple[int, ...]
    world_prior: np.ndarray
    path: tuple[int, ...]
    config: EngineConfig
    belief_space: BeliefSpace
    desire_space: DesireSpace
    beliefs: np.ndarray
    #: Why this method ran (``auto``'s choice; "" otherwise).
    note: str = field(default="", kw_only=True)
    #: The likelihoods are P(path | ...) times ``2 ** exponent``: 0 unless the path is so long
    #: that its probabilities fall towards the smallest double (thousands of steps), where
    #: the inversion keeps them on a scale of their own (the posterior is the same).
    exponent: int = field(default=0, kw_only=True)
    #: ``nodes(every_world)``: the :class:`~elot.engine.tables.current.Now` of the path's
    #: end (see :meth:`now`), made when first asked (under particles, over the pooled
    #: initial beliefs and the planned desires).
    nodes: Callable[[bool, tuple], current.Now] | None = field(default=None, repr=False, kw_only=True)
    _now_made: dict = field(default_factory=dict, repr=False, kw_only=True)

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

    def now(self, every_world: bool = False, models: tuple = ()) -> current.Now:
        """The agent's possible states at the path's end (:class:`~elot.engine.tables.current.Now`),
        in the hidden worlds considered, or with ``every_world`` in every world of the
        tables (where the likelihood is not asked, only the chance: what another agent
        modelling this one needs), with each entry's chance under ``models`` too (other
        observation tables of the agent's percepts, ``chance_by``). Made on first use."""
        slot = (every_world, tuple(id(m) for m in models))
        made = self._now_made.get(slot)
        if made is None:      # the models are kept with it, so their ids stay theirs
            made = self._now_made[slot] = (self.nodes(every_world, tuple(models)), tuple(models))
        return made[0]

    def belief_prior(self) -> np.ndarray:
        """``float64[n_worlds, n_beliefs]``: the prior over the initial beliefs in each hidden world."""
        return self.belief_space.prior_in(self.worlds)

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
    initial belief b, desire u), times ``2 ** exponent``. A path whose true world the observer
    knows has one world."""

    likelihood: np.ndarray

    @property
    def possible(self) -> bool:
        """Whether any hypothesis gives the path a positive probability."""
        return bool(self.likelihood.max() > 0)

    def prior(self) -> np.ndarray:
        """``float64[n_worlds, n_beliefs, n_desires]``: the priors' product (the initial
        belief's prior may depend on the world)."""
        return (self.world_prior[:, None, None] * self.belief_prior()[:, :, None]
                * self.desire_space.prior[None, None, :])

    def current_rows(self) -> Rows:
        """Every (state of the agent at the path's end, desire) of the hidden worlds: the rows
        a statement about its current belief is judged on (``entry`` into :meth:`now`), with
        their posterior weights and prior masses (:func:`~elot.engine.tables.current.exact_rows`)."""
        now = self.now()
        entry, desire, weights, prior = current.exact_rows(now, self.worlds, self.world_prior, self.belief_prior(),
                                                           np.asarray(self.desire_space.prior, dtype=np.float64))
        position = np.array([self.worlds.index(int(w)) for w in now.world[entry]], dtype=np.intp)
        return Rows(position, now.owner[entry], desire, weights, prior, entry=entry)

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
    """One path's inversion by particles (:mod:`elot.engine.tables.smc`): ``particles``
    (hidden world, initial belief) pairs that started as draws from the independent priors
    (:mod:`elot.engine.tables.sampling`) and were reweighted step by step, resampled and
    moved, the desire summed out exactly. Particle ``n`` is now hidden world
    ``worlds[world_of[n]]`` and initial belief ``belief_of[n]`` (an index into the belief
    space), with weight ``weight[n]`` (unnormalised); ``desire_of[n]`` is a desire drawn from
    its posterior given the rest (the rows statements are scored on), ``likelihood[n]`` =
    P(path | the three). The desire posterior is ``desire_mass`` over the planned desires
    ``pooled`` (indices into the desire space). Each figure is an estimate whose precision
    the effective sample size :attr:`ess` measures (the particles', with what the pool of
    hypotheses they move in leaves out: ``unpooled``, see
    :func:`elot.engine.tables.sampling.unpooled`).

    ``drawn`` holds the draws the particles started from (world position, belief, desire),
    from which the prior probability of a statement is estimated, and ``drawn_likelihood``
    the likelihood of the whole path under each (importance sampling's weights).
    ``steps_ess``, ``resampled``, ``drifted``, ``moved`` and ``restarted`` are the run's
    trace, one entry per step (0: the initial observation; see
    :class:`~elot.engine.tables.smc.Trace`). ``config`` is what ran (seed included)."""

    world_of: np.ndarray
    belief_of: np.ndarray
    desire_of: np.ndarray
    weight: np.ndarray
    likelihood: np.ndarray
    pooled: np.ndarray
    desire_mass: np.ndarray
    drawn: tuple[np.ndarray, np.ndarray, np.ndarray]
    drawn_likelihood: np.ndarray
    steps_ess: np.ndarray
    resampled: np.ndarray
    drifted: np.ndarray
    moved: np.ndarray
    restarted: np.ndarray
    unpooled: float

    estimated = True

    @property
    def particles(self) -> int:
        return len(self.weight)

    @property
    def planned(self) -> int:
        """How many distinct utility vectors were drawn, and planned."""
        return len(self.pooled)

    @property
    def possible(self) -> bool:
        """Whether any particle gives the path a positive probability."""
        return bool(self.weight.max() > 0)

    def weights(self) -> np.ndarray:
        """The particles' normalised weights (all 0 when none explains the path)."""
        total = fsum(self.weight)
        return self.weight / total if total > 0 else np.zeros_like(self.weight)

    @property
    def particles_ess(self) -> float:
        """Kish's effective sample size of the weights, ``(Σw)² / Σw²`` (0: none has weight;
        :func:`~elot.engine.tables.smc.effective_size`, what the run resamples by)."""
        return effective_size(self.weight)

    @property
    def ess(self) -> float:
        """The effective sample size of the estimates: ``1 / (1 / particles_ess + unpooled)``
        (the particles' precision, and the pool's; 0: no particle has weight)."""
        size = self.particles_ess
        return 1.0 / (1.0 / size + self.unpooled) if size > 0 else 0.0

    def world_posterior(self) -> np.ndarray:
        return np.bincount(self.world_of, self.weights(), minlength=len(self.worlds))

    def belief_posterior(self) -> np.ndarray:
        return np.bincount(self.belief_of, self.weights(), minlength=len(self.belief_space.beliefs))

    def desire_posterior(self) -> np.ndarray:
        out = np.zeros(len(self.desire_space.utilities))
        out[self.pooled] = self.desire_mass
        return out

    def mean_utility(self, values: np.ndarray | None = None) -> np.ndarray:
        """The posterior mean of ``values`` (default: the utilities), one per object (reads
        only the planned rows of ``values``: a large space is never made dense)."""
        table = np.asarray(self.desire_space.utilities if values is None else values, dtype=np.float64)
        return dot_columns(self.desire_mass, table[self.pooled])

    def rows(self) -> Rows:
        """One row per distinct hypothesis among the particles (each with the desire drawn
        for it) and the draws: its posterior weight is the particles' that hold it, its
        prior mass the number of draws of it (so the prior probability of a statement is
        the fraction of draws where it holds, never read from particles that were weighted
        and resampled)."""
        n_b, n_d = len(self.belief_space.beliefs), len(self.desire_space.utilities)
        world, belief, desire = (np.concatenate([mine, drawn]).astype(np.int64)
                                 for mine, drawn in zip((self.world_of, self.belief_of, self.desire_of), self.drawn))
        codes, row = np.unique((world * n_b + belief) * n_d + desire, return_inverse=True)
        row = row.reshape(-1)
        n = self.particles
        weights = np.bincount(row[:n], self.weights(), minlength=len(codes))
        prior = np.bincount(row[n:], minlength=len(codes)).astype(np.float64)
        ess = self.ess
        return Rows(codes // (n_b * n_d), codes // n_d % n_b, codes % n_d, weights, prior,
                    ess if ess > 0 else None, len(self.drawn[0]))

    def current_rows(self) -> Rows:
        """The rows of a statement about the agent's current belief: each particle spread
        over its states at the path's end (entries of :meth:`now`) by their posterior given
        its world, initial belief and drawn desire, and each draw over them by their chance
        (its prior mass), so no further randomness enters; one row per distinct (entry,
        desire), as :meth:`rows`."""
        now = self.now()
        column = np.searchsorted(self.pooled, self.desire_of)
        world = np.asarray(self.worlds, dtype=np.intp)
        mine, entry, share = current.through(now, world[self.world_of], self.belief_of, column)
        d_world, d_belief, d_desire = self.drawn
        drawn, d_entry, d_share = current.through(now, world[d_world], d_belief,
                                                  np.searchsorted(self.pooled, d_desire), by_chance=True)
        desire = np.concatenate([self.desire_of[mine], np.asarray(d_desire)[drawn]]).astype(np.int64)
        n_d = len(self.desire_space.utilities)
        codes, row = np.unique(np.concatenate([entry, d_entry]).astype(np.int64) * n_d + desire,
                               return_inverse=True)
        row = row.reshape(-1)
        weights = np.bincount(row[:len(entry)], self.weights()[mine] * share, minlength=len(codes))
        prior = np.bincount(row[len(entry):], d_share, minlength=len(codes))
        entries = codes // n_d
        position = np.array([self.worlds.index(int(w)) for w in now.world[entries]], dtype=np.intp)
        ess = self.ess
        return Rows(position, now.owner[entries], codes % n_d, weights, prior, ess if ess > 0 else None,
                    len(self.drawn[0]), entry=entries)
    @property
    def space_size(self) -> int:
        """Hypotheses (hidden world, initial belief, desire) the particles are drawn from."""
        return len(self.worlds) * len(self.belief_space.beliefs) * len(self.desire_space.utilities)

    def warnings(self) -> list[str]:
        """What makes the estimates doubtful, as the gridworld's filter says it: an
        effective sample size under :data:`~elot.settings.FEW_EFFECTIVE` in a space larger
        than the particles (one or two particles report "1.00 ± 0.00" however wrong), or
        no particle left with weight."""
        if not self.possible:
            return []       # an empty posterior is an error of its own (the path's step is named)
        ess = self.ess
        if ess < FEW_EFFECTIVE and self.space_size > self.particles:
            return [f"the estimates rest on an effective sample size of {ess:.1f} (under {FEW_EFFECTIVE}) over "
                    f"{self.space_size:,} hypotheses; their standard errors are then too small: give more "
                    "--particles"]
        return []

    def describe(self) -> dict:
        return {**super().describe(), "warnings": self.warnings(), "particles": self.particles, "ess": self.ess,
                "particles_ess": self.particles_ess, "planned_desires": self.planned,
                "resamplings": int(self.resampled.sum()), "drifts": int(self.drifted.sum()),
                "restarts": int(self.restarted.sum())}


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
