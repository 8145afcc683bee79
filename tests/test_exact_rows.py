"""Exact inference on world rows (issue 27 item 3) against the path it replaced.

:class:`~elot.domains.doors_keys_gems.inference.ExactFilter` steps the hypothesized worlds as rows in the core
(``Rules.apply``), compares their views there (``view_labels``) and scores each (goal,
belief row) once (``qmdp_update``). Here each kernel is held to its NumPy reference and to
the world states' own rules, and whole runs to the textbook filter below, which steps
:class:`~elot.domains.doors_keys_gems.world.WorldState` objects, compares their ``view()`` and scores every
hypothesis by itself (``qmdp_loglik``, ``update_weights``): the log weights must be the
same doubles, bit for bit.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from btom_ext import core
from btom_ext import reference as ref
from elot.domains.doors_keys_gems.dataset import load_dataset_plan
from elot.domains.doors_keys_gems.engine import AgentPlanner, as_in, same_action, step_or_stay, step_worlds
from elot.engine.worlds.protocol import LazyWorlds, as_worlds
from elot.domains.doors_keys_gems.hypotheses import build
from elot.domains.doors_keys_gems.encoding import Encoding
from elot.engine.worlds.spaces import belief_weights, particle_counts
from elot.domains.doors_keys_gems.inference import infer
from elot.domains.doors_keys_gems.load import load_scenario
from elot.domains.doors_keys_gems.world import ARITY
from test_core_vs_reference import TOL, maps_and_worlds


def textbook_filter(scenario, *, model="full", beta=2.0, conventions="elot"):
    """Log weights ``(T+1, N)``, beliefs, ``alive`` tables and worlds of exact inference
    computed one world and one hypothesis at a time."""
    space = build(scenario.initial, model=model, conventions=conventions)
    planner = AgentPlanner(scenario.layout, model, core)
    enc = planner.encoding
    goal_gems = np.array([enc.gem_index(g) for g in space.goals], dtype=np.intp)
    g, s, b = space.index
    local = as_in if conventions == "paper" else same_action
    real, worlds = scenario.initial, tuple(space.states)
    views = [w.view() for w in worlds]
    alive = np.array([[u == v for v in views] for u in views], dtype=np.uint8)
    live = np.array([v == real.view() for v in views], dtype=np.uint8)
    logw = np.where(live[s], 0.0, -np.inf)
    out_w, out_beliefs, out_alive = [logw], [core.filter_beliefs(space.initial_beliefs, alive)], [alive]
    out_worlds = [worlds]
    for action in map(tuple, scenario.actions):
        options = real.available_actions()
        rename = None if local is same_action else (lambda world, option, before=real: local(world, option, before))
        costs = planner.action_costs(worlds, enc.encode_many(worlds), np.flatnonzero(live), options, goal_gems,
                                     rename)
        beliefs = core.filter_beliefs(space.initial_beliefs, alive)
        goal_on = np.array([gem not in real.held_gems for gem in space.goals], dtype=np.uint8)
        worlds = as_worlds(step_worlds(worlds, action, rename)[0])
        real = real.step(action)
        views = [w.view() for w in worlds]
        alive = alive & np.array([[u == v for v in views] for u in views], dtype=np.uint8)
        live = live & np.array([v == real.view() for v in views], dtype=np.uint8)
        active = (live[s] & goal_on[g] & np.isfinite(logw)).astype(np.uint8)
        loglik = core.qmdp_loglik(beliefs, costs, options.index(action), beta, g, s, b, active)
        logw = core.update_weights(logw, loglik, live[s])
        out_w.append(logw)
        out_beliefs.append(core.filter_beliefs(space.initial_beliefs, alive))
        out_alive.append(alive)
        out_worlds.append(worlds)
    return np.array(out_w), out_beliefs, np.array(out_alive), out_worlds


def assert_same_run(scenario, **settings):
    fast = infer(scenario, **settings)
    logw, beliefs, alive, worlds = textbook_filter(scenario, model=settings.get("model", "full"),
                                                   beta=settings.get("beta", 2.0),
                                                   conventions=settings.get("conventions", "elot"))
    np.testing.assert_array_equal(fast.log_weights, logw)     # bit for bit
    np.testing.assert_array_equal(fast.alive, alive)
    for t in range(fast.steps, -1, -1):   # the last first: reading it makes the earlier ones
        if fast.space.judged_beliefs is None:
            np.testing.assert_array_equal(fast.beliefs(t), beliefs[t])
        assert fast.worlds(t) == worlds[t]


@pytest.mark.dataset
@pytest.mark.parametrize("plan", ["1_1", "2_1", "3_3", "4_2", "5_2", "6_1", "7_3"])
def test_dataset_plans_equal_the_textbook_filter(labtom, plan):
    assert_same_run(load_dataset_plan(labtom, plan), beta=2.0)


@pytest.mark.dataset
@pytest.mark.parametrize("settings", [dict(conventions="paper"), dict(model="true-belief"),
                                      dict(model="non-planning"), dict(model="true-belief-paper",
                                                                       conventions="paper")])
def test_models_and_conventions_equal_the_textbook_filter(labtom, settings):
    for plan in ("3_3", "6_2"):
        assert_same_run(load_dataset_plan(labtom, plan), beta=2.0, **settings)


@pytest.mark.parametrize("name", ["two-doors"])
def test_examples_equal_the_textbook_filter(name):
    assert_same_run(load_scenario(name), beta=1.5)
    assert_same_run(load_scenario(name), beta=1.5, conventions="paper")


@pytest.mark.parametrize("conventions", ["elot", "paper"])
def test_worlds_are_made_when_read(conventions):
    """A step's worlds are made the first time they are read (scoring reads few steps), and
    a result travels to another process unmade (batch workers pickle results). Under the
    paper's conventions, naming a key in each world reads the worlds of that step."""
    result = infer(load_scenario("two-doors"), conventions=conventions)
    unmade = [w for w in result.worlds_by_step[1:] if isinstance(w, LazyWorlds) and w._worlds is None]
    assert len(unmade) == result.steps if conventions == "elot" else 0 < len(unmade) < result.steps
    copy = pickle.loads(pickle.dumps(result))
    for t in range(result.steps + 1):
        assert copy.worlds(t) == result.worlds(t)


