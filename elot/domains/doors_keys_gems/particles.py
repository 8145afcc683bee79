"""Particle inference (sequential Monte Carlo) over a Doors-Keys-Gems scenario (SPEC §8),
on the engine.

The filter is the engine's (:class:`elot.engine.worlds.particles.ParticleFilter`, described
there), written once for any world model; :class:`ParticleFilter` here builds it from a
scenario and an :class:`~elot.domains.doors_keys_gems.config.InferenceConfig` on the scenario's
:class:`~elot.domains.doors_keys_gems.model.GridWorldModel`. What particle inference costs on a
map (:func:`~elot.domains.doors_keys_gems.model.check_particle_cost`, from
:func:`elot.domains.doors_keys_gems.costs.particle_estimate`) is Doors-Keys-Gems'.
"""

from __future__ import annotations

from typing import Any

from elot.domains.doors_keys_gems.config import InferenceConfig, infer_config
from elot.domains.doors_keys_gems.filtering import WorldFilter
from elot.domains.doors_keys_gems.model import GridWorldModel
from elot.engine.worlds import particles as _particles
from elot.settings import DEFAULT_ESS_THRESHOLD, DEFAULT_MOVES
from elot.engine.worlds.particles import GOAL_DRIFT


class ParticleFilter(WorldFilter, _particles.ParticleFilter):
    """The engine's particle filter (:class:`elot.engine.worlds.particles.ParticleFilter`) on a
    scenario's :class:`~elot.domains.doors_keys_gems.model.GridWorldModel`, built from the scenario and an
    :class:`InferenceConfig` (or :func:`~elot.domains.doors_keys_gems.inference.infer`'s keyword arguments);
    ``ess_threshold``, ``moves``, ``prior_draws``, ``goal_drift`` and ``islands`` as there."""

    def __init__(self, scenario, config: InferenceConfig | None = None, *, ess_threshold: float = DEFAULT_ESS_THRESHOLD,
                 moves: int = DEFAULT_MOVES, prior_draws: int | None = None, goal_drift: float = GOAL_DRIFT,
                 islands: int | None = None, **settings: Any) -> None:
        config = infer_config(config, **settings)
        super().__init__(GridWorldModel(scenario, config), config, ess_threshold=ess_threshold, moves=moves,
                         prior_draws=prior_draws, goal_drift=goal_drift, islands=islands)
