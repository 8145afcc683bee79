# cython: language_level=3, embedsignature=True, boundscheck=False, wraparound=False
# cython: cdivision=True, initializedcheck=False
"""Compiled kernels of particle inference (sequential Monte Carlo over BToM hypotheses).

A step's likelihood depends on a particle only through its goal and its live belief
particles, which many particles share; the kernels remember it per (step, goal, live
belief particles) in a hash table for the call, so most particle-steps are a look-up.

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


cdef inline int _kept(const unsigned char* live, const int* row, int k, int* kept) noexcept nogil:
    """The belief particles of ``row`` that are live, sorted (insertion sort: k is small)."""
    cdef int n = 0, j, i, v
    for j in range(k):
        v = row[j]
        if live[v]:
            i = n
            while i > 0 and kept[i - 1] > v:
                kept[i] = kept[i - 1]
                i -= 1
            kept[i] = v
            n += 1
    return n


cdef inline double _loglik(const double* values, const double* fallback, int n_actions, int width,
                           int chosen, double beta, const int* kept, int n, double* qbar) noexcept nogil:
    """log pi(chosen) of the Boltzmann QMDP policy of a belief whose live particles are
    ``kept[0..n-1]`` (sorted; summed in that order): ``values`` points at the goal's
    ``(S, width)`` table, ``fallback`` at its row for the uniform belief (n = 0)."""
    cdef int j, a
    cdef const double* q
    cdef double top, total
    for a in range(n_actions):
        qbar[a] = 0.0
    for j in range(n):
        q = values + <Py_ssize_t> kept[j] * width
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


cdef struct Memo:
    # open addressing, int64 keys (-1 = empty) -> log-likelihoods; capacity a power of 2
    long long* keys
    double* values
    Py_ssize_t capacity, size


#: Most entries a memo grows to (64 MiB); past it values are computed without being kept.
cdef Py_ssize_t MEMO_LIMIT = 1 << 22


cdef Memo _memo_new(bint enabled):
    """An empty memo (a small table that grows: particles share few distinct beliefs, and a
    table that stays in cache is what makes a look-up cheaper than the computation)."""
    cdef Memo m
    cdef Py_ssize_t i
    m.capacity = 0
    m.size = 0
    m.keys = NULL
    m.values = NULL
    if not enabled:
        return m
    m.capacity = 1024
    m.keys = <long long*> malloc(m.capacity * sizeof(long long))
    m.values = <double*> malloc(m.capacity * sizeof(double))
    for i in range(m.capacity):
        m.keys[i] = -1
    return m


cdef bint _memo_grow(Memo* m) noexcept nogil:
    """Double the table (rehashing what it holds); False when at :data:`MEMO_LIMIT`."""
    cdef long long* old_keys = m.keys
    cdef double* old_values = m.values
    cdef Py_ssize_t old_capacity = m.capacity, i, slot
    if m.capacity >= MEMO_LIMIT:
        return False
    m.capacity *= 2
    m.keys = <long long*> malloc(m.capacity * sizeof(long long))
    m.values = <double*> malloc(m.capacity * sizeof(double))
    for i in range(m.capacity):
        m.keys[i] = -1
    for i in range(old_capacity):
        if old_keys[i] != -1:
            slot = _memo_slot(m, old_keys[i])
            m.keys[slot] = old_keys[i]
            m.values[slot] = old_values[i]
    free(old_keys)
    free(old_values)
    return True


cdef void _memo_free(Memo* m) noexcept:
    free(m.keys)
    free(m.values)


cdef inline Py_ssize_t _memo_slot(Memo* m, long long key) noexcept nogil:
    cdef unsigned long long h = <unsigned long long> key * 0x9E3779B97F4A7C15ULL
    cdef Py_ssize_t i = <Py_ssize_t> (h >> 20) & (m.capacity - 1)
    while m.keys[i] != -1 and m.keys[i] != key:
        i = (i + 1) & (m.capacity - 1)
    return i


cdef inline double _memo_loglik(Memo* m, long long base_key, long long radix, const double* values,
                                const double* fallback, int n_actions, int width, int chosen, double beta,
                                const int* kept, int n, double* qbar) noexcept nogil:
    """:func:`_loglik`, remembered by (step, goal, live belief particles): particles
    share beliefs, so most calls are a look-up."""
    cdef long long key = 0
    cdef int j
    cdef Py_ssize_t slot
    cdef double value
    if m.capacity == 0:
        return _loglik(values, fallback, n_actions, width, chosen, beta, kept, n, qbar)
    for j in range(n):
        key = key * radix + kept[j] + 1
    key += base_key
    slot = _memo_slot(m, key)
    if m.keys[slot] == key:
        return m.values[slot]
    value = _loglik(values, fallback, n_actions, width, chosen, beta, kept, n, qbar)
    if 2 * (m.size + 1) > m.capacity:
        if not _memo_grow(m):
            return value    # at the limit: compute without remembering
        slot = _memo_slot(m, key)
    m.keys[slot] = key
    m.values[slot] = value
    m.size += 1
    return value


cdef long long _radix_limit(Py_ssize_t n_states, Py_ssize_t k, Py_ssize_t prefixes):
    """``(S+1)^k``, the range of belief codes, or 0 when keys would not fit in 62 bits."""
    cdef long long radix = n_states + 1, span = 1
    cdef Py_ssize_t i
    for i in range(k):
        if span > (1LL << 62) // radix:
            return 0
        span *= radix
    if prefixes > 0 and span > (1LL << 62) // prefixes:
        return 0
    return span


def step_loglik(values, fallback, int chosen, double beta, state, beliefs, live, reached):
    """Log-probability of the observed action under each particle's policy at one step, for
    every goal: ``(N, G)``.

    ``values[g, j, a]``: Q value of action a from live state j for goal g (read only where
    ``live[j]``); ``fallback[g, a]``: the action values of the uniform belief over the live
    states; ``chosen``: the observed action; ``state`` ``(N,)`` and ``beliefs`` ``(N, k)``:
    the particles; ``live[j]``: state j agrees with all that was seen before the action;
    ``reached[g]``: goal g is already held (then 0). Particles whose true state is not live
    get 0 (the caller rules them out).
    """
    cdef const double[:, :, ::1] v = np.ascontiguousarray(values, dtype=np.float64)
    cdef const double[:, ::1] fb = np.ascontiguousarray(fallback, dtype=np.float64)
    cdef const int[::1] ss = np.ascontiguousarray(state, dtype=np.int32)
    cdef const int[:, ::1] bs = np.ascontiguousarray(beliefs, dtype=np.int32)
    cdef const unsigned char[::1] lv = np.ascontiguousarray(live, dtype=np.uint8)
    cdef const unsigned char[::1] rg = np.ascontiguousarray(reached, dtype=np.uint8)
    cdef Py_ssize_t n = ss.shape[0], i, g, n_goals = v.shape[0]
    cdef int n_actions = v.shape[2], k = bs.shape[1], m
    cdef Py_ssize_t per_goal = <Py_ssize_t> v.shape[1] * n_actions
    cdef long long span = _radix_limit(v.shape[1], k, n_goals)
    out = np.zeros((n, n_goals), dtype=np.float64)
    cdef double[:, ::1] res = out
    cdef double* qbar = <double*> malloc(max(n_actions, 1) * sizeof(double))
    cdef int* kept = <int*> malloc(max(k, 1) * sizeof(int))
    cdef Memo memo = _memo_new(span > 0)
    try:
        with nogil:
            for i in range(n):
                if not lv[ss[i]]:
                    continue
                m = _kept(&lv[0], &bs[i, 0], k, kept)
                for g in range(n_goals):
                    if not rg[g]:
                        res[i, g] = _memo_loglik(&memo, g * span, v.shape[1] + 1, &v[0, 0, 0] + g * per_goal,
                                                 &fb[g, 0], n_actions, n_actions, chosen, beta, kept, m, qbar)
    finally:
        free(qbar)
        free(kept)
        _memo_free(&memo)
    return out


def history_loglik(values, fallback, n_actions, chosen, double beta, live, reached, goal, state, beliefs):
    """Log-likelihood of all T observed actions and observations for each particle.

    ``values (T, G, S, A)`` and ``fallback (T, G, A)``: each step's tables as for
    :func:`step_loglik`, padded to A actions, ``n_actions (T,)`` of them real;
    ``chosen (T,)``; ``live (T+1, S)``: ``live[t]`` the states agreeing with all seen up
    to time t; ``reached (T, G)``. -inf for a particle whose true state is ruled out at
    some time 0..T, else the sum over steps of :func:`step_loglik`'s terms for the
    particle's ``goal``.
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
    cdef int steps = ch.shape[0], t, width = v.shape[3] if v.shape[0] else 1, k = bs.shape[1], m
    cdef Py_ssize_t n_goals = v.shape[1], n_states = v.shape[2]
    cdef Py_ssize_t per_goal = n_states * width, per_step = n_goals * per_goal
    cdef long long span = _radix_limit(n_states, k, steps * n_goals)
    cdef double total
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] res = out
    cdef double* qbar = <double*> malloc(max(width, 1) * sizeof(double))
    cdef int* kept = <int*> malloc(max(k, 1) * sizeof(int))
    cdef Memo memo = _memo_new(span > 0)
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
                        m = _kept(&lv[t, 0], &bs[i, 0], k, kept)
                        total += _memo_loglik(&memo, (t * n_goals + gs[i]) * span, n_states + 1,
                                              &v[0, 0, 0, 0] + t * per_step + gs[i] * per_goal, &fb[t, gs[i], 0],
                                              na[t], width, ch[t], beta, kept, m, qbar)
                    if not lv[t + 1, ss[i]]:
                        total = -INFINITY
                res[i] = total
    finally:
        free(qbar)
        free(kept)
        _memo_free(&memo)
    return out


