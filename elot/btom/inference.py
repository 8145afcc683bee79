"""Exact BToM inference over a scenario (SPEC §5): per-step posteriors, worlds and beliefs.

:class:`ExactFilter` enumerates the hypothesis space (:mod:`elot.btom.hypotheses`), then runs the
observed actions through a BToM backend (the compiled ``btom_ext.core``, or the plain
``btom_ext.reference``). Time t = 0 is the initial state and t the state after t actions;
``b_t`` is the belief after perceiving ``s_t`` and action ``a_{t+1}`` is chosen from it.

What is kept per step is linear in the number of hypotheses: the log weights, the
world of each initial state, and which states still agree with which (``alive``). Beliefs
depend only on (true initial state, initial belief, t), so they are kept as a
``(state, belief, state)`` table, one row per distinct pair rather than per hypothesis,
and steps with the same ``alive`` table share one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Protocol

import numpy as np

from elot.btom.config import (METHODS, ConfiguredBy, InferenceConfig, InferenceMethodError, SettingError,
                              check_method, infer_config)
from elot.btom.engine import Trajectory
from elot.btom.filtering import WorldFilter, after
from elot.errors import ArgumentError, ScenarioError
from elot.engine.budget import Limits, format_bytes, memory_budget, over
from elot.btom.costs import SAMPLED_VARIANTS, exact_estimate
from elot.btom.hypotheses import HypothesisSpace, build, initial_states, resolve_goals
from elot.btom.world import MOVES, Action, WorldState
from elot.btom.particles import ParticleFilter

#: What this module gives; the configuration's names live in :mod:`elot.btom.config` and
#: import from here as before.
__all__ = ["METHODS", "ConfiguredBy", "Inference", "InferenceConfig", "InferenceMethodError", "SettingError",
           "ExactFilter", "Filter", "check_method", "infer", "infer_config", "revealing_actions", "run_filter",
           "true_trajectory"]

Progress = Callable[[int, int], None]


@dataclass(eq=False)
class Inference(Trajectory):
    """The result of :func:`infer`: hypotheses and, for every step t = 0..T, their weights.

    Hypothesis i has goal ``space.goals[goal_index[i]]``, true initial state
    ``state_index[i]`` and initial belief ``belief_index[i]`` (see :mod:`elot.btom.hypotheses`).
    """

    scenario: Any
    space: HypothesisSpace
    #: The configuration that ran (:meth:`~elot.btom.config.InferenceConfig.ran`).
    config: InferenceConfig
    actions: tuple[Action, ...]
    real: tuple[WorldState, ...]
    worlds_by_step: tuple[tuple[WorldState, ...], ...]
    alive: np.ndarray          # (T+1, n_s, n_s) uint8: state j agrees with state s up to t
    log_weights: np.ndarray    # (T+1, N) unnormalized log posterior weights
    beliefs_by_step: tuple[np.ndarray, ...] = field(repr=False)  # (T+1) x (n_s, n_b, n_s)
    _states: dict = field(default_factory=dict, repr=False)
    #: Why :func:`infer` chose this method under ``inference="auto"`` ("" otherwise).
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
        logw = self.log_weights[self._check(t)]
        top = logw.max()
        w = np.exp(logw - top)
        return w / w.sum()

    def goal_posterior(self, t: int) -> dict[str, float]:
        """Posterior probability of each goal gem at time t."""
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
        return self.beliefs_by_step[self._check(t)]

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

    def _judged_rows(self, t: int, at: int) -> tuple:
        """Every (true state, initial belief) pair with its beliefs at time ``at`` and its
        posterior at time t; each stands for one hypothesis per goal of the uniform prior
        (see :meth:`~elot.btom.engine.Trajectory.judged`)."""
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


class Filter(Protocol):
    """The shape every inference method has (exact enumeration, particles): a filter that
    starts from the prior, takes the observed actions one at a time, and can say at any
    point what it believes. :func:`infer` drives one over a scenario's actions.

    * ``init()`` — weights of the prior at t = 0 (after the initial observation);
    * ``step(action)`` — condition on the next observed action and what is seen after it;
    * ``result()`` — everything kept so far, as an object scoring reads (an :class:`Inference`
      or a :class:`~elot.btom.particles.ParticleInference`: the posterior at every step, and
      :meth:`~elot.btom.engine.Trajectory.judged`, the hypotheses scoring reads).
    """

    def init(self) -> None: ...

    def step(self, action: Action) -> None: ...

    def result(self) -> Any: ...


def true_trajectory(scenario) -> tuple[WorldState, ...]:
    """The real world at every step of the scenario's plan; an action that is impossible in
    it is a :class:`ScenarioError` naming the action."""
    real = [scenario.initial]
    for t, action in enumerate(scenario.actions, 1):
        action = tuple(action)
        reason = real[-1].why_not(action)
        if reason is not None:
            raise ScenarioError(f"action {t} ({' '.join(action)}) is impossible in the true state: {reason}",
                                hint="check the plan against the map")
        real.append(after(real[-1], action))
    return tuple(real)


class ExactFilter(WorldFilter):
    """Exact BToM inference (SPEC §5): every hypothesis of the space, weighted exactly.

    Built from a scenario (its ``layout`` and true ``initial`` state) and an
    :class:`InferenceConfig` (or :func:`infer`'s keyword arguments, which build one);
    implements :class:`Filter`, with the setup and world stepping of
    :class:`~elot.btom.filtering.WorldFilter`. Per step it keeps the log weights, the
    world of each initial state and the ``alive`` table (which states still agree with
    which); beliefs are filtered once per distinct ``alive`` table.
    """

    def __init__(self, scenario, config: InferenceConfig | None = None, **settings: Any) -> None:
        config = infer_config(config, **settings)
        super().__init__(scenario, config)
        actions = tuple(tuple(a) for a in scenario.actions)
        # Beliefs are refiltered only when an action can reveal something (not a move).
        reveals = revealing_actions(actions)
        free = memory_budget()   # read once, for the space's check and the planner's limit
        budget = free if config.max_bytes is None else config.max_bytes
        try:
            self.space = build(scenario.initial, model=config.variant, k=config.k, prior=config.prior,
                               goals=config.goals, max_hypotheses=config.max_hypotheses,
                               conventions=config.conventions, steps=len(actions), belief_tables=1 + reveals,
                               max_bytes=budget)
        except ScenarioError as error:
            raise error.located(path=getattr(scenario, "path", None))
        self.config = config.ran("exact")
        self._plan(self.space.goals, self.space.n_states, free)
        self._belief_cache: dict[bytes, np.ndarray] = {}
        # The full model's initial beliefs are one table broadcast over the true states.
        self.shared_beliefs = self.space.initial_beliefs.strides[0] == 0

    def init(self) -> None:
        """The uniform prior, conditioned on what is seen in the true initial state."""
        space = self.space
        labels = self._start(space.states)
        self.alive = (labels[:-1, None] == labels[None, :-1]).astype(np.uint8)
        self._live(labels[:-1] == labels[-1])
        self._beliefs = self._beliefs_for(self.alive)
        self._goal_on()
        # Every step's weights in one table, grown if more actions come than the scenario has.
        self._weights = np.empty((len(self.scenario.actions) + 1, len(space)), dtype=np.float64)
        self.logw = self._weights[0]
        # hypothesis (g, s, b) is index (g * n_s + s) * n_b + b: a weight per state, repeated
        self.logw.reshape(space.n_goals, space.n_states, space.n_beliefs)[:] = \
            np.where(self.live, 0.0, -np.inf)[None, :, None]
        self.history_worlds, self.history_alive, self.history_beliefs = [self.worlds], [self.alive], [self._beliefs]

    def _live(self, live: np.ndarray) -> None:
        self.live, self.live_u8, self.live_states = live, live.astype(np.uint8), np.flatnonzero(live)

    def _goal_on(self) -> None:
        held = self.real[-1].held_gems
        self.goal_on = np.array([g not in held for g in self.space.goals], dtype=np.uint8)

    def _beliefs_for(self, alive: np.ndarray) -> np.ndarray:
        """Filtered beliefs for an ``alive`` table; it changes only when something new is seen."""
        key = alive.tobytes()
        if key not in self._belief_cache:
            self._belief_cache[key] = self.core.filter_beliefs(self.space.initial_beliefs, alive)
        return self._belief_cache[key]

    def step(self, action: Action) -> None:
        """Weight every hypothesis by the probability of ``action`` under its agent's policy,
        then rule out those that disagree with what is seen after it.

        The likelihood of a live hypothesis depends only on its goal and its filtered belief,
        and every live true state filters a belief the same way (it agrees with exactly the
        live states), so the QMDP likelihood is computed once per (goal, belief) and read
        by every hypothesis of that pair (:func:`qmdp_update`: the same arithmetic as per
        hypothesis, so the weights are the same doubles). The worlds are stepped as rows
        by the core (``Rules.apply``) and compared by their views there (``view_labels``);
        the worlds themselves are made when read (:class:`~elot.btom.engine.SteppedWorlds`)."""
        space = self.space
        action = tuple(action)
        t = len(self.actions) + 1
        before = self.real[-1]
        options = self._options(before, action)
        chosen = options.index(action)
        # Every live state looks like the real one, so the actions available in the true
        # state of a live hypothesis (and in every state its belief keeps) are `options`.
        live_states = self.live_states
        successors = self.rules.apply(self.rows, live_states, self._action_codes(options, before, live_states))
        path_costs = self.planner.path_costs(successors)
        beliefs = self._beliefs
        if self.shared_beliefs:   # every live true state filters alike: read one of them
            table_rows, stride = beliefs[live_states[0]], 0
        else:
            table_rows, stride = beliefs.reshape(-1, beliefs.shape[2]), space.n_beliefs
        labels = self._advance(action)   # the worlds after the action
        changed = labels is not None
        if changed:
            self.alive = self.alive & (labels[:-1, None] == labels[None, :-1])
            self._live(self.live & (labels[:-1] == labels[-1]))
            self._beliefs = self._beliefs_for(self.alive)
        if t >= len(self._weights):
            grown = np.empty((2 * len(self._weights), len(space)), dtype=np.float64)
            grown[:t] = self._weights[:t]
            self._weights = grown
        self.logw = logw = self.core.qmdp_update(self.logw, table_rows, path_costs, live_states, self.goal_gems, chosen,
                                            self.beta, self.goal_on, space.n_states, stride, self.live_u8,
                                            out=self._weights[t])
        # A finite weight stays finite (a likelihood is never -inf): only a step that rules
        # states out can leave no hypothesis.
        if changed and (not self.live.any() or not np.isfinite(logw).any()):
            raise ScenarioError(
                f"no hypothesis explains the observations up to action {t} ({' '.join(action)})",
                hint=f"the true map may hide more keys than the prior allows ({space.family.describe()}): "
                "widen it (--hidden-keys N, prior=Prior(max_hidden=N))",
            )
        if action[0] not in MOVES:   # which goals are held may have changed
            self._goal_on()
        self.history_worlds.append(self.worlds)
        self.history_alive.append(self.alive)
        self.history_beliefs.append(self._beliefs)

    def result(self) -> Inference:
        """The :class:`Inference` of the actions so far."""
        space = self.space
        return Inference(
            scenario=self.scenario,
            space=space,
            config=self.config,
            actions=tuple(self.actions),
            real=tuple(self.real),
            worlds_by_step=tuple(self.history_worlds),
            alive=np.stack(self.history_alive),
            log_weights=self._weights[:len(self.actions) + 1],
            beliefs_by_step=(tuple(self.history_beliefs) if space.judged_beliefs is None
                             else (space.judged_beliefs,) * len(self.history_beliefs)),
        )


def revealing_actions(actions) -> int:
    """How many actions can reveal something (all but moves): beliefs are filtered again
    only after those."""
    return sum(1 for a in actions if tuple(a)[0] not in MOVES)


def infer(scenario, config: InferenceConfig | None = None, *, progress: Progress | None = None, **settings: Any):
    """Inference of goals, initial states and beliefs from a scenario's actions.

    ``scenario`` is an :class:`elot.btom.scenario.Scenario`: its ``layout``, ``initial`` (the
    true initial :class:`WorldState`), ``actions`` and ``signature()`` are used. ``config``
    (:class:`InferenceConfig`) says how to infer; the same settings may be given as keyword
    arguments instead (``model=``, ``beta=``, ``k=``, ``prior=``, ``goals=``, ``backend=``,
    ``conventions=``, ``max_hypotheses=``, ``max_bytes=``, ``inference=``, ``particles=``,
    ``seed=``; None leaves a default), or on top of a config to change it.
    ``progress(t, T)`` is called after each step. Unknown names raise
    :class:`~elot.settings.VariantError` / :class:`~elot.btom.conventions.ConventionsError`
    / :class:`InferenceMethodError`.

    ``method="exact"`` enumerates every hypothesis (:class:`ExactFilter`; a space of more
    than ``max_hypotheses`` hypotheses, or whose inference would allocate more than
    ``max_bytes`` (default: half the available memory), is refused with its estimated
    size) and returns an
    :class:`Inference`; ``"smc"`` runs ``particles`` particles seeded with ``seed``
    (:class:`elot.btom.particles.ParticleFilter`) and returns a
    :class:`~elot.btom.particles.ParticleInference`, which scoring reads the same way;
    ``"auto"`` is exact when the space fits ``max_hypotheses`` and its estimated inference
    fits ``max_bytes`` (what exact would refuse on), and particles otherwise (the result's
    ``note`` says which and why).
    """
    config = infer_config(config, **settings)
    if not all(hasattr(scenario, name) for name in ("layout", "initial", "actions")):
        raise ArgumentError(f"scenario must be a Scenario (with a layout, initial state and actions), not "
                            f"{type(scenario).__name__}", hint="load one with elot.load_scenario(NAME or PATH)")
    method, note = config.method, ""
    if method == "auto":
        try:
            n_goals = len(resolve_goals(scenario.layout, config.goals))
            n_states = len(initial_states(scenario.initial, config.prior, config.conventions))
        except ScenarioError as error:
            raise error.located(path=getattr(scenario, "path", None))
        # What exact inference would allocate, as ExactFilter counts it (and refuses on).
        estimate = exact_estimate(config.variant, n_goals, n_states, config.k, steps=len(scenario.actions),
                                  belief_tables=1 + revealing_actions(scenario.actions))
        found = over(estimate, Limits(max_size=config.max_hypotheses, max_bytes=config.max_bytes))
        always = config.variant not in SAMPLED_VARIANTS   # particles cannot run it
        fits = always or found is None
        method = "smc" if config.runs_particles(fits) else "exact"
        size = estimate.size
        if fits:
            note = f"auto: exact ({size:,} hypotheses fit the budget of {config.max_hypotheses:,})"
        elif found[0] == "size":
            note = f"auto: smc ({size:,} hypotheses are over the budget of {config.max_hypotheses:,})"
        else:
            note = (f"auto: smc ({size:,} hypotheses would need about {format_bytes(estimate.bytes)} for exact "
                    f"inference, over the memory budget of {format_bytes(int(found[1]))})")
    if method == "exact":
        filt = ExactFilter(scenario, config)
    else:
        filt = ParticleFilter(scenario, config)
    result = run_filter(filt, scenario, progress)
    result.note = note
    return result


def run_filter(filt: Filter, scenario, progress: Progress | None = None):
    """Run a :class:`Filter` over a scenario's actions (checked against the map first) and
    return its :meth:`Filter.result`; ``progress(t, T)`` is called after each step."""
    true_trajectory(scenario)  # an impossible action fails before any inference
    actions = tuple(tuple(a) for a in scenario.actions)
    filt.init()
    for t, action in enumerate(actions, 1):
        filt.step(action)
        if progress is not None:
            progress(t, len(actions))
    return filt.result()
