"""The compiled planning kernels (btom_ext.planners) against their NumPy twins
(btom_ext.planners_reference) on random small tabular problems, and the belief grid's
Freudenthal interpolation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from btom_ext import planner_kernels
from elot.engine.tables.grid import BeliefGrid

core = planner_kernels("core")
reference = planner_kernels("reference")


@st.composite
def problems(draw):
    """A random sparse problem: states x actions rows, 0..3 successors each, columns."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_states, n_actions = draw(st.integers(1, 7)), draw(st.integers(1, 4))
    n_cols = draw(st.integers(1, 19))   # across the compiled kernel's chunk of 8 columns
    n_rows = n_states * n_actions
    counts = rng.integers(0, 4, size=n_rows)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    indices = rng.integers(0, n_states, size=indptr[-1]).astype(np.int32)
    probs = rng.random(indptr[-1])
    reward = rng.normal(0, 10, size=(n_rows, n_cols))
    gamma = draw(st.sampled_from([0.0, 0.5, 0.9, 0.99, 1.0]))
    sweeps = draw(st.integers(1, 12))
    return indptr, indices, probs / max(1.0, probs.sum()), reward, n_actions, gamma, sweeps


@settings(max_examples=80, deadline=None)
@given(problems())
def test_value_iteration_equals_its_twin(problem):
    assert np.allclose(core.value_iteration(*problem), reference.value_iteration(*problem),
                       rtol=1e-12, atol=1e-9)


def test_value_iteration_is_the_bellman_backup_by_hand():
    # two states, two actions: action 1 of state 0 moves to state 1 (reward 5), all else stays
    indptr = np.array([0, 1, 2, 3, 4])
    indices = np.array([0, 1, 1, 1], dtype=np.int32)
    probs = np.ones(4)
    reward = np.array([[0.0], [5.0], [0.0], [-1.0]])
    q = core.value_iteration(indptr, indices, probs, reward, 2, 0.5, 3)
    # V after 2 backups: V1 = (5, 0); V2 = (max(0 + .5*5, 5 + 0), max(0, -1)) = (5, 0)
    assert q[:, 0].tolist() == [2.5, 5.0, 0.0, -1.0]


def scalar_value_iteration(indptr, indices, probs, reward, n_actions, gamma, sweeps):
    """The compiled kernel's arithmetic one column and one float at a time: acc = r, then
    acc += (gamma * p) * V[successor] in order; V(s) the first largest Q over the actions."""
    n_rows, n_cols = reward.shape
    q = np.zeros((n_rows, n_cols))
    for c in range(n_cols):
        value = [0.0] * (n_rows // n_actions)
        for sweep in range(sweeps):
            new = list(value)
            for s in range(len(value)):
                for a in range(n_actions):
                    row = s * n_actions + a
                    acc = float(reward[row, c])
                    for k in range(indptr[row], indptr[row + 1]):
                        acc += (gamma * float(probs[k])) * value[indices[k]]
                    q[row, c] = acc
                    if a == 0 or acc > new[s]:
                        new[s] = acc
            value = new
    return q


@settings(max_examples=60, deadline=None)
@given(problems())
def test_value_iteration_is_the_scalar_loop_bit_for_bit_on_every_vector_width(problem):
    want = scalar_value_iteration(*problem)
    before = core.use_lanes(2)
    try:
        for lanes in sorted({2, core.widest_lanes()}):
            core.use_lanes(lanes)
            assert core.value_iteration(*problem).tobytes() == want.tobytes(), lanes
    finally:
        core.use_lanes(before)


@settings(max_examples=40, deadline=None)
@given(problems(), st.integers(1, 5))
def test_value_iteration_on_distinct_reward_rows_is_the_same_as_on_the_full_table(problem, n_distinct):
    indptr, indices, probs, reward, n_actions, gamma, sweeps = problem
    rng = np.random.default_rng(len(reward))
    distinct = reward[:n_distinct]
    rows = rng.integers(0, len(distinct), size=len(reward)).astype(np.int32)
    for kernels in (core, reference):
        full = kernels.value_iteration(indptr, indices, probs, distinct[rows], n_actions, gamma, sweeps)
        shared = kernels.value_iteration(indptr, indices, probs, distinct, n_actions, gamma, sweeps, rows)
        assert shared.tobytes() == full.tobytes()


@pytest.mark.parametrize("kernels", [core, reference], ids=["core", "reference"])
def test_a_reward_row_out_of_range_is_refused_not_read(kernels):
    with pytest.raises(ValueError, match="reward_rows"):
        kernels.value_iteration([0, 0, 0], np.zeros(0, dtype=np.int32), [], np.zeros((1, 3)), 2, 0.9, 3,
                                np.array([0, 1], dtype=np.int32))


def test_use_lanes_refuses_a_width_it_has_not():
    with pytest.raises(ValueError, match="lanes"):
        core.use_lanes(3)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 5), st.integers(1, 4), st.integers(1, 11),
       st.sampled_from([0.0, 0.5, 2.5, 10.0, 400.0]))
