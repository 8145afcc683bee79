"""The reachable state space of a grounded task: every state reachable from the initial one,
breadth first, with its applicable actions and successors (the compiled kernel, or its NumPy
twin), refused by the one budget (:mod:`elot.engine.budget`) when it cannot be held."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from btom_ext import grounding_kernels
from elot.domains.pddl.ground import Grounded
from elot.engine import budget
from elot.errors import compiled


def kernels(backend: str):
    """The grounding kernels of ``backend`` (``core`` or ``reference``)."""
    return compiled(grounding_kernels, backend)


@dataclass(frozen=True, eq=False)
class StateSpace:
    """``states[i]`` (``int64[n, width]``, breadth-first order, the initial state first);
    state i's applicable actions are ``actions[indptr[i]:indptr[i + 1]]`` with successors
    ``successors[...]`` (state indices), in the grounded task's row order."""

    grounded: Grounded
    states: np.ndarray
    indptr: np.ndarray
    actions: np.ndarray
    successors: np.ndarray

    def __len__(self) -> int:
        return len(self.states)


def estimate(g: Grounded) -> budget.Estimate:
    """The structural bound of ``g``'s reachable space (2^atoms x valuations) as an estimate."""
    per = per_state_bytes(g)
    cells = int(np.prod(g.fluent_size)) if len(g.fluent_size) else 1
    bound = (2 ** len(g.atoms)) * cells if len(g.atoms) < 62 else 2 ** 62
    return budget.state_space(bound, per, detail=f"{len(g.atoms)} dynamic atoms x {cells:,} fluent valuations, "
                                                 f"{per} bytes a state")


def per_state_bytes(g: Grounded) -> int:
    rows = len(g.row_action)
    cells = max(1, len(g.cell_rows) - 1)
    branching = max(1, -(-rows // cells))
    return 8 * g.width + 8 + 16 + 16 * branching


def state_space(g: Grounded, backend: str = "core", limits: budget.Limits | None = None) -> StateSpace:
    """Every state reachable from ``g``'s initial state. When the structural bound does not fit
    ``limits`` (by default half the memory available) the search runs with the most states the
    budget holds and is refused (:class:`~elot.engine.budget.StateSpaceError`) on reaching it."""
    limits = limits or budget.Limits()
    need = estimate(g)
    cap = need.size if budget.over(need, limits) is None else budget.states_within(limits, per_state_bytes(g))
    states, indptr, actions, succ, complete = kernels(backend).reachable(
        g.init, g.pre_pos, g.pre_neg, g.add, g.dele, g.new_fluents, g.row_action, g.cell_rows,
        g.fluent_lo, g.fluent_size, cap + 1 if cap == need.size else cap)
    if not complete:
        found = budget.Estimate(work="the reachable state space", bytes=need.bytes, size=need.size, unit="states",
                                detail=f"more than {cap:,} states reachable, each {per_state_bytes(g)} bytes; "
                                       f"at most {need.size:,} by its structure")
        budget.check(found, budget.Limits(max_size=cap, max_bytes=limits.max_bytes, max_seconds=limits.max_seconds),
                     error=budget.StateSpaceError, advice="refused when the search reached the budget",
                     hint="use fewer objects, or raise the memory limit")
    return StateSpace(g, states, indptr, actions, succ)
