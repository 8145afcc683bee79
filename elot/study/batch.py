"""``elot batch``: many scenarios × statements × settings → one tidy table.

The work is cut into one :class:`Task` per (scenario, model, β, k, conventions): a task
runs the inference once and scores every statement, at every judgment point, under every
set of thresholds (thresholds and statements never re-run inference). :func:`run_task` is
a plain top-level function, so the same task runs serially, in local worker processes
(``jobs``) or on a Dask cluster (``dask``), through the futures pattern
(``submit`` / ``as_completed``) that both :mod:`concurrent.futures` and ``distributed``
offer.

Output is streamed: each finished task's rows are appended to ``OUT.partial`` and then
recorded, with their byte range, in ``OUT.partial.done``. A crash or Ctrl-C leaves both;
``resume=True`` trusts only what the manifest records (rows of a task that was being
written are cut off and the task runs again), so nothing is lost or written twice. When
every task is done, the rows are put in task order (so serial, parallel and Dask runs give
byte-identical files) and renamed to ``OUT``.
"""

from __future__ import annotations

import csv
import dataclasses
import glob as globmod
import hashlib
import io
import json
import os
import re
import stat
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from elot.errors import ElotError, csv_rows, read_text
from elot.output import count, csv_text, excerpt
from elot.lang.semantics import Thresholds
from elot.settings import DEFAULT_BETA, DEFAULT_K, DEFAULT_VARIANT, MODES, VARIANTS, check_number, check_variant
from elot.study.params import Params, StudyError, atomic_output, check_replace, read_input

#: The table's columns (tidy: one row per scenario, settings, statement, mode and t).
COLUMNS = ("scenario", "map", "model", "beta", "k", "conventions", "thresholds", "statement_id",
           "statement", "formula", "mode", "t", "P", "L", "pi", "error")
#: Linguistic factors of the dataset's annotation files, carried when known.
FACTORS = ("possibility", "probability", "compositional", "knowledge")
ALL_COLUMNS = COLUMNS + FACTORS
#: Columns a table gets when a task runs particle inference: the method that ran, the
#: particles and seed, the effective sample size at t and L's standard error (SPEC §8).
PARTICLE_COLUMNS = ("inference", "particles", "seed", "ess", "L_se")

#: Dataset experiments: ``exp2`` is both of its conditions.
EXPERIMENTS = ("exp1", "exp2_current", "exp2_initial")
EXPERIMENT_ALIASES = {"exp2": ("exp2_current", "exp2_initial"), "all": EXPERIMENTS}


def run_inference(scenario, model: str, beta: float, k: int, conventions: str, *, inference: str = "exact",
                  particles: int | None = None, seed: int | None = None):
    """The one place studies call :func:`elot.btom.inference.infer` (conventions that change
    the hypothesis space are passed on here; ``inference``, ``particles``, ``seed`` as there)."""
    from elot.btom.inference import infer

    return infer(scenario, model=model, beta=beta, k=k, conventions=conventions, inference=inference,
                 particles=particles, seed=seed)


# -- scenarios and statements -------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """A statement to score: its id, text as written, mode, and known factors."""

    statement_id: str
    text: str
    mode: str = "current"
    factors: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ScenarioRef:
    """A scenario by reference, loadable in any worker: a dataset plan (``exp`` and plan
    id, under ``root``), a file path, or an example name. ``name`` is the table's
    ``scenario`` column. A ``.scn`` file travels with its ``text``, so that workers on
    other machines need no copy of it (dataset plans and PDDL files are read where the
    task runs)."""

    name: str
    exp: str | None = None
    plan_id: str | None = None
    root: str | None = None
    text: str | None = None

    @classmethod
    def of_path(cls, path: str) -> "ScenarioRef":
        if path.endswith(".scn") and Path(path).is_file():
            return cls(path, text=read_text(path, "scenario"))
        return cls(path)

    def load(self):
        return _load_ref(self)

    @property
    def map(self) -> str:
        if self.plan_id is not None:
            return self.plan_id.split("_")[0]
        return self.load().name


@lru_cache(maxsize=128)
def _load_ref(ref: ScenarioRef):
    from elot.btom.dataset import load_dataset_plan
    from elot.btom.load import load_scenario
    from elot.btom.scn import parse_scn_text

    if ref.text is not None:
        return parse_scn_text(ref.text, ref.name)
    if ref.plan_id is None:
        return load_scenario(ref.name)
    scenario = load_dataset_plan(ref.root, ref.plan_id, exp=ref.exp)
    return dataclasses.replace(scenario, statements=())  # the study's own statements: dataset_items


def dataset_items(ref: ScenarioRef) -> tuple[Item, ...]:
    """A dataset plan's statements in its experiment, with their annotated factors (an
    exp2 plan's: its statements file read as every statements file is, ids by line)."""
    from elot.btom.dataset import dataset_root, read_statements

    root = dataset_root(ref.root)
    items: list[Item] = []
    if ref.exp == "exp1":
        for mode in MODES:
            rows = [r for r in _read_csv(_exp1_statements(root, mode)) if r.get("plan_id") == ref.plan_id]
            for n, row in enumerate(rows, 1):
                items.append(Item(f"{mode}-{n}", row["statement"].strip(), mode, _factors(row)))
        return tuple(items)
    mode = "initial" if ref.exp == "exp2_initial" else "current"
    path, annotations = _exp2_statements(root, mode, ref.plan_id)
    notes = {(r.get("plan_id"), r.get("statement_id")): r for r in _read_csv(annotations)}
    if path.is_file():
        for s in read_statements(path, mode):
            items.append(Item(str(s.line), s.text, s.mode, _factors(notes.get((ref.plan_id, str(s.line)), {}))))
    return tuple(items)


