"""The hypothesis space of exact BToM inference (SPEC §5): goals × initial states × beliefs.

* **Goals**: every gem, uniform.
* **Initial states**: every placement of hidden keys in the closed boxes that agrees with
  what is visible: 0 to ``max_hidden`` hidden keys, at most one per box, and for each colour
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
``true-belief-paper`` (:data:`REPRODUCTION_MODELS`) is that ablation for the agent, but the
belief its statements are judged against is certainty in initial state #1 of the
reference's order, whatever the hypothesis (SPEC §7.4: an artifact of the reference's
evaluation code, kept only to reproduce the paper's Table).

This module also owns the numeric encoding of worlds that ``btom_ext`` works on
(:class:`Encoding`); its layout is documented in :mod:`btom_ext.reference`.
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass
from functools import cached_property
from math import comb

import numpy as np

from btom_ext.reference import AGENT, BOX, CLOSED, EPSILON, FLOOR, GEMS, GONE, HELD, KEYS, LOCKED
from elot.btom.conventions import check_conventions
from elot.errors import ElotError, ScenarioError
from elot.btom.world import OFFGRID, KeyState, Layout, Pos, WorldState

#: The models of SPEC §5: the full model and the paper's two ablations.
MODELS = ("full", "true-belief", "non-planning")
#: Models that reproduce artifacts of the reference pipeline (SPEC §7), not for real use.
REPRODUCTION_MODELS = ("true-belief-paper",)
#: Every name :func:`build` and :func:`elot.btom.inference.infer` accept.
ALL_MODELS = MODELS + REPRODUCTION_MODELS


class ModelError(ElotError, ValueError):
    """An unknown model name (also a ``ValueError``, what it used to be)."""


def check_model(name: str) -> str:
    """Return ``name`` if it names a model of :data:`ALL_MODELS`, else raise :class:`ModelError`."""
    if name not in ALL_MODELS:
        import difflib

        close = difflib.get_close_matches(str(name), ALL_MODELS, n=1)
        raise ModelError(f"unknown model {name!r}",
                         hint=(f"did you mean {close[0]}? " if close else "")
                         + f"use one of: {', '.join(ALL_MODELS)}")
    return name


# -- numeric encoding ----------------------------------------------------------------------


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

    @property
    def row_width(self) -> int:
        return KEYS + 3 * len(self.layout.keys)

    def encode(self, state: WorldState) -> np.ndarray:
        """One world as an ``int32`` row (see :mod:`btom_ext.reference`)."""
        index = self._index
        n_keys = len(self.layout.keys)
        row = np.empty(self.row_width, dtype=np.int32)
        row[AGENT] = self.cell(state.agent_pos)
        row[LOCKED] = sum(1 << index["door"][d] for d in state.locked)
        row[CLOSED] = sum(1 << index["box"][b] for b in state.closed)
        row[GEMS] = sum(1 << index["gem"][g] for g in state.held_gems)
        for k, name in enumerate(self.layout.keys):
            ks = state.key(name)
            kind = ks.where[0]
            if kind == "cell":
                status, where = FLOOR, self.cell(ks.where[1])
            elif kind == "box":
                status, where = BOX, index["box"][ks.where[1]]
            elif kind == "held":
                status, where = HELD, -1
            else:  # used, or never on the map
                status, where = GONE, -1
            row[KEYS + k] = status
            row[KEYS + n_keys + k] = where
            row[KEYS + 2 * n_keys + k] = -1 if ks.colour is None else self.colour_index[ks.colour]
        return row

    def encode_many(self, states) -> np.ndarray:
        """Many worlds as an ``(n, row_width)`` array."""
        rows = [self.encode(s) for s in states]
        if not rows:
            return np.empty((0, self.row_width), dtype=np.int32)
        return np.stack(rows)

    def planner(self, backend):
        """A path-cost planner for this layout from a backend module (``btom_ext.backend``)."""
        return backend.Planner(
            self.walls, self.layout.width, self.door_cells, self.door_colours,
            self.box_cells, self.gem_cells,
        )


# -- colour limits from optimal plans in the true map -------------------------------------


#: Most planning states :func:`key_pickups` explores (about a second of work).
MAX_PLAN_STATES = 100_000


def key_pickups(state: WorldState, gem: str) -> tuple[int, frozenset[tuple[int, ...]]] | None:
    """Cost of an optimal plan to hold ``gem`` in the fully known ``state``, and every vector
    (per colour of ``layout.colours``) of keys picked up by some optimal plan. None when the
    gem cannot be reached.

    Optimal plans are sequences of useful events (pick up a key, unlock a door, pick up the
    gem) with grid travel in between, as in the compiled planner.
    """
    enc = Encoding(state.layout)
    layout = state.layout
    n_colours = len(layout.colours)
    row = enc.encode(state)
    n_keys = len(layout.keys)
    status0 = tuple(int(x) for x in row[KEYS : KEYS + n_keys])
    where = [int(x) for x in row[KEYS + n_keys : KEYS + 2 * n_keys]]
    colours = [int(x) for x in row[KEYS + 2 * n_keys :]]
    key_cell = [
        where[k] if status0[k] == FLOOR else int(enc.box_cells[where[k]]) if status0[k] == BOX else -1
        for k in range(n_keys)
    ]
    goal_cell = int(enc.gem_cells[enc.gem_index(gem)])
    width, height = layout.width, layout.height
    distances: dict[tuple[int, int], dict[int, int]] = {}

    def dist(locked: int, source: int) -> dict[int, int]:
        got = distances.get((locked, source))
        if got is None:
            blocked = {int(c) for d, c in enumerate(enc.door_cells) if locked >> d & 1}
            got = {source: 0}
            queue = deque([source])
            while queue:
                c = queue.popleft()
                x, y = c % width, c // width
                for nx, ny in ((x, y - 1), (x, y + 1), (x - 1, y), (x + 1, y)):
                    n = ny * width + nx
                    if 0 <= nx < width and 0 <= ny < height and n not in got:
                        if not enc.walls[n] and n not in blocked:
                            got[n] = got[c] + 1
                            queue.append(n)
            distances[(locked, source)] = got
        return got

    memo: dict[tuple, tuple[float, frozenset]] = {}
    zero = (0,) * n_colours
    door_colour = [int(c) for c in enc.door_colours]

    def useful(k: int, locked: int, status: tuple) -> bool:
        # A key that no locked door can use is never picked up by an optimal plan (the
        # pickup costs a step and buys nothing), so only keys of a colour with more
        # locked doors than held keys are tried: the search is polynomial in the number
        # of keys (exponential only in the number of doors), not 2^keys.
        colour = colours[k]
        held = sum(1 for j, s in enumerate(status) if s == HELD and colours[j] == colour)
        doors = sum(1 for d, c in enumerate(door_colour) if locked >> d & 1 and c == colour)
        return held < doors

    def best(cell: int, locked: int, closed: int, status: tuple) -> tuple[float, frozenset]:
        key = (cell, locked, closed, status)
        if key in memo:
            return memo[key]
        if len(memo) >= MAX_PLAN_STATES:
            raise ScenarioError(
                f"the map has too many keys, doors and boxes to find the optimal plans to {gem} "
                f"(more than {MAX_PLAN_STATES:,} planning states)",
                hint="use fewer doors or keys of the same colour",
            )
        d = dist(locked, cell)
        options: list[tuple[float, frozenset]] = []
        if goal_cell in d:
            options.append((d[goal_cell] + 1, frozenset([zero])))
        for k, st in enumerate(status):
            if st in (FLOOR, BOX) and key_cell[k] in d and useful(k, locked, status):
                box_closed = st == BOX and closed >> where[k] & 1
                cost = d[key_cell[k]] + 1 + (1 if box_closed else 0)
                nclosed = closed & ~(1 << where[k]) if box_closed else closed
                sub_cost, sub = best(key_cell[k], locked, nclosed, status[:k] + (HELD,) + status[k + 1 :])
                bump = tuple(v + (c == colours[k]) for c, v in enumerate(zero))
                vecs = frozenset(tuple(a + b for a, b in zip(v, bump)) for v in sub)
                options.append((cost + sub_cost, vecs))
            elif st == HELD:
                for door, dcell in enumerate(enc.door_cells):
                    if not locked >> door & 1 or enc.door_colours[door] != colours[k]:
                        continue
                    x, y = int(dcell) % width, int(dcell) // width
                    for nx, ny in ((x, y - 1), (x, y + 1), (x - 1, y), (x + 1, y)):
                        n = ny * width + nx
                        if 0 <= nx < width and 0 <= ny < height and n in d:
                            sub_cost, sub = best(
                                n, locked & ~(1 << door), closed, status[:k] + (GONE,) + status[k + 1 :]
                            )
                            options.append((d[n] + 1 + sub_cost, sub))
        low = min((c for c, _ in options), default=float("inf"))
        vecs = frozenset().union(*(v for c, v in options if c == low)) if low < float("inf") else frozenset()
        memo[key] = (low, vecs)
        return memo[key]

    if gem in state.held_gems:
        return 0, frozenset([zero])
    cost, vecs = best(int(row[AGENT]), int(row[LOCKED]), int(row[CLOSED]), status0)
    if cost == float("inf"):
        return None
    return int(cost), vecs


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


def initial_states(true_state: WorldState, max_hidden: int = 2,
                   conventions: str = "elot") -> tuple[WorldState, ...]:
    """Every initial state consistent with what is visible in ``true_state`` (SPEC §5),
    in elot's order and naming, or the reference's under ``conventions="paper"`` (§7.3)."""
    check_conventions(conventions)
    layout = true_state.layout
    closed = [b for b, _ in layout.boxes if b in true_state.closed]
    spare = [k for k in layout.keys if true_state.hidden(k) or true_state.key(k).where == ("offgrid",)]
    placements = _placements(true_state, closed, len(spare), max_hidden)
    if not placements:
        raise ScenarioError(
            "no initial state is consistent with the visible map and the colour limits",
            hint="check that the closed boxes and spare key objects can hold the keys the goals need",
        )
    if conventions == "paper":
        placements.sort(key=lambda p: reference_rank(p, closed, layout.colours))
        names = [_reference_names(p, closed, spare) for p in placements]
    else:
        colours = list(layout.colours)
        placements.sort(key=lambda p: (len(p), tuple(colours.index(p[b]) if b in p else -1 for b in closed)))
        names = [_elot_names(p, true_state, closed, spare) for p in placements]
    return tuple(
        WorldState(layout, true_state.agent_pos,
                   tuple((k, named.get(k, OFFGRID) if k in spare else true_state.key(k)) for k, _ in true_state.keys),
                   true_state.locked, true_state.closed, true_state.held_gems)
        for named in names
    )


def _placements(true_state: WorldState, closed: list[str], n_spare: int, max_hidden: int) -> list[dict[str, str]]:
    """Every placement ``{box: colour}`` of hidden keys within the colour limits (unordered)."""
    limits = colour_limits(true_state)
    colours = list(true_state.layout.colours)
    ranges = [range(limits[c][0], limits[c][1] + 1) for c in colours]
    placements: list[dict[str, str]] = []
    for counts in itertools.product(*ranges):
        total = sum(counts)
        if total > max_hidden or total > len(closed) or total > n_spare:
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


def _elot_names(placement: dict[str, str], true_state: WorldState, closed: list[str],
                spare: list[str]) -> dict[str, KeyState]:
    """True hidden keys whose box and colour match keep their object; the other filled
    boxes (in box order) take the unused spare objects in key order."""
    true_hidden = {
        (true_state.key(k).where[1], true_state.key(k).colour): k
        for k in true_state.layout.keys if true_state.hidden(k)
    }
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
    rows = []
    for combo in itertools.combinations_with_replacement(range(n_states), k):
        rows.append(np.bincount(np.array(combo, dtype=np.int64), minlength=n_states))
    return np.array(rows, dtype=np.int32).reshape(-1, n_states)


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

    @property
    def n_goals(self) -> int:
        return len(self.goals)

    @property
    def n_states(self) -> int:
        return len(self.states)

    @property
    def n_beliefs(self) -> int:
        return self.initial_beliefs.shape[1]

    def __len__(self) -> int:
        return self.n_goals * self.n_states * self.n_beliefs

    @cached_property
    def index(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(goal, state, belief)`` index arrays (``int32``) of every hypothesis."""
        g, s, b = np.meshgrid(
            np.arange(self.n_goals), np.arange(self.n_states), np.arange(self.n_beliefs), indexing="ij"
        )
        return tuple(np.ascontiguousarray(a.ravel(), dtype=np.int32) for a in (g, s, b))