def test_mixed_policies_equal_their_twin(seed, n_queries, n_actions, n_cols, beta):
    rng = np.random.default_rng(seed)
    n_states = 6
    q = rng.normal(0, 50, size=(n_states * n_actions, n_cols))
    corners = rng.integers(-1, n_states, size=(n_queries, 3)).astype(np.int32)
    weights = rng.random((n_queries, 3))
    got = core.mixed_policies(q, corners, weights, n_actions, beta)
    want = reference.mixed_policies(q, corners, weights, n_actions, beta)
    assert np.allclose(got, want, rtol=1e-12, atol=1e-300)
    assert np.allclose(got.sum(axis=1), 1.0)   # a distribution over actions, even at beta 400


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(1, 9))
def test_propagate_equals_its_twin(seed, levels, n_cols):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 4, size=levels)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    t_from, t_to = [], []
    for lvl in range(levels - 1):
        for _ in range(rng.integers(1, 5)):
            t_from.append(rng.integers(starts[lvl], starts[lvl + 1]))
            t_to.append(rng.integers(starts[lvl + 1], starts[lvl + 2]))
    n_nodes = int(starts[-1])
    policy = rng.random((5, n_cols))
    rows = rng.integers(0, 5, size=len(t_from))
    factor = rng.random(len(t_from))
    group = np.full(n_nodes, -1, dtype=np.int32)
    group[starts[-2]:] = rng.integers(0, 2, size=sizes[-1])
    args = (n_nodes, np.arange(sizes[0], dtype=np.int32), rng.random(sizes[0]),
            np.array(t_from, dtype=np.int32), np.array(t_to, dtype=np.int32),
            np.array(rows, dtype=np.int64), factor, policy, group, 2)
    assert np.allclose(core.propagate(*args), reference.propagate(*args), rtol=1e-12, atol=0)


@pytest.mark.parametrize("worlds,resolution", [(2, 4), (3, 6), (4, 3)])
def test_grid_has_every_composition(worlds, resolution):
    from math import comb

    grid = BeliefGrid(worlds, resolution)
    assert len(grid) == comb(resolution + worlds - 1, worlds - 1)
    assert np.allclose(grid.points.sum(axis=1), 1.0)
    corners, weights = grid.interpolate(grid.points)   # a grid point is its own only corner
    assert corners[:, 0].tolist() == list(range(len(grid)))
    assert np.all(weights[:, 0] == 1.0)


@pytest.mark.parametrize("worlds", [1, 2, 3, 4, 5])
def test_grid_points_are_every_composition_in_lexicographic_order(worlds):
    import itertools

    for resolution in range(1, 8):
        every = sorted(c for c in itertools.product(range(resolution + 1), repeat=worlds) if sum(c) == resolution)
        assert BeliefGrid(worlds, resolution).counts.tolist() == [list(c) for c in every]


def test_a_grid_over_twelve_worlds_is_made_without_visiting_every_tuple():
    # 7 ** 12 tuples (some 14 billion) filtered down to 12,376 points hung a run (found by
    # fuzz_commands.py --domains --seed 1): the points are made from their places directly
    from math import comb

    grid = BeliefGrid(12, 6)
    assert len(grid) == comb(17, 11) and np.all(grid.counts.sum(axis=1) == 6)
    assert grid.counts[0].tolist() == [0] * 11 + [6] and grid.counts[-1].tolist() == [6] + [0] * 11


@pytest.mark.parametrize("worlds,resolution", [(1, 3), (2, 4), (3, 6), (5, 3), (12, 6), (64, 1)])
def test_a_coordinate_vector_is_found_at_its_point_and_off_the_grid_nowhere(worlds, resolution):
    # (64, 1): coordinates past 63 bits as numbers, looked up by their tuples instead
    grid = BeliefGrid(worlds, resolution)
    coords = BeliefGrid._coordinates(grid.counts)
    assert grid._lookup(coords).tolist() == list(range(len(grid)))
    rng = np.random.default_rng(worlds)
    drawn = rng.integers(-1, resolution + 2, size=(200, worlds - 1))
    where = {tuple(c): i for i, c in enumerate(coords.tolist())}
    assert grid._lookup(drawn).tolist() == [where.get(tuple(c), -1) for c in drawn.tolist()]


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 4), st.integers(1, 7), st.lists(st.floats(0.001, 1.0), min_size=4, max_size=4))
def test_interpolation_is_convex_and_reconstructs_the_belief(worlds, resolution, raw):
    grid = BeliefGrid(worlds, resolution)
    belief = np.array(raw[:worlds]) / sum(raw[:worlds])
    corners, weights = grid.interpolate(belief)
    corners, weights = corners[0], weights[0]
    assert weights.min() > -1e-6 and abs(weights.sum() - 1.0) < 1e-12
    used = corners >= 0
    assert np.all(weights[~used] < 1e-6)            # off-grid corners carry no weight
    assert np.allclose(weights[used] @ grid.points[corners[used]], belief, atol=1e-6)


