"""Food trucks as a domain of :mod:`elot.engine` (the protocol of docs/domains.md)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from elot.domains.foodtrucks.world import SPOT2_CONTENT, TRUCKS, tables_of, world_atoms
from elot.engine.tables.grid import BeliefGrid
from elot.engine.tables.protocol import BeliefSpace, DesireSpace, Tables

#: Utility levels of each truck: -20, 0, ..., 100 (rated 1..7 by people).
UTILITY_LEVELS = np.arange(-20.0, 101.0, 20.0)
#: How far each initial-belief grid point is shrunk toward uniform.
SHRINK = 0.925
BELIEF_GRID = 6


@lru_cache(maxsize=None)
def _tables(map_number: int) -> Tables:
    return tables_of(map_number)


def utility_vectors() -> np.ndarray:
    """``float64[343, 3]``: every (K, L, M) utility vector, K's level varying fastest."""
    n = len(UTILITY_LEVELS)
    grid = np.indices((n, n, n)).reshape(3, -1)   # [truck, combo], M slowest
    order = np.lexsort((grid[0], grid[1], grid[2]))
    return UTILITY_LEVELS[grid[:, order].T]


def levels(utilities: np.ndarray) -> np.ndarray:
    """Utilities on the people's 1..7 rating scale (1 = -20, 7 = 100)."""
    return (np.asarray(utilities) - UTILITY_LEVELS[0]) / 20.0 + 1.0


class FoodTrucks:
    """The domain: layouts are the map numbers 1, 2, 3; worlds 0, 1, 2 as in world.py."""

    name = "foodtrucks"
    default_planner = "belief-vi"
    #: The authors' β (Baker et al. 2017 report their model's predictions at 2.5).
    default_beta = 2.5

    def tables(self, layout: int) -> Tables:
        return _tables(int(layout))

    def desires(self) -> DesireSpace:
        vectors = utility_vectors()
        return DesireSpace(TRUCKS, vectors, np.full(len(vectors), 1.0 / len(vectors)))

    def initial_beliefs(self, layout: int) -> BeliefSpace:
        points = BeliefGrid(len(SPOT2_CONTENT), BELIEF_GRID).points
        beliefs = SHRINK * points + (1.0 - SHRINK) / points.shape[1]
        return BeliefSpace(beliefs, np.full(len(beliefs), 1.0 / len(beliefs)))

    def signature(self):
        from elot.domains.foodtrucks.language import signature

        return signature()

    def world_atoms(self, layout: int, world: int) -> frozenset:
        return world_atoms(world)
