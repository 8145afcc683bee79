"""Exact BToM inference (SPEC §5) over any world model: per-step posteriors, worlds and
beliefs.

:class:`ExactFilter` enumerates the hypothesis space the world model builds
(:class:`~elot.engine.worlds.spaces.HypothesisSpace`), then runs the observed actions through a
BToM backend (the compiled ``btom_ext.core``, or the plain ``btom_ext.reference``). Time
t = 0 is the initial state and t the state after t actions; ``b_t`` is the belief after
perceiving ``s_t`` and action ``a_{t+1}`` is chosen from it.

What is kept per step is linear in the number of hypotheses: the log weights, the
world of each initial state, and which states still agree with which (``alive``). Beliefs
depend only on (true initial state, initial belief, t), so they are kept as a
``(state, belief, state)`` table, one row per distinct pair rather than per hypothesis,
and steps with the same ``alive`` table share one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from elot.engine.budget import memory_budget
from elot.engine.worlds.methods import FilterConfig
from elot.engine.worlds.spaces import HypothesisSpace
from elot.engine.worlds.trajectory import Trajectory
from elot.engine.worlds.protocol import WorldModel
from elot.errors import ScenarioError


@dataclass(eq=False)
class Inference(Trajectory):
    """The result of exact inference: hypotheses and, for every step t = 0..T, their weights.

    Hypothesis i has goal ``space.goals[goal_index[i]]``, true initial state
    ``state_index[i]`` and initial belief ``belief_index[i]`` (see :mod:`elot.engine.worlds.spaces`).
    """

    scenario: Any
    space: HypothesisSpace
    #: The configuration that ran (its ``ran("exact")``).
    config: Any
    actions: tuple[tuple[str, ...], ...]
    real: tuple
    worlds_by_step: tuple
    alive: np.ndarray          # (T+1, n_s, n_s) uint8: state j agrees with state s up to t
    log_weights: np.ndarray    # (T+1, N) unnormalized log posterior weights
    beliefs_by_step: tuple[np.ndarray, ...] = field(repr=False)  # (T+1) x (n_s, n_b, n_s)
    #: Why :func:`~elot.engine.worlds.filters.infer` chose this method under ``inference="auto"`` ("" otherwise).
    note: str = ""

    @property
    def goal_index(self) -> np.ndarray:
        return self.space.index[0]

    @property
    def state_index(self) -> np.ndarray:
        """Each hypothesis's true-state index into :meth:`worlds` / :meth:`states`."""
        return self.space.index[1]

    @property
    def belief_index(self) -> np.ndarray:
        return self.space.index[2]

    def posterior(self, t: int) -> np.ndarray:
        """Normalized posterior over hypotheses after the first t actions, ``(N,)``."""
        logw = self.log_weights[self.check_time(t)]
        top = logw.max()
        w = np.exp(logw - top)
        return w / w.sum()

    def goal_posterior(self, t: int) -> dict[str, float]:
        """Posterior probability of each goal at time t."""
        sums = np.bincount(self.goal_index, weights=self.posterior(t), minlength=self.space.n_goals)
        return {g: float(p) for g, p in zip(self.space.goals, sums)}

    def state_posterior(self, t: int) -> np.ndarray:
        """Posterior over the true initial state at time t, ``(n_s,)``."""
        return np.bincount(self.state_index, weights=self.posterior(t), minlength=self.space.n_states)

    def pair_posterior(self, t: int) -> np.ndarray:
        """Posterior over (true state, initial belief) pairs at time t, ``(n_s, n_b)``."""
        space = self.space
        return self.posterior(t).reshape(space.n_goals, space.n_states, space.n_beliefs).sum(axis=0)

    def beliefs(self, t: int) -> np.ndarray:
        """``b[s, b, j]``: weight of state j at time t in the belief of every hypothesis with
        true state s and initial belief b (the hypothesis's goal does not matter)."""
        return self.beliefs_by_step[self.check_time(t)]

    def pairs(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """Every (true state, initial belief) pair at time t as rows for
        ``compile_formula(...).truth``: beliefs ``(n_s * n_b, n_s)`` and true-state indices."""
        space = self.space
        beliefs = self.beliefs(t).reshape(space.n_states * space.n_beliefs, space.n_states)
        return beliefs, self._pair_states

    @cached_property
    def _pair_states(self) -> np.ndarray:
        return np.repeat(np.arange(self.space.n_states), self.space.n_beliefs)

    def live_pairs(self, t: int) -> np.ndarray:
        """How many hypotheses of each (true state, initial belief) pair are still possible at
        time t (log weight above −∞), shape ``(n_s * n_b,)``."""
        space = self.space
        live = np.isfinite(self.log_weights[t]).reshape(space.n_goals, space.n_states, space.n_beliefs)
        return live.sum(axis=0).ravel().astype(float)

    def judged_rows(self, t: int, at: int) -> tuple:
        """Every (true state, initial belief) pair with its beliefs at time ``at`` and its
        posterior at time t; each stands for one hypothesis per goal of the uniform prior
        (:func:`elot.domains.rows.judged` makes them ELoT rows)."""
        beliefs, true_index = self.pairs(at)
        weights = self.pair_posterior(t).ravel()
        return (beliefs, true_index, weights, np.full(len(weights), float(self.space.n_goals)),
                self.live_pairs(t), None, None)

    def average_belief(self, t: int) -> np.ndarray:
        """Σ_i p_i · b_i(t) over the worlds at t, without building the (N, S) array."""
        pairs = np.asarray(self.pair_posterior(t), dtype=np.float64)      # (n_s, n_b)
        table = np.asarray(self.beliefs(t), dtype=np.float64)             # (n_s, n_b, S)
        return np.einsum("sb,sbj->j", pairs, table)

    def hypothesis_belief(self, t: int, i: int) -> np.ndarray:
        """The belief of hypothesis i at time t over :meth:`worlds` ``(t)``."""
        return self.beliefs(t)[self.state_index[i], self.belief_index[i]]


def revealing(world_model: WorldModel, actions) -> int:
    """How many of ``actions`` can reveal something (the world model's ``reveals``):
    beliefs are filtered again only after those."""
    return sum(1 for a in actions if world_model.reveals(tuple(a)))


class ExactFilter:
    """Exact BToM inference (SPEC §5): every hypothesis of the space, weighted exactly.

    Built from a :class:`~elot.engine.worlds.protocol.WorldModel` (one scenario's worlds) and an
    inference configuration; implements :class:`~elot.engine.worlds.filters.Filter`. Per step it
    keeps the log weights, the world of each initial state and the ``alive`` table (which
    states still agree with which); beliefs are filtered once per distinct ``alive`` table.
    """

    def __init__(self, world_model: WorldModel, config: FilterConfig) -> None:
        self.world_model = world = world_model
        self.core = world.core   # the backend, its limits checked
        self.model, self.beta, self.backend = config.variant, config.beta, config.backend
        self.conventions = config.conventions
        # Beliefs are refiltered only when an action can reveal something.
        reveals = revealing(world, world.actions)
        free = memory_budget()   # read once, for the space's check and the planner's limit
        budget = free if config.max_bytes is None else config.max_bytes
        self.space = world.exact_space(steps=len(world.actions), belief_tables=1 + reveals, max_bytes=budget)
        self.config = config.ran("exact")
        world.plan(self.space.goals, free)
        self.goal_columns = world.goal_columns
        self._belief_cache: dict[bytes, np.ndarray] = {}
        # The full model's initial beliefs are one table broadcast over the true states.
        self.shared_beliefs = self.space.initial_beliefs.strides[0] == 0

    def init(self) -> None:
        """The uniform prior, conditioned on what is seen in the true initial state."""
        space = self.space
        self.actions: list[tuple[str, ...]] = []
        labels = self.world_model.start(space.states)
        self.alive = (labels[:-1, None] == labels[None, :-1]).astype(np.uint8)
        self._live(labels[:-1] == labels[-1])
        self._beliefs = self._beliefs_for(self.alive)
        self._goal_on()
        # Every step's weights in one table, grown if more actions come than the scenario has.
        self._weights = np.empty((len(self.world_model.actions) + 1, len(space)), dtype=np.float64)
        self.logw = self._weights[0]
        # hypothesis (g, s, b) is index (g * n_s + s) * n_b + b: a weight per state, repeated
        self.logw.reshape(space.n_goals, space.n_states, space.n_beliefs)[:] = \
            np.where(self.live, 0.0, -np.inf)[None, :, None]
        self.history_worlds = [self.world_model.worlds]
        self.history_alive, self.history_beliefs = [self.alive], [self._beliefs]

    def _live(self, live: np.ndarray) -> None:
        self.live, self.live_u8, self.live_states = live, live.astype(np.uint8), np.flatnonzero(live)

    def _goal_on(self) -> None:
        self.goal_on = self.world_model.open_goals(self.space.goals)

    def _beliefs_for(self, alive: np.ndarray) -> np.ndarray:
        """Filtered beliefs for an ``alive`` table; it changes only when something new is seen."""
        table = alive.tobytes()
        if table not in self._belief_cache:
            self._belief_cache[table] = self.core.filter_beliefs(self.space.initial_beliefs, alive)
        return self._belief_cache[table]

    def step(self, action: tuple[str, ...]) -> None:
        """Weight every hypothesis by the probability of ``action`` under its agent's policy,
        then rule out those that disagree with what is seen after it.

        The likelihood of a live hypothesis depends only on its goal and its filtered belief,
        and every live true state filters a belief the same way (it agrees with exactly the
        live states), so the QMDP likelihood is computed once per (goal, belief) and read
        by every hypothesis of that pair (:func:`qmdp_update`: the same arithmetic as per
        hypothesis, so the weights are the same doubles). The world model steps its worlds
        and compares what the agent sees in them (``path_costs``, ``advance``)."""
        space, world = self.space, self.world_model
        action = tuple(action)
        t = len(self.actions) + 1
        options, chosen = world.options(action)
        # Every live state looks like the real one, so the actions available in the true
        # state of a live hypothesis (and in every state its belief keeps) are `options`.
        live_states = self.live_states
        path_costs = world.path_costs(live_states, options)
        beliefs = self._beliefs
        if self.shared_beliefs:   # every live true state filters alike: read one of them
            table_rows, stride = beliefs[live_states[0]], 0
        else:
            table_rows, stride = beliefs.reshape(-1, beliefs.shape[2]), space.n_beliefs
        labels = world.advance(action)   # the worlds after the action
        self.actions.append(action)
        changed = labels is not None
        if changed:
            self.alive = self.alive & (labels[:-1, None] == labels[None, :-1])
            self._live(self.live & (labels[:-1] == labels[-1]))
            self._beliefs = self._beliefs_for(self.alive)
        if t >= len(self._weights):
            grown = np.empty((2 * len(self._weights), len(space)), dtype=np.float64)
            grown[:t] = self._weights[:t]
            self._weights = grown
        self.logw = logw = self.core.qmdp_update(self.logw, table_rows, path_costs, live_states, self.goal_columns,
                                                 chosen, self.beta, self.goal_on, space.n_states, stride, self.live_u8,
                                                 out=self._weights[t])
        # A finite weight stays finite (a likelihood is never -inf): only a step that rules
        # states out can leave no hypothesis.
        if changed and (not self.live.any() or not np.isfinite(logw).any()):
            raise ScenarioError(
                f"no hypothesis explains the observations up to action {t} ({' '.join(action)})",
                hint=world.hint("exact", space.family),
            )
        if world.reveals(action):   # which goals are reached may have changed
            self._goal_on()
        self.history_worlds.append(world.worlds)
        self.history_alive.append(self.alive)
        self.history_beliefs.append(self._beliefs)

    def result(self) -> Inference:
        """The :class:`Inference` of the actions so far."""
        space = self.space
        return Inference(
            scenario=self.world_model.scenario,
            space=space,
            config=self.config,
            actions=tuple(self.actions),
            real=tuple(self.world_model.real),
            worlds_by_step=tuple(self.history_worlds),
            alive=np.stack(self.history_alive),
            log_weights=self._weights[:len(self.actions) + 1],
            beliefs_by_step=(tuple(self.history_beliefs) if space.judged_beliefs is None
                             else (space.judged_beliefs,) * len(self.history_beliefs)),
        )
