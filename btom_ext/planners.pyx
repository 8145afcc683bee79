# cython: language_level=3, embedsignature=True, boundscheck=False, wraparound=False
# cython: cdivision=True, initializedcheck=False
"""Compiled tabular planning kernels: value iteration over sparse rows, softmax policies at
interpolated beliefs, and weights pushed along a branching path.

Same functions and signatures as :mod:`btom_ext.planners_reference` (which documents the
encoding); the tests hold the two equal. Every inner loop runs over the columns (one per
utility vector), which are contiguous, so one pass plans or scores all of them.
"""

import numpy as np
cimport numpy as cnp
from libc.math cimport exp, frexp, ldexp

from btom_ext.planners_reference import RESCALE_BELOW, check_program, check_queries, check_rows, step_bounds

cnp.import_array()


cdef extern from "value_iteration.h" nogil:
    enum: ELOT_VI_CHUNK
    int elot_vi_widest()
    void elot_vi_sweeps(int lanes, const long long *ptr, const int *idx, const double *p, const double *rb,
                        const int *rrows, long long n_states, int n_actions, double gamma, int sweeps,
                        double *vold, double *vnew, double *qb)


cdef enum:
    CHUNK = ELOT_VI_CHUNK   # columns planned together: a chunk's tables stay in cache for all sweeps

#: The vector lanes value iteration runs on: 4 where the processor has AVX2, else 2.
cdef int _lanes = elot_vi_widest()


def widest_lanes():
    """The most vector lanes value iteration can run on here (4 with AVX2, else 2)."""
    return elot_vi_widest()


def use_lanes(int lanes):
    """Run value iteration on ``lanes`` vector lanes (2, or 4 where :func:`widest_lanes`
    allows) from now on; returns the lanes used before. Every width gives the same bits
    (the tests hold them equal); it is there to compare them."""
    global _lanes
    if lanes not in (2, 4) or lanes > elot_vi_widest():
        raise ValueError(f"lanes must be 2 or, on a processor with AVX2, 4; not {lanes}")
    before, _lanes = _lanes, lanes
    return before


def value_iteration(indptr, indices, probs, reward, int n_actions, double gamma, int sweeps,
                    reward_rows=None):
    """Q of the last of ``sweeps`` backups from V = 0 (see the reference).

    The columns (utility vectors) are independent problems: they are solved ``CHUNK`` at a
    time, each chunk's rewards and two value tables held in cache through every sweep, and
    V(s) = max_a Q(s, a) taken as each state's rows are computed, a vector of columns at a
    time (``value_iteration.h``). Only the last sweep's Q is written out. With
    ``reward_rows``, row ``i``'s rewards are ``reward[reward_rows[i]]`` (a planner's rows
    share a few distinct rewards: a chunk's copy of them then stays in the fastest cache
    beside the value tables)."""
    check_rows(indptr, indices, probs, reward, n_actions, reward_rows)
    cdef const long long[::1] ptr = np.ascontiguousarray(indptr, dtype=np.int64)
    cdef const int[::1] idx = np.ascontiguousarray(indices, dtype=np.int32)
    cdef const double[::1] p = np.ascontiguousarray(probs, dtype=np.float64)
    cdef const double[:, ::1] r = np.ascontiguousarray(reward, dtype=np.float64)
    cdef Py_ssize_t n_rows = ptr.shape[0] - 1, n_cols = r.shape[1], n_rewards = r.shape[0]
    if reward_rows is None:
        reward_rows = np.arange(n_rows, dtype=np.int32)
    cdef const int[::1] rrows = np.ascontiguousarray(reward_rows, dtype=np.int32)
    cdef Py_ssize_t n_states = n_rows // n_actions
    out = np.empty((n_rows, n_cols), dtype=np.float64)
    if n_rows == 0 or n_cols == 0:
        return out
    cdef double[:, ::1] q = out
    rbuf = np.zeros((n_rewards, CHUNK), dtype=np.float64)
    vbuf = np.zeros((2, n_states, CHUNK), dtype=np.float64)
    qbuf = np.zeros((n_rows, CHUNK), dtype=np.float64)
    cdef double[:, ::1] rb = rbuf
    cdef double[:, :, ::1] vb = vbuf
    cdef double[:, ::1] qb = qbuf
    cdef const long long* ptr0 = &ptr[0]
    cdef const int* idx0 = &idx[0] if idx.shape[0] else NULL
    cdef const double* p0 = &p[0] if p.shape[0] else NULL
    cdef Py_ssize_t c0, width, row, c, s
    cdef int lanes = _lanes
    with nogil:
        c0 = 0
        while c0 < n_cols:
            width = CHUNK if n_cols - c0 > CHUNK else n_cols - c0
            for row in range(n_rewards):
                for c in range(CHUNK):
                    rb[row, c] = r[row, c0 + c] if c < width else 0.0
            for s in range(n_states):
                for c in range(CHUNK):
                    vb[0, s, c] = 0.0
            elot_vi_sweeps(lanes, ptr0, idx0, p0, &rb[0, 0], &rrows[0], n_states, n_actions, gamma, sweeps,
                           &vb[0, 0, 0], &vb[1, 0, 0], &qb[0, 0])
            for row in range(n_rows):
                for c in range(width):
                    q[row, c0 + c] = qb[row, c]
            c0 += CHUNK
    return out


