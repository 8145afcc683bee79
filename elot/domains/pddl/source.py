"""A PDDL scenario run under one agent model (:class:`PddlSource`): the goal posterior after
each prefix of the observed actions, and the rows statements are judged on.

Everything in a PDDL world is visible, so the hypotheses at time t are the candidate goals
weighted by their posterior at t (:func:`elot.domains.pddl.language.goal_hypotheses`), the
state at t both the world and what the agent believes (for a statement about the initial
belief, the state at 0). ``wants(player, G)`` is therefore G's posterior, and a statement
about the state is true or false in it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from elot.domains.front import Episode, GoalReport
from elot.domains.pddl.agents import MODELS
from elot.domains.pddl.language import goal_hypotheses
from elot.domains.pddl.words import describe
from elot.domains.source import Source
from elot.engine.agents import goal_posterior
from elot.engine.settings import Settings
from elot.errors import ArgumentError, EvaluationError
from elot.output import count


class UnexplainedStep(EvaluationError):
    """An action that every candidate goal gives probability 0 (its likelihood underflows)."""


class PddlSource(GoalReport, Source):
    """``episode`` (a :class:`~elot.domains.pddl.scenes.Scene` as its detail) inverted under
    ``settings``: its goal posterior at every time (``posterior``, ``float64[T + 1, G]``)."""

    def __init__(self, front, episode: Episode, settings: Settings):
        self.front = front
        self.episode = episode
        self.settings = settings
        self.scene = episode.detail
        self.values = {"beta": settings.model.beta, **dict(settings.model.params)}
        likelihoods = MODELS[settings.model.name].likelihoods(self.scene.tables, self.values)
        dead = np.flatnonzero(~(likelihoods > 0).any(axis=1))
        if len(dead):
            step = int(dead[0]) + 1
            raise UnexplainedStep(
                f"no candidate goal explains step {step} of {episode.name}, {self.scene.steps[step - 1].text()}: "
                f"under the {self.model} model (β = {self.beta:g}) its probability is 0 for every goal",
                hint="a smaller --beta, or a model with lapses (--model lapse), gives every action a chance")
        self.posterior = goal_posterior(likelihoods, self.scene.task.prior)
        self._rows: dict = {}

    @property
    def signature(self):
        return self.scene.language.signature

    @property
    def goals(self) -> list[str]:
        """The candidate goals' names, in order."""
        return [g.name for g in self.scene.goals]

    def check_time(self, t: int) -> int:
        if not 0 <= int(t) <= self.episode.horizon:
            raise ArgumentError(f"time {t} is not one of 0..{self.episode.horizon} ({self.name})")
        return int(t)

    def judged(self, t: int, at: int):
        t, at = self.check_time(t), self.check_time(at)
        if (t, at) not in self._rows:
            self._rows[t, at] = goal_hypotheses(self.scene.language, self.posterior[t], self.scene.states[at],
                                                self.scene.task.prior)
        return self._rows[t, at]

    def goal_posterior(self, t: int) -> dict[str, float]:
        t = self.check_time(t)
        return {name: float(p) for name, p in zip(self.goals, self.posterior[t])}

    worlds_noun = "state"
    worlds_title = "state (everything is visible)"

    def world_label(self, state) -> str:
        return describe(sorted(state.atoms))

    # -- reporting ---------------------------------------------------------------------------

    def params_text(self) -> str:
        """The model's parameters besides β, as ``epsilon=0.05 weight=0.2`` ('' for none)."""
        return " ".join(f"{k}={v:g}" for k, v in self.settings.model.params)

    def header(self, times: Sequence[int]) -> list[str]:
        scene = self.scene
        said = ", ".join(f"{k} {v:g}" for k, v in self.settings.model.params)
        problem = Path(scene.problem.path).name if scene.problem.path else scene.problem.name
        return [f"[bold]{self.name}[/bold] ({self.front.name}, problem {problem}): "
                f"{count(len(scene.goals), 'candidate goal')} × {len(scene.task.space):,} reachable states, "
                f"{count(self.episode.horizon, 'action')}, model {self.model} (β {self.beta:g}"
                + (f", {said}" if said else "") + ")"
                + ("; goal prior " + ", ".join(f"{g.name} {g.prior:g}" for g in scene.goals)
                   if len({g.prior for g in scene.goals}) > 1 else "")]

    def report_head(self) -> dict:
        return {"domain": self.front.name, "scenario": self.name, "model": self.model, "beta": self.beta,
                "params": dict(self.settings.model.params), "goals": self.goals, "true_goal": self.scene.true_goal}

    def report_tail(self, times: Sequence[int]) -> dict:
        return {"settings": self.settings.described()}

    def table_columns(self) -> dict:
        return {"model": self.model, "beta": self.beta, "k": "", "conventions": self.conventions,
                "params": self.params_text()}
