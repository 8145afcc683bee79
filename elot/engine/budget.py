"""One budget: whether a piece of work fits the machine, answered the same way for every caller.

A cost model counts a piece of work before it starts, as an :class:`Estimate`: its size
(hypotheses, particles, states), its peak memory (rows × bytes per row, plus what is
held whatever the size: :func:`footprint`) and its rough time (steps × seconds per
step). :func:`check` compares an estimate with :class:`Limits` (a size, bytes: by
default half the memory available now, which :func:`memory_budget` probes here, and
seconds) and refuses the work with one :class:`OverBudget` error that says the estimate,
the limit it is over and what to do. :func:`over` answers the same question without
raising, for a caller that chooses something else instead (``--inference auto``).

Nothing here knows a world: the engine's planning estimate (:func:`planning`) is
below; each domain writes its own cost models against this module (the gridworld's
``costs`` module, say). It is the one budget of elot.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from math import comb
from typing import Iterable, Mapping

from elot.errors import ElotError


# -- the machine's memory ------------------------------------------------------------------


def memory_budget() -> int:
    """The default memory limit of any work: half the memory available now
    (:func:`memory_available`), or 8 GiB where it cannot be read."""
    free = memory_available()
    return free // 2 if free is not None else 8 * 2**30


def memory_available() -> int | None:
    """The memory available now: ``MemAvailable``, or what the process's address-space
    limit (``ulimit -v``) still leaves if that is less; None where neither can be read."""
    free = [n for n in (_meminfo_available(), _address_space_left()) if n is not None]
    return min(free) if free else None


def _meminfo_available() -> int | None:
    # One read of the whole file (it is a few KiB): inference asks before every run.
    try:
        fd = os.open("/proc/meminfo", os.O_RDONLY)
        try:
            data = os.read(fd, 1 << 16)
        finally:
            os.close(fd)
        start = data.index(b"MemAvailable:") + len(b"MemAvailable:")
        return int(data[start:data.index(b"\n", start)].split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        return None


def _address_space_left() -> int | None:
    """What ``RLIMIT_AS`` leaves beyond the address space in use (None: no limit)."""
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        if limit == resource.RLIM_INFINITY:
            return None
        with open("/proc/self/status", encoding="ascii") as handle:
            used = next(int(line.split()[1]) * 1024 for line in handle if line.startswith("VmSize:"))
        return max(limit - used, 0)
    except (ImportError, OSError, ValueError, StopIteration):
        return None


# -- figures for messages ------------------------------------------------------------------


def format_bytes(n: int) -> str:
    """A byte count for messages: ``3.1 GiB``, ``53.9 KiB``."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20)):
        if n >= size / 8:
            return f"{n / size:.1f} {unit}"
    return f"{n / 2**10:.1f} KiB"


def format_seconds(seconds: float) -> str:
    """A duration for messages: ``2.5 hours``, ``12 minutes``, ``40 seconds``."""
    if seconds >= 3600:
        return f"{seconds / 3600:,.1f} hours"
    if seconds >= 60:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds:.0f} seconds"


# -- estimates, limits, the check ----------------------------------------------------------


def footprint(rows: Iterable[tuple[int, int]], fixed: int = 0) -> int:
    """Peak bytes of work that holds ``fixed`` bytes whatever its size and, for each
    ``(count, bytes_each)`` of ``rows``, ``count`` rows of ``bytes_each`` bytes."""
    return fixed + sum(count * each for count, each in rows)


@dataclass(frozen=True)
class Estimate:
    """A piece of work counted before it starts.

    ``work`` names it as the subject of a sentence ("particle inference"); ``bytes`` is
    its peak memory, ``seconds`` its rough time, ``size`` how many ``unit`` it holds (the
    hypotheses of a space); ``detail`` says what was counted, in words, for the message.
    """

    work: str
    bytes: int
    seconds: float = 0.0
    size: int = 0
    unit: str = "rows"
    detail: str = ""


