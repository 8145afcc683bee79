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
    def _index(self) -> np.ndarray:
        """Grid index of each coordinate vector ``(g_2, ..., g_W)`` (-1 where none)."""
        shape = (self.resolution + 1,) * (self.n_worlds - 1)
        table = np.full(shape, -1, dtype=np.int32)
        if self.n_worlds == 1:     # one world: one point, indexed by no coordinate
            table[()] = 0
            return table
        coords = self._coordinates(self.counts)
        table[tuple(coords.T)] = np.arange(len(self.counts), dtype=np.int32)
        return table

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
            out[valid] = self._index[tuple(coords[valid].T)]
        return out
