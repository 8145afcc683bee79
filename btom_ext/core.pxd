# cython: language_level=3
"""Declarations of the compiled BToM core (see core.pyx and reference.py)."""

from libc.stdint cimport int64_t

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


cdef class Planner:
    cdef int width, height, n_cells, n_doors, n_boxes, n_gems
    cdef unsigned char* walls
    cdef int* door_cells
    cdef int* door_colours
    cdef int* door_at
    cdef int* box_cells
    cdef int* gem_cells
    cdef int* nbr          # nbr[4 * cell + i]: i-th in-bounds neighbour, or -1
    cdef int** dist        # dist[locked mask]: n_cells x n_cells BFS distances, built lazily
    # memo: open addressing, int64 keys (-1 = empty) -> int32 values
    cdef int64_t* memo_keys
    cdef int* memo_values
    cdef Py_ssize_t memo_capacity, memo_size
    cdef dict configs

    cdef int* _distances(self, int locked) noexcept nogil
    cdef Py_ssize_t _slot(self, int64_t key) noexcept nogil
    cdef void _store(self, int64_t key, int value) noexcept nogil
    cdef void _put(self, int64_t key, int value) noexcept nogil
    cdef int _value(self, int64_t config, int goal, int cell, int locked, unsigned int status,
                    int n_keys, const int* key_cell, const int* key_box,
                    const int* key_colour) noexcept nogil
    cdef void _clear_memo(self)
