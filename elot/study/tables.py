"""The tidy table every study reads and writes: its columns, rows as exact CSV text, the
settings a row belongs to, the table read back (checked: a file that is not the table it
claims to be, a malformed row or one answered twice is an error at its place) and written
(CSV or Parquet), and the rows that could not be scored."""

from __future__ import annotations

import csv
import dataclasses
import io
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, NamedTuple, Sequence

from elot.errors import csv_records
from elot.output import count, csv_text, excerpt
from elot.study.params import StudyError, check_whole, line_error, read_input, write_study

#: The table's columns (tidy: one row per scenario, settings, statement, mode and t).
COLUMNS = ("scenario", "map", "model", "beta", "k", "conventions", "thresholds", "statement_id",
           "statement", "formula", "mode", "t", "P", "L", "pi", "error")
#: Linguistic factors of the dataset's annotation files, carried when known.
FACTORS = ("possibility", "probability", "compositional", "knowledge")
ALL_COLUMNS = COLUMNS + FACTORS
#: Columns a table gets when a task runs particle inference: the method that ran, the
#: particles and seed, the effective sample size at t and L's standard error (SPEC §8).
PARTICLE_COLUMNS = ("inference", "particles", "seed", "ess", "L_se", "warning")
#: The column a table gets when its domain's models have settings no other column holds
#: (a PDDL domain's ``epsilon=0.05 weight=0.2``): part of a row's setting.
PARAM_COLUMNS = ("params",)
#: The column a table gets when a task's domain has events: at t, the posterior that each
#: agent saw each event and that each event happened, as ``observed(sally, move)=0.1;
#: happened(move)=1.0`` (the run's percept and event outputs, docs/domains.md).
PERCEPT_COLUMNS = ("percepts",)


def value_of(row: dict, column: str = "L") -> float | None:
    """A row's number in ``column``, None where it is empty or not a number."""
    try:
        return float(row[column])
    except (TypeError, ValueError, KeyError):
        return None


class Setting(NamedTuple):
    """The settings of a row, as the table has them: rows of one setting are one model's
    answers, scored, averaged and drawn together. A model without a β (a language model of
    ``elot baseline``) has every field but ``model`` empty; a table without the particle
    columns ran exact inference."""

    model: str
    beta: str
    k: str
    conventions: str
    thresholds: str
    inference: str = ""
    particles: str = ""
    seed: str = ""
    params: str = ""

    @property
    def sampled(self) -> bool:
        """Whether the setting ran a method other than exact inference (its particles and
        seed are then part of it)."""
        return self.inference not in ("", "exact")

    def method(self) -> str:
        """``smc, 1000 particles, seed 3``; empty for exact inference."""
        if not self.sampled:
            return ""
        return ", ".join([self.inference] + ([f"{self.particles} particles"] if self.particles else [])
                         + ([f"seed {self.seed}"] if self.seed else []))


def settings_of(row: dict) -> Setting:
    """A row's :class:`Setting`."""
    method = [str(row.get(c) or "") for c in ("inference", "particles", "seed")]
    if row["beta"] and not method[0]:
        method[0] = "exact"      # a table of exact inference has no inference column
    return Setting(row["model"], row["beta"], row["k"], row["conventions"], row["thresholds"], *method,
                   str(row.get("params") or ""))


def fixed(setting: Sequence[str]) -> bool:
    """A setting without a β (a language model's, ``elot baseline``): its model's one setting."""
    return setting[1] == ""


def setting_text(setting: Setting) -> str:
    """``full (β = 2.83)``, ``full (β = 2.83; smc, 1000 particles)``, or a model without β
    by its name: a legend's and a title's."""
    if fixed(setting):
        return setting.model
    method = setting.method()
    params = f", {setting.params}" if setting.params else ""
    return f"{setting.model} (β = {float(setting.beta):.3g}{params}{'; ' + method if method else ''})"