#: Peak bytes per hypothesis during inference, measured by ``benchmarks/bench_btom.py``.
BYTES_PER_HYPOTHESIS = 610

#: Default of ``build(max_hypotheses=)``: 2 million hypotheses peak at about 1.2 GB, well
#: within a 24 GiB machine shared with other work (the paper's maps need at most a few
#: hundred thousand).
MAX_HYPOTHESES = 2_000_000


def space_size(model: str, n_goals: int, n_states: int, k: int) -> tuple[int, int]:
    """The number of hypotheses of a space, and an estimate of the peak bytes inference
    on it needs (per-hypothesis arrays plus the initial beliefs), before building it."""
    n_beliefs = 1 if model == "true-belief" else comb(n_states + k - 1, k)
    hypotheses = n_goals * n_states * n_beliefs
    return hypotheses, hypotheses * BYTES_PER_HYPOTHESIS + n_states * n_beliefs * n_states * 8


def check_size(model: str, n_goals: int, n_states: int, k: int, max_hypotheses: int) -> None:
    """Refuse a space larger than ``max_hypotheses`` with its estimated size."""
    hypotheses, peak = space_size(model, n_goals, n_states, k)
    if hypotheses > max_hypotheses:
        beliefs = "1 belief" if model == "true-belief" else f"{hypotheses // (n_goals * n_states):,} beliefs (k={k})"
        raise ScenarioError(
            f"the hypothesis space is too large: {n_goals} goal(s) x {n_states:,} initial states x "
            f"{beliefs} = {hypotheses:,} hypotheses, about {peak / 2**30:.1f} GiB "
            f"(the limit is {max_hypotheses:,})",
            hint="run particle inference instead: --inference smc (inference=\"smc\"), or --inference auto; "
                 "or use a smaller --k or a map with fewer closed boxes, or raise the limit with "
                 "--max-hypotheses (max_hypotheses=) if the machine has the memory",
        )


