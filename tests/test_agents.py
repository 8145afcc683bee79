"""The agent models' likelihoods against brute force on a tiny graph, and their properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from elot.engine.agents import (Boltzmann, GoalNoise, Lapse, StateGraph, cost_to_go, distances, follow,
                                goal_posterior, relaxed_costs)
from elot.engine.agents.graph import horizon_costs
from elot.engine.agents.models import blend
from elot.errors import ArgumentError

# A corridor 0-1-2-3 with a one-way drop from 1 to a pit 4 (a mistake that loses goal "end"):
# actions 0 = left, 1 = right, 2 = drop; the pit has one action, "stay" (3).
EDGES = {0: [(1, 1)], 1: [(0, 0), (1, 2), (2, 4)], 2: [(0, 1), (1, 3)], 3: [(0, 2)], 4: [(3, 4)]}


def graph() -> StateGraph:
    indptr, actions, succ = [0], [], []
    for s in range(5):
        for a, t in EDGES[s]:
            actions.append(a)
            succ.append(t)
        indptr.append(len(actions))
    return StateGraph(np.array(indptr), np.array(actions), np.array(succ))


GOALS = np.array([[0, 0, 0, 1, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 1]], dtype=bool)   # end, start, pit


def test_distances_are_the_shortest_paths():
    d = distances(graph(), GOALS)
    assert d[0].tolist() == [3, 2, 1, 0, math.inf]
    assert d[1].tolist() == [0, 1, 2, 3, math.inf]
    assert d[2].tolist() == [2, 1, 2, 3, 0]


def test_cost_to_go_is_finite_everywhere():
    d = distances(graph(), GOALS)
    capped = cost_to_go(d)
    assert np.isfinite(capped).all() and capped[0, 4] == 4.0   # one more than the largest finite cost
    relaxed = np.full_like(d, 1.0)
    assert cost_to_go(d, relaxed, 0.5)[0, 4] == 1.5


def brute_policy(costs, state, beta, eps):
    """The lapse-Boltzmann policy at ``state`` written out, per goal."""
    out = []
    for c in costs:
        weights = [math.exp(-beta * (1 + c[t])) for _, t in EDGES[state]]
        z = sum(weights)
        k = len(EDGES[state])
        out.append({a: (1 - eps) * w / z + eps / k for (a, _), w in zip(EDGES[state], weights)})
    return out


PLAN = [1, 2, 3, 3]   # right, drop into the pit, stay, stay


@pytest.mark.parametrize("model", [Boltzmann(1.5), Lapse(2.0, 0.1), Lapse(0.5, 1.0)])
def test_lapse_and_boltzmann_match_the_formula(model):
    g = graph()
    costs = cost_to_go(distances(g, GOALS))
    path = follow(g, PLAN)
    got = model.step_likelihoods(g, costs, path)
    for t, a in enumerate(PLAN):
        want = brute_policy(costs, int(path.states[t]), model.beta, model.epsilon)
        assert got[t] == pytest.approx([w[a] for w in want], rel=1e-12)


def test_goal_noise_equals_a_sum_over_every_sequence_of_current_goals():
    g = graph()
    costs = cost_to_go(distances(g, GOALS))
    path = follow(g, PLAN)
    model = GoalNoise(1.2, 0.05, 0.3)
    steps = model.step_likelihoods(g, costs, path)
    n, T = len(GOALS), len(PLAN)
    for true in range(n):
        # the current goal before each action: the true goal's own row (index 0), or a
        # confusion (the candidates 0..n-1, drawn uniformly), each redrawn with probability gamma
        members = [("self", true)] + [("conf", k) for k in range(n)]

        def prior(i):
            return (1 - model.gamma) * (i == 0) + model.gamma * (i > 0) / n

        def move(i, j):
            return (1 - model.gamma) * (i == j) + model.gamma * (j > 0) / n

        total = 0.0
        for seq in itertools.product(range(len(members)), repeat=T):
            p = prior(seq[0])
            for t in range(T):
                if t:
                    p *= move(seq[t - 1], seq[t])
                goal = members[seq[t]][1]
                p *= brute_policy(costs[[goal]], int(path.states[t]), model.beta, model.epsilon)[0][PLAN[t]]
            total += p
        assert np.prod(steps[:, true]) == pytest.approx(total, rel=1e-10)


def test_a_mistake_keeps_a_likelihood_under_every_goal():
    g = graph()
    costs = cost_to_go(distances(g, GOALS))
    path = follow(g, PLAN)
    for model in (Boltzmann(8.0), Lapse(8.0, 0.05), GoalNoise(8.0, 0.0, 0.1)):
        assert (model.step_likelihoods(g, costs, path) > 0).all()


def test_the_posterior_is_bayes_rule():
    lik = np.array([[0.5, 0.1], [0.2, 0.4]])
    post = goal_posterior(lik, np.array([0.25, 0.75]))
    assert post[0] == pytest.approx([0.25, 0.75])
    joint = np.array([0.25 * 0.5 * 0.2, 0.75 * 0.1 * 0.4])
    assert post[2] == pytest.approx(joint / joint.sum())


def test_relaxed_costs_by_hand():
    # facts a, b, c; actions: a -> b (cost 1), {a, b} -> c (cost 1)
    facts = np.array([[1, 0, 0], [0, 1, 0]], dtype=bool)
    pre_ptr, pre = np.array([0, 1, 3]), np.array([0, 0, 1])
    add_ptr, add = np.array([0, 1, 2]), np.array([1, 2])
    h_add = relaxed_costs(facts, pre_ptr, pre, add_ptr, add, "add")
    h_max = relaxed_costs(facts, pre_ptr, pre, add_ptr, add, "max")
    assert h_add[0].tolist() == [0, 1, 2] and h_max[0].tolist() == [0, 1, 2]
    assert np.isinf(h_add[1, 0]) and np.isinf(h_add[1, 2]) and h_add[1, 1] == 0


def test_horizon_costs_reach_the_exact_distance_and_stay_finite_where_lost():
    g = graph()
    leaf = np.zeros((len(GOALS), 5))
    far = horizon_costs(g, GOALS, leaf, 10)
    exact = distances(g, GOALS)
    reachable = np.isfinite(exact)
    assert np.array_equal(far[reachable], exact[reachable]) and np.isfinite(far).all()
    assert np.array_equal(horizon_costs(g, GOALS, leaf, 0), np.where(GOALS, 0.0, leaf))


def test_parameters_are_checked_by_name():
    with pytest.raises(ArgumentError, match="epsilon"):
        Lapse(1.0, 1.5)
    with pytest.raises(ArgumentError, match="gamma"):
        GoalNoise(1.0, 0.0, -0.1)
    with pytest.raises(ArgumentError, match="weight"):
        blend(np.zeros(2), np.zeros(2), 2.0)
    with pytest.raises(ArgumentError, match="step 2"):
        follow(graph(), [1, 3])
