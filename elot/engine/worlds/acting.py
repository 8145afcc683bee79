"""The agent run forward (SPEC §5, §8) on a world model: what inference inverts, run in
the other direction.

Given its goal, its initial belief (weights over initial states) and a
:class:`~elot.engine.worlds.protocol.WorldModel` whose real world is the true one, the agent
repeats until it has reached its goal (:func:`act`):

1. it perceives: states whose worlds look otherwise than the real one are ruled out and
   the rest renormalized (``filter_beliefs`` of the core);
2. it acts by the Boltzmann QMDP policy at β (``boltzmann``), or takes the action the
   policy likes best (``optimal``, ties broken by the seeded generator; both are
   :data:`elot.settings.POLICIES`): the path costs are the world model's and the
   probabilities :func:`action_log_probabilities`, the
   ``qmdp_loglik`` that scores an observed action during inference, so that simulating
   and inverting are one model;
3. the world moves on.

A domain may steer the choice (a :class:`Steering`: e.g. an agent that does not step back
on a whim) and is told after each step whether the agent learnt something.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol, Sequence

import numpy as np

from elot.engine.worlds.protocol import WorldModel

#: Action log probabilities closer than this are a tie for the optimal policy.
TIE = 1e-12


def action_log_probabilities(core, belief: np.ndarray, costs: np.ndarray, beta: float) -> np.ndarray:
    """``log π(a)`` of the Boltzmann QMDP policy for every action of ``costs`` (``(1, n_s,
    n_a)``, one goal) under the filtered ``belief`` (``(n_s,)``), computed by the same
    ``qmdp_loglik`` that scores observed actions in inference."""
    beliefs = np.ascontiguousarray(belief, dtype=np.float64).reshape(1, 1, -1)
    zero, one = np.zeros(1, dtype=np.int32), np.ones(1, dtype=np.uint8)
    return np.array([core.qmdp_loglik(beliefs, costs, a, beta, zero, zero, zero, one)[0]
                     for a in range(costs.shape[2])])


def choose(logp: np.ndarray, policy: str, rng: np.random.Generator) -> int:
    """The action a ``policy`` agent takes given its actions' log probabilities."""
    if policy == "optimal":
        best = np.flatnonzero(logp >= logp.max() - TIE)
        return int(best[0] if len(best) == 1 else rng.choice(best))
    p = np.exp(logp - logp.max())
    return int(rng.choice(len(logp), p=p / p.sum()))


@dataclass(frozen=True, eq=False)
class Step:
    """What the agent faces at one step: the ``options`` the real world offers, ``costs[0,
    j, a]`` (the path cost to its goal after option a in the world of state j, -1 where
    its belief keeps no weight), their log probabilities ``logp`` and its filtered
    ``belief``."""

    options: tuple
    costs: np.ndarray
    logp: np.ndarray
    belief: np.ndarray


class Steering(Protocol):
    """A domain's say in what its agent does: :meth:`choose` may replace the policy's
    choice (an index into ``step.options``); :meth:`after` hears each action taken and
    whether the agent learnt something by it (an action that can reveal something, or one
    after which fewer states agree with what it sees)."""

    def choose(self, step: Step, chosen: int) -> int: ...

    def after(self, action: tuple[str, ...], learnt: bool) -> None: ...


def step_costs(world_model: WorldModel, belief: np.ndarray, options: Sequence, column: int) -> np.ndarray:
    """``costs[0, j, a]`` of a :class:`Step`: the world model's path costs (``column``: the
    goal's) from the states the belief keeps, -1 elsewhere."""
    kept = np.flatnonzero(belief > 0)
    costs = np.full((1, len(belief), len(options)), -1, dtype=np.int32)
    if len(kept):
        h = world_model.path_costs(kept, options).reshape(len(kept), len(options), -1)
        costs[0, kept, :] = h[:, :, column]
    return costs


def act(world_model: WorldModel, states: Sequence, weights: np.ndarray, goal: str, *, beta: float, policy: str,
        rng: np.random.Generator, max_steps: int, too_long: Callable[[list], Exception],
        steering: Steering | None = None) -> tuple[list, list[float]]:
    """Run the agent (see the module) from the initial ``states`` with initial belief
    ``weights`` over them until ``goal`` is reached in the world model's real world (its
    :meth:`~elot.engine.worlds.protocol.WorldModel.plan` made for ``(goal,)``); raise
    ``too_long(actions)`` after ``max_steps`` actions. The actions and each one's log
    probability under the policy."""
    core = world_model.core
    column = int(world_model.goal_columns[0])
    labels = world_model.start(states)
    alive = (labels[:-1] == labels[-1]).astype(np.uint8)
    initial = np.asarray(weights).reshape(1, 1, -1)
    actions: list = []
    logps: list[float] = []
    while world_model.open_goals((goal,))[0]:
        if len(actions) >= max_steps:
            raise too_long(actions)
        belief = core.filter_beliefs(initial, alive.reshape(1, -1))[0, 0]
        options = world_model.offered()
        costs = step_costs(world_model, belief, options, column)
        logp = action_log_probabilities(core, belief, costs, beta)
        chosen = choose(logp, policy, rng)
        if steering is not None:
            chosen = steering.choose(Step(options, costs, logp, belief), chosen)
        action = options[chosen]
        actions.append(action)
        logps.append(float(logp[chosen]))
        labels = world_model.advance(action)
        before = alive
        if labels is not None:
            alive = alive & (labels[:-1] == labels[-1]).astype(np.uint8)
        if steering is not None:
            steering.after(action, world_model.reveals(action) or not np.array_equal(alive, before))
    return actions, logps
