"""Plain NumPy reference for the tabular planning kernels: what ``btom_ext.planners`` is held to.

Every function here has a twin with the same name and signature in the compiled
``btom_ext.planners``; the tests hold the two equal on random small problems. The kernels
know no domain: a problem is a table of rows, one per (state, action), each with its
sparse successors and one reward per utility vector (the columns).

**Encoding.** ``n_rows = n_states * n_actions``; row ``s * n_actions + a``. Successors in
compressed-row form: ``indptr`` (``int64[n_rows + 1]``), ``indices`` (``int32[nnz]``,
successor states) and ``probs`` (``float64[nnz]``). ``reward`` is ``float64[n_rows,
n_columns]``: one column per utility vector, so one sweep plans for all of them.
"""

from __future__ import annotations

import numpy as np


def _require(ok, message: str) -> None:
    if not ok:
        raise ValueError(message)


def check_rows(indptr, indices, probs, reward, n_actions) -> None:
    """The checks both backends make before value iteration (a bad index would read or
    write outside the tables in the compiled kernel): ``ValueError`` naming the fault."""
    indptr, indices, reward = np.asarray(indptr), np.asarray(indices), np.asarray(reward)
    _require(n_actions >= 1 and reward.ndim == 2 and reward.shape[0] % n_actions == 0,
             "reward must have n_states * n_actions rows")
    n_states = reward.shape[0] // n_actions
    _require(indptr.shape == (reward.shape[0] + 1,) and (not len(indptr) or indptr[0] == 0)
             and np.all(np.diff(indptr) >= 0), "indptr must rise from 0, one entry per row and one more")
    _require(len(indices) == len(np.asarray(probs)) == (indptr[-1] if len(indptr) else 0),
             "indices and probs must hold indptr[-1] entries")
    _require(not len(indices) or (indices.min() >= 0 and indices.max() < n_states),
             f"successor indices must be states 0..{n_states - 1}")


def check_queries(q, corners, weights, n_actions) -> None:
    q, corners = np.asarray(q), np.asarray(corners)
    _require(n_actions >= 1 and q.ndim == 2 and q.shape[0] % n_actions == 0,
             "q must have n_states * n_actions rows")
    _require(corners.ndim == 2 and np.asarray(weights).shape == corners.shape,
             "corners and weights must be equal [n_queries, k] tables")
    _require(not corners.size or corners.max() < q.shape[0] // n_actions,
             "a corner is not a state of q")


def check_program(n_nodes, init_nodes, init_weights, term_from, term_to, term_row, term_factor,
                  policy, node_group, n_groups) -> None:
    nodes = [np.asarray(a) for a in (init_nodes, term_from, term_to)]
    _require(all(not len(a) or (a.min() >= 0 and a.max() < n_nodes) for a in nodes),
             f"nodes must be 0..{n_nodes - 1}")
    _require(len(init_nodes) == len(init_weights), "init_nodes and init_weights differ in length")
    _require(len(term_from) == len(term_to) == len(term_row) == len(term_factor),
             "the term arrays differ in length")
    rows, groups = np.asarray(term_row), np.asarray(node_group)
    _require(not len(rows) or (rows.min() >= 0 and rows.max() < np.asarray(policy).shape[0]),
             "a term's row is not a row of policy")
    _require(groups.shape == (n_nodes,) and (not len(groups) or groups.max() < n_groups),
             "node_group must give each node a group below n_groups, or -1")


def value_iteration(indptr, indices, probs, reward, n_actions, gamma, sweeps):
    """Q of the last of ``sweeps`` backups from V = 0: ``Q = R + gamma * P V`` with
    ``V(s) = max_a Q(s, a)`` of the sweep before (``sweeps - 1`` updates of V)."""
    check_rows(indptr, indices, probs, reward, n_actions)
    reward = np.asarray(reward, dtype=np.float64)
    n_rows, n_cols = reward.shape
    n_states = n_rows // n_actions
    counts = np.diff(np.asarray(indptr, dtype=np.int64))
    rows = np.repeat(np.arange(n_rows), counts)
    value = np.zeros((n_states, n_cols))
    q = reward.copy()
    for sweep in range(sweeps):
        q = reward.copy()
        if len(rows):
            expected = np.zeros((n_rows, n_cols))
            np.add.at(expected, rows, np.asarray(probs)[:, None] * value[np.asarray(indices)])
            q += gamma * expected
        if sweep + 1 < sweeps:
            value = q.reshape(n_states, n_actions, n_cols).max(axis=1)
    return q


def mixed_policies(q, corners, weights, n_actions, beta):
    """Softmax policies at interpolated beliefs: for query i, ``Q~(a) = sum_k weights[i, k]
    * Q[corners[i, k] * n_actions + a]`` (a corner of -1 is skipped) and
    ``pi(a) = exp(beta Q~(a)) / sum_a' exp(beta Q~(a'))`` (maximum subtracted).
    Returns ``float64[n_queries, n_actions, n_columns]``."""
    check_queries(q, corners, weights, n_actions)
    q = np.asarray(q, dtype=np.float64)
    corners = np.asarray(corners)
    weights = np.asarray(weights, dtype=np.float64)
    n_queries, n_corners = corners.shape
    out = np.zeros((n_queries, n_actions, q.shape[1]))
    for i in range(n_queries):
        mixed = np.zeros((n_actions, q.shape[1]))
        for k in range(n_corners):
            if corners[i, k] >= 0:
                start = corners[i, k] * n_actions
                mixed += weights[i, k] * q[start:start + n_actions]
        scaled = beta * mixed
        scaled -= scaled.max(axis=0)
        odds = np.exp(scaled)
        out[i] = odds / odds.sum(axis=0)
    return out


def propagate(n_nodes, init_nodes, init_weights, term_from, term_to, term_row, term_factor,
              policy, node_group, n_groups):
    """Weights pushed along a branching path: node weights start at ``init_weights`` on
    ``init_nodes``; each term ``j`` (in order, every term out of a node after every term
    into it) adds ``W[term_from[j]] * policy[term_row[j]] * term_factor[j]`` to
    ``W[term_to[j]]``. Returns the sum of ``W`` over the nodes of each group
    (``node_group``, -1 for none): ``float64[n_groups, n_columns]``."""
    check_program(n_nodes, init_nodes, init_weights, term_from, term_to, term_row, term_factor,
                  policy, node_group, n_groups)
    policy = np.asarray(policy, dtype=np.float64)
    weight = np.zeros((n_nodes, policy.shape[1]))
    weight[np.asarray(init_nodes)] = np.asarray(init_weights)[:, None]
    for j in range(len(term_from)):
        weight[term_to[j]] += weight[term_from[j]] * policy[term_row[j]] * term_factor[j]
    out = np.zeros((n_groups, policy.shape[1]))
    for node in range(n_nodes):
        if node_group[node] >= 0:
            out[node_group[node]] += weight[node]
    return out
