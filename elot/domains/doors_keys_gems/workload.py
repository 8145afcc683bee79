"""What a study's task on Doors-Keys-Gems scenarios costs, counted before it starts: its
peak memory (a run over the budget refused here) and its rough time, from the counts its
inference depends on (:func:`scenario_counts`) and the cost models of
:mod:`elot.domains.doors_keys_gems.costs`."""

from __future__ import annotations

from elot.domains.doors_keys_gems.costs import SpaceTooLarge, check_exact, particle_estimate
from elot.domains.doors_keys_gems.hypotheses import count_model_states
from elot.domains.doors_keys_gems.world import MOVES
from elot.engine.budget import Limits
from elot.engine.worlds.particles import PRIOR_DRAWS
from elot.engine.worlds.spaces import exact_estimate


def scenario_counts(scenario) -> tuple[int, int, int, int, int]:
    """``(goals, initial states, actions, belief tables, judgment points)`` of a scenario:
    what the size and cost of its inference depend on."""
    n_states = count_model_states(scenario.initial)   # counted, not listed: b30 has 657,720
    tables = 1 + sum(1 for a in scenario.actions if a[0] not in MOVES)
    return (len(scenario.layout.gems), n_states, len(scenario.actions), tables, len(scenario.judgments) or 1)


def _exact(scenario, config):
    """The :class:`~elot.engine.budget.Estimate` of a scenario's exact inference
    (:func:`elot.engine.worlds.spaces.exact_estimate`), and the limits ``config`` sets."""
    n_goals, n_states, steps, tables, _ = scenario_counts(scenario)
    return (exact_estimate(config.variant, n_goals, n_states, config.k, steps=steps, belief_tables=tables),
            Limits(max_size=config.max_hypotheses, max_bytes=config.max_bytes))


def task_bytes(scenario, config) -> int:
    """Peak memory of a scenario's inference under ``config``: what exact inference
    allocates, or the particles per step, plus a fixed overhead. A space too large for
    exact enumeration is refused (:class:`SpaceTooLarge`), unless ``auto`` runs particles."""
    n_goals, n_states, steps, tables, _ = scenario_counts(scenario)
    particles = config.particles
    smc = particle_estimate(n_states, n_goals, config.k, particles, max(particles, PRIOR_DRAWS), steps).bytes
    if config.runs_particles(fits=True):   # particles whatever the space
        return smc
    estimate, limits = _exact(scenario, config)
    try:
        check_exact(estimate, limits)
    except SpaceTooLarge:
        if config.runs_particles(fits=False):   # too large for exact: auto runs particles
            return smc
        raise
    return 64 * 2 ** 20 + estimate.bytes


def task_cost(scenario, config, scored: int) -> float:
    """Rough seconds of one inference and its scores (``scored`` statements × thresholds at
    each judgment point): the weight updates (hypotheses x steps), stepping every initial
    state's world in Python (states x steps), scoring (each over every (state, belief)
    pair), and a fixed part. Only the order and the ratios matter."""
    n_goals, n_states, steps, _, times = scenario_counts(scenario)
    estimate, limits = _exact(scenario, config)
    hypotheses = estimate.size
    if config.runs_particles(fits=hypotheses <= limits.max_size):  # particles stand in for the hypotheses
        hypotheses = config.particles * n_goals
    pairs = hypotheses // max(n_goals, 1)
    return 2e-8 * hypotheses * (steps + 1) + 4e-5 * n_states * steps + scored * times * (3e-4 + 2e-8 * pairs) + 5e-3