def _exp1_statements(root: Path, mode: str) -> Path:
    return root / "statements" / "exp1" / f"exp1_{mode}.csv"


def _exp2_statements(root: Path, mode: str, plan_id: str) -> tuple[Path, Path]:
    """An exp2 plan's statements file and the experiment's annotations file."""
    return (root / "statements" / f"exp2_{mode}" / f"{plan_id}.txt",
            root / "statements" / f"exp2_{mode}_annotations.csv")


def input_files(refs: Iterable[ScenarioRef]) -> list[str]:
    """The files a batch over ``refs`` reads: scenario files, and each dataset plan's
    statements and annotations (never to be written over by the batch's output)."""
    from elot.btom.dataset import dataset_root

    out: list[str] = []
    for ref in refs:
        if ref.plan_id is None:
            out.append(ref.name)
        elif ref.exp == "exp1":
            out += [str(_exp1_statements(dataset_root(ref.root), mode)) for mode in MODES]
        else:
            mode = "initial" if ref.exp == "exp2_initial" else "current"
            out += [str(p) for p in _exp2_statements(dataset_root(ref.root), mode, ref.plan_id)]
    return list(dict.fromkeys(out))


def _read_csv(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return csv_rows(read_input(path, "dataset statements"), path=str(path), what="dataset statements file")


def _factors(row: dict) -> tuple[tuple[str, str], ...]:
    return tuple((f, row[f].strip()) for f in FACTORS if row.get(f) is not None)


def expand_scenarios(specs: Sequence[str], *, root: str | None = None,
                     exps: Sequence[str] = ("exp1", "exp2")) -> list[ScenarioRef]:
    """Scenario arguments → references: ``all`` (every plan of each experiment in
    ``exps``), dataset plan ids (``1_1``, ``exp1/1_1``), ``.scn`` files or globs, and
    example names."""
    from elot.btom.dataset import PLAN_ID, dataset_root
    from elot.btom.scn import list_examples

    experiments = [e for name in exps for e in EXPERIMENT_ALIASES.get(name, (name,))]
    for exp in experiments:
        if exp not in EXPERIMENTS:
            raise StudyError(f"unknown dataset experiment {exp!r}",
                             hint=f"use {', '.join((*EXPERIMENTS, 'exp2'))}")
    refs: list[ScenarioRef] = []
    for spec in specs:
        if spec == "all":
            base = dataset_root(root)
            for exp in experiments:
                ids = sorted(p.stem for p in (base / "plans" / exp).glob("*.pddl") if p.stem != "demo")
                refs += [ScenarioRef(f"{exp}/{i}", exp, i, str(base)) for i in ids]
            continue
        match = PLAN_ID.match(spec)
        if match and not Path(spec).exists() and spec not in list_examples():
            base = dataset_root(root)
            for exp in ([match["exp"]] if match["exp"] else experiments):
                if (base / "plans" / exp / f"{match['id']}.pddl").is_file():
                    refs.append(ScenarioRef(f"{exp}/{match['id']}", exp, match["id"], str(base)))
            continue
        if any(c in spec for c in "*?[") and not Path(spec).exists():
            paths = sorted(globmod.glob(spec))
            if not paths:
                raise StudyError(f"no file matches {spec!r}", hint="check the pattern")
            refs += [ScenarioRef.of_path(p) for p in paths]
            continue
        refs.append(ScenarioRef.of_path(spec))
    if not refs:
        raise StudyError("no scenarios to run", hint="give .scn files, plan ids, or all (with the dataset)")
    for ref in dict.fromkeys(refs):
        ref.load()  # bad input is reported now, not in a worker
    return list(dict.fromkeys(refs))


def given_items(statements: Sequence[str] = (), files: Sequence[str] = (), mode: str = "current") -> tuple[Item, ...]:
    """Statements given on the command line (``s1``, ``s2``, ...) and in statements files
    (``FILE:LINE``)."""
    from elot.btom.dataset import read_statements

    items = [Item(f"s{n}", text, mode) for n, text in enumerate(statements, 1)]
    for path in files:
        items += [Item(f"{Path(path).name}:{s.line}", s.text, s.mode) for s in read_statements(path, mode)]
    return tuple(items)


def scenario_items(ref: ScenarioRef) -> tuple[Item, ...]:
    """The scenario's own statements."""
    if ref.plan_id is not None:
        return dataset_items(ref)
    return tuple(Item(str(s.line) if s.line is not None else f"s{n}", s.text, s.mode)
                 for n, s in enumerate(ref.load().statements, 1))


@lru_cache(maxsize=4096)
def resolve(ref: ScenarioRef, text: str, mode: str) -> tuple[str, str]:
    """A statement's formula and mode (English is translated); raises ElotError."""
    from elot.translate import resolve_statement

    formula, mode, _ = resolve_statement(text, mode=mode, scenario=ref.load())
    return formula, mode


# -- tasks ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Task:
    """One inference and everything scored on it."""

    index: int
    scenario: ScenarioRef
    model: str
    beta: float
    k: int
    conventions: str
    items: tuple[Item, ...]
    thresholds: tuple[tuple[str, Thresholds], ...]
    bind_free: bool = True
    inference: str = "exact"
    particles: int | None = None
    seed: int | None = None


def run_task(task: Task) -> tuple[int, list[dict]]:
    """Run one task: ``(task.index, rows)``. Statement errors become rows with ``error``."""
    from elot.btom.scoring import compile_statement, score

    scenario = task.scenario.load()
    inference = run_inference(scenario, task.model, task.beta, task.k, task.conventions, inference=task.inference,
                              particles=task.particles, seed=task.seed)
    times = tuple(scenario.judgments) or (inference.steps,)
    base = {"scenario": task.scenario.name, "map": task.scenario.map, "model": task.model,
            "beta": task.beta, "k": task.k, "conventions": task.conventions}
    particles = inference.method == "smc"
    # (written only in tables with PARTICLE_COLUMNS, see table_columns)
    base.update(inference=inference.method, particles=inference.n_particles if particles else "",
                seed="" if task.seed is None or not particles else task.seed)
    rows = []
    for label, thresholds in task.thresholds:
        for item in task.items:
            row = {**base, "thresholds": label, "statement_id": item.statement_id, "statement": item.text,
                   "formula": "", "mode": item.mode, **dict(item.factors)}
            compiled, error = None, ""
            try:
                row["formula"], row["mode"] = resolve(task.scenario, item.text, item.mode)
                compiled = compile_statement(inference, row["formula"], thresholds=thresholds,
                                             bind_free=task.bind_free)
            except ElotError as caught:
                error = caught.message
            for t in times:
                out = {**row, "t": t, "P": "", "L": "", "pi": "", "error": error}
                if particles:
                    out["ess"] = float(inference.ess[t])
                if compiled is not None:
                    s = score(inference, compiled, t, row["mode"], conventions=task.conventions)
                    out.update(P=s.posterior, L=s.normalized_likelihood, pi=s.prior_fraction)
                    if s.stderr is not None:
                        out["L_se"] = s.stderr
                rows.append(out)
    return task.index, rows


#: What a worker sends back: rows as dicts, or (``as_text``) as CSV text under the table's
#: columns (a table with particle inference has more of them than one without).
AsText = Sequence[str] | None


def run_tasks(tasks: Sequence[Task], as_text: AsText = None) -> list[tuple[int, list[dict] | str]]:
    """:func:`run_task` for several tasks in one worker; with ``as_text`` (the table's
    columns) each task's rows come back as CSV text (:func:`format_rows`), formatted in the
    worker rather than by the single process that writes them."""
    done = [run_task(task) for task in tasks]
    return [(index, format_rows(rows, as_text)) for index, rows in done] if as_text else done


def plan_tasks(refs: Sequence[ScenarioRef], *, items: Sequence[Item] | None = None,
               models: Sequence[str] = (DEFAULT_VARIANT,), betas: Sequence[float] = (DEFAULT_BETA,),
               ks: Sequence[int] = (DEFAULT_K,), conventions: Sequence[str] = ("elot",),
               thresholds: Sequence[Params] = (Params(Thresholds()),), bind_free: bool = True,
               inferences: Sequence[str] = ("exact",), particles: int | None = None,
               seed: int | None = None) -> list[Task]:
    """Every (scenario, model, β, k, conventions, inference method) task, in table order;
    ``particles`` and ``seed`` are those of every particle inference. A value repeated
    in a list (``--model full,full``, ``--beta 1,1.0``) counts once: the same task twice
    would only duplicate its rows in the table."""
    from elot.btom.inference import check_method
    from elot.btom.scoring import check_conventions

    for model in models:
        check_variant(model)
    for name in conventions:
        try:
            check_conventions(name)
        except ElotError as error:
            raise StudyError(f"--conventions: {error.message}", hint=error.hint) from None
    for beta in betas:
        check_option("beta", beta)
    for k in ks:
        check_option("k", k)
    for name in inferences:
        try:
            check_method(name)
        except ElotError as error:
            raise StudyError(f"--inference: {error.message}", hint=error.hint) from None
    if particles is not None:
        check_option("particles", particles)
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
                            tasks.append(Task(len(tasks), ref, model, float(beta), int(k), conv, own, labels,
                                              bind_free, method, particles, seed))
    return tasks


def check_option(name: str, value: float) -> float:
    """``value`` checked as the CLI checks ``--NAME`` (:func:`elot.settings.check_number`:
    the same limits and words everywhere), or a :class:`StudyError` naming the option. A
    large ``k`` is limited by the size of its hypothesis space (``elot.btom.hypotheses.build``)."""
    try:
        return check_number(name, value)
    except ElotError as error:
        raise StudyError(f"--{name}: {error.message}", hint=error.hint) from None


# -- resources --------------------------------------------------------------------------


@lru_cache(maxsize=1024)
def _scenario_counts(ref: ScenarioRef, conventions: str) -> tuple[int, int, int, int, int]:
    """``(goals, initial states, actions, belief tables, judgment points)`` of a scenario:
    what the size and cost of its tasks depend on (computed once per scenario)."""
    from elot.btom.hypotheses import initial_states
    from elot.btom.world import MOVES

    scenario = ref.load()
    n_states = len(initial_states(scenario.initial, conventions=conventions))
    tables = 1 + sum(1 for a in scenario.actions if a[0] not in MOVES)
    return (len(scenario.layout.gems), n_states, len(scenario.actions), tables,
            len(scenario.judgments) or 1)


def _space(task: Task) -> tuple[int, int]:
    """Hypotheses and peak bytes of a task's inference (:func:`elot.btom.hypotheses.space_size`)."""
    from elot.btom.hypotheses import space_size

    n_goals, n_states, steps, tables, _ = _scenario_counts(task.scenario, task.conventions)
    model = task.model if task.model in VARIANTS else "true-belief"
    return space_size(model, n_goals, n_states, task.k, steps=steps, belief_tables=tables)


#: Bytes a particle takes per step kept besides its k belief states (4 bytes each): goal,
#: true state and log weight (``benchmarks/bench_smc.py`` measures 28 B at k = 3; steps
#: without resampling share all but the weights), with room for the current particles'
#: per-goal likelihoods.
BYTES_PER_PARTICLE_STEP = 24


def _particles(task: Task) -> int:
    from elot.btom.particles import DEFAULT_PARTICLES

    return task.particles or DEFAULT_PARTICLES


def estimate_task_bytes(task: Task) -> int:
    """Peak memory of one task: what its exact inference allocates, counted as
    :func:`elot.btom.hypotheses.space_size` does, or its particles per step (particle
    inference), plus a fixed overhead. A space too large for exact enumeration is refused
    here, before any work starts (``auto`` runs particles on it instead)."""
    from elot.btom.hypotheses import MAX_HYPOTHESES, check_size

    n_goals, n_states, steps, tables, _ = _scenario_counts(task.scenario, task.conventions)
    smc = 64 * 2 ** 20 + (steps + 1) * _particles(task) * (BYTES_PER_PARTICLE_STEP + 4 * task.k)
    if task.inference == "smc":
        return smc
    model = task.model if task.model in VARIANTS else "true-belief"
    try:
        check_size(model, n_goals, n_states, task.k, MAX_HYPOTHESES, steps=steps, belief_tables=tables)
    except ElotError:
        if task.inference == "auto":   # too large for exact: auto runs particles
            return smc
        raise
    return 64 * 2 ** 20 + _space(task)[1]


def task_cost(task: Task) -> float:
    """Rough seconds of one task, to schedule the largest first: the weight updates
    (hypotheses x steps), stepping every initial state's world in Python (states x
    steps), scoring (items x thresholds x judgment points, each over every (state,
    belief) pair), and a fixed part. Only the order and the ratios matter."""
    n_goals, n_states, steps, _, times = _scenario_counts(task.scenario, task.conventions)
    hypotheses = _space(task)[0]
    if task.inference != "exact":  # particles stand in for the hypotheses (auto: when exact is too large)
        from elot.btom.hypotheses import MAX_HYPOTHESES

        if task.inference == "smc" or hypotheses > MAX_HYPOTHESES:
            hypotheses = _particles(task) * n_goals
    pairs = hypotheses // max(n_goals, 1)
    scored = len(task.items) * len(task.thresholds) * times
    return 2e-8 * hypotheses * (steps + 1) + 4e-5 * n_states * steps + scored * (3e-4 + 2e-8 * pairs) + 5e-3


def chunk_tasks(tasks: Sequence[Task], workers: int) -> list[list[Task]]:
    """Tasks in submission order for ``workers`` processes: each scenario's tasks in
    chunks of about a quarter of a worker's fair share of the work (so one worker loads a
    scenario and translates its statements once for many settings, while a large
    scenario is still spread over several workers), largest chunks first (the largest
    tasks would otherwise finish last, alone)."""
    costs = {task.index: task_cost(task) for task in tasks}
    target = sum(costs.values()) / max(4 * workers, 1)
    chunks: list[tuple[float, list[Task]]] = []
    by_scenario: dict[ScenarioRef, list[Task]] = {}
    for task in tasks:
        by_scenario.setdefault(task.scenario, []).append(task)
    for group in by_scenario.values():
        group = sorted(group, key=lambda t: -costs[t.index])
        current, cost = [], 0.0
        for task in group:
            if current and cost + costs[task.index] > target:
                chunks.append((cost, current))
                current, cost = [], 0.0
            current.append(task)
            cost += costs[task.index]
        chunks.append((cost, current))
    chunks.sort(key=lambda c: -c[0])
    return [chunk for _, chunk in chunks]


def available_memory() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def check_resources(tasks: Sequence[Task], workers: int) -> None:
    """Refuse a batch whose concurrent tasks would not fit in memory, with the estimate."""
    if not tasks:
        return
    seen: dict[tuple, int] = {}
    for task in tasks:
        key = (task.scenario, task.model, task.k, task.conventions)
        if key not in seen:
            seen[key] = estimate_task_bytes(task)
    need = sorted(seen.values(), reverse=True)[:max(1, workers)]
    total, free = sum(need), available_memory()
    if free is not None and total > 0.8 * free:
        raise StudyError(
            f"this batch would need about {total / 2**30:.1f} GiB at once ({workers} worker(s), "
            f"the largest task about {need[0] / 2**30:.1f} GiB), and {free / 2**30:.1f} GiB is free",
            hint="use fewer --jobs, a smaller --k, or fewer scenarios at a time",
        )


# -- executors --------------------------------------------------------------------------


Result = tuple[int, "list[dict] | str"]


def _serial(tasks: Sequence[Task], as_text: AsText) -> Iterator[list[Result]]:
    # One task at a time: progress, Ctrl-C and --resume count single tasks here.
    for task in tasks:
        yield run_tasks([task], as_text)


def _local(tasks: Sequence[Task], jobs: int, as_text: AsText) -> Iterator[list[Result]]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    # forkserver: workers fork from a clean server that already imported elot, never from
    # this process (whose progress-bar thread must not be forked).
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["elot.study.batch", "elot.btom.scoring", "elot.btom.inference"])
    lifeline, held = context.Pipe(duplex=False)    # only this process holds the writing end
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_end_with_batch,
                               initargs=(lifeline,))
    try:
        # The pool runs submissions in order: largest chunks first (chunk_tasks).
        futures = [pool.submit(run_tasks, chunk, as_text) for chunk in chunk_tasks(tasks, jobs)]
        for future in as_completed(futures):
            yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        held.close()
        lifeline.close()


