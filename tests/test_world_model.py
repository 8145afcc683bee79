"""The engine's second protocol (issue 35): a world model written against the engine alone
(examples/domains/corridor_world.py) runs through the engine's exact and particle filters, and their answers are Bayes'
rule computed by hand.

The world: a corridor of five cells, the agent at cell 2, two goals (``west`` at cell 0,
``east`` at cell 4) and two hidden worlds, ``clear`` and ``walled`` (a wall before the
east end makes the way there ``DETOUR`` steps longer). The agent sees which world it is in
once it stands on cell 3 or beyond. The real world is ``clear``; the agent goes right
twice. Under QMDP (SPEC §5) the likelihood of an action is ``softmax_a(β Σ_j w_j Q_j(a))``
with ``Q_j(a) = -1 - h_j(a)`` for the cost h to the goal after a in world j, w the belief
after what was seen.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from elot.engine.worlds.acting import act
from elot.engine.worlds.exact import ExactFilter
from elot.engine.worlds.filters import choose_method, infer, run_filter
from elot.engine.worlds.particles import ParticleFilter
from elot.engine.worlds.spaces import ParticleSpace
from elot.engine.worlds.protocol import WorldModel
from elot.errors import ScenarioError


def _load_example():
    path = Path(__file__).resolve().parent.parent / "examples" / "domains" / "corridor_world.py"
    spec = importlib.util.spec_from_file_location("corridor_world", path)
    module = sys.modules["corridor_world"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


corridor = _load_example()
CELLS, START, DETOUR, GOALS, WORLDS, MOVES = (corridor.CELLS, corridor.START, corridor.DETOUR, corridor.GOALS,
                                              corridor.WORLDS, corridor.MOVES)
Config, Cell, Corridor, cost, view = corridor.Config, corridor.Cell, corridor.Corridor, corridor.cost, corridor.view


def by_hand(config: Config, actions=("right", "right"), real: str = "clear") -> dict:
    """The posterior over (goal, true world) after the actions, by Bayes' rule: a uniform
    prior over goals, true worlds and the initial beliefs (every multiset of k worlds, a
    world's weight its share, ε = 5e-324 for none), each weighted by what is seen (a world
    that looks otherwise than the real one is ruled out, in the hypothesis's truth and in
    its belief) and by the QMDP likelihood of every action."""
    eps, k = 5e-324, config.k
    multisets = [(k - n, n) for n in range(k + 1)]   # particles on clear, on walled
    posterior = {}
    for goal in GOALS:
        for true in WORLDS:
            for counts in multisets:
                weight = 1.0
                cell = START
                for (action,) in ((a,) for a in actions):
                    seen = [view(Cell(cell, w)) == view(Cell(cell, true)) for w in WORLDS]
                    if view(Cell(cell, true)) != view(Cell(cell, real)):
                        weight = 0.0
                        break
                    belief = [(c / k if c else eps) * s for c, s in zip(counts, seen)]
                    total = sum(belief)
                    belief = [b / total for b in belief]
                    options = [a for a, d in MOVES.items() if 0 <= cell + d < CELLS]
                    values = [sum(b * max(-1.0 - cost(w, cell + MOVES[o], goal), -100.0)
                                  for b, w in zip(belief, WORLDS) if b > 0) for o in options]
                    top = max(config.beta * v for v in values)
                    log_z = top + math.log(sum(math.exp(config.beta * v - top) for v in values))
                    weight *= math.exp(config.beta * values[options.index(action)] - log_z)
                    cell += MOVES[action]
                if view(Cell(cell, true)) != view(Cell(cell, real)):
                    weight = 0.0
                posterior[goal, true] = posterior.get((goal, true), 0.0) + weight
    total = sum(posterior.values())
    return {key: w / total for key, w in posterior.items()}


@pytest.mark.parametrize("backend_name", ["core", "reference"])
@pytest.mark.parametrize("beta, k", [(1.5, 2), (3.0, 1), (0.7, 3)])
def test_exact_inference_on_a_world_model_is_bayes_rule(backend_name, beta, k):
    config = Config(beta=beta, k=k, backend=backend_name)
    model = Corridor(config)
    assert isinstance(model, WorldModel)
    result = run_filter(ExactFilter(model, config))
    expected = by_hand(config)
    goals = result.goal_posterior(2)
    for goal in GOALS:
        assert goals[goal] == pytest.approx(sum(p for (g, _), p in expected.items() if g == goal), rel=1e-9)
    states = result.state_posterior(2)
    assert states[1] == 0.0   # the wall was not seen: the walled world is ruled out
    # The first step alone: both worlds still possible, east favoured (going right).
    first = run_filter(ExactFilter(Corridor(config, actions=("right",)), config))
    once = by_hand(config, actions=("right",))
    for goal in GOALS:
        assert first.goal_posterior(1)[goal] == pytest.approx(
            sum(p for (g, _), p in once.items() if g == goal), rel=1e-9)
    for s, world in enumerate(WORLDS):
        assert first.state_posterior(1)[s] == pytest.approx(
            sum(p for (_, w), p in once.items() if w == world), rel=1e-9)
    assert first.goal_posterior(1)["east"] > 0.6
    assert result.real[-1] == Cell(4, "clear") and result.worlds(2)[1] == Cell(4, "walled")


def test_a_step_left_says_west_and_the_hidden_world_stays_unknown():
    """Going left never shows the wall: both worlds stay possible, and the answer is still
    Bayes' rule (a step that rules nothing out)."""
    config = Config(beta=2.0, k=2)
    result = run_filter(ExactFilter(Corridor(config, actions=("left",)), config))
    expected = by_hand(config, actions=("left",))
    assert result.goal_posterior(1)["west"] == pytest.approx(expected["west", "clear"] + expected["west", "walled"],
                                                             rel=1e-9)
    assert result.goal_posterior(1)["west"] > 0.8
    assert (result.state_posterior(1) > 0.2).all()


