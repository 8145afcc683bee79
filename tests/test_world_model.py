"""The engine's second protocol (issue 35): a world model written here against the engine
alone runs through the engine's exact and particle filters, and their answers are Bayes'
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

import math
from dataclasses import dataclass, replace

import numpy as np
import pytest

from btom_ext import backend
from elot.engine.acting import act
from elot.engine.exact import ExactFilter
from elot.engine.filters import choose_method, infer, run_filter
from elot.engine.particles import ParticleFilter
from elot.engine.spaces import HypothesisSpace, ParticleSpace, exact_estimate, initial_beliefs
from elot.engine.worlds import WorldModel
from elot.errors import ScenarioError

CELLS, START, DETOUR = 5, 2, 6
GOALS = {"west": 0, "east": 4}
WORLDS = ("clear", "walled")
MOVES = {"left": -1, "right": 1}


@dataclass(frozen=True)
class Config:
    """What the engine's filters read of a configuration (a domain brings its own)."""

    variant: str = "full"
    beta: float = 1.5
    k: int = 2
    conventions: str = "elot"
    method: str = "exact"
    particles: int = 4000
    seed: int | None = 11
    backend: str = "core"
    max_hypotheses: int = 10_000
    max_bytes: int | None = None

    def ran(self, method: str, **resolved) -> "Config":
        return replace(self, method=method, **resolved)

    def runs_particles(self, fits: bool) -> bool:
        return self.method == "smc" or (self.method == "auto" and not fits)

    def described(self) -> dict:
        return {"method": self.method, "model": self.variant}


@dataclass(frozen=True)
class Cell:
    """A world: the agent's cell and the hidden world's name."""

    cell: int
    world: str

    def atoms(self) -> frozenset:
        return frozenset()


class Scenario:
    def signature(self):   # not read by these tests
        raise NotImplementedError


def cost(world: str, cell: int, goal: str) -> int:
    """Steps from ``cell`` to ``goal``'s cell in ``world``."""
    target = GOALS[goal]
    steps = abs(cell - target)
    return steps + DETOUR if goal == "east" and world == "walled" and cell < target else steps


def view(world: Cell) -> int:
    """What the agent sees: its cell, and the wall from cell 3 on."""
    return world.cell * 2 + (world.cell >= 3 and world.world == "walled")


class Corridor:
    """The corridor as a :class:`~elot.engine.worlds.WorldModel`."""

    goal_sort = "goal"

    def __init__(self, config: Config, actions=("right", "right"), real: str = "clear") -> None:
        self.config, self.scenario = config, Scenario()
        self.actions = tuple((a,) for a in actions)
        self.truth = real
        self.core = backend(config.backend)

    def hypotheses(self):
        return tuple(GOALS), tuple(Cell(START, w) for w in WORLDS), None

    def exact_space(self, *, steps, belief_tables, max_bytes):
        goals, states, _ = self.hypotheses()
        return HypothesisSpace(self.config.variant, goals, states,
                               initial_beliefs(self.config.variant, len(states), self.config.k), goal_sort="goal")

    def exact_estimate(self, *, steps, belief_tables):
        return exact_estimate(self.config.variant, len(GOALS), len(WORLDS), self.config.k, steps=steps,
                              belief_tables=belief_tables)

    def check_particle_cost(self, *, particles, prior_draws):
        pass

    def check_actions(self):
        cell = START
        for (action,) in self.actions:
            cell += MOVES[action]
            if not 0 <= cell < CELLS:
                raise ScenarioError(f"{action} leaves the corridor")

    def plan(self, goals, max_bytes=None):
        self.goal_columns = np.array([list(GOALS).index(g) for g in goals], dtype=np.intp)

    def start(self, states):
        self.worlds = tuple(states)
        self.real = [Cell(START, self.truth)]
        return self._labels()

    def _labels(self):
        return np.array([view(w) for w in (*self.worlds, self.real[-1])], dtype=np.int64)

    def offered(self):
        cell = self.real[-1].cell
        return tuple((a,) for a, d in MOVES.items() if 0 <= cell + d < CELLS)

    def options(self, action):
        options = self.offered()
        return options, options.index(action)

    def path_costs(self, states, options):
        return np.array([[cost(self.worlds[s].world, self.worlds[s].cell + MOVES[o[0]], g) for g in GOALS]
                         for s in states for o in options], dtype=np.int32)

    def advance(self, action):
        shift = MOVES[action[0]]
        self.worlds = tuple(Cell(w.cell + shift, w.world) for w in self.worlds)
        self.real.append(Cell(self.real[-1].cell + shift, self.truth))
        return self._labels()

    def open_goals(self, goals):
        return np.array([GOALS[g] != self.real[-1].cell for g in goals], dtype=np.uint8)

    def reveals(self, action):
        return True

    def hint(self, case, family=None):
        return "the corridor has no other worlds"


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