def _end_with_batch(lifeline) -> None:
    """Worker initializer: end this worker as soon as the batch that started it is gone,
    however it ended (``kill -9`` included). The worker's parent is the forkserver, which
    itself lives while any worker does (and the resource tracker while either does), so
    neither a parent-death signal nor the pool notices; instead a thread waits on a pipe
    whose writing end only the batch process holds: end of file means it is gone."""
    import threading

    def watch() -> None:
        try:
            lifeline.recv_bytes()
        except (EOFError, OSError):
            pass
        os._exit(1)

    threading.Thread(target=watch, name="elot-batch-lifeline", daemon=True).start()


def _warm_worker() -> None:
    """Import what tasks need (and build the grammar) once per Dask worker, before any task."""
    from elot.btom import inference, scoring  # noqa: F401
    from elot.lang.parser import parse

    parse("empty(box1)")


def _dask(tasks: Sequence[Task], address: str, as_text: AsText) -> Iterator[list[Result]]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise StudyError("--dask needs the distributed package", hint="pip install 'elot[dask]'") from None
    try:
        client = Client(address, timeout="20s")
    except ValueError as error:  # not an address distributed can read
        raise StudyError(f"--dask {address!r} is not a Dask scheduler address: {error}",
                         hint="give the scheduler's address, e.g. tcp://10.0.0.5:8786") from None
    except (OSError, TimeoutError) as error:
        raise StudyError(f"cannot reach the Dask scheduler at {address}: {error}",
                         hint="start one with `dask scheduler` and workers with `dask worker ADDRESS`") from None
    with client:
        client.run(_warm_worker)
        workers = sum(client.nthreads().values()) or 1
        chunks = chunk_tasks(tasks, workers)
        # Dask runs higher priorities first: the largest chunks, as chunk_tasks orders them.
        futures = [client.submit(run_tasks, chunk, as_text, priority=len(chunks) - n, pure=False,
                                 key=f"elot-tasks-{chunk[0].index}-{_digest(chunk)}")
                   for n, chunk in enumerate(chunks)]
        try:
            # with_results: results come back in batches with the completion events, not
            # one gather round trip per future
            for _, done in as_completed(futures, with_results=True):
                yield done
        except Exception as error:
            if not _cluster_lost(error):
                raise
            raise StudyError(f"the Dask cluster at {address} stopped answering mid-batch "
                             f"({type(error).__name__}: {error})",
                             hint="the finished tasks are kept: start the cluster again and rerun the same "
                                  "command with --resume") from None
        finally:
            client.cancel(futures)