def match_beta(values: Iterable[str], wanted: float, *, what: str = "β") -> str | None:
    """The value among ``values`` (a table's β, as text) that ``wanted`` names: the equal
    one, else the one within a relative 0.5% (β as the report prints it: 2.83 for
    2.8284271247461903); None when none is. Two within 0.5% (and none equal) is an
    error listing them."""
    values = [v for v in dict.fromkeys(values) if v != ""]
    numbers = {v: float(v) for v in values}
    equal = [v for v in values if math.isclose(numbers[v], wanted, rel_tol=1e-9)]
    if equal:
        return equal[0]
    near = sorted((v for v in values if math.isclose(numbers[v], wanted, rel_tol=BETA_MATCH)), key=float)
    if len(near) > 1:
        raise StudyError(f"{what} {wanted:g} is ambiguous: the table has {', '.join(near)}",
                         hint="give more digits of the one you mean")
    return near[0] if near else None


#: How near (relatively) a β given as an option must be to a table's to name it.
BETA_MATCH = 0.5e-2


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


class TaskRows(NamedTuple):
    """A task's rows as CSV text (no header) where the task ran, with how many records it
    holds and those with an ``error``, as ``csv.DictReader`` reads them under the table's
    header: what the batch's one writing process tallies the table from, task by task in
    table order, instead of reading the whole table back (:meth:`Journal.finish`)."""

    text: str
    rows: int
    failed: tuple[dict, ...]

    @classmethod
    def of(cls, text: str, columns: Sequence[str]) -> "TaskRows":
        rows, failed = _records(csv.reader(io.StringIO(text)), list(columns))
        return cls(text, rows, tuple(failed))


def tally_table_text(text: str) -> tuple[int, "Failures"]:
    """The rows of a table's CSV text and its :class:`Failures`, what
    ``len(rows), Failures.of(rows)`` of ``rows = list(csv.DictReader(...))`` give, without a
    dict per row: only the rows with an ``error`` become dicts."""
    reader = csv.reader(io.StringIO(text))
    names = next(reader, None)
    if names is None:
        return 0, Failures()
    rows, failed = _records(reader, names)
    tally = FailureTally()
    tally.add(failed)
    return rows, tally.result()


def _records(reader, names: list[str]) -> tuple[int, list[dict]]:
    """How many records ``reader`` gives (blank lines skipped, as DictReader does), and the
    ones with an ``error`` as DictReader's dicts under ``names``."""
    at = names.index("error") if "error" in names else None
    rows, failed = 0, []
    for record in reader:
        if not record:
            continue
        rows += 1
        if at is not None and at < len(record) and record[at]:
            row = dict(zip(names, record))
            if len(record) > len(names):
                row[None] = record[len(names):]     # as DictReader keeps a long row's rest
            row.update((name, None) for name in names[len(record):])
            failed.append(row)
    return rows, failed


def write_table_text(path: Path | str, text: str, fmt: str, *, force: bool = False,
                     inputs: Sequence[str | Path] = ()) -> None:
    """Write CSV text as ``fmt`` (csv or parquet) atomically."""
    if fmt == "parquet":
        table = arrow_table(text)
        _, _, pq = pyarrow_modules("Parquet output")

        write_study(path, lambda handle: pq.write_table(table, handle), force=force, inputs=inputs)
        return
    write_study(path, text, force=force, inputs=inputs)


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
    types = {c: pa.string() for c in ALL_COLUMNS + PARTICLE_COLUMNS + PARAM_COLUMNS + PERCEPT_COLUMNS}
    types.update(beta=pa.float64(), k=pa.int64(), t=pa.int64(), P=pa.float64(), L=pa.float64(), pi=pa.float64(),
                 ess=pa.float64(), L_se=pa.float64())
    return pacsv.read_csv(pa.py_buffer(text.encode("utf-8")),
                          convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False,
                                                               quoted_strings_can_be_null=False))


@dataclass
class StudyTable:
    """A study table as read (:func:`read_study_table`): its rows, values as strings."""

    path: str
    rows: list[dict]
    #: Rows dropped as repeats of an identical earlier row (:func:`read_table`).
    repeated: int = 0

    def repeats_note(self) -> str:
        """What a command says of the rows it dropped as repeats (empty: none)."""
        return (f"{self.path}: {count(self.repeated, 'row')} repeating an identical earlier row, counted once"
                if self.repeated else "")


