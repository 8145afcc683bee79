# cython: language_level=3, embedsignature=True, boundscheck=False, wraparound=False
# cython: cdivision=True, initializedcheck=False
"""Compiled kernels of particle inference (sequential Monte Carlo over BToM hypotheses).

Same functions and signatures as :mod:`btom_ext.particles_reference`, which documents
them and which the tests hold these to. A particle is a hypothesis ``(goal g, true
initial state s, the agent's k belief particles b[0..k-1])`` over the enumerated initial
states; nothing here enumerates beliefs, so the work per particle is k x actions.

A particle's belief before action t keeps the belief particles still alive (agreeing
with everything seen so far), each with weight 1/(number alive); when none is alive it
falls back to the uniform belief over the live states (SPEC §5's ε states), whose
action values ``fallback[g, a]`` are computed once per step for all particles. A live
true state agrees with the real world, so "alive for the particle" is "live".
"""

import numpy as np
cimport numpy as cnp
from libc.math cimport exp, log, INFINITY
from libc.stdlib cimport malloc, free

cnp.import_array()


cdef inline double _loglik(const double* values, const double* fallback, int n_actions, int width,
                           int chosen, double beta, const unsigned char* live, const int* row, int k,
                           double* qbar) noexcept nogil:
    """log pi(chosen) of one particle's Boltzmann QMDP policy at one step: ``values`` points
    at its goal's ``(S, width)`` table, ``fallback`` at its goal's row, ``row`` at its k
    belief particles."""
    cdef int n = 0, j, a
    cdef const double* q
    cdef double top, total
    for a in range(n_actions):
        qbar[a] = 0.0
    for j in range(k):
        if live[row[j]]:
            n += 1
            q = values + <Py_ssize_t> row[j] * width
            for a in range(n_actions):
                qbar[a] += q[a]
    if n == 0:
        for a in range(n_actions):
            qbar[a] = fallback[a]
    else:
        for a in range(n_actions):
            qbar[a] = qbar[a] / n
    top = -INFINITY
    for a in range(n_actions):
        qbar[a] = beta * qbar[a]
        if qbar[a] > top:
            top = qbar[a]
    total = 0.0
    for a in range(n_actions):
        total += exp(qbar[a] - top)
    return qbar[chosen] - (top + log(total))


def step_loglik(values, fallback, int chosen, double beta, goal, state, beliefs, live, reached):
    """Log-probability of the observed action under each particle's policy at one step.

    ``values[g, j, a]``: Q value of action a from live state j for goal g (read only where
    ``live[j]``); ``fallback[g, a]``: the action values of the uniform belief over the live
    states; ``chosen``: the observed action; ``goal``, ``state`` ``(N,)`` and ``beliefs``
    ``(N, k)``: the particles; ``live[j]``: state j agrees with all that was seen before
    the action; ``reached[g]``: goal g is already held. Particles whose true state is not
    live or whose goal is reached get 0 (the caller rules out the former).
    """
    cdef const double[:, :, ::1] v = np.ascontiguousarray(values, dtype=np.float64)
    cdef const double[:, ::1] fb = np.ascontiguousarray(fallback, dtype=np.float64)
    cdef const int[::1] gs = np.ascontiguousarray(goal, dtype=np.int32)
    cdef const int[::1] ss = np.ascontiguousarray(state, dtype=np.int32)
    cdef const int[:, ::1] bs = np.ascontiguousarray(beliefs, dtype=np.int32)
    cdef const unsigned char[::1] lv = np.ascontiguousarray(live, dtype=np.uint8)
    cdef const unsigned char[::1] rg = np.ascontiguousarray(reached, dtype=np.uint8)
    cdef Py_ssize_t n = gs.shape[0], i
    cdef int n_actions = v.shape[2], k = bs.shape[1]
    cdef Py_ssize_t per_goal = <Py_ssize_t> v.shape[1] * n_actions
    out = np.zeros(n, dtype=np.float64)
    cdef double[::1] res = out
    cdef double* qbar = <double*> malloc(max(n_actions, 1) * sizeof(double))
    try:
        with nogil:
            for i in range(n):
                if lv[ss[i]] and not rg[gs[i]]:
                    res[i] = _loglik(&v[0, 0, 0] + gs[i] * per_goal, &fb[gs[i], 0], n_actions, n_actions,
                                     chosen, beta, &lv[0], &bs[i, 0], k, qbar)
    finally:
        free(qbar)
    return out


