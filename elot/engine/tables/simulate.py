"""An agent of any tabular domain run forward: the model's own agent, so that the model
explains the paths it makes (``elot plan`` on a domain).

The agent holds one utility vector over the domain's objects and an initial belief over
the worlds. Its Q is the planner's the engine inverts with (the config's, solved for that
one utility vector), and it acts by the same softmax at beta that the inversion scores
paths with (``policy="optimal"``: its best action, ties broken by the seed). On entering
a state it draws a percept in the true world from the observation model and updates its
belief by Bayes' rule over the worlds that also lead there, rounded to the config's
quantum as the inversion rounds it. A state that no action leaves in any world (the
domain's absorbing end) ends the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from elot.engine.tables.config import EngineConfig
from elot.settings import DEFAULT_BETA, POLICIES
from elot.engine.tables.inversion import normalise, quantise
from elot.engine.tables.planners import Plan, kernels, plan
from elot.engine.tables.protocol import DesireSpace, Tables
from elot.errors import ArgumentError


@dataclass(frozen=True)
class Run:
    """A simulated path: its states (the given ones first), the agent's belief after
    perceiving each state before the end, and whether it reached the end (or gave up)."""

    path: tuple[int, ...]
    beliefs: tuple[tuple[float, ...], ...]
    finished: bool


class SimulatedAgent:
    """The model's agent in one layout's ``tables`` with one utility vector over ``objects``."""

    def __init__(self, tables: Tables, objects: Sequence[str], utilities, config: EngineConfig,
                 default_planner: str = "qmdp", default_beta: float = DEFAULT_BETA):
        self.config = config.resolved(default_planner, default_beta)
        self.tables = tables
        utilities = np.asarray(utilities, dtype=np.float64).reshape(1, len(objects))
        self.plan: Plan = plan(tables, DesireSpace(tuple(objects), utilities, np.ones(1)), self.config)
        trans = np.asarray(tables.transitions)
        self._stays = (trans == np.arange(trans.shape[1])[None, :, None]).all(axis=(0, 2))

    def is_end(self, state: int) -> bool:
        """Whether no action leaves ``state`` in any world."""
        return bool(self._stays[state])

    def q(self, belief: np.ndarray, state: int) -> np.ndarray:
        """The agent's Q over the actions at ``belief`` in ``state`` (interpolated as the
        policy is)."""
        corners, weights = self.plan.corners(belief[None, :], np.array([state]))
        n_a = self.plan.n_actions
        mixed = np.zeros(n_a)
        for corner, weight in zip(corners[0], weights[0]):
            if corner >= 0:
                mixed += weight * self.plan.q[corner * n_a:(corner + 1) * n_a, 0]
        return mixed

    def policy(self, belief: np.ndarray, state: int) -> np.ndarray:
        """The softmax policy at beta, by the kernel the inversion uses."""
        corners, weights = self.plan.corners(belief[None, :], np.array([state]))
        pi = kernels(self.config.backend).mixed_policies(self.plan.q, corners, weights, self.plan.n_actions,
                                                         self.config.beta)
        return np.asarray(pi).reshape(self.plan.n_actions)

    def choose(self, belief: np.ndarray, state: int, policy: str, rng: np.random.Generator) -> int:
        """An action: drawn from the softmax policy, or the best one (ties drawn)."""
        if policy == "boltzmann":
            return int(rng.choice(self.plan.n_actions, p=self.policy(belief, state)))
        q = self.q(belief, state)
        best = np.flatnonzero(q >= q.max() - 1e-9 * max(1.0, abs(q.max())))
        return int(rng.choice(best))

    def perceive(self, belief: np.ndarray, state: int, world: int, rng: np.random.Generator,
                 reach: np.ndarray | None = None) -> np.ndarray:
        """The belief after entering ``state`` and drawing a percept in the true ``world``;
        ``reach[w]`` says whether world w also leads there."""
        obs = np.asarray(self.tables.observations, dtype=np.float64)
        seen = obs[world, state]
        percept = int(rng.choice(len(seen), p=seen / seen.sum()))
        likely = obs[:, state, percept] * (1.0 if reach is None else reach)
        joint = belief * likely
        if joint.sum() <= 0:    # it was sure of what it now sees is false: it believes its eyes
            joint = likely
        return normalise(quantise(normalise(joint[None, :]), self.config.belief_quantum))[0]


def check_belief(belief, n_worlds: int, hint: str) -> np.ndarray:
    """``belief`` as ``float64[n_worlds]`` of probabilities summing to 1, else an error."""
    belief = np.asarray(belief, dtype=np.float64)
    if belief.shape != (n_worlds,) or not np.all(np.isfinite(belief)) or (belief < 0).any() \
            or abs(belief.sum() - 1) > 1e-6:
        raise ArgumentError(f"the belief must be {n_worlds} probabilities summing to 1", hint=hint)
    return belief


def simulate(agent: SimulatedAgent, world: int, path: Sequence[int], belief, *, policy: str = "boltzmann",
             seed: int | None = 0, max_steps: int = 60) -> Run:
    """``path`` (at least its first state) completed by ``agent`` in the true ``world``:
    the given states are perceived along, then the agent acts until it reaches the end or
    has taken ``max_steps`` actions."""
    if policy not in POLICIES:
        raise ArgumentError(f"unknown policy {policy!r}", hint=f"use one of: {', '.join(POLICIES)}")
    rng = np.random.default_rng(seed)
    trans = np.asarray(agent.tables.transitions)
    states = list(path)
    belief = agent.perceive(np.asarray(belief, dtype=np.float64), states[0], world, rng)
    beliefs = [tuple(belief)]
    finished = agent.is_end(states[0])
    for here, there in zip(states, states[1:]):        # the moves given: perceived along the way
        if agent.is_end(there):
            finished = True
            break
        reach = (trans[:, here, :] == there).any(axis=1).astype(np.float64)
        belief = agent.perceive(belief, there, world, rng, reach)
        beliefs.append(tuple(belief))
    taken = 0
    while not finished and taken < max_steps:
        state = states[-1]
        action = agent.choose(belief, state, policy, rng)
        taken += 1
        there = int(trans[world, state, action])
        states.append(there)
        if agent.is_end(there):
            finished = True
            break
        reach = (trans[:, state, action] == there).astype(np.float64)
        belief = agent.perceive(belief, there, world, rng, reach)
        beliefs.append(tuple(belief))
    return Run(tuple(states), tuple(beliefs), finished)
