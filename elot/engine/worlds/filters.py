"""The filter protocol, one run of a filter over the observed actions, and the choice of
the inference method (``auto`` asks the one budget), for any world model.

:func:`infer` is what a domain's own ``infer`` calls once it has built its
:class:`~elot.engine.worlds.protocol.WorldModel` for a scenario and configuration: it chooses exact
enumeration or particles, runs the filter (:func:`run_filter`) and returns its result,
which keeps the configuration that ran and, under ``auto``, why (``note``).
"""

from __future__ import annotations

from typing import Any, Protocol

from elot.engine.budget import Limits, format_bytes, over
from elot.engine.worlds.exact import ExactFilter, revealing
from elot.engine.worlds.methods import FilterConfig, Progress
from elot.engine.worlds.particles import ParticleFilter
from elot.settings import DEFAULT_ESS_THRESHOLD, DEFAULT_MOVES
from elot.engine.worlds.spaces import SAMPLED_VARIANTS
from elot.engine.worlds.protocol import WorldModel


class Filter(Protocol):
    """The shape every inference method has (exact enumeration, particles): a filter that
    starts from the prior, takes the observed actions one at a time, and can say at any
    point what it believes. :func:`run_filter` drives one over a scenario's actions.

    * ``init()`` — weights of the prior at t = 0 (after the initial observation);
    * ``step(action)`` — condition on the next observed action and what is seen after it;
    * ``result()`` — everything kept so far, as an object scoring reads (an
      :class:`~elot.engine.worlds.exact.Inference` or a
      :class:`~elot.engine.worlds.particle_result.ParticleInference`: the posterior at every step,
      and :func:`elot.domains.rows.judged`, the hypotheses scoring reads).
    """

    world_model: WorldModel

    def init(self) -> None: ...

    def step(self, action: tuple[str, ...]) -> None: ...

    def result(self) -> Any: ...


def run_filter(filt: Filter, progress: Progress | None = None):
    """Run a :class:`Filter` over its world model's observed actions (checked against the
    real world first) and return its :meth:`Filter.result`; ``progress(t, T)`` is called
    after each step."""
    world = filt.world_model
    world.check_actions()   # an impossible action fails before any inference
    actions = tuple(tuple(a) for a in world.actions)
    filt.init()
    for t, action in enumerate(actions, 1):
        filt.step(action)
        if progress is not None:
            progress(t, len(actions))
    return filt.result()


def choose_method(world_model: WorldModel, config: FilterConfig) -> tuple[str, str]:
    """The method a run of ``config`` uses on ``world_model``, and why (``note``, under
    ``auto`` only): exact when the space fits ``max_hypotheses`` and its estimated
    inference fits ``max_bytes`` (what exact would refuse on), particles otherwise."""
    if config.method != "auto":
        return config.method, ""
    # What exact inference would allocate, as ExactFilter counts it (and refuses on).
    estimate = world_model.exact_estimate(steps=len(world_model.actions),
                                          belief_tables=1 + revealing(world_model, world_model.actions))
    found = over(estimate, Limits(max_size=config.max_hypotheses, max_bytes=config.max_bytes))
    always = config.variant not in SAMPLED_VARIANTS   # particles cannot run it
    fits = always or found is None
    method = "smc" if config.runs_particles(fits) else "exact"
    size = estimate.size
    if fits:
        note = f"auto: exact ({size:,} hypotheses fit the budget of {config.max_hypotheses:,})"
    elif found[0] == "size":
        note = f"auto: smc ({size:,} hypotheses are over the budget of {config.max_hypotheses:,})"
    else:
        note = (f"auto: smc ({size:,} hypotheses would need about {format_bytes(estimate.bytes)} for exact "
                f"inference, over the memory budget of {format_bytes(int(found[1]))})")
    return method, note


def infer(world_model: WorldModel, config: FilterConfig, progress: Progress | None = None):
    """Inference of goals, initial states and beliefs on ``world_model`` under ``config``:
    the method :func:`choose_method` picks, run by :func:`run_filter`; the result's
    ``note`` says why ``auto`` chose it."""
    method, note = choose_method(world_model, config)
    if method == "exact":
        filt = ExactFilter(world_model, config)
    else:
        filt = ParticleFilter(world_model, config,   # a world model's own config may leave the filter's knobs out
                              ess_threshold=getattr(config, "ess_threshold", DEFAULT_ESS_THRESHOLD),
                              moves=getattr(config, "moves", DEFAULT_MOVES))
    result = run_filter(filt, progress)
    result.note = note
    return result
