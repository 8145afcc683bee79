"""The engine on random small domains (Hypothesis): the compiled kernels and their NumPy
twins give the same likelihoods end to end, and the inversion equals a plain recursive
enumeration of every action and percept sequence the path allows."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elot.engine import BeliefSpace, Case, DesireSpace, Engine, EngineConfig, Tables


class RandomDomain:
    """Tables drawn from a seed: deterministic moves, noisy percepts, a few objects."""

    name = "random"
    default_planner = "belief-vi"

    def __init__(self, seed: int, worlds: int, states: int, actions: int):
        rng = np.random.default_rng(seed)
        self.n_w, self.n_s, self.n_a = worlds, states, actions
        self.trans = rng.integers(0, states, size=(worlds, states, actions)).astype(np.int32)
        self.trans[:, :, 0] = np.arange(states)              # action 0 stays everywhere
        self.outcomes = np.where(rng.random((worlds, states, actions)) < 0.3,
                                 rng.integers(0, 2, size=(worlds, states, actions)), -1).astype(np.int32)
        obs = rng.random((worlds, states, 3)) * (rng.random((worlds, states, 3)) < 0.7)
        obs[..., 2] += 0.05
        self.obs = obs / obs.sum(axis=2, keepdims=True)
        self.costs = rng.random(actions)
        raw = rng.random((4, worlds)) + 0.05
        self.beliefs = raw / raw.sum(axis=1, keepdims=True)
        self.utilities = rng.normal(0, 5, size=(3, 2))

    def tables(self, layout):
        return Tables(tuple(f"s{i}" for i in range(self.n_s)), tuple(f"w{i}" for i in range(self.n_w)),
                      tuple(f"a{i}" for i in range(self.n_a)), ("p0", "p1", "p2"), ("x", "y"),
                      self.costs, self.trans, self.obs, self.outcomes)

    def desires(self):
        return DesireSpace(("x", "y"), self.utilities, np.full(3, 1 / 3))

    def initial_beliefs(self, layout):
        return BeliefSpace(self.beliefs, np.full(4, 0.25))

    def signature(self):
        return None

    def world_atoms(self, layout, world):
        return frozenset()


@st.composite
def cases(draw):
    worlds, states, actions = draw(st.integers(2, 3)), draw(st.integers(2, 5)), draw(st.integers(2, 3))
    domain = RandomDomain(draw(st.integers(0, 2**32 - 1)), worlds, states, actions)
    world = draw(st.integers(0, worlds - 1))
    path = [draw(st.integers(0, states - 1))]
    for _ in range(draw(st.integers(0, 4))):   # walk in the true world, so the path is possible
        path.append(int(domain.trans[world, path[-1], draw(st.integers(0, actions - 1))]))
    planner = draw(st.sampled_from(["belief-vi", "qmdp"]))
    return domain, Case("only", tuple(path), world), planner, draw(st.sampled_from([0.5, 2.0, 6.0]))


def likelihood(domain, case, **config):
    engine = Engine(domain, EngineConfig(sweeps=8, grid=3, **config))
    [[result]] = engine.run([case])
    return engine, result.likelihood[0]


@settings(max_examples=60, deadline=None)
@given(cases())
def test_compiled_equals_numpy_end_to_end(drawn):
    domain, case, planner, beta = drawn
    _, fast = likelihood(domain, case, planner=planner, beta=beta)
    _, slow = likelihood(domain, case, planner=planner, beta=beta, backend="reference")
    assert np.allclose(fast, slow, rtol=1e-9, atol=1e-300)
    assert fast.max() > 0                                    # the path was walked in its world


def enumerate_paths(engine, domain, case, beta):
    """P(path | b0, u) by recursion over every action and percept, beliefs exact."""
    plan = engine.plan(case.layout)
    n_a = domain.n_a
    out = np.zeros((len(domain.beliefs), len(domain.utilities)))

    def policy(belief, state):
        corners, weights = plan.corners(belief[None, :], np.array([state]))
        q = sum(w * plan.q[c * n_a:(c + 1) * n_a] for c, w in zip(corners[0], weights[0]) if c >= 0)
        z = beta * q - (beta * q).max(axis=0)
        return np.exp(z) / np.exp(z).sum(axis=0)

    def walk(belief, t, weight):
        if t == len(case.path) - 1:
            return weight
        here, there = case.path[t], case.path[t + 1]
        pi = policy(belief, here)
        total = np.zeros(len(domain.utilities))
        for a in range(n_a):
            reach = domain.trans[:, here, a] == there
            for o in range(3):
                factor = reach[case.world] * domain.obs[case.world, there, o]
                agent = belief * reach * domain.obs[:, there, o]
                if factor > 0 and agent.sum() > 0:
                    total += walk(agent / agent.sum(), t + 1, weight * pi[a] * factor)
        return total

    for b, b0 in enumerate(domain.beliefs):
        for o in range(3):
            seen = b0 * domain.obs[:, case.path[0], o]
            if domain.obs[case.world, case.path[0], o] > 0 and seen.sum() > 0:
                out[b] += walk(seen / seen.sum(), 0, np.full(len(domain.utilities),
                                                           domain.obs[case.world, case.path[0], o]))
    return out


@settings(max_examples=60, deadline=None)
@given(cases())
def test_inversion_equals_plain_enumeration(drawn):
    domain, case, planner, beta = drawn
    engine, got = likelihood(domain, case, planner=planner, beta=beta, belief_quantum=0.0)
    want = enumerate_paths(engine, domain, case, beta)
    assert np.allclose(got, want, rtol=1e-9, atol=1e-300)


def _merge_by_unique(owner, belief, mask=None):
    """The inversion's merge as np.unique groups rows (by value), in order of first appearance."""
    parts = [owner[:, None].astype(np.float64)] + ([] if mask is None else [mask[:, None].astype(np.float64)])
    rows = np.concatenate(parts + [belief], axis=1)
    _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    keep = first[order]
    return owner[keep], belief[keep], rank[inverse.reshape(-1)], None if mask is None else mask[keep]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 40), st.integers(1, 4), st.booleans(), st.booleans())
