"""A tabular domain's scenario run by the engine (:class:`TabularSource`).

A statement is judged on rows weighted by their posterior (every one exactly; the
particles under ``smc``, whose scores then carry standard errors):

* about the agent's **initial** belief: (hidden world, initial belief, desire) triples;
* about its **current** belief at t (its belief after the percepts of the path's first t
  steps, as the planner's belief update made it): (hidden world, state of the agent at t,
  desire), each state one of the beliefs its possible percepts lead to
  (:mod:`elot.engine.tables.current`); at t = 0 the current belief is the initial one.

A domain with events (``events(layout)``: what happens besides the agent's moves, who sees
it, and the scene's other agents) is judged in *situations*: a world with every agent's
state (:mod:`elot.engine.tables.minds`), whose atoms add ``happened(e)`` for the events that
have happened and ``observed(a, e)`` for those agent a has seen, with each agent's
belief-in-situation table, so that statements about what an agent saw, and beliefs about
beliefs, are judged. A path no hypothesis explains is an error naming the step
(:class:`UnexplainedPath`). Its front is :class:`elot.domains.tabular.TabularFront`."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from elot.domains.front import Episode
from elot.domains.source import Source, Summary
from elot.engine import Case, Engine, EngineConfig
from elot.engine.settings import Settings
from elot.engine.tables import current, minds
from elot.engine.tables.protocol import world_atoms
from elot.errors import ArgumentError, EvaluationError
from elot.settings import INITIAL


class UnexplainedPath(EvaluationError):
    """A path every hypothesis of the model gives probability 0 (the posterior is empty)."""


class NestedBeliefError(EvaluationError):
    """A belief about a belief asked of a domain that models one agent and no percepts of events."""


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
        self._states: dict[tuple, Any] = {}      # (situations' key) -> ELoT states
        self._minds: dict[tuple[int, int], Any] = {}

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
        """The layout's worlds as ELoT states (their atoms at the start)."""
        from elot.lang.states import State

        if self._worlds is None:
            layout = self.case.layout
            tables = self.front.tables(layout)
            self._worlds = tuple(State.of(world_atoms(self.front.domain, layout, w, name))
                                 for w, name in enumerate(tables.worlds))
        return self._worlds

    def worlds_at(self, t: int):
        """The worlds as ELoT states when the path is at step t: the domain's
        ``world_atoms_at(layout, world, state)`` if it has one (a world that changes along the
        path), else :meth:`worlds`."""
        if not self.front.changes(self.case.layout):
            return self.worlds()
        state = int(self.case.path[t])
        key = ("worlds", state)
        if key not in self._states:
            n_w = len(self.front.tables(self.case.layout).worlds)
            self._states[key] = tuple(self.front.state_of(self.case.layout, w, state) for w in range(n_w))
        return self._states[key]

    @property
    def events(self):
        """The domain's events in this layout (:class:`elot.engine.Events`), or None."""
        return self.engine.events(self.case.layout)

    def judged(self, t: int, at: int):
        """The rows at t: for a statement about the initial belief (``at`` 0) the hidden
        worlds, initial beliefs and desires; about the current one (``at`` t) the agent's
        states at t; in situations with every agent's belief table when the domain has
        events. A path no hypothesis explains is an error naming the first step none does."""
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
        if self.events is not None:
            return self._situated(result, t, at)
        if at == 0:
            return result_hypotheses(result, self.signature, self.worlds_at(0))
        return current_hypotheses(result, self.signature, self.worlds_at(t))

    def minds(self, t: int, at: int):
        """The situations of the rows at t with beliefs at ``at`` (0: before the first
        percept), and every agent's table in them (:func:`elot.engine.tables.minds.build`)."""
        key = (t, at)
        if key not in self._minds:
            result, events = self.result(t), self.events
            tables = self.front.tables(self.case.layout)
            used = minds.models(events, tables)[events.agent]
            if at == 0:
                now = current.before(result.belief_space.beliefs, len(tables.worlds), models=len(used[0]) - 1)
            else:
                now = result.now(every_world=True, models=tuple(used[0][1:]))
            self._minds[key] = minds.build(now, events, tables, list(self.case.path[:t + 1]),
                                           self.config.belief_quantum, perceived=at > 0,
                                           where=f"{self.name} at t={t}")
        return self._minds[key]

    def agents(self, found) -> list[str]:
        """The agents of :meth:`minds` as the signature names them (the observed agent first)."""
        return [self.signature.resolve(a) if a else self.signature.agent for a in found.agents]

    def situations(self, t: int, at: int):
        """The situations of :meth:`minds` as ELoT states: the world's atoms when the path is
        at step ``at``, ``happened(e)`` for each event that has happened by then, and
        ``observed(a, e)`` for each event agent a has seen."""
        from elot.lang.states import State

        found = self.minds(t, at)
        key = ("situations", t, at)
        if key not in self._states:
            events, state = self.events, int(self.case.path[at])
            agents = self.agents(found)
            happened = np.asarray(events.happened, dtype=bool)
            worlds = self.worlds_at(at)
            out = []
            for w, seen in zip(found.world.tolist(), found.seen.tolist()):
                atoms = set(worlds[w].atoms)
                atoms |= {("happened", e) for i, e in enumerate(events.names) if happened[w, state, i]}
                atoms |= {("observed", a, e) for a, bits in zip(agents, seen) for i, e in enumerate(events.names)
                          if bits >> i & 1}
                out.append(State.of(frozenset(atoms)))
            self._states[key] = tuple(out)
        return self._states[key]

    def _situated(self, result, t: int, at: int):
        """The rows in situations (see :meth:`situations`): the observed agent's belief in
        each row its table's row at the row's situation, every agent's table given."""
        from elot.judging import Desires, Hypotheses

        found = self.minds(t, at)
        if at == 0:
            rows = result.rows()
            n_b = len(result.belief_space.beliefs)
            entry = np.asarray(result.worlds, dtype=np.intp)[rows.world] * n_b + rows.belief
        else:
            rows = result.current_rows()
            entry = rows.entry
        row, situation, chance = found.expand(entry)
        tables = dict(zip(self.agents(found), found.tables))
        utilities = np.asarray(result.desire_space.utilities, dtype=np.float64)[rows.desire[row]]
        return Hypotheses(self.signature, self.situations(t, at), situation,
                          {self.signature.agent: found.tables[0][situation]}, rows.weights[row] * chance,
                          prior=rows.prior[row] * chance, ess=rows.ess, prior_draws=rows.draws,
                          desires=Desires(tuple(result.desire_space.objects), utilities), belief_tables=tables)

    def percepts(self, t: int) -> list[tuple[str, str, float]]:
        """``(judgment, option, value)``: the observer's posterior at t that each agent has
        seen each event (``percept``, ``observed(sally, move)``) and that each event has
        happened (``event``, ``happened(move)``); none for a domain without events."""
        events = self.events
        if events is None:
            return []
        from elot.numeric import dot, fsum

        rows = self.judged(t, t)
        total = fsum(rows.weights)      # so that what every row says has probability 1, not 1 - 2⁻⁵³
        found = self.minds(t, t)
        state = int(self.case.path[t])
        happened = np.asarray(events.happened, dtype=bool)
        out = []
        for a, name in enumerate(self.agents(found)):
            for i, e in enumerate(events.names):
                saw = (found.seen[rows.true_index, a] >> i & 1).astype(bool)
                out.append(("percept", f"observed({name}, {e})", min(1.0, dot(rows.weights, saw) / total)))
        for i, e in enumerate(events.names):
            done = happened[found.world[rows.true_index], state, i]
            out.append(("event", f"happened({e})", min(1.0, dot(rows.weights, done) / total)))
        return out

    def percept_cells(self, t: int) -> dict:
        """The ``percepts`` cell of a batch row at t: ``observed(sally, move)=0.1; happened(move)=1.0``."""
        if self.events is None:
            return {}
        return {"percepts": "; ".join(f"{option}={value!r}" for _, option, value in self.percepts(t))}

    def outputs(self, t: int | None = None) -> list[tuple[str, str, float]]:
        """The front's outputs of the result at t (default: the end), then the percepts' (:meth:`percepts`)."""
        t = self.episode.horizon if t is None else t
        return self.front.outputs(self.result(t)) + self.percepts(t)

    def belief_posterior(self, t: int) -> list[tuple[str, float]]:
        """The posterior mean of the agent's initial belief (what the engine infers); over
        the worlds by their names where the domain has events (its situations are many)."""
        from elot.numeric import dot_columns

        if self.events is not None:
            rows = result_hypotheses(self.result(t), self.signature, self.worlds())
            names = self.front.tables(self.case.layout).worlds
            return [(str(name), float(p)) for name, p in zip(names, dot_columns(rows.weights,
                                                                                rows.beliefs[self.signature.agent]))]
        rows = self.at(t, INITIAL)
        average = dot_columns(rows.weights, rows.beliefs[self.signature.agent])
        return [(self.world_label(w), float(p)) for w, p in zip(rows.worlds, average)]

    def world_posterior(self, t: int) -> list[tuple[str, float]]:
        """P(situation | the path up to t), situations that read alike added up (where the
        domain has events, several agents' states make situations with the same atoms)."""
        found = super().world_posterior(t)
        if self.events is None:
            return found
        from elot.numeric import fsum

        shares: dict[str, list[float]] = {}
        for label, p in found:
            shares.setdefault(label, []).append(p)
        return [(label, fsum(ps)) for label, ps in shares.items()]

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
        rows = tuple((judgment, option, f"{value:.3f}") for judgment, option, value in self.outputs())
        return Summary(f"Outputs at t={self.episode.horizon}", (("judgment", "left"), ("option", "left"),
                                                                ("value", "right")), rows,
                       self.front.describe_outputs())

    def csv_columns(self, t: int) -> dict:
        return {f"{judgment}_{option}": value for judgment, option, value in self.outputs(t)}

    def report_head(self) -> dict:
        outputs = self.outputs()
        return {"domain": self.front.name, "scenario": self.name, "model": self.model,
                "settings": self.settings.described(), "ran": self.result().describe(),
                "outputs": [{"judgment": j, "option": o, "value": v} for j, o, v in outputs]}

    def report_at(self, t: int) -> dict:
        result = self.result(t)
        warnings = {"warnings": result.warnings()} if result.estimated else {}
        return {"outputs": [{"judgment": j, "option": o, "value": v} for j, o, v in self.outputs(t)], **warnings}

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


def current_hypotheses(result, signature, worlds):
    """A result's rows about the agent's current belief (:meth:`~elot.engine.tables.results.PathResult.current_rows`:
    its states at the path's end, each with its belief) as ELoT hypotheses over ``worlds``."""
    from elot.judging import Desires, Hypotheses

    rows = result.current_rows()
    now = result.now()
    utilities = np.asarray(result.desire_space.utilities, dtype=np.float64)[rows.desire]
    return Hypotheses(signature, worlds, np.asarray(result.worlds, dtype=np.intp)[rows.world],
                      {signature.agent: now.belief[now.state[rows.entry]]}, rows.weights, prior=rows.prior,
                      ess=rows.ess, prior_draws=rows.draws, desires=Desires(tuple(result.desire_space.objects),
                                                                           utilities))


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
