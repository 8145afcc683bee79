"""What every filter shares (exact enumeration, particles): its setup from an
:class:`~elot.btom.config.InferenceConfig` and the hypothesized worlds stepped at each
observed action.

:class:`WorldFilter` is the base of :class:`~elot.btom.inference.ExactFilter` and
:class:`~elot.btom.particles.ParticleFilter`: it loads the backend (and checks the map
against its limits), holds the agent's :class:`~elot.btom.engine.AgentPlanner` (one name,
``planner``, in every filter), the map's encoding and rules and the goals' gems, and
keeps the world of every initial state as a row, the real world's last, stepped by the
core (``Rules.apply``) and compared by their views (``view_labels``). What each filter
does with the views (the exact ``alive`` table, the particles' classes) is its own.
"""

from __future__ import annotations

import functools
from typing import Sequence

import numpy as np

from btom_ext.reference import AGENT
from elot.btom.config import InferenceConfig
from elot.btom.engine import (AgentPlanner, MovedWorlds, SteppedWorlds, as_in, check_backend_limits, load_backend,
                              named_action_codes, same_action)
from elot.btom.world import MOVES, Action, WorldState


def after(world: WorldState, action: Action) -> WorldState:
    """``world`` after ``action``, known to be possible (a move only moves the agent)."""
    if action[0] in MOVES:
        dx, dy = MOVES[action[0]]
        return world.moved((world.agent_pos[0] + dx, world.agent_pos[1] + dy))
    return world.step(action)


class WorldFilter:
    """The setup and world stepping every filter shares (see the module).

    A subclass calls :meth:`__init__` with the configuration it runs, builds its space,
    then :meth:`_plan` with the space's goals and number of states; at ``init()`` it calls
    :meth:`_start` (the views of the initial worlds), and at each ``step(action)``
    :meth:`_options` (what the real world offers), :meth:`_action_codes` and
    :meth:`_advance` (the worlds after the action, and their views when they may have
    changed)."""

    def __init__(self, scenario, config: InferenceConfig) -> None:
        self.scenario = scenario
        self.layout = scenario.layout
        self.core = load_backend(config.backend)
        check_backend_limits(self.core, config.backend, self.layout)
        self.model, self.beta, self.backend = config.variant, config.beta, config.backend
        self.conventions = config.conventions
        # how an observed action is named in each world (SPEC §7.3 under the paper's conventions)
        self.local = as_in if config.conventions == "paper" else same_action

    def _plan(self, goals: Sequence[str], n_states: int, max_bytes: int | None = None) -> None:
        """The agent's planner (holding at most ``max_bytes``), the map's encoding and rules,
        the gems of ``goals``, for a space of ``n_states`` initial states."""
        self.planner = AgentPlanner(self.layout, self.model, self.core, max_bytes)
        self.enc = self.planner.encoding
        self.goal_gems = np.array([self.enc.gem_index(g) for g in goals], dtype=np.intp)
        self.rules = self.enc.rules(self.core)
        self._all_rows = np.arange(n_states + 1)   # every state's world, and the real one
        self._codes: dict = {}     # the action codes of each tuple of options

    def _start(self, states: Sequence[WorldState]) -> np.ndarray:
        """Start from the initial ``states``: the real world, no actions, every world as a
        row and the real one's last; the view label of each row (the real world's last)."""
        self.real = [self.scenario.initial]
        self.actions: list[Action] = []
        self.worlds: Sequence[WorldState] = tuple(states)
        # Every state's world as a row, and the real world's last: the core steps them and
        # compares what each shows (its view) at every action; worlds are made when read.
        self.rows = self.enc.encode_many((*self.worlds, self.real[0]))
        # Whether every world has the agent on the real one's cell: a move then changes no view.
        self.together = bool((self.rows[:, AGENT] == self.rows[-1, AGENT]).all())
        self._offered: dict = {}   # the real world's actions per agent cell, until a non-move
        return self.core.view_labels(self.rows)

    def _options(self, before: WorldState, action: Action) -> tuple[Action, ...]:
        """The actions the real world ``before`` offers (the same at a cell until an action
        other than a move changes the world)."""
        if action[0] not in MOVES:
            return before.available_actions()
        options = self._offered.get(before.agent_pos)
        if options is None:
            options = self._offered[before.agent_pos] = before.available_actions()
        return options

    def _action_codes(self, options: tuple[Action, ...], before: WorldState, states: np.ndarray) -> np.ndarray:
        """``codes[i, a]``: option a as the world of ``states[i]`` names it (``(1, n_a, 3)``,
        the same in every world, under elot's conventions)."""
        codes = self._codes.get(options)
        if codes is None:
            codes = self._codes[options] = self.enc.action_codes(options)[None]
        return named_action_codes(self.enc, codes, self.local, options, before, states, self.worlds)

    def _advance(self, action: Action) -> np.ndarray | None:
        """Step every world's row and the real world by the observed ``action`` (a world in
        which it is impossible stays as it is): ``worlds``, ``rows`` and ``real`` move on.
        The view label of each row after it, or None when it was a move made alike in every
        world (the same worlds agree, the same are live)."""
        before = self.real[-1]
        everything = self._all_rows
        self.rows = rows = self.rules.apply(self.rows, everything, self._action_codes((action,), before, everything))
        real = after(before, action)   # possible: it is one of the options
        self.real.append(real)
        self.actions.append(action)
        if action[0] in MOVES and self.together and (rows[:, AGENT] == rows[-1, AGENT]).all():
            base = self.worlds.base if isinstance(self.worlds, MovedWorlds) else self.worlds
            self.worlds = MovedWorlds(base, real.agent_pos)
            return None
        self._offered.clear()   # what the real world offers may have changed
        rename = None if self.local is same_action else functools.partial(self.local, real=before)   # picklable
        self.worlds = SteppedWorlds(self.worlds, action, rename)
        self.together = bool((rows[:, AGENT] == rows[-1, AGENT]).all())
        return self.core.view_labels(rows)
