# cython: language_level=3, embedsignature=True, boundscheck=False, wraparound=False
# cython: cdivision=True, initializedcheck=False
"""Compiled kernels of particle inference (sequential Monte Carlo over BToM hypotheses).

A step's likelihood depends on a particle only through its goal and its live belief
particles, which many particles share; the kernels remember it per (step, goal, live
belief particles) in a hash table for the call (``step_loglik``: every goal's value under
one key), so most particle-steps are a look-up.

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
from libc.stdlib cimport malloc, free, realloc

cnp.import_array()

cdef extern from *:
    # a hint to the processor (no effect on any result): start loading a cache line now
    void __builtin_prefetch(const void* address) noexcept nogil

#: Particles ahead of the one being scored whose table cells are prefetched: a look-up in a
#: table of millions of sums waits on memory, and asking for the cells early overlaps those
#: waits with the work on the particles in between.
DEF AHEAD = 8


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


cdef inline bint _same(const int* a, int m, const int* b, int n) noexcept nogil:
    """Whether the kept sets ``a[0..m-1]`` and ``b[0..n-1]`` are equal."""
    cdef int j
    if m != n:
        return False
    for j in range(m):
        if a[j] != b[j]:
            return False
    return True


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
    # open addressing, int64 keys (-1 = empty) -> ``width`` log-likelihoods each (one per
    # goal, or one); capacity a power of 2
    long long* keys
    double* values
    Py_ssize_t capacity, size, width


#: Most entries a memo grows to (64 MiB); past it values are computed without being kept.
cdef Py_ssize_t MEMO_LIMIT = 1 << 22


cdef Memo _memo_new(bint enabled, Py_ssize_t width=1):
    """An empty memo (a small table that grows: particles share few distinct beliefs, and a
    table that stays in cache is what makes a look-up cheaper than the computation), of
    ``width`` values per key."""
    cdef Memo m
    cdef Py_ssize_t i
    m.capacity = 0
    m.size = 0
    m.width = width
    m.keys = NULL
    m.values = NULL
    if not enabled:
        return m
    m.capacity = 1024
    m.keys = <long long*> malloc(m.capacity * sizeof(long long))
    m.values = <double*> malloc(m.capacity * width * sizeof(double))
    for i in range(m.capacity):
        m.keys[i] = -1
    return m


cdef bint _memo_grow(Memo* m) noexcept nogil:
    """Double the table (rehashing what it holds); False when at :data:`MEMO_LIMIT`."""
    cdef long long* old_keys = m.keys
    cdef double* old_values = m.values
    cdef Py_ssize_t old_capacity = m.capacity, i, slot, c
    if m.capacity * m.width >= MEMO_LIMIT:
        return False
    m.capacity *= 2
    m.keys = <long long*> malloc(m.capacity * sizeof(long long))
    m.values = <double*> malloc(m.capacity * m.width * sizeof(double))
    for i in range(m.capacity):
        m.keys[i] = -1
    for i in range(old_capacity):
        if old_keys[i] != -1:
            slot = _memo_slot(m, old_keys[i])
            m.keys[slot] = old_keys[i]
            for c in range(m.width):
                m.values[slot * m.width + c] = old_values[i * m.width + c]
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
    cdef int n_actions = v.shape[2], k = bs.shape[1], m, j
    cdef Py_ssize_t per_goal = <Py_ssize_t> v.shape[1] * n_actions
    cdef long long span = _radix_limit(v.shape[1], k, 1), key, radix = v.shape[1] + 1
    cdef Py_ssize_t slot
    out = np.zeros((n, n_goals), dtype=np.float64)
    cdef double[:, ::1] res = out
    cdef double* qbar = <double*> malloc(max(n_actions, 1) * sizeof(double))
    cdef int* kept = <int*> malloc(max(k, 1) * sizeof(int))
    # every goal's value of a kept set under one key: one look-up per particle
    cdef Memo memo = _memo_new(span > 0 and n_goals > 0, n_goals)
    try:
        with nogil:
            for i in range(n):
                if not lv[ss[i]]:
                    continue
                m = _kept(&lv[0], &bs[i, 0], k, kept)
                if memo.capacity:
                    key = 0
                    for j in range(m):
                        key = key * radix + kept[j] + 1
                    slot = _memo_slot(&memo, key)
                    if memo.keys[slot] == key:
                        for g in range(n_goals):
                            res[i, g] = memo.values[slot * n_goals + g]
                        continue
                for g in range(n_goals):
                    if not rg[g]:
                        res[i, g] = _loglik(&v[0, 0, 0] + g * per_goal, &fb[g, 0], n_actions, n_actions, chosen,
                                            beta, kept, m, qbar)
                if memo.capacity:
                    if 2 * (memo.size + 1) > memo.capacity:
                        if not _memo_grow(&memo):
                            continue   # at the limit: computed without remembering
                        slot = _memo_slot(&memo, key)
                    memo.keys[slot] = key
                    for g in range(n_goals):
                        memo.values[slot * n_goals + g] = res[i, g]
                    memo.size += 1
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


cdef inline void _goal_softmax(const double* h, Py_ssize_t n_goals, double* p) noexcept nogil:
    """``p[g] = exp(h[g] - max h) / Σ exp(h - max h)``: one particle's goal posterior from
    its per-goal log-likelihoods (uniform goal prior)."""
    cdef Py_ssize_t g
    cdef double top = -INFINITY, total = 0.0
    for g in range(n_goals):
        if h[g] > top:
            top = h[g]
    for g in range(n_goals):
        p[g] = exp(h[g] - top)
        total += p[g]
    for g in range(n_goals):
        p[g] = p[g] / total


def goal_posterior(hist_goals, weights):
    """Σ_i w_i p(goal | particle i): each particle's goal given its state, belief and history
    is the softmax of its per-goal log-likelihoods ``hist_goals (N, G)`` (uniform goal
    prior); ``weights (N,)`` normalized. Particles of weight 0 are skipped."""
    cdef const double[:, ::1] h = np.ascontiguousarray(hist_goals, dtype=np.float64)
    cdef const double[::1] w = np.ascontiguousarray(weights, dtype=np.float64)
    cdef Py_ssize_t n = h.shape[0], n_goals = h.shape[1], i, g
    out = np.zeros(n_goals, dtype=np.float64)
    cdef double[::1] res = out
    cdef double* p = <double*> malloc(max(n_goals, 1) * sizeof(double))
    try:
        with nogil:
            for i in range(n):
                if w[i] <= 0.0:
                    continue
                _goal_softmax(&h[i, 0], n_goals, p)
                for g in range(n_goals):
                    res[g] += w[i] * p[g]
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


def smallest(keys, int k):
    """Per row of ``keys (N, M)``, the column indices of its k smallest values, in increasing
    order of index, ``(N, k)`` int64; of equal values the one of lower index counts as
    smaller (as a stable sort orders them)."""
    cdef const double[:, ::1] x = np.ascontiguousarray(keys, dtype=np.float64)
    cdef Py_ssize_t n = x.shape[0], width = x.shape[1], i, c
    cdef int j, top, v
    if not 0 <= k <= width:
        raise ValueError(f"k = {k} outside 0..{width}")
    out = np.empty((n, k), dtype=np.int64)
    cdef cnp.int64_t[:, ::1] res = out
    cdef double* best = <double*> malloc(max(k, 1) * sizeof(double))
    cdef int* where = <int*> malloc(max(k, 1) * sizeof(int))
    if k == 0:
        free(best)
        free(where)
        return out
    try:
        with nogil:
            for i in range(n):
                top = 0   # how many kept, in increasing value (stable)
                for c in range(width):
                    if top == k and not x[i, c] < best[k - 1]:
                        continue
                    j = top if top < k else k - 1
                    while j > 0 and x[i, c] < best[j - 1]:
                        best[j] = best[j - 1]
                        where[j] = where[j - 1]
                        j -= 1
                    best[j] = x[i, c]
                    where[j] = <int> c
                    if top < k:
                        top += 1
                for j in range(1, k):   # the indices in increasing order
                    v = where[j]
                    c = j
                    while c > 0 and where[c - 1] > v:
                        where[c] = where[c - 1]
                        c -= 1
                    where[c] = v
                for j in range(k):
                    res[i, j] = where[j]
    finally:
        free(best)
        free(where)
    return out


# -- the history kept across calls -----------------------------------------------------------

#: Most segment sums a History keeps (about 80 MiB); past it the table is emptied and
#: refilled as sums are asked for again (each is a left fold in step order, so a sum
#: computed again is the same number).
cdef Py_ssize_t SEGMENT_LIMIT = 1 << 22


cdef packed struct Segment:
    # a cell of History's table: the key (-1 = empty), the sum and how many steps it holds,
    # side by side (20 bytes, packed) so that a look-up reads one cache line, mostly
    long long key
    double sum
    int counted


cdef class History:
    """The steps seen so far, kept across calls, and the sums of their log-likelihood terms
    per *epoch*, for the history log-likelihood of particles (see
    :class:`btom_ext.particles_reference.History`, the specification).

    An epoch is a run of steps over which the live states do not change (the agent walks
    and nothing new is seen), so over it a particle's kept belief particles do not change
    either: its terms over the epoch are one sum per (epoch, goal, kept multiset), kept in
    a hash table across calls. A particle's history is then one look-up per epoch, and a
    move that changes a belief particle reads only the epochs where the old and new kept
    sets differ. The sum of the open (last) epoch is extended as steps are added; each is
    a left fold over the epoch's steps in step order, so it is the same number whenever
    it is computed."""

    cdef readonly int n_states, n_goals, k, steps, epochs
    #: How many log-likelihood terms the history computed (the work its table did not save).
    cdef readonly long long terms
    cdef readonly double beta
    cdef list _keep
    cdef double** _values
    cdef double** _fallback
    cdef int* _n_actions
    cdef int* _chosen
    cdef int* _epoch_start
    cdef unsigned char** _epoch_live
    cdef unsigned char* _reached
    cdef Py_ssize_t _capacity, _epoch_capacity
    cdef object live_now
    cdef long long _radix, _span
    cdef bint _keyed
    cdef Segment* _cells
    cdef Py_ssize_t _table, _size
    cdef int _shift

    def __cinit__(self, live, int n_goals, int k, double beta):
        cdef Py_ssize_t i
        self.n_states = len(live)
        self.n_goals, self.k, self.beta = n_goals, k, beta
        self.steps = self.epochs = 0
        self.terms = 0
        self._keep = []
        self._capacity = self._epoch_capacity = 0
        self._values = self._fallback = NULL
        self._n_actions = self._chosen = self._epoch_start = NULL
        self._epoch_live = NULL
        self._reached = NULL
        self.live_now = np.ascontiguousarray(live, dtype=np.uint8).copy()
        self._radix = self.n_states + 1
        self._span = _radix_limit(self.n_states, k, max(n_goals, 1))
        self._keyed = self._span > 0
        self._table = 1024
        self._shift = 64 - 10
        self._size = 0
        self._cells = <Segment*> malloc(self._table * sizeof(Segment))
        if self._cells == NULL:
            raise MemoryError()
        for i in range(self._table):
            self._cells[i].key = -1

    def __dealloc__(self):
        free(self._values)
        free(self._fallback)
        free(self._n_actions)
        free(self._chosen)
        free(self._epoch_start)
        free(self._epoch_live)
        free(self._reached)
        free(self._cells)

    @property
    def cached(self):
        """How many segment sums the table holds."""
        return self._size

    def add_step(self, values, fallback, int chosen, reached, live_after):
        """One more step: ``values (G, S, A)`` and ``fallback (G, A)`` as for
        :func:`step_loglik`, the observed action ``chosen``, ``reached (G,)``, and the live
        states after it (``live_after``; those before it are the last ``live_after``, or
        the ``live`` the history started with)."""
        v = np.ascontiguousarray(values, dtype=np.float64)
        f = np.ascontiguousarray(fallback, dtype=np.float64)
        r = np.ascontiguousarray(reached, dtype=np.uint8)
        before = self.live_now
        after = np.ascontiguousarray(live_after, dtype=np.uint8).copy()
        if v.ndim != 3 or v.shape[0] != self.n_goals or v.shape[1] != self.n_states or f.shape[0] != self.n_goals \
                or f.shape[1] != v.shape[2] or r.shape[0] != self.n_goals or after.shape[0] != self.n_states:
            raise ValueError("the step's tables do not fit the history's goals and states")
        if not 0 <= chosen < v.shape[2]:
            raise ValueError(f"chosen action {chosen} out of range")
        cdef Py_ssize_t t = self.steps, g
        if t == self._capacity:
            self._capacity = max(16, 2 * self._capacity)
            self._values = <double**> _grow(self._values, self._capacity * sizeof(double*))
            self._fallback = <double**> _grow(self._fallback, self._capacity * sizeof(double*))
            self._n_actions = <int*> _grow(self._n_actions, self._capacity * sizeof(int))
            self._chosen = <int*> _grow(self._chosen, self._capacity * sizeof(int))
            self._reached = <unsigned char*> _grow(self._reached, self._capacity * max(self.n_goals, 1))
        new_epoch = self.epochs == 0 or not np.array_equal(before, self._keep[len(self._keep) - 1][3])
        if new_epoch:
            if self._keyed and self._span > (1LL << 62) // ((self.epochs + 1) * max(self.n_goals, 1)):
                self._keyed = False   # keys would overflow: sums computed without the table
            if self.epochs == self._epoch_capacity:
                self._epoch_capacity = max(16, 2 * self._epoch_capacity)
                self._epoch_start = <int*> _grow(self._epoch_start, self._epoch_capacity * sizeof(int))
                self._epoch_live = <unsigned char**> _grow(self._epoch_live,
                                                           self._epoch_capacity * sizeof(unsigned char*))
            self._epoch_start[self.epochs] = t
            self._epoch_live[self.epochs] = <unsigned char*> cnp.PyArray_DATA(before)
            self.epochs += 1
        self._keep.append((v, f, r, before))
        self._values[t] = <double*> cnp.PyArray_DATA(v)
        self._fallback[t] = <double*> cnp.PyArray_DATA(f)
        self._n_actions[t] = v.shape[2]
        self._chosen[t] = chosen
        for g in range(self.n_goals):
            self._reached[t * self.n_goals + g] = r[g]
        self.live_now = after
        self.steps += 1

    def tables(self):
        """The steps as :func:`history_loglik` takes them: ``(values, fallback, n_actions,
        chosen, beta, live, reached)``, padded to the most actions of a step."""
        width = max([kept[0].shape[2] for kept in self._keep], default=1)
        values = np.zeros((self.steps, self.n_goals, self.n_states, width))
        fallback = np.zeros((self.steps, self.n_goals, width))
        for t, (v, f, r, before) in enumerate(self._keep):
            values[t, :, :, : v.shape[2]] = v
            fallback[t, :, : f.shape[1]] = f
        live = np.stack([kept[3] for kept in self._keep] + [self.live_now])
        reached = np.array([kept[2] for kept in self._keep], dtype=np.uint8).reshape(self.steps, self.n_goals)
        return (values, fallback, np.array([self._n_actions[t] for t in range(self.steps)], dtype=np.int32),
                np.array([self._chosen[t] for t in range(self.steps)], dtype=np.int32), self.beta, live, reached)

    cdef inline int _epoch_end(self, int e) noexcept nogil:
        return self._epoch_start[e + 1] if e + 1 < self.epochs else self.steps

    cdef inline double _term(self, int t, int g, const int* kept, int m, double* qbar) noexcept nogil:
        # (counts itself in ``terms``)
        cdef int a = self._n_actions[t]
        self.terms += 1
        if self._reached[t * self.n_goals + g]:
            return 0.0
        return _loglik(self._values[t] + <Py_ssize_t> g * self.n_states * a, self._fallback[t] + g * a, a, a,
                       self._chosen[t], self.beta, kept, m, qbar)

    cdef inline Py_ssize_t _slot(self, long long key) noexcept nogil:
        cdef Py_ssize_t i = self._home(key)
        while self._cells[i].key != -1 and self._cells[i].key != key:
            i = (i + 1) & (self._table - 1)
        return i

    cdef void _clear(self) noexcept nogil:
        cdef Py_ssize_t i
        for i in range(self._table):
            self._cells[i].key = -1
        self._size = 0

    cdef bint _grow_table(self) noexcept nogil:
        cdef Segment* old_cells = self._cells
        cdef Segment* cells
        cdef Py_ssize_t old = self._table, i, slot
        if self._table >= SEGMENT_LIMIT:
            return False
        cells = <Segment*> malloc(2 * self._table * sizeof(Segment))
        if cells == NULL:
            return False
        self._cells = cells
        self._table *= 2
        self._shift -= 1
        for i in range(self._table):
            self._cells[i].key = -1
        for i in range(old):
            if old_cells[i].key != -1:
                slot = self._slot(old_cells[i].key)
                self._cells[slot] = old_cells[i]
        free(old_cells)
        return True

    cdef double _segment(self, int e, int g, const int* kept, int m, double* qbar) noexcept nogil:
        """Σ of the terms of goal g and kept set ``kept[0..m-1]`` over epoch e, in step order."""
        cdef int start = self._epoch_start[e], end = self._epoch_end(e), t, j
        cdef long long key
        cdef Py_ssize_t slot
        cdef double total = 0.0
        if not self._keyed:
            for t in range(start, end):
                total += self._term(t, g, kept, m, qbar)
            return total
        key = 0
        for j in range(m):
            key = key * self._radix + kept[j] + 1
        key += (<long long> e * self.n_goals + g) * self._span
        slot = self._slot(key)
        if self._cells[slot].key == key:
            if self._cells[slot].counted == end - start:
                return self._cells[slot].sum
            total = self._cells[slot].sum
            for t in range(start + self._cells[slot].counted, end):
                total += self._term(t, g, kept, m, qbar)
            self._cells[slot].sum = total
            self._cells[slot].counted = end - start
            return total
        for t in range(start, end):
            total += self._term(t, g, kept, m, qbar)
        if 2 * (self._size + 1) > self._table:
            if not self._grow_table():
                self._clear()
            slot = self._slot(key)
        self._cells[slot].key = key
        self._cells[slot].sum = total
        self._cells[slot].counted = end - start
        self._size += 1
        return total

    cdef double _segment_until(self, int e, int g, const int* kept, int m, double* qbar, double floor,
                               bint* complete) noexcept nogil:
        """:meth:`_segment`, stopped (``complete`` False) as soon as the running sum falls
        below ``floor``: the terms are log-probabilities, never above 0, so the whole sum
        would be below it too. What was summed is kept (a sum of the epoch's first steps),
        and a later call goes on from there."""
        cdef int start = self._epoch_start[e], end = self._epoch_end(e), t, j, done = 0
        cdef long long key = 0
        cdef Py_ssize_t slot = -1
        cdef double total = 0.0
        complete[0] = True
        if self._keyed:
            for j in range(m):
                key = key * self._radix + kept[j] + 1
            key += (<long long> e * self.n_goals + g) * self._span
            slot = self._slot(key)
            if self._cells[slot].key == key:
                total, done = self._cells[slot].sum, self._cells[slot].counted
            else:
                if 2 * (self._size + 1) > self._table:
                    if not self._grow_table():
                        self._clear()
                    slot = self._slot(key)
                self._cells[slot].key = key
                self._size += 1
        for t in range(start + done, end):
            total += self._term(t, g, kept, m, qbar)
            done += 1
            if total < floor and done < end - start:
                complete[0] = False
                break
        if slot >= 0:
            self._cells[slot].sum = total
            self._cells[slot].counted = done
        return total

    cdef void _prefetch(self, int g0, int width, const double* base, const int* old, const int* new, int* kept,
                        int* kept2) noexcept nogil:
        """Prefetch the table cells of the sums of ``new`` and ``old`` over the epochs where
        their kept sets differ (those :meth:`_propose` and :meth:`_change` read), for goals
        ``g0 + c`` whose ``base[c]`` is finite, c < ``width``."""
        cdef int e, m, m2, c
        if not self._keyed:
            return
        for e in range(self.epochs):
            m = _kept(self._epoch_live[e], new, self.k, kept)
            m2 = _kept(self._epoch_live[e], old, self.k, kept2)
            if _same(kept, m, kept2, m2):
                break
            for c in range(width):
                if base[c] > -INFINITY:
                    __builtin_prefetch(&self._cells[self._home(self._key(e, g0 + c, kept, m))])
                    __builtin_prefetch(&self._cells[self._home(self._key(e, g0 + c, kept2, m2))])

    cdef inline long long _key(self, int e, int g, const int* kept, int m) noexcept nogil:
        cdef long long key = 0
        cdef int j
        for j in range(m):
            key = key * self._radix + kept[j] + 1
        return key + (<long long> e * self.n_goals + g) * self._span

    cdef inline Py_ssize_t _home(self, long long key) noexcept nogil:
        # Fibonacci hashing: the product's top bits, which every bit of the key moves
        return <Py_ssize_t> ((<unsigned long long> key * 0x9E3779B97F4A7C15ULL) >> self._shift)

    cdef double _propose(self, int g, const int* old, const int* new, double base, double threshold, int* kept,
                         int* sizes, int* kept2, double* qbar) noexcept nogil:
        """The history of ``new`` as :meth:`_change` gives it, or -inf as soon as it is sure
        to fall below ``base + threshold``. ``kept`` holds ``epochs × k`` ints, ``sizes``
        ``epochs``: the new kept sets, found once for both passes."""
        cdef int e, m, m2, j, differ = 0
        cdef double old_sum = 0.0, new_sum = 0.0
        cdef bint complete
        cdef int* here
        for e in range(self.epochs):   # the old kept sets' sums over the epochs where they differ
            here = kept + <Py_ssize_t> e * self.k
            m = _kept(self._epoch_live[e], new, self.k, here)
            sizes[e] = m
            m2 = _kept(self._epoch_live[e], old, self.k, kept2)
            if _same(here, m, kept2, m2):
                break
            old_sum += self._segment(e, g, kept2, m2, qbar)
            differ += 1
        for e in range(differ):
            new_sum += self._segment_until(e, g, kept + <Py_ssize_t> e * self.k, sizes[e], qbar,
                                           threshold + old_sum - new_sum, &complete)
        if not complete or new_sum - old_sum < threshold:
                return -INFINITY
        if new_sum - old_sum < threshold:   # also where the kept sets never differ
            return -INFINITY
        return base + (new_sum - old_sum)

    cdef double _history(self, int g, const int* row, int* kept, double* qbar) noexcept nogil:
        cdef int e, m
        cdef double total = 0.0
        for e in range(self.epochs):
            m = _kept(self._epoch_live[e], row, self.k, kept)
            total += self._segment(e, g, kept, m, qbar)
        return total

    cdef void _change(self, int g0, int width, const int* old, const int* new, const double* base, double* out,
                      int* kept, int* kept2, double* qbar) noexcept nogil:
        """``out[c]``: the history of ``new`` under goal ``g0 + c`` from that of ``old``,
        ``base[c]`` (-inf stays), for c < ``width``; the kept sets of each epoch found once
        for every goal."""
        cdef int e, m, m2, c
        for c in range(width):
            out[c] = 0.0   # each goal's difference, summed epoch by epoch
        for e in range(self.epochs):
            m = _kept(self._epoch_live[e], new, self.k, kept)
            m2 = _kept(self._epoch_live[e], old, self.k, kept2)
            if _same(kept, m, kept2, m2):   # live sets only shrink: the kept sets agree from here on
                break
            for c in range(width):
                if base[c] > -INFINITY:
                    out[c] += self._segment(e, g0 + c, kept, m, qbar) - self._segment(e, g0 + c, kept2, m2, qbar)
        for c in range(width):
            out[c] = base[c] + out[c] if base[c] > -INFINITY else base[c]

    def loglik(self, goal, state, beliefs):
        """:func:`history_loglik` of the steps added so far (``-inf`` where the true state
        is not live now), summed epoch by epoch (equal up to rounding)."""
        cdef const int[::1] gs = np.ascontiguousarray(goal, dtype=np.int32)
        cdef const int[::1] ss = np.ascontiguousarray(state, dtype=np.int32)
        cdef const int[:, ::1] bs = self._rows(beliefs, gs.shape[0])
        cdef const unsigned char[::1] now = self.live_now
        cdef Py_ssize_t n = gs.shape[0], i
        out = np.empty(n, dtype=np.float64)
        cdef double[::1] res = out
        cdef double* qbar = <double*> malloc(self._width() * sizeof(double))
        cdef int* kept = <int*> malloc(max(self.k, 1) * sizeof(int))
        try:
            for i in range(n):
                if not 0 <= gs[i] < self.n_goals or not 0 <= ss[i] < self.n_states:
                    raise ValueError("goal or state out of range")
            with nogil:
                for i in range(n):
                    res[i] = self._history(gs[i], &bs[i, 0], kept, qbar) if now[ss[i]] else -INFINITY
        finally:
            free(qbar)
            free(kept)
        return out

    def loglik_goals(self, state, beliefs):
        """:meth:`loglik` under every goal, ``(N, G)``."""
        cdef const int[::1] ss = np.ascontiguousarray(state, dtype=np.int32)
        cdef const int[:, ::1] bs = self._rows(beliefs, ss.shape[0])
        cdef const unsigned char[::1] now = self.live_now
        cdef Py_ssize_t n = ss.shape[0], i
        cdef int g
        out = np.empty((n, self.n_goals), dtype=np.float64)
        cdef double[:, ::1] res = out
        cdef double* qbar = <double*> malloc(self._width() * sizeof(double))
        cdef int* kept = <int*> malloc(max(self.k, 1) * sizeof(int))
        try:
            for i in range(n):
                if not 0 <= ss[i] < self.n_states:
                    raise ValueError("state out of range")
            with nogil:
                for i in range(n):
                    for g in range(self.n_goals):
                        res[i, g] = self._history(g, &bs[i, 0], kept, qbar) if now[ss[i]] else -INFINITY
        finally:
            free(qbar)
            free(kept)
        return out

    def change(self, goal, old_beliefs, new_beliefs, base):
        """The history log-likelihood of ``new_beliefs`` for particles whose ``old_beliefs``
        have ``base`` (same goal, a live true state): ``base`` plus the difference of the
        two over the epochs where their kept sets differ; ``goal (N,)`` and ``base (N,)``,
        or ``goal`` None and ``base (N, G)`` for every goal at once. A ``base`` of -inf
        stays -inf."""
        cdef bint every = goal is None
        cdef const double[:, ::1] b0 = np.ascontiguousarray(base, dtype=np.float64).reshape(
            len(base), self.n_goals if every else 1)
        cdef Py_ssize_t n = b0.shape[0], i, width = b0.shape[1]
        cdef const int[::1] gs = np.zeros(n, dtype=np.int32) if every else self._goals(goal, n, "base")
        cdef const int[:, ::1] bo = self._rows(old_beliefs, n)
        cdef const int[:, ::1] bn = self._rows(new_beliefs, n)
        out = np.empty((n, width), dtype=np.float64)
        cdef double[:, ::1] res = out
        cdef double* qbar = <double*> malloc(self._width() * sizeof(double))
        cdef int* kept = <int*> malloc(max(self.k, 1) * sizeof(int))
        cdef int* kept2 = <int*> malloc(max(self.k, 1) * sizeof(int))
        try:
            with nogil:
                for i in range(n):
                    if i + AHEAD < n:
                        self._prefetch(gs[i + AHEAD], width, &b0[i + AHEAD, 0], &bo[i + AHEAD, 0],
                                       &bn[i + AHEAD, 0], kept, kept2)
                    self._change(gs[i], width, &bo[i, 0], &bn[i, 0], &b0[i, 0], &res[i, 0], kept, kept2, qbar)
        finally:
            free(qbar)
            free(kept)
            free(kept2)
        return out if every else out[:, 0]

    def propose(self, goal, old_beliefs, new_beliefs, base, threshold):
        """:meth:`change` for one goal per particle, where the caller accepts the move only
        if the new history exceeds ``base + threshold``: -inf (rejected) as soon as it is sure
        not to (the terms are log-probabilities, so a partial sum only falls; the rest of the
        history is never read). Otherwise the new history, as :meth:`change` (up to rounding)."""
        cdef const double[::1] b0 = np.ascontiguousarray(base, dtype=np.float64)
        cdef const double[::1] th = np.ascontiguousarray(threshold, dtype=np.float64)
        cdef Py_ssize_t n = b0.shape[0], i
        if th.shape[0] != n:
            raise ValueError("base and threshold disagree on the particles")
        cdef const int[::1] gs = self._goals(goal, n, "base")
        cdef const int[:, ::1] bo = self._rows(old_beliefs, n)
        cdef const int[:, ::1] bn = self._rows(new_beliefs, n)
        out = np.empty(n, dtype=np.float64)
        cdef double[::1] res = out
        cdef double* qbar = <double*> malloc(self._width() * sizeof(double))
        cdef int* kept = <int*> malloc(max(self.epochs, 1) * max(self.k, 1) * sizeof(int))
        cdef int* sizes = <int*> malloc(max(self.epochs, 1) * sizeof(int))
        cdef int* kept2 = <int*> malloc(max(self.k, 1) * sizeof(int))
        try:
            with nogil:
                for i in range(n):
                    if i + AHEAD < n:
                        self._prefetch(gs[i + AHEAD], 1, &b0[i + AHEAD], &bo[i + AHEAD, 0], &bn[i + AHEAD, 0],
                                       kept, kept2)
                    if b0[i] > -INFINITY:
                        res[i] = self._propose(gs[i], &bo[i, 0], &bn[i, 0], b0[i], th[i], kept, sizes, kept2, qbar)
                    else:
                        res[i] = b0[i]
        finally:
            free(qbar)
            free(kept)
            free(sizes)
            free(kept2)
        return out

    cdef const int[::1] _goals(self, goal, Py_ssize_t n, str others):
        """``goal`` as ``n`` goal indices of this history (int32), checked: one per
        particle of ``others`` and each in range, else a ValueError."""
        cdef const int[::1] gs = np.ascontiguousarray(goal, dtype=np.int32)
        cdef Py_ssize_t i
        if gs.shape[0] != n:
            raise ValueError(f"goal and {others} disagree on the particles")
        for i in range(n):
            if not 0 <= gs[i] < self.n_goals:
                raise ValueError("goal out of range")
        return gs

    cdef int _width(self):
        cdef int t, w = 1
        for t in range(self.steps):
            w = max(w, self._n_actions[t])
        return w

    def _rows(self, beliefs, Py_ssize_t n):
        rows = np.ascontiguousarray(beliefs, dtype=np.int32)
        if rows.ndim != 2 or rows.shape[0] != n or rows.shape[1] != self.k:
            raise ValueError(f"beliefs must be ({n}, {self.k})")
        if n and (rows.min() < 0 or rows.max() >= self.n_states):
            raise ValueError("a belief particle is out of range")
        return rows


cdef void* _grow(void* old, size_t size) except NULL:
    cdef void* out = realloc(old, size)
    if out == NULL:
        raise MemoryError()
    return out


def island_summary(hist_goals, weights, goal, island, int n_islands):
    """In one pass over the particles: the goal posterior Σ_i w_i p(goal | particle i) as
    :func:`goal_posterior` gives it (the same sums in the same order), and per island
    (``island (N,)`` each particle's, ``0..n_islands-1``) its weight ``mass``, its sum of
    squared weights ``square`` and ``drift``: Σ_g |Σ_{i in island} w_i (p(g | i) − [goal_i = g])|,
    how far the goals the island's particles hold are from what their likelihoods say.
    Returns ``(given (G,), mass (M,), square (M,), drift (M,))``."""
    cdef const double[:, ::1] h = np.ascontiguousarray(hist_goals, dtype=np.float64)
    cdef const double[::1] w = np.ascontiguousarray(weights, dtype=np.float64)
    cdef const int[::1] gs = np.ascontiguousarray(goal, dtype=np.int32)
    cdef const cnp.int64_t[::1] isl = np.ascontiguousarray(island, dtype=np.int64)
    cdef Py_ssize_t n = h.shape[0], n_goals = h.shape[1], i, g, j
    if w.shape[0] != n or gs.shape[0] != n or isl.shape[0] != n:
        raise ValueError("hist_goals, weights, goal and island disagree on the particles")
    for i in range(n):
        if not 0 <= isl[i] < n_islands or not 0 <= gs[i] < n_goals:
            raise ValueError("island or goal out of range")
    given_arr = np.zeros(n_goals, dtype=np.float64)
    mass_arr = np.zeros(n_islands, dtype=np.float64)
    square_arr = np.zeros(n_islands, dtype=np.float64)
    drift_arr = np.zeros(n_islands, dtype=np.float64)
    gap_arr = np.zeros((n_islands, max(n_goals, 1)), dtype=np.float64)
    cdef double[::1] given = given_arr, mass = mass_arr, square = square_arr, drift = drift_arr
    cdef double[:, ::1] gap = gap_arr
    cdef double* p = <double*> malloc(max(n_goals, 1) * sizeof(double))
    try:
        with nogil:
            for i in range(n):
                if w[i] <= 0.0:
                    continue
                j = isl[i]
                mass[j] += w[i]
                square[j] += w[i] * w[i]
                _goal_softmax(&h[i, 0], n_goals, p)
                for g in range(n_goals):
                    given[g] += w[i] * p[g]
                    gap[j, g] += w[i] * p[g]
                gap[j, gs[i]] -= w[i]
            for j in range(n_islands):
                for g in range(n_goals):
                    drift[j] += gap[j, g] if gap[j, g] >= 0 else -gap[j, g]
    finally:
        free(p)
    return given_arr, mass_arr, square_arr, drift_arr