@dataclass(frozen=True)
class Limits:
    """What a piece of work may take: ``max_size`` of its unit, ``max_bytes`` of memory
    (None: :func:`memory_budget`, read when checked), ``max_seconds``; None for size and
    seconds is no limit."""

    max_size: int | None = None
    max_bytes: int | None = None
    max_seconds: float | None = None

    def budget(self) -> int:
        """The memory limit: ``max_bytes``, or half the memory available now."""
        return memory_budget() if self.max_bytes is None else self.max_bytes


class OverBudget(ElotError):
    """Work refused before it starts: its ``estimate`` is over ``limit`` (``"size"``,
    ``"bytes"`` or ``"seconds"``), whose value was ``allowed``. ``size`` is the message
    without the advice (what a caller with another way out says instead)."""

    estimate: Estimate | None = None
    limit: str = ""
    allowed: float = 0
    size: str = ""


def over(estimate: Estimate, limits: Limits) -> tuple[str, float] | None:
    """The first limit the estimate is over, as ``(which, allowed)`` (size, then memory,
    then time), or None when it fits."""
    if limits.max_size is not None and estimate.size > limits.max_size:
        return "size", limits.max_size
    budget = limits.budget()
    if estimate.bytes > budget:
        return "bytes", budget
    if limits.max_seconds is not None and estimate.seconds > limits.max_seconds:
        return "seconds", limits.max_seconds
    return None


def refusal(estimate: Estimate, which: str, allowed: float) -> str:
    """What :func:`check` says of an estimate over the limit ``which`` (without advice)."""
    detail = estimate.detail
    if which == "size":
        return (f"{estimate.work} is too large: {detail}, about {format_bytes(estimate.bytes)} to run "
                f"(the limit is {int(allowed):,} {estimate.unit})")
    if which == "bytes":
        return (f"{estimate.work} would need about {format_bytes(estimate.bytes)}"
                + (f" ({detail})" if detail else "") + f", and the memory budget is {format_bytes(int(allowed))}")
    return (f"{estimate.work} would run about {format_seconds(estimate.seconds)}" + (f" ({detail})" if detail else "")
            + f", past the limit of {format_seconds(allowed)}")


def check(estimate: Estimate, limits: Limits, *, error: type[OverBudget] = OverBudget, advice: str = "",
          hint: str | Mapping[str, str] | None = None) -> Estimate:
    """Refuse work whose ``estimate`` is over ``limits``, before it starts: raise ``error``
    (an :class:`OverBudget`) saying the estimate, the limit, and ``advice`` after a colon;
    ``hint`` is what to do (one per limit when a mapping: ``{"bytes": ..., "seconds": ...}``).
    Returns the estimate when it fits."""
    found = over(estimate, limits)
    if found is None:
        return estimate
    which, allowed = found
    size = refusal(estimate, which, allowed)
    chosen = hint.get(which) if isinstance(hint, Mapping) else hint
    refused = error(f"{size}: {advice}" if advice else size, hint=chosen)
    refused.estimate, refused.limit, refused.allowed, refused.size = estimate, which, allowed, size
    raise refused


# -- the engine's planning -------------------------------------------------------------------

#: Double-precision multiply-adds per second the planning estimate assumes (one core, compiled).
RATE = 1.5e9


class BudgetError(OverBudget):
    """A run of the engine refused before any work: its estimate passes the memory limit."""

    kind = "budget error"


def planning_states(planner: str, n_worlds: int, n_states: int, grid: int) -> int:
    """States the planner solves: belief-grid points x states, or worlds x states (QMDP)."""
    if planner == "belief-vi":
        return comb(grid + n_worlds - 1, n_worlds - 1) * n_states
    return n_worlds * n_states


