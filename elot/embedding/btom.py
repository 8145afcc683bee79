"""elot's own BToM inference as a belief model (one implementation of the protocol).

:class:`BToMModel` wraps an :class:`~elot.domains.doors_keys_gems.inference.Inference`: its hypotheses at time t
are the (true state, initial belief) pairs with their beliefs at t and their posterior
summed over goals, as the inference hands them to scoring
(:func:`elot.domains.rows.judged`): each pair stands for ``n_goals`` hypotheses
(its ``prior`` mass) of which ``live`` are still possible, so :func:`elot.judge` gives
exactly what :func:`elot.domains.doors_keys_gems.scoring.score` gives, under both conventions.
"""

from __future__ import annotations

from typing import Any

from elot.domains import rows
from elot.judging import Hypotheses


class BToMModel:
    """A :class:`~elot.embedding.BeliefModel` over a scenario's exact BToM inference."""

    def __init__(self, inference: Any) -> None:
        self.inference = inference
        self.signature = rows.signature(inference)
        self.times = range(inference.steps + 1)
        self.name = str(getattr(inference.scenario, "name", "btom"))
        self.judgments = tuple(int(t) for t in getattr(inference.scenario, "judgments", ()))

    @staticmethod
    def from_scenario(scenario: Any, **options: Any) -> "BToMModel":
        """Run :func:`elot.domains.doors_keys_gems.inference.infer` on a scenario (``options``: model, beta, k, ...)."""
        from elot.domains.doors_keys_gems.inference import infer

        return BToMModel(infer(scenario, **options))

    def hypotheses(self, t: int) -> Hypotheses:
        """The worlds and beliefs at t, weighted by the posterior at t."""
        return self._rows(t, t)

    def initial_hypotheses(self, t: int) -> Hypotheses:
        """The worlds and beliefs at 0, weighted by the posterior at t (SPEC §4)."""
        return self._rows(0, t)

    def goal_posterior(self, t: int) -> dict[str, float]:
        """P(goal | actions up to t), for the REPL's ``:goals``."""
        return self.inference.goal_posterior(t)

    def label(self, t: int) -> str:
        """The action that led to step t."""
        from elot.domains.doors_keys_gems.world import fmt_action

        return "start" if t <= 0 else fmt_action(self.inference.actions[t - 1])

    def _rows(self, t_world: int, t_weights: int) -> Hypotheses:
        return rows.judged(self.inference, t_weights, t_world)