def _cluster_lost(error: BaseException) -> bool:
    """Whether an exception from distributed means the scheduler or its workers are gone
    (a cancelled future, a closed connection), not a bug in a task."""
    import concurrent.futures

    names = {cls.__name__ for cls in type(error).__mro__}
    return (isinstance(error, (concurrent.futures.CancelledError, OSError, TimeoutError))
            or any("Cancelled" in n or "CommClosed" in n for n in names))


def finished(tasks: Sequence[Task], *, jobs: int = 1, dask: str | None = None,
             as_text: AsText = None) -> Iterator[list[Result]]:
    """``(task index, rows)`` of every task, in groups as they finish (a chunk from a
    worker; one task when serial), so that a group is written with one sync; with
    ``as_text`` (the table's columns) the rows come as CSV text, formatted where the task
    ran."""
    if dask:
        return _dask(tasks, dask, as_text)
    if jobs > 1 and len(tasks) > 1:
        return _local(tasks, jobs, as_text)
    return _serial(tasks, as_text)


def results(tasks: Sequence[Task], *, jobs: int = 1, dask: str | None = None,
            as_text: AsText = None) -> Iterator[Result]:
    """``(task index, rows)`` for every task, as they finish (:func:`finished`, one by one)."""
    for group in finished(tasks, jobs=jobs, dask=dask, as_text=as_text):
        yield from group


