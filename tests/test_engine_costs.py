"""Issue 44, the engine's half: every cost a tabular run can incur is counted from the request
before any work and refused with its estimate; what it cannot afford never starts.

Through ``elot.cli.main`` (the command a user types), with the work the engine would do
replaced by a failure where the point is that it never starts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from elot.engine.tables import sampling
from helpers import run_elot

REPO = Path(__file__).resolve().parent.parent
TRUCKS = str(REPO / "examples" / "domains" / "check-empty.trucks")
STATEMENT = "initial: The student believes that spot 2 is empty."
HUGE = "99999999999999999999"


def elot(*args: str, stdin: str | None = None, cwd=None):
    return run_elot(*args, stdin=stdin, cwd=cwd, env=dict(os.environ, ELOT_HISTORY=os.devnull), timeout=120)


@pytest.fixture
def no_draws(monkeypatch):
    """Drawing the particles fails the test: a refusal must come before it."""

    def drawn(*args, **kwargs):
        raise AssertionError("the particles were drawn before the budget was asked")

    monkeypatch.setattr(sampling.Draws, "of", classmethod(drawn))


@pytest.mark.parametrize("particles", ["1000000000", HUGE])
def test_particles_are_counted_from_n_not_drawn(no_draws, particles):
    result = elot("run", TRUCKS, "--inference", "smc", "--particles", particles, "--seed", "1")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert "refused before any work" in result.stderr
    assert f"{int(particles):,} particles" in result.stderr and "GiB" in result.stderr
    assert "fewer particles" in result.stderr


def test_batch_refuses_huge_particles_before_any_work(no_draws, tmp_path):
    out = tmp_path / "t.csv"
    result = elot("batch", TRUCKS, "--statement", STATEMENT, "--inference", "smc", "--particles", HUGE,
                  "-o", str(out))
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "GiB" in result.stderr
    assert not out.exists()


def test_the_repl_refuses_huge_particles_and_goes_on(no_draws):
    result = elot("repl", TRUCKS, stdin=f":set inference smc\n:set particles {HUGE}\n:goals\n")
    text = result.stdout + result.stderr
    assert "internal error" not in text and "Traceback" not in text
    assert "refused before any work" in text


def test_a_few_particles_still_run(tmp_path):
    result = elot("run", TRUCKS, "--inference", "smc", "--particles", "300", "--seed", "1")
    assert result.returncode == 0, result.stderr


# -- long paths: no underflow, and their cost counted ---------------------------------------------

def stays(n: int, folder: Path) -> Path:
    path = folder / "long.trucks"
    path.write_text("scenario long\nmap 1\nspot2 empty\nstart 1 1\nmoves " + " ".join(["stay"] * n) + "\n")
    return path


def test_a_path_of_thousands_of_steps_keeps_its_posterior():
    """P(path) of 8,000 steps is far below the smallest double: the inversion rescales by
    powers of two as it goes, and the posterior is the one log-likelihoods give, each stay
    multiplying a hypothesis's likelihood by its own probability of staying."""
    import numpy as np

    from elot.domains.foodtrucks.domain import FoodTrucks
    from elot.engine import Case, Engine, EngineConfig

    engine = Engine(FoodTrucks(), EngineConfig(planner="qmdp", true_belief=True))
    start = (5,)
    short = [Case(1, start * k, 2, f"{k}") for k in (2, 3)]
    n = 8000
    [[two, three]] = engine.run(short)
    [[long]] = engine.run([Case(1, start * (n + 1), 2, "long")])
    assert long.possible and long.exponent > 1074
    stay = np.where(two.likelihood > 0, three.likelihood / np.where(two.likelihood > 0, two.likelihood, 1), 0)
    with np.errstate(divide="ignore"):
        log_l = np.log(two.likelihood) + (n - 1) * np.log(stay)
    log_post = log_l + np.log(two.prior())
    post = np.exp(log_post - log_post.max())
    post /= post.sum()
    assert np.allclose(long.posterior(), post, rtol=1e-6, atol=1e-12)
    assert np.allclose(long.mean_utility(), post.sum(axis=(0, 1)) @ long.desire_space.utilities, rtol=1e-9)


@pytest.mark.slow
def test_the_current_belief_of_a_long_path_is_on_the_posterior_s_scale():
    """The states at a long path's end carry likelihoods scaled as the path's (a power of two
    per world, aligned): their rows give the same desire posterior as the initial rows."""
    import numpy as np

    from elot.domains.foodtrucks.domain import FoodTrucks
    from elot.engine import Case, Engine, EngineConfig

    for method in ("exact", "smc"):
        engine = Engine(FoodTrucks(), EngineConfig(planner="qmdp", method=method, particles=400, seed=3))
        [[long]] = engine.run([Case(1, (5,) * 2001, None, "long")])
        assert long.possible and long.exponent > 0
        rows, now = long.current_rows(), long.rows()
        n_d = len(long.desire_space.utilities)
        assert np.isclose(rows.weights.sum(), 1.0)
        assert np.allclose(np.bincount(rows.desire, rows.weights, n_d), np.bincount(now.desire, now.weights, n_d),
                           atol=1e-9)


