"""The numeric form of a Doors-Keys-Gems layout and its worlds, shared by both BToM
backends (:class:`Encoding`): walls, doors, boxes and gems as cell indices, a world as
one ``int32`` row, an action as a ``(code, a, b)`` triple, and the backends' rules and
planner built for a layout. The row layout is documented in :mod:`btom_ext.reference`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from btom_ext.reference import (BOX, DOWN, FLOOR, GONE, HELD, KEYS, LEFT, NO_ACTION, OPEN, PICKUP_GEM, PICKUP_KEY,
                                RIGHT, UNLOCK, UP)
from elot.engine.budget import memory_budget
from elot.domains.doors_keys_gems.world import KeyState, Layout, Pos, WorldState

#: The backends' codes of the moves.
_MOVE_CODES = {"up": UP, "down": DOWN, "left": LEFT, "right": RIGHT}


@dataclass(frozen=True, eq=False)
class Encoding:
    """The numeric form of a layout and its worlds, shared by both BToM backends."""

    layout: Layout

    @cached_property
    def walls(self) -> np.ndarray:
        """``uint8[height * width]``, 1 on walls; cell ``(x, y)`` is index ``(y-1)*width + x-1``."""
        walls = np.zeros(self.layout.width * self.layout.height, dtype=np.uint8)
        for pos in self.layout.walls:
            walls[self.cell(pos)] = 1
        return walls

    def cell(self, pos: Pos) -> int:
        """The cell index of a position."""
        return (pos[1] - 1) * self.layout.width + (pos[0] - 1)

    def pos(self, cell: int) -> Pos:
        """The position of a cell index."""
        return (cell % self.layout.width + 1, cell // self.layout.width + 1)

    @cached_property
    def colour_index(self) -> dict[str, int]:
        return {c: i for i, c in enumerate(self.layout.colours)}

    @cached_property
    def door_cells(self) -> np.ndarray:
        return np.array([self.cell(p) for _, p, _ in self.layout.doors], dtype=np.int32)

    @cached_property
    def door_colours(self) -> np.ndarray:
        return np.array([self.colour_index[c] for _, _, c in self.layout.doors], dtype=np.int32)

    @cached_property
    def box_cells(self) -> np.ndarray:
        return np.array([self.cell(p) for _, p in self.layout.boxes], dtype=np.int32)

    @cached_property
    def gem_cells(self) -> np.ndarray:
        return np.array([self.cell(p) for _, p in self.layout.gems], dtype=np.int32)

    @cached_property
    def _index(self) -> dict[str, dict[str, int]]:
        layout = self.layout
        return {
            "door": {d: i for i, (d, _, _) in enumerate(layout.doors)},
            "box": {b: i for i, (b, _) in enumerate(layout.boxes)},
            "gem": {g: i for i, (g, _) in enumerate(layout.gems)},
        }

    def gem_index(self, gem: str) -> int:
        return self._index["gem"][gem]

    def box_index(self, box: str) -> int:
        return self._index["box"][box]

    @property
    def row_width(self) -> int:
        return KEYS + 3 * len(self.layout.keys)

    def encode(self, state: WorldState) -> np.ndarray:
        """One world as an ``int32`` row (see :mod:`btom_ext.reference`)."""
        return np.array(self._values(state), dtype=np.int32)

    def encode_many(self, states) -> np.ndarray:
        """Many worlds as an ``(n, row_width)`` array."""
        return np.array([self._values(s) for s in states], dtype=np.int32).reshape(-1, self.row_width)

    def _values(self, state: WorldState) -> list[int]:
        index = self._index
        named = dict(state.keys)
        keys = [self._key_values(named[name]) for name in self.layout.keys]
        return [self.cell(state.agent_pos),
                sum(1 << index["door"][d] for d in state.locked),
                sum(1 << index["box"][b] for b in state.closed),
                sum(1 << index["gem"][g] for g in state.held_gems),
                *(k[0] for k in keys), *(k[1] for k in keys), *(k[2] for k in keys)]

    def _key_values(self, ks: KeyState) -> tuple[int, int, int]:
        """A key's (status, where, colour) in a row; a world has few distinct key states."""
        got = self._key_cache.get((ks.colour, ks.where))   # a tuple hashes faster than the dataclass
        if got is None:
            kind = ks.where[0]
            if kind == "cell":
                status, where = FLOOR, self.cell(ks.where[1])
            elif kind == "box":
                status, where = BOX, self._index["box"][ks.where[1]]
            elif kind == "held":
                status, where = HELD, -1
            else:  # used, or never on the map
                status, where = GONE, -1
            got = (status, where, -1 if ks.colour is None else self.colour_index[ks.colour])
            self._key_cache[ks.colour, ks.where] = got
        return got

    @cached_property
    def _key_cache(self) -> dict[tuple, tuple[int, int, int]]:
        return {}

    @cached_property
    def _key_index(self) -> dict[str, int]:
        return {k: i for i, k in enumerate(self.layout.keys)}

    def action_code(self, action) -> tuple[int, int, int]:
        """An action as the ``(code, a, b)`` triple of a backend's ``Rules.apply`` (see
        :mod:`btom_ext.reference`); an action naming no object of the layout is
        ``NO_ACTION``, possible nowhere."""
        name, args = action[0], action[1:]
        index = self._index
        if name in _MOVE_CODES and not args:
            return _MOVE_CODES[name], 0, 0
        if name == "pickup" and len(args) == 1:
            if args[0] in self._key_index:
                return PICKUP_KEY, self._key_index[args[0]], 0
            if args[0] in index["gem"]:
                return PICKUP_GEM, index["gem"][args[0]], 0
        if name == "open" and len(args) == 1 and args[0] in index["box"]:
            return OPEN, index["box"][args[0]], 0
        if name == "unlock" and len(args) == 2 and args[0] in self._key_index and args[1] in index["door"]:
            return UNLOCK, self._key_index[args[0]], index["door"][args[1]]
        return NO_ACTION, 0, 0

    def action_codes(self, actions) -> np.ndarray:
        """:meth:`action_code` of each action, ``(len(actions), 3)`` ``int32``."""
        return np.array([self.action_code(a) for a in actions], dtype=np.int32).reshape(len(actions), 3)

    def rules(self, backend):
        """The rules of the domain on this layout's world rows, from a backend module."""
        return backend.Rules(self.walls, self.layout.width, self.door_cells, self.door_colours,
                             self.box_cells, self.gem_cells)

    def planner(self, backend, max_bytes: int | None = None):
        """A path-cost planner for this layout from a backend module (``btom_ext.backend``).
        The compiled planner holds at most ``max_bytes`` (default: :func:`memory_budget`)
        in its tables and memo; past that its ``costs`` raise MemoryError instead of
        taking the machine's memory (a map with many doors and key colours can ask for
        more than any machine has)."""
        planner = backend.Planner(
            self.walls, self.layout.width, self.door_cells, self.door_colours,
            self.box_cells, self.gem_cells,
        )
        if hasattr(planner, "max_bytes"):
            planner.max_bytes = memory_budget() if max_bytes is None else max_bytes
        return planner
