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
from libc.string cimport memcmp, memcpy
from libc.stdint cimport int64_t, uint32_t, uint64_t

cnp.import_array()

cdef double Q_FLOOR = -100.0

UNREACHABLE = -1
EPSILON = 5e-324

# Doors, boxes and held gems are bits of an int32 field of a world row (see
# btom_ext.reference), so a layout may have at most 31 of each. Keys are not bounded: the
# planner's memo key takes one more 64-bit word per 32 keys.
MAX_DOORS = 31
MAX_BOXES = 31
MAX_GEMS = 31
# Cells: 2**20 leaves the memo key's head word at least 8 bits for key configurations
# (a .scn map is at most 256 x 256 = 65536 cells).
MAX_CELLS = 1 << 20

cdef int MEMO_EMPTY = -1
cdef uint32_t NO_MASK = 0xFFFFFFFFu


cdef inline int _bit_length(unsigned int n) noexcept nogil:
    cdef int bits = 0
    while n:
        bits += 1
        n >>= 1
    return bits


cdef inline int _status(const uint64_t* status, int k) noexcept nogil:
    return <int> ((status[k >> 5] >> (2 * (k & 31))) & 3)


cdef inline void _set_status(uint64_t* status, int k, int value) noexcept nogil:
    cdef int shift = 2 * (k & 31)
    status[k >> 5] = (status[k >> 5] & ~(<uint64_t> 3 << shift)) | (<uint64_t> value << shift)