def _digest(value) -> str:
    return hashlib.sha1(repr(value).encode()).hexdigest()[:12]


# -- output -----------------------------------------------------------------------------


def _cell(value) -> str:
    if isinstance(value, float):
        return repr(value)
    return "" if value is None else str(value)


def table_columns(tasks: Sequence[Task]) -> tuple[str, ...]:
    """The table's columns: :data:`ALL_COLUMNS`, and :data:`PARTICLE_COLUMNS` when a task
    may run particle inference (so tables of exact inference stay as they were)."""
    return ALL_COLUMNS + PARTICLE_COLUMNS if any(t.inference != "exact" for t in tasks) else ALL_COLUMNS


def format_rows(rows: Iterable[dict], columns: Sequence[str] = ALL_COLUMNS) -> str:
    """CSV text of rows (no header), floats written exactly."""
    return csv_text([{c: _cell(row.get(c, "")) for c in columns} for row in rows], columns, header=False)


def header(columns: Sequence[str] = ALL_COLUMNS) -> str:
    """The CSV header line of a table with these columns."""
    return ",".join(columns) + "\n"


@dataclass
class Failures:
    """The rows a batch could not score (an ``error`` in the table): how many, how many
    distinct statements (scenario and statement id), grouped by cause, and the first
    few statements with their scenario."""

    rows: int = 0
    statements: int = 0
    #: ``(cause, rows, statements)``, most rows first.
    causes: list[tuple[str, int, int]] = dataclasses.field(default_factory=list)
    #: ``(scenario, statement_id, statement, error)`` of the first failed statements.
    examples: list[tuple[str, str, str, str]] = dataclasses.field(default_factory=list)

    @classmethod
    def of(cls, rows: Iterable[dict], examples: int = 3) -> "Failures":
        tally = _FailureTally()
        tally.add(rows)
        return tally.result(examples)

    def lines(self) -> list[str]:
        """The summary a person reads (empty when every row was scored)."""
        if not self.rows:
            return []
        out = [f"{count(self.rows, 'row')} could not be scored "
               f"({count(self.statements, 'distinct statement')}); their error column says why:"]
        for cause, rows, statements in self.causes:
            out.append(f"  {count(rows, 'row'):>10}, {count(statements, 'statement'):>13}: {cause}")
        out.append("first ones:")
        for scenario, statement_id, text, error in self.examples:
            out.append(f"  {scenario} #{statement_id}: {excerpt(error, 90)}")
        return out


