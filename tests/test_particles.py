"""Particle inference (SMC): its kernels against their NumPy reference, convergence to exact
inference in distribution, determinism with a seed, rejuvenation, and bad input."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from elot.domains.doors_keys_gems.inference import infer, run_filter
from elot.engine.settings import InferenceMethodError
from elot.errors import ElotError, ScenarioError
from elot.domains.doors_keys_gems.particles import ParticleFilter
from elot.engine.worlds.methods import ParticleError
from elot.engine.worlds.particles import _kernels, sample_multisets
from elot.domains.doors_keys_gems.dataset import load_dataset_plan
from elot.domains.doors_keys_gems.load import load_scenario
from elot.domains.doors_keys_gems.scoring import score
from helpers import run_elot

# (through elot: btom_ext.particles is also a function, which importing the submodule replaces)
core, ref = _kernels("core"), _kernels("reference")


@st.composite
def particle_problems(draw):
    """Random Q tables over T steps, liveness shrinking over time, and particles."""
    steps = draw(st.integers(1, 4))
    goals, states, k = draw(st.integers(1, 3)), draw(st.integers(1, 6)), draw(st.integers(1, 4))
    width = draw(st.integers(1, 5))
    n_actions = np.array([draw(st.integers(1, width)) for _ in range(steps)], dtype=np.int32)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    values = np.where(rng.random((steps, goals, states, width)) < 0.1, -100.0,
                      -1.0 - rng.integers(0, 30, (steps, goals, states, width)))
    fallback = values.mean(axis=2)
    live = np.ones((steps + 1, states), dtype=np.uint8)
    for t in range(1, steps + 1):
        live[t] = live[t - 1] & (rng.random(states) < 0.8)
    reached = (rng.random((steps, goals)) < 0.2).astype(np.uint8)
    chosen = np.array([rng.integers(0, a) for a in n_actions], dtype=np.int32)
    n = draw(st.integers(1, 20))
    goal = rng.integers(0, goals, n, dtype=np.int32)
    state = rng.integers(0, states, n, dtype=np.int32)
    beliefs = rng.integers(0, states, (n, k), dtype=np.int32)
    beta = draw(st.floats(0.1, 5.0))
    return values, fallback, n_actions, chosen, beta, live, reached, goal, state, beliefs


@given(particle_problems())
def test_particle_kernels_equal_reference(problem):
    values, fallback, n_actions, chosen, beta, live, reached, goal, state, beliefs = problem
    a = int(n_actions[0])
    step_args = (np.ascontiguousarray(values[0, :, :, :a]), np.ascontiguousarray(fallback[0, :, :a]),
                 int(chosen[0]), beta, state, beliefs, live[0], reached[0])
    np.testing.assert_array_equal(core.step_loglik(*step_args), ref.step_loglik(*step_args))
    np.testing.assert_array_equal(core.history_loglik(*problem), ref.history_loglik(*problem))


@given(particle_problems(), st.integers(0, 2**32 - 1), st.integers(8, 40))
def test_history_change_equals_the_new_history(problem, seed, steps):
    """history_change (the old history plus the difference over the steps where the two
    beliefs' kept sets differ) equals history_loglik of the new beliefs, as the reference
    computes it, up to rounding; states die early so that most changes read a short window."""
    values, fallback, n_actions, chosen, beta, live, reached, goal, state, old = problem
    rng = np.random.default_rng(seed)
    reps = -(-steps // len(chosen))   # a longer history: the problem's steps repeated
    values, fallback = np.concatenate([values] * reps)[:steps], np.concatenate([fallback] * reps)[:steps]
    n_actions, chosen, reached = (np.concatenate([a] * reps)[:steps] for a in (n_actions, chosen, reached))
    live = np.concatenate([live[:1], np.repeat(live[1:2], steps, axis=0)])   # deaths at step 1 only
    live[1:, rng.integers(0, live.shape[1])] = 1 if live[0].any() else 0
    new = old.copy()
    new[:, 0] = rng.integers(0, live.shape[1], len(new))
    tables = (values, fallback, n_actions, chosen, beta, live, reached)
    base = core.history_loglik(*tables, goal, state, old)
    fast = core.history_change(*tables, goal, state, old, new, base)
    slow = ref.history_change(*tables, goal, state, old, new, base)
    assert np.array_equal(np.isfinite(fast), np.isfinite(slow))
    np.testing.assert_allclose(fast[np.isfinite(slow)], slow[np.isfinite(slow)], rtol=0, atol=1e-9)
    np.testing.assert_array_equal(slow, core.history_loglik(*tables, goal, state, new))


@given(st.integers(1, 30), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_goal_posterior_equals_reference(n, goals, seed):
    rng = np.random.default_rng(seed)
    hist = np.where(rng.random((n, goals)) < 0.2, -np.inf, -rng.random((n, goals)) * 50)
    hist[:, 0] = np.where(np.isinf(hist).all(axis=1), -1.0, hist[:, 0])
    weights = np.where(rng.random(n) < 0.3, 0.0, rng.random(n))
    weights /= max(weights.sum(), 1e-300)
    got = core.goal_posterior(hist, weights)
    np.testing.assert_array_equal(got, ref.goal_posterior(hist, weights))
    assert abs(got.sum() - weights.sum()) < 1e-9


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=50), st.floats(0.0, 0.999))
def test_systematic_resampling_equals_reference(raw, u):
    w = np.array(raw) + 1e-3
    w /= w.sum()
    got = core.systematic_resample(w, u)
    np.testing.assert_array_equal(got, ref.systematic_resample(w, u))
    assert got.min() >= 0 and got.max() < len(w) and np.all(np.diff(got) >= 0)


@given(st.integers(0, 20), st.integers(1, 12), st.integers(0, 12), st.integers(0, 2**32 - 1), st.booleans())
def test_smallest_equals_reference(rows, width, k, seed, ties):
    """The k smallest keys of each row (their indices in increasing order), ties to the lower
    index, as the reference's stable sort; without ties, the set argpartition picks."""
    k = min(k, width)
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 4, (rows, width)).astype(float) if ties else rng.random((rows, width))
    got = core.smallest(keys, k)
    np.testing.assert_array_equal(got, ref.smallest(keys, k))
    if not ties and 0 < k < width:
        np.testing.assert_array_equal(got, np.sort(np.argpartition(keys, k - 1, axis=1)[:, :k], axis=1))
    with pytest.raises(ValueError):
        core.smallest(keys, width + 1)


