"""What a task costs before it runs: its peak memory (refused when a batch's concurrent
tasks would not fit) and its rough time (to schedule the largest first)."""

from __future__ import annotations

from typing import Iterable, Sequence

from elot.errors import ElotError
from elot.study.params import StudyError
from elot.study.tasks import Task


def task_cost(task: Task) -> float:
    """Rough seconds of one task, to schedule the largest first (its domain's estimate:
    :meth:`elot.domains.front.Front.task_cost`). Only the order and the ratios matter."""
    return task.cost()


def available_memory() -> int | None:
    """The memory available now, counting ``ulimit -v`` (:func:`elot.engine.budget.memory_available`)."""
    from elot.engine.budget import memory_available

    return memory_available()


def check_resources(tasks: Sequence[Task], workers: int) -> None:
    """Refuse a batch whose concurrent tasks would not fit in memory, with the estimate (a
    task over its own budget is refused by its domain, naming the scenario)."""
    seen: dict[tuple, int] = {}
    for task in tasks:
        key = task.sizing_key()     # β changes no task's memory: one estimate for a β sweep
        if key not in seen:
            try:
                seen[key] = task.estimate_bytes()
            except ElotError as error:
                raise StudyError(error.message, hint=error.hint) from None
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
