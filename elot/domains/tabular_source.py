"""A tabular domain's scenario run by the engine (:class:`TabularSource`): rows are
(hidden world, initial belief, desire) triples weighted by their posterior (every one
exactly; the particles drawn under ``smc``, whose scores then carry standard errors). The
engine infers the agent's initial belief and its desires: a statement about the agent's
current belief after t > 0 steps is refused (:class:`CurrentBeliefError`), and a path no
hypothesis explains is an error naming the step (:class:`UnexplainedPath`). Its front is
:class:`elot.domains.tabular.TabularFront`."""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

import numpy as np

from elot.domains.front import Episode
from elot.domains.source import Source, Summary
from elot.engine import Case, Engine, EngineConfig
from elot.engine.settings import Settings
from elot.engine.tables.protocol import world_atoms
from elot.errors import ArgumentError, EvaluationError
from elot.settings import INITIAL


class UnexplainedPath(EvaluationError):
    """A path every hypothesis of the model gives probability 0 (the posterior is empty)."""


class CurrentBeliefError(EvaluationError):
    """A statement about the agent's current belief, which a tabular domain's run does not infer."""



class TabularSource(Source):
    """An episode of a tabular domain inverted by the engine under ``settings``; results are
    made on demand for each time and kept (``results``: already run, by time)."""

    def __init__(self, front: Any, episode: Episode, settings: Settings, engine: Engine,
                 results: dict | None = None):
        self.front = front
        self.episode = episode
        self._asked = settings
        self.engine = engine
        self._results: dict[int, Any] = dict(results or {})
        self._signature = None
        self._worlds = None

    @property
    def case(self) -> Case:
        return self.episode.detail.case

    @property
    def settings(self) -> Settings:
        """What ran: the method ``auto`` chose, the seed drawn."""
        return self.front.ran(self._asked, self.engine, self.result())

    @property
    def config(self) -> EngineConfig:
        """The engine's settings of the run (the planner resolved)."""
        return self.engine.config.with_beta(self._asked.beta)

    @property
    def signature(self):
        if self._signature is None:
            self._signature = self.front.signature(self.episode)
        return self._signature

    @property
    def estimated(self) -> bool:
        return bool(self.result().estimated)

    def result(self, t: int | None = None):
        """The inversion of the path's first ``t`` steps (default: all of it)."""
        t = self.episode.horizon if t is None else int(t)
        if not 0 <= t <= self.episode.horizon:
            raise ArgumentError(f"time {t} is not one of 0..{self.episode.horizon} ({self.name})")
        if t not in self._results:
            case = self.case
            part = type(case)(case.layout, tuple(case.path[:t + 1]), case.world, case.name)
            [[self._results[t]]] = self.engine.run([part], [self._asked.beta])
        return self._results[t]

    def how(self) -> str:
        result = self.result()
        return f"smc with {result.particles:,} particles" if result.estimated else ""

    def worlds(self):
        from elot.lang.states import State

        if self._worlds is None:
            layout = self.case.layout
            tables = self.front.tables(layout)
            self._worlds = tuple(State.of(world_atoms(self.front.domain, layout, w, name))
                                 for w, name in enumerate(tables.worlds))
        return self._worlds

    def judged(self, t: int, at: int):
        """The rows at t, with the initial belief for a statement about it (``at`` 0); a
        path no hypothesis explains is an error naming the first step none does."""
        result = self.result(t)
        if not result.possible:
            first = next(k for k in range(1, t + 1) if not self.result(k).possible)
            raise UnexplainedPath(
                f"no hypothesis of the {self.model} model explains step {first} of {self.name} "
                f"({self.front.label(self.episode, first)}): its probability is 0 under every one, so every "
                "statement's score would be 0",
                hint="each step is possible in some world, but no hypothesis (one world, one initial belief, one "
                     "desire) makes the whole path possible for this model's agent: check the path and its world, "
                     "or try another --model")
        return result_hypotheses(result, self.signature, self.worlds(), with_beliefs=at == 0)

    def admit(self, statements):
        out = []
        for st in super().admit(statements):
            if isinstance(st.error, CurrentBeliefError):
                st = dataclasses.replace(st, note="current belief: not inferred")
            out.append(st)
        return out

    def belief_posterior(self, t: int) -> list[tuple[str, float]]:
        """The posterior mean of the agent's initial belief (what the engine infers)."""
        from elot.numeric import dot_columns

        rows = self.at(t, INITIAL)
        average = dot_columns(rows.weights, rows.beliefs[self.signature.agent])
        return [(self.world_label(w), float(p)) for w, p in zip(rows.worlds, average)]

    def belief_title(self, t: int, agent: str) -> str:
        return f"{agent}'s initial belief over worlds (as inferred at t={t})"

    def goal_posterior(self, t: int) -> dict[str, float]:
        """The posterior probability that each object is the one the agent wants most
        (ties shared), what ``:goals`` shows."""
        result = self.result(t)
        utilities = np.asarray(result.desire_space.utilities, dtype=np.float64)
        best = utilities == utilities.max(axis=1, keepdims=True)
        share = best / best.sum(axis=1, keepdims=True)
        return {o: float(p) for o, p in zip(result.desire_space.objects, result.desire_posterior() @ share)}

    # -- reporting ---------------------------------------------------------------------------

    def header(self, times: Sequence[int]) -> list[str]:
        result = self.result()
        config = self.config
        case = self.case
        world = "unknown" if case.world is None else self.front.tables(case.layout).worlds[case.world]
        lines = [f"[bold]{self.name}[/bold] ({self.front.name}, layout {case.layout}, true world {world}): "
                 f"{len(result.belief_space.beliefs)} initial beliefs × {len(result.desire_space.utilities)} "
                 f"desires, {self.episode.horizon} steps, model {self.model} (planner {config.planner}, "
                 f"β={config.beta:g})"]
        if result.estimated:
            lines.append(f"particle inference: {result.particles:,} particles (seed {result.config.seed}), "
                         f"{result.planned:,} distinct utility vectors planned, effective sample size "
                         f"{result.ess:,.1f}; figures are estimates, L ± its standard error")
            lines += [f"[yellow]warning: {warning}[/yellow]" for warning in result.warnings()]
        if result.note:
            lines.append(f"[dim]{result.note}[/dim]")
        if not result.possible:
            lines.append("[yellow]no hypothesis gives this path a positive probability: the posterior is empty"
                         "[/yellow]")
        return lines

    def summary(self, times: Sequence[int]) -> Summary:
        rows = tuple((judgment, option, f"{value:.3f}") for judgment, option, value in self.front.outputs(self.result()))
        return Summary(f"Outputs at t={self.episode.horizon}", (("judgment", "left"), ("option", "left"),
                                                                ("value", "right")), rows,
                       self.front.describe_outputs())

    def csv_columns(self, t: int) -> dict:
        return {f"{judgment}_{option}": value for judgment, option, value in self.front.outputs(self.result(t))}

    def report_head(self) -> dict:
        outputs = self.front.outputs(self.result())
        return {"domain": self.front.name, "scenario": self.name, "model": self.model,
                "settings": self.settings.described(), "ran": self.result().describe(),
                "outputs": [{"judgment": j, "option": o, "value": v} for j, o, v in outputs]}

    def report_at(self, t: int) -> dict:
        result = self.result(t)
        warnings = {"warnings": result.warnings()} if result.estimated else {}
        return {"outputs": [{"judgment": j, "option": o, "value": v} for j, o, v in self.front.outputs(result)],
                **warnings}

    def table_columns(self) -> dict:
        result = self.result()
        sampled = result.estimated
        ran = self.settings.inference
        return {"model": self.model, "beta": self.beta, "k": "", "conventions": "elot",
                "inference": result.config.method, "particles": result.particles if sampled else "",
                "seed": result.config.seed if sampled else "",
                "ess_threshold": ran.ess_threshold if sampled else "", "moves": ran.moves if sampled else ""}

    def diagnostics(self, t: int) -> dict:
        # the warnings run prints travel with the rows, so a batch table says which L to doubt
        result = self.result(t)
        if not result.estimated:
            return {"ess": "", "warning": ""}
        return {"ess": result.ess, "warning": "; ".join(result.warnings())}


def result_hypotheses(result, signature, worlds, *, with_beliefs: bool = True, per_agent: bool = True):
    """A result's rows (every hypothesis, or the particles with their effective sample size
    and prior draws, so that scores carry standard errors) as ELoT hypotheses over
    ``worlds`` (the states of the layout's worlds); with ``with_beliefs``, each row's
    belief is its initial belief, the signature's agent's."""
    from elot.judging import Desires, Hypotheses

    rows = result.rows()
    beliefs: dict[str, np.ndarray] = {}
    if with_beliefs:
        table = np.asarray(result.belief_space.beliefs, dtype=np.float64)
        beliefs = {signature.agent: (table / table.sum(axis=1, keepdims=True))[rows.belief]}
    utilities = np.asarray(result.desire_space.utilities, dtype=np.float64)[rows.desire]
    return Hypotheses(signature, worlds, np.asarray(result.worlds, dtype=np.intp)[rows.world], beliefs,
                      rows.weights, prior=rows.prior, ess=rows.ess, prior_draws=rows.draws, per_agent=per_agent,
                      desires=Desires(tuple(result.desire_space.objects), utilities))
