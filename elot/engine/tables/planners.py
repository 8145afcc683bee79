"""Planners as named choices, each solving a domain's tables for every utility vector at once.

* ``qmdp`` — one fully observed MDP per world; the agent's Q at belief ``b`` is
  ``sum_w b(w) Q_w`` (as in the LaBToM paper). Cheap; the agent never plans to look.
* ``belief-vi`` — value iteration on a discretised belief simplex (:mod:`elot.engine.tables.grid`):
  the belief MDP's successor beliefs are spread over the corners of their Freudenthal
  simplex (Lovejoy's interpolation), as in Baker et al. (2017). The agent values looking.

Both end in the same compiled kernel (``btom_ext.planners.value_iteration``, or its NumPy
twin), over sparse rows ``(planning state, action)`` with one column per utility vector,
and both answer :meth:`Plan.corners`: which rows of Q, with which weights, make the agent's
Q at a belief. The reward of a row is ``-cost(a) + sum_w b(w) u(outcome(w, s, a))``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from btom_ext import CoreMissingError, planner_kernels
from elot.engine.tables.config import EngineConfig
from elot.engine.tables.grid import BeliefGrid
from elot.engine.tables.protocol import DesireSpace, Tables
from elot.errors import ExtensionMissingError
from elot.numeric import one_blas_thread


def kernels(backend: str):
    """The planning kernels of ``backend``, or elot's error saying how to build them."""
    try:
        return planner_kernels(backend)
    except CoreMissingError as error:
        raise ExtensionMissingError(str(error), hint=error.hint) from None