class _FailureTally:
    def __init__(self) -> None:
        self.rows = 0
        self.by_cause: dict[str, tuple[int, set]] = {}
        self.first: dict[tuple[str, str], tuple[str, str, str, str]] = {}

    def add(self, rows: Iterable[dict]) -> None:
        for row in rows:
            error = row.get("error") or ""
            if not error:
                continue
            self.rows += 1
            key = (str(row.get("scenario", "")), str(row.get("statement_id", "")))
            cause = failure_cause(error)
            n, statements = self.by_cause.get(cause, (0, set()))
            statements.add(key)
            self.by_cause[cause] = (n + 1, statements)
            self.first.setdefault(key, (*key, str(row.get("statement", "")), error))

    def result(self, examples: int = 3) -> Failures:
        causes = sorted(((c, n, len(s)) for c, (n, s) in self.by_cause.items()), key=lambda c: (-c[1], c[0]))
        return Failures(self.rows, len(self.first), causes, list(self.first.values())[:examples])


def failure_cause(error: str) -> str:
    """An error message without its particulars (quoted names, numbers), so that the
    same failure on different statements counts as one cause."""
    cause = _QUOTED.sub("…", error.strip().splitlines()[0] if error.strip() else error)
    return excerpt(_NUMBER.sub("N", cause), 100)


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|«[^»]*»")
_NUMBER = re.compile(r"\b\d+(\.\d+)?\b")


@dataclass
class BatchResult:
    """What :func:`batch` did: tasks run now, tasks found done, rows, where it wrote,
    and the rows it could not score."""

    tasks: int
    resumed: int
    rows: int
    output: str | None
    table: list[dict] | None = None
    failures: Failures = dataclasses.field(default_factory=Failures)


class _Partial:
    """The work files of a batch writing ``OUT``: ``OUT.partial`` (rows of finished tasks),
    ``OUT.partial.done`` (for each, its index, byte range and SHA-256, recorded after the
    rows are on disk) and ``OUT.partial.lock``, locked (``flock``) by the one process
    writing them for the whole batch.

    Work files are opened without following links (``O_NOFOLLOW``; new ones with
    ``O_EXCL``). On ``resume`` every recorded chunk is checked (its checksum, its rows'
    field count) before anything is trusted or cut; damage stops the batch with the files
    kept as they were."""

    def __init__(self, output: Path, fingerprint: str, resume: bool, tasks: int,
                 columns: Sequence[str] = ALL_COLUMNS) -> None:
        self.output = output
        self.columns = tuple(columns)
        self.rows_path = output.with_name(output.name + ".partial")
        self.done_path = output.with_name(output.name + ".partial.done")
        self.lock_path = output.with_name(output.name + ".partial.lock")
        self.done: dict[int, tuple[int, int]] = {}
        self.lock, made_lock = _take_lock(self.lock_path, output)
        try:
            for path in (self.rows_path, self.done_path):
                if path.is_symlink():
                    raise _link_error(path)
            if os.path.lexists(self.rows_path) or os.path.lexists(self.done_path):
                if not resume:
                    raise StudyError(f"an interrupted batch left {self.rows_path}",
                                     notes=(f"work files: {self._work_files()}",),
                                     hint=f"add --resume to finish it, or delete {self._work_files()} "
                                          "to start over")
                for path in (self.rows_path, self.done_path):
                    if not os.path.lexists(path):
                        raise self._damaged(f"{path} is missing")
                self.handle = _open_work(self.rows_path, os.O_RDWR)
                self.manifest = _open_work(self.done_path, os.O_RDWR)
                self._load(fingerprint, tasks)
            else:
                self.manifest = _open_work(self.done_path, os.O_RDWR | os.O_CREAT | os.O_EXCL)
                self.handle = _open_work(self.rows_path, os.O_RDWR | os.O_CREAT | os.O_EXCL)
                self.manifest.write(json.dumps({"fingerprint": fingerprint, "format": 2}).encode() + b"\n")
                self.manifest.flush()
        except BaseException:
            self.close()
            if made_lock and self.lock_path.is_file() and not self.lock_path.is_symlink():
                self.lock_path.unlink()   # a refusal before any work leaves no file of ours (unlinked while locked)
            os.close(self.lock)
            raise
        self.handle.seek(0, os.SEEK_END)
        self.manifest.seek(0, os.SEEK_END)

    def _work_files(self) -> str:
        return f"{self.rows_path}, {self.done_path} and {self.lock_path}"

    def _damaged(self, what: str) -> StudyError:
        return StudyError(
            f"cannot resume {self.output}: {what}; the work files were left as they were",
            notes=(f"work files: {self._work_files()}",),
            hint=f"delete {self._work_files()} and run the command again without "
                 f"--resume (finished tasks run again), or restore {self.rows_path} and "
                 f"{self.done_path} from a backup")

    def _load(self, fingerprint: str, tasks: int) -> None:
        """Read the manifest and check every chunk it records; only then cut what an
        interrupted write left unrecorded (rows after the last chunk, a last line without
        its newline)."""
        text = self.manifest.read()
        lines = text.split(b"\n")
        try:
            header = json.loads(lines[0])
        except (ValueError, UnicodeDecodeError):
            header = None
        if not isinstance(header, dict) or header.get("fingerprint") != fingerprint:
            raise StudyError(f"{self.rows_path} was written by a different batch (or another version of elot)",
                             hint=f"rerun the same command with --resume, or delete {self._work_files()} "
                                  "to start over")
        if len(lines) < 2:
            raise self._damaged(f"{self.done_path} has no complete first line")
        rows = self.handle.read()
        end = 0
        for number, line in enumerate(lines[1:-1], 2):  # the last piece has no newline: an unfinished record
            fields = line.split(b" ")
            try:
                index, start, stop = (int(x) for x in fields[:3])
                digest = fields[3].decode("ascii")
                if len(fields) != 4 or len(digest) != 64:
                    raise ValueError
            except (ValueError, IndexError, UnicodeDecodeError):
                raise self._damaged(f"{self.done_path} line {number} is not a record "
                                    f"({excerpt(line.decode('utf-8', 'replace'), 40)!r})") from None
            if start != end or stop < start or not 0 <= index < tasks or index in self.done:
                raise self._damaged(f"{self.done_path} line {number} does not follow the records before it")
            if stop > len(rows):
                raise self._damaged(f"{self.rows_path} is shorter ({len(rows)} bytes) than recorded ({stop})")
            chunk = rows[start:stop]
            if hashlib.sha256(chunk).hexdigest() != digest:
                raise self._damaged(f"the rows of task {index} in {self.rows_path} (bytes {start}-{stop}) "
                                    "do not match their checksum")
            if not _rows_are_whole(chunk, len(self.columns)):
                raise self._damaged(f"the rows of task {index} in {self.rows_path} do not have "
                                    f"{len(self.columns)} fields each")
            self.done[index] = (start, stop)
            end = stop
        self.handle.truncate(end)  # rows of a task that was being written when it stopped
        self.manifest.truncate(len(text) - len(lines[-1]))

    def add(self, index: int, text: str) -> None:
        self.add_many([(index, text)])

    def add_many(self, finished: Sequence[tuple[int, str]]) -> None:
        """Append the rows of several tasks, sync them once, then record each (one sync
        per task made the single writer the bottleneck of a parallel batch)."""
        records = []
        for index, text in finished:
            data = text.encode("utf-8")
            start = self.handle.tell()
            self.handle.write(data)
            records.append((index, start, start + len(data), hashlib.sha256(data).hexdigest()))
        self.handle.flush()
        os.fsync(self.handle.fileno())
        self.manifest.write("".join(f"{i} {a} {b} {digest}\n" for i, a, b, digest in records).encode())
        self.manifest.flush()
        for index, start, stop, _ in records:
            self.done[index] = (start, stop)

    def close(self) -> None:
        for name in ("handle", "manifest"):
            handle = getattr(self, name, None)
            if handle is not None and not handle.closed:
                handle.close()

    def release(self) -> None:
        """Close the work files and give up the lock."""
        self.close()
        os.close(self.lock)

    def discard(self) -> None:
        """Remove the work files (the lock file last, while still locked)."""
        self.close()
        for path in (self.rows_path, self.done_path, self.lock_path):
            if path.is_file() and not path.is_symlink():
                path.unlink()

    def finish(self, fmt: str, *, force: bool = False, inputs: Sequence[str | Path] = ()) -> list[dict]:
        """Write ``OUT`` (rows in task order) and remove the work files; the rows."""
        self.handle.seek(0)
        data = self.handle.read()
        ordered = b"".join(data[a:b] for _, (a, b) in sorted(self.done.items()))
        text = header(self.columns) + ordered.decode("utf-8")
        write_table_text(self.output, text, fmt, force=force, inputs=inputs)
        self.discard()
        return read_table_text(text)


