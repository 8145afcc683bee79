"""What every inference result answers the same way, exact or particles, whatever the
domain: the steps, the world of each initial state at every step (and as ELoT states),
the signature, how inference ran (the settings of its ``config``, ``describe``,
``report``, ``columns``, ``diagnostics``) and the hypotheses a statement is judged on
(:meth:`Trajectory.judged`, an :class:`elot.judging.Hypotheses`).
"""

from __future__ import annotations

from functools import cache, cached_property
from typing import Sequence

import numpy as np

from elot.engine.worlds.methods import ConfiguredBy
from elot.engine.worlds.protocol import as_worlds
from elot.errors import ArgumentError
from elot.judging import Desires, Hypotheses


class TimeError(ArgumentError, IndexError):
    """A time step outside 0..T (also an ``IndexError``, what it used to be)."""


def goal_objects(signature, space) -> tuple[str, ...]:
    """The objects a statement about desires ranges over: the signature's objects of the
    goals' sort (``space.goal_sort``), then any goal it lacks."""
    return tuple(dict.fromkeys(signature.objects_of(space.goal_sort) + tuple(space.goals)))


def goal_rows(result, t: int, at: int) -> Hypotheses:
    """Desires for statements about what the agent wants (``wants(player, g)``): the
    hypotheses of exact inference one per (goal, true state, belief), not one per (true
    state, belief) pair as :meth:`Trajectory.judged` gives them, each with its goal as its
    desire, 1 on that goal and 0 on the scenario's other goal objects
    (:func:`goal_objects`; :class:`elot.judging.Desires`).
    Made only when such a statement is scored."""
    space = result.space
    beliefs, true_index = result.pairs(at)
    objects = goal_objects(result.signature, space)
    column = np.array([objects.index(g) for g in space.goals], dtype=np.intp)
    desires = Desires.goals(objects, column[space.index[0]])
    return Hypotheses(result.signature, result.states(at), np.tile(true_index, space.n_goals),
                      {result.signature.agent: np.tile(beliefs, (space.n_goals, 1))}, result.posterior(t),
                      np.ones(space.size), np.isfinite(result.log_weights[t]).astype(float),
                      per_agent=False, desires=desires)


class Trajectory(ConfiguredBy):
    """What every inference result answers the same way, exact or particles: the steps,
    the world of each initial state at every step (and as ELoT states), the signature.
    A result holds ``scenario``, ``space``, ``config`` (the
    inference configuration that ran), ``actions``, ``worlds_by_step``
    and a ``_states`` cache."""

    # -- the settings that ran, read from ``config`` (the model, beta, k: ConfiguredBy's) ------

    @property
    def method(self) -> str:
        """``exact`` or ``smc``: how this result was computed (what ``auto`` chose)."""
        return self.config.method

    @property
    def backend(self) -> str:
        return self.config.backend

    @property
    def seed(self) -> int | None:
        """The seed particle inference ran with (drawn when none was given); None if exact."""
        return self.config.seed if self.config.method == "smc" else None

    @property
    def conventions(self) -> str:
        """``elot`` or ``paper``: how the space was built; scores follow it by default."""
        return self.space.conventions

    @property
    def steps(self) -> int:
        """T, the number of observed actions."""
        return len(self.actions)

    @property
    def size(self) -> int:
        """The number of hypotheses (with no limit, unlike ``len``)."""
        return self.space.size

    def __len__(self) -> int:
        return self.space.size

    # -- what the result says about itself: the one hook through which commands show how
    # inference ran, so that none of them asks which method it was --------------------------

    #: Whether scores carry a standard error (estimated hypotheses, e.g. particles).
    estimated = False

    def describe(self, times: Sequence[int]) -> str:
        """A line saying how inference ran, for a run's header ('' when there is nothing
        to say beyond the hypothesis count)."""
        return f"inference: {self.method} ({self.note})" if self.note else ""

    def summary(self) -> str:
        """How inference ran in a few words, for a figure's title ('' for exact inference)."""
        return ""

    def report(self, times: Sequence[int]) -> dict:
        """How inference ran as data for a JSON report: the settings that ran
        (the config's ``described()``), the number of hypotheses,
        and why ``auto`` chose the method (``note``)."""
        out = {**self.config.described(), "hypotheses": self.size}
        if self.note:
            out["note"] = self.note
        return out

    def columns(self) -> dict:
        """The table columns that say how inference ran (``inference``, ``particles``,
        ``seed``; written only in tables where some task ran particles)."""
        return {"inference": self.method, "particles": "", "seed": ""}

    def diagnostics(self, t: int) -> dict:
        """Per-time diagnostics as table columns (particles: ``ess`` and ``warning``)."""
        return {}

    def _check(self, t: int) -> int:
        if isinstance(t, bool) or not isinstance(t, (int, np.integer)):
            raise TimeError(f"time t must be a whole number, not {type(t).__name__} {t!r}",
                            hint=f"times run from 0 to {self.steps}")
        if not 0 <= t <= self.steps:
            raise TimeError(f"time {t} is outside 0..{self.steps}", hint=f"times run from 0 to {self.steps}")
        return t

    def worlds(self, t: int) -> tuple:
        """The world at time t of each initial state (one per state index)."""
        return as_worlds(self.worlds_by_step[self._check(t)])

    def states(self, t: int):
        """:meth:`worlds` as ``elot.lang.semantics.State`` values, for ELoT evaluation."""
        if t not in self._states:
            from elot.lang.states import State

            self._states[t] = tuple(State(w.atoms()) for w in self.worlds(t))
        return self._states[t]

    def judged(self, t: int, at: int | None = None) -> Hypotheses:
        """The hypotheses a statement is judged on at time t (:mod:`elot.judging`): their
        worlds and beliefs at time ``at`` (t, or 0 for a statement about the initial
        belief) weighted by the posterior at t, with their prior masses."""
        at = t if at is None else at
        beliefs, true_index, weights, prior, live, ess, draws = self._judged_rows(self._check(t), self._check(at))
        return Hypotheses(self.signature, self.states(at), true_index, {self.signature.agent: beliefs}, weights,
                          prior, live, ess=ess, prior_draws=draws, per_agent=False,
                          desire_rows=cache(lambda: goal_rows(self, t, at)))

    @cached_property
    def signature(self):
        """The ELoT signature of the scenario's objects (its agent aliased as ``player``)."""
        return self.scenario.signature()
