# cython: language_level=3, embedsignature=True, boundscheck=False, wraparound=False
# cython: cdivision=True, initializedcheck=False
"""Compiled BToM core: path costs, belief filtering, QMDP likelihoods, weight updates.

Same functions and signatures as :mod:`btom_ext.reference` (which documents the numeric
encoding of layouts and worlds); the tests hold the two to the same results. Data lives in
contiguous typed memoryviews and the hot loops run without the GIL.

**Path costs.** Instead of searching the primitive state space, the planner searches over
*subgoal sequences*: from the agent's cell, the next useful event is picking up a key
(travel, open its box if closed, pick up), unlocking a door (travel to a 4-neighbour of the
door, unlock) or picking up the goal gem (travel, pick up). Travel costs are grid BFS
distances, precomputed once per locked-door mask for every pair of cells. The optimal cost
``V(cell, locks, key statuses)`` satisfies a recursion over these events whose key
statuses strictly progress, and is memoized in a hash table shared by every query, step
and hypothesis. Opening a box is only ever useful to pick up what is inside, and doing so
from the box's own cell costs the same as from next to it, which is why the events above
are enough for the costs to equal BFS exactly.
"""

import numpy as np
cimport numpy as cnp
from libc.float cimport DBL_MIN
from libc.math cimport exp, log, INFINITY
from libc.stdlib cimport malloc, calloc, free
from libc.stdint cimport int64_t, uint64_t

cnp.import_array()

cdef double Q_FLOOR = -100.0

UNREACHABLE = -1
EPSILON = 5e-324

# Limits of the planner's packed memo keys.
MAX_KEYS = 8
MAX_DOORS = 8
MAX_GEMS = 16
MAX_CELLS = 1024


