"""``elot batch`` on a domain of the inference engine (food trucks, or a researcher's own
from a file): the same tidy table as the gridworld's batch (:data:`elot.study.tables.COLUMNS`),
from tasks the same executors run and the same journal keeps.

One :class:`DomainTask` per (model, layout): the engine plans each layout once for every
β (planning does not depend on β), inverts each scenario's path once, then scores every
statement at each scenario's judgment points for every β and set of thresholds. The
table's ``k`` is empty (a domain has no belief size) and ``conventions`` is ``elot``.
A task of particle inference (``method`` smc or auto) fills the particle columns the
gridworld's batch has (:data:`elot.study.tables.PARTICLE_COLUMNS`): the method and seed
that ran, the particles, the effective sample size at each t and L's standard error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from elot.errors import ElotError
from elot.judging import Statement
from elot.lang.thresholds import Thresholds
from elot.settings import DEFAULT_PARTICLES
from elot.study.params import StudyError
from elot.study.tasks import score_cells


@dataclass(frozen=True)
class DomainTask:
    """Scenarios of one layout under one model, for every β: what a worker runs
    (:meth:`run`, rows of the tidy table). The domain is named (``--domain``), not held,
    so that the task pickles to any worker; each worker loads it."""

    index: int
    domain: str
    data: str | None
    scenarios: tuple[str, ...]        # references the domain's front reads (names stay in order)
    picks: tuple[int, ...]            # which of each reference's expansion (a file of several)
    model: str
    betas: tuple[float, ...]
    planner: str | None
    items: tuple[Statement, ...]
    thresholds: tuple[tuple[str, Thresholds], ...]
    method: str = "exact"
    particles: int = DEFAULT_PARTICLES
    seed: int | None = None

    @property
    def config(self):
        """The engine's config of the task (its first β, its inference method)."""
        return self._front().config(self.model, planner=self.planner, beta=self.betas[0], method=self.method,
                                    particles=self.particles, seed=self.seed)

    def _front(self):
        from elot.domains.front import front_of
        from elot.domains.load import load_domain

        return front_of(load_domain(self.domain), self.domain)

    def run(self) -> tuple[int, list[dict]]:
        from elot.domains.source import DomainSource, refuse_current_beliefs
        from elot.engine import Engine
        from elot.judging import compile_statements, resolve_statements, score_statements
        from elot.translate import resolve_statement

        front = self._front()
        found = [front.expand(spec, self.data)[pick] for spec, pick in zip(self.scenarios, self.picks)]
        engine = Engine(front.domain, self.config)
        # one β's results at a time: a long β sweep holds one set of likelihood tables
        runs = engine.each_beta([s.case for s in found], list(self.betas))
        rows: list[dict] = []
        signature = front.signature()
        for beta, results in zip(self.betas, runs):
            for scenario, result in zip(found, results):
                source = DomainSource(front, scenario, engine.config.with_beta(beta), self.model, engine=engine,
                                      results={scenario.horizon: result})
                statements = resolve_statements(self.items, lambda text, mode: resolve_statement(
                    text, mode=mode, scenario=source)[:2])
                base = {"scenario": scenario.ref or scenario.name, "map": str(scenario.case.layout), "model": self.model,
                        "beta": beta, "k": "", "conventions": "elot", **particle_columns(result)}
                for label, thresholds in self.thresholds:
                    compiled = refuse_current_beliefs(compile_statements(statements, signature, thresholds=thresholds),
                                                      source)
                    scored, table = score_statements(source, compiled, source.judgments)
                    for n, st in enumerate(scored):
                        error = "" if st.error is None else st.error.message
                        for t, got in zip(source.judgments, table):
                            row = {**base, "thresholds": label, "statement_id": st.id, "statement": st.text,
                                   "formula": st.formula or "", "mode": str(st.mode), **dict(st.factors),
                                   "t": t, "P": "", "L": "", "pi": "", "error": error}
                            row.update(ess=getattr(source.result(t), "ess", ""), warning="")
                            row.update(score_cells(got.get(n)))
                            rows.append(row)
        return self.index, rows

    @property
    def scenario(self) -> tuple[str, ...]:
        """What the executors group tasks by (one chunk loads them once)."""
        return self.scenarios

    def cost(self) -> float:
        """Rough relative seconds, for scheduling the largest first: planning the layout
        once, and each scenario's inversion and scores for every β."""
        return 1.0 + len(self.scenarios) * len(self.betas) * (0.01 + 0.002 * len(self.items) * len(self.thresholds))

    def estimate_bytes(self) -> int:
        """Memory the task holds at once: the engine's estimate for its layout."""
        from elot.engine import Engine

        front = self._front()
        found = front.expand(self.scenarios[0], self.data)[self.picks[0]]
        return Engine(front.domain, self.config).estimate([found.case.layout]).bytes


def particle_columns(result) -> dict:
    """The particle columns of a result's rows (written only in tables that have them, as
    the gridworld's): how it ran (``inference``, ``particles``, ``seed``)."""
    sampled = result.estimated
    return {"inference": result.config.method, "particles": result.particles if sampled else "",
            "seed": result.config.seed if sampled else ""}


def plan_domain_tasks(domain: str, specs: Sequence[str], *, data: str | None, models: Sequence[str],
                      betas: Sequence[float], planner: str | None, items: Sequence[Statement],
                      thresholds: Sequence, methods: Sequence[str] = ("exact",),
                      particles: int = DEFAULT_PARTICLES, seed: int | None = None) -> list[DomainTask]:
    """One task per (model, inference method, layout), scenarios in the order given;
    everything checked now (the domain loads, every scenario reads, every model is the
    domain's, every method is one), not in a worker."""
    from elot.domains.front import front_of
    from elot.domains.load import load_domain

    if not items:
        raise StudyError("nothing to score: give statements with --statement TEXT or --statements FILE",
                         hint="a domain's scenarios carry no statements of their own")
    front = front_of(load_domain(domain), domain)
    models = list(dict.fromkeys(models))
    for model in models:
        try:
            front.config(model, planner=planner)
        except ElotError as error:
            raise StudyError(f"--model: {error.message}", hint=error.hint) from None
    by_layout: dict = {}
    for spec in specs:
        for pick, scenario in enumerate(front.expand(spec, data)):
            by_layout.setdefault(scenario.case.layout, []).append((spec, pick))
    if not by_layout:
        raise StudyError("no scenarios to run", hint="give the domain's scenarios")
    labels = tuple(dict.fromkeys((p.label, p.thresholds) for p in thresholds))
    betas = tuple(dict.fromkeys(float(b) for b in betas))
    from elot.engine import METHODS

    for method in methods:
        if method not in METHODS:
            raise StudyError(f"--inference: unknown inference method {method!r}", hint=f"use one of: {', '.join(METHODS)}")
    tasks = []
    for model in models:
        for method in dict.fromkeys(methods):
            for layout, refs in by_layout.items():
                tasks.append(DomainTask(len(tasks), domain, data, tuple(r for r, _ in refs),
                                        tuple(p for _, p in refs), model, betas, planner, tuple(items), labels,
                                        method, particles, seed))
    return tasks
