"""Particle inference (sequential Monte Carlo) over a Doors-Keys-Gems scenario (SPEC §8),
on the engine.

The filter is the engine's (:class:`elot.engine.particles.ParticleFilter`, described
there), written once for any world model; :class:`ParticleFilter` here builds it from a
scenario and an :class:`~elot.btom.config.InferenceConfig` on the scenario's
:class:`~elot.btom.model.GridWorldModel`, as before. What particle inference costs on a
map (:func:`check_particle_cost`, from :func:`elot.btom.costs.particle_estimate`) is
Doors-Keys-Gems'; the engine's names import from here as they always did.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from elot.btom.config import InferenceConfig, infer_config
from elot.btom.costs import MAX_SECONDS, PARTICLE_HINTS, particle_estimate
from elot.btom.filtering import WorldFilter
from elot.btom.hypotheses import Prior
from elot.btom.model import GridWorldModel
from elot.engine import particles as _particles
from elot.engine.budget import Limits, OverBudget, check
from elot.engine.methods import ParticleError
# The engine's names, where callers have always found them.
from elot.engine.particle_result import (DEGENERATE_RATIO, FEW_DISTINCT, FEW_ISLANDS, ParticleInference,  # noqa: F401
                                         Particles, dense_beliefs, effective_size)
from elot.engine.particles import (BELIEF_MOVE_SPACING, BELIEF_MOVES, DEFAULT_MOVES, ESS_THRESHOLD,  # noqa: F401
                                   GOAL_DRIFT, ISLANDS, LINEAGE_LAG, MIN_ISLAND, PRIOR_DRAWS, _classes, _kernels,
                                   _logsumexp, check_islands, sample_multisets)
from elot.engine.spaces import ParticleSpace  # noqa: F401


class ParticlesTooMany(OverBudget, ParticleError):
    """Particle inference refused before any work for its estimated memory or time."""


def particle_cost(n_states: int, n_goals: int, k: int, particles: int, prior_draws: int, steps: int,
                  actions: int = 6) -> tuple[int, float]:
    """(peak bytes, rough seconds) of :func:`elot.btom.costs.particle_estimate`."""
    estimate = particle_estimate(n_states, n_goals, k, particles, prior_draws, steps, actions)
    return estimate.bytes, estimate.seconds


def check_particle_cost(scenario, *, k: int, particles: int, prior_draws: int, prior: Prior = Prior(),
                        goals: int | None = None, max_bytes: int | None = None) -> None:
    """Refuse, before any work, particle inference whose memory
    (:func:`elot.btom.costs.particle_estimate`) would not fit ``max_bytes`` (default: half
    the memory available now) or that would run past :data:`~elot.btom.costs.MAX_SECONDS`,
    with the figures and what to change."""
    from elot.btom.agent import count_model_states

    n_states = count_model_states(scenario.initial, prior)
    n_goals = goals if goals is not None else len(scenario.layout.gems)
    estimate = particle_estimate(n_states, n_goals, k, particles, prior_draws, len(scenario.actions))
    if estimate.seconds > MAX_SECONDS:   # say why it grows
        grows = ": the belief moves grow as particles x k²"
        estimate = replace(estimate, detail=estimate.detail.split(";")[0] + grows)
    check(estimate, Limits(max_bytes=max_bytes, max_seconds=MAX_SECONDS), error=ParticlesTooMany, hint=PARTICLE_HINTS)


class ParticleFilter(WorldFilter, _particles.ParticleFilter):
    """The engine's particle filter (:class:`elot.engine.particles.ParticleFilter`) on a
    scenario's :class:`~elot.btom.model.GridWorldModel`, built from the scenario and an
    :class:`InferenceConfig` (or :func:`~elot.btom.inference.infer`'s keyword arguments);
    ``ess_threshold``, ``moves``, ``prior_draws``, ``goal_drift`` and ``islands`` as there."""

    def __init__(self, scenario, config: InferenceConfig | None = None, *, ess_threshold: float = ESS_THRESHOLD,
                 moves: int = DEFAULT_MOVES, prior_draws: int | None = None, goal_drift: float = GOAL_DRIFT,
                 islands: int | None = None, **settings: Any) -> None:
        config = infer_config(config, **settings)
        super().__init__(GridWorldModel(scenario, config), config, ess_threshold=ess_threshold, moves=moves,
                         prior_draws=prior_draws, goal_drift=goal_drift, islands=islands)
