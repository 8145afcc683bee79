# cython: language_level=3
"""Compiled BToM core (placeholder until the BToM engine lands)."""

import numpy as np
cimport numpy as cnp
from libc.math cimport exp, log

cnp.import_array()


def logsumexp_rows(const double[:, ::1] x):
    """Row-wise log(sum(exp(x))), stable for -inf entries."""
    cdef Py_ssize_t n = x.shape[0], m = x.shape[1], i, j
    cdef double top, acc
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] res = out
    with nogil:
        for i in range(n):
            top = -1e308
            for j in range(m):
                if x[i, j] > top:
                    top = x[i, j]
            acc = 0.0
            for j in range(m):
                acc = acc + exp(x[i, j] - top)
            res[i] = top + log(acc)
    return out
