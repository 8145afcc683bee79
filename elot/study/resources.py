"""What a task costs before it runs: its peak memory (refused when a batch's concurrent
tasks would not fit) and its rough time (to schedule the largest first)."""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Sequence

from elot.errors import ElotError
from elot.study.params import StudyError
from elot.study.references import ScenarioRef
from elot.study.tasks import Task


@lru_cache(maxsize=1024)
def _scenario_counts(ref: ScenarioRef) -> tuple[int, int, int, int, int]:
    """``(goals, initial states, actions, belief tables, judgment points)`` of a scenario:
    what the size and cost of its tasks depend on (computed once per scenario)."""
    from elot.domains.doors_keys_gems.agent import count_model_states
    from elot.domains.doors_keys_gems.world import MOVES

    scenario = ref.load()
    n_states = count_model_states(scenario.initial)   # counted, not listed: b30 has 657,720
    tables = 1 + sum(1 for a in scenario.actions if a[0] not in MOVES)
    return (len(scenario.layout.gems), n_states, len(scenario.actions), tables,
            len(scenario.judgments) or 1)


def _exact(task: Task):
    """The :class:`~elot.engine.budget.Estimate` of a task's exact inference
    (:func:`elot.engine.worlds.spaces.exact_estimate`), and the limits its configuration sets."""
    from elot.engine.budget import Limits
    from elot.engine.worlds.spaces import exact_estimate

    n_goals, n_states, steps, tables, _ = _scenario_counts(task.scenario)
    config = task.config
    return (exact_estimate(task.model, n_goals, n_states, task.k, steps=steps, belief_tables=tables),
            Limits(max_size=config.max_hypotheses, max_bytes=config.max_bytes))


def _particle_bytes(task: Task, n_goals: int, n_states: int, steps: int) -> int:
    """Peak memory of a task's particle inference (:func:`elot.domains.doors_keys_gems.costs.particle_estimate`)."""
    from elot.domains.doors_keys_gems.costs import particle_estimate
    from elot.engine.worlds.particles import PRIOR_DRAWS

    particles = task.config.particles
    return particle_estimate(n_states, n_goals, task.k, particles, max(particles, PRIOR_DRAWS), steps).bytes


def estimate_task_bytes(task: Task) -> int:
    """Peak memory of one task: what its exact inference allocates
    (:func:`elot.domains.doors_keys_gems.costs.exact_estimate`), or its particles per step (particle
    inference), plus a fixed overhead. A space too large for exact enumeration is refused
    here, before any work starts (``auto`` runs particles on it instead), by the budget
    inference itself checks (:func:`elot.domains.doors_keys_gems.costs.check_exact`)."""
    from elot.domains.doors_keys_gems.costs import check_exact

    n_goals, n_states, steps, tables, _ = _scenario_counts(task.scenario)
    smc = _particle_bytes(task, n_goals, n_states, steps)
    if task.config.runs_particles(fits=True):   # particles whatever the space
        return smc
    estimate, limits = _exact(task)
    try:
        check_exact(estimate, limits)
    except ElotError:
        if task.config.runs_particles(fits=False):   # too large for exact: auto runs particles
            return smc
        raise
    return 64 * 2 ** 20 + estimate.bytes


def task_cost(task: Task) -> float:
    """Rough seconds of one task, to schedule the largest first: the weight updates
    (hypotheses x steps), stepping every initial state's world in Python (states x
    steps), scoring (items x thresholds x judgment points, each over every (state,
    belief) pair), and a fixed part. Only the order and the ratios matter. A domain's
    task (:mod:`elot.study.domain_tasks`) says its own."""
    if callable(getattr(task, "cost", None)):
        return task.cost()
    n_goals, n_states, steps, _, times = _scenario_counts(task.scenario)
    estimate, limits = _exact(task)
    hypotheses = estimate.size
    if task.config.runs_particles(fits=hypotheses <= limits.max_size):  # particles stand in for the hypotheses
        hypotheses = task.config.particles * n_goals
    pairs = hypotheses // max(n_goals, 1)
    scored = len(task.items) * len(task.thresholds) * times
    return 2e-8 * hypotheses * (steps + 1) + 4e-5 * n_states * steps + scored * (3e-4 + 2e-8 * pairs) + 5e-3


def available_memory() -> int | None:
    """The memory available now, counting ``ulimit -v`` (:func:`elot.engine.budget.memory_available`)."""
    from elot.engine.budget import memory_available

    return memory_available()


def check_resources(tasks: Sequence[Task], workers: int) -> None:
    """Refuse a batch whose concurrent tasks would not fit in memory, with the estimate."""
    from elot.domains.doors_keys_gems.costs import SpaceTooLarge

    seen: dict[tuple, int] = {}
    for task in tasks:
        if hasattr(task, "estimate_bytes"):    # a domain's task (the engine refuses its own budget)
            seen[("domain", task.index)] = task.estimate_bytes()
            continue
        key = (task.scenario, task.model, task.k, task.conventions)
        if key not in seen:
            try:
                seen[key] = estimate_task_bytes(task)
            except SpaceTooLarge as error:   # say which scenario, and what batch can do instead
                raise StudyError(f"{task.scenario.name} (model {task.model}, k = {task.k}): {error.size}",
                                 hint="run it with particle inference (--inference smc, or auto to choose per "
                                      "scenario), or use a smaller --k") from None
    check_fits_in_memory(seen.values(), workers, work="this batch", largest="the largest task",
                         hint="use fewer --jobs, a smaller --k, fewer --particles, or fewer scenarios at a time")


def check_fits_in_memory(sizes: Iterable[int], workers: int, *, work: str, largest: str, hint: str) -> None:
    """Refuse work whose ``workers`` largest parts (``sizes``, bytes) would take more than
    80% of the free memory at once: "WORK would need about X GiB at once (N worker(s),
    LARGEST about Y GiB), and Z GiB is free" with ``hint`` (batch tasks, stimulus segments)."""
    from elot.engine.budget import Estimate, Limits, over

    need = sorted(sizes, reverse=True)[:max(1, workers)]
    total, free = sum(need), available_memory()
    # the one budget decides, with the concurrent parts as one piece of work and 80% of
    # what is free now as its limit (the single tasks were each checked against theirs)
    if need and free is not None and over(Estimate(work, total), Limits(max_bytes=int(0.8 * free))):
        raise StudyError(f"{work} would need about {total / 2**30:.1f} GiB at once ({workers} worker(s), "
                         f"{largest} about {need[0] / 2**30:.1f} GiB), and {free / 2**30:.1f} GiB is free",
                         hint=hint)