def history_loglik(values, fallback, n_actions, chosen, double beta, live, reached, goal, state, beliefs):
    """Log-likelihood of all T observed actions and observations for each particle.

    ``values (T, G, S, A)`` and ``fallback (T, G, A)``: each step's tables as for
    :func:`step_loglik`, padded to A actions, ``n_actions (T,)`` of them real;
    ``chosen (T,)``; ``live (T+1, S)``: ``live[t]`` the states agreeing with all seen up
    to time t; ``reached (T, G)``. -inf for a particle whose true state is ruled out at
    some time 0..T, else the sum over steps of :func:`step_loglik`'s terms.
    """
    cdef const double[:, :, :, ::1] v = np.ascontiguousarray(values, dtype=np.float64)
    cdef const double[:, :, ::1] fb = np.ascontiguousarray(fallback, dtype=np.float64)
    cdef const int[::1] na = np.ascontiguousarray(n_actions, dtype=np.int32)
    cdef const int[::1] ch = np.ascontiguousarray(chosen, dtype=np.int32)
    cdef const unsigned char[:, ::1] lv = np.ascontiguousarray(live, dtype=np.uint8)
    cdef const unsigned char[:, ::1] rg = np.ascontiguousarray(reached, dtype=np.uint8)
    cdef const int[::1] gs = np.ascontiguousarray(goal, dtype=np.int32)
    cdef const int[::1] ss = np.ascontiguousarray(state, dtype=np.int32)
    cdef const int[:, ::1] bs = np.ascontiguousarray(beliefs, dtype=np.int32)
    cdef Py_ssize_t n = gs.shape[0], i
    cdef int steps = ch.shape[0], t, width = v.shape[3] if v.shape[0] else 1, k = bs.shape[1]
    cdef Py_ssize_t per_goal = <Py_ssize_t> v.shape[2] * width, per_step = v.shape[1] * per_goal
    cdef double total
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] res = out
    cdef double* qbar = <double*> malloc(max(width, 1) * sizeof(double))
    try:
        with nogil:
            for i in range(n):
                total = 0.0
                if not lv[0, ss[i]]:
                    total = -INFINITY
                for t in range(steps):
                    if total == -INFINITY:
                        break
                    if not rg[t, gs[i]]:
                        total += _loglik(&v[0, 0, 0, 0] + t * per_step + gs[i] * per_goal, &fb[t, gs[i], 0],
                                         na[t], width, ch[t], beta, &lv[t, 0], &bs[i, 0], k, qbar)
                    if not lv[t + 1, ss[i]]:
                        total = -INFINITY
                res[i] = total
    finally:
        free(qbar)
    return out


def systematic_resample(weights, double u):
    """Indices of N particles drawn by systematic resampling from normalized ``weights``:
    particle j is taken for each position ``(u + i) / N`` (``0 <= u < 1``) that falls in
    its slice of the running sum."""
    cdef const double[::1] w = np.ascontiguousarray(weights, dtype=np.float64)
    cdef Py_ssize_t n = w.shape[0], i, j = 0
    cdef double cum
    out = np.empty(n, dtype=np.int64)
    cdef cnp.int64_t[::1] res = out
    if n == 0:
        return out
    with nogil:
        cum = w[0]
        for i in range(n):
            while cum < (u + i) / n and j < n - 1:
                j += 1
                cum += w[j]
            res[i] = j
    return out