def test_a_long_path_on_the_command_line_is_no_longer_called_impossible(tmp_path):
    import json

    result = elot("run", str(stays(7000, tmp_path)), "--json", "-", "--model", "true-belief")
    assert result.returncode == 0, result.stderr
    outputs = {(o["judgment"], o["option"]): o["value"] for o in json.loads(result.stdout)["outputs"]}
    assert all(value > 0 for (judgment, _), value in outputs.items() if judgment == "desire")


def test_a_100000_step_path_is_refused_before_any_work(tmp_path):
    trucks = stays(100_000, tmp_path)
    # particles hold every prefix's likelihoods: 7 GiB; the exact inversion at least 0.8 GiB
    for method, memory in (("smc", "1G"), ("exact", "700M")):
        result = elot("run", str(trucks), "--max-memory", memory, "--inference", method)
        assert result.returncode == 2, result.stderr
        assert "refused before any work" in result.stderr and "100,000 steps" in result.stderr
        assert "shorter path" in result.stderr and "Traceback" not in result.stderr


def test_an_inversion_that_branches_past_its_estimate_is_refused_as_it_is_built():
    """The estimate before work counts a node per row and step; where the agent's beliefs
    branch (the coffee shop's sign, seen half the time from cell 2) the build spends what
    it really makes, and is refused the moment it passes the budget."""
    import importlib.util

    from elot.engine import Case, Engine, EngineConfig
    from elot.engine.budget import BudgetError

    spec = importlib.util.spec_from_file_location("coffee_shop_costs", REPO / "examples" / "domains" / "coffee_shop.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cases = [Case("corridor", (2,) * 400, 1, "waits")]
    need = Engine(module.CoffeeShop(), EngineConfig())._need(cases, "exact", 1).bytes
    engine = Engine(module.CoffeeShop(), EngineConfig(memory_limit=need + 4096))
    with pytest.raises(BudgetError, match="refused before evaluating it") as refused:
        engine.run(cases)
    assert "nodes" in str(refused.value) and "of 399" in str(refused.value)
    [[result]] = Engine(module.CoffeeShop(), EngineConfig(memory_limit=4 * need)).run(cases)
    assert result.possible


# -- the tables a planner derives from a domain's ----------------------------------------------------

class ManyWorlds:
    """Ten hidden worlds, fifty cells and ten percepts, one utility vector: the reward and Q
    tables are small, but belief-space planning's transitions (every event at every grid
    point over the worlds) run to gigabytes."""

    name = "many-worlds"
    default_planner = "belief-vi"
    n_w, n_s, n_a, n_o = 10, 50, 4, 10

    def tables(self, layout):
        import numpy as np

        from elot.engine import Tables

        trans = np.zeros((self.n_w, self.n_s, self.n_a), dtype=np.int32)
        for a in range(self.n_a):
            trans[:, :, a] = (np.arange(self.n_s)[None, :] + a + np.arange(self.n_w)[:, None]) % self.n_s
        obs = np.full((self.n_w, self.n_s, self.n_o), 1.0 / self.n_o)
        outcomes = np.full((self.n_w, self.n_s, self.n_a), -1, dtype=np.int32)
        outcomes[:, 0, 0] = 0
        return Tables(tuple(f"s{i}" for i in range(self.n_s)), tuple(f"w{i}" for i in range(self.n_w)),
                      tuple(f"a{i}" for i in range(self.n_a)), tuple(f"o{i}" for i in range(self.n_o)), ("gem",),
                      np.ones(self.n_a), trans, obs, outcomes)

    def desires(self):
        import numpy as np

        from elot.engine import DesireSpace

        return DesireSpace(("gem",), np.array([[10.0]]), np.ones(1))

    def initial_beliefs(self, layout):
        import numpy as np

        from elot.engine import BeliefSpace

        return BeliefSpace(np.full((1, self.n_w), 1.0 / self.n_w), np.ones(1))


def test_the_planners_derived_tables_are_in_the_estimate():
    from elot.engine import Case, Engine, EngineConfig
    from elot.engine.budget import BudgetError

    engine = Engine(ManyWorlds(), EngineConfig(memory_limit=2**30))
    with pytest.raises(BudgetError, match="refused before any work") as refused:
        engine.run([Case("x", (0, 1), 0, "two steps")])
    assert "GiB" in str(refused.value) and not engine._plans