# -- the kernels ---------------------------------------------------------------------------


@st.composite
def worlds_and_actions(draw):
    layout, worlds = draw(maps_and_worlds())
    walls, width, doors, door_colours, boxes, gems = layout
    n_keys = (worlds.shape[1] - ref.KEYS) // 3
    code = st.sampled_from([ref.UP, ref.DOWN, ref.LEFT, ref.RIGHT, ref.PICKUP_KEY, ref.PICKUP_GEM, ref.OPEN,
                            ref.UNLOCK, ref.NO_ACTION])
    n_a = draw(st.integers(1, 4))
    states = np.array(draw(st.lists(st.integers(0, len(worlds) - 1), min_size=0, max_size=4)), dtype=np.intp)
    actions = []
    for _ in range(max(len(states), 1) * n_a):
        c = draw(code)
        a = {ref.PICKUP_KEY: n_keys, ref.UNLOCK: n_keys, ref.PICKUP_GEM: len(gems), ref.OPEN: len(boxes)}.get(c, 1)
        actions.append([c, draw(st.integers(0, max(a - 1, 0))) if a else 0,
                        draw(st.integers(0, max(len(doors) - 1, 0)))])
    shared = draw(st.booleans()) or not len(states)
    codes = np.array(actions, dtype=np.int32).reshape(-1, n_a, 3)[: 1 if shared else len(states)]
    return layout, worlds, states, codes


@given(worlds_and_actions())
def test_rules_apply_agrees_with_its_reference(case):
    layout, worlds, states, codes = case
    fast = core.Rules(*layout).apply(worlds, states, codes)
    np.testing.assert_array_equal(fast, ref.Rules(*layout).apply(worlds, states, codes))
    assert fast.shape == (len(states) * codes.shape[1], worlds.shape[1])


@given(maps_and_worlds())
def test_view_labels_agree_with_their_reference(case):
    _, worlds = case
    twice = np.concatenate([worlds, worlds[::-1]])
    labels = core.view_labels(twice)
    np.testing.assert_array_equal(labels, ref.view_labels(twice))
    assert labels[0] == 0 and (labels[len(worlds):] == labels[:len(worlds)][::-1]).all()


@pytest.mark.dataset
def test_rows_follow_the_worlds_rules_and_views(labtom):
    """Every action of every kind (possible or not) in every world along dataset plans: the
    row after it is the encoded world after it (:func:`step_or_stay`), and rows get equal
    labels exactly when the worlds' views are equal."""
    for plan in ("2_1", "3_3", "6_1"):
        scenario = load_dataset_plan(labtom, plan)
        layout, enc = scenario.layout, Encoding(scenario.layout)
        rules = enc.rules(core)
        actions = sorted({(m,) for m, n in ARITY.items() if n == 0}
                         | {("pickup", item) for item in (*layout.keys, *(g for g, _ in layout.gems), "nothing")}
                         | {("open", b) for b, _ in layout.boxes}
                         | {("unlock", k, d) for k in layout.keys for d, _, _ in layout.doors})
        codes = enc.action_codes(actions)[None]
        worlds = tuple(build(scenario.initial).states)
        for action in scenario.actions:
            worlds = tuple(step_or_stay(w, tuple(action)) for w in worlds)
            rows = enc.encode_many(worlds)
            after = rules.apply(rows, np.arange(len(worlds)), codes)
            for i, world in enumerate(worlds):
                want = enc.encode_many([step_or_stay(world, a) for a in actions])
                np.testing.assert_array_equal(after[i * len(actions):(i + 1) * len(actions)], want)
            labels = core.view_labels(rows)
            views = [w.view() for w in worlds]
            assert (labels[:, None] == labels[None, :]).tolist() == [[u == v for v in views] for u in views]


