"""What a task costs before it runs: its peak memory (refused when a batch's concurrent
tasks would not fit) and its rough time (to schedule the largest first)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Iterable, Sequence

from elot.errors import ElotError
from elot.settings import VARIANTS
from elot.study.params import StudyError
from elot.study.references import ScenarioRef
from elot.study.tasks import Task


@lru_cache(maxsize=1024)
def _scenario_counts(ref: ScenarioRef) -> tuple[int, int, int, int, int]:
    """``(goals, initial states, actions, belief tables, judgment points)`` of a scenario:
    what the size and cost of its tasks depend on (computed once per scenario)."""
    from elot.btom.agent import count_model_states
    from elot.btom.world import MOVES

    scenario = ref.load()
    n_states = count_model_states(scenario.initial)   # counted, not listed: b30 has 657,720
    tables = 1 + sum(1 for a in scenario.actions if a[0] not in MOVES)
    return (len(scenario.layout.gems), n_states, len(scenario.actions), tables,
            len(scenario.judgments) or 1)


def _space(task: Task) -> tuple[int, int]:
    """Hypotheses and peak bytes of a task's inference (:func:`elot.btom.hypotheses.space_size`)."""
    from elot.btom.hypotheses import space_size

    n_goals, n_states, steps, tables, _ = _scenario_counts(task.scenario)
    model = task.model if task.model in VARIANTS else "true-belief"
    return space_size(model, n_goals, n_states, task.k, steps=steps, belief_tables=tables)


def _particles(task: Task) -> int:
    return task.config.particles


def _particle_bytes(task: Task, n_goals: int, n_states: int, steps: int) -> int:
    """Peak memory of a task's particle inference (:func:`elot.btom.particles.particle_cost`)."""
    from elot.btom.particles import PRIOR_DRAWS, particle_cost

    particles = _particles(task)
    return particle_cost(n_states, n_goals, task.k, particles, max(particles, PRIOR_DRAWS), steps)[0]


def estimate_task_bytes(task: Task) -> int:
    """Peak memory of one task: what its exact inference allocates, counted as
    :func:`elot.btom.hypotheses.space_size` does, or its particles per step (particle
    inference), plus a fixed overhead. A space too large for exact enumeration is refused
    here, before any work starts (``auto`` runs particles on it instead)."""
    from elot.btom.hypotheses import MAX_HYPOTHESES, check_size

    n_goals, n_states, steps, tables, _ = _scenario_counts(task.scenario)
    smc = _particle_bytes(task, n_goals, n_states, steps)
    if task.config.runs_particles(fits=True):   # particles whatever the space
        return smc
    model = task.model if task.model in VARIANTS else "true-belief"
    try:
        check_size(model, n_goals, n_states, task.k, MAX_HYPOTHESES, steps=steps, belief_tables=tables)
    except ElotError:
        if task.config.runs_particles(fits=False):   # too large for exact: auto runs particles
            return smc
        raise
    return 64 * 2 ** 20 + _space(task)[1]


def task_cost(task: Task) -> float:
    """Rough seconds of one task, to schedule the largest first: the weight updates
    (hypotheses x steps), stepping every initial state's world in Python (states x
    steps), scoring (items x thresholds x judgment points, each over every (state,
    belief) pair), and a fixed part. Only the order and the ratios matter. A domain's
    task (:mod:`elot.study.domain_tasks`) says its own."""
    if callable(getattr(task, "cost", None)):
        return task.cost()
    n_goals, n_states, steps, _, times = _scenario_counts(task.scenario)
    hypotheses = _space(task)[0]
    from elot.btom.hypotheses import MAX_HYPOTHESES

    if task.config.runs_particles(fits=hypotheses <= MAX_HYPOTHESES):  # particles stand in for the hypotheses
        hypotheses = _particles(task) * n_goals
    pairs = hypotheses // max(n_goals, 1)
    scored = len(task.items) * len(task.thresholds) * times
    return 2e-8 * hypotheses * (steps + 1) + 4e-5 * n_states * steps + scored * (3e-4 + 2e-8 * pairs) + 5e-3


def available_memory() -> int | None:
    """The memory available now, counting ``ulimit -v`` (:func:`elot.btom.hypotheses.memory_available`)."""
    from elot.btom.hypotheses import memory_available

    return memory_available()


def check_resources(tasks: Sequence[Task], workers: int) -> None:
    """Refuse a batch whose concurrent tasks would not fit in memory, with the estimate."""
    from elot.btom.hypotheses import SpaceTooLarge

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
    need = sorted(sizes, reverse=True)[:max(1, workers)]
    total, free = sum(need), available_memory()
    if need and free is not None and total > 0.8 * free:
        raise StudyError(f"{work} would need about {total / 2**30:.1f} GiB at once ({workers} worker(s), "
                         f"{largest} about {need[0] / 2**30:.1f} GiB), and {free / 2**30:.1f} GiB is free",
                         hint=hint)
