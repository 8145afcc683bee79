"""The hypothesis space of exact BToM inference (SPEC §5): goals × initial states × beliefs.

* **Goals**: every gem, uniform.
* **Initial states**: every placement of hidden keys in the closed boxes that agrees with
  what is visible, within a family (:class:`Prior`; the dataset's is the default): 0 to
  ``max_hidden`` hidden keys (2, or what the goals need if more), at most one per box, and for each colour
  c between ``max(min_c, 0)`` and ``max_c`` hidden c-keys, where ``max_c`` is the largest
  number of c-keys an optimal plan for some goal picks up in the *true* map and
  ``min_c = max_c -`` (visible c-keys). Hidden keys are named by reusing the true state's
  key object where box and colour match, otherwise the next unused key object that is
  hidden or off the grid in the true state (in key order); unused ones go off the grid.
  Under the ``paper`` conventions (SPEC §7.3) the states come in the reference's order
  (number of hidden keys, then the subset of boxes, then the colours) and the key in the
  i-th box is always the i-th spare key object, whatever the true state is.
* **Initial beliefs**: every multiset of ``k`` particles over the states; a state's weight
  is its particle count / k, or :data:`EPSILON` when it has none.

Hypothesis ``i`` is ``(goal g, true state s, belief b)`` with ``i = (g * n_s + s) * n_b + b``.
The true-belief ablation has one belief per true state: the full model's belief with all k
particles on that state (so the other states keep :data:`EPSILON`, as everywhere else).
``true-belief-paper`` (:data:`elot.settings.REPRODUCTION_VARIANTS`) is that ablation for the agent, but the
belief its statements are judged against is certainty in initial state #1 of the
reference's order, whatever the hypothesis (SPEC §7.4: an artifact of the reference's
evaluation code, kept only to reproduce the paper's Table).

This module also owns the numeric encoding of worlds that ``btom_ext`` works on
(:class:`Encoding`); its layout is documented in :mod:`btom_ext.reference`.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from functools import cached_property, lru_cache
from math import comb

import numpy as np

from btom_ext.reference import (AGENT, BOX, CLOSED, DOWN, EPSILON, FLOOR, GEMS, GONE, HELD, KEYS, LEFT, LOCKED,
                                NO_ACTION, OPEN, PICKUP_GEM, PICKUP_KEY, RIGHT, UNLOCK, UP)
from elot.btom.conventions import check_conventions
from elot.errors import ArgumentError, ScenarioError, expect, expect_int
from elot.settings import DEFAULT_K, DEFAULT_VARIANT, MAX_HYPOTHESES, check_variant
from elot.btom.world import OFFGRID, KeyState, Layout, Pos, WorldState

# -- numeric encoding ----------------------------------------------------------------------

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


# -- colour limits from optimal plans in the true map -------------------------------------


#: Most planning states :func:`key_pickups` explores (about a second of work).
MAX_PLAN_STATES = 100_000


def key_pickups(state: WorldState, gem: str) -> tuple[int, frozenset[tuple[int, ...]]] | None:
    """Cost of an optimal plan to hold ``gem`` in the fully known ``state``, and every vector
    (per colour of ``layout.colours``) of keys picked up by some optimal plan. None when the
    gem cannot be reached.

    The costs are those of ``btom_ext``'s planners, but neither can give this: they return
    costs alone, not which keys the optimal plans pick up (see :class:`_PickupSearch`).
    """
    zero = (0,) * len(state.layout.colours)
    if gem in state.held_gems:
        return 0, frozenset([zero])
    search = _PickupSearch(state, gem)
    cost, vectors = search.best(state.agent_pos, state.locked, state.closed, search.start)
    if cost == float("inf"):
        return None
    return int(cost), vectors


class _PickupSearch:
    """Optimal plans to one gem as sequences of useful events with the shortest grid travel
    (:meth:`~elot.btom.world.Layout.distances`) in between, as in the compiled planner:
    pick up a key (opening its box first when closed), unlock a door from a cell next to it,
    pick up the gem. :meth:`best` memoizes every (cell, locked doors, closed boxes, key
    statuses) it meets, up to :data:`MAX_PLAN_STATES`.

    A key status is ``"map"`` (on a cell or in a box), ``"held"`` or ``"gone"`` (used up, or
    never on the map), one per key of ``layout.keys``.
    """

    def __init__(self, state: WorldState, gem: str) -> None:
        layout = state.layout
        self.layout = layout
        self.gem = gem
        self.goal = layout.gem_pos(gem)
        self.zero = (0,) * len(layout.colours)
        self.colour = [state.key(k).colour for k in layout.keys]
        self.colour_index = [layout.colours.index(c) if c in layout.colours else -1 for c in self.colour]
        self.cell = [state.item_pos(k) for k in layout.keys]  # a boxed key's cell is its box's
        self.box = [ks.where[1] if ks.where[0] == "box" else None for ks in map(state.key, layout.keys)]
        kinds = {"cell": "map", "box": "map", "held": "held"}
        self.start = tuple(kinds.get(state.key(k).where[0], "gone") for k in layout.keys)
        self.memo: dict[tuple, tuple[float, frozenset]] = {}
        self._travel: dict[tuple[frozenset, Pos], dict[Pos, int]] = {}

    def travel(self, locked: frozenset[str], cell: Pos) -> dict[Pos, int]:
        """Moves from ``cell`` to every cell it reaches with the doors of ``locked`` shut."""
        got = self._travel.get((locked, cell))
        if got is None:
            got = self.layout.distances(cell, {self.layout.door_pos(d) for d in locked})
            self._travel[(locked, cell)] = got
        return got

    def useful(self, k: int, locked: frozenset[str], status: tuple[str, ...]) -> bool:
        """Whether key ``k`` may be worth picking up: its colour has more locked doors than
        held keys. A key no locked door can use is never picked up by an optimal plan (the
        pickup costs a step and buys nothing), which keeps the search polynomial in the
        number of keys (exponential only in the number of doors), not 2^keys."""
        colour = self.colour[k]
        held = sum(1 for j, s in enumerate(status) if s == "held" and self.colour[j] == colour)
        doors = sum(1 for d in locked if self.layout.door_colour(d) == colour)
        return held < doors

    def best(self, cell: Pos, locked: frozenset[str], closed: frozenset[str],
             status: tuple[str, ...]) -> tuple[float, frozenset]:
        """The least cost from here to holding the gem, and the key-pickup vectors of every
        plan of that cost (empty when the gem cannot be reached: the cost is infinite)."""
        key = (cell, locked, closed, status)
        if key in self.memo:
            return self.memo[key]
        if len(self.memo) >= MAX_PLAN_STATES:
            raise ScenarioError(
                f"the map has too many keys, doors and boxes to find the optimal plans to {self.gem} "
                f"(more than {MAX_PLAN_STATES:,} planning states)",
                hint="use fewer doors or keys of the same colour",
            )
        travel = self.travel(locked, cell)
        options: list[tuple[float, frozenset]] = []
        if self.goal in travel:
            options.append((travel[self.goal] + 1, frozenset([self.zero])))
        for k, st in enumerate(status):
            if st == "map" and self.cell[k] in travel and self.useful(k, locked, status):
                options.append(self.pick_up(k, travel, locked, closed, status))
            elif st == "held":
                options += self.unlock(k, travel, locked, closed, status)
        low = min((c for c, _ in options), default=float("inf"))
        vectors = frozenset().union(*(v for c, v in options if c == low)) if low < float("inf") else frozenset()
        self.memo[key] = (low, vectors)
        return self.memo[key]

    def pick_up(self, k: int, travel: dict[Pos, int], locked: frozenset[str], closed: frozenset[str],
                status: tuple[str, ...]) -> tuple[float, frozenset]:
        """Walk to key ``k``, open its box if closed, pick it up, then go on optimally."""
        box = self.box[k]
        opens = box is not None and box in closed
        cost = travel[self.cell[k]] + 1 + (1 if opens else 0)
        sub_cost, sub = self.best(self.cell[k], locked, closed - {box} if opens else closed,
                                  status[:k] + ("held",) + status[k + 1:])
        bump = tuple(int(c == self.colour_index[k]) for c in range(len(self.zero)))
        return cost + sub_cost, frozenset(tuple(a + b for a, b in zip(v, bump)) for v in sub)

    def unlock(self, k: int, travel: dict[Pos, int], locked: frozenset[str], closed: frozenset[str],
               status: tuple[str, ...]) -> list[tuple[float, frozenset]]:
        """Every way to walk next to a locked door of held key ``k``'s colour, unlock it with
        ``k``, then go on optimally."""
        used = status[:k] + ("gone",) + status[k + 1:]
        out = []
        for door in sorted(locked):
            if self.layout.door_colour(door) != self.colour[k]:
                continue
            for cell in self.layout.neighbours(self.layout.door_pos(door)):
                if cell in travel:
                    sub_cost, sub = self.best(cell, locked - {door}, closed, used)
                    out.append((travel[cell] + 1 + sub_cost, sub))
        return out


def colour_limits(true_state: WorldState) -> dict[str, tuple[int, int]]:
    """Per colour, the (least, most) number of hidden keys of that colour (SPEC §5)."""
    layout = true_state.layout
    most = dict.fromkeys(layout.colours, 0)
    for gem, _ in layout.gems:
        found = key_pickups(true_state, gem)
        if found is None:
            continue
        for vec in found[1]:
            for colour, n in zip(layout.colours, vec):
                most[colour] = max(most[colour], n)
    visible = dict.fromkeys(layout.colours, 0)
    for name in layout.keys:
        ks = true_state.key(name)
        if ks.where[0] in ("cell", "box", "held") and not true_state.hidden(name) and ks.colour:
            visible[ks.colour] += 1
    return {c: (max(most[c] - visible[c], 0), most[c]) for c in layout.colours}


# -- initial states ----------------------------------------------------------------------

#: The dataset's family of hidden-key placements (SPEC §5): at most two hidden keys.
DEFAULT_MAX_HIDDEN = 2


@dataclass(frozen=True)
class Prior:
    """The family of initial states: how many hidden keys, of which colours.

    ``max_hidden`` is the most hidden keys a state may have; None is the dataset's family
    (:data:`DEFAULT_MAX_HIDDEN`), widened to the number of hidden keys the goals need
    when that is more (see :meth:`resolve`). ``colours`` None limits each colour as SPEC
    §5 does, by what optimal plans for the goals pick up; a tuple of colours instead
    allows 0 to ``max_hidden`` hidden keys of each of them and none of the others.
    """

    max_hidden: int | None = None
    colours: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.max_hidden is not None:
            _whole(self.max_hidden, "Prior.max_hidden", 0)
        if self.colours is not None:
            if isinstance(self.colours, str) or not all(isinstance(c, str) for c in expect(
                    self.colours, (tuple, list), "Prior.colours", hint='e.g. Prior(colours=("red",))')):
                raise ArgumentError("Prior.colours must be a tuple of colour names",
                                    hint='e.g. Prior(colours=("red",)), or None for the colours the goals need')
            object.__setattr__(self, "colours", tuple(self.colours))

    def resolve(self, true_state: WorldState) -> "Family":
        """The family used for ``true_state``: colour limits and the hidden-key bound."""
        layout = true_state.layout
        if self.colours is None:
            limits = dict(_colour_limits_of(true_state))
        else:
            unknown = [c for c in self.colours if c not in layout.colours]
            if unknown:
                raise ScenarioError(f"unknown hidden-key colour(s): {', '.join(unknown)}",
                                    hint=f"the map's colours are {', '.join(layout.colours) or 'none'}")
            wide = DEFAULT_MAX_HIDDEN if self.max_hidden is None else self.max_hidden
            limits = {c: (0, wide if c in self.colours else 0) for c in layout.colours}
        needed = sum(low for low, _ in limits.values())
        if self.max_hidden is not None:
            return Family(self.max_hidden, limits, needed, False, self.colours)
        if needed > DEFAULT_MAX_HIDDEN:
            return Family(needed, limits, needed, True, self.colours)
        return Family(DEFAULT_MAX_HIDDEN, limits, needed, False, self.colours)


@lru_cache(maxsize=256)
def _colour_limits_of(true_state: WorldState) -> tuple[tuple[str, tuple[int, int]], ...]:
    # A batch builds the same scenario's space for every model, beta and k, and the
    # optimal-plan search behind the limits is its slowest Python part: once per state.
    return tuple(colour_limits(true_state).items())


@dataclass(frozen=True)
class Family:
    """A resolved :class:`Prior`: at most ``max_hidden`` hidden keys, ``limits[colour] =
    (least, most)`` of each colour, ``needed`` the least in all; ``widened`` when the
    dataset's bound was raised because the goals need more hidden keys than it allows;
    ``colours`` the colours the user allowed (None: as SPEC §5 limits them)."""

    max_hidden: int
    limits: dict[str, tuple[int, int]]
    needed: int
    widened: bool
    colours: tuple[str, ...] | None = None

    @property
    def is_default(self) -> bool:
        """The dataset's family, as it is (not widened, not chosen by the user)."""
        return self.max_hidden == DEFAULT_MAX_HIDDEN and self.colours is None

    def describe(self) -> str:
        """One line for a run's header."""
        text = f"prior: 0-{self.max_hidden} hidden keys"
        if self.colours is not None:
            text += f" of colours {', '.join(self.colours) or '(none)'}"
        if self.widened:
            text += (f" (the dataset's family allows {DEFAULT_MAX_HIDDEN}; the doors on the way to "
                     f"the goals need {self.needed})")
        return text


