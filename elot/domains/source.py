"""A domain scenario run by the engine, as a source of ELoT hypotheses: what ``elot run``
scores statements against (``judged(t, at)``, elot's score loop) and what ``elot repl``
queries (a belief model: ``times``, ``signature``, ``hypotheses(t)``,
``initial_hypotheses(t)``, ``label(t)``).

The engine infers the agent's **initial** belief and its desires from the path up to t.
Rows are (hidden world, initial belief, desire) triples weighted by their posterior (every
one under exact inference; the particles drawn under ``smc``, whose scores then carry
standard errors from their effective sample size); each
row's belief is the initial belief, each row carries its utilities (for the desire
operators). A statement about the agent's *current* belief after t > 0 steps cannot be
judged from that: it is refused with a hint (statements about desires or the world are
judged in either mode).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from elot.domains.front import DomainScenario, Front
from elot.engine import Engine, EngineConfig
from elot.engine.tables.hypotheses import result_hypotheses
from elot.engine.tables.run import Result
from elot.engine.tables.protocol import ask, check_tables
from elot.errors import ArgumentError, EvaluationError
from elot.judging import Hypotheses
from elot.lang.states import State


class CurrentBeliefError(EvaluationError):
    """A statement about the agent's current belief, which a domain run does not infer."""


class DomainSource:
    """``scenario`` of ``front``'s domain, inverted by an engine with ``config``; results are
    made on demand for each time and kept."""

    conventions = "elot"

    def __init__(self, front: Front, scenario: DomainScenario, config: EngineConfig | None = None,
                 model: str | None = None, *, engine: Engine | None = None,
                 results: dict[int, Result] | None = None):
        """``engine`` (one of the same domain, whose plans are shared: planning does not
        depend on beta) and ``results`` (already run, by time) save work in a batch."""
        self.front = front
        self.scenario = scenario
        self.engine = engine or Engine(front.domain, config)
        self.beta = self.engine.config.beta if config is None else float(config.beta)
        self.model = model or front.model_name(None)
        self._results: dict[int, Result] = dict(results or {})
        self._signature = None
        self._worlds: tuple[State, ...] | None = None

    # -- the belief model's view ---------------------------------------------------------

    @property
    def name(self) -> str:
        return f"{self.front.name} {self.scenario.name}"

    @property
    def times(self) -> range:
        return range(self.scenario.horizon + 1)

    @property
    def judgments(self) -> tuple[int, ...]:
        return self.scenario.judged

    @property
    def signature(self):
        if self._signature is None:
            self._signature = self.front.signature()
        return self._signature

    @property
    def config(self) -> EngineConfig:
        """What runs (the planner resolved)."""
        return self.engine.config.with_beta(self.beta)

    def label(self, t: int) -> str:
        return self.front.step_labels(self.scenario)[t - 1]

    def result(self, t: int | None = None) -> Result:
        """The inversion of the path's first ``t`` steps (default: all of it)."""
        t = self.scenario.horizon if t is None else int(t)
        if not 0 <= t <= self.scenario.horizon:
            raise ArgumentError(f"time {t} is not one of 0..{self.scenario.horizon} ({self.name})")
        if t not in self._results:
            case = self.scenario.case
            part = type(case)(case.layout, tuple(case.path[:t + 1]), case.world, case.name)
            [[self._results[t]]] = self.engine.run([part], [self.beta])
        return self._results[t]

    def estimate(self):
        """What planning the scenario's layout needs (checked against the budget by run)."""
        return self.engine.estimate([self.scenario.case.layout])

    def initial_hypotheses(self, t: int) -> Hypotheses:
        return self._hypotheses(self.result(t), with_beliefs=True)

    def hypotheses(self, t: int) -> Hypotheses:
        """The rows at t for statements about the current belief: the initial belief
        stands for it only at t = 0; later, beliefs are left out (a statement about them
        is refused by :meth:`judged`; in the REPL the evaluator says no belief is known)."""
        return self._hypotheses(self.result(t), with_beliefs=t == 0)

    def judged(self, t: int, at: int) -> Hypotheses:
        """elot's score loop: the rows at t, with beliefs at ``at`` (0: the initial belief)."""
        return self._hypotheses(self.result(t), with_beliefs=at == 0)

    def goal_posterior(self, t: int) -> dict[str, float]:
        """The posterior probability that each object is the one the agent wants most
        (ties shared), what ``:goals`` shows."""
        result = self.result(t)
        utilities = np.asarray(result.desire_space.utilities, dtype=np.float64)
        best = utilities == utilities.max(axis=1, keepdims=True)
        share = best / best.sum(axis=1, keepdims=True)
        return {o: float(p) for o, p in zip(result.desire_space.objects, result.desire_posterior() @ share)}

    # -- rows ------------------------------------------------------------------------------

    def worlds(self) -> tuple[State, ...]:
        if self._worlds is None:
            layout = self.scenario.case.layout
            tables = check_tables(self.front.domain, ask(self.front.domain, "tables", layout))
            self._worlds = tuple(State.of(frozenset(ask(self.front.domain, "world_atoms", layout, w)))
                                 for w in range(len(tables.worlds)))
        return self._worlds

    def _hypotheses(self, result: Result, *, with_beliefs: bool) -> Hypotheses:
        return result_hypotheses(result, self.signature, self.worlds(), with_beliefs=with_beliefs)


def refuse_current_beliefs(statements, source: Any):
    """The statements with those about the agent's current belief (mode current, a
    ``prob_of`` in their lowered form) marked failed: the engine infers the initial belief."""
    from dataclasses import replace as _replace

    from elot.settings import CURRENT

    out = []
    for st in statements:
        compiled = st.compiled
        if compiled is not None and st.mode == CURRENT and compiled.needs_belief and max(source.judgments) > 0:
            error = CurrentBeliefError(
                f"{st.text}: is about the {source.signature.agent}'s current belief, which the "
                f"{source.front.name} model does not infer (it infers the initial belief and the desires)",
                hint="ask about the initial belief: 'initial:' before the statement, --mode initial, or "
                     "English such as 'At first the student thought ...'")
            st = _replace(st, compiled=None, error=error, note="current belief: not inferred")
        out.append(st)
    return out
