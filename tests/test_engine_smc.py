"""Sequential Monte Carlo on tabular domains (elot.engine.tables.smc), part by part: the
likelihood of every prefix of a path; the rejuvenation kernel leaves the posterior invariant
(its transition matrix enumerated on tiny tables) and draws what that matrix says;
resampling happens exactly when the ESS falls below its threshold; particles drawn anew when
all are ruled out; the same seed gives the same particles; on random paths of tiny domains
(Hypothesis) and on food-truck scenarios the estimates agree with exact inference within
their standard errors, and a surprising path keeps many times the effective sample size of
plain importance sampling.

The tolerances are five standard errors from the exact posterior's variance and the
result's ESS; every seed is fixed, so each assertion is deterministic.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from elot.engine import BeliefSpace, Case, DesireSpace, Engine, EngineConfig, load_domain
from elot.engine.tables import smc
from elot.engine.tables.inversion import Inverter
from helpers import examples
from test_engine_properties import RandomDomain, cases

REPO = Path(__file__).resolve().parent.parent
SHOP = REPO / "examples" / "domains" / "coffee_shop.py"
PEEK_PATH = (2, 3, 3, 2, 1, 0, 5)
#: The visitor dithers between cells 2 and 3, then buys soda: few hypotheses explain it.
DITHER_PATH = (2, 3, 2, 3, 2, 3, 2, 3, 2, 1, 0, 5)


def shop():
    return load_domain(str(SHOP))


def run(case, domain=None, **config):
    [[result]] = Engine(domain or shop(), EngineConfig(**config)).run([case])
    return result


def bounds(exact, sampled, values=None):
    """(error, 5 standard errors) of the posterior means of the utilities (or ``values``)
    and of the initial belief, and of the world posterior."""
    table = np.asarray(exact.desire_space.utilities if values is None else values, dtype=np.float64)
    mean_u, mean_b, worlds = exact.mean_utility(table), exact.mean_belief(), exact.world_posterior()
    checks = [(np.abs(sampled.mean_utility(table) - mean_u), exact.desire_posterior() @ (table - mean_u) ** 2),
              (np.abs(sampled.mean_belief() - mean_b), exact.belief_posterior() @ (exact.beliefs - mean_b) ** 2),
              (np.abs(sampled.world_posterior() - worlds), worlds * (1 - worlds))]
    return [(error, 5 * np.sqrt(np.maximum(v, 0) / sampled.ess) + 1e-9) for error, v in checks]


# -- the likelihood of every prefix ---------------------------------------------------------------

@settings(max_examples=examples(40), deadline=None)
@given(cases())
def test_the_prefix_table_holds_each_prefixs_own_likelihood(drawn):
    domain, case, planner, beta = drawn
    engine = Engine(domain, EngineConfig(planner=planner, beta=beta, sweeps=8, grid=3))
    tables = engine.tables(case.layout)
    inverter = Inverter(tables, engine.plan(case.layout), engine.config.belief_quantum)
    whole = inverter.build(domain.beliefs, list(case.path), case.world)
    prefixes = [inverter.build(domain.beliefs, list(case.path[:t + 1]), case.world) for t in range(len(case.path))]
    policies = inverter.policies(beta, "core")
    table, exponent = inverter.prefix_likelihoods(whole, policies, "core")
    assert table.shape == (len(case.path), len(domain.beliefs), len(domain.utilities))
    for t, program in enumerate(prefixes):
        assert np.array_equal(table[t], inverter.likelihood(program, policies, "core")[0])
        assert exponent[t] == inverter.likelihood(program, policies, "core")[1]
    assert np.array_equal(table[-1], inverter.likelihood(whole, policies, "core")[0])


def test_an_impossible_step_leaves_the_prefixes_before_it():
    engine = Engine(shop())
    inverter = Inverter(engine.tables("corridor"), engine.plan("corridor"), engine.config.belief_quantum)
    beliefs = shop().initial_beliefs("corridor").beliefs
    path = [2, 3, 4, 5]                      # buys coffee at the shop, which is closed in world 1
    program = inverter.build(beliefs, path, 1)
    table, _ = inverter.prefix_likelihoods(program, inverter.policies(2.5, "core"), "core")
    assert np.all(table[:3].max(axis=(1, 2)) > 0) and not table[3].any()
    assert not inverter.likelihood(program, inverter.policies(2.5, "core"), "core")[0].any()


# -- the rejuvenation kernel ----------------------------------------------------------------------

def tiny(seed: int, shape=(3, 4)):
    """A likelihood layer ``[world, belief]`` (the desire summed out) with some zeros, and
    priors along each axis."""
    rng = np.random.default_rng(seed)
    layer = rng.random(shape) * (rng.random(shape) < 0.75)
    layer[0, 0] = 1.0                                        # never all zero
    priors = smc.Priors(rng.random(shape[0]) + 0.1, rng.random(shape) + 0.1, np.ones(1))
    return layer, priors


def posterior(layer, priors):
    joint = layer * priors.world[:, None] * priors.belief
    return joint / joint.sum()


def every_hypothesis(shape) -> smc.State:
    world, belief = (a.reshape(-1) for a in np.indices(shape))
    return smc.State(world, belief, np.ones(len(world)))


def sweep_matrix(layer, priors) -> np.ndarray:
    """K[h, h']: one sweep's transition probabilities, from the kernel's own conditionals."""
    shape = layer.shape
    every = every_hypothesis(shape)
    m = len(every)
    kernel = np.eye(m)
    for axis in smc.axes(layer):
        rows, key = smc.conditionals(layer, priors, every, axis)
        step = np.zeros((m, m))
        for h in range(m):
            row = rows[key[h]]
            if row.sum() == 0:
                step[h, h] = 1.0
                continue
            for value, p in enumerate(row / row.sum()):
                at = (value, every.belief[h]) if axis == "world" else (every.world[h], value)
                step[h, np.ravel_multi_index(at, shape)] += p
        kernel = kernel @ step
    return kernel


@pytest.mark.parametrize("seed", range(6))
def test_a_sweep_leaves_the_posterior_invariant(seed):
    layer, priors = tiny(seed)
    target = posterior(layer, priors).reshape(-1)
    kernel = sweep_matrix(layer, priors)
    assert np.allclose(kernel.sum(axis=1), 1.0)
    assert np.allclose(target @ kernel, target, rtol=0, atol=1e-12)
    assert not np.allclose(kernel, np.eye(len(target)))               # and it moves


def test_with_the_world_known_a_sweep_draws_the_belief_from_its_posterior():
    layer, priors = tiny(1, shape=(1, 5))
    kernel = sweep_matrix(layer, priors)
    assert np.allclose(kernel, posterior(layer, priors).reshape(1, -1))


def test_the_sweep_draws_what_its_transition_matrix_says():
    layer, priors = tiny(3)
    kernel = sweep_matrix(layer, priors)
    n = 200_000
    for start in (0, 7):
        state = every_hypothesis(layer.shape).take(np.full(n, start), np.ones(n))
        moved = smc.move(state, layer, priors, np.random.default_rng(start))
        share = np.bincount(np.ravel_multi_index((moved.world, moved.belief), layer.shape), minlength=layer.size) / n
        want = kernel[start]
        assert np.all(np.abs(share - want) <= 5 * np.sqrt(want * (1 - want) / n) + 1e-12)
        assert np.array_equal(moved.weight, state.weight)        # a move keeps the weights


def test_the_desire_is_summed_out_exactly():
    """A particle's weight follows ``Σ_u prior(u) L``, and the desire posterior is the
    particles' mean of P(u | world, belief, path), each read from the table by hand here."""
    rng = np.random.default_rng(5)
    table = rng.random((3, 2, 3, 4))
    priors = smc.Priors(np.array([0.3, 0.7]), rng.random((2, 3)) + 0.1, np.array([0.1, 0.2, 0.3, 0.4]))
    start = (np.array([0, 1, 1, 0, 1]), np.array([2, 0, 2, 1, 1]))
    trace = smc.run(table, priors, start, seed=1, ess_threshold=0.0, moves=0, kernels=smc.kernels("core"))
    marginal = table @ priors.desire
    want = marginal[-1][start]
    assert np.allclose(trace.state.weight, want / want.max(), rtol=1e-12)
    given_rest = table[-1][start] * priors.desire
    given_rest /= given_rest.sum(axis=1, keepdims=True)
    weights = want / want.sum()
    assert np.allclose(trace.desire_mass, weights @ given_rest, rtol=1e-12)
    assert np.array_equal(smc.marginal(table, priors.desire).shape, marginal.shape)
    assert np.allclose(smc.marginal(table, priors.desire), marginal, rtol=1e-12)


@given(st.lists(st.floats(0, 10), min_size=1, max_size=8), st.lists(st.floats(0, 0.999999), min_size=1, max_size=30))
def test_a_conditional_draw_never_takes_an_entry_of_no_mass(row, uniforms):
    rows = np.array([row])
    drawn = smc.conditional_draw(rows, np.zeros(len(uniforms), dtype=np.intp), np.array(uniforms))
    if rows.sum() == 0:
        assert np.all(drawn == -1)
    else:
        assert np.all(rows[0, drawn] > 0)


# -- resampling, restarts, the seed ---------------------------------------------------------------

@pytest.mark.parametrize("threshold", [0.0, 0.3, 0.7, 0.95, 1.0])
def test_particles_are_resampled_exactly_when_the_ess_falls_below_the_threshold(threshold):
    n = 400
    result = run(Case("corridor", DITHER_PATH, None), method="smc", particles=n, seed=2, ess_threshold=threshold)
    assert np.array_equal(result.resampled, (result.steps_ess > 0) & (result.steps_ess < threshold * n))
    assert np.array_equal(result.moved >= 0, result.resampled | result.drifted)   # moves follow these, only
    assert not (result.resampled & result.drifted).any()
    if threshold == 0:
        assert not result.resampled.any()
    if threshold >= 0.7:
        assert result.resampled.sum() >= 3
        assert result.moved[result.resampled].sum() > 0


def test_a_resampled_step_leaves_equal_weights_and_the_next_step_reweighs_them():
    layer0 = np.ones((1, 3, 1))
    layer1 = np.array([[[0.1], [0.2], [0.7]]])
    table = np.stack([layer0, layer1, layer1 * 0.5])
    priors = smc.Priors(np.ones(1), np.ones((1, 3)), np.ones(1))
    start = (np.zeros(6, dtype=np.intp), np.array([0, 0, 1, 1, 2, 2]))
    trace = smc.run(table, priors, start, seed=1, ess_threshold=0.99, moves=0, kernels=smc.kernels("core"))
    assert list(trace.resampled) == [False, True, False]
    assert np.all(trace.state.weight == 1.0)          # step 2 multiplies every weight by 0.5, rescaled to 1


def test_a_belief_resampling_dropped_is_brought_back_when_the_next_step_makes_it_likely():
    """Step 1 makes belief 2 a millionth as likely as the others, and resampling drops it;
    step 2 makes it a million times likelier. Every particle's weight changes alike (the ESS
    stays at N), so only the drift check sees it: the moves run without resampling."""
    table = np.ones((3, 1, 3, 1))
    table[1, 0, 2] = 1e-6
    table[2, 0, :2] = 1e-12
    table[2, 0, 2] = 1e-6
    priors = smc.Priors(np.ones(1), np.ones((1, 3)), np.ones(1))
    start = (np.zeros(30, dtype=np.intp), np.arange(30) % 3)
    for moves in (0, 1):
        trace = smc.run(table, priors, start, seed=2, ess_threshold=0.9, moves=moves, kernels=smc.kernels("core"))
        assert list(trace.resampled) == [False, True, False] and trace.ess[2] == 30
        assert list(trace.drifted) == [False, False, moves > 0]
        held = np.bincount(trace.state.belief, minlength=3)
        assert held[2] == (30 if moves else 0)


def test_particles_all_ruled_out_are_drawn_anew_from_the_pool():
    table = np.ones((2, 1, 2, 3))
    table[1, 0, 0, :] = 0.0                   # step 1 rules out belief 0, which every particle holds
    priors = smc.Priors(np.ones(1), np.ones((1, 2)), np.ones(3))
    start = (np.zeros(50, dtype=np.intp), np.zeros(50, dtype=np.intp))
    trace = smc.run(table, priors, start, seed=4, ess_threshold=0.5, moves=1, kernels=smc.kernels("core"))
    assert list(trace.restarted) == [False, True]
    assert np.all(trace.state.belief == 1) and trace.state.weight.all()


def test_the_same_seed_gives_the_same_particles_whatever_else_runs():
    dither = Case("corridor", DITHER_PATH, None)
    one = run(dither, method="smc", particles=500, seed=7)
    engine = Engine(shop(), EngineConfig(method="smc", particles=500, seed=7))
    _, again = engine.run([Case("corridor", PEEK_PATH, 1), dither])[0]      # another case first
    for field in ("world_of", "belief_of", "desire_of", "weight", "desire_mass", "steps_ess", "resampled", "moved"):
        assert np.array_equal(getattr(one, field), getattr(again, field)), field
    other = run(dither, method="smc", particles=500, seed=8)
    assert not np.array_equal(one.weight, other.weight)


def test_the_reference_kernels_resample_the_same_particles():
    core = run(Case("corridor", DITHER_PATH, None), method="smc", particles=300, seed=3, ess_threshold=0.8)
    reference = run(Case("corridor", DITHER_PATH, None), method="smc", particles=300, seed=3, ess_threshold=0.8,
                    backend="reference")
    assert np.array_equal(core.resampled, reference.resampled)
    assert np.allclose(core.weight, reference.weight, rtol=1e-9)


# -- against exact inference ----------------------------------------------------------------------

class Skewed:
    """A random domain with uneven priors over its worlds, initial beliefs and desires."""

    def __init__(self, domain: RandomDomain, seed: int):
        rng = np.random.default_rng(seed)
        self.base, self.name, self.default_planner = domain, domain.name, domain.default_planner
        self.priors = [p / p.sum() for p in (rng.random(domain.n_w) + 0.05, rng.random(len(domain.beliefs)) + 0.05,
                                             rng.random(len(domain.utilities)) + 0.05)]

    def __getattr__(self, name):
        return getattr(self.base, name)

    def world_prior(self, layout):
        return self.priors[0]

    def initial_beliefs(self, layout):
        space = self.base.initial_beliefs(layout)
        return BeliefSpace(space.beliefs, self.priors[1])

    def desires(self):
        space = self.base.desires()
        return DesireSpace(space.objects, space.utilities, self.priors[2])


@settings(max_examples=examples(30), deadline=None)
@given(cases(), st.integers(0, 2**32 - 1), st.sampled_from([0.3, 0.5, 0.9]), st.integers(1, 2),
       st.booleans(), st.one_of(st.none(), st.integers(0, 2**32 - 1)))
def test_particles_agree_with_exact_on_random_paths_of_tiny_domains(drawn, seed, threshold, moves, unknown, skew):
    domain, case, planner, beta = drawn
    if unknown:
        case = Case(case.layout, case.path, None)
    if skew is not None:
        domain = Skewed(domain, skew)
    config = dict(planner=planner, beta=beta, sweeps=8, grid=3)
    exact = run(case, domain, **config)
    sampled = run(case, domain, method="smc", particles=3000, seed=seed, ess_threshold=threshold, moves=moves,
                  **config)
    assert sampled.unpooled == 0                  # 3,000 draws hold every hypothesis of these spaces
    assert sampled.ess > 3000 * threshold / 2
    for error, bound in bounds(exact, sampled):
        assert np.all(error <= bound), (error, bound)


@pytest.mark.parametrize("path, world", [(PEEK_PATH, None), (PEEK_PATH, 1), (DITHER_PATH, None)])
def test_particles_agree_with_exact_on_the_coffee_shop(path, world):
    case = Case("corridor", path, world)
    exact = run(case)
    for n, seed in ((1000, 1), (10_000, 2)):
        sampled = run(case, method="smc", particles=n, seed=seed)
        for error, bound in bounds(exact, sampled):
            assert np.all(error <= bound), (n, error, bound)


def test_a_desire_that_resampling_would_drop_is_kept():
    """A random domain (found by the property above) where, at an impulsive β, the step
    before the last makes one desire some 10⁻⁴ likely and the last makes it 0.94: particles
    that sampled the desire lost it at the resampling between the two and ended on another
    one with an ESS of N. Summed out, it is never lost."""
    domain = RandomDomain(658276976, 3, 4, 3)
    case = Case("only", (1, 0, 0), None)
    config = dict(planner="qmdp", beta=6.0, sweeps=8, grid=3)
    exact = run(case, domain, **config)
    assert exact.desire_posterior()[2] > 0.9
    for seed, moves in ((0, 2), (1, 1), (2, 0)):
        sampled = run(case, domain, method="smc", particles=3000, seed=seed, ess_threshold=0.3, moves=moves, **config)
        assert sampled.resampled.any()
        for error, bound in bounds(exact, sampled):
            assert np.all(error <= bound), (seed, error, bound)


def kish(likelihood: np.ndarray) -> float:
    return likelihood.sum() ** 2 / np.square(likelihood).sum()


def test_resampling_and_moves_keep_the_ess_where_importance_sampling_loses_it():
    """Importance sampling from the prior (what particle inference was before: the draws,
    each weighted by the likelihood of the whole path) against the particles of the same draws."""
    case = Case("corridor", DITHER_PATH, None)
    moved = run(case, method="smc", particles=2000, seed=5)
    plain = kish(moved.drawn_likelihood)
    assert plain < 200 and moved.ess > 5 * plain
    exact = run(case)
    for error, bound in bounds(exact, moved):
        assert np.all(error <= bound)


def test_on_a_surprising_food_truck_path_the_ess_stays_large(baker2017):
    from elot.domains.foodtrucks.domain import FoodTrucks, levels
    from elot.domains.foodtrucks.scenarios import read_scenarios

    [scenario] = [s for s in read_scenarios(baker2017 / "scenarios.json") if s.id == 12]
    case = Case(scenario.map, scenario.states, scenario.world, "scenario 12")
    moved = run(case, FoodTrucks(), method="smc", particles=4000, seed=1)
    assert kish(moved.drawn_likelihood) < 40 and moved.ess > 1000
    exact = run(case, FoodTrucks())
    table = levels(exact.desire_space.utilities)
    for error, bound in bounds(exact, moved, table):
        assert np.all(error <= bound)
    assert np.abs(moved.mean_utility(table) - exact.mean_utility(table)).max() < 0.05
