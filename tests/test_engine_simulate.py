"""The engine's simulated agent (elot.engine.tables.simulate) on a domain it was not written for,
the coffee shop of examples/domains, and ``elot plan --domain``: the agent acts as the
model that inverts its paths expects, and what ``plan`` writes ``run`` reads back."""

from __future__ import annotations

import json

import numpy as np
import pytest

from elot.cli import main
from elot.engine import Case, Engine, EngineConfig
from elot.engine.tables.simulate import SimulatedAgent, simulate
from elot.errors import ArgumentError
from test_domain_cli import SHOP
from test_engine import coffee

OPEN, CLOSED = 0, 1
LIKES_COFFEE = np.array([20.0, 5.0])        # (coffee, soda)


def agent(utilities=LIKES_COFFEE, **config) -> SimulatedAgent:
    domain = coffee.CoffeeShop()
    return SimulatedAgent(domain.tables("corridor"), ("coffee", "soda"), utilities, EngineConfig(**config),
                          domain.default_planner)


def test_the_agent_acts_by_the_inversions_softmax():
    a = agent(beta=1.5)
    belief = np.array([0.7, 0.3])
    q, pi = a.q(belief, 2), a.policy(belief, 2)
    expected = np.exp(1.5 * (q - q.max()))
    np.testing.assert_allclose(pi, expected / expected.sum(), rtol=1e-9)


@pytest.mark.parametrize("world, bought_at", [(OPEN, 4), (CLOSED, 0)])
def test_a_knowing_agent_walks_straight_to_what_it_can_buy(world, bought_at):
    """Knowing the shop's state, the best policy buys coffee where it is sold, else soda."""
    run = simulate(agent(), world, [2], np.eye(2)[world], policy="optimal", seed=0)
    assert run.finished and run.path[-1] == coffee.DONE and run.path[-2] == bought_at
    steps = np.abs(np.diff(run.path[:-1]))
    assert len(run.path) - 2 == abs(bought_at - 2) and (steps == 1).all()    # no detour, no pause


def test_a_hopeful_agent_looks_learns_and_turns_back():
    """Sure the shop is open when it is closed, it heads east, sees the sign, and buys soda."""
    run = simulate(agent(), CLOSED, [2], np.array([0.95, 0.05]), policy="optimal", seed=0)
    assert run.finished and run.path[-2] == 0 and max(run.path[:-1]) >= 3
    seen = run.path.index(3)
    assert run.beliefs[seen][CLOSED] == 1.0     # the sign is seen for sure from cell 3


def test_the_given_path_is_kept_and_perceived_along():
    run = simulate(agent(), CLOSED, [2, 3], np.array([0.5, 0.5]), policy="optimal", seed=0)
    assert run.path[:2] == (2, 3) and run.beliefs[1][CLOSED] == 1.0


def test_an_agent_that_runs_out_of_steps_gives_up():
    """Nothing is sold at cell 2: one action from there cannot end the run."""
    run = simulate(agent(), OPEN, [2], np.array([0.5, 0.5]), seed=1, max_steps=1)
    assert not run.finished and len(run.path) == 2 and len(run.beliefs) == 2


def test_the_agent_explains_itself():
    """A path the agent made is one the inversion finds likely under its own utilities."""
    run = simulate(agent(), CLOSED, [2], np.array([0.95, 0.05]), policy="optimal", seed=0)
    [[result]] = Engine(coffee.CoffeeShop()).run([Case("corridor", run.path, CLOSED)])
    coffee_utility, soda_utility = result.mean_utility()
    assert coffee_utility > soda_utility
    assert result.mean_belief()[OPEN] > 0.5


def test_bad_settings_are_errors():
    with pytest.raises(ArgumentError, match="unknown policy"):
        simulate(agent(), OPEN, [2], np.array([0.5, 0.5]), policy="greedy")


def test_plan_on_a_domain_file_writes_a_case_run_reads_back(tmp_path, capsys):
    start = tmp_path / "start.json"
    start.write_text(json.dumps({"name": "start", "layout": "corridor", "world": "shop-closed", "path": ["cell2"]}))
    out = tmp_path / "made.json"
    argv = ["plan", "--domain", str(SHOP), str(start), "--utilities", "coffee=20,soda=5",
            "--belief", "shop-open=0.95,shop-closed=0.05", "--policy", "optimal", "-o", str(out)]
    assert main(argv) == 0
    made = json.loads(out.read_text())
    assert made["path"][0] == "cell2" and made["path"][-2:] == ["cell0", "done"] and made["world"] == "shop-closed"
    assert "the agent reached done" in capsys.readouterr().err
    assert main(["run", "--domain", str(SHOP), str(out), "--json", str(tmp_path / "run.json")]) == 0
    ran = json.loads((tmp_path / "run.json").read_text())
    desire = {row["option"]: row["value"] for row in ran["outputs"] if row["judgment"] == "desire"}
    assert desire["coffee"] > desire["soda"]
    capsys.readouterr()
    out.write_text(out.read_text() + " ")          # edited by hand: no longer what elot wrote
    assert main(argv) == 2 and "--force" in capsys.readouterr().err


@pytest.mark.parametrize("extra, message", [
    (["--utilities", "coffee=20,tea=5"], "unknown name 'tea'"),
    (["--utilities", "coffee=20"], "no utility for soda"),
    (["--utilities", "coffee=20,soda=5", "--belief", "shop-open=0.5"], "sums to 0.5"),
    (["--utilities", "coffee=20,soda=5", "--goal", "gem1"], "--goal is not a setting of the coffee-shop domain's simulated agent"),
    ([], "needs the agent's --utilities"),
])
def test_plan_on_a_domain_refuses_bad_options(tmp_path, capsys, extra, message):
    start = tmp_path / "start.json"
    start.write_text(json.dumps({"layout": "corridor", "world": "shop-closed", "path": ["cell2"]}))
    assert main(["plan", "--domain", str(SHOP), str(start), "-o", str(tmp_path / "o.json"), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "o.json").exists()


def test_plan_needs_a_true_world(tmp_path, capsys):
    start = tmp_path / "start.json"
    start.write_text(json.dumps({"layout": "corridor", "world": None, "path": ["cell2"]}))
    assert main(["plan", "--domain", str(SHOP), str(start), "--utilities", "coffee=1,soda=1",
                 "-o", str(tmp_path / "o.json")]) == 2
    assert "does not say its true world" in capsys.readouterr().err


def test_gridworld_plan_refuses_a_domain_setting(tmp_path, capsys):
    assert main(["plan", "default", "--planner", "qmdp", "-o", str(tmp_path / "o.scn")]) == 2
    assert "--planner is not a setting of the doors-keys-gems domain's simulated agent" in capsys.readouterr().err
