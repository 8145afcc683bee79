"""The engine over a domain it was not written for: the coffee-shop example domain
(examples/domains/coffee_shop.py), written only against the public protocol; the protocol's
errors; the budget; what a result reports."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from elot.engine import (BudgetError, Case, DesireSpace, DomainError, Engine, EngineConfig,
                         Tables)
from elot.errors import ArgumentError

REPO = Path(__file__).resolve().parent.parent


def load_example():
    path = REPO / "examples" / "domains" / "coffee_shop.py"
    spec = importlib.util.spec_from_file_location("coffee_shop_example", path)
    module = sys.modules["coffee_shop_example"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


coffee = load_example()
PEEK_THEN_SODA = (2, 3, 3, 2, 1, 0, coffee.DONE)   # looks at the sign (closed), goes back, buys soda
STRAIGHT_TO_SODA = (2, 1, 0, coffee.DONE)


def run_one(path, world=1, domain=None, **config):
    engine = Engine(domain or coffee.CoffeeShop(), EngineConfig(**config))
    [[result]] = engine.run([Case("corridor", path, world)])
    return engine, result


def test_a_detour_to_look_means_the_agent_hoped_for_coffee():
    _, peek = run_one(PEEK_THEN_SODA)
    _, straight = run_one(STRAIGHT_TO_SODA)
    coffee_first, soda_first = peek.mean_utility(), straight.mean_utility()
    assert coffee_first[0] > coffee_first[1]        # went to look: wants coffee more than soda
    assert soda_first[1] > soda_first[0]            # went straight to the machine
    assert peek.mean_belief()[0] > 0.6              # ... and thought the shop was probably open
    assert straight.mean_belief()[0] < peek.mean_belief()[0]


def test_compiled_and_numpy_kernels_give_the_same_posterior():
    for planner in ("belief-vi", "qmdp"):
        _, fast = run_one(PEEK_THEN_SODA, planner=planner)
        _, slow = run_one(PEEK_THEN_SODA, planner=planner, backend="reference")
        assert np.allclose(fast.likelihood, slow.likelihood, rtol=1e-10, atol=0)


def test_true_belief_likelihood_is_the_softmax_of_the_mdp_by_hand():
    # the agent knows the shop is closed; one step: buy soda at the machine from cell 0
    _, result = run_one((0, coffee.DONE), world=1, true_belief=True, beta=1.5, gamma=0.9, sweeps=30)
    tables = coffee.CoffeeShop().tables("corridor")
    utilities = result.desire_space.utilities
    for row, (u_coffee, u_soda) in enumerate(utilities):
        value = np.zeros(len(tables.states))
        for sweep in range(30):
            q = np.zeros((len(tables.states), len(tables.actions)))
            for s in range(len(tables.states)):
                for a in range(len(tables.actions)):
                    got = tables.outcomes[1, s, a]
                    reward = -tables.costs[a] + (0.0 if got < 0 else (u_coffee, u_soda)[got])
                    q[s, a] = reward + 0.9 * value[tables.transitions[1, s, a]]
            value = q.max(axis=1)
        odds = np.exp(1.5 * (q[0] - q[0].max()))
        assert result.likelihood[0, 0, row] == pytest.approx(odds[3] / odds.sum(), rel=1e-9)


def test_the_result_keeps_the_config_that_ran():
    engine, result = run_one(STRAIGHT_TO_SODA, beta=3.0)
    assert result.config.planner == "belief-vi"          # the domain's default, resolved
    assert result.describe()["config"]["beta"] == 3.0
    _, known = run_one(STRAIGHT_TO_SODA, true_belief=True)
    assert known.config.planner == "qmdp" and known.config.true_belief
    assert known.mean_belief().tolist() == [0.0, 1.0]


def test_one_plan_serves_every_beta():
    engine = Engine(coffee.CoffeeShop())
    runs = engine.run([Case("corridor", PEEK_THEN_SODA, 1)], betas=[0.5, 2.0, 8.0])
    assert [r[0].config.beta for r in runs] == [0.5, 2.0, 8.0]
    assert len(engine._plans) == 1 and len(engine.timings.evaluating) == 3
    assert not np.allclose(runs[0][0].likelihood, runs[2][0].likelihood)


def test_a_path_the_true_world_forbids_has_no_posterior():
    _, result = run_one((0, 3), world=1)            # a jump of three cells
    assert not result.possible
    assert result.posterior().sum() == 0


def test_desires_at_lines_up_with_the_posterior_rows():
    _, result = run_one(PEEK_THEN_SODA)
    objects, utilities = result.desires_at()
    assert objects == ("coffee", "soda")
    assert utilities.shape == (result.posterior().size, 2)
    assert np.allclose(result.posterior().reshape(-1) @ utilities, result.mean_utility())


# -- a domain that breaks the protocol ----------------------------------------------------

class Broken(coffee.CoffeeShop):
    name = "broken-shop"


def test_a_method_that_raises_is_named():
    class Raises(Broken):
        def tables(self, layout):
            raise KeyError(layout)

    with pytest.raises(DomainError, match=r"broken-shop\.tables raised KeyError"):
        run_one(STRAIGHT_TO_SODA, domain=Raises())


@pytest.mark.parametrize("field, bad, message", [
    ("transitions", lambda t: t[:, :3], "transitions has shape"),
    ("transitions", lambda t: t + 10, "state indices"),
    ("observations", lambda o: o * 2, "summing to 1"),
    ("outcomes", lambda o: o + 5, "object indices"),
])
def test_a_malformed_table_is_named(field, bad, message):
    class Malformed(Broken):
        def tables(self, layout):
            tables = super().tables(layout)
            return replace(tables, **{field: bad(getattr(tables, field))})

    with pytest.raises(DomainError, match=rf"broken-shop\.tables: .*{message}"):
        run_one(STRAIGHT_TO_SODA, domain=Malformed())


def test_a_prior_that_is_no_distribution_is_named():
    class BadPrior(Broken):
        def desires(self):
            space = super().desires()
            return DesireSpace(space.objects, space.utilities, space.prior * 2)

    with pytest.raises(DomainError, match=r"broken-shop\.desires: its prior"):
        run_one(STRAIGHT_TO_SODA, domain=BadPrior())


def test_a_wrong_return_type_is_named():
    class NotTables(Broken):
        def tables(self, layout):
            return {"states": []}

    with pytest.raises(DomainError, match=r"returned dict, not elot.engine.Tables"):
        run_one(STRAIGHT_TO_SODA, domain=NotTables())


def test_a_space_too_large_is_refused_before_any_work():
    engine = Engine(coffee.CoffeeShop(), EngineConfig(memory_limit=10_000))
    with pytest.raises(BudgetError, match=r"the run would need about .* KiB .*memory budget is 9.8 KiB: refused before any work") as caught:
        engine.run([Case("corridor", STRAIGHT_TO_SODA, 1)])
    assert caught.value.hint
    assert not engine._plans                         # nothing was planned


def test_the_estimate_grows_with_the_grid():
    small = Engine(coffee.CoffeeShop(), EngineConfig(grid=2)).estimate(["corridor"])
    large = Engine(coffee.CoffeeShop(), EngineConfig(grid=12)).estimate(["corridor"])
    assert large.bytes > small.bytes and large.size == 13 * 6 * 4


@pytest.mark.parametrize("change", [{"planner": "pomcp"}, {"beta": -1.0}, {"gamma": 1.5},
                                    {"sweeps": 0}, {"backend": "gpu"}])
def test_a_bad_config_is_an_argument_error(change):
    with pytest.raises(ArgumentError):
        EngineConfig(**change)


def test_tables_is_the_protocol_type():
    assert isinstance(coffee.CoffeeShop().tables("corridor"), Tables)


def test_an_unknown_world_is_part_of_each_hypothesis():
    engine = Engine(coffee.CoffeeShop())
    [[known_closed, known_open, unknown]] = engine.run(
        [Case("corridor", PEEK_THEN_SODA, 1), Case("corridor", PEEK_THEN_SODA, 0),
         Case("corridor", PEEK_THEN_SODA, None)])
    assert unknown.worlds == (0, 1) and unknown.world is None and known_closed.world == 1
    # each world's rows are that world's inversion
    assert np.allclose(unknown.likelihood[0], known_open.likelihood[0])
    assert np.allclose(unknown.likelihood[1], known_closed.likelihood[0])
    # it looked at the sign and turned back: the observer now thinks the shop is closed
    assert unknown.world_posterior()[1] > 0.5
    # with no world prior from the domain, each world has half the prior mass
    assert np.allclose(unknown.posterior()[1] / unknown.world_posterior()[1], known_closed.posterior()[0])


def test_a_domain_world_prior_weighs_the_worlds():
    class Pessimist(coffee.CoffeeShop):
        def world_prior(self, layout):
            return np.array([0.2, 0.8])

    straight = (2, 1, 0, coffee.DONE)   # never sees the sign: the path says little of the world
    [[result]] = Engine(Pessimist()).run([Case("corridor", straight, None)])
    assert result.world_prior.tolist() == [0.2, 0.8]
    ratio = result.world_posterior()[1] / result.world_posterior()[0]
    evidence = result.likelihood[1].sum() / result.likelihood[0].sum()
    assert ratio == pytest.approx(4.0 * evidence)


def test_true_belief_with_an_unknown_world_pairs_each_world_with_itself():
    [[result]] = Engine(coffee.CoffeeShop(), EngineConfig(true_belief=True)).run(
        [Case("corridor", STRAIGHT_TO_SODA, None)])
    assert result.belief_space.beliefs.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert result.likelihood[0, 1].max() == 0 and result.likelihood[1, 0].max() == 0
    assert result.likelihood[0, 0].max() > 0 and result.likelihood[1, 1].max() > 0


def test_the_budget_counts_the_results_of_every_beta():
    case = Case("corridor", STRAIGHT_TO_SODA, 1)
    hundred = Engine(coffee.CoffeeShop())._need([case], "exact", 100).bytes
    # enough for planning, the inversion and 100 betas, not for 10^4 betas' likelihood tables
    # (3 beliefs x 9 desires each)
    engine = Engine(coffee.CoffeeShop(), EngineConfig(memory_limit=hundred + 64 * 2**10))
    engine.run([Case("corridor", STRAIGHT_TO_SODA, 1)], betas=[1.0] * 100)
    with pytest.raises(BudgetError):
        engine.run([Case("corridor", STRAIGHT_TO_SODA, 1)], betas=[1.0] * 10_000)


# -- a domain from a file ---------------------------------------------------------------------

def test_a_domain_file_loads_and_runs():
    from elot.engine import load_domain

    domain = load_domain(REPO / "examples" / "domains" / "coffee_shop.py")
    assert domain.name == "coffee-shop"
    [[result]] = Engine(domain).run([Case("corridor", STRAIGHT_TO_SODA, 1)])
    assert result.mean_utility()[1] > result.mean_utility()[0]


@pytest.mark.parametrize("text, message", [
    ("def broken(:\n", r"does not parse"),
    ("raise RuntimeError('no network here')\n", r"raised RuntimeError: no network here"),
    ("x = 1\n", r"no class with the domain methods"),
    ("domain = 42\n", r"its domain lacks tables"),
])
def test_a_bad_domain_file_is_one_error_naming_it(tmp_path, text, message):
    from elot.engine import load_domain

    path = tmp_path / "my_domain.py"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DomainError, match=message) as caught:
        load_domain(path)
    assert "my_domain.py" in caught.value.render()


def test_a_syntax_error_in_a_domain_file_is_pointed_at(tmp_path):
    from elot.engine import load_domain

    path = tmp_path / "my_domain.py"
    path.write_text("import numpy\n\ndef broken(:\n    pass\n", encoding="utf-8")
    with pytest.raises(DomainError) as caught:
        load_domain(path)
    assert caught.value.span.line == 3 and caught.value.render().startswith(f"{path}:3:")


def test_a_missing_domain_file_is_an_error_not_a_traceback(tmp_path):
    from elot.engine import load_domain
    from elot.errors import ElotError

    with pytest.raises(ElotError, match="nowhere.py"):
        load_domain(tmp_path / "nowhere.py")


def test_each_beta_hands_out_one_beta_at_a_time_and_plans_first():
    engine = Engine(coffee.CoffeeShop())
    runs = engine.each_beta([Case("corridor", PEEK_THEN_SODA, 1)], betas=[0.5, 4.0])
    assert len(engine._plans) == 1 and not engine.timings.evaluating   # planned, nothing evaluated yet
    first = next(runs)
    assert first[0].config.beta == 0.5 and len(engine.timings.evaluating) == 1
    together = engine.run([Case("corridor", PEEK_THEN_SODA, 1)], betas=[0.5, 4.0])
    assert np.array_equal(first[0].likelihood, together[0][0].likelihood)
    assert np.array_equal(next(runs)[0].likelihood, together[1][0].likelihood)


def test_a_run_asks_the_domain_for_its_beliefs_and_world_prior_once_per_layout():
    asked = []

    class Counting(coffee.CoffeeShop):
        def initial_beliefs(self, layout):
            asked.append(("initial_beliefs", layout))
            return super().initial_beliefs(layout)

        def world_prior(self, layout):
            asked.append(("world_prior", layout))
            return np.array([0.5, 0.5])

    engine = Engine(Counting(), EngineConfig())
    cases = [Case("corridor", PEEK_THEN_SODA, 1), Case("corridor", STRAIGHT_TO_SODA, None),
             Case("corridor", STRAIGHT_TO_SODA, 0)]
    once = [[r.mean_utility() for r in results] for results in engine.run(cases, [1.0, 2.0])]
    assert sorted(asked) == [("initial_beliefs", "corridor"), ("world_prior", "corridor")]
    fresh = [[run_one(case.path, case.world, beta=beta)[1].mean_utility() for case in cases[::2]]
             for beta in (1.0, 2.0)]
    assert all(np.array_equal(a, b) for row, want in zip(once, fresh) for a, b in zip(row[::2], want))
