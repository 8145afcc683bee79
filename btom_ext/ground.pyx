# cython: language_level=3
"""Compiled grounded-state kernels: the twin of ``btom_ext.ground_reference`` (read it for the
encoding). :func:`applicable` steps given states; :func:`reachable` searches breadth first
from one state with an open-addressing hash table of the rows seen, and returns the same
arrays as the reference, in the same order. This module imports nothing of elot's."""

import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t, uint64_t

cnp.import_array()


cdef inline Py_ssize_t _cell(const int64_t[::1] state, Py_ssize_t words, const int64_t[::1] lo,
                             const int64_t[::1] size) noexcept nogil:
    cdef Py_ssize_t f, cell = 0
    cdef int64_t v
    for f in range(lo.shape[0]):
        v = state[words + f] - lo[f]
        if v < 0 or v >= size[f]:
            return -1
        cell = cell * size[f] + v
    return cell


cdef inline bint _applies(const int64_t[::1] state, Py_ssize_t r, Py_ssize_t words,
                          const int64_t[:, ::1] pre_pos, const int64_t[:, ::1] pre_neg) noexcept nogil:
    cdef Py_ssize_t w
    cdef uint64_t bits
    for w in range(words):
        bits = <uint64_t>state[w]
        if (bits & <uint64_t>pre_pos[r, w]) != <uint64_t>pre_pos[r, w]:
            return False
        if (bits & <uint64_t>pre_neg[r, w]) != 0:
            return False
    return True


cdef inline void _successor(const int64_t[::1] state, Py_ssize_t r, Py_ssize_t words, Py_ssize_t n_fl,
                            const int64_t[:, ::1] add, const int64_t[:, ::1] dele,
                            const int64_t[:, ::1] new_fluents, int64_t[::1] out) noexcept nogil:
    cdef Py_ssize_t w, f
    for w in range(words):
        out[w] = <int64_t>((<uint64_t>state[w] & ~(<uint64_t>dele[r, w])) | <uint64_t>add[r, w])
    for f in range(n_fl):
        out[words + f] = new_fluents[r, f]


cdef inline uint64_t _hash(const int64_t[::1] row) noexcept nogil:
    cdef uint64_t h = 1469598103934665603ULL
    cdef Py_ssize_t k
    for k in range(row.shape[0]):
        h ^= <uint64_t>row[k]
        h *= 1099511628211ULL
        h ^= h >> 29
    return h


def _arrays(*arrays):
    return [np.ascontiguousarray(a, dtype=np.int64) for a in arrays]


def applicable(states, pre_pos, pre_neg, add, dele, new_fluents, row_action, cell_rows, fluent_lo, fluent_size):
    """For each of ``states`` (``int64[n, width]``), its applicable actions and successors:
    ``(indptr int64[n + 1], actions int64[m], successors int64[m, width])``."""
    cdef const int64_t[:, ::1] S = np.ascontiguousarray(states, dtype=np.int64)
    cdef const int64_t[:, ::1] PP, PN, AD, DE, NF
    cdef const int64_t[::1] RA, CR, LO, SZ
    PP, PN, AD, DE, NF, RA, CR, LO, SZ = _arrays(pre_pos, pre_neg, add, dele, new_fluents, row_action,
                                                 cell_rows, fluent_lo, fluent_size)
    cdef Py_ssize_t n = S.shape[0], width = S.shape[1], words = PP.shape[1], n_fl = LO.shape[0]
    cdef Py_ssize_t i, r, cell, m = 0
    cdef int64_t last
    indptr_arr = np.zeros(n + 1, dtype=np.int64)
    cdef int64_t[::1] indptr = indptr_arr
    # first pass counts, second fills: no list of Python objects
    for i in range(n):
        cell = _cell(S[i], words, LO, SZ)
        if cell >= 0:
            last = -1
            for r in range(CR[cell], CR[cell + 1]):
                if RA[r] != last and _applies(S[i], r, words, PP, PN):
                    last = RA[r]
                    m += 1
        indptr[i + 1] = m
    acts_arr = np.zeros(m, dtype=np.int64)
    succ_arr = np.zeros((m, width), dtype=np.int64)
    cdef int64_t[::1] acts = acts_arr
    cdef int64_t[:, ::1] succ = succ_arr
    m = 0
    for i in range(n):
        cell = _cell(S[i], words, LO, SZ)
        if cell >= 0:
            last = -1
            for r in range(CR[cell], CR[cell + 1]):
                if RA[r] != last and _applies(S[i], r, words, PP, PN):
                    last = RA[r]
                    acts[m] = RA[r]
                    _successor(S[i], r, words, n_fl, AD, DE, NF, succ[m])
                    m += 1
    return indptr_arr, acts_arr, succ_arr