@given(st.integers(1, 12), st.integers(1, 5), st.integers(1, 30), st.integers(0, 2**32 - 1))
def test_dense_beliefs_equal_filter_beliefs(n_states, k, m, seed):
    """Particle rows made dense bit for bit as exact inference filters them (ε included,
    and the uniform fallback when no particle is kept)."""
    from btom_ext.core import filter_beliefs
    from btom_ext.reference import EPSILON
    from elot.engine.worlds.particle_result import dense_beliefs

    rng = np.random.default_rng(seed)
    beliefs = rng.integers(0, n_states, (m, k))
    alive = rng.random((m, n_states)) < 0.5
    counts = np.zeros((m, n_states))
    np.add.at(counts, (np.repeat(np.arange(m), k), beliefs.ravel()), 1.0)
    initial = np.where(counts > 0, counts / k, EPSILON)
    expected = filter_beliefs(initial[:, None, :], alive.astype(np.uint8))[:, 0, :]
    np.testing.assert_array_equal(dense_beliefs(beliefs, k, alive), expected)


def test_history_of_one_step_is_the_step():
    """history_loglik over one step is step_loglik (under each particle's goal) plus the
    two observations."""
    rng = np.random.default_rng(3)
    values = -1.0 - rng.integers(0, 20, (1, 2, 5, 4)).astype(float)
    fallback = values.mean(axis=2)
    live = np.array([[1, 1, 1, 1, 1], [1, 0, 1, 1, 1]], dtype=np.uint8)
    goal, state = np.array([0, 1, 1], dtype=np.int32), np.array([0, 2, 1], dtype=np.int32)
    beliefs = np.array([[0, 1, 1], [4, 4, 2], [3, 3, 3]], dtype=np.int32)
    step = core.step_loglik(values[0], fallback[0], 2, 1.5, state, beliefs, live[0], np.zeros(2, np.uint8))
    history = core.history_loglik(values, fallback, np.array([4], np.int32), np.array([2], np.int32), 1.5, live,
                                  np.zeros((1, 2), np.uint8), goal, state, beliefs)
    np.testing.assert_array_equal(history[:2], step[np.arange(2), goal[:2]])
    assert history[2] == -np.inf  # state 1 is ruled out after the action