def history_change(values, fallback, n_actions, chosen, double beta, live, reached, goal, state, old_beliefs,
                   new_beliefs, base):
    """:func:`history_loglik` of ``new_beliefs`` for particles whose ``old_beliefs`` have
    the history log-likelihood ``base`` (same goal and true state), reading only the steps
    where the two disagree.

    A belief's kept set at step t is its particles that are live then; live sets only
    shrink, so once the old and new kept sets agree they agree for good. The steps after
    the last disagreement (``W``: the last step at which a particle of one and not the other
    is live) add the same terms to both, so ``new = base + Σ_{t<W} (term_new − term_old)``.
    Where ``2 W`` is not below the number of steps the new history is summed from scratch
    instead (cheaper, and exactly :func:`history_loglik`); otherwise the result equals it
    up to rounding (the terms are added in another order).
    """
    cdef const double[:, :, :, ::1] v = np.ascontiguousarray(values, dtype=np.float64)
    cdef const double[:, :, ::1] fb = np.ascontiguousarray(fallback, dtype=np.float64)
    cdef const int[::1] na = np.ascontiguousarray(n_actions, dtype=np.int32)
    cdef const int[::1] ch = np.ascontiguousarray(chosen, dtype=np.int32)
    cdef const unsigned char[:, ::1] lv = np.ascontiguousarray(live, dtype=np.uint8)
    cdef const unsigned char[:, ::1] rg = np.ascontiguousarray(reached, dtype=np.uint8)
    cdef const int[::1] gs = np.ascontiguousarray(goal, dtype=np.int32)
    cdef const int[::1] ss = np.ascontiguousarray(state, dtype=np.int32)
    cdef const int[:, ::1] bo = np.ascontiguousarray(old_beliefs, dtype=np.int32)
    cdef const int[:, ::1] bn = np.ascontiguousarray(new_beliefs, dtype=np.int32)
    cdef const double[::1] b0 = np.ascontiguousarray(base, dtype=np.float64)
    cdef Py_ssize_t n = gs.shape[0], i, j
    cdef int steps = ch.shape[0], t, width = v.shape[3] if v.shape[0] else 1, k = bn.shape[1], m, m2
    cdef Py_ssize_t n_goals = v.shape[1], n_states = v.shape[2]
    cdef Py_ssize_t per_goal = n_states * width, per_step = n_goals * per_goal
    cdef long long span = _radix_limit(n_states, k, steps * n_goals)
    cdef double total, delta
    cdef int window, d, c
    cdef bint same
    if bo.shape[0] != n or bn.shape[0] != n or b0.shape[0] != n or bo.shape[1] != k:
        raise ValueError("goal, state, old_beliefs, new_beliefs and base disagree on the particles")
    # death[j]: the first time at which state j is no longer live (steps + 1: never)
    death_arr = np.full(max(n_states, 1), steps + 1, dtype=np.int32)
    cdef int[::1] death = death_arr
    for j in range(n_states):
        for t in range(steps + 1):
            if not lv[t, j]:
                death[j] = t
                break
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] res = out
    cdef double* qbar = <double*> malloc(max(width, 1) * sizeof(double))
    cdef int* kept = <int*> malloc(max(k, 1) * sizeof(int))
    cdef int* kept2 = <int*> malloc(max(k, 1) * sizeof(int))
    cdef Memo memo = _memo_new(span > 0)
    try:
        with nogil:
            for i in range(n):
                # W: past the death of every state the two multisets hold different counts of
                window = 0
                for j in range(k):
                    for d in range(2):
                        c = bo[i, j] if d == 0 else bn[i, j]
                        same = _count(&bo[i, 0], k, c) == _count(&bn[i, 0], k, c)
                        if not same and death[c] > window:
                            window = death[c]
                if window > steps:
                    window = steps
                if 2 * window >= steps or not (b0[i] > -INFINITY):
                    total = 0.0 if lv[0, ss[i]] else -INFINITY
                    for t in range(steps):
                        if total == -INFINITY:
                            break
                        if not rg[t, gs[i]]:
                            m = _kept(&lv[t, 0], &bn[i, 0], k, kept)
                            total += _memo_loglik(&memo, (t * n_goals + gs[i]) * span, n_states + 1,
                                                  &v[0, 0, 0, 0] + t * per_step + gs[i] * per_goal,
                                                  &fb[t, gs[i], 0], na[t], width, ch[t], beta, kept, m, qbar)
                        if not lv[t + 1, ss[i]]:
                            total = -INFINITY
                    res[i] = total
                    continue
                delta = 0.0
                for t in range(window):
                    if not rg[t, gs[i]]:
                        m = _kept(&lv[t, 0], &bn[i, 0], k, kept)
                        m2 = _kept(&lv[t, 0], &bo[i, 0], k, kept2)
                        delta += _memo_loglik(&memo, (t * n_goals + gs[i]) * span, n_states + 1,
                                              &v[0, 0, 0, 0] + t * per_step + gs[i] * per_goal,
                                              &fb[t, gs[i], 0], na[t], width, ch[t], beta, kept, m, qbar)
                        delta -= _memo_loglik(&memo, (t * n_goals + gs[i]) * span, n_states + 1,
                                              &v[0, 0, 0, 0] + t * per_step + gs[i] * per_goal,
                                              &fb[t, gs[i], 0], na[t], width, ch[t], beta, kept2, m2, qbar)
                res[i] = b0[i] + delta
    finally:
        free(qbar)
        free(kept)
        free(kept2)
        _memo_free(&memo)
    return out


