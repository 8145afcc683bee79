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

The colour limits come from optimal plans in the true map (:mod:`elot.domains.doors_keys_gems.pickups`); the
space's size and cost are counted by :mod:`elot.domains.doors_keys_gems.costs` and checked against the one
budget (:mod:`elot.engine.budget`) before anything is allocated; the numeric encoding of
worlds is :mod:`elot.domains.doors_keys_gems.encoding`'s.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from elot.engine.budget import Limits
from elot.engine.worlds.spaces import HypothesisSpace, initial_beliefs
from elot.settings import check_conventions
from elot.domains.doors_keys_gems.costs import check_exact
from elot.engine.worlds.spaces import exact_estimate
from elot.domains.doors_keys_gems.pickups import colour_limits
from elot.errors import ArgumentError, ScenarioError, expect, expect_int
from elot.settings import DEFAULT_K, DEFAULT_VARIANT, MAX_HYPOTHESES, check_variant
from elot.domains.doors_keys_gems.world import OFFGRID, KeyState, Layout, WorldState

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


def check_size(model: str, n_goals: int, n_states: int, k: int, max_hypotheses: int, *,
               steps: int = 0, belief_tables: int = 1, max_bytes: int | None = None) -> None:
    """Refuse a space of more than ``max_hypotheses`` hypotheses, or whose inference would
    allocate more than ``max_bytes`` (default: half the memory available now), with its
    size (:func:`elot.domains.doors_keys_gems.costs.check_exact`)."""
    check_exact(exact_estimate(model, n_goals, n_states, k, steps=steps, belief_tables=belief_tables),
                Limits(max_size=max_hypotheses, max_bytes=max_bytes))


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

    Raises :class:`~elot.settings.VariantError` / :class:`~elot.settings.ConventionsError` for unknown
    names, and :class:`ScenarioError` (with the estimated size) instead of allocating a space
    of more than ``max_hypotheses`` hypotheses (see :data:`MAX_HYPOTHESES`), or one whose
    inference over ``steps`` actions (``belief_tables``: see
    :func:`elot.domains.doors_keys_gems.costs.exact_estimate`) would allocate more than ``max_bytes``
    (default: half the memory available now, :func:`elot.engine.budget.memory_budget`).
    """
    check_variant(model)
    check_conventions(conventions)
    _whole(k, "k (the belief size)", 1)
    _whole(max_hypotheses, "max_hypotheses", 1)
    expect(prior, Prior, "prior", hint="elot.domains.doors_keys_gems.hypotheses.Prior(max_hidden=2)")
    goals = resolve_goals(true_state.layout, goals)
    family = prior.resolve(true_state)
    states = initial_states(true_state, family, conventions)
    n = len(states)
    check_size(model, len(goals), n, k, max_hypotheses, steps=steps, belief_tables=belief_tables,
               max_bytes=max_bytes)
    initial = initial_beliefs(model, n, k)
    judged = None
    if model == "true-belief-paper":
        judged = np.zeros((n, 1, n))
        judged[:, 0, reference_first(true_state, states)] = 1.0
    return HypothesisSpace(model, goals, states, initial, conventions, judged, family, goal_sort="gem")


def reference_first(true_state: WorldState, states: tuple[WorldState, ...]) -> int:
    """The index in ``states`` of the first initial state in the reference's order (SPEC
    §7.3): where ``true-belief-paper`` puts every hypothesis's judged belief (§7.4)."""
    layout = true_state.layout
    closed = [b for b, _ in layout.boxes if b in true_state.closed]

    def rank(state: WorldState) -> tuple:
        placement = {ks.where[1]: ks.colour for _, ks in state.keys if ks.where[0] == "box" and ks.where[1] in closed}
        return reference_rank(placement, closed, layout.colours)

    return min(range(len(states)), key=lambda s: rank(states[s]))


def count_model_states(true_state: WorldState, prior: Prior = Prior()) -> int:
    """How many initial states :func:`initial_states` enumerates (what the simulated agent's
    :func:`~elot.domains.doors_keys_gems.agent.model_states` and particle inference hold), counted without
    enumerating them: for each number of hidden keys of each colour the family allows,
    the ways to put them in distinct closed boxes (the placements of
    :func:`elot.domains.doors_keys_gems.hypotheses.initial_states`)."""
    family = prior.resolve(true_state)
    layout = true_state.layout
    closed = sum(1 for b, _ in layout.boxes if b in true_state.closed)
    spare = sum(1 for k in layout.keys if true_state.hidden(k) or true_state.key(k).where == ("offgrid",))
    ranges = [range(family.limits[c][0], family.limits[c][1] + 1) for c in layout.colours]
    total = 0
    for counts in itertools.product(*ranges):
        hidden = sum(counts)
        if hidden > family.max_hidden or hidden > closed or hidden > spare:
            continue
        total += math.perm(closed, hidden) // math.prod(math.factorial(n) for n in counts)
    return total