def initial_states(true_state: WorldState, prior: Prior | Family = Prior(),
                   conventions: str = "elot") -> tuple[WorldState, ...]:
    """Every initial state consistent with what is visible in ``true_state`` (SPEC §5)
    within the ``prior``'s family, in elot's order and naming, or the reference's under
    ``conventions="paper"`` (§7.3)."""
    check_conventions(conventions)
    family = prior.resolve(true_state) if isinstance(prior, Prior) else prior
    layout = true_state.layout
    closed = [b for b, _ in layout.boxes if b in true_state.closed]
    spare = [k for k in layout.keys if true_state.hidden(k) or true_state.key(k).where == ("offgrid",)]
    placements = _placements(true_state, closed, len(spare), family)
    if not placements:
        raise ScenarioError(
            f"no initial state is consistent with the visible map and the prior ({family.describe()}; "
            f"{len(closed)} closed box(es), {len(spare)} spare key object(s); the goals need "
            f"{family.needed} hidden key(s))",
            hint="check that the closed boxes and spare key objects can hold the keys the goals "
                 "need, or widen the prior (--hidden-keys N, --hidden-colours C,...)",
        )
    if conventions == "paper":
        placements.sort(key=lambda p: reference_rank(p, closed, layout.colours))
        names = [_reference_names(p, closed, spare) for p in placements]
    else:
        colours = list(layout.colours)
        placements.sort(key=lambda p: (len(p), tuple(colours.index(p[b]) if b in p else -1 for b in closed)))
        true_hidden = {(true_state.key(k).where[1], true_state.key(k).colour): k
                       for k in layout.keys if true_state.hidden(k)}
        names = [_elot_names(p, true_hidden, closed, spare) for p in placements]
    spares = set(spare)
    return tuple(
        WorldState(layout, true_state.agent_pos,
                   tuple((k, named.get(k, OFFGRID) if k in spares else ks) for k, ks in true_state.keys),
                   true_state.locked, true_state.closed, true_state.held_gems)
        for named in names
    )