def test_particles_on_a_world_model_converge_to_the_exact_posterior():
    """4,000 particles with a fixed seed: the goal and world posteriors within 0.03 of the
    exact ones (Monte Carlo error about 0.008 here, so rounding cannot decide it)."""
    config = Config(beta=1.5, k=2, method="smc")
    exact = run_filter(ExactFilter(Corridor(config, actions=("right",)), config))
    smc = run_filter(ParticleFilter(Corridor(config, actions=("right",)), config))
    assert smc.method == "smc" and smc.seed == 11
    assert smc.n_particles == 4000
    for goal, p in exact.goal_posterior(1).items():
        assert abs(smc.goal_posterior(1)[goal] - p) < 0.03
    assert np.abs(smc.state_posterior(1) - exact.state_posterior(1)).max() < 0.03
    assert isinstance(smc.space, ParticleSpace) and smc.space.size == exact.space.size == 2 * 2 * 3


def test_auto_chooses_by_the_world_models_estimate():
    model = Corridor(Config(method="auto"))
    assert choose_method(model, model.config)[0] == "exact"
    small = Config(method="auto", max_hypotheses=5)
    method, note = choose_method(Corridor(small), small)
    assert method == "smc" and "12 hypotheses are over the budget of 5" in note
    result = infer(Corridor(small), small)
    assert result.method == "smc" and result.note == note


def test_an_impossible_action_fails_before_inference():
    config = Config()
    with pytest.raises(ScenarioError, match="leaves the corridor"):
        run_filter(ExactFilter(Corridor(config, actions=("left", "left", "left")), config))


def qmdp_logp(belief, cell, goal, beta):
    """log π(a) of every option at ``cell`` by hand (SPEC §5), for a belief over WORLDS."""
    options = [a for a, d in MOVES.items() if 0 <= cell + d < CELLS]
    values = [beta * sum(b * max(-1.0 - cost(w, cell + MOVES[o], goal), -100.0)
                         for b, w in zip(belief, WORLDS) if b > 0) for o in options]
    top = max(values)
    log_z = top + math.log(sum(math.exp(v - top) for v in values))
    return {o: v - log_z for o, v in zip(options, values)}


@pytest.mark.parametrize("policy", ["optimal", "boltzmann"])
def test_the_agent_run_forward_on_a_world_model(policy):
    """The engine's agent loop: an agent sure the wall is there still goes east by the
    corridor (the detour west is longer), sees at cell 3 that there is none, and each
    action's log probability is the QMDP policy's by hand under the belief it held."""
    config = Config(beta=2.0)
    model = Corridor(config)
    model.plan(("east",))
    eps = 5e-324
    actions, logps = act(model, model.hypotheses()[1], np.array([eps, 1.0]), "east", beta=2.0, policy=policy,
                         rng=np.random.default_rng(0), max_steps=50, too_long=lambda done: AssertionError(done))
    assert model.real[-1].cell == GOALS["east"]
    cell, belief = START, [eps, 1.0]
    for action, logp in zip(actions, logps):
        assert logp == pytest.approx(qmdp_logp(belief, cell, "east", 2.0)[action[0]], rel=1e-12)
        cell += MOVES[action[0]]
        if cell >= 3:
            belief = [1.0, 0.0]   # it sees the corridor is clear: only eps was left there
    if policy == "optimal":
        assert actions == [("right",), ("right",)]


def test_an_agent_that_never_arrives_is_stopped():
    model = Corridor(Config())
    model.plan(("east",))

    class Stop(Exception):
        pass

    with pytest.raises(Stop):
        act(model, model.hypotheses()[1], np.array([0.5, 0.5]), "east", beta=0.01, policy="optimal",
            rng=np.random.default_rng(0), max_steps=1, too_long=lambda done: Stop(len(done)))
