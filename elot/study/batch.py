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
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from elot.errors import ElotError, read_text
from elot.lang.semantics import Thresholds
from elot.btom.hypotheses import check_model
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
    from elot.btom.scenario import load_dataset_plan, load_scenario, parse_scn_text

    if ref.text is not None:
        return parse_scn_text(ref.text, ref.name)
    if ref.plan_id is None:
        return load_scenario(ref.name)
    scenario = load_dataset_plan(ref.root, ref.plan_id, exp=ref.exp)
    return dataclasses.replace(scenario, statements=())  # the study's own statements: dataset_items


def dataset_items(ref: ScenarioRef) -> tuple[Item, ...]:
    """A dataset plan's statements in its experiment, with their annotated factors (an
    exp2 plan's: its statements file read as every statements file is, ids by line)."""
    from elot.btom.scenario import dataset_root, read_statements

    root = dataset_root(ref.root)
    items: list[Item] = []
    if ref.exp == "exp1":
        for mode in ("current", "initial"):
            path = root / "statements" / "exp1" / f"exp1_{mode}.csv"
            rows = [r for r in _read_csv(path) if r.get("plan_id") == ref.plan_id]
            for n, row in enumerate(rows, 1):
                items.append(Item(f"{mode}-{n}", row["statement"].strip(), mode, _factors(row)))
        return tuple(items)
    mode = "initial" if ref.exp == "exp2_initial" else "current"
    path = root / "statements" / f"exp2_{mode}" / f"{ref.plan_id}.txt"
    notes = {(r.get("plan_id"), r.get("statement_id")): r
             for r in _read_csv(root / "statements" / f"exp2_{mode}_annotations.csv")}
    if path.is_file():
        for s in read_statements(path, mode):
            items.append(Item(str(s.line), s.text, s.mode, _factors(notes.get((ref.plan_id, str(s.line)), {}))))
    return tuple(items)


def _read_csv(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return list(csv.DictReader(io.StringIO(read_input(path, "dataset statements"))))


def _factors(row: dict) -> tuple[tuple[str, str], ...]:
    return tuple((f, row[f].strip()) for f in FACTORS if row.get(f) is not None)


def expand_scenarios(specs: Sequence[str], *, root: str | None = None,
                     exps: Sequence[str] = ("exp1", "exp2")) -> list[ScenarioRef]:
    """Scenario arguments → references: ``all`` (every plan of each experiment in
    ``exps``), dataset plan ids (``1_1``, ``exp1/1_1``), ``.scn`` files or globs, and
    example names."""
    from elot.btom.scenario import _PLAN_ID, dataset_root, list_examples

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
        match = _PLAN_ID.match(spec)
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
    from elot.btom.scenario import read_statements

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


def run_tasks(tasks: Sequence[Task]) -> list[tuple[int, list[dict]]]:
    """:func:`run_task` for several tasks in one worker."""
    return [run_task(task) for task in tasks]


def plan_tasks(refs: Sequence[ScenarioRef], *, items: Sequence[Item] | None = None,
               models: Sequence[str] = ("full",), betas: Sequence[float] = (2 ** 1.5,),
               ks: Sequence[int] = (3,), conventions: Sequence[str] = ("elot",),
               thresholds: Sequence[Params] = (Params(Thresholds()),), bind_free: bool = True,
               inferences: Sequence[str] = ("exact",), particles: int | None = None,
               seed: int | None = None) -> list[Task]:
    """Every (scenario, model, β, k, conventions, inference method) task, in table order;
    ``particles`` and ``seed`` are those of every particle inference."""
    from elot.btom.inference import check_method
    from elot.btom.scoring import check_conventions

    for model in models:
        check_model(model)
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
    labels = tuple((p.label, p.thresholds) for p in thresholds)
    tasks = []
    for ref in refs:
        own = tuple(items) if items else scenario_items(ref)
        for model in models:
            for beta in betas:
                for k in ks:
                    for conv in conventions:
                        for method in inferences:
                            tasks.append(Task(len(tasks), ref, model, float(beta), int(k), conv, own, labels,
                                              bind_free, method, particles, seed))
    return tasks


def check_option(name: str, value: float) -> float:
    """``value`` checked as the CLI checks ``--NAME`` (:func:`elot.cli.options.check_number`:
    the same limits and words everywhere), or a :class:`StudyError` naming the option. A
    large ``k`` is limited by the size of its hypothesis space (``elot.btom.hypotheses.build``)."""
    from elot.cli.options import check_number

    try:
        return check_number(name, value)
    except ElotError as error:
        raise StudyError(f"--{name}: {error.message}", hint=error.hint) from None


# -- resources --------------------------------------------------------------------------


#: Bytes a particle takes per step kept besides its k belief states (4 bytes each): goal,
#: true state and log weight (``benchmarks/bench_smc.py`` measures 28 B at k = 3; steps
#: without resampling share all but the weights), with room for the current particles'
#: per-goal likelihoods.
BYTES_PER_PARTICLE_STEP = 24


def estimate_task_bytes(task: Task) -> int:
    """Peak memory of one task: log weights and beliefs per step (exact) or particles per
    step (particle inference), plus a fixed overhead."""
    from elot.btom.hypotheses import MODELS, build
    from elot.btom.particles import DEFAULT_PARTICLES

    scenario = task.scenario.load()
    steps = len(scenario.actions) + 1
    smc = 64 * 2 ** 20 + steps * (task.particles or DEFAULT_PARTICLES) * (BYTES_PER_PARTICLE_STEP + 4 * task.k)
    if task.inference == "smc":
        return smc
    try:
        space = build(scenario.initial, model=task.model if task.model in MODELS else "true-belief", k=task.k)
    except ElotError:
        if task.inference == "auto":   # too large for exact: auto runs particles
            return smc
        raise
    per_step = len(space) * 8 * 3 + space.n_states ** 2 * (space.n_beliefs * 8 + 1)
    return 64 * 2 ** 20 + steps * per_step


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
        key = (task.scenario, task.model, task.k)
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


def _serial(tasks: Sequence[Task]) -> Iterator[tuple[int, list[dict]]]:
    for task in tasks:
        yield run_task(task)


def _local(tasks: Sequence[Task], jobs: int) -> Iterator[tuple[int, list[dict]]]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    # forkserver: workers fork from a clean server that already imported elot, never from
    # this process (whose progress-bar thread must not be forked).
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["elot.study.batch", "elot.btom.scoring", "elot.btom.inference"])
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context)
    # One submission per scenario: a worker then loads the scenario and translates its
    # statements once for all its settings, and there are fewer round trips.
    chunks: dict[ScenarioRef, list[Task]] = {}
    for task in tasks:
        chunks.setdefault(task.scenario, []).append(task)
    try:
        futures = [pool.submit(run_tasks, chunk) for chunk in chunks.values()]
        for future in as_completed(futures):
            yield from future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _dask(tasks: Sequence[Task], address: str) -> Iterator[tuple[int, list[dict]]]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise StudyError("--dask needs the distributed package", hint="pip install 'elot[dask]'") from None
    try:
        client = Client(address, timeout="20s")
    except (OSError, TimeoutError) as error:
        raise StudyError(f"cannot reach the Dask scheduler at {address}: {error}",
                         hint="start one with `dask scheduler` and workers with `dask worker ADDRESS`") from None
    with client:
        futures = [client.submit(run_task, task, key=f"elot-task-{task.index}-{_digest(task)}", pure=False)
                   for task in tasks]
        try:
            for future in as_completed(futures):
                yield future.result()
        finally:
            client.cancel(futures)


