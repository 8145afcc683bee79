# cython: language_level=3
"""Declarations of the compiled BToM core (see core.pyx and reference.py)."""

from libc.stdint cimport int64_t, uint32_t, uint64_t

cdef enum:
    # Offsets into a world row.
    AGENT = 0
    LOCKED = 1
    CLOSED = 2
    GEMS = 3
    KEYS = 4
    # Key statuses in a world row.
    FLOOR = 0
    BOX = 1
    HELD = 2
    GONE = 3
    # The planner's key statuses: reachable in place, inside a closed box (then 2, 3 as above).
    IN_PLACE = 0
    IN_CLOSED_BOX = 1
    # Path cost standing for "unreachable" inside the planner.
    INF = 1 << 29
    # Action codes of Rules.apply (btom_ext.reference.UP and so on).
    ACT_UP = 0
    ACT_DOWN = 1
    ACT_LEFT = 2
    ACT_RIGHT = 3
    ACT_PICKUP_KEY = 4
    ACT_PICKUP_GEM = 5
    ACT_OPEN = 6
    ACT_UNLOCK = 7
    ACT_NONE = -1


cdef struct Query:
    # One costs() call's worlds: fixed key places and colours, and per-depth scratch rows.
    int n_keys
    const int* key_cell        # the cell a key is picked up from (its box's, if in one)
    const int* key_box         # the box holding a key, or -1
    const int* key_colour
    uint64_t config            # interned id of (key places, colours)
    uint64_t* status           # (2 n_keys + 2) rows of status words (2 bits per key)


cdef class Planner:
    cdef int width, height, n_cells, n_doors, n_boxes, n_gems
    cdef unsigned char* walls
    cdef int* door_cells
    cdef int* door_colours
    cdef int* door_at
    cdef int* box_cells
    cdef int* gem_cells
    cdef int* nbr          # nbr[4 * cell + i]: i-th in-bounds neighbour, or -1
    # BFS distance rows per locked-door mask (open addressing, NO_MASK = empty) and source
    # cell: dist_rows[slot][source] is n_cells ints, or NULL until first used.
    cdef uint32_t* dist_masks
    cdef int*** dist_rows
    cdef Py_ssize_t dist_capacity, dist_size
    # memo: open addressing; key i is words memo_keys[i*words : (i+1)*words] (a head word,
    # then the status words), its value memo_values[i] (MEMO_EMPTY = empty slot)
    cdef int shift_goal, shift_cell, shift_locked, words, status_words, memo_keys_for
    cdef uint64_t max_configs
    cdef uint64_t* memo_keys
    cdef int* memo_values
    cdef Py_ssize_t memo_capacity, memo_size
    cdef dict configs
    # set when an allocation fails inside the nogil search: the search unwinds returning
    # INF, nothing more is stored, and costs() raises MemoryError
    cdef bint out_of_memory
    # the most bytes the distance table and the memo may hold (0: no limit), and what the
    # distance rows hold now; going past the limit is handled as a failed allocation
    cdef public Py_ssize_t max_bytes
    cdef Py_ssize_t dist_bytes

    cdef bint _over(self, Py_ssize_t extra) noexcept nogil

    cdef int* _row(self, uint32_t locked, int source) noexcept nogil
    cdef int _grow_distances(self) noexcept nogil
    cdef int _layout_memo(self, int n_keys) except -1
    cdef Py_ssize_t _slot(self, uint64_t head, const uint64_t* status) noexcept nogil
    cdef void _store(self, uint64_t head, const uint64_t* status, int value) noexcept nogil
    cdef int _put(self, uint64_t head, const uint64_t* status, int value) noexcept nogil
    cdef int _value(self, Query* q, int goal, int cell, uint32_t locked, int depth,
                    int budget) noexcept nogil