def _placements(true_state: WorldState, closed: list[str], n_spare: int, family: Family) -> list[dict[str, str]]:
    """Every placement ``{box: colour}`` of hidden keys within the family (unordered)."""
    limits = family.limits
    colours = list(true_state.layout.colours)
    ranges = [range(limits[c][0], limits[c][1] + 1) for c in colours]
    placements: list[dict[str, str]] = []
    for counts in itertools.product(*ranges):
        total = sum(counts)
        if total > family.max_hidden or total > len(closed) or total > n_spare:
            continue
        placements += _assign(closed, [c for c, n in zip(colours, counts) for _ in range(n)])
    return list({tuple(sorted(p.items())): p for p in placements}.values())


def reference_rank(placement: dict[str, str], closed: list[str], colours: tuple[str, ...]) -> tuple:
    """A placement's position in the reference's enumeration (SPEC §7.3): by number of
    hidden keys, then the subset of boxes (lexicographic in box order), then the colour
    assignment (a product over colours with the first box's colour varying fastest)."""
    boxes = [b for b in closed if b in placement]
    colour = sum(colours.index(placement[b]) * len(colours) ** i for i, b in enumerate(boxes))
    return len(boxes), tuple(closed.index(b) for b in boxes), colour


def _reference_names(placement: dict[str, str], closed: list[str], spare: list[str]) -> dict[str, KeyState]:
    """The key in the i-th closed box (in box order) is the i-th spare key object, whichever
    boxes are filled (SPEC §7.3; this reproduces the reference's P = 0.8296 for statement 3
    of plan 3_3 in exp2_current). With fewer spare objects than boxes, the filled boxes take
    them in order instead."""
    filled = [b for b in closed if b in placement]
    slots = closed if len(spare) >= len(closed) else filled
    return {spare[slots.index(box)]: KeyState(placement[box], ("box", box)) for box in filled}


