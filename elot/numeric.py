"""Sums whose value does not depend on the machine: the one place elot adds up the numbers
that decide a score, a tie or a table cell.

``weights @ truth`` hands the sum to BLAS, whose ``ddot`` picks a SIMD kernel for the CPU
it runs on (OpenBLAS with ``DYNAMIC_ARCH``) and splits a long vector between threads; each
choice groups the additions differently, so the same statement scored 0.5 on one machine
and 0.5000000000000001 on another, and a Dask worker (BLAS pinned to one thread) disagreed
with the serial run. Two constructions are used here instead, each deterministic by its
definition rather than by an implementation detail of NumPy or BLAS:

* :func:`fsum`, :func:`dot` and :func:`dot_columns` (a score's P and π, a fit's table, a
  mean): the products ``w_i·v_i`` are rounded one by one (IEEE 754 rounds a product the same
  everywhere), then added by :func:`math.fsum`, which returns the *correctly rounded* sum:
  the float nearest the exact sum. It is the same on every IEEE machine and NumPy version,
  and independent of the order of the terms, so two sets of hypotheses listed in different
  orders give the same P. It costs about 10 ns a term, some 20 times NumPy's (unordered)
  ``sum`` but well within scoring's budget (``benchmarks/bench_sums.py``).
* :func:`sum_columns_in_order` (``prob_of``: a belief's mass on the worlds where φ holds,
  for N rows ≫ S worlds at once): the selected columns are added one after the other, in
  the worlds' order, by elementwise vector additions. Each row's value is the left-to-right
  sum of its own terms, whatever N is, so one row and many rows give the same bits; a
  row-wise ``fsum`` would cost a Python call per row. A sequential sum of S terms in [0, 1]
  is within S·2⁻⁵³ of the exact one, far below :data:`elot.domains.doors_keys_gems.experiments.TIE`.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["dot", "dot_columns", "fsum", "sum_columns_in_order"]


def _floats(values) -> memoryview:
    """The values as a flat float64 buffer: :func:`math.fsum` reads it as Python floats
    without building a list (half the time of ``tolist()``)."""
    return memoryview(np.ascontiguousarray(values, dtype=np.float64).ravel())


def fsum(values) -> float:
    """Σ values, correctly rounded (:func:`math.fsum`)."""
    return math.fsum(_floats(values))


def _products(weights, values) -> np.ndarray:
    """The terms ``w_i·v_i`` (along the first axis of ``values``); a boolean ``weights`` or
    ``values`` selects instead of multiplying, which gives the same terms (w·1 = w, w·0 = 0)
    minus the zeros, which add nothing."""
    weights, values = np.asarray(weights), np.asarray(values)
    if len(weights) != len(values):
        raise ValueError(f"cannot add up {len(weights)} weights against {len(values)} values")
    if weights.dtype == bool:
        return np.asarray(values[weights], dtype=np.float64)
    if values.dtype == bool and values.ndim == 1:
        return np.asarray(weights[values], dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    return weights.reshape(len(weights), *([1] * (values.ndim - 1))) * np.asarray(values, dtype=np.float64)


def dot(weights, values) -> float:
    """``Σ_i weights_i · values_i`` for two vectors: each product rounded, then
    :func:`fsum`. With a boolean vector, the sum of the other's selected entries."""
    return math.fsum(_floats(_products(weights, values)))


def dot_columns(weights, table) -> np.ndarray:
    """``Σ_i weights_i · table[i, j]`` for each column j of an (N, M) ``table``, each as
    :func:`dot`: an (M,) array."""
    terms = _products(weights, table)
    return np.array([math.fsum(_floats(terms[:, j])) for j in range(terms.shape[1])], dtype=np.float64)


def sum_columns_in_order(columns: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``Σ_{j: mask_j} columns[j]``, added in order of j: an (N,) array from (S, N)
    ``columns`` and an (S,) boolean ``mask``; zeros when nothing is selected.

    Row n's value is ``((c[j1, n] + c[j2, n]) + c[j3, n]) + …`` over the selected j, the same
    floats for any N (elementwise additions never regroup)."""
    picked = np.flatnonzero(mask)
    if not len(picked):
        return np.zeros(columns.shape[1])
    total = np.array(columns[picked[0]], dtype=np.float64)
    for j in picked[1:]:
        total += columns[j]
    return total


# -- threads ---------------------------------------------------------------------------------


def cap_blas_threads(threads: int = 1) -> None:
    """Cap this process's BLAS and OpenMP thread pools at ``threads`` each, for good: what a
    worker process does first, since its siblings already hold the other cores (a BLAS call
    that spreads over every core, and whose idle threads then spin, only takes CPU from
    them). threadpoolctl does it for whichever BLAS NumPy was built with (OpenBLAS, MKL,
    BLIS), at run time, which setting ``OPENBLAS_NUM_THREADS`` after NumPy is imported cannot."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=threads)


def one_blas_thread():
    """A context in which BLAS runs on one thread (the planners' products: a few milliseconds
    of work that threads would split, then spin idle for a tenth of a second on every core)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def blas_threads() -> int | None:
    """The most threads a BLAS pool of this process may use now (None: no BLAS found)."""
    from threadpoolctl import threadpool_info

    found = [pool["num_threads"] for pool in threadpool_info() if pool.get("user_api") == "blas"]
    return max(found) if found else None
