"""The engine's one budget: how much memory and time a run needs, checked before any work.

Planning holds, per layout, the reward and Q tables (``rows x utility vectors`` doubles,
rows = planning states x actions) and one value table; the inversion holds per path a
node table of the same width. A run whose estimate passes the limit is refused with the
estimate and how to shrink it, before anything is allocated.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from math import comb

from elot.errors import ElotError

#: Default memory a run may use: 4 GiB, or half the machine's memory if that is less.
DEFAULT_LIMIT = 4 << 30
#: Double-precision multiply-adds per second the estimates assume (one core, compiled).
RATE = 1.5e9


class BudgetError(ElotError):
    """A run was refused before any work: its estimate passes the memory limit."""

    kind = "budget error"


@dataclass(frozen=True)
class Estimate:
    """What a run needs: bytes held at once and seconds of planning."""

    bytes: int
    seconds: float
    rows: int
    columns: int

    def describe(self) -> str:
        return (f"{self.rows:,} planning rows x {self.columns:,} utility vectors: "
                f"~{self.bytes / 2**20:,.0f} MiB, ~{self.seconds:.1f} s of planning")


def planning_states(planner: str, n_worlds: int, n_states: int, grid: int) -> int:
    """States the planner solves: belief-grid points x states, or worlds x states (QMDP)."""
    if planner == "belief-vi":
        return comb(grid + n_worlds - 1, n_worlds - 1) * n_states
    return n_worlds * n_states


def estimate(planner: str, shape: tuple[int, int, int], n_desires: int, grid: int,
             sweeps: int, layouts: int = 1) -> Estimate:
    """The estimate for planning ``layouts`` layouts of ``shape`` (worlds, states, actions)."""
    n_worlds, n_states, n_actions = shape
    rows = planning_states(planner, n_worlds, n_states, grid) * n_actions
    successors = n_worlds if planner == "belief-vi" else 1
    held = 8 * n_desires * (3 * rows + rows // n_actions) * layouts
    seconds = layouts * sweeps * rows * (successors + 1) * n_desires / RATE
    return Estimate(bytes=held, seconds=seconds, rows=rows * layouts, columns=n_desires)


def memory_limit(requested: int | None) -> int:
    """The limit a run is held to: ``requested``, else the default."""
    if requested is not None:
        return int(requested)
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not every system says
        physical = 2 * DEFAULT_LIMIT
    return min(DEFAULT_LIMIT, physical // 2)


def check(need: Estimate, requested: int | None = None) -> Estimate:
    """``need`` if it fits the limit, else a :class:`BudgetError` with the estimate."""
    limit = memory_limit(requested)
    if need.bytes > limit:
        raise BudgetError(
            f"refused before any work: {need.describe()}, over the limit of {limit / 2**20:,.0f} MiB",
            hint="use fewer utility vectors or a coarser belief grid (grid=), the qmdp planner, "
            "or raise memory_limit")
    return need
