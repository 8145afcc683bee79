"""The compiled core against its plain reference: same results on generated maps, worlds
and beliefs, and on every step of every dataset plan."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from btom_ext import backend, core
from btom_ext import reference as ref
from elot.errors import ExtensionMissingError
from elot.domains.doors_keys_gems.inference import infer
from elot.domains.doors_keys_gems.dataset import load_dataset_plan

TOL = 1e-12


@st.composite
def maps_and_worlds(draw):
    """A small random grid with doors, boxes, gems, and worlds with keys anywhere."""
    width, height = draw(st.integers(2, 5)), draw(st.integers(2, 5))
    n = width * height
    walls = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=np.uint8)
    free = [c for c in range(n) if not walls[c]]
    if len(free) < 3:
        walls[:] = 0
        free = list(range(n))
    cells = draw(st.permutations(free))
    n_doors = draw(st.integers(0, min(2, len(cells) - 2)))
    n_boxes = draw(st.integers(0, min(2, len(cells) - 2 - n_doors)))
    doors = np.array(cells[:n_doors], dtype=np.int32)
    boxes = np.array(cells[n_doors : n_doors + n_boxes], dtype=np.int32)
    rest = cells[n_doors + n_boxes :]
    gems = np.array(rest[: draw(st.integers(1, min(2, len(rest) - 1)))], dtype=np.int32)
    door_colours = np.array(draw(st.lists(st.integers(0, 1), min_size=n_doors, max_size=n_doors)), dtype=np.int32)
    n_keys = draw(st.integers(0, 3))
    standable = [c for c in free if c not in set(doors.tolist())]
    rows = []
    for _ in range(draw(st.integers(1, 4))):
        status, where, colour = [], [], []
        for _ in range(n_keys):
            s = draw(st.sampled_from([0, 1, 2, 3] if n_boxes else [0, 2, 3]))
            status.append(s)
            where.append(draw(st.sampled_from(free)) if s == 0 else draw(st.integers(0, n_boxes - 1)) if s == 1 else -1)
            colour.append(draw(st.integers(0, 1)))
        rows.append([draw(st.sampled_from(standable)), draw(st.integers(0, (1 << n_doors) - 1)),
                     draw(st.integers(0, (1 << n_boxes) - 1)), draw(st.integers(0, (1 << len(gems)) - 1)),
                     *status, *where, *colour])
    layout = (walls, width, doors, door_colours, boxes, gems)
    return layout, np.array(rows, dtype=np.int32)


@given(maps_and_worlds())
def test_planner_equals_bfs(case):
    layout, worlds = case
    fast = core.Planner(*layout).costs(worlds)
    bfs = ref.Planner(*layout).costs(worlds)
    np.testing.assert_array_equal(fast, bfs)
    # and again from a warm memo
    np.testing.assert_array_equal(core.Planner(*layout).costs(np.concatenate([worlds, worlds])),
                                  np.concatenate([bfs, bfs]))


@given(maps_and_worlds())
def test_manhattan_costs_agree(case):
    (walls, width, _, _, _, gems), worlds = case
    np.testing.assert_array_equal(core.manhattan_costs(width, gems, worlds), ref.manhattan_costs(width, gems, worlds))


@st.composite
def belief_problems(draw):
    n_s, k = draw(st.integers(1, 5)), draw(st.integers(1, 4))
    from elot.engine.worlds.spaces import belief_weights, particle_counts

    counts = particle_counts(n_s, k)
    weights = belief_weights(counts, k)
    initial = np.ascontiguousarray(np.broadcast_to(weights, (n_s, *weights.shape)))
    alive = np.array(draw(st.lists(st.lists(st.booleans(), min_size=n_s, max_size=n_s), min_size=n_s, max_size=n_s)),
                     dtype=np.uint8)
    np.fill_diagonal(alive, 1)  # a true state always agrees with itself
    n_g, n_a = draw(st.integers(1, 3)), draw(st.integers(1, 5))
    costs = np.array(draw(st.lists(st.integers(-1, 120), min_size=n_g * n_s * n_a, max_size=n_g * n_s * n_a)),
                     dtype=np.int32).reshape(n_g, n_s, n_a)
    g, s, b = (a.ravel().astype(np.int32) for a in np.meshgrid(
        np.arange(n_g), np.arange(n_s), np.arange(len(counts)), indexing="ij"))
    active = np.array(draw(st.lists(st.booleans(), min_size=len(g), max_size=len(g))), dtype=np.uint8)
    beta = draw(st.floats(0.1, 5.0))
    return initial, alive, costs, g, s, b, active, beta, draw(st.integers(0, n_a - 1))


@given(belief_problems())
def test_filter_qmdp_update_agree(problem):
    initial, alive, costs, g, s, b, active, beta, action = problem
    beliefs = core.filter_beliefs(initial, alive)
    np.testing.assert_array_equal(beliefs, ref.filter_beliefs(initial, alive))
    np.testing.assert_allclose(beliefs.sum(axis=2), 1.0, rtol=0, atol=1e-12)
    fast = core.qmdp_loglik(beliefs, costs, action, beta, g, s, b, active)
    slow = ref.qmdp_loglik(beliefs, costs, action, beta, g, s, b, active)
    np.testing.assert_allclose(fast, slow, rtol=0, atol=TOL)
    assert (fast[active == 0] == 0).all()
    consistent = (active + 1) % 2
    np.testing.assert_array_equal(core.update_weights(fast, slow, consistent),
                                  ref.update_weights(fast, slow, consistent))


@given(belief_problems())
def test_likelihood_table_is_the_per_hypothesis_likelihood(problem):
    """qmdp_table + update_weights_table (once per (goal, belief row), equal rows once) give
    exactly the doubles of qmdp_loglik + update_weights (once per hypothesis), on both
    backends, whether the true states share one belief table (read through stride 0) or not."""
    initial, alive, costs, g, s, b, active, beta, action = problem
    n_g, n_s, n_b = costs.shape[0], initial.shape[0], initial.shape[1]
    live = alive[0].copy()   # the live states: those that agree with state 0
    alive = (live[:, None] & live[None, :]) | np.eye(n_s, dtype=np.uint8)
    goal_on = np.array([1] + [i % 2 for i in range(1, n_g)], dtype=np.uint8)
    logw = np.where(np.arange(len(g)) % 7 == 3, -np.inf, -np.arange(len(g)) / 10.0)
    for shared in (True, False):
        w0 = np.broadcast_to(initial[0], initial.shape) if shared else initial
        beliefs = core.filter_beliefs(w0, alive)
        np.testing.assert_array_equal(beliefs, ref.filter_beliefs(w0, alive))
        active = (live[s] & goal_on[g] & np.isfinite(logw)).astype(np.uint8)
        per_hypothesis = core.update_weights(logw, core.qmdp_loglik(beliefs, costs, action, beta, g, s, b, active),
                                             live[s])
        rows, stride = (beliefs[0], 0) if shared else (beliefs.reshape(-1, n_s), n_b)
        table = core.qmdp_table(rows, costs, action, beta, goal_on)
        np.testing.assert_allclose(table, ref.qmdp_table(rows, costs, action, beta, goal_on), rtol=0, atol=TOL)
        out = np.empty_like(logw)
        fast = core.update_weights_table(logw, table, n_s, stride, live, goal_on, out=out)
        assert fast is out
        np.testing.assert_array_equal(fast, per_hypothesis)   # bit for bit
        np.testing.assert_array_equal(fast, ref.update_weights_table(logw, table, n_s, stride, live, goal_on))


def test_likelihood_table_scores_equal_rows_once():
    beliefs = np.array([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [1.0, 0.0, 0.0]])
    costs = np.array([[[3, 1], [2, 7], [-1, -1]]], dtype=np.int32)
    table = core.qmdp_table(beliefs, costs, 1, 2.0, np.ones(1, dtype=np.uint8))
    assert table[0, 0] == table[0, 2] and table[0, 1] == table[0, 3] and table[0, 0] != table[0, 1]
    np.testing.assert_allclose(table, ref.qmdp_table(beliefs, costs, 1, 2.0, [1]), rtol=0, atol=TOL)
    with pytest.raises(ValueError):
        core.update_weights_table(np.zeros(8), table, 3, 0, np.ones(3, dtype=np.uint8), np.ones(1, dtype=np.uint8))


def test_backend_names():
    assert backend("core") is core and backend("reference") is ref
    with pytest.raises(ValueError):
        backend("fortran")


def test_missing_extension_is_explained(monkeypatch):
    import sys

    from btom_ext import CoreMissingError
    from elot.domains.doors_keys_gems.engine import load_backend

    monkeypatch.setitem(sys.modules, "btom_ext.core", None)  # makes the import fail
    with pytest.raises(CoreMissingError):  # the engine's own error, an ImportError
        backend("core")
    with pytest.raises(ExtensionMissingError) as info:  # elot's, with the hint
        load_backend("core")
    assert "pip install" in info.value.render()


PLANS = ["1_1", "1_2", "1_3", "2_1", "2_2", "2_3", "3_1", "3_2", "3_3", "4_1", "4_2", "4_3",
         "5_1", "5_2", "6_1", "6_2", "6_3", "7_1", "7_2", "7_3"]


@pytest.mark.dataset
@pytest.mark.slow
@pytest.mark.parametrize("plan", PLANS)
def test_dataset_plans_agree(labtom, plan):
    scenario = load_dataset_plan(labtom, plan)
    fast = infer(scenario, backend="core")
    slow = infer(scenario, backend="reference")
    assert np.array_equal(np.isfinite(fast.log_weights), np.isfinite(slow.log_weights))
    finite = np.isfinite(slow.log_weights)
    np.testing.assert_allclose(fast.log_weights[finite], slow.log_weights[finite], rtol=0, atol=TOL)
    for t in range(fast.steps + 1):
        np.testing.assert_array_equal(fast.beliefs(t), slow.beliefs(t))


def _wide_case(n_keys: int, n_doors: int, n_gems: int, width: int, height: int):
    """A map past the compiled core's old limits (8 keys, 8 doors, 16 gems, 1024 cells): a
    long corridor along the top row of a large walled grid, doors across it, gems along a
    second row, keys on the floor, in boxes and off the map. Worlds keep few keys in play
    so the reference's full state-space BFS stays small."""
    walls = np.ones(width * height, dtype=np.uint8)
    walls[:width] = 0                      # the corridor, row 0
    walls[width : width + n_gems] = 0      # gem alcoves under its start, row 1
    doors = np.arange(n_gems + 2, n_gems + 2 + 3 * n_doors, 3, dtype=np.int32)
    door_colours = np.arange(n_doors, dtype=np.int32) % 3
    gems = np.concatenate([width + np.arange(n_gems - 1), [width - 1]]).astype(np.int32)
    boxes = np.array([1, n_gems + 3], dtype=np.int32)
    rows = []
    for variant in range(3):
        status = [3] * n_keys
        where = [-1] * n_keys
        colour = [k % 3 for k in range(n_keys)]
        # two floor keys per colour near the start, one key hidden in each box, the rest
        # gone; the variants move which key objects are in play (high indices included)
        in_play = [(variant * 7 + 5 * j) % n_keys for j in range(6)]
        for j, k in enumerate(in_play[:4]):
            status[k], where[k], colour[k] = 0, 2 + j % 2 * (n_gems - 2), j % 2
        for j, k in enumerate(in_play[4:]):
            status[k], where[k], colour[k] = 1, j, 2 - j
        # the last three doors are locked (the others open: door bits past the old 8),
        # and one high-index gem is already held
        locked = sum(1 << d for d in range(n_doors - 3, n_doors))
        rows.append([0, locked, 0b11, 1 << (n_gems - 2) if variant else 0, *status, *where, *colour])
    layout = (walls, width, doors, door_colours, boxes, gems)
    return layout, np.array(rows, dtype=np.int32)