def mixed_policies(q, corners, weights, int n_actions, double beta):
    """Softmax policies at interpolated beliefs (see the reference)."""
    check_queries(q, corners, weights, n_actions)
    cdef const double[:, ::1] qv = np.ascontiguousarray(q, dtype=np.float64)
    cdef const int[:, ::1] corner = np.ascontiguousarray(corners, dtype=np.int32)
    cdef const double[:, ::1] w = np.ascontiguousarray(weights, dtype=np.float64)
    cdef Py_ssize_t n_queries = corner.shape[0], n_corners = corner.shape[1]
    cdef Py_ssize_t n_cols = qv.shape[1]
    out = np.zeros((n_queries, n_actions, n_cols), dtype=np.float64)
    cdef double[:, :, ::1] pi = out
    cdef Py_ssize_t i, k, a, c, start
    cdef double weight, best, total
    with nogil:
        for i in range(n_queries):
            for k in range(n_corners):
                if corner[i, k] < 0:
                    continue
                weight = w[i, k]
                start = corner[i, k] * n_actions
                for a in range(n_actions):
                    for c in range(n_cols):
                        pi[i, a, c] += weight * qv[start + a, c]
            for c in range(n_cols):
                best = beta * pi[i, 0, c]
                for a in range(1, n_actions):
                    if beta * pi[i, a, c] > best:
                        best = beta * pi[i, a, c]
                total = 0.0
                for a in range(n_actions):
                    pi[i, a, c] = exp(beta * pi[i, a, c] - best)
                    total += pi[i, a, c]
                for a in range(n_actions):
                    pi[i, a, c] /= total
    return out


def propagate(Py_ssize_t n_nodes, init_nodes, init_weights, term_from, term_to, term_row,
              term_factor, policy, node_group, Py_ssize_t n_groups):
    """Weights pushed along a branching path, summed per group (see the reference)."""
    check_program(n_nodes, init_nodes, init_weights, term_from, term_to, term_row, term_factor,
                  policy, node_group, n_groups)
    cdef const int[::1] starts = np.ascontiguousarray(init_nodes, dtype=np.int32)
    cdef const double[::1] start_weight = np.ascontiguousarray(init_weights, dtype=np.float64)
    cdef const int[::1] src = np.ascontiguousarray(term_from, dtype=np.int32)
    cdef const int[::1] dst = np.ascontiguousarray(term_to, dtype=np.int32)
    cdef const long long[::1] prow = np.ascontiguousarray(term_row, dtype=np.int64)
    cdef const double[::1] factor = np.ascontiguousarray(term_factor, dtype=np.float64)
    cdef const double[:, ::1] pol = np.ascontiguousarray(policy, dtype=np.float64)
    cdef const int[::1] group = np.ascontiguousarray(node_group, dtype=np.int32)
    cdef Py_ssize_t n_cols = pol.shape[1], n_terms = src.shape[0]
    weight_array = np.zeros((n_nodes, n_cols), dtype=np.float64)
    out = np.zeros((n_groups, n_cols), dtype=np.float64)
    cdef double[:, ::1] wt = weight_array
    cdef double[:, ::1] res = out
    cdef Py_ssize_t i, j, c, node
    cdef double f
    with nogil:
        for i in range(starts.shape[0]):
            for c in range(n_cols):
                wt[starts[i], c] = start_weight[i]
        for j in range(n_terms):
            f = factor[j]
            for c in range(n_cols):
                wt[dst[j], c] += wt[src[j], c] * pol[prow[j], c] * f
        for node in range(n_nodes):
            if group[node] >= 0:
                for c in range(n_cols):
                    res[group[node], c] += wt[node, c]
    return out


