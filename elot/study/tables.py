"""The tidy table every study reads and writes: its columns, rows as exact CSV text, the
table read back and written (CSV or Parquet), and the rows that could not be scored."""

from __future__ import annotations

import csv
import dataclasses
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from elot.errors import csv_rows
from elot.output import count, csv_text, excerpt
from elot.study.params import StudyError, atomic_output, read_input

#: The table's columns (tidy: one row per scenario, settings, statement, mode and t).
COLUMNS = ("scenario", "map", "model", "beta", "k", "conventions", "thresholds", "statement_id",
           "statement", "formula", "mode", "t", "P", "L", "pi", "error")
#: Linguistic factors of the dataset's annotation files, carried when known.
FACTORS = ("possibility", "probability", "compositional", "knowledge")
ALL_COLUMNS = COLUMNS + FACTORS
#: Columns a table gets when a task runs particle inference: the method that ran, the
#: particles and seed, the effective sample size at t and L's standard error (SPEC §8).
PARTICLE_COLUMNS = ("inference", "particles", "seed", "ess", "L_se")


def value_of(row: dict, column: str = "L") -> float | None:
    """A row's number in ``column``, None where it is empty or not a number."""
    try:
        return float(row[column])
    except (TypeError, ValueError, KeyError):
        return None


def settings_of(row: dict) -> tuple[str, str, str, str, str]:
    """A row's settings: (model, β, k, conventions, thresholds), as the table has them."""
    return (row["model"], row["beta"], row["k"], row["conventions"], row["thresholds"])


def fixed(setting: Sequence[str]) -> bool:
    """A setting without a β (a language model's, ``elot baseline``): its model's one setting."""
    return setting[1] == ""


def setting_text(setting: Sequence[str]) -> str:
    """``full (β = 2.83)``, or a model without β by its name: a legend's and a title's."""
    return setting[0] if fixed(setting) else f"{setting[0]} (β = {float(setting[1]):.3g})"


def _cell(value) -> str:
    if isinstance(value, float):
        return repr(value)
    return "" if value is None else str(value)


def format_rows(rows: Iterable[dict], columns: Sequence[str] = ALL_COLUMNS) -> str:
    """CSV text of rows (no header), floats written exactly."""
    return csv_text([{c: _cell(row.get(c, "")) for c in columns} for row in rows], columns, header=False)


def header(columns: Sequence[str] = ALL_COLUMNS) -> str:
    """The CSV header line of a table with these columns."""
    return ",".join(columns) + "\n"


def read_table_text(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def write_table_text(path: Path | str, text: str, fmt: str, *, force: bool = False,
                     inputs: Sequence[str | Path] = ()) -> None:
    """Write CSV text as ``fmt`` (csv or parquet) atomically."""
    if fmt == "parquet":
        table = arrow_table(text)
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


def arrow_table(text: str):
    pa, pacsv, _ = pyarrow_modules("Parquet output")
    types = {c: pa.string() for c in ALL_COLUMNS + PARTICLE_COLUMNS}
    types.update(beta=pa.float64(), k=pa.int64(), t=pa.int64(), P=pa.float64(), L=pa.float64(), pi=pa.float64(),
                 ess=pa.float64(), L_se=pa.float64())
    return pacsv.read_csv(pa.py_buffer(text.encode("utf-8")),
                          convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False,
                                                               quoted_strings_can_be_null=False))


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


def read_tables(paths: Sequence[str | Path]) -> list[dict]:
    """Several study tables as one (a batch table and a language model's ``elot baseline``
    table, say): their rows in the order given. A setting (model, β, k, conventions,
    thresholds) found in two of them is refused, as its rows would count twice."""
    rows: list[dict] = []
    seen: dict[tuple, str] = {}
    for path in paths:
        table = read_table(path)
        for setting in dict.fromkeys(settings_of(r) for r in table):
            if seen.get(setting) == str(path):
                raise StudyError(f"{path} is given twice", path=str(path), hint="give each table once")
            if setting in seen:
                raise StudyError(f"{setting_text(setting)} is in two tables: {seen[setting]} and {path}",
                                 path=str(path), hint="give each setting's rows once (one of the two tables)")
            seen[setting] = str(path)
        rows += table
    return rows


def _check_columns(path: Path, header: Sequence[str]) -> None:
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise StudyError(f"not a batch table: it has no {', '.join(missing)} "
                         f"column{'s' if len(missing) > 1 else ''}", path=str(path),
                         hint="give the table elot batch wrote (columns " + ", ".join(COLUMNS) + "); "
                              "a ratings file goes with --ratings")


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
        tally = FailureTally()
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


class FailureTally:
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
