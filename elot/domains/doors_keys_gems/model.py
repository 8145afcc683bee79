"""Doors-Keys-Gems as a world model of the engine (:class:`elot.engine.worlds.protocol.WorldModel`).

:class:`GridWorldModel` is what the engine's filters (:mod:`elot.engine.worlds.exact`,
:mod:`elot.engine.worlds.particles`) run on for one scenario and one
:class:`~elot.domains.doors_keys_gems.config.InferenceConfig`: the hypothesis space of SPEC §5 (goals: the
gems; initial states: the placements of hidden keys the :class:`~elot.domains.doors_keys_gems.hypotheses.Prior`
allows; :func:`~elot.domains.doors_keys_gems.hypotheses.build`), and the worlds of every initial state as
rows, the real world's last, stepped by the core (``Rules.apply``), compared by what the
agent sees in them (``view_labels``) and costed by the agent's planner
(:class:`~elot.domains.doors_keys_gems.engine.AgentPlanner`). An observed action is named in each world as
the conventions say (:func:`~elot.domains.doors_keys_gems.engine.as_in` under the paper's). These are the
kernels Doors-Keys-Gems registers; the engine calls the generic ones.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from functools import cached_property
from typing import Sequence

import numpy as np

from btom_ext.reference import AGENT
from elot.domains.doors_keys_gems.config import InferenceConfig
from elot.domains.doors_keys_gems.costs import MAX_SECONDS, PARTICLE_HINTS, particle_estimate
from elot.engine.worlds.spaces import exact_estimate
from elot.domains.doors_keys_gems.engine import (AgentPlanner, MovedWorlds, SteppedWorlds, as_in, check_backend_limits, load_backend,
                              named_action_codes, same_action)
from elot.domains.doors_keys_gems.hypotheses import Prior, build, count_model_states, initial_states, resolve_goals
from elot.engine.worlds.spaces import HypothesisSpace
from elot.domains.doors_keys_gems.world import MOVES, Action, WorldState
from elot.engine.budget import Estimate, Limits, OverBudget, check
from elot.engine.worlds.methods import ParticleError
from elot.errors import ScenarioError

#: What to do when no hypothesis explains the observations, by case (:meth:`GridWorldModel.hint`).
WIDEN = "widen it (--hidden-keys N, prior=Prior(max_hidden=N))"


def after(world: WorldState, action: Action) -> WorldState:
    """``world`` after ``action``, known to be possible (a move only moves the agent)."""
    if action[0] in MOVES:
        dx, dy = MOVES[action[0]]
        return world.moved((world.agent_pos[0] + dx, world.agent_pos[1] + dy))
    return world.step(action)


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


class ParticlesTooMany(OverBudget, ParticleError):
    """Particle inference refused before any work for its estimated memory or time."""



def check_particle_cost(scenario, *, k: int, particles: int, prior_draws: int, prior: Prior = Prior(),
                        goals: int | None = None, max_bytes: int | None = None) -> None:
    """Refuse, before any work, particle inference whose memory
    (:func:`elot.domains.doors_keys_gems.costs.particle_estimate`) would not fit ``max_bytes`` (default: half
    the memory available now) or that would run past :data:`~elot.domains.doors_keys_gems.costs.MAX_SECONDS`,
    with the figures and what to change."""
    n_states = count_model_states(scenario.initial, prior)
    n_goals = goals if goals is not None else len(scenario.layout.gems)
    estimate = particle_estimate(n_states, n_goals, k, particles, prior_draws, len(scenario.actions))
    if estimate.seconds > MAX_SECONDS:   # say why it grows
        grows = ": the belief moves grow as particles x k²"
        estimate = replace(estimate, detail=estimate.detail.split(";")[0] + grows)
    check(estimate, Limits(max_bytes=max_bytes, max_seconds=MAX_SECONDS), error=ParticlesTooMany, hint=PARTICLE_HINTS)


class GridWorldModel:
    """One Doors-Keys-Gems scenario under one configuration, as the engine's filters read
    it (see the module and :class:`elot.engine.worlds.protocol.WorldModel`). The backend is loaded,
    and the map checked against its limits, when ``core`` is first read."""

    #: The signature's sort of the goal objects.
    goal_sort = "gem"

    def __init__(self, scenario, config: InferenceConfig, core=None) -> None:
        if core is not None:   # a backend already loaded and checked (the simulated agent's)
            self.core = core
        self.scenario = scenario
        self.layout = scenario.layout
        self.config = config
        self.actions = tuple(tuple(a) for a in scenario.actions)
        # how an observed action is named in each world (SPEC §7.3 under the paper's conventions)
        self.local = as_in if config.conventions == "paper" else same_action
        self._hypotheses: tuple | None = None

    @cached_property
    def core(self):
        core = load_backend(self.config.backend)
        check_backend_limits(core, self.config.backend, self.layout)
        return core

    # -- the hypothesis space ------------------------------------------------------------

    def _located(self, error: ScenarioError) -> ScenarioError:
        return error.located(path=getattr(self.scenario, "path", None))

    def hypotheses(self) -> tuple:
        """``(goals, initial states, family)``: the gems to infer, the initial states the
        prior's family allows (SPEC §5), and the family (made once)."""
        if self._hypotheses is None:
            config, initial = self.config, self.scenario.initial
            try:
                goals = resolve_goals(self.layout, config.goals)
                family = config.prior.resolve(initial)
                states = initial_states(initial, family, config.conventions)
            except ScenarioError as error:
                raise self._located(error)
            self._hypotheses = goals, states, family
        return self._hypotheses

    def exact_space(self, *, steps: int, belief_tables: int, max_bytes: int | None) -> HypothesisSpace:
        """The space of exact inference (:func:`~elot.domains.doors_keys_gems.hypotheses.build`), refused with
        its size before it is allocated when it is over the configuration's limits."""
        config = self.config
        try:
            return build(self.scenario.initial, model=config.variant, k=config.k, prior=config.prior,
                         goals=config.goals, max_hypotheses=config.max_hypotheses, conventions=config.conventions,
                         steps=steps, belief_tables=belief_tables, max_bytes=max_bytes)
        except ScenarioError as error:
            raise self._located(error)

    def exact_estimate(self, *, steps: int, belief_tables: int) -> Estimate:
        goals, states, _ = self.hypotheses()
        return exact_estimate(self.config.variant, len(goals), len(states), self.config.k, steps=steps,
                              belief_tables=belief_tables)

    def check_particle_cost(self, *, particles: int, prior_draws: int) -> None:
        config = self.config
        check_particle_cost(self.scenario, k=config.k, particles=particles, prior_draws=prior_draws,
                            prior=config.prior, goals=None if config.goals is None else len(config.goals))

    def check_actions(self) -> None:
        true_trajectory(self.scenario)

    # -- the run -------------------------------------------------------------------------

    def plan(self, goals: Sequence[str], max_bytes: int | None = None) -> None:
        """The agent's planner (holding at most ``max_bytes``), the map's encoding and rules,
        and the gems of ``goals`` (their columns of :meth:`path_costs`)."""
        self.planner = AgentPlanner(self.layout, self.config.variant, self.core, max_bytes)
        self.enc = self.planner.encoding
        self.goal_columns = np.array([self.enc.gem_index(g) for g in goals], dtype=np.intp)
        self.rules = self.enc.rules(self.core)
        self._codes: dict = {}     # the action codes of each tuple of options

    def start(self, states: Sequence[WorldState]) -> np.ndarray:
        """Start from the initial ``states``: the real world, every world as a row and the
        real one's last; the view label of each row (the real world's last)."""
        self.real = [self.scenario.initial]
        self.worlds: Sequence[WorldState] = tuple(states)
        # Every state's world as a row, and the real world's last: the core steps them and
        # compares what each shows (its view) at every action; worlds are made when read.
        self.rows = self.enc.encode_many((*self.worlds, self.real[0]))
        self._all_rows = np.arange(len(self.rows))   # every state's world, and the real one
        # Whether every world has the agent on the real one's cell: a move then changes no view.
        self.together = bool((self.rows[:, AGENT] == self.rows[-1, AGENT]).all())
        self._offered: dict = {}   # the real world's actions per agent cell, until a non-move
        return self.core.view_labels(self.rows)

    def offered(self) -> tuple[Action, ...]:
        """The actions the real world offers now (the same at a cell until an action other
        than a move changes the world: kept per cell until then)."""
        before = self.real[-1]
        options = self._offered.get(before.agent_pos)
        if options is None:
            options = self._offered[before.agent_pos] = before.available_actions()
        return options

    def options(self, action: Action) -> tuple[tuple[Action, ...], int]:
        """:meth:`offered`, and the index of the observed ``action`` among them."""
        options = self.offered()
        return options, options.index(action)

    def _action_codes(self, options: tuple[Action, ...], before: WorldState, states: np.ndarray) -> np.ndarray:
        """``codes[i, a]``: option a as the world of ``states[i]`` names it (``(1, n_a, 3)``,
        the same in every world, under elot's conventions)."""
        codes = self._codes.get(options)
        if codes is None:
            codes = self._codes[options] = self.enc.action_codes(options)[None]
        return named_action_codes(self.enc, codes, self.local, options, before, states, self.worlds)

    def path_costs(self, states: np.ndarray, options: Sequence[Action]) -> np.ndarray:
        """``h[n, g]``: the path cost to every gem of the world of ``states[n // n_a]`` after
        option ``n % n_a`` (the rows stepped by the core)."""
        options = tuple(options)
        successors = self.rules.apply(self.rows, states, self._action_codes(options, self.real[-1], states))
        return self.planner.path_costs(successors)

    def advance(self, action: Action) -> np.ndarray | None:
        """Step every world's row and the real world by the observed ``action`` (a world in
        which it is impossible stays as it is): ``worlds``, ``rows`` and ``real`` move on.
        The view label of each row after it, or None when it was a move made alike in every
        world (the same worlds agree, the same are live)."""
        before = self.real[-1]
        everything = self._all_rows
        self.rows = rows = self.rules.apply(self.rows, everything, self._action_codes((action,), before, everything))
        real = after(before, action)   # possible: it is one of the options
        self.real.append(real)
        if action[0] in MOVES and self.together and (rows[:, AGENT] == rows[-1, AGENT]).all():
            base = self.worlds.base if isinstance(self.worlds, MovedWorlds) else self.worlds
            self.worlds = MovedWorlds(base, real.agent_pos)
            return None
        self._offered.clear()   # what the real world offers may have changed
        rename = None if self.local is same_action else functools.partial(self.local, real=before)   # picklable
        self.worlds = SteppedWorlds(self.worlds, action, rename)
        self.together = bool((rows[:, AGENT] == rows[-1, AGENT]).all())
        return self.core.view_labels(rows)

    def open_goals(self, goals: Sequence[str]) -> np.ndarray:
        """1 for each goal gem the agent does not hold yet in the real world, else 0."""
        held = self.real[-1].held_gems
        return np.array([g not in held for g in goals], dtype=np.uint8)

    def reveals(self, action: Action) -> bool:
        """Every action but a move can show something new (open a box, take or use a key)."""
        return action[0] not in MOVES

    def hint(self, case: str, family=None) -> str:
        """What to do when no hypothesis explains the observations: under ``exact`` (with
        the prior ``family``), when no initial state is left (``prior``), or when particle
        inference lost every particle (``particles``)."""
        if case == "particles":
            return ("use more particles (--particles), or --inference exact if the map is small enough; "
                    "if exact inference fails too, the map may hide more keys than the hypotheses allow")
        said = f" ({family.describe()})" if family is not None else ""
        return f"the true map may hide more keys than the prior allows{said}: {WIDEN}"