def results(tasks: Sequence[Task], *, jobs: int = 1, dask: str | None = None) -> Iterator[tuple[int, list[dict]]]:
    """``(task index, rows)`` for every task, as they finish."""
    if dask:
        return _dask(tasks, dask)
    if jobs > 1 and len(tasks) > 1:
        return _local(tasks, jobs)
    return _serial(tasks)


def _digest(task: Task) -> str:
    return hashlib.sha1(repr(task).encode()).hexdigest()[:12]


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
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for row in rows:
        writer.writerow([_cell(row.get(c, "")) for c in columns])
    return buffer.getvalue()


def header(columns: Sequence[str] = ALL_COLUMNS) -> str:
    """The CSV header line of a table with these columns."""
    return ",".join(columns) + "\n"


@dataclass
class BatchResult:
    """What :func:`batch` did: tasks run now, tasks found done, rows, where it wrote."""

    tasks: int
    resumed: int
    rows: int
    output: str | None
    table: list[dict] | None = None


class _Partial:
    """``OUT.partial`` (rows of finished tasks) and ``OUT.partial.done`` (for each, its
    index and byte range, recorded after the rows are on disk)."""

    def __init__(self, output: Path, fingerprint: str, resume: bool) -> None:
        self.output = output
        self.rows_path = output.with_name(output.name + ".partial")
        self.done_path = output.with_name(output.name + ".partial.done")
        self.done: dict[int, tuple[int, int]] = {}
        if self.rows_path.exists() or self.done_path.exists():
            if not resume:
                raise StudyError(f"an interrupted batch left {self.rows_path}",
                                 hint="add --resume to finish it, or delete it to start over")
            self._load(fingerprint)
        else:
            output.parent.mkdir(parents=True, exist_ok=True)
            self.done_path.write_text(json.dumps({"fingerprint": fingerprint}) + "\n", encoding="utf-8")
            self.rows_path.write_bytes(b"")
        self.handle = self.rows_path.open("r+b")
        self.handle.seek(0, os.SEEK_END)
        self.manifest = self.done_path.open("a", encoding="utf-8")

    def _load(self, fingerprint: str) -> None:
        text = self.done_path.read_text(encoding="utf-8") if self.done_path.exists() else ""
        lines = text.split("\n")
        try:
            header = json.loads(lines[0])
        except (json.JSONDecodeError, IndexError):
            header = {}
        if header.get("fingerprint") != fingerprint:
            raise StudyError(f"{self.rows_path} was written by a different batch",
                             hint="rerun the same command with --resume, or delete it to start over")
        end = 0
        for line in lines[1:-1]:  # the last piece has no newline: an unfinished record
            index, start, stop = (int(x) for x in line.split())
            self.done[index] = (start, stop)
            end = max(end, stop)
        with self.rows_path.open("r+b") as handle:
            handle.truncate(end)  # rows of a task that was being written when it stopped
        with self.done_path.open("r+b") as handle:
            handle.truncate(len("\n".join(lines[:-1])) + 1 if len(lines) > 1 else 0)

    def add(self, index: int, text: str) -> None:
        data = text.encode("utf-8")
        start = self.handle.tell()
        self.handle.write(data)
        self.handle.flush()
        os.fsync(self.handle.fileno())
        self.manifest.write(f"{index} {start} {start + len(data)}\n")
        self.manifest.flush()
        self.done[index] = (start, start + len(data))

    def close(self) -> None:
        self.handle.close()
        self.manifest.close()

    def discard(self) -> None:
        self.rows_path.unlink(missing_ok=True)
        self.done_path.unlink(missing_ok=True)

    def finish(self, fmt: str, columns: Sequence[str] = ALL_COLUMNS) -> int:
        """Write ``OUT`` (rows in task order) and remove the partial files; the row count."""
        self.close()
        data = self.rows_path.read_bytes()
        ordered = b"".join(data[a:b] for _, (a, b) in sorted(self.done.items()))
        text = header(columns) + ordered.decode("utf-8")
        write_table_text(self.output, text, fmt)
        self.rows_path.unlink()
        self.done_path.unlink()
        return len(read_table_text(text))


