"""Tasks: one per (scenario, model, β, k, conventions, inference method). A task runs the
inference once and scores every statement, at every judgment point, under every set of
thresholds (thresholds and statements never re-run inference). :func:`run_task` is a
plain top-level function, so the same task runs anywhere an executor sends it
(:mod:`elot.study.executors`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from elot.domains.doors_keys_gems.inference import InferenceConfig
from elot.engine.worlds.methods import ConfiguredBy
from elot.errors import ElotError
from elot.lang.thresholds import Thresholds
from elot.settings import DEFAULT_BETA, DEFAULT_K, DEFAULT_VARIANT, check_number, check_variant
from elot.study.params import Params, StudyError
from elot.judging import Statement
from elot.study.references import ScenarioRef, resolve, scenario_items
from elot.study.tables import ALL_COLUMNS, PARTICLE_COLUMNS


@dataclass(frozen=True)
class Task(ConfiguredBy):
    """One inference (its :class:`~elot.domains.doors_keys_gems.inference.InferenceConfig`) and everything
    scored on it."""

    index: int
    scenario: ScenarioRef
    config: InferenceConfig
    items: tuple[Statement, ...]   # each with its study id and factors
    thresholds: tuple[tuple[str, Thresholds], ...]
    bind_free: bool = True

    @property
    def inference(self) -> str:
        """How inference runs (the table's ``inference`` column)."""
        return self.config.method


def run_task(task: Task) -> tuple[int, list[dict]]:
    """Run one task: ``(task.index, rows)``. Statement errors become rows with ``error``.
    Columns that say how inference ran, and its diagnostics at each t, come from the
    inference result itself (:meth:`~elot.domains.doors_keys_gems.engine.Trajectory.columns`,
    :meth:`~elot.domains.doors_keys_gems.engine.Trajectory.diagnostics`)."""
    from elot.domains.doors_keys_gems.inference import infer
    from elot.judging import compile_statements, resolve_statements, score_statements

    if not isinstance(task, Task):   # a domain of the engine's task (elot.study.domain_tasks)
        return task.run()
    scenario = task.scenario.load()
    inference = infer(scenario, task.config)
    times = tuple(scenario.judgments) or (inference.steps,)
    ran = inference.config   # the settings that ran, as the result keeps them
    base = {"scenario": task.scenario.name, "map": task.scenario.map, "model": ran.variant,
            "beta": ran.beta, "k": ran.k, "conventions": ran.conventions,
            **inference.columns()}   # (written only in tables with PARTICLE_COLUMNS, see table_columns)
    diagnostics = {t: inference.diagnostics(t) for t in times}
    rows = []
    for label, thresholds in task.thresholds:
        statements = resolve_statements(task.items, lambda text, mode: resolve(task.scenario, text, mode))
        statements = compile_statements(statements, inference.signature, thresholds=thresholds,
                                        bind_free=task.bind_free)
        statements, table = score_statements(inference, statements, times)
        for n, st in enumerate(statements):
            row = {**base, "thresholds": label, "statement_id": st.id, "statement": st.text,
                   "formula": st.formula or "", "mode": st.mode, **dict(st.factors)}
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


def plan_tasks(refs: Sequence[ScenarioRef], *, items: Sequence[Statement] | None = None,
               models: Sequence[str] = (DEFAULT_VARIANT,), betas: Sequence[float] = (DEFAULT_BETA,),
               ks: Sequence[int] = (DEFAULT_K,), conventions: Sequence[str] = ("elot",),
               thresholds: Sequence[Params] = (Params(Thresholds()),), bind_free: bool = True,
               inferences: Sequence[str] = ("exact",), particles: int | None = None,
               seed: int | None = None) -> list[Task]:
    """Every (scenario, model, β, k, conventions, inference method) task, in table order;
    ``particles`` and ``seed`` are those of every particle inference. A value repeated
    in a list (``--model full,full``, ``--beta 1,1.0``) counts once: the same task twice
    would only duplicate its rows in the table."""
    from elot.engine.worlds.methods import check_method
    from elot.domains.doors_keys_gems.scoring import check_conventions

    for model in models:
        check_variant(model)
    for name in conventions:
        as_option("conventions", check_conventions, name)
    for beta in betas:
        check_option("beta", beta)
    for k in ks:
        check_option("k", k)
    for name in inferences:
        as_option("inference", check_method, name)
    if seed is not None:
        check_option("seed", seed)
    models, conventions = list(dict.fromkeys(models)), list(dict.fromkeys(conventions))
    betas, ks = list(dict.fromkeys(float(b) for b in betas)), list(dict.fromkeys(int(k) for k in ks))
    inferences = list(dict.fromkeys(inferences))
    labels = tuple(dict.fromkeys((p.label, p.thresholds) for p in thresholds))
    tasks = []
    for ref in refs:
        own = tuple(items) if items else scenario_items(ref)
        if not own:     # refused before any work: a table of a header alone looks like a result
            raise StudyError(f"nothing to score: {ref.name} has no statements",
                             hint="give statements with --statement TEXT or --statements FILE, or add a "
                                  "'statements current:' section to the scenario")
        for model in models:
            for beta in betas:
                for k in ks:
                    for conv in conventions:
                        for method in inferences:
                            config = InferenceConfig(variant=model, beta=float(beta), k=int(k), conventions=conv,
                                                     method=method, seed=seed,
                                                     **({} if particles is None else {"particles": particles}))
                            tasks.append(Task(len(tasks), ref, config, own, labels, bind_free))
    return tasks


def check_option(name: str, value: float) -> float:
    """``value`` checked as the CLI checks ``--NAME`` (:func:`elot.settings.check_number`:
    the same limits and words everywhere), or a :class:`StudyError` naming the option. A
    large ``k`` is limited by the size of its hypothesis space (``elot.domains.doors_keys_gems.hypotheses.build``)."""
    return as_option(name, check_number, name, value)


def as_option(option: str, check: Callable, *args):
    """``check(*args)``, its :class:`ElotError` restated as a :class:`StudyError` about
    ``--OPTION`` (the same message and hint)."""
    try:
        return check(*args)
    except ElotError as error:
        raise StudyError(f"--{option}: {error.message}", hint=error.hint) from None


def table_columns(tasks: Sequence[Task]) -> tuple[str, ...]:
    """The table's columns: :data:`ALL_COLUMNS`, and :data:`PARTICLE_COLUMNS` when a task
    may run particle inference (so tables of exact inference stay as they were)."""
    sampled = any(getattr(t.config, "may_sample", False) for t in tasks)
    return ALL_COLUMNS + PARTICLE_COLUMNS if sampled else ALL_COLUMNS
