"""The food-truck world of Baker, Jara-Ettinger, Saxe & Tenenbaum (2017), Experiment 1.

A 15 x 5 grid; one horizontal wall in row y = 2 (three maps differ in which end is open);
spot 1 at (0, 0) always holds the Korean truck (role K); spot 2 at (14, 4), behind the wall,
holds the Lebanese truck (world 1, role L), the Mexican one (world 2, role M) or nothing
(world 3). The student sees spot 2 by line of sight (:mod:`.geometry`). Six actions: stay,
west, east, south, north, eat; eating at a truck ends the episode (the absorbing state
``finished``) and earns the student's utility for that truck.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from elot.domains.foodtrucks.geometry import rectangle, visible_fraction
from elot.engine.tables.protocol import Tables

WIDTH, HEIGHT = 15, 5
WALL_ROW = 2
SPOT1, SPOT2 = (0, 0), (14, 4)
#: Wall cells' x range in row 2, per map.
WALL_SPANS = {1: (1, 13), 2: (0, 13), 3: (1, 14)}
ACTIONS = ("stay", "west", "east", "south", "north", "eat")
MOVES = {"stay": (0, 0), "west": (-1, 0), "east": (1, 0), "south": (0, -1), "north": (0, 1), "eat": (0, 0)}
#: Short names of actions as scenario files write them.
ACTION_CODES = {"stay": "stay", "W": "west", "E": "east", "S": "south", "N": "north", "eat": "eat"}
#: The trucks as ELoT constants, in role order K, L, M.
TRUCKS = ("korean", "lebanese", "mexican")
ROLES = ("K", "L", "M")
#: What spot 2 holds in each world (a truck index, or None), in world order 1, 2, 3.
SPOT2_CONTENT = (1, 2, None)
WORLD_NAMES = ("lebanese-at-spot2", "mexican-at-spot2", "spot2-empty")
PERCEPTS = ("spot2-seen-empty", "lebanese-seen", "mexican-seen", "spot2-not-seen")
NOT_SEEN = 3
FINISHED = WIDTH * HEIGHT   # the absorbing state, after the last cell


def cell_index(x: int, y: int) -> int:
    return x + WIDTH * y


def cell_of(index: int) -> tuple[int, int]:
    return index % WIDTH, index // WIDTH


@dataclass(frozen=True)
class FoodTruckMap:
    """One of the three maps: the wall's cells."""

    number: int

    @property
    def wall_cells(self) -> frozenset[tuple[int, int]]:
        lo, hi = WALL_SPANS[self.number]
        return frozenset((x, WALL_ROW) for x in range(lo, hi + 1))

    @property
    def wall_rectangle(self) -> list[tuple[float, float]]:
        lo, hi = WALL_SPANS[self.number]
        return rectangle(lo, WALL_ROW, hi + 1, WALL_ROW + 1)

    def is_open(self, x: int, y: int) -> bool:
        return 0 <= x < WIDTH and 0 <= y < HEIGHT and (x, y) not in self.wall_cells


@lru_cache(maxsize=None)
def visibility(map_number: int, target: tuple[int, int] = SPOT2) -> np.ndarray:
    """``float64[HEIGHT, WIDTH]``: the visible fraction of ``target``'s square from each cell
    centre (0 in wall cells)."""
    world = FoodTruckMap(map_number)
    square = rectangle(target[0], target[1], target[0] + 1, target[1] + 1)
    table = np.zeros((HEIGHT, WIDTH))
    for y in range(HEIGHT):
        for x in range(WIDTH):
            if world.is_open(x, y):
                table[y, x] = visible_fraction((x + 0.5, y + 0.5), world.wall_rectangle, square)
    table.setflags(write=False)
    return table


def truck_at(world: int, x: int, y: int) -> int | None:
    """The truck index at cell (x, y) in world ``world`` (0-based), or None."""
    if (x, y) == SPOT1:
        return 0
    if (x, y) == SPOT2:
        return SPOT2_CONTENT[world]
    return None


def tables_of(map_number: int):
    """The tabular model of one map (see :class:`elot.engine.Tables`)."""
    world_map = FoodTruckMap(map_number)
    n_w, n_s, n_a = len(WORLD_NAMES), WIDTH * HEIGHT + 1, len(ACTIONS)
    trans = np.zeros((n_w, n_s, n_a), dtype=np.int32)
    outcomes = np.full((n_w, n_s, n_a), -1, dtype=np.int32)
    obs = np.zeros((n_w, n_s, len(PERCEPTS)))
    seen = visibility(map_number)
    for w in range(n_w):
        trans[w, FINISHED, :] = FINISHED
        obs[w, FINISHED, NOT_SEEN] = 1.0
        content = SPOT2_CONTENT[w]
        for s in range(WIDTH * HEIGHT):
            x, y = cell_of(s)
            for a, name in enumerate(ACTIONS):
                if name == "eat":
                    truck = truck_at(w, x, y)
                    if truck is not None and world_map.is_open(x, y):
                        trans[w, s, a] = FINISHED
                        outcomes[w, s, a] = truck
                    else:
                        trans[w, s, a] = s
                    continue
                dx, dy = MOVES[name]
                trans[w, s, a] = cell_index(x + dx, y + dy) if world_map.is_open(x + dx, y + dy) else s
            v = seen[y, x]
            obs[w, s, 0 if content is None else content] = v
            obs[w, s, NOT_SEEN] = 1.0 - v
    states = tuple(f"({x},{y})" for x, y in map(cell_of, range(WIDTH * HEIGHT))) + ("finished",)
    costs = np.array([0.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    return Tables(states, WORLD_NAMES, ACTIONS, PERCEPTS, TRUCKS, costs, trans, obs, outcomes)


def world_atoms(world: int) -> frozenset[tuple[str, ...]]:
    """The ground atoms of world ``world`` (0-based): ``at(truck, spot)`` and ``empty(spot)``."""
    atoms = {("at", "korean", "spot1")}
    content = SPOT2_CONTENT[world]
    atoms.add(("empty", "spot2") if content is None else ("at", TRUCKS[content], "spot2"))
    return frozenset(atoms)