def _open_work(path: Path, flags: int):
    """A work file opened as binary, never through a link; only regular files."""
    try:
        fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as error:
        if os.path.islink(path):
            raise _link_error(path) from None
        if isinstance(error, FileExistsError):
            raise StudyError(f"{path} appeared while the batch started",
                             hint="another process is writing beside this output; choose another -o") from None
        raise StudyError(f"cannot open {path}: {error.strerror or error}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise StudyError(f"{path} is not a regular file", hint="remove it and run the command again")
    return os.fdopen(fd, "r+b")


def _link_error(path: Path) -> StudyError:
    return StudyError(f"{path} is a symbolic link; elot does not follow links for its work files",
                      hint=f"remove the link ({path}) and run the command again")


def _take_lock(path: Path, output: Path) -> tuple[int, bool]:
    """An exclusive ``flock`` on ``path`` (made if missing, never through a link), held
    until the descriptor is closed, and whether this call made the file; a second writer
    is refused with the holder's pid."""
    import fcntl

    output.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(10):
        made = not os.path.lexists(path)
        handle = _open_work(path, os.O_RDWR | os.O_CREAT)
        fd = os.dup(handle.fileno())
        handle.close()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise StudyError(f"another elot batch (pid {holder}) is writing {output}",
                             hint="wait for it to finish (then --resume if it stopped), or stop it") from None
        try:
            same = os.lstat(path).st_ino == os.fstat(fd).st_ino   # not a lock file removed meanwhile
        except FileNotFoundError:
            same = False
        if same:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            return fd, made
        os.close(fd)
    raise StudyError(f"cannot lock {path}: it keeps being replaced")


def _rows_are_whole(chunk: bytes, fields: int) -> bool:
    """Whether ``chunk`` is UTF-8 CSV rows of exactly ``fields`` (the table's columns) each."""
    try:
        rows = list(csv.reader(io.StringIO(chunk.decode("utf-8"), newline="")))
    except (UnicodeDecodeError, csv.Error):
        return False
    return all(len(row) == fields for row in rows) and (not chunk or chunk.endswith(b"\n"))


def read_table_text(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def write_table_text(path: Path | str, text: str, fmt: str, *, force: bool = False,
                     inputs: Sequence[str | Path] = ()) -> None:
    """Write CSV text as ``fmt`` (csv or parquet) atomically."""
    if fmt == "parquet":
        table = _arrow_table(text)
        _, _, pq = pyarrow_modules("Parquet output")

        with atomic_output(path, "wb", force=force, inputs=inputs) as handle:
            pq.write_table(table, handle)
        return
    with atomic_output(path, force=force, inputs=inputs) as handle:
        handle.write(text)


def pyarrow_modules(what: str):
    """``(pyarrow, pyarrow.csv, pyarrow.parquet)``, or a StudyError that says what is
    wrong: pyarrow missing, or installed but unable to import (e.g. pyarrow 26 with
    numpy 1.x), naming both versions."""
    import importlib.util

    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv
        import pyarrow.parquet as pq
    except ImportError as error:
        if importlib.util.find_spec("pyarrow") is None:
            raise StudyError(f"{what} needs pyarrow", hint="pip install 'elot[parquet]'") from None
        import numpy
        from importlib.metadata import version

        raise StudyError(f"{what} needs pyarrow, and pyarrow {version('pyarrow')} is installed but does not "
                         f"import with numpy {numpy.__version__}: {error}",
                         hint="install versions that work together: pip install 'elot[parquet]' "
                              "(pyarrow < 26 works with numpy 1.x and 2.x)") from None
    return pa, pacsv, pq


def _arrow_table(text: str):
    pa, pacsv, _ = pyarrow_modules("Parquet output")
    types = {c: pa.string() for c in ALL_COLUMNS + PARTICLE_COLUMNS}
    types.update(beta=pa.float64(), k=pa.int64(), t=pa.int64(), P=pa.float64(), L=pa.float64(), pi=pa.float64(),
                 ess=pa.float64(), L_se=pa.float64())
    return pacsv.read_csv(pa.py_buffer(text.encode("utf-8")),
                          convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False,
                                                               quoted_strings_can_be_null=False))


def fingerprint(tasks: Sequence[Task]) -> str:
    return hashlib.sha256("\n".join(repr(t) for t in tasks).encode()).hexdigest()


def batch(
    tasks: Sequence[Task],
    output: str | Path | None = None,
    *,
    fmt: str = "csv",
    jobs: int = 1,
    dask: str | None = None,
    resume: bool = False,
    force: bool = False,
    progress: Callable[[int, int], None] | None = None,
    inputs: Sequence[str | Path] = (),
) -> BatchResult:
    """Run ``tasks`` (see :func:`plan_tasks`) and write the table to ``output`` (``-`` for
    standard output, rows in the order they finish), or return it when ``output`` is None.

    ``progress(done, total)`` is called after each task. Interrupted runs keep their
    finished tasks in ``OUT.partial``; ``resume=True`` continues them. An existing
    ``output`` that a study did not write is refused before any work unless ``force``;
    ``inputs`` (the files the batch reads) are never written over.
    """
    if output is not None:
        check_replace(output, force=force, inputs=inputs)
    if fmt not in ("csv", "parquet"):
        raise StudyError(f"unknown table format {fmt!r}", hint="use csv or parquet")
    columns = table_columns(tasks)
    if fmt == "parquet":
        _arrow_table(header(columns))  # pyarrow is there before any work starts
    check_option("jobs", jobs)
    if not dask:
        check_resources(tasks, jobs)
    total = len(tasks)
    if output is None:
        found: dict[int, list[dict]] = {}
        for index, rows in results(tasks, jobs=jobs, dask=dask):
            found[index] = rows
            if progress:
                progress(len(found), total)
        table = [row for i in sorted(found) for row in found[i]]
        return BatchResult(total, 0, len(table), None, table, Failures.of(table))
    if str(output) == "-":
        if fmt != "csv":
            raise StudyError("only CSV can be streamed to standard output", hint="give -o FILE for parquet")
        import sys

        sys.stdout.write(header(columns))
        written, tally = 0, _FailureTally()
        for done, (_, rows) in enumerate(results(tasks, jobs=jobs, dask=dask), 1):
            sys.stdout.write(format_rows(rows, columns))
            tally.add(rows)
            sys.stdout.flush()
            written += len(rows)
            if progress:
                progress(done, total)
        return BatchResult(total, 0, written, "-", failures=tally.result())
    output = Path(output)
    partial = _Partial(output, fingerprint(tasks), resume, total, columns)
    todo = [t for t in tasks if t.index not in partial.done]
    resumed = total - len(todo)
    try:
        if progress:
            progress(resumed, total)
        for group in finished(todo, jobs=jobs, dask=dask, as_text=columns):
            partial.add_many(group)
            if progress:
                progress(len(partial.done), total)
    except BaseException:
        partial.close()
        if not partial.done:  # nothing finished (a bad option, an unreachable cluster): leave nothing
            partial.discard()
        partial.release()
        raise
    try:
        table = partial.finish(fmt, force=force, inputs=inputs)
    finally:
        partial.release()
    return BatchResult(len(todo), resumed, len(table), str(output), failures=Failures.of(table))


def read_table(path: str | Path) -> list[dict]:
    """A batch table (CSV or Parquet) as a list of row dicts (values as strings), or a
    StudyError naming the file and the columns of a batch table it lacks (a ratings
    file given in its place, say)."""
    path = Path(path)
    if path.suffix == ".parquet":
        _, _, pq = pyarrow_modules("reading Parquet")
        found = pq.read_table(path)
        _check_columns(path, found.column_names)
        return [{k: "" if v is None else (repr(v) if isinstance(v, float) else str(v)) for k, v in r.items()}
                for r in found.to_pylist()]
    text = read_input(path, "table")
    rows = csv_rows(text, path=str(path))      # its own errors (a bad line) come first
    _check_columns(path, next(csv.reader(io.StringIO(text)), []))
    return rows


def _check_columns(path: Path, header: Sequence[str]) -> None:
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise StudyError(f"not a batch table: it has no {', '.join(missing)} "
                         f"column{'s' if len(missing) > 1 else ''}", path=str(path),
                         hint="give the table elot batch wrote (columns " + ", ".join(COLUMNS) + "); "
                              "a ratings file goes with --ratings")