def _elot_names(placement: dict[str, str], true_hidden: dict[tuple[str, str], str], closed: list[str],
                spare: list[str]) -> dict[str, KeyState]:
    """True hidden keys (``true_hidden[(box, colour)]``) whose box and colour match keep
    their object; the other filled boxes (in box order) take the unused spare objects in
    key order."""
    names: dict[str, KeyState] = {}
    for box in closed:
        if box in placement and (box, placement[box]) in true_hidden:
            names[true_hidden[(box, placement[box])]] = KeyState(placement[box], ("box", box))
    taken = {ks.where[1] for ks in names.values()}
    free = iter(k for k in spare if k not in names)
    for box in closed:
        if box in placement and box not in taken:
            names[next(free)] = KeyState(placement[box], ("box", box))
    return names


def _assign(boxes: list[str], colours: list[str]) -> list[dict[str, str]]:
    """Every way to put the given keys (a multiset of colours) into distinct boxes."""
    if not colours:
        return [{}]
    out = []
    for chosen in itertools.permutations(boxes, len(colours)):
        out.append(dict(zip(chosen, colours)))
    return out


# -- beliefs and the space ---------------------------------------------------------------


def particle_counts(n_states: int, k: int) -> np.ndarray:
    """Every multiset of ``k`` particles over ``n_states`` states as counts, ``(C(n+k-1, k), n)``."""
    size = comb(n_states + k - 1, k)
    combos = np.fromiter(itertools.chain.from_iterable(itertools.combinations_with_replacement(range(n_states), k)),
                         dtype=np.intp, count=size * k).reshape(size, k)
    counts = np.zeros((size, n_states), dtype=np.int32)
    rows = np.arange(size)
    for particle in range(k):   # one particle per row each time: no index repeats within a column
        counts[rows, combos[:, particle]] += 1
    return counts