def resolve_goals(layout: Layout, goals: tuple[str, ...] | None) -> tuple[str, ...]:
    """The goals to infer: ``goals`` (checked against the map's gems), or every gem."""
    gems = tuple(g for g, _ in layout.gems)
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
    model: str = "full",
    k: int = 3,
    max_hidden_keys: int = 2,
    goals: tuple[str, ...] | None = None,
    conventions: str = "elot",
    max_hypotheses: int = MAX_HYPOTHESES,
) -> HypothesisSpace:
    """The hypothesis space of a scenario whose true initial state is ``true_state``.

    Raises :class:`ModelError` / :class:`~elot.btom.conventions.ConventionsError` for unknown
    names, and :class:`ScenarioError` (with the estimated size) instead of allocating a space
    of more than ``max_hypotheses`` hypotheses (see :data:`MAX_HYPOTHESES`).
    """
    check_model(model)
    check_conventions(conventions)
    if k < 1:
        raise ValueError("k (particles per belief) must be at least 1")
    goals = resolve_goals(true_state.layout, goals)
    states = initial_states(true_state, max_hidden_keys, conventions)
    n = len(states)
    check_size(model, len(goals), n, k, max_hypotheses)
    if model in ("true-belief", "true-belief-paper"):
        # The full model's belief with all k particles on the true state (ε elsewhere).
        certain = belief_weights(k * np.eye(n, dtype=np.int32), k)
        judged = None
        if model == "true-belief-paper":
            judged = np.zeros((n, 1, n))
            judged[:, 0, reference_first(true_state, states)] = 1.0
        return HypothesisSpace(model, goals, states, np.ascontiguousarray(certain.reshape(n, 1, n)),
                               conventions, judged)
    counts = particle_counts(n, k)
    assert len(counts) == comb(n + k - 1, k)
    weights = belief_weights(counts, k)
    initial = np.ascontiguousarray(np.broadcast_to(weights, (n, *weights.shape)))
    return HypothesisSpace(model, goals, states, initial, conventions)


def reference_first(true_state: WorldState, states: tuple[WorldState, ...]) -> int:
    """The index in ``states`` of the first initial state in the reference's order (SPEC
    §7.3): where ``true-belief-paper`` puts every hypothesis's judged belief (§7.4)."""
    layout = true_state.layout
    closed = [b for b, _ in layout.boxes if b in true_state.closed]

    def rank(state: WorldState) -> tuple:
        placement = {ks.where[1]: ks.colour for _, ks in state.keys if ks.where[0] == "box" and ks.where[1] in closed}
        return reference_rank(placement, closed, layout.colours)

    return min(range(len(states)), key=lambda s: rank(states[s]))