@given(st.integers(1, 6), st.integers(1, 3), st.integers(1, 3), st.integers(1, 5), st.data())
def test_qmdp_update_is_the_table_and_the_update(n_s, k, n_g, n_a, data):
    """One call, the same doubles as qmdp_table + update_weights_table (and the reference
    within TOL), whether the true states share their belief rows or not."""
    weights = belief_weights(particle_counts(n_s, k), k)
    n_b = len(weights)
    live = np.array(data.draw(st.lists(st.booleans(), min_size=n_s, max_size=n_s)), dtype=np.uint8)
    live[data.draw(st.integers(0, n_s - 1))] = 1
    alive = (live[:, None] & live[None, :]) | np.eye(n_s, dtype=np.uint8)
    states = np.flatnonzero(live)
    gems = data.draw(st.integers(n_g, n_g + 2))
    goal_gems = np.array(data.draw(st.permutations(range(gems)))[:n_g], dtype=np.intp)
    path_costs = np.array(data.draw(st.lists(st.integers(-1, 150), min_size=len(states) * n_a * gems,
                                             max_size=len(states) * n_a * gems)),
                          dtype=np.int32).reshape(len(states) * n_a, gems)
    costs = np.full((n_g, n_s, n_a), -1, dtype=np.int32)
    costs[:, states, :] = path_costs.reshape(len(states), n_a, gems)[:, :, goal_gems].transpose(2, 0, 1)
    goal_on = np.array(data.draw(st.lists(st.booleans(), min_size=n_g, max_size=n_g)), dtype=np.uint8)
    logw = np.where(np.arange(n_g * n_s * n_b) % 5 == 2, -np.inf, -np.arange(n_g * n_s * n_b) / 7.0)
    action, beta = data.draw(st.integers(0, n_a - 1)), data.draw(st.floats(0.1, 5.0))
    new_live = live & np.array(data.draw(st.lists(st.booleans(), min_size=n_s, max_size=n_s)), dtype=np.uint8)
    for shared in (True, False):
        initial = np.broadcast_to(weights, (n_s, *weights.shape))
        beliefs = core.filter_beliefs(initial if shared else np.ascontiguousarray(initial), alive)
        rows, stride = (beliefs[states[0]], 0) if shared else (beliefs.reshape(-1, n_s), n_b)
        two_calls = core.update_weights_table(logw, core.qmdp_table(rows, costs, action, beta, goal_on), n_s, stride,
                                              new_live, goal_on)
        out = np.empty_like(logw)
        one_call = core.qmdp_update(logw, rows, path_costs, states, goal_gems, action, beta, goal_on, n_s, stride,
                                    new_live, out=out)
        assert one_call is out
        np.testing.assert_array_equal(one_call, two_calls)
        slow = ref.qmdp_update(logw, rows, path_costs, states, goal_gems, action, beta, goal_on, n_s, stride, new_live)
        np.testing.assert_array_equal(np.isfinite(slow), np.isfinite(one_call))
        np.testing.assert_allclose(slow[np.isfinite(slow)], one_call[np.isfinite(slow)], rtol=0, atol=TOL)


def test_kernels_refuse_shapes_that_disagree():
    walls = np.zeros(4, dtype=np.uint8)
    none = np.zeros(0, dtype=np.int32)
    rules = core.Rules(walls, 2, none, none, none, np.array([3], dtype=np.int32))
    with pytest.raises(ValueError, match="4 \\+ 3\\*K columns"):
        rules.apply(np.zeros((1, 5), dtype=np.int32), np.array([0]), np.zeros((1, 1, 3), dtype=np.int32))
    with pytest.raises(ValueError, match="out of range"):
        rules.apply(np.zeros((1, 4), dtype=np.int32), np.array([1]), np.zeros((1, 1, 3), dtype=np.int32))
    with pytest.raises(ValueError, match="actions must be"):
        rules.apply(np.zeros((2, 4), dtype=np.int32), np.array([0, 1]), np.zeros((3, 1, 3), dtype=np.int32))
    with pytest.raises(ValueError, match="out of range"):
        core.qmdp_update(np.zeros(2), np.ones((1, 1)), np.zeros((1, 1), dtype=np.int32), np.array([0]),
                         np.array([0]), 3, 1.0, np.ones(1, dtype=np.uint8), 1, 0, np.ones(1, dtype=np.uint8))


def test_both_backends_name_the_actions_alike():
    names = ["UP", "DOWN", "LEFT", "RIGHT", "PICKUP_KEY", "PICKUP_GEM", "OPEN", "UNLOCK", "NO_ACTION"]
    assert [getattr(core, n) for n in names] == [getattr(ref, n) for n in names]
    assert len({getattr(ref, n) for n in names}) == len(names)