def propagate_steps(Py_ssize_t n_nodes, init_nodes, init_weights, term_from, term_to, term_row,
                    term_factor, policy, node_step, node_group, Py_ssize_t n_groups):
    """Weights pushed along a path that comes in steps, two steps held at a time and each
    brought back up by a power of two before it underflows (see the reference)."""
    check_program(n_nodes, init_nodes, init_weights, term_from, term_to, term_row, term_factor,
                  policy, node_group, n_groups)
    bounds, term_bounds = step_bounds(n_nodes, init_nodes, term_from, term_to, node_step, node_group)
    cdef const long long[::1] nstart = np.ascontiguousarray(bounds, dtype=np.int64)
    cdef const long long[::1] tstart = np.ascontiguousarray(term_bounds, dtype=np.int64)
    cdef const int[::1] starts = np.ascontiguousarray(init_nodes, dtype=np.int32)
    cdef const double[::1] start_weight = np.ascontiguousarray(init_weights, dtype=np.float64)
    cdef const int[::1] src = np.ascontiguousarray(term_from, dtype=np.int32)
    cdef const int[::1] dst = np.ascontiguousarray(term_to, dtype=np.int32)
    cdef const long long[::1] prow = np.ascontiguousarray(term_row, dtype=np.int64)
    cdef const double[::1] factor = np.ascontiguousarray(term_factor, dtype=np.float64)
    cdef const double[:, ::1] pol = np.ascontiguousarray(policy, dtype=np.float64)
    cdef const int[::1] group = np.ascontiguousarray(node_group, dtype=np.int32)
    cdef Py_ssize_t n_cols = pol.shape[1], n_steps = nstart.shape[0] - 1
    out = np.zeros((n_groups, n_cols), dtype=np.float64)
    exponent_array = np.zeros(n_steps, dtype=np.int64)
    if n_steps <= 0:
        return out, exponent_array
    widest = int(np.max(np.diff(bounds)))
    first_array = np.zeros((widest, n_cols), dtype=np.float64)
    second_array = np.zeros((widest, n_cols), dtype=np.float64)
    cdef double[:, ::1] res = out
    cdef long long[::1] exponent = exponent_array
    cdef double[:, ::1] cur = first_array
    cdef double[:, ::1] nxt = second_array
    cdef double[:, ::1] swap
    cdef Py_ssize_t i, j, c, node, s, here, there, width
    cdef double f, top, lift
    cdef int power
    cdef long long scale = 0
    cdef double floor = ldexp(1.0, -RESCALE_BELOW)
    with nogil:
        for i in range(starts.shape[0]):
            for c in range(n_cols):
                cur[starts[i], c] = start_weight[i]
        for s in range(n_steps):
            here = nstart[s]
            width = nstart[s + 1] - here
            top = 0.0
            for node in range(width):
                for c in range(n_cols):
                    if cur[node, c] > top:
                        top = cur[node, c]
            if 0.0 < top < floor:
                frexp(top, &power)
                lift = ldexp(1.0, -power)
                for node in range(width):
                    for c in range(n_cols):
                        cur[node, c] = cur[node, c] * lift
                scale -= power
            exponent[s] = scale
            for node in range(width):
                if group[here + node] >= 0:
                    for c in range(n_cols):
                        res[group[here + node], c] += cur[node, c]
            if s + 1 < n_steps:
                there = nstart[s + 1]
                for node in range(nstart[s + 2] - there):
                    for c in range(n_cols):
                        nxt[node, c] = 0.0
                for j in range(tstart[s], tstart[s + 1]):
                    f = factor[j]
                    for c in range(n_cols):
                        nxt[dst[j] - there, c] += cur[src[j] - here, c] * pol[prow[j], c] * f
                swap = cur
                cur = nxt
                nxt = swap
    return out, exponent_array