@pytest.mark.slow
@pytest.mark.parametrize("n_keys, n_doors, n_gems, width, height", [
    (9, 3, 4, 40, 30),      # 9 keys, 1200 cells
    (40, 9, 17, 50, 24),    # two status words, 9 doors, 17 gems, 1200 cells
])
def test_planner_past_old_limits(n_keys, n_doors, n_gems, width, height):
    layout, worlds = _wide_case(n_keys, n_doors, n_gems, width, height)
    fast = core.Planner(*layout).costs(worlds)
    np.testing.assert_array_equal(fast, ref.Planner(*layout).costs(worlds))
    assert (fast[:, 0] > 0).all() and (fast >= -1).all()


def test_planner_layout_limits():
    walls = np.zeros(64, dtype=np.uint8)
    with pytest.raises(ValueError, match="at most 31 doors"):
        core.Planner(walls, 8, np.arange(32, dtype=np.int32), np.zeros(32, dtype=np.int32),
                     np.zeros(0, dtype=np.int32), np.array([0], dtype=np.int32))


@pytest.mark.slow
def test_a_map_with_nine_hidden_keys_runs_on_both_backends():
    """The compiled core used to refuse it ("9 keys (at most 8)")."""
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    scenario = parse_scn_text("colours: red\nmap:\n  gWWWWWWWWW\n  RWWWWWWWWW\n  ..........\n"
                              "  FFFFFFFFFh\nactions:\n  up, left x2, down, open box7\n")
    assert len(scenario.layout.keys) == 9
    fast = infer(scenario, k=1, backend="core")
    slow = infer(scenario, k=1, backend="reference")
    assert np.array_equal(np.isfinite(fast.log_weights), np.isfinite(slow.log_weights))
    finite = np.isfinite(slow.log_weights)
    np.testing.assert_allclose(fast.log_weights[finite], slow.log_weights[finite], rtol=0, atol=TOL)
