"""What the agent models see of a domain: a state graph, the goals' states, the observed path.

Nothing here names a domain. A :class:`StateGraph` is every state reachable from the start
(``n`` states) with each state's applicable actions and their successors in compressed-row
form; a goal is the set of states where it holds (``goal_masks[g, s]``); the observed path is
the states it visits and, at each step, which of the state's edges it took (:class:`Path`).

Costs-to-go are computed here for every state and goal at once:

* :func:`distances` — the exact number of actions to the nearest goal state (breadth first on
  the reversed graph); ``inf`` where the goal cannot be reached any more;
* :func:`relaxed_costs` — the delete relaxation's cost of each fact from each state (h_add
  or h_max, Bonet & Geffner 2001): actions never undo anything and negative preconditions are
  dropped, so a goal made unreachable by a consumed resource still has a finite cost. A
  goal's relaxed cost is the sum (h_add) or the maximum (h_max) over its facts;
* :func:`relaxed_plans` — the length of a relaxed plan (h_FF, Hoffmann & Nebel 2001): the
  number of distinct actions a plan in the delete relaxation uses to reach a goal's facts,
  each fact supported by one action at its first level. Unlike h_add it counts an action
  once however many facts it serves, and it is what a planner guided by FF sees as close;
* :func:`distances_from` — exact forward distances from given states to every state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from elot.engine import budget
from elot.errors import ArgumentError


@dataclass(frozen=True, eq=False)
class StateGraph:
    """State ``s``'s edges are ``indptr[s]:indptr[s + 1]``; edge ``e`` is action
    ``actions[e]`` to state ``successors[e]``. State 0 is the start."""

    indptr: np.ndarray
    actions: np.ndarray
    successors: np.ndarray

    @property
    def n_states(self) -> int:
        return len(self.indptr) - 1

    def edge(self, state: int, action: int) -> int | None:
        lo, hi = int(self.indptr[state]), int(self.indptr[state + 1])
        hits = np.flatnonzero(self.actions[lo:hi] == action)
        return lo + int(hits[0]) if len(hits) else None

    def edge_sources(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_states), np.diff(self.indptr))


@dataclass(frozen=True, eq=False)
class Path:
    """An observed path: ``states[0..T]`` and ``edges[0..T-1]`` (the edge taken at each step)."""

    states: np.ndarray
    edges: np.ndarray

    @property
    def steps(self) -> int:
        return len(self.edges)


def follow(graph: StateGraph, actions, start: int = 0, describe=None) -> Path:
    """The path of ``actions`` (action indices) from ``start``; an action not applicable at its
    step is an :class:`ArgumentError` naming the step (``describe(i)`` names the action)."""
    states, edges = [start], []
    for i, a in enumerate(actions):
        e = graph.edge(states[-1], int(a))
        if e is None:
            what = describe(i) if describe else f"action {a}"
            raise ArgumentError(f"step {i + 1} of the path, {what}, is not applicable in the state it reaches",
                                hint="check the plan against the problem's initial state")
        edges.append(e)
        states.append(int(graph.successors[e]))
    return Path(np.array(states, dtype=np.int64), np.array(edges, dtype=np.int64))


def distances(graph: StateGraph, goal_masks: np.ndarray) -> np.ndarray:
    """``float64[G, n]``: the fewest actions from each state to a state of each goal (``inf``: none)."""
    goal_masks = np.atleast_2d(np.asarray(goal_masks, dtype=bool))
    n = graph.n_states
    src = graph.edge_sources()
    # the reversed graph in compressed-row form: for each state, the states with an edge into it
    order = np.argsort(graph.successors, kind="stable")
    rev_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(graph.successors, minlength=n), out=rev_ptr[1:])
    rev_src = src[order]
    out = np.full(goal_masks.shape, np.inf)
    for g, mask in enumerate(goal_masks):
        frontier = np.flatnonzero(mask)
        out[g, frontier] = 0
        _breadth_first(rev_ptr, rev_src, out[g], frontier)
    return out


def _breadth_first(ptr: np.ndarray, to: np.ndarray, dist: np.ndarray, frontier: np.ndarray) -> None:
    """``dist`` filled in, breadth first from ``frontier`` (the states at distance 0), over
    a graph in compressed-row form: the states next to s are ``to[ptr[s]:ptr[s + 1]]``;
    ``dist`` is ``inf`` at every state not yet reached."""
    level = 0
    while len(frontier):
        level += 1
        starts, ends = ptr[frontier], ptr[frontier + 1]
        lengths = ends - starts
        total = int(lengths.sum())
        if not total:
            break
        idx = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
        nxt = to[idx]
        nxt = nxt[np.isinf(dist[nxt])]
        if not len(nxt):
            break
        dist[nxt] = level
        # the new level's states, each once (cheaper than sorting the states reached)
        frontier = np.flatnonzero(dist == level)


def relaxed_costs(state_facts: np.ndarray, pre_ptr: np.ndarray, pre_facts: np.ndarray, add_ptr: np.ndarray,
                  add_facts: np.ndarray, kind: str = "add", costs: np.ndarray | None = None) -> np.ndarray:
    """``float64[n, F]``: each fact's cost from each state in the delete relaxation.

    ``state_facts`` (``bool[n, F]``) are the facts true in each state; relaxed action ``r``
    needs the facts ``pre_facts[pre_ptr[r]:pre_ptr[r + 1]]``, adds ``add_facts[add_ptr[r]:...]``
    and costs ``costs[r]`` (1 by default). A fact's cost is the least over the actions adding
    it of the action's cost plus the sum (``kind="add"``) or maximum (``"max"``) of its
    preconditions' costs; ``inf`` where it is never reached. Iterated to the fixed point for
    every state at once, in a fixed order (the same numbers on every machine)."""
    if kind not in ("add", "max"):
        raise ArgumentError(f"unknown relaxed cost {kind!r}", hint="choose add or max")
    facts = np.asarray(state_facts, dtype=bool)
    n, n_f = facts.shape
    n_r = len(pre_ptr) - 1
    costs = np.ones(n_r) if costs is None else np.asarray(costs, dtype=np.float64)
    value = np.where(facts, 0.0, np.inf)
    for _ in range(n_f + 1):
        changed = False
        for r in range(n_r):
            pre = pre_facts[pre_ptr[r]:pre_ptr[r + 1]]
            if len(pre):
                need = value[:, pre].sum(axis=1) if kind == "add" else value[:, pre].max(axis=1)
            else:
                need = np.zeros(n)
            reach = need + costs[r]
            for f in add_facts[add_ptr[r]:add_ptr[r + 1]]:
                better = reach < value[:, f]
                if better.any():
                    value[better, f] = reach[better]
                    changed = True
        if not changed:
            break
    return value


def horizon_costs(graph: StateGraph, goal_masks: np.ndarray, leaf: np.ndarray, horizon: int) -> np.ndarray:
    """``float64[G, n]``: the cost-to-go of an agent that looks ``horizon`` actions ahead exactly
    and values the states there by ``leaf`` (a heuristic, e.g. the relaxed cost):
    ``C_0 = leaf``, ``C_k(s) = 0`` at a goal state, else ``min over edges (1 + C_{k-1}(s'))``
    (a state with no action keeps its leaf value). ``horizon`` 0 is the heuristic alone; as
    it grows, ``C`` becomes the exact distance wherever the goal can be reached, and stays
    finite where it cannot (the best the agent sees within reach)."""
    masks = np.atleast_2d(np.asarray(goal_masks, dtype=bool))
    cost = np.where(masks, 0.0, np.asarray(leaf, dtype=np.float64))
    deg = np.diff(graph.indptr)
    has = deg > 0
    starts = graph.indptr[:-1][has]
    for _ in range(int(horizon)):
        through = 1.0 + cost[:, graph.successors]                      # [G, edges]
        best = cost.copy()
        if len(graph.successors):
            best[:, has] = np.minimum.reduceat(through, starts, axis=1)
        new = np.where(masks, 0.0, best)
        if np.array_equal(new, cost):
            break
        cost = new
    return cost


@dataclass(frozen=True, eq=False)
class RelaxedPlans:
    """Relaxed plans from every state (see :func:`relaxed_plans`): ``levels[s, f]`` is fact
    f's first level from state s (0 if true there, ``inf`` if never reached), and
    ``plans[s, f]`` the set of relaxed actions (a bitset over the action rows, ``uint64``
    words) that reach f from s, its supporter and its preconditions' supporters, recursively."""

    levels: np.ndarray
    plans: np.ndarray

    def costs(self, goal_facts) -> np.ndarray:
        """``float64[n]``: h_FF of the conjunction of ``goal_facts`` (fact indices) from each
        state: the number of distinct actions in the union of its facts' relaxed plans;
        ``inf`` where a fact is never reached, 0 where all hold."""
        goal_facts = np.asarray(goal_facts, dtype=np.int64).reshape(-1)
        n = self.levels.shape[0]
        if not len(goal_facts):
            return np.zeros(n)
        union = np.bitwise_or.reduce(self.plans[:, goal_facts], axis=1)
        out = np.bitwise_count(union).sum(axis=1).astype(np.float64)
        out[~np.isfinite(self.levels[:, goal_facts]).all(axis=1)] = np.inf
        return out


def relaxed_plans(state_facts: np.ndarray, pre_ptr: np.ndarray, pre_facts: np.ndarray, add_ptr: np.ndarray,
                  add_facts: np.ndarray, limits: budget.Limits | None = None) -> RelaxedPlans:
    """The relaxed plans of every fact from every state, for h_FF (:meth:`RelaxedPlans.costs`).

    The relaxed task is :func:`relaxed_costs`'s (``state_facts`` ``bool[n, F]``, action ``r``
    needing ``pre_facts[pre_ptr[r]:pre_ptr[r + 1]]`` and adding ``add_facts[...]``). A fact
    not true in a state is *supported* by the first action, in row order, that adds it at its
    first level (its h_max level, one more than the action's preconditions' greatest); its
    relaxed plan is its supporter with the relaxed plans of the supporter's preconditions.
    This is FF's backward extraction (Hoffmann & Nebel 2001) with the first achiever chosen,
    as Plinf.jl's FFHeuristic chooses it, done for every state at once; the choice depends on
    the state and the fact only, so a goal's plan is the union of its facts' plans. The
    plans are held as ``n × F`` bitsets of the actions; their size is checked against the
    memory budget before any work."""
    facts = np.asarray(state_facts, dtype=bool)
    n, n_f = facts.shape
    n_r = len(pre_ptr) - 1
    words = max(1, (n_r + 63) // 64)
    budget.check(budget.Estimate("the relaxed plans", n * n_f * words * 8 * 3 + n * n_r * 8,
                                 detail=f"{n:,} states × {n_f} facts × {n_r} actions"),
                 limits or budget.Limits(), hint="use exact costs or h_add (relaxed_costs) for a space this large")
    pre = [np.asarray(pre_facts[pre_ptr[r]:pre_ptr[r + 1]], dtype=np.int64) for r in range(n_r)]
    add = [np.asarray(add_facts[add_ptr[r]:add_ptr[r + 1]], dtype=np.int64) for r in range(n_r)]
    level = relaxed_costs(facts, pre_ptr, pre_facts, add_ptr, add_facts, kind="max")   # h_max levels, unit costs
    zero = np.zeros(n)
    row_level = [(level[:, p].max(axis=1) if len(p) else zero) for p in pre]
    support = np.full((n, n_f), -1, dtype=np.int64)
    for r in range(n_r):
        for f in add[r]:
            first = ((support[:, f] < 0) & (level[:, f] > 0) & np.isfinite(level[:, f])
                     & (row_level[r] + 1.0 == level[:, f]))
            support[first, f] = r
    bit = np.zeros((n_r, words), dtype=np.uint64)
    for r in range(n_r):
        bit[r, r >> 6] = np.uint64(1) << np.uint64(r & 63)
    # each action's preconditions padded with a fact n_f whose plan is empty
    width = max([len(p) for p in pre] + [1])
    padded = np.full((n_r, width), n_f, dtype=np.int64)
    for r, p in enumerate(pre):
        padded[r, :len(p)] = p
    plans = np.zeros((n, n_f + 1, words), dtype=np.uint64)
    supported = support >= 0
    rows = np.arange(n)[:, None]
    deepest = int(level[np.isfinite(level)].max()) if np.isfinite(level).any() else 0
    # a supporter's preconditions sit at lower levels, so level k's plans are final after k rounds
    for _ in range(deepest):
        through = np.broadcast_to(bit, (n, n_r, words)).copy()                  # [n, R, words]
        for j in range(width):
            through |= plans[:, padded[:, j]]
        new = np.zeros_like(plans)
        new[:, :n_f] = np.where(supported[:, :, None], through[rows, np.where(supported, support, 0)], 0)
        if np.array_equal(new, plans):
            break
        plans = new
    return RelaxedPlans(level, plans[:, :n_f])


def distances_from(graph: StateGraph, sources) -> np.ndarray:
    """``float64[len(sources), n]``: the fewest actions from each source state to every
    state (breadth first on the graph; ``inf``: not reachable)."""
    sources = np.asarray(sources, dtype=np.int64).reshape(-1)
    n = graph.n_states
    out = np.full((len(sources), n), np.inf)
    for i, s in enumerate(sources):
        out[i, s] = 0
        _breadth_first(graph.indptr, graph.successors, out[i], np.array([s], dtype=np.int64))
    return out
