"""Particle inference in the engine for tabular domains (elot.engine.tables.sampling and
smc): sequential Monte Carlo from draws of the prior, checked against exact inversion on the
coffee-shop example domain and on the food-truck experiment's scenarios (skipped without
../shared/baker2017); the budget's choice under auto; a desire space too large for exact;
the command line. The kernel's parts (the step, resampling, the moves) are tested in
test_engine_smc.py.

Agreement is asserted within a bound that shrinks with the particles: ``5 sqrt(Var / ESS)``
for each posterior mean, ``Var`` the exact posterior variance of the quantity. The seeds
are fixed, so each assertion is deterministic, and none sits at a rounding-noise edge.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from elot.cli import main
from elot.engine import (BudgetError, Case, DesireSpace, Engine, EngineConfig, PathResult, SampledResult,
                         load_domain)
from elot.engine.tables.sampling import Draws, inverse_cdf
from elot.errors import ArgumentError

REPO = Path(__file__).resolve().parent.parent
SHOP = REPO / "examples" / "domains" / "coffee_shop.py"
PEEK = REPO / "examples" / "domains" / "coffee_peek.json"
PEEK_PATH = (2, 3, 3, 2, 1, 0, 5)
UNKNOWN = Case("corridor", PEEK_PATH, None)        # the observer does not know whether the shop is open


def shop():
    return load_domain(str(SHOP))


def run(case=UNKNOWN, domain=None, **config):
    [[result]] = Engine(domain or shop(), EngineConfig(**config)).run([case])
    return result


def within_bound(exact: PathResult, sampled: SampledResult, values: np.ndarray | None = None):
    """|sampled - exact| of the posterior means of the utilities and of the initial belief
    (the domain's outputs) and of the world posterior, and the 5-sigma bound each must stay
    within (from the exact posterior variance of the quantity and the particles' ESS)."""
    table = np.asarray(exact.desire_space.utilities if values is None else values, dtype=np.float64)
    mean_u, mean_b, worlds = exact.mean_utility(table), exact.mean_belief(), exact.world_posterior()
    checks = [(np.abs(sampled.mean_utility(table) - mean_u), exact.desire_posterior() @ (table - mean_u) ** 2),
              (np.abs(sampled.mean_belief() - mean_b), exact.belief_posterior() @ (exact.beliefs - mean_b) ** 2),
              (np.abs(sampled.world_posterior() - worlds), worlds * (1 - worlds))]
    return [(error, 5 * np.sqrt(v / sampled.ess) + 1e-12) for error, v in checks]


# -- the config ----------------------------------------------------------------------------------

@pytest.mark.parametrize("change, message", [
    ({"method": "mcmc"}, "unknown inference method"), ({"particles": 0}, "particles"),
    ({"particles": True}, "particles"), ({"seed": -1}, "seed")])
def test_a_bad_sampling_setting_is_an_argument_error(change, message):
    with pytest.raises(ArgumentError, match=message):
        EngineConfig(**change)


def test_a_seed_is_drawn_when_none_is_given_and_reported():
    first = run(method="smc", particles=200)
    assert isinstance(first.config.seed, int) and first.config.method == "smc"
    again = run(method="smc", particles=200, seed=first.config.seed)
    assert np.array_equal(first.likelihood, again.likelihood)
    assert np.array_equal(first.desire_of, again.desire_of)


# -- agreement with exact ------------------------------------------------------------------------

@pytest.mark.parametrize("case", [UNKNOWN, Case("corridor", PEEK_PATH, 1), Case("corridor", (2, 1, 0, 5), None)])
def test_particle_estimates_agree_with_exact_within_a_bound_that_shrinks_with_n(case):
    exact = run(case)
    bounds = {}
    for n, seed in ((300, 11), (30_000, 12)):
        sampled = run(case, method="smc", particles=n, seed=seed)
        assert sampled.ess > n / 20                      # the prior explains this path well enough
        for error, bound in within_bound(exact, sampled):
            assert np.all(error <= bound), (n, error, bound)
        bounds[n] = within_bound(exact, sampled)
    # the bound itself shrinks as 1/sqrt(ESS): a hundred times the particles, about a tenth
    for (_, small), (_, large) in zip(bounds[300], bounds[30_000]):
        assert np.all(large <= small / 4 + 1e-12)


def test_the_same_seed_gives_the_same_result_and_another_seed_another():
    one, same = (run(method="smc", particles=500, seed=7) for _ in range(2))
    other = run(method="smc", particles=500, seed=8)
    assert np.array_equal(one.likelihood, same.likelihood) and np.array_equal(one.mean_utility(), same.mean_utility())
    assert not np.array_equal(one.desire_of, other.desire_of)


def test_each_particle_carries_the_exact_likelihood_of_its_hypothesis():
    exact = run()
    sampled = run(method="smc", particles=400, seed=3)
    assert sampled.resampled.any()
    want = exact.likelihood[sampled.world_of, sampled.belief_of, sampled.desire_of]
    assert np.allclose(sampled.likelihood, want, rtol=1e-12, atol=0)


def test_without_resampling_the_particles_are_importance_sampling_from_the_prior():
    """ess_threshold 0: the particles stay the draws' worlds and beliefs, each weighted by the
    likelihood of the whole path with the desire summed out over the planned desires; each
    draw keeps its own likelihood (what importance sampling of the whole hypothesis weighs by)."""
    exact = run()
    plain = run(method="smc", particles=400, seed=3, ess_threshold=0.0, moves=0)
    assert not plain.resampled.any() and np.all(plain.moved == -1)
    world, belief, desire = plain.drawn
    assert np.array_equal(plain.world_of, world) and np.array_equal(plain.belief_of, belief)
    prior = exact.desire_space.prior[plain.pooled]
    want = exact.likelihood[world, belief][:, plain.pooled] @ prior
    assert np.allclose(plain.weight / plain.weight.max(), want / want.max(), rtol=1e-12, atol=0)
    assert np.allclose(plain.drawn_likelihood, exact.likelihood[world, belief, desire], rtol=1e-12, atol=0)


def test_only_the_distinct_desires_drawn_are_planned():
    engine = Engine(shop(), EngineConfig(method="smc", particles=5, seed=1))
    [[result]] = engine.run([UNKNOWN])
    distinct = np.unique(result.drawn[2])
    assert np.array_equal(result.pooled, distinct) and np.isin(result.desire_of, distinct).all()
    assert result.planned == len(distinct) < len(result.desire_space.utilities)
    [solved] = engine._plans.values()
    assert solved.q.shape[1] == len(distinct)


def test_a_prefix_of_a_path_runs_the_first_steps_of_the_whole_path():
    """Results at successive times agree: the run on the path's first t steps starts from the
    same draws and takes the same steps (the same ESS at each, resampled at the same ones)
    as the run on the whole path up to t, and its particles are the whole run's at t."""
    engine = Engine(shop(), EngineConfig(method="smc", particles=300, seed=5, ess_threshold=0.9))
    late = engine.run([UNKNOWN])[0][0]
    assert late.resampled.sum() >= 2
    for t in range(len(PEEK_PATH)):
        [[early]] = engine.run([Case("corridor", PEEK_PATH[:t + 1], None)])
        assert np.array_equal(early.steps_ess, late.steps_ess[:t + 1])
        assert np.array_equal(early.resampled, late.resampled[:t + 1])
        assert all(np.array_equal(a, b) for a, b in zip(early.drawn, late.drawn))
    assert np.array_equal(early.weight, late.weight) and np.array_equal(early.desire_of, late.desire_of)
    assert len(engine._plans) == 1


def test_true_belief_particles_believe_their_own_world():
    result = run(method="smc", particles=200, seed=2, true_belief=True)
    assert np.array_equal(result.belief_of, np.asarray(result.worlds)[result.world_of])
    exact = run(true_belief=True)
    for error, bound in within_bound(exact, result):
        assert np.all(error <= bound)


def test_a_path_no_particle_explains_has_no_posterior():
    result = run(Case("corridor", (4, 5), 1), method="smc", particles=50, seed=1)   # buys at a closed shop
    assert not result.possible and result.ess == 0 and not result.weights().any()
    assert result.rows().ess is None                   # no estimate to give an error to


@given(st.lists(st.floats(0, 1), min_size=1, max_size=6), st.lists(st.floats(0, 0.999999), min_size=1, max_size=20))
def test_the_inverse_cdf_never_draws_an_entry_of_no_prior_mass(prior, uniforms):
    prior = np.asarray(prior)
    if prior.sum() <= 0:
        prior = np.ones(len(prior))
    drawn = inverse_cdf(prior, np.asarray(uniforms))
    assert np.all((drawn >= 0) & (drawn < len(prior))) and np.all(prior[drawn] > 0)


def test_draws_follow_the_prior():
    space = DesireSpace(("a",), np.arange(4.0)[:, None], np.array([0.1, 0.0, 0.6, 0.3]))
    draws = Draws.of(0, 20_000, space)
    share = np.bincount(draws.desire_of, minlength=4) / 20_000
    assert share[1] == 0 and np.allclose(share, space.prior, atol=0.02)


# -- the budget: too large for exact, auto ---------------------------------------------------------

class Connoisseur:
    """The coffee shop with 300 utility levels for each drink: 90,000 utility vectors."""

    def __init__(self):
        self.base = shop()
        self.name, self.default_planner = self.base.name, self.base.default_planner

    def __getattr__(self, name):
        return getattr(self.base, name)

    def desires(self):
        levels = np.linspace(0.0, 30.0, 300)
        utilities = np.array(np.meshgrid(levels, levels, indexing="ij")).reshape(2, -1).T
        return DesireSpace(("coffee", "soda"), utilities, np.full(len(utilities), 1 / len(utilities)))


LIMIT = 64 * 2**20


def test_a_desire_space_too_large_for_exact_is_refused_with_its_estimate():
    engine = Engine(Connoisseur(), EngineConfig(memory_limit=LIMIT))
    with pytest.raises(BudgetError) as raised:
        engine.run([UNKNOWN])
    message = str(raised.value)
    assert "90,000 utility vectors" in message and "refused before any work" in message
    assert "smc" in raised.value.hint
    assert not engine._plans


def test_the_same_space_runs_under_smc_planning_only_what_was_drawn():
    result = run(domain=Connoisseur(), method="smc", particles=400, seed=1, memory_limit=LIMIT)
    assert isinstance(result, SampledResult) and result.planned <= 400 and result.possible
    coffee, soda = result.mean_utility()
    assert coffee > soda                                # it went to look: it hoped for coffee


def test_smc_is_refused_on_the_distinct_count_when_that_is_over_too():
    with pytest.raises(BudgetError, match="distinct utility vectors drawn by 20,000 particles") as raised:
        run(domain=Connoisseur(), method="smc", particles=20_000, seed=1, memory_limit=LIMIT)
    assert "fewer particles" in raised.value.hint


def test_auto_runs_particles_where_exact_is_over_the_budget_and_says_why():
    result = run(domain=Connoisseur(), method="auto", particles=300, seed=4, memory_limit=LIMIT)
    assert isinstance(result, SampledResult) and result.config.method == "smc" and result.config.seed == 4
    assert result.note.startswith("auto: smc") and "90,000 utility vectors" in result.note
    assert result.describe()["note"] == result.note


def test_auto_runs_exact_where_it_fits_and_gives_the_exact_result():
    auto = run(method="auto", memory_limit=LIMIT)
    exact = run()
    assert isinstance(auto, PathResult) and auto.config.method == "exact" and auto.config.seed is None
    assert auto.note.startswith("auto: exact")
    assert np.array_equal(auto.likelihood, exact.likelihood)


def test_auto_follows_the_budget_it_is_given():
    need = Engine(shop(), EngineConfig(method="smc", particles=5, seed=1))._need([UNKNOWN], "smc", 1).bytes
    small = run(method="auto", memory_limit=need + 8 * 2**10, particles=5, seed=1)   # particles fit, exact does not
    assert small.config.method == "smc"
    assert run(method="auto", memory_limit=100 * need).config.method == "exact"


# -- statements --------------------------------------------------------------------------------------

def test_statements_scored_on_particles_carry_standard_errors_and_agree_with_exact():
    from elot.domains.registry import front_for
    from elot.engine.settings import InferenceSettings
    from elot.judging import score
    from elot.statements import compile_statement

    front = front_for(str(SHOP))
    episode = front.episode(str(PEEK))
    exact = front.run(episode, front.settings())
    sampled = front.run(episode, front.settings(inference=InferenceSettings("smc", particles=4000, seed=9)))
    formula = compile_statement("believes(visitor, likely(open(shop)))", exact.signature)
    want = score(formula, exact.initial_hypotheses(6))
    got = score(formula, sampled.initial_hypotheses(6))
    assert want.stderr is None and got.stderr is not None and got.stderr > 0
    assert abs(got.normalized_likelihood - want.normalized_likelihood) <= 5 * got.stderr
    assert sampled.initial_hypotheses(6).prior_draws == 4000


# -- the command line ---------------------------------------------------------------------------------

def elot(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_reports_the_method_particles_and_seed_that_ran(capsys):
    code, out, err = elot(capsys, "run", "--domain", SHOP, PEEK, "--mode", "initial", "--json", "-",
                          "-s", "believes(visitor, likely(open(shop)))", "--inference", "smc", "--particles", "700")
    assert code == 0, err
    data = json.loads(out)
    ran = data["ran"]
    assert ran["config"]["method"] == "smc" and ran["config"]["particles"] == 700 and ran["particles"] == 700
    seed = ran["config"]["seed"]
    assert isinstance(seed, int) and 0 < ran["ess"] <= 700
    assert ran["config"]["ess_threshold"] == 0.5 and ran["config"]["moves"] == 1
    [statement] = data["judgments"][0]["statements"]
    assert statement["L_stderr"] > 0
    # the seed reported reruns the same particles
    code, again, err = elot(capsys, "run", "--domain", SHOP, PEEK, "--mode", "initial", "--json", "-",
                            "-s", "believes(visitor, likely(open(shop)))", "--inference", "smc", "--particles", "700",
                            "--seed", seed)
    assert json.loads(again)["outputs"] == data["outputs"]


def test_auto_on_the_command_line_follows_max_memory(capsys):
    code, out, err = elot(capsys, "run", "--domain", SHOP, PEEK, "--json", "-", "--inference", "auto",
                          "--max-memory", "100K", "--particles", "5", "--seed", "1")
    assert code == 0, err
    ran = json.loads(out)["ran"]
    assert ran["config"]["method"] == "smc" and ran["note"].startswith("auto: smc")
    code, out, err = elot(capsys, "run", "--domain", SHOP, PEEK, "--json", "-", "--inference", "auto")
    assert json.loads(out)["ran"]["config"]["method"] == "exact"


def test_the_printed_run_says_it_sampled(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")    # messages on one line each
    code, out, err = elot(capsys, "run", "--domain", SHOP, PEEK, "--mode", "initial", "--inference", "smc",
                          "--particles", "300", "--seed", "2", "-s", "believes(visitor, likely(open(shop)))")
    assert code == 0, err
    assert "300 particles (seed 2)" in out and "effective sample size" in out and " ± " in out


@pytest.mark.parametrize("argv, option", [
    (("--particles", "50"), "--particles"), (("--seed", "3"), "--seed"),
    (("--inference", "exact", "--seed", "3"), "--seed")])
def test_sampling_options_on_an_exact_run_are_refused_by_name(capsys, argv, option):
    code, _, err = elot(capsys, "run", "--domain", SHOP, PEEK, *argv)
    assert code != 0 and f"{option} is a setting of particle inference" in err and "Traceback" not in err


@pytest.fixture
def connoisseur_file(tmp_path) -> Path:
    """:class:`Connoisseur` as a domain file the command line loads."""
    path = tmp_path / "connoisseur.py"
    path.write_text(SHOP.read_text() + "\n\nclass Connoisseur(CoffeeShop):\n    def desires(self):\n"
                    "        levels = np.linspace(0.0, 30.0, 300)\n"
                    "        u = np.array(list(itertools.product(levels, levels)))\n"
                    "        return DesireSpace(('coffee', 'soda'), u, np.full(len(u), 1 / len(u)))\n\n"
                    "domain = Connoisseur()\n")
    return path


def test_a_domain_too_large_for_exact_is_refused_on_the_command_line_and_runs_with_smc(capsys, connoisseur_file):
    path = connoisseur_file
    code, _, err = elot(capsys, "run", "--domain", path, PEEK, "--max-memory", "64M")
    assert code != 0 and "90,000 utility vectors" in err and "refused before any work" in err
    assert "Traceback" not in err
    code, out, err = elot(capsys, "run", "--domain", path, PEEK, "--max-memory", "64M", "--inference", "auto",
                          "--particles", "200", "--seed", "1", "--json", "-")
    assert code == 0, err
    assert json.loads(out)["ran"]["config"]["method"] == "smc"


def test_batch_fills_the_particle_columns(capsys, tmp_path):
    table = tmp_path / "table.csv"
    code, _, err = elot(capsys, "batch", "--domain", SHOP, PEEK, "-s", "believes(visitor, likely(open(shop)))",
                        "--initial", "--inference", "exact,smc", "--particles", "500", "--seed", "4", "-o", table)
    assert code == 0, err
    import csv

    exact, sampled = sorted(csv.DictReader(table.open()), key=lambda row: row["inference"])
    assert exact["inference"] == "exact" and exact["L_se"] == "" and exact["seed"] == ""
    assert sampled["inference"] == "smc" and sampled["particles"] == "500" and sampled["seed"] == "4"
    assert float(sampled["ess"]) > 0 and float(sampled["L_se"]) > 0
    assert abs(float(sampled["L"]) - float(exact["L"])) <= 5 * float(sampled["L_se"])


def test_batch_refuses_a_seed_for_exact_tasks(capsys, tmp_path):
    code, _, err = elot(capsys, "batch", "--domain", SHOP, PEEK, "-s", "open(shop)", "--seed", "3",
                        "-o", tmp_path / "t.csv")
    assert code != 0 and "--seed is a setting of particle inference" in err


# -- food trucks -------------------------------------------------------------------------------------

def test_particles_agree_with_exact_on_food_truck_scenarios(baker2017):
    from elot.domains.foodtrucks.domain import FoodTrucks
    from elot.domains.foodtrucks.domain import levels
    from elot.domains.foodtrucks.scenarios import read_scenarios

    scenarios = read_scenarios(baker2017 / "scenarios.json")[:12]
    cases = [Case(s.map, s.states, s.world, f"scenario {s.id}") for s in scenarios]
    exact = Engine(FoodTrucks()).run(cases)[0]
    for n, seed in ((300, 3), (2000, 1), (20_000, 2)):
        sampled = Engine(FoodTrucks(), EngineConfig(method="smc", particles=n, seed=seed)).run(cases)[0]
        # the ESS counts what a pool of 300 particles' desires leaves out (about half of
        # the 343): small on a surprising path, but a bound that holds
        assert min(got.ess for got in sampled) > (5 if n == 300 else n / 4)
        for want, got in zip(exact, sampled):
            table = levels(want.desire_space.utilities)
            for error, bound in within_bound(want, got, table):
                assert np.all(error <= bound), (n, error, bound)
            assert np.allclose(got.mean_belief(), got.belief_posterior() @ got.beliefs)


def test_a_food_truck_scenario_runs_with_particles_from_the_command_line(capsys, baker2017):
    code, out, err = elot(capsys, "run", "foodtrucks:1", "--data", baker2017, "--inference", "smc",
                          "--particles", "300", "--seed", "1", "--json", "-")
    assert code == 0, err
    data = json.loads(out)
    assert data["ran"]["config"]["method"] == "smc" and data["ran"]["particles"] == 300
    assert {o["judgment"] for o in data["outputs"]} == {"desire", "belief"}


def test_repl_on_particles_shows_standard_errors_and_the_ess(capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("believes(visitor, likely(open(shop)))\n"))
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = elot(capsys, "repl", "--domain", SHOP, PEEK, "--inference", "smc", "--particles", "300",
                          "--seed", "2")
    assert code == 0, out + err
    assert "normalized L = " in out and " ± " in out and "effective sample size" in out


def test_repl_refuses_a_space_too_large_before_the_prompt_and_opens_it_with_auto(capsys, monkeypatch,
                                                                                  connoisseur_file):
    import io

    path = connoisseur_file
    monkeypatch.setattr("sys.stdin", io.StringIO("open(shop)\n"))
    code, out, err = elot(capsys, "repl", "--domain", path, PEEK, "--max-memory", "64M")
    assert code != 0 and "refused before any work" in err and "Traceback" not in err
    monkeypatch.setattr("sys.stdin", io.StringIO("open(shop)\n"))
    code, out, err = elot(capsys, "repl", "--domain", path, PEEK, "--max-memory", "64M", "--inference", "auto",
                          "--particles", "200", "--seed", "1")
    assert code == 0, out + err
    assert "P = 0.000" in out            # the true world: closed


def test_repl_keeps_particle_inference_when_the_model_changes(capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(":model no-cost\nbelieves(visitor, likely(open(shop)))\n:load "
                                                 f"{PEEK}\n"))
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = elot(capsys, "repl", "--domain", SHOP, PEEK, "--inference", "smc", "--particles", "300",
                          "--seed", "2")
    assert code == 0, out + err
    after = out[out.index("no-cost"):]
    assert " ± " in after and "effective sample size" in after
    assert "inference smc (300 particles, seed 2)" in out


def test_csv_of_a_sampled_run_has_ls_standard_error_as_elot_run_names_it(capsys):
    code, out, err = elot(capsys, "run", "--domain", SHOP, PEEK, "--mode", "initial", "--csv", "-",
                          "-s", "believes(visitor, likely(open(shop)))", "--inference", "smc", "--particles", "700",
                          "--seed", "4")
    assert code == 0, err
    [row] = list(csv.DictReader(io.StringIO(out)))
    assert float(row["L_stderr"]) > 0
    code, out, err = elot(capsys, "run", "--domain", SHOP, PEEK, "--mode", "initial", "--csv", "-",
                          "-s", "believes(visitor, likely(open(shop)))")
    assert code == 0 and "L_stderr" not in out.splitlines()[0]       # exact: nothing estimated
