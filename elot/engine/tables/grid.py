"""The discretised belief simplex: a regular grid and Freudenthal (Kuhn) interpolation.

A grid of resolution ``N`` over ``W`` worlds holds every belief whose components are
multiples of ``1/N``: ``C(N + W - 1, W - 1)`` points (28 for ``N = 6``, ``W = 3``). A belief
between grid points is written as a convex combination of the ``W`` corners of the
Freudenthal simplex that holds it (Lovejoy 1991): in the coordinates
``g_i = N * (b_i + ... + b_W)`` for ``i = 2..W``, with ``n = floor(g)`` and ``f = g - n``
sorted in decreasing order, the corners are ``n``, ``n + e_(1)``, ``n + e_(1) + e_(2)``, ...
with weights ``1 - f_(1)``, ``f_(1) - f_(2)``, ..., ``f_(W-1)``. The integer part is taken
from a single-precision copy of ``g`` and the fraction from the double (how Baker et al.
computed it; a belief one rounding error below a grid point then lands on it).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class BeliefGrid:
    """The grid of resolution ``resolution`` over ``n_worlds`` worlds."""

    n_worlds: int
    resolution: int

    @cached_property
    def counts(self) -> np.ndarray:
        """``int[n_points, n_worlds]``: each point's components times the resolution, in
        lexicographic order of the counts.

        Made from the places of ``W - 1`` bars among ``N + W - 1`` slots (stars and bars),
        whose lexicographic order is the counts': ``C(N + W - 1, W - 1)`` rows, not the
        ``(N + 1) ** W`` tuples filtering a product would visit (7 ** 12, some 14 billion,
        for twelve worlds: a hang where the grid has 12,376 points)."""
        n, w = self.resolution, self.n_worlds
        places = list(itertools.combinations(range(n + w - 1), w - 1))
        bars = np.array(places, dtype=np.int64).reshape(len(places), w - 1)
        ends = np.concatenate([np.full((len(bars), 1), -1), bars, np.full((len(bars), 1), n + w - 1)], axis=1)
        return np.diff(ends, axis=1) - 1

    @cached_property
    def points(self) -> np.ndarray:
        """``float64[n_points, n_worlds]``: the grid beliefs."""
        return self.counts / self.resolution

    def __len__(self) -> int:
        return len(self.counts)

    @cached_property
    def _codes(self) -> tuple[np.ndarray, np.ndarray] | dict:
        """The points' coordinate vectors ``(g_2, ..., g_W)`` as numbers in base ``N + 1``,
        sorted, with each one's grid index: a lookup over the grid's own points, not a table
        over all ``(N + 1) ** (W - 1)`` coordinate vectors (7 ** 11 entries, 7.9 GB, for
        twelve worlds). Where such numbers would not fit in 63 bits, a dict of tuples."""
        coords = self._coordinates(self.counts)
        if (self.resolution + 1) ** max(self.n_worlds - 1, 0) >= 2 ** 62:
            return {tuple(c): i for i, c in enumerate(coords.tolist())}
        codes = self._number(coords)
        order = np.argsort(codes, kind="stable")
        return codes[order], order.astype(np.int32)

    def _number(self, coords: np.ndarray) -> np.ndarray:
        radix = (self.resolution + 1) ** np.arange(coords.shape[1], dtype=np.int64)
        return coords.astype(np.int64) @ radix if coords.shape[1] else np.zeros(len(coords), dtype=np.int64)

    @staticmethod
    def _coordinates(counts: np.ndarray) -> np.ndarray:
        # g_i = sum of the components i..W (i >= 2); cumulative sums from the right
        return np.cumsum(counts[:, ::-1], axis=1)[:, ::-1][:, 1:]

    def interpolate(self, beliefs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Corners and weights of each belief row: ``int32[m, W]`` grid indices (-1 for a
        corner off the grid, which only arises with weight 0 up to rounding) and
        ``float64[m, W]`` weights."""
        beliefs = np.atleast_2d(np.asarray(beliefs, dtype=np.float64))
        m, w = beliefs.shape
        n_res = self.resolution
        g = n_res * np.cumsum(beliefs[:, ::-1], axis=1)[:, ::-1][:, 1:]
        base = np.floor(g.astype(np.float32)).astype(np.int64)
        frac = g - base
        order = np.argsort(-frac, axis=1, kind="stable")
        sorted_frac = np.take_along_axis(frac, order, axis=1)
        corners = np.empty((m, w), dtype=np.int32)
        weights = np.empty((m, w), dtype=np.float64)
        current = base.copy()
        upper = np.concatenate([np.ones((m, 1)), sorted_frac], axis=1)
        lower = np.concatenate([sorted_frac, np.zeros((m, 1))], axis=1)
        rows = np.arange(m)
        for k in range(w):
            if k:
                current[rows, order[:, k - 1]] += 1
            corners[:, k] = self._lookup(current)
            weights[:, k] = upper[:, k] - lower[:, k]
        return corners, weights

    def _lookup(self, coords: np.ndarray) -> np.ndarray:
        """Grid index of coordinate rows, -1 off the grid (outside N >= g_2 >= ... >= 0)."""
        n_res = self.resolution
        full = np.concatenate([np.full((len(coords), 1), n_res), coords, np.zeros((len(coords), 1), dtype=np.int64)], axis=1)
        valid = np.all(np.diff(full, axis=1) <= 0, axis=1)
        out = np.full(len(coords), -1, dtype=np.int32)
        if valid.any():
            codes = self._codes
            if isinstance(codes, dict):
                out[valid] = [codes[tuple(c)] for c in coords[valid].tolist()]
            else:
                # every valid vector is a point's: N >= g_2 >= ... >= g_W >= 0 are the points'
                sorted_codes, index = codes
                out[valid] = index[np.searchsorted(sorted_codes, self._number(coords[valid]))]
        return out
