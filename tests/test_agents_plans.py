"""Relaxed plans (h_FF) against a planning graph built state by state and against the optimal
relaxed plan found by enumeration; the partial-plan agent's likelihood against a sum over
every history of waypoints, follows and slips on small graphs."""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elot.engine.agents import (Lapse, PartialPlans, Reach, StateGraph, cost_to_go, distances, distances_from,
                                follow, relaxed_costs, relaxed_plans)
from elot.errors import ArgumentError

# -- relaxed plans -------------------------------------------------------------------------


def flat(lists):
    ptr = np.concatenate([[0], np.cumsum([len(x) for x in lists])]).astype(np.int64)
    return ptr, np.array([f for x in lists for f in x], dtype=np.int64)


def ff_by_planning_graph(state: set, pre: list, add: list, goal: list) -> float:
    """FF's relaxed plan for one state, as Plinf.jl builds it: a layered planning graph
    (each fact's level and the actions that first add it, in action order), then a backward
    pass from the goal choosing each fact's first achiever; the distinct actions counted."""
    level = {f: 0 for f in state}
    achievers: dict = {}
    k = 0
    while not all(f in level for f in goal):
        k += 1
        known = dict(level)
        for r, (p, a) in enumerate(zip(pre, add)):
            if all(f in known and known[f] < k for f in p):
                for f in a:
                    if f not in level:
                        level[f] = k
                        achievers.setdefault(f, r)
        if len(level) == len(known):
            return math.inf
    plan, agenda = set(), set(goal)
    while agenda:
        f = agenda.pop()
        if level[f] == 0:
            continue
        r = achievers[f]
        if r not in plan:
            plan.add(r)
            agenda |= set(pre[r])
    return float(len(plan))


def optimal_relaxed(state: set, pre: list, add: list, goal: list) -> float:
    """h+: the fewest actions any relaxed plan needs (every subset of actions tried)."""
    for size in range(len(pre) + 1):
        for subset in itertools.combinations(range(len(pre)), size):
            have = set(state)
            grew = True
            while grew:
                grew = False
                for r in subset:
                    if all(f in have for f in pre[r]) and not set(add[r]) <= have:
                        have |= set(add[r])
                        grew = True
            if all(f in have for f in goal):
                return float(size)
    return math.inf


def test_relaxed_plans_count_a_shared_action_once():
    # facts a, b, c, d; actions a -> b, b -> c, b -> d: reaching {c, d} from {a} takes three
    # actions (h_add counts a -> b twice: 4)
    pre_ptr, pre = flat([[0], [1], [1]])
    add_ptr, add = flat([[1], [2], [3]])
    facts = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 1]], dtype=bool)
    plans = relaxed_plans(facts, pre_ptr, pre, add_ptr, add)
    assert plans.costs([2, 3]).tolist() == [3.0, 2.0, 0.0]
    assert relaxed_costs(facts, pre_ptr, pre, add_ptr, add, "add")[0, [2, 3]].sum() == 4.0
    assert plans.costs([]).tolist() == [0.0, 0.0, 0.0]
    assert np.isinf(plans.costs([0])[1])          # nothing adds a


@st.composite
def relaxed_tasks(draw):
    n_f = draw(st.integers(2, 6))
    n_r = draw(st.integers(1, 7))
    fact = st.integers(0, n_f - 1)
    pre = [sorted(set(draw(st.lists(fact, max_size=2)))) for _ in range(n_r)]
    add = [sorted(set(draw(st.lists(fact, min_size=1, max_size=2)))) for _ in range(n_r)]
    states = draw(st.lists(st.sets(fact, max_size=n_f), min_size=1, max_size=4))
    goal = sorted(set(draw(st.lists(fact, min_size=1, max_size=3))))
    return n_f, pre, add, states, goal


@settings(max_examples=150, deadline=None)
@given(relaxed_tasks())
def test_relaxed_plans_are_ffs_plans_and_no_shorter_than_the_optimal(task):
    n_f, pre, add, states, goal = task
    facts = np.zeros((len(states), n_f), dtype=bool)
    for i, s in enumerate(states):
        facts[i, sorted(s)] = True
    got = relaxed_plans(facts, *flat(pre), *flat(add)).costs(goal)
    h_max = relaxed_costs(facts, *flat(pre), *flat(add), "max")[:, goal].max(axis=1)
    for i, s in enumerate(states):
        assert got[i] == ff_by_planning_graph(set(s), pre, add, goal)
        best = optimal_relaxed(set(s), pre, add, goal)
        assert h_max[i] <= best <= got[i]          # admissible h_max, h+ below any relaxed plan
        assert (got[i] == 0) == all(f in s for f in goal)


# -- the partial-plan agent ----------------------------------------------------------------


def grid_graph(width: int = 3, height: int = 3):
    """A grid: states y * width + x, actions 0..3 = right, left, up, down where they stay on it."""
    moves = [(1, 0), (-1, 0), (0, 1), (0, -1)]
    edges = {}
    for y, x in itertools.product(range(height), range(width)):
        s = y * width + x
        edges[s] = [(a, (y + dy) * width + x + dx) for a, (dx, dy) in enumerate(moves)
                    if 0 <= x + dx < width and 0 <= y + dy < height]
    return edges


def as_graph(edges) -> StateGraph:
    indptr, actions, succ = [0], [], []
    for s in range(len(edges)):
        for a, t in edges[s]:
            actions.append(a)
            succ.append(t)
        indptr.append(len(actions))
    return StateGraph(np.array(indptr), np.array(actions), np.array(succ))