cdef class Planner:
    """Optimal path costs ``h_g`` in fully known worlds (subgoal DP, exact; see the module).

    The memo key of a subgoal value is a bit string of as many 64-bit words as the layout
    needs: the key configuration's id, the goal, the agent's cell, the locked-door mask and
    two bits per key status. The dataset's maps fit in one word; bigger maps take more,
    so there is no limit on keys or cells beyond memory.
    """

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
        if self.n_doors > MAX_DOORS or self.n_boxes > MAX_BOXES or self.n_gems > MAX_GEMS:
            raise ValueError(
                f"a world row holds doors, boxes and gems as bits of an int32: at most "
                f"{MAX_DOORS} doors, {MAX_BOXES} boxes and {MAX_GEMS} gems (got {self.n_doors}, "
                f"{self.n_boxes}, {self.n_gems})"
            )
        if self.n_cells > MAX_CELLS:
            raise ValueError(f"at most {MAX_CELLS} cells (got {self.n_cells})")
        self.walls = <unsigned char*> malloc(self.n_cells)
        self.door_at = <int*> malloc(self.n_cells * sizeof(int))
        self.nbr = <int*> malloc(4 * self.n_cells * sizeof(int))
        self.door_cells = <int*> malloc((self.n_doors + 1) * sizeof(int))
        self.door_colours = <int*> malloc((self.n_doors + 1) * sizeof(int))
        self.box_cells = <int*> malloc((self.n_boxes + 1) * sizeof(int))
        self.gem_cells = <int*> malloc((self.n_gems + 1) * sizeof(int))
        if self.walls == NULL or self.door_at == NULL or self.nbr == NULL or self.door_cells == NULL \
                or self.door_colours == NULL or self.box_cells == NULL or self.gem_cells == NULL:
            raise MemoryError("not enough memory for the planner's map")
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
        self.dist_capacity = 16
        self.dist_size = 0
        self.dist_bytes = 0
        self.max_bytes = 0
        self.dist_masks = <uint32_t*> malloc(self.dist_capacity * sizeof(uint32_t))
        # calloc: every row pointer NULL, so that __dealloc__ after a failure frees nothing wild
        self.dist_rows = <int***> calloc(self.dist_capacity, sizeof(int**))
        if self.dist_masks == NULL or self.dist_rows == NULL:
            raise MemoryError("not enough memory for the planner's distance table")
        for i in range(self.dist_capacity):
            self.dist_masks[i] = NO_MASK
        # The memo key's head word: the interned key configuration in the low bits (as
        # many as the rest leaves, at most 32), then goal, cell and locked-door mask.
        self.shift_goal = 64 - self.n_doors - _bit_length(self.n_cells - 1) - _bit_length(self.n_gems - 1)
        if self.shift_goal > 32:
            self.shift_goal = 32
        self.shift_cell = self.shift_goal + _bit_length(self.n_gems - 1)
        self.shift_locked = self.shift_cell + _bit_length(self.n_cells - 1)
        self.max_configs = (<uint64_t> 1) << self.shift_goal
        self.memo_keys = NULL
        self.memo_values = NULL
        self._layout_memo(0)
        self.configs = {}

    def __dealloc__(self):
        cdef Py_ssize_t i
        cdef int c
        if self.dist_rows != NULL:
            for i in range(self.dist_capacity):
                if self.dist_rows[i] != NULL:
                    for c in range(self.n_cells):
                        free(self.dist_rows[i][c])
                    free(self.dist_rows[i])
        free(self.dist_rows)
        free(self.dist_masks)
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

    @property
    def key_words(self):
        """64-bit words per memo key for the worlds last queried (1 + 1 per 32 keys)."""
        return self.words

    # -- memory ---------------------------------------------------------------------------
    cdef bint _over(self, Py_ssize_t extra) noexcept nogil:
        """Whether holding ``extra`` more bytes would pass ``max_bytes`` (the distance rows,
        both tables and the memo counted); if so ``out_of_memory`` is set, as when an
        allocation fails, so that the search unwinds the same way."""
        if self.max_bytes <= 0:
            return False
        cdef Py_ssize_t held = self.dist_bytes + self.dist_capacity * (sizeof(uint32_t) + sizeof(int**)) \
            + self.memo_capacity * (self.words * sizeof(uint64_t) + sizeof(int))
        if held + extra > self.max_bytes:
            self.out_of_memory = True
            return True
        return False

    # -- grid distances -------------------------------------------------------------------
    cdef int* _row(self, uint32_t locked, int source) noexcept nogil:
        """BFS distances from ``source`` with the doors of ``locked`` closed (built on first
        use, kept per locked-door mask and source cell); NULL, with ``out_of_memory`` set,
        when memory for it cannot be had (nothing half-built is kept)."""
        cdef Py_ssize_t mask = self.dist_capacity - 1
        cdef Py_ssize_t i = <Py_ssize_t> ((<uint64_t> locked * 0x9E3779B97F4A7C15ULL) >> 32) & mask
        cdef int** rows
        cdef int* row
        cdef int* queue
        cdef int n = self.n_cells, head, tail, c, k, nb, d
        while self.dist_masks[i] != NO_MASK and self.dist_masks[i] != locked:
            i = (i + 1) & mask
        if self.dist_masks[i] == NO_MASK:
            if 2 * (self.dist_size + 1) > self.dist_capacity:
                if self._grow_distances() < 0:
                    return NULL
                return self._row(locked, source)
            if self._over(n * sizeof(int*)):
                return NULL
            rows = <int**> calloc(n, sizeof(int*))
            if rows == NULL:
                self.out_of_memory = True
                return NULL
            self.dist_bytes += n * sizeof(int*)
            self.dist_masks[i] = locked
            self.dist_rows[i] = rows
            self.dist_size += 1
        rows = self.dist_rows[i]
        if rows[source] != NULL:
            return rows[source]
        if self._over(2 * n * sizeof(int)):     # the row, and the queue while it is built
            return NULL
        row = <int*> malloc(n * sizeof(int))
        queue = <int*> malloc(n * sizeof(int))
        if row == NULL or queue == NULL:
            free(row)
            free(queue)
            self.out_of_memory = True
            return NULL
        self.dist_bytes += n * sizeof(int)
        for c in range(n):
            row[c] = INF
        row[source] = 0
        head = 0
        tail = 1
        queue[0] = source
        while head < tail:
            c = queue[head]
            head += 1
            d = row[c] + 1
            for k in range(4):
                nb = self.nbr[4 * c + k]
                if nb < 0 or self.walls[nb] or row[nb] != INF:
                    continue
                if self.door_at[nb] >= 0 and (locked >> self.door_at[nb]) & 1:
                    continue
                row[nb] = d
                queue[tail] = nb
                tail += 1
        free(queue)
        rows[source] = row
        return row

    cdef int _grow_distances(self) noexcept nogil:
        """Double the distance table; -1 (``out_of_memory`` set, the table as it was) when
        memory for the larger one cannot be had."""
        cdef uint32_t* old_masks = self.dist_masks
        cdef int*** old_rows = self.dist_rows
        cdef Py_ssize_t old_capacity = self.dist_capacity, i, j, mask
        if self._over(2 * old_capacity * (sizeof(uint32_t) + sizeof(int**))):
            return -1
        cdef uint32_t* new_masks = <uint32_t*> malloc(2 * old_capacity * sizeof(uint32_t))
        cdef int*** new_rows = <int***> malloc(2 * old_capacity * sizeof(int**))
        if new_masks == NULL or new_rows == NULL:
            free(new_masks)
            free(new_rows)
            self.out_of_memory = True
            return -1
        self.dist_capacity *= 2
        mask = self.dist_capacity - 1
        self.dist_masks = new_masks
        self.dist_rows = new_rows
        for i in range(self.dist_capacity):
            self.dist_masks[i] = NO_MASK
            self.dist_rows[i] = NULL
        for i in range(old_capacity):
            if old_masks[i] == NO_MASK:
                continue
            j = <Py_ssize_t> ((<uint64_t> old_masks[i] * 0x9E3779B97F4A7C15ULL) >> 32) & mask
            while self.dist_masks[j] != NO_MASK:
                j = (j + 1) & mask
            self.dist_masks[j] = old_masks[i]
            self.dist_rows[j] = old_rows[i]
        free(old_masks)
        free(old_rows)
        return 0

    # -- memo -----------------------------------------------------------------------------
    cdef int _layout_memo(self, int n_keys) except -1:
        """An empty memo whose keys fit worlds of ``n_keys`` keys (MemoryError when it cannot
        be had; the next ``costs`` call lays it out again)."""
        cdef Py_ssize_t i
        self.memo_keys_for = n_keys
        self.status_words = (2 * n_keys + 63) // 64 if n_keys else 1
        self.words = 1 + self.status_words
        self.memo_capacity = 1 << 12
        self.memo_size = 0
        self.out_of_memory = False
        free(self.memo_keys)
        free(self.memo_values)
        self.memo_keys = <uint64_t*> malloc(self.memo_capacity * self.words * sizeof(uint64_t))
        self.memo_values = <int*> malloc(self.memo_capacity * sizeof(int))
        if self.memo_keys == NULL or self.memo_values == NULL:
            free(self.memo_keys)
            free(self.memo_values)
            self.memo_keys = NULL
            self.memo_values = NULL
            self.memo_capacity = 0
            self.memo_keys_for = -1
            raise MemoryError("not enough memory for the planner's memo")
        for i in range(self.memo_capacity):
            self.memo_values[i] = MEMO_EMPTY

    cdef Py_ssize_t _slot(self, uint64_t head, const uint64_t* status) noexcept nogil:
        cdef Py_ssize_t mask = self.memo_capacity - 1
        cdef int w, n = self.status_words
        cdef uint64_t h = head * 0x9E3779B97F4A7C15ULL
        cdef const uint64_t* stored
        for w in range(n):
            h = (h ^ (h >> 29) ^ status[w]) * 0x9E3779B97F4A7C15ULL
        cdef Py_ssize_t i = <Py_ssize_t> (h >> 20) & mask
        while self.memo_values[i] != MEMO_EMPTY:
            stored = self.memo_keys + i * self.words
            if stored[0] == head:
                w = 0
                while w < n and stored[1 + w] == status[w]:
                    w += 1
                if w == n:
                    return i
            i = (i + 1) & mask
        return i

    cdef void _store(self, uint64_t head, const uint64_t* status, int value) noexcept nogil:
        cdef Py_ssize_t i, old_capacity
        cdef uint64_t* old_keys
        cdef int* old_values
        cdef uint64_t* new_keys
        cdef int* new_values
        cdef int n = self.words
        if 2 * (self.memo_size + 1) > self.memo_capacity and \
                self.memo_values[self._slot(head, status)] == MEMO_EMPTY:
            old_keys = self.memo_keys
            old_values = self.memo_values
            old_capacity = self.memo_capacity
            if self._over(2 * old_capacity * (n * sizeof(uint64_t) + sizeof(int))):
                return      # as a failed allocation: this value is not kept, the search stops
            new_keys = <uint64_t*> malloc(2 * old_capacity * n * sizeof(uint64_t))
            new_values = <int*> malloc(2 * old_capacity * sizeof(int))
            if new_keys == NULL or new_values == NULL:
                # the memo stays as it was, and this value is not kept: the search stops
                free(new_keys)
                free(new_values)
                self.out_of_memory = True
                return
            self.memo_capacity *= 2
            self.memo_keys = new_keys
            self.memo_values = new_values
            for i in range(self.memo_capacity):
                self.memo_values[i] = MEMO_EMPTY
            for i in range(old_capacity):
                if old_values[i] != MEMO_EMPTY:
                    self._put(old_keys[i * n], old_keys + i * n + 1, old_values[i])
            free(old_keys)
            free(old_values)
        self.memo_size += self._put(head, status, value)

    cdef int _put(self, uint64_t head, const uint64_t* status, int value) noexcept nogil:
        """Set a key's value; 1 if the key is new."""
        cdef Py_ssize_t i = self._slot(head, status)
        cdef int new = self.memo_values[i] == MEMO_EMPTY
        self.memo_keys[i * self.words] = head
        memcpy(self.memo_keys + i * self.words + 1, status, self.status_words * sizeof(uint64_t))
        self.memo_values[i] = value
        return new

    # -- subgoal DP -----------------------------------------------------------------------
    cdef int _value(self, Query* q, int goal, int cell, uint32_t locked, int depth,
                    int budget) noexcept nogil:
        """Fewest actions from (cell, locks, statuses at ``depth``) until the goal gem is held,
        if fewer than ``budget``; else some number >= ``budget`` (branch and bound: the
        caller has a plan that costs ``budget`` more than getting here).

        The memo holds exact values (>= 0) and lower bounds ``lb`` stored as ``-lb - 2``
        (a search cut by its budget): a lower bound answers a query whose budget it
        reaches, and is searched again, with the larger budget, otherwise.

        Key statuses are 2 bits per key, 32 keys per word, one row of ``status_words`` words
        of ``q.status`` per recursion depth (each level picks up or uses a key, so there
        are at most ``2 n_keys + 1``). The memo key is a head word (config, goal, cell,
        locked doors; the layout decides their widths) followed by the status words.
        """
        cdef int n_keys = q.n_keys, sw = self.status_words
        cdef uint64_t* status = q.status + depth * sw
        cdef uint64_t* child = status + sw
        cdef uint64_t head = (q.config | (<uint64_t> goal << self.shift_goal)
                              | (<uint64_t> cell << self.shift_cell)
                              | (<uint64_t> locked << self.shift_locked))
        cdef int k, k2, st, d, i, cost, v, nb, door, target, colour, held, doors
        cdef int best = INF, limit = budget, stored
        cdef bint duplicate
        if self.out_of_memory:    # unwinding: nothing more is searched or stored
            return INF
        cdef Py_ssize_t slot = self._slot(head, status)
        stored = self.memo_values[slot]
        if stored != MEMO_EMPTY:
            if stored >= 0:
                return stored
            if -stored - 2 >= budget:
                return -stored - 2
        cdef int* row = self._row(locked, cell)
        # Distances to the goal with every door open: a lower bound on the rest of any
        # plan (branches that cannot beat the best found so far are cut; values stay exact).
        cdef int* bound = self._row(0, self.gem_cells[goal])
        if row == NULL or bound == NULL:
            return INF
        d = row[self.gem_cells[goal]]
        if d < INF:
            best = d + 1
            if best < limit:
                limit = best
        for k in range(n_keys):
            st = _status(status, k)
            if st == IN_PLACE or st == IN_CLOSED_BOX:
                target = q.key_cell[k]
                d = row[target]
                cost = d + 1 + (1 if st == IN_CLOSED_BOX else 0)
                if d >= INF or cost + bound[target] + 1 >= limit:
                    continue
                # A key no locked door needs (as many of its colour are held as there are
                # locked doors of that colour) only costs its pickup: never optimal. This
                # keeps the search polynomial in the number of such keys.
                colour = q.key_colour[k]
                doors = 0
                for door in range(self.n_doors):
                    if (locked >> door) & 1 and self.door_colours[door] == colour:
                        doors += 1
                held = 0
                for k2 in range(n_keys):
                    if held >= doors:
                        break
                    if q.key_colour[k2] == colour and _status(status, k2) == HELD:
                        held += 1
                if held >= doors:
                    continue
                memcpy(child, status, sw * sizeof(uint64_t))
                _set_status(child, k, HELD)
                if st == IN_CLOSED_BOX:  # opening the box reveals everything inside
                    for k2 in range(n_keys):
                        if k2 != k and q.key_box[k2] == q.key_box[k] and \
                                _status(child, k2) == IN_CLOSED_BOX:
                            _set_status(child, k2, IN_PLACE)
                v = self._value(q, goal, target, locked, depth + 1, limit - cost)
                if v < INF and cost + v < best:
                    best = cost + v
                    if best < limit:
                        limit = best
            elif st == HELD:
                # Held keys of one colour are interchangeable: try only the first of them.
                duplicate = False
                for k2 in range(k):
                    if q.key_colour[k2] == q.key_colour[k] and _status(status, k2) == HELD:
                        duplicate = True
                        break
                if duplicate:
                    continue
                for door in range(self.n_doors):
                    if not ((locked >> door) & 1) or self.door_colours[door] != q.key_colour[k]:
                        continue
                    for i in range(4):
                        nb = self.nbr[4 * self.door_cells[door] + i]
                        if nb < 0:
                            continue
                        d = row[nb]
                        if d >= INF or d + 2 + bound[nb] >= limit:
                            continue
                        memcpy(child, status, sw * sizeof(uint64_t))
                        _set_status(child, k, GONE)
                        v = self._value(q, goal, nb, locked & ~(1u << door), depth + 1,
                                        limit - d - 1)
                        if v < INF and d + 1 + v < best:
                            best = d + 1 + v
                            if best < limit:
                                limit = best
        if self.out_of_memory:   # a branch was cut short: best is not a value to keep
            return INF
        if best < budget:  # every branch cut had a lower bound >= best: exact
            self._store(head, status, best)
            return best
        self._store(head, status, -budget - 2)
        return budget

    def costs(self, worlds):
        """``h[n, g]``: fewest actions from world n until gem g is held (-1 if impossible)."""
        cdef const int[:, ::1] rows = np.ascontiguousarray(worlds, dtype=np.int32)
        cdef Py_ssize_t n_worlds = rows.shape[0], n, k
        cdef int n_keys = (rows.shape[1] - KEYS) // 3
        if rows.shape[1] != KEYS + 3 * n_keys or n_keys < 0:
            raise ValueError(f"world rows must have 4 + 3*K columns, got {rows.shape[1]}")
        if n_keys != self.memo_keys_for:
            self.configs.clear()
            self._layout_memo(n_keys)
        out = np.empty((n_worlds, self.n_gems), dtype=np.int32)
        cdef int[:, ::1] res = out
        cdef int[::1] key_cell = np.empty(max(n_keys, 1), dtype=np.int32)
        cdef int[::1] key_box = np.empty(max(n_keys, 1), dtype=np.int32)
        cdef uint64_t[::1] status = np.empty((2 * n_keys + 2) * self.status_words, dtype=np.uint64)
        cdef int g, st, value
        cdef Query q
        q.n_keys = n_keys
        q.key_cell = &key_cell[0]
        q.key_box = &key_box[0]
        q.status = &status[0]
        for n in range(n_worlds):
            # Key positions and colours are fixed along a plan: intern them as a config id.
            # (the row's bytes, read in place: a NumPy slice per world cost more than the search)
            signature = (<const char*> &rows[n, KEYS + n_keys])[:2 * n_keys * sizeof(int)] if n_keys else b""
            config = self.configs.setdefault(signature, len(self.configs))
            if config >= self.max_configs:
                self.configs.clear()
                self._layout_memo(n_keys)
                config = self.configs.setdefault(signature, 0)
            q.config = config
            q.key_colour = &rows[n, KEYS + 2 * n_keys] if n_keys else &rows[n, 0]
            for k in range(self.status_words):
                status[k] = 0
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
                _set_status(&status[0], k, st)
            with nogil:
                for g in range(self.n_gems):
                    if (rows[n, GEMS] >> g) & 1:
                        res[n, g] = 0
                        continue
                    value = self._value(&q, g, rows[n, AGENT], <uint32_t> rows[n, LOCKED], 0, INF)
                    if self.out_of_memory:
                        break
                    res[n, g] = value if value < INF else -1
            if self.out_of_memory:
                entries = self.memo_size
                # give back what the memo holds (its values are exact, but a caller out
                # of memory is better off with the memory); the next call starts afresh
                self.configs.clear()
                self._layout_memo(n_keys)
                size = <double> self.max_bytes     # a C integer: divided as one, it would floor
                shown = f"{size / 2**30:.1f} GiB" if size >= 2**27 else f"{size / 2**20:.1f} MiB"
                limit = f" (its limit is {shown})" if self.max_bytes > 0 else ""
                raise MemoryError(f"the path planner ran out of memory{limit} after {n} of {n_worlds} "
                                  f"worlds ({entries:,} subgoal values memoized)")
        return out


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