cdef class Planner:
    """Optimal path costs ``h_g`` in fully known worlds (subgoal DP, exact; see the module)."""

    def __cinit__(self, walls, width, door_cells, door_colours, box_cells, gem_cells):
        cdef const unsigned char[::1] w = np.ascontiguousarray(walls, dtype=np.uint8).ravel()
        cdef const int[::1] dc = np.ascontiguousarray(door_cells, dtype=np.int32)
        cdef const int[::1] dk = np.ascontiguousarray(door_colours, dtype=np.int32)
        cdef const int[::1] bc = np.ascontiguousarray(box_cells, dtype=np.int32)
        cdef const int[::1] gc = np.ascontiguousarray(gem_cells, dtype=np.int32)
        cdef int i, c, x, y
        self.width = width
        self.n_cells = w.shape[0]
        self.height = self.n_cells // self.width
        self.n_doors = dc.shape[0]
        self.n_boxes = bc.shape[0]
        self.n_gems = gc.shape[0]
        if self.n_cells > MAX_CELLS or self.n_doors > MAX_DOORS or self.n_gems > MAX_GEMS:
            raise ValueError(
                f"map too large for the compiled planner (at most {MAX_CELLS} cells, "
                f"{MAX_DOORS} doors, {MAX_GEMS} gems)"
            )
        self.walls = <unsigned char*> malloc(self.n_cells)
        self.door_at = <int*> malloc(self.n_cells * sizeof(int))
        self.nbr = <int*> malloc(4 * self.n_cells * sizeof(int))
        self.door_cells = <int*> malloc((self.n_doors + 1) * sizeof(int))
        self.door_colours = <int*> malloc((self.n_doors + 1) * sizeof(int))
        self.box_cells = <int*> malloc((self.n_boxes + 1) * sizeof(int))
        self.gem_cells = <int*> malloc((self.n_gems + 1) * sizeof(int))
        self.dist = <int**> calloc(1 << self.n_doors, sizeof(int*))
        for c in range(self.n_cells):
            self.walls[c] = w[c]
            self.door_at[c] = -1
            x = c % self.width
            y = c // self.width
            self.nbr[4 * c + 0] = c - self.width if y > 0 else -1
            self.nbr[4 * c + 1] = c + self.width if y < self.height - 1 else -1
            self.nbr[4 * c + 2] = c - 1 if x > 0 else -1
            self.nbr[4 * c + 3] = c + 1 if x < self.width - 1 else -1
        for i in range(self.n_doors):
            self.door_cells[i] = dc[i]
            self.door_colours[i] = dk[i]
            self.door_at[dc[i]] = i
        for i in range(self.n_boxes):
            self.box_cells[i] = bc[i]
        for i in range(self.n_gems):
            self.gem_cells[i] = gc[i]
        self.memo_capacity = 1 << 12
        self.memo_size = 0
        self.memo_keys = <int64_t*> malloc(self.memo_capacity * sizeof(int64_t))
        self.memo_values = <int*> malloc(self.memo_capacity * sizeof(int))
        for i in range(self.memo_capacity):
            self.memo_keys[i] = -1
        self.configs = {}

    def __dealloc__(self):
        cdef int m
        if self.dist != NULL:
            for m in range(1 << self.n_doors):
                free(self.dist[m])
        free(self.dist)
        free(self.walls)
        free(self.door_at)
        free(self.nbr)
        free(self.door_cells)
        free(self.door_colours)
        free(self.box_cells)
        free(self.gem_cells)
        free(self.memo_keys)
        free(self.memo_values)

    @property
    def memo_entries(self):
        """Number of memoized subgoal values."""
        return self.memo_size

    # -- grid distances -------------------------------------------------------------------
    cdef int* _distances(self, int locked) noexcept nogil:
        """All-pairs BFS distances with the doors of ``locked`` closed (built on first use)."""
        cdef int* table = self.dist[locked]
        cdef int* queue
        cdef int n = self.n_cells, src, head, tail, c, i, nb, d
        if table != NULL:
            return table
        table = <int*> malloc(n * n * sizeof(int))
        queue = <int*> malloc(n * sizeof(int))
        for src in range(n):
            for c in range(n):
                table[src * n + c] = INF
            table[src * n + src] = 0
            head = 0
            tail = 0
            queue[tail] = src
            tail += 1
            while head < tail:
                c = queue[head]
                head += 1
                d = table[src * n + c] + 1
                for i in range(4):
                    nb = self.nbr[4 * c + i]
                    if nb < 0 or self.walls[nb] or table[src * n + nb] != INF:
                        continue
                    if self.door_at[nb] >= 0 and (locked >> self.door_at[nb]) & 1:
                        continue
                    table[src * n + nb] = d
                    queue[tail] = nb
                    tail += 1
        free(queue)
        self.dist[locked] = table
        return table

    # -- memo -----------------------------------------------------------------------------
    cdef Py_ssize_t _slot(self, int64_t key) noexcept nogil:
        cdef uint64_t h = <uint64_t> key * <uint64_t> 0x9E3779B97F4A7C15ULL
        cdef Py_ssize_t mask = self.memo_capacity - 1
        cdef Py_ssize_t i = <Py_ssize_t> (h >> 20) & mask
        while self.memo_keys[i] != -1 and self.memo_keys[i] != key:
            i = (i + 1) & mask
        return i

    cdef void _store(self, int64_t key, int value) noexcept nogil:
        cdef Py_ssize_t i, old_capacity
        cdef int64_t* old_keys
        cdef int* old_values
        if 2 * (self.memo_size + 1) > self.memo_capacity:
            old_keys = self.memo_keys
            old_values = self.memo_values
            old_capacity = self.memo_capacity
            self.memo_capacity *= 2
            self.memo_keys = <int64_t*> malloc(self.memo_capacity * sizeof(int64_t))
            self.memo_values = <int*> malloc(self.memo_capacity * sizeof(int))
            for i in range(self.memo_capacity):
                self.memo_keys[i] = -1
            for i in range(old_capacity):
                if old_keys[i] != -1:
                    self._put(old_keys[i], old_values[i])
            free(old_keys)
            free(old_values)
        self._put(key, value)
        self.memo_size += 1

    cdef void _put(self, int64_t key, int value) noexcept nogil:
        cdef Py_ssize_t i = self._slot(key)
        self.memo_keys[i] = key
        self.memo_values[i] = value

    # -- subgoal DP -----------------------------------------------------------------------
    cdef int _value(self, int64_t config, int goal, int cell, int locked, unsigned int status,
                    int n_keys, const int* key_cell, const int* key_box,
                    const int* key_colour) noexcept nogil:
        """Fewest actions from (cell, locks, statuses) until the goal gem is held."""
        cdef int64_t key = ((((config << 4 | goal) << 10 | cell) << 8 | locked) << 16) | status
        cdef Py_ssize_t slot = self._slot(key)
        if self.memo_keys[slot] == key:
            return self.memo_values[slot]
        cdef int* dist = self._distances(locked)
        cdef int n = self.n_cells
        cdef int best = INF, k, k2, st, d, i, cost, v, nb, door, target, other
        cdef unsigned int next_status
        cdef bint duplicate
        d = dist[cell * n + self.gem_cells[goal]]
        if d < INF:
            best = d + 1
        for k in range(n_keys):
            st = (status >> (2 * k)) & 3
            if st == IN_PLACE or st == IN_CLOSED_BOX:
                target = key_cell[k]
                d = dist[cell * n + target]
                cost = d + 1 + (1 if st == IN_CLOSED_BOX else 0)
                if d >= INF or cost + 1 >= best:  # every remaining plan costs >= 1 more
                    continue
                next_status = (status & ~(3u << (2 * k))) | (<unsigned int> HELD << (2 * k))
                if st == IN_CLOSED_BOX:  # opening the box reveals everything inside
                    for k2 in range(n_keys):
                        if k2 != k and key_box[k2] == key_box[k] and \
                                ((next_status >> (2 * k2)) & 3) == IN_CLOSED_BOX:
                            next_status &= ~(3u << (2 * k2))
                v = self._value(config, goal, target, locked, next_status,
                                n_keys, key_cell, key_box, key_colour)
                if v < INF and cost + v < best:
                    best = cost + v
            elif st == HELD:
                # Held keys of one colour are interchangeable: try only the first of them.
                duplicate = False
                for k2 in range(k):
                    if ((status >> (2 * k2)) & 3) == HELD and key_colour[k2] == key_colour[k]:
                        duplicate = True
                        break
                if duplicate:
                    continue
                next_status = status | (<unsigned int> GONE << (2 * k))
                for door in range(self.n_doors):
                    if not ((locked >> door) & 1) or self.door_colours[door] != key_colour[k]:
                        continue
                    for i in range(4):
                        nb = self.nbr[4 * self.door_cells[door] + i]
                        if nb < 0:
                            continue
                        d = dist[cell * n + nb]
                        if d >= INF or d + 2 >= best:
                            continue
                        v = self._value(config, goal, nb, locked & ~(1 << door), next_status,
                                        n_keys, key_cell, key_box, key_colour)
                        if v < INF and d + 1 + v < best:
                            best = d + 1 + v
        self._store(key, best)
        return best

    def costs(self, worlds):
        """``h[n, g]``: fewest actions from world n until gem g is held (-1 if impossible)."""
        cdef const int[:, ::1] rows = np.ascontiguousarray(worlds, dtype=np.int32)
        cdef Py_ssize_t n_worlds = rows.shape[0], n, k
        cdef int n_keys = (rows.shape[1] - KEYS) // 3
        if rows.shape[1] != KEYS + 3 * n_keys or n_keys > MAX_KEYS:
            raise ValueError(f"world rows must have 4 + 3*K columns with K <= {MAX_KEYS}")
        out = np.empty((n_worlds, self.n_gems), dtype=np.int32)
        cdef int[:, ::1] res = out
        cdef int[::1] key_cell = np.empty(max(n_keys, 1), dtype=np.int32)
        cdef int[::1] key_box = np.empty(max(n_keys, 1), dtype=np.int32)
        cdef int g, st, value
        cdef unsigned int status
        cdef int64_t config
        for n in range(n_worlds):
            # Key positions and colours are fixed along a plan: intern them as a config id.
            signature = bytes(np.asarray(rows[n, KEYS + n_keys:]).tobytes())
            config = self.configs.setdefault(signature, len(self.configs))
            if config >= 1 << 16:
                self.configs.clear()
                self._clear_memo()
                config = self.configs.setdefault(signature, 0)
            status = 0
            for k in range(n_keys):
                st = rows[n, KEYS + k]
                key_box[k] = -1
                key_cell[k] = -1
                if st == FLOOR:
                    key_cell[k] = rows[n, KEYS + n_keys + k]
                elif st == BOX:
                    key_box[k] = rows[n, KEYS + n_keys + k]
                    key_cell[k] = self.box_cells[key_box[k]]
                    if (rows[n, CLOSED] >> key_box[k]) & 1:
                        st = IN_CLOSED_BOX
                    else:
                        st = IN_PLACE
                status |= (<unsigned int> st) << (2 * k)
            with nogil:
                for g in range(self.n_gems):
                    if (rows[n, GEMS] >> g) & 1:
                        res[n, g] = 0
                        continue
                    value = self._value(config, g, rows[n, AGENT], rows[n, LOCKED], status,
                                        n_keys, &key_cell[0], &key_box[0],
                                        &rows[n, KEYS + 2 * n_keys] if n_keys else &rows[n, 0])
                    res[n, g] = value if value < INF else -1
        return out

    cdef void _clear_memo(self):
        cdef Py_ssize_t i
        for i in range(self.memo_capacity):
            self.memo_keys[i] = -1
        self.memo_size = 0