def belief_weights(counts: np.ndarray, k: int) -> np.ndarray:
    """Initial belief weights: count / k, or :data:`EPSILON` for states with no particle."""
    return np.where(counts > 0, counts / k, EPSILON)


@dataclass(frozen=True, eq=False)
class HypothesisSpace:
    """``goals × states × beliefs`` for one scenario and model.

    ``initial_beliefs[s, b, j]`` is the initial weight of state j in belief b of a
    hypothesis whose true state is s (independent of s except under ``true-belief``).
    ``judged_beliefs``, when set, replaces the agent's belief at every step when statements
    are judged (only ``true-belief-paper``: certainty in the reference's state #1).
    """

    model: str
    goals: tuple[str, ...]
    states: tuple[WorldState, ...]
    initial_beliefs: np.ndarray
    conventions: str = "elot"
    judged_beliefs: np.ndarray | None = None
    family: Family | None = None

    @property
    def n_goals(self) -> int:
        return len(self.goals)

    @property
    def n_states(self) -> int:
        return len(self.states)

    @property
    def n_beliefs(self) -> int:
        return self.initial_beliefs.shape[1]

    @property
    def size(self) -> int:
        """The number of hypotheses (``len`` too, up to ``sys.maxsize``; this has no limit)."""
        return self.n_goals * self.n_states * self.n_beliefs

    def __len__(self) -> int:
        return self.size

    @cached_property
    def index(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(goal, state, belief)`` index arrays (``int32``) of every hypothesis."""
        g, s, b = np.meshgrid(
            np.arange(self.n_goals), np.arange(self.n_states), np.arange(self.n_beliefs), indexing="ij"
        )
        return tuple(np.ascontiguousarray(a.ravel(), dtype=np.int32) for a in (g, s, b))



#: Bytes per hypothesis inference keeps or holds at once besides its log weights: the
#: (goal, state, belief) index arrays (3 x int32), and per step the likelihoods, the
#: active mask and the new weights (8 + 1 + 8) plus NumPy temporaries of the update.
BYTES_PER_HYPOTHESIS = 12 + 8 + 1 + 8 + 16


def space_size(model: str, n_goals: int, n_states: int, k: int, *, steps: int = 0,
               belief_tables: int = 1) -> tuple[int, int]:
    """The number of hypotheses of a space, and the peak bytes exact inference over
    ``steps`` actions allocates on it, counted array by array: per hypothesis, the index
    arrays, one float64 log weight per step kept, and the step's temporaries; the initial
    beliefs (``n_beliefs x n_states``, shared by every true state); one filtered belief
    table ``n_states x n_beliefs x n_states`` per distinct ``alive`` table, of which there
    are at most ``belief_tables`` (1 + the actions that can reveal something); and the
    ``alive`` tables (``n_states^2`` bytes per step)."""
    n_beliefs = 1 if model in ("true-belief", "true-belief-paper") else comb(n_states + k - 1, k)
    hypotheses = n_goals * n_states * n_beliefs
    initial = (n_states if n_beliefs == 1 else 1) * n_beliefs * n_states * 8
    peak = (hypotheses * (BYTES_PER_HYPOTHESIS + 8 * (steps + 1))
            + initial + belief_tables * n_states * n_beliefs * n_states * 8
            + (steps + 1) * n_states * n_states)
    return hypotheses, peak


def memory_budget() -> int:
    """Default of ``build(max_bytes=)``: half the memory available now (``MemAvailable``,
    or what the process's address-space limit, ``ulimit -v``, still leaves if that is
    less), or 8 GiB where neither can be read."""
    free = memory_available()
    return free // 2 if free is not None else 8 * 2**30


def memory_available() -> int | None:
    """The memory available now: ``MemAvailable``, or what the process's address-space
    limit (``ulimit -v``) still leaves if that is less; None where neither can be read."""
    free = [n for n in (_meminfo_available(), _address_space_left()) if n is not None]
    return min(free) if free else None


def _meminfo_available() -> int | None:
    # One read of the whole file (it is a few KiB): inference asks before every run.
    try:
        fd = os.open("/proc/meminfo", os.O_RDONLY)
        try:
            data = os.read(fd, 1 << 16)
        finally:
            os.close(fd)
        start = data.index(b"MemAvailable:") + len(b"MemAvailable:")
        return int(data[start:data.index(b"\n", start)].split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        return None


def _address_space_left() -> int | None:
    """What ``RLIMIT_AS`` leaves beyond the address space in use (None: no limit)."""
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        if limit == resource.RLIM_INFINITY:
            return None
        with open("/proc/self/status", encoding="ascii") as handle:
            used = next(int(line.split()[1]) * 1024 for line in handle if line.startswith("VmSize:"))
        return max(limit - used, 0)
    except (ImportError, OSError, ValueError, StopIteration):
        return None


#: What to run instead when exact enumeration is refused for its size.
SMC_ADVICE = "refused for exact enumeration; use `--inference smc` (particle inference: memory linear in particles)"


def check_size(model: str, n_goals: int, n_states: int, k: int, max_hypotheses: int, *,
               steps: int = 0, belief_tables: int = 1, max_bytes: int | None = None) -> None:
    """Refuse a space of more than ``max_hypotheses`` hypotheses, or whose inference would
    allocate more than ``max_bytes`` (default: :func:`memory_budget`), with its size."""
    hypotheses, peak = space_size(model, n_goals, n_states, k, steps=steps, belief_tables=belief_tables)
    budget = memory_budget() if max_bytes is None else max_bytes
    if hypotheses > max_hypotheses or peak > budget:
        beliefs = ("1 belief" if model in ("true-belief", "true-belief-paper")
                   else f"{hypotheses // (n_goals * n_states):,} beliefs (k={k})")
        limit = (f"the limit is {max_hypotheses:,} hypotheses" if hypotheses > max_hypotheses
                 else f"the memory budget is {format_bytes(budget)}")
        size = (f"the hypothesis space is too large: {n_goals} goal(s) x {n_states:,} initial states x "
                f"{beliefs} = {hypotheses:,} hypotheses, about {format_bytes(peak)} to run ({limit})")
        error = SpaceTooLarge(
            f"{size}: {SMC_ADVICE}",
            hint="or `--inference auto`, or use a smaller --k or a map with fewer closed boxes, or raise the "
                 "limits with --max-hypotheses N and --max-memory SIZE (max_hypotheses=, max_bytes=) if the "
                 "machine has the memory",
        )
        error.size = size
        raise error


class SpaceTooLarge(ScenarioError):
    """A hypothesis space refused for exact enumeration; ``size`` says how large it is
    without the advice, which depends on what the caller can run instead."""

    size: str = ""


def format_bytes(n: int) -> str:
    """A byte count for messages: ``3.1 GiB``, ``53.9 KiB``."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20)):
        if n >= size / 8:
            return f"{n / size:.1f} {unit}"
    return f"{n / 2**10:.1f} KiB"


def _whole(value, name: str, minimum: int) -> int:
    """``value`` as a whole number at least ``minimum`` (NumPy integers too), else an
    :class:`~elot.errors.ArgumentError` naming ``name``."""
    return expect_int(int(value) if isinstance(value, np.integer) else value, name, minimum=minimum)


def resolve_goals(layout: Layout, goals: tuple[str, ...] | None) -> tuple[str, ...]:
    """The goals to infer: ``goals`` (checked against the map's gems), or every gem."""
    gems = tuple(g for g, _ in layout.gems)
    if isinstance(goals, str):
        raise ArgumentError(f"goals must be a tuple of gem names, not the string {goals!r}",
                            hint=f"goals=({goals!r},)")
    goals = gems if goals is None else tuple(goals)
    unknown = [g for g in goals if g not in gems]
    if unknown or not goals:
        raise ScenarioError(
            f"unknown goal gem(s): {', '.join(unknown)}" if unknown else "no goals to infer",
            hint=f"the map's gems are {', '.join(gems)}" if gems else "the map has no gems: put a gem `g` on it",
        )
    return goals


def build(
    true_state: WorldState,
    *,
    model: str = DEFAULT_VARIANT,
    k: int = DEFAULT_K,
    prior: Prior = Prior(),
    goals: tuple[str, ...] | None = None,
    conventions: str = "elot",
    max_hypotheses: int = MAX_HYPOTHESES,
    steps: int = 0,
    belief_tables: int = 1,
    max_bytes: int | None = None,
) -> HypothesisSpace:
    """The hypothesis space of a scenario whose true initial state is ``true_state``, its
    initial states drawn from the ``prior``'s family (:class:`Prior`).

    Raises :class:`~elot.settings.VariantError` / :class:`~elot.btom.conventions.ConventionsError` for unknown
    names, and :class:`ScenarioError` (with the estimated size) instead of allocating a space
    of more than ``max_hypotheses`` hypotheses (see :data:`MAX_HYPOTHESES`), or one whose
    inference over ``steps`` actions (``belief_tables``: see :func:`space_size`) would
    allocate more than ``max_bytes`` (default: :func:`memory_budget`).
    """
    check_variant(model)
    check_conventions(conventions)
    _whole(k, "k (the belief size)", 1)
    _whole(max_hypotheses, "max_hypotheses", 1)
    expect(prior, Prior, "prior", hint="elot.btom.hypotheses.Prior(max_hidden=2)")
    goals = resolve_goals(true_state.layout, goals)
    family = prior.resolve(true_state)
    states = initial_states(true_state, family, conventions)
    n = len(states)
    check_size(model, len(goals), n, k, max_hypotheses, steps=steps, belief_tables=belief_tables,
               max_bytes=max_bytes)
    if model in ("true-belief", "true-belief-paper"):
        # The full model's belief with all k particles on the true state (ε elsewhere).
        certain = belief_weights(k * np.eye(n, dtype=np.int32), k)
        judged = None
        if model == "true-belief-paper":
            judged = np.zeros((n, 1, n))
            judged[:, 0, reference_first(true_state, states)] = 1.0
        return HypothesisSpace(model, goals, states, np.ascontiguousarray(certain.reshape(n, 1, n)),
                               conventions, judged, family)
    counts = particle_counts(n, k)
    assert len(counts) == comb(n + k - 1, k)
    weights = belief_weights(counts, k)
    # The same beliefs for every true state: a read-only view, not n copies (n^2 n_b floats).
    initial = np.broadcast_to(weights, (n, *weights.shape))
    return HypothesisSpace(model, goals, states, initial, conventions, family=family)


def reference_first(true_state: WorldState, states: tuple[WorldState, ...]) -> int:
    """The index in ``states`` of the first initial state in the reference's order (SPEC
    §7.3): where ``true-belief-paper`` puts every hypothesis's judged belief (§7.4)."""
    layout = true_state.layout
    closed = [b for b, _ in layout.boxes if b in true_state.closed]

    def rank(state: WorldState) -> tuple:
        placement = {ks.where[1]: ks.colour for _, ks in state.keys if ks.where[0] == "box" and ks.where[1] in closed}
        return reference_rank(placement, closed, layout.colours)

    return min(range(len(states)), key=lambda s: rank(states[s]))