def planning(planner: str, shape: tuple[int, int, int], n_desires: int, grid: int,
             sweeps: int, layouts: int = 1, objects: int = 0, percepts: int = 1) -> Estimate:
    """What planning ``layouts`` layouts of ``shape`` (worlds, states, actions) needs: the
    reward and Q tables (rows x utility vectors doubles) and one value table per layout,
    and the tables the planner derives from the domain's whatever the utility vectors: the
    outcomes one-hot over ``objects`` and their mix at each planning belief, and (belief-vi)
    the belief transitions, every (state, action, next state, percept) event at every grid
    point over the worlds."""
    n_worlds, n_states, n_actions = shape
    rows = planning_states(planner, n_worlds, n_states, grid) * n_actions
    successors = n_worlds if planner == "belief-vi" else 1
    points = rows // max(n_states * n_actions, 1)
    derived = 8 * n_worlds * n_states * n_actions * (objects + 1) + 8 * rows * max(objects, 1)
    if planner == "belief-vi":
        events = n_states * n_actions * n_worlds * max(percepts, 1)
        derived += 3 * 8 * points * events * n_worlds + 4 * 8 * rows * successors
    held = (8 * n_desires * (3 * rows + rows // n_actions) + derived) * layouts
    seconds = layouts * sweeps * rows * (successors + 1) * n_desires / RATE
    return planned(held, seconds, rows * layouts, n_desires)


def planned(bytes_: int, seconds: float, rows: int, n_desires: int, desires: str = "utility vectors") -> Estimate:
    """An estimate of the engine's work: ``rows`` planning rows x ``n_desires`` utility
    vectors (``desires`` says which: particle inference plans only the distinct ones drawn)."""
    return Estimate(work="the run", bytes=int(bytes_), seconds=seconds, size=rows, unit="planning rows",
                    detail=f"{rows:,} planning rows x {n_desires:,} {desires}, "
                           f"~{format_seconds(seconds)} of planning")


#: What to do about a run over the budget, by how it infers.
RUN_HINTS = {
    "exact": "use particle inference (method smc or auto, --inference smc), fewer utility vectors or a "
             "coarser belief grid (grid=), the qmdp planner, a shorter path, or raise memory_limit (--max-memory)",
    "smc": "use fewer particles (each distinct utility vector drawn is planned), a coarser belief grid "
           "(grid=), the qmdp planner, a shorter path, or raise memory_limit (--max-memory)",
}


def check_run(need: Estimate, memory_limit: int | None = None, method: str = "exact") -> Estimate:
    """``need`` if it fits ``memory_limit`` (None: half the memory available now), else a
    :class:`BudgetError` with the estimate, raised before any work (its hint says what to
    do under ``method``, exact or smc)."""
    return check(need, Limits(max_bytes=memory_limit), error=BudgetError, advice="refused before any work",
                 hint=RUN_HINTS[method])


# -- a reachable state space ------------------------------------------------------------------

#: States per second of a compiled breadth-first search over bitset states (one core), for
#: the rough time of an estimate.
STATE_RATE = 1e6


class StateSpaceError(OverBudget):
    """A reachable state space refused: more states than the memory budget holds."""

    kind = "budget error"


def state_space(bound: int, bytes_per_state: int, fixed: int = 0, detail: str = "") -> Estimate:
    """What a breadth-first search over at most ``bound`` states of ``bytes_per_state`` bytes
    each (the state, its successors, its hash slot) needs; ``bound`` is what the structure of
    the task allows (atoms x valuations), often far above what is reachable."""
    return Estimate(work="the reachable state space", bytes=fixed + bound * bytes_per_state,
                    seconds=bound / STATE_RATE, size=bound, unit="states", detail=detail)


def states_within(limits: Limits, bytes_per_state: int, fixed: int = 0) -> int:
    """The most states of ``bytes_per_state`` bytes that ``limits`` holds (at least 1): where a
    search's bound does not fit, it runs with this cap and is refused when it reaches it."""
    cap = max(1, (limits.budget() - fixed) // max(1, bytes_per_state))
    return int(min(cap, limits.max_size)) if limits.max_size is not None else int(cap)