@dataclass(frozen=True, eq=False)
class Plan:
    """A solved layout: ``q[(p * n_actions + a), u]`` for planning state ``p``."""

    planner: str
    tables: Tables
    q: np.ndarray
    grid: BeliefGrid | None

    @property
    def n_actions(self) -> int:
        return len(self.tables.actions)

    def corners(self, beliefs: np.ndarray, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Planning states (``int32[m, k]``, -1 skipped) and weights (``float64[m, k]``)
        whose weighted Q rows are the agent's Q at each (belief, state)."""
        beliefs = np.atleast_2d(np.asarray(beliefs, dtype=np.float64))
        states = np.asarray(states, dtype=np.int64)
        n_states = len(self.tables.states)
        if self.grid is None:
            worlds = np.arange(beliefs.shape[1], dtype=np.int64)
            return (worlds[None, :] * n_states + states[:, None]).astype(np.int32), beliefs
        points, weights = self.grid.interpolate(beliefs)
        corner = np.where(points >= 0, points.astype(np.int64) * n_states + states[:, None], -1)
        return corner.astype(np.int32), weights


def distinct_rewards(tables: Tables, beliefs: np.ndarray, desires: DesireSpace,
                     costs: bool) -> tuple[np.ndarray, np.ndarray]:
    """The expected rewards of :func:`reward_table` as its distinct rows and the row of each:
    ``(float64[n_distinct, n_desires], int32[n_beliefs * n_states * n_actions])``. A row's
    reward depends only on what each world's outcome is worth at its belief and on the
    action's cost, so a layout's thousands of rows share a few dozen rewards (moves that
    reach nothing, at each cost): the value-iteration kernel then holds those in cache, not
    a copy per row. Each distinct row is the same floats the full product gives it."""
    n_w, n_s, n_a = tables.shape
    n_obj = len(tables.objects)
    onehot = np.zeros((n_w, n_s, n_a, n_obj + 1))
    idx = np.asarray(tables.outcomes, dtype=np.int64)
    onehot[np.arange(n_w)[:, None, None], np.arange(n_s)[None, :, None],
           np.arange(n_a)[None, None, :], idx] = 1.0
    mix = np.einsum("bw,wsao->bsao", beliefs, onehot[..., :n_obj]).reshape(-1, n_obj)
    cost = np.tile(np.asarray(tables.costs, dtype=np.float64), len(beliefs) * n_s) if costs \
        else np.zeros(len(mix))
    # rows told apart by their bytes (the mixture and the cost): equal bytes, equal products
    rows_as_bytes = np.ascontiguousarray(np.column_stack([mix, cost]))
    rows_as_bytes = rows_as_bytes.view(np.dtype((np.void, rows_as_bytes.itemsize * rows_as_bytes.shape[1]))).ravel()
    _, first, rows = np.unique(rows_as_bytes, return_index=True, return_inverse=True)
    with one_blas_thread():
        reward = mix[first] @ np.asarray(desires.utilities, dtype=np.float64).T
    if costs:
        reward -= cost[first][:, None]
    return reward, rows.reshape(-1).astype(np.int32)


def reward_table(tables: Tables, beliefs: np.ndarray, desires: DesireSpace, costs: bool) -> np.ndarray:
    """``float64[n_beliefs * n_states * n_actions, n_desires]``: the expected reward of each
    action in each state at each belief row, for each utility vector."""
    reward, rows = distinct_rewards(tables, beliefs, desires, costs)
    return reward[rows]


#: Threads planning may use (None: the cores this process may run on that the machine's load
#: leaves free; :func:`set_threads`). A worker process of a batch plans on one: its siblings
#: hold the other cores.
_THREADS: int | None = None
#: Columns (utility vectors) per thread at least: below that a thread's start costs more
#: than its share of the work.
MIN_COLUMNS = 32


def set_threads(threads: int | None) -> None:
    """Plan on at most ``threads`` threads from now on in this process (None: as many as
    are free)."""
    global _THREADS
    _THREADS = None if threads is None else max(1, int(threads))


def threads() -> int:
    """The threads planning uses: :func:`set_threads`'s, else the cores this process may
    run on less the machine's load (at least 1)."""
    if _THREADS is not None:
        return _THREADS
    import os

    allowed = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        busy = int(os.getloadavg()[0])
    except OSError:
        busy = 0
    return max(1, min(allowed, allowed - busy + 1))


def value_iteration(backend: str, indptr, indices, probs, reward: np.ndarray, n_actions: int, gamma: float,
                    sweeps: int, reward_rows: np.ndarray | None = None) -> np.ndarray:
    """The value-iteration kernel of ``backend`` over every column of ``reward`` (each row's
    rewards ``reward[reward_rows[row]]`` when given: :func:`distinct_rewards`): the columns
    are independent problems, so the compiled kernel (which releases the GIL) solves chunks
    of them on :func:`threads` threads at once, each chunk's Q the same bits as one call's."""
    solve = kernels(backend).value_iteration
    n_cols = reward.shape[1]
    parts = min(threads(), n_cols // MIN_COLUMNS) if backend == "core" else 1
    if parts <= 1:
        return solve(indptr, indices, probs, reward, n_actions, gamma, sweeps, reward_rows)
    from concurrent.futures import ThreadPoolExecutor

    edges = [round(n_cols * k / parts / 8) * 8 for k in range(parts)] + [n_cols]
    out = np.empty((len(indptr) - 1, n_cols), dtype=np.float64)

    def chunk(k: int) -> None:
        a, b = edges[k], edges[k + 1]
        out[:, a:b] = solve(indptr, indices, probs, np.ascontiguousarray(reward[:, a:b]), n_actions, gamma, sweeps,
                            reward_rows)

    with ThreadPoolExecutor(max_workers=parts, thread_name_prefix="elot-plan") as pool:
        list(pool.map(chunk, range(parts)))
    return out


def _csr(rows: np.ndarray, succ: np.ndarray, probs: np.ndarray, n_rows: int):
    order = np.argsort(rows, kind="stable")
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_rows), out=indptr[1:])
    return indptr, succ[order].astype(np.int32), probs[order]