def read_table_text(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def write_table_text(path: Path | str, text: str, fmt: str) -> None:
    """Write CSV text as ``fmt`` (csv or parquet) atomically."""
    if fmt == "parquet":
        table = _arrow_table(text)
        import pyarrow.parquet as pq

        with atomic_output(path, "wb", force=True) as handle:   # checked by batch() before the work
            pq.write_table(table, handle)
        return
    with atomic_output(path, force=True) as handle:
        handle.write(text)


def _arrow_table(text: str):
    try:
        import pyarrow as pa
        import pyarrow.csv as pacsv
    except ImportError:
        raise StudyError("Parquet output needs pyarrow", hint="pip install 'elot[parquet]'") from None
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
) -> BatchResult:
    """Run ``tasks`` (see :func:`plan_tasks`) and write the table to ``output`` (``-`` for
    standard output, rows in the order they finish), or return it when ``output`` is None.

    ``progress(done, total)`` is called after each task. Interrupted runs keep their
    finished tasks in ``OUT.partial``; ``resume=True`` continues them. An existing
    ``output`` that a study did not write is refused before any work unless ``force``.
    """
    if output is not None:
        check_replace(output, force=force)
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
        return BatchResult(total, 0, len(table), None, table)
    if str(output) == "-":
        if fmt != "csv":
            raise StudyError("only CSV can be streamed to standard output", hint="give -o FILE for parquet")
        import sys

        sys.stdout.write(header(columns))
        count = 0
        for done, (_, rows) in enumerate(results(tasks, jobs=jobs, dask=dask), 1):
            sys.stdout.write(format_rows(rows, columns))
            sys.stdout.flush()
            count += len(rows)
            if progress:
                progress(done, total)
        return BatchResult(total, 0, count, "-")
    output = Path(output)
    partial = _Partial(output, fingerprint(tasks), resume)
    todo = [t for t in tasks if t.index not in partial.done]
    resumed = total - len(todo)
    try:
        if progress:
            progress(resumed, total)
        for index, rows in results(todo, jobs=jobs, dask=dask):
            partial.add(index, format_rows(rows, columns))
            if progress:
                progress(len(partial.done), total)
    except BaseException:
        partial.close()
        if not partial.done:  # nothing finished (a bad option, an unreachable cluster): leave nothing
            partial.discard()
        raise
    count = partial.finish(fmt, columns)
    return BatchResult(len(todo), resumed, count, str(output))


def read_table(path: str | Path) -> list[dict]:
    """A batch table (CSV or Parquet) as a list of row dicts (values as strings)."""
    path = Path(path)
    if path.suffix == ".parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise StudyError("reading Parquet needs pyarrow", hint="pip install 'elot[parquet]'") from None
        rows = pq.read_table(path).to_pylist()
        return [{k: "" if v is None else (repr(v) if isinstance(v, float) else str(v)) for k, v in r.items()}
                for r in rows]
    return list(csv.DictReader(io.StringIO(read_input(path, "table"))))