@pytest.mark.parametrize("kernels", [core, reference], ids=["core", "reference"])
def test_an_index_out_of_range_is_refused_not_read(kernels):
    reward = np.zeros((4, 3))
    with pytest.raises(ValueError, match="successor indices"):
        kernels.value_iteration([0, 1, 1, 1, 1], np.array([7], dtype=np.int32), [1.0], reward, 2, 0.9, 3)
    with pytest.raises(ValueError, match="indptr"):
        kernels.value_iteration([0, 2, 1, 1, 1], np.array([0], dtype=np.int32), [1.0], reward, 2, 0.9, 3)
    with pytest.raises(ValueError, match="corner"):
        kernels.mixed_policies(reward, np.array([[5]], dtype=np.int32), np.ones((1, 1)), 2, 1.0)
    with pytest.raises(ValueError, match="nodes"):
        kernels.propagate(2, np.array([0], dtype=np.int32), [1.0], np.array([0], dtype=np.int32),
                          np.array([9], dtype=np.int32), np.array([0]), [1.0], reward,
                          np.array([-1, 0], dtype=np.int32), 1)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 7), st.integers(1, 9), st.sampled_from([1.0, 1e-90, 1e-200]))
def test_propagate_in_steps_equals_its_twin_and_keeps_tiny_weights(seed, levels, n_cols, scale):
    """The stepwise pass (two steps held, each brought back up by a power of two before it
    underflows) gives its twin's sums, and :func:`propagate`'s once the exponent is undone."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 4, size=levels)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    t_from, t_to = [], []
    for lvl in range(levels - 1):
        for _ in range(rng.integers(1, 5)):
            t_from.append(rng.integers(starts[lvl], starts[lvl + 1]))
            t_to.append(rng.integers(starts[lvl + 1], starts[lvl + 2]))
    n_nodes = int(starts[-1])
    policy = rng.random((5, n_cols)) * scale           # each step multiplies the weights by about `scale`
    rows = rng.integers(0, 5, size=len(t_from))
    factor = rng.random(len(t_from))
    step = np.repeat(np.arange(levels), sizes).astype(np.int32)
    group = (step * 2 + rng.integers(0, 2, size=n_nodes)).astype(np.int32)   # two groups per step
    args = (n_nodes, np.arange(sizes[0], dtype=np.int32), rng.random(sizes[0]),
            np.array(t_from, dtype=np.int32), np.array(t_to, dtype=np.int32),
            np.array(rows, dtype=np.int64), factor, policy)
    got, got_exp = core.propagate_steps(*args, step, group, 2 * levels)
    want, want_exp = reference.propagate_steps(*args, step, group, 2 * levels)
    assert np.array_equal(got_exp, want_exp) and np.all(np.diff(got_exp) >= 0)
    assert np.allclose(got, want, rtol=1e-12, atol=0)
    if scale == 1.0:
        assert not got_exp.any()
        assert np.array_equal(got, core.propagate(*args, group, 2 * levels))
    else:
        # undone in logs: the plain pass, where it does not underflow, agrees
        plain = reference.propagate(*args, group, 2 * levels)
        lifted = np.ldexp(plain, np.repeat(got_exp, 2)[:, None])
        fine = plain > 1e-290
        assert np.allclose(got[fine], lifted[fine], rtol=1e-9)


@pytest.mark.parametrize("kernels", [core, reference], ids=["core", "reference"])
def test_a_program_not_in_steps_is_refused(kernels):
    args = (3, np.array([0], dtype=np.int32), [1.0], np.array([0], dtype=np.int32), np.array([2], dtype=np.int32),
            np.array([0]), [1.0], np.ones((1, 2)))
    with pytest.raises(ValueError, match="step s to one of step s \\+ 1"):
        kernels.propagate_steps(*args, np.array([0, 1, 2], dtype=np.int32), np.full(3, -1, dtype=np.int32), 1)
    with pytest.raises(ValueError, match="one step"):
        kernels.propagate_steps(*args[:3], np.array([0], dtype=np.int32), np.array([1], dtype=np.int32),
                                *args[5:], np.array([0, 1, 1], dtype=np.int32), np.array([0, 0, -1], dtype=np.int32), 1)