def manhattan_costs(int width, gem_cells, worlds):
    """The non-planning ablation's ``h[n, g]``: Manhattan distance to gem g plus 1, 0 once held."""
    cdef const int[::1] gems = np.ascontiguousarray(gem_cells, dtype=np.int32)
    cdef const int[:, ::1] rows = np.ascontiguousarray(worlds, dtype=np.int32)
    cdef Py_ssize_t n, g
    cdef int agent
    out = np.empty((rows.shape[0], gems.shape[0]), dtype=np.int32)
    cdef int[:, ::1] res = out
    with nogil:
        for n in range(rows.shape[0]):
            agent = rows[n, AGENT]
            for g in range(gems.shape[0]):
                if (rows[n, GEMS] >> g) & 1:
                    res[n, g] = 0
                else:
                    res[n, g] = (abs(agent % width - gems[g] % width)
                                 + abs(agent // width - gems[g] // width) + 1)
    return out


def filter_beliefs(initial, alive):
    """Beliefs after perception, per (true state s, initial belief b) pair.

    ``initial[s, b, j]``: initial weight of state j (count / k, or EPSILON);
    ``alive[s, j]``: state j still agrees with what was seen in true state s. Ruled-out
    states get 0 and the rest are renormalized (summed in index order, then divided).
    """
    cdef const double[:, :, ::1] w0 = np.ascontiguousarray(initial, dtype=np.float64)
    cdef const unsigned char[:, ::1] ok = np.ascontiguousarray(alive, dtype=np.uint8)
    cdef Py_ssize_t n_s = w0.shape[0], n_b = w0.shape[1], n_j = w0.shape[2], s, b, j
    cdef double total
    out = np.zeros((n_s, n_b, n_j), dtype=np.float64)
    cdef double[:, :, ::1] res = out
    with nogil:
        for s in range(n_s):
            for b in range(n_b):
                total = 0.0
                for j in range(n_j):
                    if ok[s, j]:
                        total = total + w0[s, b, j]
                if total > 0.0:
                    for j in range(n_j):
                        if ok[s, j]:
                            res[s, b, j] = w0[s, b, j] / total
    return out


def qmdp_loglik(beliefs, costs, int action, double beta, hyp_goal, hyp_state, hyp_belief,
                active):
    """Log-probability of the observed action under each hypothesis's Boltzmann QMDP policy.

    ``beliefs[s, b, j]`` from :func:`filter_beliefs`; ``costs[g, j, a]``: path cost to goal
    g after action a from belief state j (read only where the belief is positive). Returns
    ``beta * Qbar(action) - logsumexp(beta * Qbar)`` per hypothesis, 0 where not active.
    """
    cdef const double[:, :, ::1] bel = np.ascontiguousarray(beliefs, dtype=np.float64)
    cdef const int[:, :, ::1] h = np.ascontiguousarray(costs, dtype=np.int32)
    cdef const int[::1] goal = np.ascontiguousarray(hyp_goal, dtype=np.int32)
    cdef const int[::1] state = np.ascontiguousarray(hyp_state, dtype=np.int32)
    cdef const int[::1] belief = np.ascontiguousarray(hyp_belief, dtype=np.int32)
    cdef const unsigned char[::1] on = np.ascontiguousarray(active, dtype=np.uint8)
    cdef Py_ssize_t n_hyp = goal.shape[0], n_g = h.shape[0], n_j = h.shape[1]
    cdef Py_ssize_t n_a = h.shape[2], i, j, a, g
    cdef double total, w, top, norm
    if n_a == 0 or not 0 <= action < n_a:
        raise ValueError(f"action index {action} out of range for {n_a} actions")
    values_arr = np.empty((n_g, n_j, n_a), dtype=np.float64)
    cdef double[:, :, ::1] q = values_arr
    logits_arr = np.empty(n_a, dtype=np.float64)
    cdef double[::1] logits = logits_arr
    out = np.zeros(n_hyp, dtype=np.float64)
    cdef double[::1] res = out
    with nogil:
        for g in range(n_g):
            for j in range(n_j):
                for a in range(n_a):
                    if h[g, j, a] < 0:
                        q[g, j, a] = Q_FLOOR
                    else:
                        q[g, j, a] = -1.0 - h[g, j, a]
                        if q[g, j, a] < Q_FLOOR:
                            q[g, j, a] = Q_FLOOR
        for i in range(n_hyp):
            if not on[i]:
                continue
            g = goal[i]
            top = -INFINITY
            for a in range(n_a):
                total = 0.0
                for j in range(n_j):
                    w = bel[state[i], belief[i], j]
                    # A subnormal weight (a state holding no particle) adds less than half
                    # an ulp to a sum that also has a term of weight >= 1/n_states, so
                    # skipping it gives the same double and avoids slow subnormal arithmetic.
                    if w >= DBL_MIN:
                        total = total + w * q[g, j, a]
                logits[a] = beta * total
                if logits[a] > top:
                    top = logits[a]
            norm = 0.0
            for a in range(n_a):
                norm = norm + exp(logits[a] - top)
            res[i] = logits[action] - (top + log(norm))
    return out


def update_weights(logw, loglik, consistent):
    """The observer's update in log space: ``logw + loglik``, or -inf where inconsistent."""
    cdef const double[::1] w = np.ascontiguousarray(logw, dtype=np.float64)
    cdef const double[::1] ll = np.ascontiguousarray(loglik, dtype=np.float64)
    cdef const unsigned char[::1] ok = np.ascontiguousarray(consistent, dtype=np.uint8)
    cdef Py_ssize_t i, n = w.shape[0]
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] res = out
    with nogil:
        for i in range(n):
            res[i] = w[i] + ll[i] if ok[i] else -INFINITY
    return out
