"""``elot batch``: many scenarios × statements × settings → one tidy table.

:func:`batch` runs the tasks of :func:`elot.study.tasks.plan_tasks` where
:mod:`elot.study.executors` sends them, after checking that they fit in memory
(:mod:`elot.study.resources`), and writes the table through a locked, resumable,
checked journal (:mod:`elot.study.journal`), to standard output, or returns it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from elot.study.executors import WorkersLost, finished, results
from elot.study.journal import Journal
from elot.study.params import StudyError, check_replace
from elot.study.resources import check_resources
from elot.study.tables import Failures, FailureTally, arrow_table, format_rows, header
from elot.study.tasks import Task, check_option, table_columns


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


def fingerprint(tasks: Sequence[Task]) -> str:
    """SHA-256 of the tasks' reprs, one a line (what a resumed batch's journal must match).

    Each task's repr is the dataclass's, written here from its fields' reprs, each shared
    value (the scenarios, the settings: thousands of tasks hold a few dozen) written once."""
    names = [f.name for f in dataclasses.fields(Task) if f.repr]
    shown: dict[int, tuple[object, str]] = {}

    def text(value: object) -> str:
        found = shown.get(id(value))
        if found is None:
            found = shown[id(value)] = (value, repr(value))    # the value kept: its id stays its own
        return found[1]

    lines = (f"{type(t).__qualname__}({', '.join(f'{name}={text(getattr(t, name))}' for name in names)})"
             for t in tasks)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


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
    """Run ``tasks`` (see :func:`elot.study.tasks.plan_tasks`) and write the table to ``output`` (``-`` for
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
        arrow_table(header(columns))  # pyarrow is there before any work starts
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
        written, tally = 0, FailureTally()
        for done, (_, rows) in enumerate(results(tasks, jobs=jobs, dask=dask), 1):
            sys.stdout.write(format_rows(rows, columns))
            tally.add(rows)
            sys.stdout.flush()
            written += len(rows)
            if progress:
                progress(done, total)
        return BatchResult(total, 0, written, "-", failures=tally.result())
    output = Path(output)
    partial = Journal(output, fingerprint(tasks), resume, total, columns)
    todo = [t for t in tasks if t.index not in partial.done]
    resumed = total - len(todo)
    try:
        if progress:
            progress(resumed, total)
        for group in finished(todo, jobs=jobs, dask=dask, as_text=columns):
            partial.add_many(group)
            if progress:
                progress(len(partial.done), total)
    except BaseException as error:
        with contextlib.suppress(OSError):
            partial.sync()      # the tasks appended so far are recorded: --resume skips them
        partial.close()
        if not partial.done:  # nothing finished (a bad option, an unreachable cluster): leave nothing
            partial.discard()
        partial.release()
        if isinstance(error, WorkersLost):
            raise error.saying(
                f"the {len(partial.done):,} finished tasks are kept in {partial.rows_path}: rerun the same command "
                "with --resume to finish (with fewer --jobs if memory ran out)" if partial.done else
                "no task had finished, so nothing was kept: rerun with fewer --jobs if memory ran out") from None
        raise
    try:
        rows, failures = partial.finish(fmt, force=force, inputs=inputs)
    finally:
        partial.release()
    return BatchResult(len(todo), resumed, rows, str(output), failures=failures)
