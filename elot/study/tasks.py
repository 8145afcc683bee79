"""Tasks: the work of a batch in pieces any worker runs, in any domain.

A task is one group of scenarios that share work (the gridworld: one scenario; a tabular
domain: the scenarios of one layout, planned once) under one setting (model, its
parameters, inference method) for one or more β (a domain whose runs plan once for every β
takes them all in one task; the gridworld, one each). It runs the inference once per β and
scores every statement at every judgment point under every set of thresholds (thresholds
and statements never re-run inference). :func:`run_task` is a plain top-level function, so
the same task runs anywhere an executor sends it (:mod:`elot.study.executors`): the task
carries its domain and scenarios by reference (:class:`elot.study.references.ScenarioRef`),
and the worker rebuilds them.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from elot.engine.settings import Budget, InferenceSettings, Settings
from elot.errors import ElotError
from elot.statements import Statement
from elot.lang.thresholds import Thresholds
from elot.settings import METHODS, check_number
from elot.study.params import Params, StudyError
from elot.study.references import ScenarioRef, resolve, scenario_items
from elot.study.tables import ALL_COLUMNS, PARAM_COLUMNS, PARTICLE_COLUMNS, PERCEPT_COLUMNS


@dataclass(frozen=True)
class Task:
    """One group of scenarios (:class:`ScenarioRef`, of one domain) under ``settings`` for
    each of ``betas``, and everything scored on it: ``items`` (None: each scenario's own
    statements) under each of ``thresholds``, free variables bound (``bind_free``) as the
    reference does."""

    index: int
    scenarios: tuple[ScenarioRef, ...]
    settings: Settings
    betas: tuple[float, ...]
    items: tuple[Statement, ...] | None
    thresholds: tuple[tuple[str, Thresholds], ...]
    bind_free: bool = True

    @property
    def scenario(self) -> ScenarioRef:
        """The task's first scenario (what the executors group tasks by)."""
        return self.scenarios[0]

    @property
    def front(self):
        return self.scenario.front

    @property
    def model(self) -> str:
        return self.settings.model.name

    @property
    def inference(self) -> str:
        """How inference runs (the table's ``inference`` column)."""
        return self.settings.inference.method

    def cost(self) -> float:
        """Rough relative seconds, for scheduling the largest first."""
        episodes = [ref.load() for ref in self.scenarios]
        n_items = len(self.items) if self.items is not None else max(len(e.statements) for e in episodes)
        return self.front.task_cost(episodes, self.settings, len(self.betas), n_items * len(self.thresholds))

    def sizing_key(self) -> tuple:
        """What the task's memory and cost depend on: its scenarios, its settings at any β (β
        weighs the agent's choices; no domain's tables, spaces or particles depend on it),
        how many β, statements and thresholds. Tasks with one key are sized once."""
        items = None if self.items is None else len(self.items)
        model, settings = self.settings.model, self.settings
        return (self.scenarios, model.name, model.params, settings.inference, settings.budget, len(self.betas),
                items, len(self.thresholds))

    def estimate_bytes(self) -> int:
        """Memory the task holds at once (its inference refused now, when over the budget)."""
        return self.front.task_bytes([ref.load() for ref in self.scenarios], self.settings)


def run_task(task: Task) -> tuple[int, list[dict]]:
    """Run one task: ``(task.index, rows)``. Statement errors become rows with ``error``.
    The columns that say how inference ran, and its diagnostics at each t, come from the
    run itself (:meth:`~elot.domains.front.Source.table_columns`,
    :meth:`~elot.domains.front.Source.diagnostics`)."""
    from elot.judging import score_statements
    from elot.statements import compile_statements, resolve_statements

    front = task.front
    episodes = [ref.load() for ref in task.scenarios]
    rows: list[dict] = []
    # one β's runs at a time: a long β sweep holds one set of likelihood tables
    for sources in front.runs(episodes, task.settings, task.betas):
        for ref, episode, source in zip(task.scenarios, episodes, sources):
            items = task.items if task.items is not None else scenario_items(ref)
            statements = resolve_statements(items, lambda text, mode: resolve(ref, text, mode))
            times = source.judgments
            base = {"scenario": ref.name, "map": front.map_name(episode), **source.table_columns()}
            diagnostics = {t: {**source.diagnostics(t), **source.percept_cells(t)} for t in times}
            for label, thresholds in task.thresholds:
                compiled = source.admit(compile_statements(statements, source.signature, thresholds=thresholds,
                                                           bind_free=task.bind_free))
                scored, table = score_statements(source, compiled, times)
                for n, st in enumerate(scored):
                    row = {**base, "thresholds": label, "statement_id": st.id, "statement": st.text,
                           "formula": st.formula or "", "mode": str(st.mode), **dict(st.factors)}
                    error = "" if st.error is None else st.error.message
                    for t, scores in zip(times, table):
                        out = {**row, "t": t, "P": "", "L": "", "pi": "", "error": error, **diagnostics[t]}
                        out.update(score_cells(scores.get(n)))
                        rows.append(out)
    return task.index, rows


def score_cells(s) -> dict:
    """A score's cells of a study table: P, L and π, and L's standard error ``L_se`` where L
    is estimated (particles); empty cells where the statement was not scored."""
    if s is None:
        return {"P": "", "L": "", "pi": ""}
    cells = {"P": s.posterior, "L": s.normalized_likelihood, "pi": s.prior_fraction}
    if s.stderr is not None:
        cells["L_se"] = s.stderr
    return cells


