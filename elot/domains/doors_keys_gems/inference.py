"""Exact BToM inference over a Doors-Keys-Gems scenario (SPEC §5), on the engine.

The inference is the engine's, written once for any world model
(:mod:`elot.engine.worlds.exact`, :mod:`elot.engine.worlds.particles`, :mod:`elot.engine.worlds.filters`);
this module builds Doors-Keys-Gems' world model (:class:`~elot.domains.doors_keys_gems.model.GridWorldModel`)
for a scenario and an :class:`InferenceConfig` and hands it over: :func:`infer`, and
:class:`ExactFilter` built from a scenario.
"""

from __future__ import annotations

from typing import Any

from elot.domains.doors_keys_gems.config import InferenceConfig, infer_config
from elot.domains.doors_keys_gems.filtering import WorldFilter
from elot.domains.doors_keys_gems.model import GridWorldModel
from elot.domains.doors_keys_gems.world import MOVES
from elot.engine.worlds import exact as _exact, filters as _filters
from elot.engine.worlds.filters import Filter
from elot.engine.worlds.methods import Progress
from elot.errors import ArgumentError

__all__ = ["InferenceConfig", "ExactFilter", "infer", "infer_config", "revealing_actions", "run_filter"]


class ExactFilter(WorldFilter, _exact.ExactFilter):
    """The engine's exact filter (:class:`elot.engine.worlds.exact.ExactFilter`) on a scenario's
    :class:`~elot.domains.doors_keys_gems.model.GridWorldModel`, built from the scenario and an
    :class:`InferenceConfig` (or :func:`infer`'s keyword arguments, which build one)."""

    def __init__(self, scenario, config: InferenceConfig | None = None, **settings: Any) -> None:
        config = infer_config(config, **settings)
        super().__init__(GridWorldModel(scenario, config), config)


def revealing_actions(actions) -> int:
    """How many actions can reveal something (all but moves): beliefs are filtered again
    only after those."""
    return sum(1 for a in actions if tuple(a)[0] not in MOVES)


def infer(scenario, config: InferenceConfig | None = None, *, progress: Progress | None = None, **settings: Any):
    """Inference of goals, initial states and beliefs from a scenario's actions.

    ``scenario`` is an :class:`elot.domains.doors_keys_gems.scenario.Scenario`: its ``layout``, ``initial`` (the
    true initial :class:`WorldState`), ``actions`` and ``signature()`` are used. ``config``
    (:class:`InferenceConfig`) says how to infer; the same settings may be given as keyword
    arguments instead (``model=``, ``beta=``, ``k=``, ``prior=``, ``goals=``, ``backend=``,
    ``conventions=``, ``max_hypotheses=``, ``max_bytes=``, ``inference=``, ``particles=``,
    ``seed=``; None leaves a default), or on top of a config to change it.
    ``progress(t, T)`` is called after each step. Unknown names raise
    :class:`~elot.settings.VariantError` / :class:`~elot.settings.ConventionsError`
    / :class:`~elot.engine.settings.InferenceMethodError`.

    ``method="exact"`` enumerates every hypothesis (:class:`ExactFilter`; a space of more
    than ``max_hypotheses`` hypotheses, or whose inference would allocate more than
    ``max_bytes`` (default: half the available memory), is refused with its estimated
    size) and returns an
    :class:`Inference`; ``"smc"`` runs ``particles`` particles seeded with ``seed``
    (:class:`elot.engine.worlds.particles.ParticleFilter`) and returns a
    :class:`~elot.engine.worlds.particle_result.ParticleInference`, which scoring reads the same way;
    ``"auto"`` is exact when the space fits ``max_hypotheses`` and its estimated inference
    fits ``max_bytes`` (what exact would refuse on), and particles otherwise (the result's
    ``note`` says which and why; :func:`elot.engine.worlds.filters.choose_method`).
    """
    config = infer_config(config, **settings)
    if not all(hasattr(scenario, name) for name in ("layout", "initial", "actions")):
        raise ArgumentError(f"scenario must be a Scenario (with a layout, initial state and actions), not "
                            f"{type(scenario).__name__}", hint="load one with elot.load_scenario(NAME or PATH)")
    return _filters.infer(GridWorldModel(scenario, config), config, progress)


def run_filter(filt: Filter, scenario=None, progress: Progress | None = None):
    """Run a :class:`Filter` over its scenario's actions (checked against the map first)
    and return its :meth:`Filter.result` (:func:`elot.engine.worlds.filters.run_filter`; the
    scenario is the filter's own, ``scenario`` is kept for the callers that pass it)."""
    return _filters.run_filter(filt, progress)