# Action codes of Rules.apply (see btom_ext.reference).
UP, DOWN, LEFT, RIGHT = ACT_UP, ACT_DOWN, ACT_LEFT, ACT_RIGHT
PICKUP_KEY, PICKUP_GEM, OPEN, UNLOCK, NO_ACTION = ACT_PICKUP_KEY, ACT_PICKUP_GEM, ACT_OPEN, ACT_UNLOCK, ACT_NONE


cdef inline int _near(int a, int b, int width) noexcept nogil:
    return abs(a % width - b % width) + abs(a // width - b // width)


cdef class Rules:
    """The domain's actions on world rows: each action's precondition and effect (as
    :class:`btom_ext.reference.Rules`, and ``elot.domains.doors_keys_gems.world.WorldState``'s rules)."""

    cdef int width, height
    cdef object _walls, _door_cells, _door_colours, _box_cells, _gem_cells
    cdef const unsigned char[::1] walls
    cdef const int[::1] door_cells
    cdef const int[::1] door_colours
    cdef const int[::1] box_cells
    cdef const int[::1] gem_cells

    def __init__(self, walls, width, door_cells, door_colours, box_cells, gem_cells):
        self._walls = np.ascontiguousarray(walls, dtype=np.uint8).ravel()
        self._door_cells = np.ascontiguousarray(door_cells, dtype=np.int32)
        self._door_colours = np.ascontiguousarray(door_colours, dtype=np.int32)
        self._box_cells = np.ascontiguousarray(box_cells, dtype=np.int32)
        self._gem_cells = np.ascontiguousarray(gem_cells, dtype=np.int32)
        self.walls, self.door_cells, self.door_colours = self._walls, self._door_cells, self._door_colours
        self.box_cells, self.gem_cells = self._box_cells, self._gem_cells
        self.width = width
        self.height = self.walls.shape[0] // width

    cdef void _step(self, int* row, int n_keys, int code, int a, int b) noexcept nogil:
        # row, in place, after one action (unchanged where it is impossible)
        cdef int agent = row[AGENT], x = agent % self.width, y = agent // self.width, target, d, place
        cdef int status, where
        if code == ACT_UP or code == ACT_DOWN or code == ACT_LEFT or code == ACT_RIGHT:
            if code == ACT_UP:
                y = y - 1
            elif code == ACT_DOWN:
                y = y + 1
            elif code == ACT_LEFT:
                x = x - 1
            else:
                x = x + 1
            if x < 0 or x >= self.width or y < 0 or y >= self.height:
                return
            target = y * self.width + x
            if self.walls[target]:
                return
            for d in range(self.door_cells.shape[0]):
                if self.door_cells[d] == target and (row[LOCKED] >> d) & 1:
                    return
            row[AGENT] = target
        elif code == ACT_PICKUP_KEY:
            if not 0 <= a < n_keys:
                return
            status = row[KEYS + a]
            where = row[KEYS + n_keys + a]
            if status == FLOOR:
                place = where
            elif status == BOX and 0 <= where < self.box_cells.shape[0] and not (row[CLOSED] >> where) & 1:
                place = self.box_cells[where]
            else:
                return
            if place != agent:
                return
            row[KEYS + a] = HELD
            row[KEYS + n_keys + a] = -1
        elif code == ACT_PICKUP_GEM:
            if not 0 <= a < self.gem_cells.shape[0] or (row[GEMS] >> a) & 1 or self.gem_cells[a] != agent:
                return
            row[GEMS] = row[GEMS] | (1 << a)
        elif code == ACT_OPEN:
            if not 0 <= a < self.box_cells.shape[0] or not (row[CLOSED] >> a) & 1 \
                    or _near(self.box_cells[a], agent, self.width) > 1:
                return
            row[CLOSED] = row[CLOSED] & ~(1 << a)
        elif code == ACT_UNLOCK:
            if not 0 <= a < n_keys or not 0 <= b < self.door_cells.shape[0]:
                return
            if row[KEYS + a] != HELD or not (row[LOCKED] >> b) & 1 \
                    or row[KEYS + 2 * n_keys + a] != self.door_colours[b] \
                    or _near(self.door_cells[b], agent, self.width) != 1:
                return
            row[KEYS + a] = GONE
            row[KEYS + n_keys + a] = -1
            row[LOCKED] = row[LOCKED] & ~(1 << b)

    def apply(self, worlds, states, actions):
        """Every world ``worlds[states[i]]`` after each of its actions ``actions[i, a]``
        (``(code, a, b)`` triples; ``actions`` is ``(len(states), n_a, 3)``, or ``(1, n_a,
        3)`` for the same actions in every world; any strides): row ``i * n_a + a`` of the
        result. An impossible action leaves the world as it is."""
        cdef const int[:, ::1] rows = np.ascontiguousarray(worlds, dtype=np.int32)
        cdef const Py_ssize_t[::1] at = np.ascontiguousarray(states, dtype=np.intp)
        cdef const int[:, :, :] codes = np.asarray(actions, dtype=np.int32)
        cdef Py_ssize_t n_l = at.shape[0], n_a = codes.shape[1], width = rows.shape[1], i, a, c
        cdef bint shared = codes.shape[0] == 1
        cdef int n_keys = (width - KEYS) // 3
        if width != KEYS + 3 * n_keys or n_keys < 0:
            raise ValueError(f"world rows must have 4 + 3*K columns, got {width}")
        if (codes.shape[0] != n_l and not shared) or codes.shape[2] != 3:
            raise ValueError(f"actions must be ({n_l}, n_a, 3), got ({codes.shape[0]}, {codes.shape[1]}, {codes.shape[2]})")
        for i in range(n_l):
            if not 0 <= at[i] < rows.shape[0]:
                raise ValueError(f"state {at[i]} out of range for {rows.shape[0]} worlds")
        out = np.empty((n_l * n_a, width), dtype=np.int32)
        cdef int[:, ::1] res = out
        with nogil:
            for i in range(n_l):
                c = 0 if shared else i
                for a in range(n_a):
                    memcpy(&res[i * n_a + a, 0], &rows[at[i], 0], width * sizeof(int))
                    self._step(&res[i * n_a + a, 0], n_keys, codes[c, a, 0], codes[c, a, 1], codes[c, a, 2])
        return out


def view_labels(worlds):
    """One integer per world row, equal where the worlds look alike (see
    :func:`btom_ext.reference.view_labels`), numbered in order of first appearance."""
    cdef const int[:, ::1] rows = np.ascontiguousarray(worlds, dtype=np.int32)
    cdef Py_ssize_t n = rows.shape[0], n_keys = (rows.shape[1] - KEYS) // 3, i, k, m, words, slot, mask
    cdef Py_ssize_t other, n_labels = 0
    cdef int status, where
    cdef uint64_t item, h
    if rows.shape[1] != KEYS + 3 * n_keys:
        raise ValueError(f"world rows must have 4 + 3*K columns, got {rows.shape[1]}")
    words = 5 + n_keys
    # Each row's view as words: cell, gems, locked, closed, number of visible keys, then
    # the visible keys as (status, where, colour) words in sorted order, 0 after them.
    views_arr = np.zeros((max(n, 1), words), dtype=np.uint64)
    cdef uint64_t[:, ::1] views = views_arr
    mask = 1
    while mask < 2 * n:
        mask = mask * 2
    slots_arr = np.full(mask, -1, dtype=np.intp)
    cdef Py_ssize_t[::1] slots = slots_arr
    mask = mask - 1
    out = np.empty(n, dtype=np.intp)
    cdef Py_ssize_t[::1] res = out
    with nogil:
        for i in range(n):
            views[i, 0] = <uint32_t> rows[i, AGENT]
            views[i, 1] = <uint32_t> rows[i, GEMS]
            views[i, 2] = <uint32_t> rows[i, LOCKED]
            views[i, 3] = <uint32_t> rows[i, CLOSED]
            m = 0
            for k in range(n_keys):
                status = rows[i, KEYS + k]
                where = rows[i, KEYS + n_keys + k]
                if status == FLOOR or status == HELD or (status == BOX and not (rows[i, CLOSED] >> where) & 1):
                    item = ((<uint64_t> status) << 62) | ((<uint64_t> <uint32_t> (where + 1)) << 31) \
                        | (<uint64_t> <uint32_t> (rows[i, KEYS + 2 * n_keys + k] + 1) & 0x7FFFFFFFULL)
                    # insertion sort: a row has few keys
                    other = m   # the sorted keys so far are views[i, 5 : 5 + m]
                    while other > 0 and views[i, 5 + other - 1] > item:
                        views[i, 5 + other] = views[i, 5 + other - 1]
                        other = other - 1
                    views[i, 5 + other] = item
                    m = m + 1
            views[i, 4] = m
            h = 0x9E3779B97F4A7C15ULL
            for k in range(words):
                h = (h ^ views[i, k]) * 0xBF58476D1CE4E5B9ULL
                h = h ^ (h >> 31)
            slot = <Py_ssize_t> (h & <uint64_t> mask)
            while slots[slot] >= 0 and memcmp(&views[slots[slot], 0], &views[i, 0], words * sizeof(uint64_t)) != 0:
                slot = (slot + 1) & mask
            if slots[slot] >= 0:
                res[i] = res[slots[slot]]
            else:
                slots[slot] = i
                res[i] = n_labels
                n_labels = n_labels + 1
    return out


def filter_beliefs(initial, alive):
    """Beliefs after perception, per (true state s, initial belief b) pair.

    ``initial[s, b, j]``: initial weight of state j (count / k, or EPSILON), any strides;
    ``alive[s, j]``: state j still agrees with what was seen in true state s. Ruled-out
    states get 0 and the rest are renormalized (summed in index order, then divided).
    Two true states with the same initial table (the full model's is one table broadcast
    over s) and the same ``alive`` row filter alike: the later one copies the earlier's.
    """
    # Any strides: the full model's initial beliefs are one table broadcast over s.
    cdef const double[:, :, :] w0 = np.asarray(initial, dtype=np.float64)
    cdef const unsigned char[:, ::1] ok = np.ascontiguousarray(alive, dtype=np.uint8)
    cdef Py_ssize_t n_s = w0.shape[0], n_b = w0.shape[1], n_j = w0.shape[2], s, s2, b, j, jj, n_kept
    cdef double total, w, tiny, tiny_q
    cdef bint shared = w0.strides[0] == 0, same
    kept_arr = np.empty(max(n_j, 1), dtype=np.intp)
    cdef Py_ssize_t[::1] kept = kept_arr
    out = np.zeros((n_s, n_b, n_j), dtype=np.float64)
    cdef double[:, :, ::1] res = out
    with nogil:
        for s in range(n_s):
            same = False
            if shared:
                for s2 in range(s):
                    same = True
                    for j in range(n_j):
                        if ok[s, j] != ok[s2, j]:
                            same = False
                            break
                    if same:
                        memcpy(&res[s, 0, 0], &res[s2, 0, 0], n_b * n_j * sizeof(double))
                        break
            if same:
                continue
            n_kept = 0   # the states s still agrees with, in index order
            for j in range(n_j):
                if ok[s, j]:
                    kept[n_kept] = j
                    n_kept = n_kept + 1
            for b in range(n_b):
                total = 0.0
                for jj in range(n_kept):
                    total = total + w0[s, b, kept[jj]]
                if total > 0.0:
                    # Dividing a subnormal weight (EPSILON) is ~50x slower than a normal
                    # one; equal operands give equal quotients, so each row divides the
                    # same subnormal weight once.
                    tiny, tiny_q = 0.0, 0.0
                    for jj in range(n_kept):
                        w = w0[s, b, kept[jj]]
                        if 0.0 < w < DBL_MIN:
                            if w != tiny:
                                tiny, tiny_q = w, w / total
                            res[s, b, kept[jj]] = tiny_q
                        else:
                            res[s, b, kept[jj]] = w / total
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


cdef inline uint64_t _row_hash(const double* row, Py_ssize_t n) noexcept nogil:
    # A hash of the row's 64-bit words: equal rows (bit for bit) hash alike.
    cdef const uint64_t* p = <const uint64_t*> row
    cdef uint64_t h = 0x9E3779B97F4A7C15ULL
    cdef Py_ssize_t i
    for i in range(n):
        h = (h ^ p[i]) * 0xBF58476D1CE4E5B9ULL
        h = h ^ (h >> 31)
    return h


cdef struct TableScratch:
    # What _likelihood_table needs besides its inputs: the kept states of a row, the logits
    # of a row, and the open-addressing table of rows seen (row index or -1; mask + 1 slots).
    Py_ssize_t* kept
    double* logits
    Py_ssize_t* slots
    Py_ssize_t mask


cdef void _likelihood_table(const double[:, ::1] bel, const double[:, :, ::1] q, int action, double beta,
                            const unsigned char[::1] on, TableScratch* scratch,
                            double[:, ::1] res) noexcept nogil:
    # res[g, r]: log pi(action) under belief row r and goal g, from action values q[g, a, j]
    # (see qmdp_table); rows equal bit for bit are computed once.
    cdef Py_ssize_t n_r = bel.shape[0], n_j = bel.shape[1], n_g = q.shape[0], n_a = q.shape[1]
    cdef Py_ssize_t r, r2, j, a, g, n_kept, slot
    cdef Py_ssize_t* kept = scratch.kept
    cdef double* logits = scratch.logits
    cdef double total, top, norm
    cdef uint64_t hash_value
    for r in range(n_r):
        # An earlier row equal to this one, bit for bit, has its likelihoods already.
        hash_value = _row_hash(&bel[r, 0], n_j) if n_j > 0 else 0
        slot = <Py_ssize_t> (hash_value & <uint64_t> scratch.mask)
        r2 = -1
        while scratch.slots[slot] >= 0:
            if memcmp(&bel[scratch.slots[slot], 0], &bel[r, 0], n_j * sizeof(double)) == 0:
                r2 = scratch.slots[slot]
                break
            slot = (slot + 1) & scratch.mask
        if r2 >= 0:
            for g in range(n_g):
                res[g, r] = res[g, r2]
            continue
        scratch.slots[slot] = r
        # The states this row keeps (weight >= DBL_MIN, as qmdp_loglik skips the rest),
        # in index order, so the sums below add the same terms in the same order.
        n_kept = 0
        for j in range(n_j):
            if bel[r, j] >= DBL_MIN:
                kept[n_kept] = j
                n_kept = n_kept + 1
        for g in range(n_g):
            if not on[g]:
                continue
            top = -INFINITY
            for a in range(n_a):
                total = 0.0
                for j in range(n_kept):
                    total = total + bel[r, kept[j]] * q[g, a, kept[j]]
                logits[a] = beta * total
                if logits[a] > top:
                    top = logits[a]
            norm = 0.0
            for a in range(n_a):
                # exp(0) is 1 exactly: the best actions need no call (exp dominates this loop)
                norm = norm + (1.0 if logits[a] == top else exp(logits[a] - top))
            res[g, r] = logits[action] - (top + log(norm))


cdef inline double _action_value(int cost) noexcept nogil:
    # Q_j(a) = -1 - h, floored at Q_FLOOR; an unreachable goal (h < 0) is the floor.
    cdef double value
    if cost < 0:
        return Q_FLOOR
    value = -1.0 - cost
    return Q_FLOOR if value < Q_FLOOR else value


def _table_scratch(Py_ssize_t n_r, Py_ssize_t n_j, Py_ssize_t n_a):
    """The arrays a :func:`_likelihood_table` of ``n_r`` rows over ``n_j`` states and
    ``n_a`` actions works in (kept states, logits, the hash slots)."""
    mask = 1
    while mask < 2 * n_r:
        mask = mask * 2
    return (np.empty(max(n_j, 1), dtype=np.intp), np.empty(max(n_a, 1), dtype=np.float64),
            np.full(mask, -1, dtype=np.intp))


cdef TableScratch _scratch_of(tuple arrays):
    """The :class:`TableScratch` pointing into the arrays of :func:`_table_scratch` (which
    the caller keeps alive while it is used)."""
    cdef Py_ssize_t[::1] kept = arrays[0]
    cdef double[::1] logits = arrays[1]
    cdef Py_ssize_t[::1] slots = arrays[2]
    cdef TableScratch scratch
    scratch.kept, scratch.logits, scratch.slots, scratch.mask = &kept[0], &logits[0], &slots[0], slots.shape[0] - 1
    return scratch


def qmdp_table(beliefs, costs, int action, double beta, goal_on):
    """:func:`qmdp_loglik` once per (goal, belief row) rather than once per hypothesis.

    ``beliefs[r, j]``: R filtered belief rows; ``costs[g, j, a]`` as in :func:`qmdp_loglik`;
    ``goal_on[g]``: 0 for a goal whose likelihood is not wanted (its gem is held). Returns
    ``table[g, r]``, the log-probability of ``action`` under belief row r and goal g (0
    where the goal is off), by the same arithmetic in the same order as
    :func:`qmdp_loglik`, so a hypothesis whose belief is row r gets the same double. Rows
    equal bit for bit (beliefs that differ only on ruled-out states) are computed once.
    """
    cdef const double[:, ::1] bel = np.ascontiguousarray(beliefs, dtype=np.float64)
    cdef const int[:, :, ::1] h = np.ascontiguousarray(costs, dtype=np.int32)
    cdef const unsigned char[::1] on = np.ascontiguousarray(goal_on, dtype=np.uint8)
    cdef Py_ssize_t n_r = bel.shape[0], n_g = h.shape[0], n_j = h.shape[1]
    cdef Py_ssize_t n_a = h.shape[2], j, a, g
    if n_a == 0 or not 0 <= action < n_a:
        raise ValueError(f"action index {action} out of range for {n_a} actions")
    if bel.shape[1] != n_j or on.shape[0] != n_g:
        raise ValueError("beliefs, costs and goal_on disagree on the number of states or goals")
    values_arr = np.empty((n_g, n_a, n_j), dtype=np.float64)   # transposed: j innermost
    cdef double[:, :, ::1] q = values_arr
    arrays = _table_scratch(n_r, n_j, n_a)   # kept alive here while scratch points into them
    cdef TableScratch scratch = _scratch_of(arrays)
    out = np.zeros((n_g, n_r), dtype=np.float64)
    cdef double[:, ::1] res = out
    with nogil:
        for g in range(n_g):
            for j in range(n_j):
                for a in range(n_a):
                    q[g, a, j] = _action_value(h[g, j, a])
        _likelihood_table(bel, q, action, beta, on, &scratch, res)
    return out


cdef void _update_from_table(const double[::1] w, const double[:, ::1] ll, Py_ssize_t n_states,
                             Py_ssize_t row_stride, const unsigned char[::1] ok,
                             const unsigned char[::1] on, double[::1] res) noexcept nogil:
    # See update_weights_table.
    cdef Py_ssize_t n_g = ll.shape[0], n_b = w.shape[0] // (ll.shape[0] * n_states), g, s, b, i, r
    cdef double x
    for g in range(n_g):
        for s in range(n_states):
            i = (g * n_states + s) * n_b
            r = s * row_stride
            if not ok[s]:
                for b in range(n_b):
                    res[i + b] = -INFINITY
            elif not on[g]:
                for b in range(n_b):
                    res[i + b] = w[i + b] + 0.0
            else:
                for b in range(n_b):
                    x = w[i + b]
                    if x > -INFINITY and x < INFINITY:
                        res[i + b] = x + ll[g, r + b]
                    else:
                        res[i + b] = x + 0.0


cdef object _checked_out(out, Py_ssize_t n):
    if out is None:
        return np.empty(n, dtype=np.float64)
    if out.shape[0] != n:
        raise ValueError(f"out has {out.shape[0]} entries for {n} weights")
    return out


cdef _check_table_shape(Py_ssize_t n, Py_ssize_t n_g, Py_ssize_t n_rows, int n_states, int row_stride,
                        Py_ssize_t n_live, Py_ssize_t n_on):
    if n_states <= 0 or n_g == 0 or n % (n_g * n_states) or n_live != n_states or n_on != n_g:
        raise ValueError("the weights, table, live states and goals disagree on the space's shape")
    if n_rows < (n_states - 1) * row_stride + n // (n_g * n_states):
        raise ValueError("the table has fewer belief rows than the space reads")


def update_weights_table(logw, table, int n_states, int row_stride, live, goal_on, out=None):
    """The observer's update for every hypothesis from a :func:`qmdp_table`.

    Hypothesis ``i = (g * n_states + s) * n_beliefs + b`` (``n_beliefs = len(logw) //
    (n_goals * n_states)``) reads ``table[g, s * row_stride + b]`` (``row_stride`` 0 when
    every true state shares the belief rows). As :func:`update_weights` after
    :func:`qmdp_loglik`: -inf where state s is not ``live``; ``logw + loglik`` where the
    goal is on and the weight finite; ``logw + 0`` elsewhere. Written into ``out`` (a
    float64 array of ``logw``'s length) when given.
    """
    cdef const double[::1] w = np.ascontiguousarray(logw, dtype=np.float64)
    cdef const double[:, ::1] ll = np.ascontiguousarray(table, dtype=np.float64)
    cdef const unsigned char[::1] ok = np.ascontiguousarray(live, dtype=np.uint8)
    cdef const unsigned char[::1] on = np.ascontiguousarray(goal_on, dtype=np.uint8)
    _check_table_shape(w.shape[0], ll.shape[0], ll.shape[1], n_states, row_stride, ok.shape[0], on.shape[0])
    out = _checked_out(out, w.shape[0])
    cdef double[::1] res = out
    with nogil:
        _update_from_table(w, ll, n_states, row_stride, ok, on, res)
    return out


def qmdp_update(logw, beliefs, path_costs, states, goal_gems, int action, double beta, goal_on,
                int n_states, int row_stride, live, out=None):
    """One exact step from the planner's answer: :func:`qmdp_table` then
    :func:`update_weights_table` in one call, the costs read in place.

    ``path_costs[i * n_a + a, gem]``: the path cost to ``gem`` of world ``states[i]`` after
    action a (the rows of :meth:`Rules.apply`), read as ``costs[g, states[i], a]`` of goal
    g's gem ``goal_gems[g]``; the other states' costs are -1 (a belief row keeps none of
    them). The same doubles as the two calls.
    """
    cdef const double[::1] w = np.ascontiguousarray(logw, dtype=np.float64)
    cdef const double[:, ::1] bel = np.ascontiguousarray(beliefs, dtype=np.float64)
    cdef const int[:, ::1] h = np.ascontiguousarray(path_costs, dtype=np.int32)
    cdef const Py_ssize_t[::1] at = np.ascontiguousarray(states, dtype=np.intp)
    cdef const Py_ssize_t[::1] gem = np.ascontiguousarray(goal_gems, dtype=np.intp)
    cdef const unsigned char[::1] ok = np.ascontiguousarray(live, dtype=np.uint8)
    cdef const unsigned char[::1] on = np.ascontiguousarray(goal_on, dtype=np.uint8)
    cdef Py_ssize_t n_r = bel.shape[0], n_j = bel.shape[1], n_g = gem.shape[0], n_l = at.shape[0]
    cdef Py_ssize_t n_a = h.shape[0] // n_l if n_l else 0, i, j, a, g
    if n_a == 0 or not 0 <= action < n_a or h.shape[0] != n_l * n_a:
        raise ValueError(f"action index {action} out of range for {n_a} actions, or path costs not "
                         f"{n_l} states x {n_a} actions")
    for g in range(n_g):
        if not 0 <= gem[g] < h.shape[1]:
            raise ValueError(f"goal gem {gem[g]} out of range for {h.shape[1]} gems")
    for i in range(n_l):
        if not 0 <= at[i] < n_j:
            raise ValueError(f"state {at[i]} out of range for {n_j} states")
    _check_table_shape(w.shape[0], n_g, n_r, n_states, row_stride, ok.shape[0], on.shape[0])
    values_arr = np.full((n_g, n_a, n_j), Q_FLOOR, dtype=np.float64)   # -1 costs: the floor
    cdef double[:, :, ::1] q = values_arr
    arrays = _table_scratch(n_r, n_j, n_a)   # kept alive here while scratch points into them
    cdef TableScratch scratch = _scratch_of(arrays)
    table = np.zeros((n_g, n_r), dtype=np.float64)
    cdef double[:, ::1] ll = table
    out = _checked_out(out, w.shape[0])
    cdef double[::1] res = out
    with nogil:
        for g in range(n_g):
            for i in range(n_l):
                for a in range(n_a):
                    q[g, a, at[i]] = _action_value(h[i * n_a + a, gem[g]])
        _likelihood_table(bel, q, action, beta, on, &scratch, ll)
        _update_from_table(w, ll, n_states, row_stride, ok, on, res)
    return out