@dataclass(frozen=True)
class Grid:
    """The settings a batch runs every scenario under: ``models``, ``betas``, the models'
    parameters each with its values (``params``: name -> values; the gridworld's k and
    conventions), the inference ``methods`` and the particle filter's settings
    (``inference``: particles, seed, ess_threshold, moves, backend), and the budget."""

    models: tuple[str | None, ...] = (None,)
    betas: tuple[float | None, ...] = (None,)
    params: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    methods: tuple[str, ...] = ("exact",)
    inference: InferenceSettings = InferenceSettings()
    budget: Budget = Budget()


def plan_tasks(refs: Sequence[ScenarioRef], grid: Grid = Grid(), *, items: Sequence[Statement] | None = None,
               thresholds: Sequence[Params] = (Params(Thresholds()),), bind_free: bool = True) -> list[Task]:
    """Every task of a batch, in table order: for each group of scenarios (in the order
    given), each model, β (all at once in a domain that plans once for every β), setting
    of the models' parameters and inference method. Everything is checked now (each model
    is the domain's, each value its setting's), not in a worker; a value repeated in a list
    (``--model full,full``, ``--beta 1,1.0``) counts once: the same task twice would only
    duplicate its rows in the table."""
    if not refs:
        raise StudyError("no scenarios to run", hint="give scenarios")
    front = refs[0].front
    models = list(dict.fromkeys(as_option("model", front.model_name, m) for m in grid.models))
    betas = list(dict.fromkeys(None if b is None else float(check_option("beta", b)) for b in grid.betas))
    for method in grid.methods:
        if method not in METHODS:
            raise StudyError(f"--inference: unknown inference method {method!r}", hint=f"use one of: {', '.join(METHODS)}")
    methods = list(dict.fromkeys(grid.methods))
    as_option("param", front.check_taken, models, dict(grid.params))
    # each model's own parameters: a value of one it does not take is no setting of it
    own = {model: settings_grid(front, model, dict(grid.params)) for model in models}
    labels = tuple(dict.fromkeys((p.label, p.thresholds) for p in thresholds))
    given = tuple(items) if items else None
    groups: dict[Any, list[ScenarioRef]] = {}
    for ref in refs:
        if given is None and not ref.load().statements:   # refused before any work: a header alone looks like a result
            raise StudyError(f"nothing to score: {ref.name} has no statements",
                             hint="give statements with --statement TEXT or --statements FILE"
                                  + (f", or {front.statements_hint}" if front.statements_hint else ""))
        groups.setdefault(front.group(ref.load()), []).append(ref)
    tasks: list[Task] = []
    checked: dict[tuple, Settings] = {}     # one check per setting, not per group of scenarios
    for group in groups.values():
        members = tuple(group)                # one tuple for the group's tasks
        for model in models:
            sweeps = [tuple(betas)] if front.sweeps_betas else [(b,) for b in betas]
            for chunk in sweeps:
                for params in own[model]:
                    for method in methods:
                        key = (model, chunk[0], method, tuple(params.values()))
                        if key not in checked:
                            checked[key] = as_option("model", front.settings, model, chunk[0],
                                                     dataclasses.replace(grid.inference, method=method),
                                                     grid.budget, **params)
                        settings = checked[key]
                        run_betas = tuple(settings.beta if b is None else b for b in chunk)
                        tasks.append(Task(len(tasks), members, settings, run_betas, given, labels, bind_free))
    return tasks


def settings_grid(front, model: str | None, params: dict) -> list[dict]:
    """Every setting of ``model``'s parameters a batch runs and a fit tries: the product of
    the values given of each parameter it takes (a tuple is several values, as ``--param
    epsilon=0.05,0.1`` gives; one value or None is one), each once, in the order given."""
    own = front.model_params(model, params)
    names = list(own)
    values = [list(dict.fromkeys(v)) if isinstance(v, tuple) else [v] for v in own.values()]
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def check_option(name: str, value: float) -> float:
    """``value`` checked as the CLI checks ``--NAME`` (:func:`elot.settings.check_number`:
    the same limits and words everywhere), or a :class:`StudyError` naming the option."""
    return as_option(name, check_number, name, value)


def as_option(option: str, check: Callable, *args, **kwargs):
    """``check(*args)``, its :class:`ElotError` restated as a :class:`StudyError` about
    ``--OPTION`` (the same message and hint)."""
    try:
        return check(*args, **kwargs)
    except ElotError as error:
        raise StudyError(f"--{option}: {error.message}" if not error.message.startswith("--") else error.message,
                         hint=error.hint) from None


def table_columns(tasks: Sequence[Task]) -> tuple[str, ...]:
    """The table's columns: :data:`ALL_COLUMNS`, :data:`PARAM_COLUMNS` when the domain's
    models have settings no other column holds (its front's ``table_params``), and
    :data:`PARTICLE_COLUMNS` when a task may run particle inference, and
    :data:`PERCEPT_COLUMNS` when a task's domain reports percepts (so the other tables stay
    as they were)."""
    sampled = any(t.settings.inference.may_sample for t in tasks)
    params = any(t.front.table_params for t in tasks)
    percepts = any(getattr(t.front, "reports_percepts", False) for t in tasks)
    return (ALL_COLUMNS + (PARAM_COLUMNS if params else ()) + (PARTICLE_COLUMNS if sampled else ())
            + (PERCEPT_COLUMNS if percepts else ()))