cdef inline int _count(const int* row, int k, int value) noexcept nogil:
    cdef int j, c = 0
    for j in range(k):
        c += row[j] == value
    return c


def goal_posterior(hist_goals, weights):
    """Σ_i w_i p(goal | particle i): each particle's goal given its state, belief and history
    is the softmax of its per-goal log-likelihoods ``hist_goals (N, G)`` (uniform goal
    prior); ``weights (N,)`` normalized. Particles of weight 0 are skipped."""
    cdef const double[:, ::1] h = np.ascontiguousarray(hist_goals, dtype=np.float64)
    cdef const double[::1] w = np.ascontiguousarray(weights, dtype=np.float64)
    cdef Py_ssize_t n = h.shape[0], n_goals = h.shape[1], i, g
    cdef double top, total
    out = np.zeros(n_goals, dtype=np.float64)
    cdef double[::1] res = out
    cdef double* p = <double*> malloc(max(n_goals, 1) * sizeof(double))
    try:
        with nogil:
            for i in range(n):
                if w[i] <= 0.0:
                    continue
                top = -INFINITY
                for g in range(n_goals):
                    if h[i, g] > top:
                        top = h[i, g]
                total = 0.0
                for g in range(n_goals):
                    p[g] = exp(h[i, g] - top)
                    total += p[g]
                for g in range(n_goals):
                    res[g] += w[i] * (p[g] / total)
    finally:
        free(p)
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