def reachable(init, pre_pos, pre_neg, add, dele, new_fluents, row_action, cell_rows, fluent_lo, fluent_size,
              max_states):
    """The states reachable from ``init``, breadth first: ``(states int64[n, width], indptr
    int64[n + 1], actions int64[m], successors int64[m], complete)`` (see the reference)."""
    cdef const int64_t[:, ::1] PP, PN, AD, DE, NF
    cdef const int64_t[::1] RA, CR, LO, SZ
    PP, PN, AD, DE, NF, RA, CR, LO, SZ = _arrays(pre_pos, pre_neg, add, dele, new_fluents, row_action,
                                                 cell_rows, fluent_lo, fluent_size)
    start = np.ascontiguousarray(init, dtype=np.int64)
    cdef Py_ssize_t width = start.shape[0], words = PP.shape[1], n_fl = LO.shape[0]
    cdef Py_ssize_t limit = max_states
    cdef Py_ssize_t cap = 1024, hcap = 4096, ecap = 4096
    states_arr = np.zeros((cap + 1, width), dtype=np.int64)   # row ``count`` is the scratch row
    table_arr = np.full(hcap, -1, dtype=np.int64)
    acts_arr = np.zeros(ecap, dtype=np.int64)
    succ_arr = np.zeros(ecap, dtype=np.int64)
    indptr_arr = np.zeros(cap + 1, dtype=np.int64)
    cdef int64_t[:, ::1] states = states_arr
    cdef int64_t[::1] table = table_arr
    cdef int64_t[::1] acts = acts_arr
    cdef int64_t[::1] succ = succ_arr
    cdef int64_t[::1] indptr = indptr_arr
    cdef Py_ssize_t count = 1, i = 0, r, cell, k, m = 0, j, slot, old_n
    cdef int64_t last
    cdef uint64_t mask
    cdef bint complete = True, same
    states_arr[0, :] = start
    mask = <uint64_t>(hcap - 1)
    table[_hash(states[0]) & mask] = 0
    while i < count:
        cell = _cell(states[i], words, LO, SZ)
        if cell >= 0:
            last = -1
            for r in range(CR[cell], CR[cell + 1]):
                if RA[r] == last or not _applies(states[i], r, words, PP, PN):
                    continue
                last = RA[r]
                _successor(states[i], r, words, n_fl, AD, DE, NF, states[count])
                slot = <Py_ssize_t>(_hash(states[count]) & mask)
                j = -1
                while table[slot] >= 0:
                    same = True
                    for k in range(width):
                        if states[table[slot], k] != states[count, k]:
                            same = False
                            break
                    if same:
                        j = table[slot]
                        break
                    slot = (slot + 1) & <Py_ssize_t>mask
                if j < 0:
                    if count >= limit:
                        complete = False
                        break
                    j = count
                    table[slot] = j
                    count += 1
                    if count >= cap:   # grow the rows (keeping a scratch row)
                        cap *= 2
                        grown = np.zeros((cap + 1, width), dtype=np.int64)
                        grown[:count] = states_arr[:count]
                        states_arr = grown
                        states = states_arr
                        grown_ptr = np.zeros(cap + 1, dtype=np.int64)
                        grown_ptr[:i + 1] = indptr_arr[:i + 1]
                        indptr_arr = grown_ptr
                        indptr = indptr_arr
                    if 2 * count > hcap:   # rehash at half load
                        hcap *= 2
                        mask = <uint64_t>(hcap - 1)
                        table_arr = np.full(hcap, -1, dtype=np.int64)
                        table = table_arr
                        for k in range(count):
                            slot = <Py_ssize_t>(_hash(states[k]) & mask)
                            while table[slot] >= 0:
                                slot = (slot + 1) & <Py_ssize_t>mask
                            table[slot] = k
                if m >= ecap:
                    ecap *= 2
                    grown_a = np.zeros(ecap, dtype=np.int64)
                    grown_a[:m] = acts_arr[:m]
                    acts_arr = grown_a
                    acts = acts_arr
                    grown_s = np.zeros(ecap, dtype=np.int64)
                    grown_s[:m] = succ_arr[:m]
                    succ_arr = grown_s
                    succ = succ_arr
                acts[m] = RA[r]
                succ[m] = j
                m += 1
        if not complete:
            m = indptr[i]   # the state left half expanded keeps none
            break
        indptr[i + 1] = m
        i += 1
    for k in range(i + 1, count + 1):
        indptr[k] = m
    return (np.array(states_arr[:count]), np.array(indptr_arr[:count + 1]), np.array(acts_arr[:m]),
            np.array(succ_arr[:m]), bool(complete))
