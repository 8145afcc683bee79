"""Inference on a scenario small enough to work out by hand, the ε rule, the ablations."""

from __future__ import annotations

import math

import numpy as np
import pytest

from elot.errors import ScenarioError
from elot.domains.doors_keys_gems.inference import infer
from elot.settings import DEFAULT_BETA
from elot.domains.doors_keys_gems.scenario import Scenario
from test_hypotheses import corridor

BETA = DEFAULT_BETA


def scenario(actions, hidden=True) -> Scenario:
    true = corridor(hidden)
    return Scenario("corridor", true.layout, true, tuple(actions), (len(actions),), true_goal="gem2")


def logsoftmax(values, chosen):
    top = max(values)
    return BETA * values[chosen] - BETA * top - math.log(sum(math.exp(BETA * (v - top)) for v in values))


def test_hand_computed_posterior():
    """Corridor ``gem2 | red door | box1 | agent | . | red key | gem1``; the agent steps left.

    States: A = box1 empty, B = a red key in box1. Actions at (4,1): left, right, open box1.
    Costs to gem2 after each action, worked out by hand:
      A: left 11, right 9, open 10   (fetch the floor key, come back, unlock, 2 steps, pick up)
      B: left 6,  right 8, open 6    (open the box, take the key, unlock, 2 steps, pick up)
    and to gem1 (3 cells to the right): left 4, right 2, open 3 in both states.
    """
    inference = infer(scenario([("left",)]))
    space = inference.space
    assert (space.n_goals, space.n_states, space.n_beliefs) == (2, 2, 4)
    q_gem2 = {"A": [-12, -10, -11], "B": [-7, -9, -7]}  # Q = -1 - h, actions (left, right, open)
    q_gem1 = [-5, -3, -4]
    weights = [(1.0, 0.0), (2 / 3, 1 / 3), (1 / 3, 2 / 3), (0.0, 1.0)]  # particles 3:0 ... 0:3
    lik = {}
    for b, (wa, wb) in enumerate(weights):
        qbar = [wa * qa + wb * qb for qa, qb in zip(q_gem2["A"], q_gem2["B"])]
        lik[("gem2", b)] = math.exp(logsoftmax(qbar, 0))
        lik[("gem1", b)] = math.exp(logsoftmax(q_gem1, 0))
    total = 2 * sum(lik.values())  # both true states explain "left" equally
    post = inference.posterior(1).reshape(2, 2, 4)
    for g, gem in enumerate(space.goals):
        for s in range(2):
            for b in range(4):
                assert post[g, s, b] == pytest.approx(lik[(gem, b)] / total, abs=1e-12)
    p_gem2 = 2 * sum(lik[("gem2", b)] for b in range(4)) / total
    assert inference.goal_posterior(1)["gem2"] == pytest.approx(p_gem2, abs=1e-12)
    assert p_gem2 == pytest.approx(0.9846186607908182, abs=1e-12)  # stepping left says gem2
    # beliefs that put more particles on B (the box holds the key) explain "left" better
    gem2 = post[1].sum(axis=0)
    assert gem2[3] > gem2[2] > gem2[1] > gem2[0]


def test_epsilon_rule_falls_back_to_uniform():
    """All three particles on A, then the box turns out to hold the key: A is ruled out and
    the belief falls back to the ε states, i.e. certainty in B."""
    inference = infer(scenario([("left",), ("open", "box1")]))
    beliefs = inference.beliefs(2)
    assert beliefs[1, 0].tolist() == [0.0, 1.0]       # true state B, particles 3:0 on A
    assert beliefs[1, 1].tolist() == [0.0, 1.0]       # 2:1 -> B alone
    before = inference.beliefs(1)
    assert before[1, 0].tolist() == [1.0, 5e-324]      # ε kept, compared exactly
    # the observer rules out A once the box is seen to hold a key
    assert inference.state_posterior(2).tolist() == [0.0, 1.0]


def test_no_likelihood_after_goal_reached():
    true = corridor(hidden=False)
    actions = [("right",), ("right",), ("right",), ("pickup", "gem1"), ("left",)]
    inference = infer(Scenario("c", true.layout, true, tuple(actions), (5,)))
    np.testing.assert_array_equal(
        inference.log_weights[5][inference.goal_index == 0], inference.log_weights[4][inference.goal_index == 0]
    )
    assert inference.goal_posterior(5)["gem1"] > 0.99


@pytest.mark.parametrize("model", ["full", "true-belief", "non-planning"])
def test_models_run_and_normalize(model):
    inference = infer(scenario([("left",), ("open", "box1")]), model=model)
    for t in range(3):
        assert inference.posterior(t).sum() == pytest.approx(1.0)
        assert sum(inference.goal_posterior(t).values()) == pytest.approx(1.0)
    if model == "true-belief":
        assert inference.space.n_beliefs == 1
        assert inference.beliefs(0)[:, 0].tolist() == [[1.0, 5e-324], [5e-324, 1.0]]


def test_true_belief_is_the_full_model_certain_of_the_true_state():
    """Every true-belief hypothesis (g, s) gets exactly the weights of the full model's
    hypothesis (g, s, all k particles on s): the ablation only drops the other beliefs."""
    actions = [("left",), ("open", "box1"), ("right",)]
    full = infer(scenario(actions), model="full")
    true_belief = infer(scenario(actions), model="true-belief")
    space = full.space
    certain = [int(np.flatnonzero(space.initial_beliefs[s, :, s] == 1.0)[0]) for s in range(space.n_states)]
    for t in range(len(actions) + 1):
        logw = full.log_weights[t].reshape(space.n_goals, space.n_states, space.n_beliefs)
        expected = np.array([[logw[g, s, certain[s]] for s in range(space.n_states)]
                             for g in range(space.n_goals)])
        np.testing.assert_array_equal(true_belief.log_weights[t].reshape(expected.shape), expected)
        np.testing.assert_array_equal(
            true_belief.beliefs(t)[:, 0], [full.beliefs(t)[s, certain[s]] for s in range(space.n_states)])


def test_non_planning_ignores_walls_and_keys():
    inference = infer(scenario([("left",)]), model="non-planning")
    # Manhattan only: stepping left brings gem2 closer by one, so it is preferred equally in A and B
    post = inference.posterior(1).reshape(2, 2, 4)
    assert np.allclose(post[1], post[1][0, 0])


def test_live_states_share_available_actions(labtom):
    """The QMDP assumption: every state a live hypothesis keeps looks like the real one, so
    the same actions are available in it."""
    from elot.domains.doors_keys_gems.dataset import load_dataset_plan

    scenario_ = load_dataset_plan(labtom, "3_1")
    inference = infer(scenario_)
    for t in range(inference.steps):
        live = [j for j, w in enumerate(inference.worlds(t)) if w.view() == inference.real[t].view()]
        assert live
        for j in live:
            assert inference.worlds(t)[j].available_actions() == inference.real[t].available_actions()


def test_impossible_plan_is_a_scenario_error():
    with pytest.raises(ScenarioError, match="impossible"):
        infer(scenario([("up",)]))


def test_backends_agree_on_the_corridor():
    a = infer(scenario([("left",), ("open", "box1"), ("pickup", "key2")]), backend="core")
    b = infer(scenario([("left",), ("open", "box1"), ("pickup", "key2")]), backend="reference")
    np.testing.assert_allclose(a.log_weights, b.log_weights, atol=1e-12, rtol=0)
