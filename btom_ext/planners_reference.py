"""Plain NumPy reference for the tabular planning kernels: what ``btom_ext.planners`` is held to.

Every function here has a twin with the same name and signature in the compiled
``btom_ext.planners``; the tests hold the two equal on random small problems. The kernels
know no domain: a problem is a table of rows, one per (state, action), each with its
sparse successors and one reward per utility vector (the columns).

**Encoding.** ``n_rows = n_states * n_actions``; row ``s * n_actions + a``. Successors in
compressed-row form: ``indptr`` (``int64[n_rows + 1]``), ``indices`` (``int32[nnz]``,
successor states) and ``probs`` (``float64[nnz]``). ``reward`` is ``float64[n_rows,
n_columns]``: one column per utility vector, so one sweep plans for all of them (or a
table of the distinct rewards with ``reward_rows``, ``int32[n_rows]``, naming each row's).
"""

from __future__ import annotations

import numpy as np


def _require(ok, message: str) -> None:
    if not ok:
        raise ValueError(message)


def check_rows(indptr, indices, probs, reward, n_actions, reward_rows=None) -> None:
    """The checks both backends make before value iteration (a bad index would read or
    write outside the tables in the compiled kernel): ``ValueError`` naming the fault."""
    indptr, indices, reward = np.asarray(indptr), np.asarray(indices), np.asarray(reward)
    _require(reward.ndim == 2, "reward must be a table (rows x columns)")
    if reward_rows is None:
        n_rows = reward.shape[0]
    else:
        reward_rows = np.asarray(reward_rows)
        _require(reward_rows.ndim == 1 and np.issubdtype(reward_rows.dtype, np.integer)
                 and (not len(reward_rows) or (reward_rows.min() >= 0 and reward_rows.max() < reward.shape[0])),
                 f"reward_rows must be rows of reward, 0..{reward.shape[0] - 1}")
        n_rows = len(reward_rows)
    _require(n_actions >= 1 and n_rows % n_actions == 0, "reward must have n_states * n_actions rows")
    n_states = n_rows // n_actions
    _require(indptr.shape == (n_rows + 1,) and (not len(indptr) or indptr[0] == 0)
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


def value_iteration(indptr, indices, probs, reward, n_actions, gamma, sweeps, reward_rows=None):
    """Q of the last of ``sweeps`` backups from V = 0: ``Q = R + gamma * P V`` with
    ``V(s) = max_a Q(s, a)`` of the sweep before (``sweeps - 1`` updates of V). With
    ``reward_rows``, row ``i``'s rewards ``R[i]`` are ``reward[reward_rows[i]]``."""
    check_rows(indptr, indices, probs, reward, n_actions, reward_rows)
    reward = np.asarray(reward, dtype=np.float64)
    if reward_rows is not None:
        reward = reward[np.asarray(reward_rows, dtype=np.intp)]
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


#: A step whose largest weight falls below ``2 ** -RESCALE_BELOW`` is brought back up by a
#: power of two (:func:`propagate_steps`): far above the smallest double (2^-1074), so no
#: weight that matters underflows, and never reached by a path of a few dozen steps.
RESCALE_BELOW = 256


def step_bounds(n_nodes, init_nodes, term_from, term_to, node_step, node_group):
    """Where each step's nodes and terms start (``int64[n_steps + 1]`` each), checking that
    the program comes in steps: ``node_step`` rising from 0 by at most 1, the initial nodes
    of step 0, each term from a node of step s to one of step s + 1 and the terms in order
    of their step, each group's nodes of one step (``ValueError`` naming the fault)."""
    step = np.asarray(node_step, dtype=np.int64)
    _require(step.shape == (n_nodes,), "node_step must give each node its step")
    _require(not n_nodes or (step[0] == 0 and np.all(np.diff(step) >= 0) and np.all(np.diff(step) <= 1)),
             "node_step must rise from 0 by at most 1")
    n_steps = int(step[-1]) + 1 if n_nodes else 0
    starts = np.searchsorted(step, np.arange(n_steps + 1))
    init = np.asarray(init_nodes, dtype=np.int64)
    _require(not len(init) or (init.min() >= 0 and init.max() < (starts[1] if n_steps else 0)),
             "the initial nodes must be nodes of step 0")
    src, dst = np.asarray(term_from, dtype=np.int64), np.asarray(term_to, dtype=np.int64)
    _require(not len(src) or (src.min() >= 0 and max(src.max(), dst.max()) < n_nodes and dst.min() >= 0),
             f"nodes must be 0..{n_nodes - 1}")
    src_step = step[src] if len(src) else src
    _require(not len(src) or (np.all(step[dst] == src_step + 1) and np.all(np.diff(src_step) >= 0)),
             "each term must go from a node of step s to one of step s + 1, in order of s")
    terms = np.searchsorted(src_step, np.arange(n_steps + 1))
    groups = np.asarray(node_group, dtype=np.int64)
    held = groups >= 0
    if held.any():
        first = np.full(int(groups.max()) + 1, -1)
        last = np.full(int(groups.max()) + 1, -1)
        np.maximum.at(last, groups[held], step[held])
        first[:] = n_steps
        np.minimum.at(first, groups[held], step[held])
        _require(np.all((first == n_steps) | (first == last)), "each group's nodes must be of one step")
    return starts.astype(np.int64), terms.astype(np.int64)


def propagate_steps(n_nodes, init_nodes, init_weights, term_from, term_to, term_row, term_factor,
                    policy, node_step, node_group, n_groups):
    """:func:`propagate` over a program that comes in steps (see :func:`step_bounds`),
    holding two steps' weights at a time, with every step's weights brought back up by a
    power of two whenever the largest of them falls below ``2 ** -RESCALE_BELOW`` (a long
    path's weights would otherwise underflow to 0). Returns ``(out, exponent)``:
    ``out[g]`` is the sum of the weights of group g's nodes times ``2 ** exponent[s]``,
    ``s`` their step (``exponent``: ``int64[n_steps]``, 0 until a step needed it, and
    never falling). Multiplying by a power of two is exact, so the weights' ratios, and
    every posterior, are as without it."""
    check_program(n_nodes, init_nodes, init_weights, term_from, term_to, term_row, term_factor,
                  policy, node_group, n_groups)
    starts, terms = step_bounds(n_nodes, init_nodes, term_from, term_to, node_step, node_group)
    policy = np.asarray(policy, dtype=np.float64)
    n_cols = policy.shape[1]
    n_steps = len(starts) - 1
    out = np.zeros((n_groups, n_cols))
    exponent = np.zeros(n_steps, dtype=np.int64)
    if not n_steps:
        return out, exponent
    current = np.zeros((starts[1] - starts[0], n_cols))
    current[np.asarray(init_nodes)] = np.asarray(init_weights)[:, None]
    scale = 0
    for s in range(n_steps):
        top = current.max() if current.size else 0.0
        if 0.0 < top < 2.0 ** -RESCALE_BELOW:
            k = -int(np.frexp(top)[1])
            current = np.ldexp(current, k)
            scale += k
        exponent[s] = scale
        for node in range(starts[s], starts[s + 1]):
            if node_group[node] >= 0:
                out[node_group[node]] += current[node - starts[s]]
        if s + 1 < n_steps:
            following = np.zeros((starts[s + 2] - starts[s + 1], n_cols))
            for j in range(terms[s], terms[s + 1]):
                following[term_to[j] - starts[s + 1]] += (current[term_from[j] - starts[s]] * policy[term_row[j]]
                                                          * term_factor[j])
            current = following
    return out, exponent