def test_multisets_are_uniform():
    """Stars and bars: each of the C(3+2-1, 2) = 6 multisets of 2 over 3 states is equally likely."""
    rows = sample_multisets(np.random.default_rng(0), 3, 2, 60_000)
    assert np.all(np.diff(rows, axis=1) >= 0)
    _, counts = np.unique(rows, axis=0, return_counts=True)
    assert len(counts) == 6
    assert np.abs(counts / 60_000 - 1 / 6).max() < 0.01   # 5 standard errors (0.0015)


# -- convergence to exact inference ---------------------------------------------------------


def _pair_posterior_smc(result, t):
    """Posterior of particles over (true state, belief multiset), as a dict."""
    p = result.particles_by_step[t]
    out: dict = {}
    for s, b, w in zip(p.state, np.sort(p.beliefs, axis=1), p.weights()):
        out[(int(s), tuple(int(x) for x in b))] = out.get((int(s), tuple(int(x) for x in b)), 0.0) + w
    return out


def _pair_posterior_exact(inference, t, k):
    from elot.engine.worlds.spaces import particle_counts

    counts = particle_counts(inference.space.n_states, k)
    rows = [tuple(int(j) for j in np.repeat(np.arange(len(c)), c)) for c in counts]
    table = inference.pair_posterior(t)
    return {(s, rows[b]): float(table[s, b]) for s in range(table.shape[0]) for b in range(table.shape[1])}


def test_smc_equals_exact_in_distribution():
    """two-doors (6 states, 336 hypotheses), 4,000 particles, seed 7: at every step the goal
    posterior is within 0.04 of exact, and the total variation over (state, belief) pairs
    within 0.1. With an ESS of at least ~1,000 a probability's standard error is at most
    0.016, so 0.04 is 2.5 of them; the pairs' distance adds the noise of 56 cells."""
    scenario = load_scenario("two-doors")
    exact = infer(scenario)
    smc = infer(scenario, inference="smc", particles=4000, seed=7)
    assert smc.method == "smc" and exact.method == "exact"
    for t in range(exact.steps + 1):
        goals_e, goals_s = exact.goal_posterior(t), smc.goal_posterior(t)
        assert max(abs(goals_e[g] - goals_s[g]) for g in goals_e) < 0.04, t
        e, s = _pair_posterior_exact(exact, t, 3), _pair_posterior_smc(smc, t)
        assert 0.5 * sum(abs(e.get(key, 0.0) - s.get(key, 0.0)) for key in set(e) | set(s)) < 0.1, t


def test_particles_follow_evidence_that_turns():
    """Non-planning model on two-doors under the paper's conventions: by t = 4 the exact
    goal posterior is gem3 (> 0.999), then the walk turns it to gem2 (0.67 at t = 9, 0.99
    at t = 13). Particles that all hold gem3 keep equal weights, so the ESS never calls for
    resampling; periodic moves bring gem2 back. Within 0.1 of exact at every step after
    the turn (without them SMC said gem2 0.000 to the end)."""
    scenario = load_scenario("two-doors")
    exact = infer(scenario, model="non-planning", conventions="paper")
    smc = infer(scenario, model="non-planning", conventions="paper", inference="smc", particles=3000, seed=2)
    for t in range(exact.steps + 1):
        assert abs(exact.goal_posterior(t)["gem2"] - smc.goal_posterior(t)["gem2"]) < 0.1, t