def bfs(edges, source):
    dist, frontier = {source: 0}, [source]
    while frontier:
        nxt = []
        for s in frontier:
            for _, t in edges[s]:
                if t not in dist:
                    dist[t] = dist[s] + 1
                    nxt.append(t)
        frontier = nxt
    return dist


def brute_partial_plans(edges, cost, done, plan, model) -> float:
    """P(plan | goal) summed over every history: at each planning time every waypoint (with
    its softmax weight), then at each step either the plan is followed (1 − ε, any action
    starting a shortest path to the waypoint) or the action slips (ε, any action)."""
    dist = {s: bfs(edges, s) for s in edges}
    H, beta, eps = model.horizon, model.beta, model.epsilon

    @functools.cache
    def waypoints(s):
        ball = [w for w, d in dist[s].items() if 1 <= d <= H]
        weights = [math.exp(-beta * (dist[s][w] + cost[w])) for w in ball]
        z = sum(weights)
        return [(w, x / z) for w, x in zip(ball, weights)]

    def step(t, s, w):
        """Probability of plan[t:] from state s, following waypoint w (None: plan anew)."""
        if t == len(plan):
            return 1.0
        acts = dict(edges[s])
        s2 = acts[plan[t]]
        if done[s]:
            return step(t + 1, s2, None) / len(acts)
        if w is None:
            return sum(p * step_toward(t, s, v, s2) for v, p in waypoints(s))
        return step_toward(t, s, w, s2)

    def step_toward(t, s, w, s2):
        acts = dict(edges[s])
        on = [a for a, t2 in acts.items() if dist[t2].get(w, math.inf) == dist[s][w] - 1]
        keep = dist[s2].get(w, math.inf) == dist[s][w] - 1 and s2 != w
        total = 0.0
        for a in on:                       # the plan followed
            if a == plan[t]:
                total += (1 - eps) / len(on) * step(t + 1, s2, w if keep else None)
        for a in acts:                     # a slip
            if a == plan[t]:
                total += eps / len(acts) * step(t + 1, s2, w if keep else None)
        return total

    return step(0, 0, None)


@pytest.mark.parametrize("model", [PartialPlans(1, 1.0, 0.0), PartialPlans(2, 0.7, 0.1), PartialPlans(3, 2.0, 0.05),
                                   PartialPlans(5, 0.3, 0.3)])
def test_partial_plans_equal_the_sum_over_every_history(model):
    edges = grid_graph()
    g = as_graph(edges)
    goals = np.zeros((3, 9), dtype=bool)
    goals[0, 8] = goals[1, 6] = goals[2, [2, 5]] = True
    costs = cost_to_go(distances(g, goals))
    # right, up (toward 8 or 2), left (a detour), up to the top row, right, right, then on from goal 8
    plan = [0, 2, 1, 2, 0, 0, 3]
    path = follow(g, plan)
    got = model.step_likelihoods(g, costs, path, goal_masks=goals)
    for k in range(len(goals)):
        want = brute_partial_plans(edges, costs[k], goals[k], plan, model)
        assert np.prod(got[:, k]) == pytest.approx(want, rel=1e-10)
        assert (got[:, k] > 0).all()


def test_partial_plans_one_step_ahead_are_a_lapsing_boltzmann_agent():
    edges = grid_graph(4, 2)
    g = as_graph(edges)
    goals = np.zeros((2, 8), dtype=bool)
    goals[0, 7] = goals[1, 4] = True
    costs = cost_to_go(distances(g, goals))
    path = follow(g, [0, 0, 1, 2, 0])
    got = PartialPlans(1, 1.3, 0.1).step_likelihoods(g, costs, path, goal_masks=goals)
    want = Lapse(1.3, 0.1).step_likelihoods(g, costs, path)
    assert got == pytest.approx(want, rel=1e-12)
    # the same with the goals read from where the costs are 0, and Reach made once and shared
    again = PartialPlans(1, 1.3, 0.1).step_likelihoods(g, costs, path, reach=Reach.of(g, path))
    assert np.array_equal(again, got)


def test_a_longer_horizon_makes_the_agent_persist():
    # on the bottom row of a 4 x 2 grid, heading right toward 3, the agent goes up, then back
    # down: an agent committed to a waypoint beyond the step up explains the step back down
    # less well (0.34) than one that plans afresh at every step (0.48)
    edges = grid_graph(4, 2)
    g = as_graph(edges)
    goals = np.zeros((1, 8), dtype=bool)
    goals[0, 3] = True
    costs = cost_to_go(distances(g, goals))
    path = follow(g, [0, 2, 3, 0, 0])
    short = PartialPlans(1, 2.0, 0.1).step_likelihoods(g, costs, path)
    long = PartialPlans(4, 2.0, 0.1).step_likelihoods(g, costs, path)
    assert long[2, 0] < short[2, 0]


def test_partial_plan_parameters_are_checked_by_name():
    with pytest.raises(ArgumentError, match="horizon"):
        PartialPlans(0, 1.0, 0.1)
    with pytest.raises(ArgumentError, match="epsilon"):
        PartialPlans(3, 1.0, 0.0)
    with pytest.raises(ArgumentError, match="beta"):
        PartialPlans(2, -1.0, 0.1)


def test_forward_distances_are_the_reverse_search_turned_around():
    edges = grid_graph(3, 2)
    g = as_graph(edges)
    forward = distances_from(g, range(6))
    for w in range(6):
        mask = np.zeros((1, 6), dtype=bool)
        mask[0, w] = True
        assert np.array_equal(forward[:, w], distances(g, mask)[0])