def plan_qmdp(tables: Tables, desires: DesireSpace, config: EngineConfig) -> Plan:
    """One MDP per world (the agent knows the world), solved together."""
    n_w, n_s, n_a = tables.shape
    trans = np.asarray(tables.transitions, dtype=np.int64)
    rows = np.arange(n_w * n_s * n_a)
    succ = (np.arange(n_w)[:, None, None] * n_s + trans).reshape(-1)
    indptr, indices, probs = _csr(rows, succ, np.ones(len(rows)), len(rows))
    reward, reward_rows = distinct_rewards(tables, np.eye(n_w), desires, config.costs)
    q = value_iteration(config.backend, indptr, indices, probs, reward, n_a, config.gamma, config.sweeps,
                        reward_rows)
    return Plan("qmdp", tables, q, None)


def belief_transitions(tables: Tables, grid: BeliefGrid):
    """The belief MDP on the grid in compressed-row form (see btom_ext.planners_reference)."""
    n_w, n_s, n_a = tables.shape
    trans = np.asarray(tables.transitions, dtype=np.int64)
    obs = np.asarray(tables.observations, dtype=np.float64)
    # events (s, a, s', o) and the probability of each in each world; none depends on b.
    # In order of s, a, s' (each successor some world reaches) and o: the order of each
    # row's terms, which value iteration adds in
    steps = np.unique(np.stack([np.broadcast_to(np.arange(n_s)[None, :, None], trans.shape),
                                np.broadcast_to(np.arange(n_a)[None, None, :], trans.shape),
                                trans], axis=-1).reshape(-1, 3), axis=0)
    step_s, step_a, step_next = steps.T
    reach = trans[:, step_s, step_a].T == step_next[:, None]          # [k, w]
    joint = reach[:, :, None] * obs[:, step_next, :].transpose(1, 0, 2)  # [k, w, o]
    k_idx, o_idx = np.nonzero(joint.max(axis=1) > 0)
    ev_s, ev_a, ev_next = step_s[k_idx], step_a[k_idx], step_next[k_idx]
    ev_p = joint[k_idx, :, o_idx]                                       # [e, w]
    points = grid.points                                     # [g, w]
    joint = points[:, None, :] * ev_p[None, :, :]            # [g, e, w]
    mass = joint.sum(axis=2)
    g_idx, e_idx = np.nonzero(mass > 0)
    posterior = joint[g_idx, e_idx] / mass[g_idx, e_idx, None]
    corners, weights = grid.interpolate(posterior)
    keep = (corners >= 0) & (weights != 0)
    m_idx, k_idx = np.nonzero(keep)
    rows = (g_idx[m_idx] * n_s + ev_s[e_idx[m_idx]]) * n_a + ev_a[e_idx[m_idx]]
    succ = corners[m_idx, k_idx].astype(np.int64) * n_s + ev_next[e_idx[m_idx]]
    probs = mass[g_idx[m_idx], e_idx[m_idx]] * weights[m_idx, k_idx]
    return _csr(rows, succ, probs, len(grid) * n_s * n_a)


def plan_belief_vi(tables: Tables, desires: DesireSpace, config: EngineConfig) -> Plan:
    """Value iteration on the belief grid of resolution ``config.grid``."""
    grid = BeliefGrid(len(tables.worlds), config.grid)
    indptr, indices, probs = belief_transitions(tables, grid)
    reward, reward_rows = distinct_rewards(tables, grid.points, desires, config.costs)
    q = value_iteration(config.backend, indptr, indices, probs, reward, len(tables.actions), config.gamma,
                        config.sweeps, reward_rows)
    return Plan("belief-vi", tables, q, grid)


#: The planners by name: each takes (tables, desires, config) and returns a Plan.
PLANNERS = {"qmdp": plan_qmdp, "belief-vi": plan_belief_vi}


def plan(tables: Tables, desires: DesireSpace, config: EngineConfig) -> Plan:
    """Solve ``tables`` with the planner ``config.planner`` (which must be resolved)."""
    return PLANNERS[config.planner](tables, desires, config)