def read_table(path: str | Path) -> list[dict]:
    """A batch table (CSV or Parquet) as a list of row dicts (values as strings), or a
    StudyError naming the file: not a Parquet file, without the columns of a batch table
    (a ratings file given in its place, say), a short or long row, a value that is not a
    number where one is needed, or a row that repeats another's scenario, setting,
    statement, mode and t with other values (an identical repeat is kept once)."""
    return read_study_table(path).rows


def read_study_table(path: str | Path) -> StudyTable:
    """:func:`read_table`, with the repeats it dropped counted."""
    path = Path(path)
    if path.suffix == ".parquet":
        rows, places = _read_parquet(path)
    else:
        text = read_input(path, "table")
        reader = csv.DictReader(io.StringIO(text))
        rows, lines = [], []
        for row in csv_records(reader, path=str(path), what="table"):   # a line csv cannot read comes first
            rows.append(row)
            lines.append(reader.line_num)
        header = reader.fieldnames or []
        _check_columns(path, header)
        for row, line in zip(rows, lines):
            check_whole(row, header, text, path, line)
        places = [_Place(str(path), text, n) for n in lines]
    for row, place in zip(rows, places):
        _check_values(row, place)
    kept, repeated = _without_repeats(rows, places)
    return StudyTable(str(path), kept, repeated)


@dataclass(frozen=True)
class _Place:
    """Where a row is: line ``n`` of CSV ``text``, or row ``n`` of a Parquet table."""

    path: str
    text: str | None
    n: int

    def error(self, message: str, hint: str | None = None) -> StudyError:
        if self.text is None:
            return StudyError(f"row {self.n}: {message}", path=self.path, hint=hint)
        return line_error(message, self.text, self.path, self.n, hint=hint)


def _read_parquet(path: Path) -> tuple[list[dict], list[_Place]]:
    pa, _, pq = pyarrow_modules("reading Parquet")
    try:
        data = path.read_bytes()
    except OSError as error:
        raise StudyError(f"cannot read table file {path}", path=str(path), notes=(error.strerror or str(error),),
                         hint="check the path") from None
    try:
        found = pq.read_table(pa.BufferReader(data))
    except (pa.ArrowException, OSError, ValueError) as error:
        said = ("it is empty" if not data.strip() else
                "it looks like CSV text" if data[:200].split(b"\n")[0].startswith(b"scenario,") else
                f"{error}".replace("<Buffer>", str(path)))
        raise StudyError(f"not a Parquet table: {said}", path=str(path),
                         hint="give the .parquet file elot batch wrote" +
                              ("; a CSV table is read as CSV when its name ends in .csv" if data.strip() else "")
                         ) from None
    _check_columns(path, found.column_names)
    rows = [{k: "" if v is None else (repr(v) if isinstance(v, float) else str(v)) for k, v in r.items()}
            for r in found.to_pylist()]
    return rows, [_Place(str(path), None, n) for n in range(1, len(rows) + 1)]


#: How far past 1 a probability read from a table may be (the last bits of a correctly
#: rounded sum of weights that add to 1), before it is off its range. Below 0 there is no
#: such slack: a sum of weights ≥ 0 is never negative.
ROUNDING = 1e-12


def _probability(n: float) -> bool:
    return 0.0 <= n <= 1.0 + ROUNDING


#: The numbers a row holds: each column's type, what it must be, and whether it may be
#: empty (β and k of a language model, which has none; P, L and π of a row not scored).
#: P, L and π are probabilities (SPEC: L is normalized to [0, 1]): a value off [0, 1], or
#: one that is not finite, is a table edited or damaged since it was written, and is
#: refused at its line rather than drawn or fitted. The columns only some tables have
#: (particles' ``L_se`` and ``ess``, a baseline's ``llm_rating``) are checked when there.
_NUMBERS = {"t": (int, lambda n: n >= 0, "a whole number ≥ 0", False),
            "k": (int, lambda n: n >= 1, "a whole number ≥ 1", True),
            "beta": (float, lambda n: math.isfinite(n) and n > 0, "a positive number", True),
            **{c: (float, _probability, "a probability (a number from 0 to 1)", True) for c in ("P", "L", "pi")}}