def test_smc_scores_within_their_standard_errors():
    """L of two-doors' statements at every judgment point, with 4,000 particles: within 4
    reported standard errors of exact, plus 0.01 for what the estimator leaves out (the
    correlation resampling leaves between particles)."""
    scenario = load_scenario("two-doors")
    exact = infer(scenario)
    smc = infer(scenario, inference="smc", particles=4000, seed=11)
    formulas = [(st_.text, st_.mode) for st_ in scenario.statements if st_.text.startswith("believes(")]
    assert len(formulas) >= 4
    for formula, mode in formulas:
        for t in scenario.judgments:
            a = score(exact, formula, t, mode)
            b = score(smc, formula, t, mode)
            assert a.stderr is None and b.stderr is not None
            assert abs(a.normalized_likelihood - b.normalized_likelihood) <= 4 * b.stderr + 0.01, (formula, t)


def test_same_seed_same_result_other_seed_another():
    scenario = load_scenario("two-doors")
    a = infer(scenario, inference="smc", particles=300, seed=5)
    b = infer(scenario, inference="smc", particles=300, seed=5)
    c = infer(scenario, inference="smc", particles=300, seed=6)
    for pa, pb in zip(a.particles_by_step, b.particles_by_step):
        np.testing.assert_array_equal(pa.beliefs, pb.beliefs)
        np.testing.assert_array_equal(pa.logw, pb.logw)
    np.testing.assert_array_equal(a.ess, b.ess)
    assert any(not np.array_equal(pa.beliefs, pc.beliefs) for pa, pc in zip(a.particles_by_step, c.particles_by_step))


def test_reference_kernels_give_the_same_run():
    """The whole filter on the NumPy reference backend follows the compiled one."""
    scenario = load_scenario("two-doors")
    a = infer(scenario, inference="smc", particles=200, seed=2)
    b = infer(scenario, inference="smc", particles=200, seed=2, backend="reference")
    np.testing.assert_allclose(a.ess, b.ess, rtol=1e-9)
    for t in range(a.steps + 1):
        ga, gb = a.goal_posterior(t), b.goal_posterior(t)
        assert all(abs(ga[g] - gb[g]) < 1e-9 for g in ga)


def _distinct(result, t):
    p = result.particles_by_step[t]
    key = np.concatenate([p.goal[:, None], p.state[:, None], np.sort(p.beliefs, axis=1)], axis=1)
    return len(np.unique(key, axis=0))


def test_rejuvenation_keeps_particles_apart(labtom):
    """Plan 2_1: at the end the exact posterior over the agent's initial belief has a
    perplexity (its effective number of beliefs) of about 33. Resampling copies particles,
    so after it the ESS of the weights says nothing about collapse; what does is how many
    *distinct* beliefs the particles hold. With 300 particles resampled whenever the ESS
    falls below 0.9 N, plain resampling (no moves) ends with fewer than half that number;
    with rejuvenation the particles cover at least 0.9 of it."""
    scenario = load_dataset_plan(labtom, "2_1")
    exact = infer(scenario)
    beliefs = exact.pair_posterior(exact.steps).sum(axis=0)
    held = beliefs[beliefs > 0]
    perplexity = float(np.exp(-(held * np.log(held)).sum()))
    n = 300
    plain = run_filter(ParticleFilter(scenario, particles=n, seed=3, moves=0, ess_threshold=0.9, islands=1), scenario)
    moved = run_filter(ParticleFilter(scenario, particles=n, seed=3, ess_threshold=0.9, islands=1), scenario)

    def distinct_beliefs(result):
        return len(np.unique(np.sort(result.particles_by_step[-1].beliefs, axis=1), axis=0))

    assert plain.resampled.sum() >= 4 and moved.resampled.sum() >= 4
    assert distinct_beliefs(plain) < 0.5 * perplexity
    assert distinct_beliefs(moved) > 0.9 * perplexity
    assert moved.distinct[-1] == _distinct(moved, moved.steps)
    assert np.nanmin(moved.acceptance) > 0.2