def test_merging_equal_beliefs_numbers_them_as_np_unique_does(seed, n, n_w, masked, odd):
    from elot.engine.tables.inversion import Inverter

    rng = np.random.default_rng(seed)
    pool = rng.dirichlet(np.ones(n_w), size=4).round(2)
    if odd:   # the rows bytes cannot number: -0.0 (equal to 0.0) and NaN (equal to nothing)
        pool[0, 0], pool[1, -1] = -0.0, np.nan
        pool[2] = np.where(pool[2] == 0, -0.0, pool[2])
    belief = pool[rng.integers(0, 4, size=n)]
    owner = rng.integers(0, 3, size=n)
    mask = rng.integers(0, 4, size=n) if masked else None
    got = Inverter._merge(owner, belief, mask)
    want = _merge_by_unique(owner, belief, mask)
    for a, b in zip(got, want):
        assert (a is None and b is None) or (np.asarray(a).tobytes() == np.asarray(b).tobytes()
                                             and np.asarray(a).dtype == np.asarray(b).dtype)


@pytest.mark.parametrize("seed", [2, 3])
def test_a_step_whose_beliefs_branch_past_the_budget_is_refused_before_it_is_built(seed):
    """Twelve worlds, noisy percepts: each step's beliefs branch and few merge. The build
    counts a step's branches as it makes them and refuses the step that would pass the
    budget, so the memory traced (NumPy's arrays included) stays under --max-memory; the
    refusal names the branches and the step (it used to come after the step, at 40 and
    63 MiB under 32)."""
    import tracemalloc

    from elot.engine import BudgetError

    domain = RandomDomain(seed, 12, 4, 2)
    rng = np.random.default_rng(seed)
    path = [0]
    for _ in range(60):
        path.append(int(domain.trans[0, path[-1], rng.integers(0, 2)]))
    limit = 32 * 2**20
    engine = Engine(domain, EngineConfig(planner="qmdp", memory_limit=limit, belief_quantum=0.0))
    tracemalloc.start()
    try:
        with pytest.raises(BudgetError, match=r"branches at step \d+ of 60"):
            engine.run([Case("x", tuple(path), 0)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < limit