_OPTIONAL_NUMBERS = {
    "L_se": (float, lambda n: math.isfinite(n) and n >= 0, "a standard error (a finite number ≥ 0)", True),
    "ess": (float, lambda n: math.isfinite(n) and n >= 0, "an effective sample size (a finite number ≥ 0)", True),
    "llm_rating": (float, lambda n: 1.0 <= n <= 7.0, "a rating on the scale 1 to 7", True),
}


def _check_values(row: dict, place: _Place) -> None:
    """A StudyError at ``place`` for a row whose numbers the report could not read, or
    that are off their range."""
    checks = list(_NUMBERS.items()) + [(c, check) for c, check in _OPTIONAL_NUMBERS.items() if c in row]
    for column, (kind, good, need, optional) in checks:
        value = (row[column] or "").strip()
        if optional and not value:
            continue
        try:
            number = kind(value)
        except (ValueError, OverflowError):
            # a probability's or a column's of only some tables: first whether it is a number at all
            said = need if column in ("t", "k", "beta") else "a number"
            raise place.error(f"{column} {value!r} is not {said}",
                              hint="give the table elot batch or elot baseline wrote, unchanged") from None
        if not good(number):
            raise place.error(f"{column} {value!r} is not {need}",
                              hint="give the table elot batch or elot baseline wrote, unchanged (a value off its "
                                   "range was edited in or damaged since)")
    if not row["model"].strip():
        raise place.error("the model is blank", hint="give the table elot batch or elot baseline wrote, unchanged")


def _row_key(row: dict) -> tuple:
    """What one row is the answer to: its scenario, setting, statement, mode and t."""
    return (row["scenario"], row["map"], settings_of(row), row["statement_id"], row["formula"], row["mode"],
            int(row["t"]))


def _without_repeats(rows: list[dict], places: Sequence[_Place]) -> tuple[list[dict], int]:
    """``rows`` with each row identical to an earlier one dropped (it would count twice),
    and how many were; a row that answers the same as an earlier one with other values
    (a baseline run with --condition plan,plan, say) is an error naming both."""
    first: dict[tuple, int] = {}
    kept = []
    for n, row in enumerate(rows):
        key = _row_key(row)
        seen = first.setdefault(key, n)
        if seen == n:
            kept.append(row)
        elif rows[seen] != row:
            other = places[seen]
            where = f"line {other.n}" if other.text is not None else f"row {other.n}"
            raise places[n].error(
                f"this row repeats {where} ({row['scenario']}, {setting_text(settings_of(row))}, statement "
                f"{row['statement_id'] or row['statement']!r}, {row['mode']}, t {row['t']}) with other values",
                hint="each statement is scored once per setting and point: remove one of the two (a table made "
                     "with one setting given twice under one name, e.g. --condition plan,plan, holds its rows "
                     "twice)")
    return kept, len(rows) - len(kept)


def read_tables(paths: Sequence[str | Path]) -> list[dict]:
    """Several study tables as one (:func:`read_study_tables`): their rows in order."""
    return [row for table in read_study_tables(paths) for row in table.rows]


def read_study_tables(paths: Sequence[str | Path]) -> list[StudyTable]:
    """Several study tables (a batch table and a language model's ``elot baseline``
    table, say), each read by :func:`read_table`. A table given twice, or a setting
    found in two of them, is refused, as its rows would count twice."""
    from elot.output import same_file

    tables: list[StudyTable] = []
    seen: dict[Setting, str] = {}
    for path in paths:
        for other in tables:
            if str(path) == other.path or same_file(path, other.path):
                raise StudyError(f"{path} is given twice", path=str(path), hint="give each table once")
        table = read_study_table(path)
        if not table.rows:
            raise StudyError("the table has no rows", path=str(path), hint="run elot batch first")
        for setting in dict.fromkeys(settings_of(r) for r in table.rows):
            if setting in seen:
                raise StudyError(f"{setting_text(setting)} is in two tables: {seen[setting]} and {path}",
                                 path=str(path), hint="give each setting's rows once (one of the two tables)")
            seen[setting] = str(path)
        tables.append(table)
    return tables


def _check_columns(path: Path, header: Sequence[str]) -> None:
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise StudyError(f"not a batch table: it has no {', '.join(missing)} "
                         f"column{'s' if len(missing) > 1 else ''}" + ("" if header else " (it is empty)"),
                         path=str(path),
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