# -- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize("particles", [0, -3, 2.5, True])
def test_bad_particle_counts(particles):
    with pytest.raises(ParticleError, match="number of particles"):
        infer(load_scenario("two-doors"), inference="smc", particles=particles)


def test_unknown_method():
    with pytest.raises(InferenceMethodError, match="nonsense") as error:
        infer(load_scenario("two-doors"), inference="nonsense")
    assert "exact, smc, auto" in error.value.hint


#: two-doors with a yellow key hidden in box 1: no goal needs yellow, so no initial state of
#: the hypothesis space has one there, and opening box 1 rules every state out.
SURPRISE = """name: yellow-surprise
goal: gem2
colours: red, blue, yellow
map:
  gWWWgWWWg
  RWWWBWWWR
  .........
  .WWW.WWW.
  U.rh...O.
actions:
  left x2, open box1
"""


def test_losing_every_particle_is_explained():
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    with pytest.raises(ParticleError) as error:
        infer(parse_scn_text(SURPRISE, "surprise.scn"), inference="smc", particles=100, seed=1)
    assert "no hypothesis explains the observations up to action 3 (open box1)" in error.value.message
    assert "--hidden-keys" in error.value.hint


def test_lost_particles_are_drawn_again_from_the_prior():
    """Under true-belief (belief = true state) one particle dies when box2 is opened in
    another state than its own; the filter draws the particles again from the prior among
    the live states, weighted by the whole history, and goes on."""
    scenario = load_scenario("two-doors")
    result = infer(scenario, model="true-belief", inference="smc", particles=1, seed=0)
    assert result.restarts == 1
    assert result.live[-1][result.particles_by_step[-1].state].all()
    exact = infer(scenario, model="true-belief")
    many = infer(scenario, model="true-belief", inference="smc", particles=2000, seed=0)
    assert abs(many.goal_posterior(many.steps)["gem2"] - exact.goal_posterior(exact.steps)["gem2"]) < 0.02


def test_refused_exact_points_at_particles():
    from elot.errors import ScenarioError

    with pytest.raises(ScenarioError, match="hypothesis space is too large") as error:
        infer(load_scenario("two-doors"), max_hypotheses=100)
    assert "refused for exact enumeration; use `--inference smc`" in error.value.message


def test_auto_chooses_and_says_so():
    scenario = load_scenario("two-doors")
    small = infer(scenario, inference="auto")
    big = infer(scenario, inference="auto", max_hypotheses=100, particles=200, seed=1)
    assert small.method == "exact" and "auto: exact" in small.note
    assert big.method == "smc" and "auto: smc (240 hypotheses are over the budget of 100)" in big.note


def test_auto_falls_back_on_memory():
    """A space within the hypothesis budget whose exact inference would not fit the memory
    budget runs particles under auto, saying why, where exact refuses it on memory."""
    scenario = load_scenario("two-doors")
    with pytest.raises(ScenarioError, match="memory budget"):
        infer(scenario, max_hypotheses=10**6, max_bytes=20_000)
    result = infer(scenario, inference="auto", max_hypotheses=10**6, max_bytes=20_000, particles=200, seed=1)
    assert result.method == "smc"
    assert "auto: smc (240 hypotheses would need about" in result.note
    assert "over the memory budget of 19.5 KiB" in result.note
    assert infer(scenario, inference="auto", max_bytes=10**9).method == "exact"


def test_observations_redraw_ruled_out_states():
    """Under the full model a particle whose true state is ruled out draws another live
    one: a single particle survives opening box2, in the state seen there."""
    scenario = load_scenario("two-doors")
    for seed in range(10):
        result = infer(scenario, inference="smc", particles=1, seed=seed)
        assert np.isfinite(result.particles_by_step[-1].logw).all()
        assert result.live[-1][result.particles_by_step[-1].state].all()


def test_cli_reports_lost_particles(tmp_path):
    path = tmp_path / "surprise.scn"
    path.write_text(SURPRISE, encoding="utf-8")
    r = run_elot("run", str(path), "--inference", "smc", "--seed", "0", env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "no hypothesis explains the observations up to action 3 (open box1)" in r.stderr


def test_repl_session_runs_particles():
    from elot.session import Session

    session = Session.open("two-doors")
    session.set_method("smc")
    session.set_particles("300")
    session.set_seed("1")
    row = session.score("believes(player, formula(empty(box1)))", t=3)
    assert session.run().inference.method == "smc" and session.run().inference.n_particles == 300
    assert row.stderr is not None and row.ess == pytest.approx(session.run().inference.ess[3])
    with pytest.raises(ElotError, match="particles must be a whole number"):
        session.set_particles("0")


def test_batch_tables_carry_particle_columns(tmp_path):
    from elot.study.batch import batch
    from elot.engine.settings import InferenceSettings
    from elot.study.references import refs_of
    from elot.study.tables import ALL_COLUMNS, PARTICLE_COLUMNS, read_table
    from elot.study.tasks import Grid, plan_tasks

    refs = refs_of(["two-doors"])
    exact_only = plan_tasks(refs)
    mixed = plan_tasks(refs, Grid(methods=("exact", "smc"), inference=InferenceSettings(particles=300, seed=4)))
    batch(exact_only, tmp_path / "exact.csv")
    batch(mixed, tmp_path / "mixed.csv")
    assert list(read_table(tmp_path / "exact.csv")[0]) == list(ALL_COLUMNS)
    rows = read_table(tmp_path / "mixed.csv")
    assert list(rows[0]) == list(ALL_COLUMNS + PARTICLE_COLUMNS)
    smc = [r for r in rows if r["inference"] == "smc"]
    exact = [r for r in rows if r["inference"] == "exact"]
    assert len(smc) == len(exact) > 0
    assert all(r["particles"] == "300" and r["seed"] == "4" and float(r["ess"]) > 0 for r in smc)
    assert all(r["L_se"] != "" for r in smc if r["L"] != "") and all(r["L_se"] == "" for r in exact)
    # the exact rows are those of the exact-only table
    assert [r["L"] for r in exact] == [r["L"] for r in read_table(tmp_path / "exact.csv")]


def test_cli_bad_inference_options():
    for args, message in ((["--particles", "0"], "particles"), (["--inference", "nonsense"], "nonsense")):
        r = run_elot("run", "two-doors", *args, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
        assert r.returncode == 2, r.stderr
        assert message in r.stderr and "Traceback" not in r.stderr


def test_cli_run_prints_the_particle_header_and_scores():
    """`elot run --inference smc` printed nothing: the header read the prior family of an
    exact space, which a particle space lacked."""
    done = run_elot("run", "two-doors", "--inference", "smc", "--particles", "300", "--seed", "1",
                    "-s", "believes(player, formula(empty(box1)))")
    assert done.returncode == 0, done.stderr
    assert "inference: smc, 300 particles, seed 1" in done.stdout and "±" in done.stdout


@pytest.mark.dataset
def test_true_belief_states_follow_the_evidence_of_every_goal(labtom):
    """Plan 3_2 under true-belief: with every particle on a goal that explains two states
    equally, a state move judged under that goal alone left them 0.51 / 0.49 where exact
    gives 0.97 / 0.03 (another goal tells them apart). The state is drawn with the goal
    summed out."""
    from elot.domains.doors_keys_gems.dataset import load_dataset_plan as load

    scenario = load(labtom, "3_2", exp="exp1")
    exact = infer(scenario, model="true-belief")
    particles = infer(scenario, model="true-belief", inference="smc", particles=10_000, seed=1)
    for t in range(exact.steps + 1):
        assert np.abs(np.asarray(particles.state_posterior(t)) - np.asarray(exact.state_posterior(t))).max() < 0.05, t


@pytest.mark.parametrize("model", ["full", "non-planning", "true-belief"])
def test_incremental_history_equals_the_history_from_scratch(model):
    """The per-goal history log-likelihoods the filter keeps step by step (and the rows
    rejuvenation leaves as they were) equal history_loglik over the whole history, bit for
    bit, for every particle and goal: what lets the Gibbs pass re-score only the particles
    a move changed."""
    from elot.domains.doors_keys_gems.particles import ParticleFilter

    scenario = load_scenario("two-doors")
    filt = ParticleFilter(scenario, model=model, particles=300, seed=4)
    run_filter(filt, scenario)
    assert filt.resampled.count(True) >= 1
    p = filt.current
    scratch = np.stack([filt.kernels.history_loglik(*filt._tables(), np.full(len(p.goal), g, np.int32), p.state,
                                                    p.beliefs) for g in range(filt.space.n_goals)], axis=1)
    np.testing.assert_array_equal(filt.hist_goals, scratch)


@pytest.mark.dataset
def test_incremental_history_after_changed_factor_moves(labtom):
    """On a plan whose states die early, belief moves read only the steps where the old and
    new beliefs differ (history_change): the histories kept then equal the histories from
    scratch up to rounding (the terms are added in another order)."""
    from elot.domains.doors_keys_gems.dataset import load_dataset_plan
    from elot.domains.doors_keys_gems.particles import ParticleFilter

    scenario = load_dataset_plan(labtom, "2_1")
    filt = ParticleFilter(scenario, particles=500, seed=3)
    run_filter(filt, scenario)
    assert filt.resampled.count(True) >= 2
    p = filt.current
    scratch = np.stack([filt.kernels.history_loglik(*filt._tables(), np.full(len(p.goal), g, np.int32), p.state,
                                                    p.beliefs) for g in range(filt.space.n_goals)], axis=1)
    assert np.array_equal(np.isfinite(filt.hist_goals), np.isfinite(scratch))
    finite = np.isfinite(scratch)
    np.testing.assert_allclose(filt.hist_goals[finite], scratch[finite], rtol=0, atol=1e-9)


@pytest.mark.dataset
def test_pooled_ess_counts_copies_once_and_warns_when_the_ess_looks_too_good(labtom):
    """After resampling, copies of one hypothesis carry equal weights, so Kish's ESS reads
    N while the particles may hold a handful of hypotheses; ess_distinct pools them, and a
    run whose pooled ESS is low while the ESS looks fine says the filter may have
    degenerated (no moves and resampling at every step: nothing spreads the copies out)."""
    from elot.domains.doors_keys_gems.dataset import load_dataset_plan
    from elot.domains.doors_keys_gems.particles import ParticleFilter

    scenario = load_dataset_plan(labtom, "2_1")   # 5,940 hypotheses for 400 particles
    healthy = infer(scenario, inference="smc", particles=400, seed=2)
    filt = ParticleFilter(scenario, particles=400, seed=2, moves=0, ess_threshold=1.0)
    stuck = run_filter(filt, scenario)
    for result in (healthy, stuck):
        assert (result.ess_distinct <= result.ess + 1e-9).all()
    times = list(range(stuck.steps + 1))
    assert not any(healthy.degenerate(t) for t in times) and "warning" not in healthy.describe(times)
    low = [t for t in times if stuck.degenerate(t)]
    described = stuck.describe(times)
    assert low and "warning: the filter may have degenerated" in described and "few distinct hypotheses" in described


@pytest.mark.dataset
def test_a_handful_of_particles_is_never_reported_without_a_warning(labtom):
    """5 particles over 5,940 hypotheses: all distinct, so the pooled ESS equals the ESS
    and the copy rule says nothing; the small ESS itself is the warning (an outside
    check found L = 0.00 ± 0.09 where 10^6 particles give 0.43, with no warning)."""
    from elot.domains.doors_keys_gems.dataset import load_dataset_plan

    scenario = load_dataset_plan(labtom, "2_1")
    few = infer(scenario, inference="smc", particles=5, seed=4)
    times = list(range(few.steps + 1))
    assert all(few.warnings(t) for t in times)
    assert "effective sample size of" in few.describe(times) and "give more --particles" in few.describe(times)
    enough = infer(scenario, inference="smc", particles=400, seed=4)
    assert not any(enough.warnings(t) for t in times)
