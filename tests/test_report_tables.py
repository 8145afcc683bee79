"""The study tables ``elot report``, ``elot storyboard --table`` and ``elot simulate`` read:
malformed input is one located error (exit 2, no traceback), a β is taken as printed,
settings are told apart by their inference method, and nothing is counted twice. Every
check runs the command line."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from helpers import run_elot

TWO_DOORS = "two-doors"      # an example: its rows' scenario is its name


def _elot(tmp_path, *args):
    return run_elot(*args, cwd=tmp_path)


def _refused(result, start: str):
    """Exit 2 with one error that starts with ``start``, a hint, and no traceback."""
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(start), result.stderr
    assert "hint: " in result.stderr and "Traceback" not in result.stderr


def _rows(path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(Path(path).read_text(encoding="utf-8"))))


def _write(path, rows, columns=None):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns or list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A batch table of two-doors at the default β (2.8284271247461903), with ratings."""
    here = tmp_path_factory.mktemp("tables")
    assert run_elot("batch", TWO_DOORS, "-o", str(here / "t.csv")).returncode == 0
    assert run_elot("simulate", str(here / "t.csv"), "-o", str(here / "ratings.csv")).returncode == 0
    return here / "t.csv"


@pytest.mark.slow
@pytest.mark.parametrize("content, said", [
    (None, "not a Parquet table: it looks like CSV text"),          # a CSV table named .parquet
    (b"", "not a Parquet table: it is empty"),
    (b"\x89PNG\r\n\x1a\n" + bytes(200), "not a Parquet table: "),
])
def test_a_file_that_is_not_parquet_is_named(tmp_path, table, content, said):
    bad = tmp_path / "bl.parquet"
    bad.write_bytes(table.read_bytes() if content is None else content)
    report = _elot(tmp_path, "report", str(bad), "-o", "d")
    _refused(report, f"{bad}: error: {said}")
    assert not (tmp_path / "d").exists()
    board = _elot(tmp_path, "storyboard", TWO_DOORS, "--table", str(bad), "-o", "s.png")
    _refused(board, f"{bad}: error: {said}")
    assert not (tmp_path / "s.png").exists()


def test_a_parquet_table_reads_as_its_csv(tmp_path):
    assert _elot(tmp_path, "batch", TWO_DOORS, "-o", "t.parquet").returncode == 0
    result = _elot(tmp_path, "report", "t.parquet", "-o", "d", "--format", "png")
    assert result.returncode == 0, result.stderr
    assert "wrote 3 files to d" in result.stderr


def _malformed(table, tmp_path, change):
    """The table with line 3 (its second row) changed by ``change``."""
    lines = table.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = change(lines[2])
    bad = tmp_path / "bad.csv"
    bad.write_text("".join(lines), encoding="utf-8")
    return bad


@pytest.mark.parametrize("change, said", [
    (lambda line: ",".join(line.split(",")[:3]) + "\n", "the row is short: 3 fields where the header has 20; "
                                                       "no value for beta, k"),
    (lambda line: line.rstrip("\n") + ",extra,fields\n", "the row is long: 22 fields where the header has 20"),
    (lambda line: re.sub(r",current,(\d+),[^,]*,", r",current,\1,abc,", line), "P 'abc' is not a number"),
    (lambda line: re.sub(r",current,\d+,", ",current,x,", line), "t 'x' is not a whole number"),
])
def test_a_malformed_row_is_located_in_every_reader(tmp_path, table, change, said):
    bad = _malformed(table, tmp_path, change)
    for args in (("report", str(bad), "-o", "d"),
                 ("storyboard", TWO_DOORS, "--table", str(bad), "-o", "s.png"),
                 ("simulate", str(bad), "-o", "r.csv")):
        _refused(_elot(tmp_path, *args), f"{bad}:3:1: error: {said}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


def test_a_short_ratings_row_says_so(tmp_path, table):
    ratings = table.parent / "ratings.csv"
    lines = ratings.read_text(encoding="utf-8").splitlines(keepends=True)
    bad = tmp_path / "ratings.csv"
    bad.write_text("".join(lines[:4]) + lines[4].split(",")[0] + "\n", encoding="utf-8")
    for args in (("report", str(table), "--ratings", str(bad), "-o", "d"), ("fit", str(bad))):
        result = _elot(tmp_path, *args)
        _refused(result, f"{bad}:5:1: error: the row is short: 1 field where the header has ")
        assert "None" not in result.stderr


def test_a_header_without_rows_is_named(tmp_path, table):
    empty = tmp_path / "empty.csv"
    empty.write_text(table.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    _refused(_elot(tmp_path, "report", str(table), str(empty), "-o", "d"), f"{empty}: error: the table has no rows")


def test_a_beta_is_taken_as_printed_and_the_one_drawn_is_said(tmp_path, table):
    result = _elot(tmp_path, "report", str(table), "--beta", "2.83", "-o", "d", "--format", "png")
    assert result.returncode == 0, result.stderr
    assert "note: --beta 2.83 is the table's β 2.8284271247461903 (full)" in result.stderr
    assert "drawn: full at β 2.83" in result.stderr and "chosen with --beta" in result.stderr
    simulated = _elot(tmp_path, "simulate", str(table), "--beta", "2.83", "-o", "r.csv")
    assert simulated.returncode == 0, simulated.stderr
    # a β two of the table's are near is ambiguous; one far from all is not there
    assert _elot(tmp_path, "batch", TWO_DOORS, "--beta", "2.82,2.84", "-o", "near.csv").returncode == 0
    _refused(_elot(tmp_path, "report", "near.csv", "--beta", "2.83", "-o", "d2"),
             "error: --beta for full 2.83 is ambiguous: the table has 2.82, 2.84")
    _refused(_elot(tmp_path, "report", str(table), "--beta", "2.9", "-o", "d3"),
             "error: the table has no rows of model full at β 2.9")
    assert not (tmp_path / "d2").exists() and not (tmp_path / "d3").exists()


def test_beta_on_tables_without_one_is_refused(tmp_path, table):
    """A language model's table (elot baseline's: no β, k, conventions or thresholds)."""
    rows = [{**r, "model": "lab/plan", "beta": "", "k": "", "conventions": "", "thresholds": ""}
            for r in _rows(table)]
    _write(tmp_path / "lab3.csv", rows)
    _refused(_elot(tmp_path, "report", "lab3.csv", "--beta", "2", "-o", "d"), "error: --beta does not apply")
    assert not (tmp_path / "d").exists()
    plain = _elot(tmp_path, "report", "lab3.csv", "-o", "d", "--format", "png")
    assert plain.returncode == 0 and "chosen with --beta" not in plain.stderr, plain.stderr


def _summary(folder) -> list[dict]:
    return _rows(Path(folder) / "summary.csv")


@pytest.mark.slow
def test_settings_are_told_apart_by_their_inference_method(tmp_path, table):
    assert _elot(tmp_path, "batch", TWO_DOORS, "--inference", "exact,smc", "--particles", "200",
                 "-o", "mixed.csv").returncode == 0
    result = _elot(tmp_path, "report", "mixed.csv", "--ratings", str(table.parent / "ratings.csv"), "-o", "d",
                   "--format", "png", "--no-storyboards")
    assert result.returncode == 0, result.stderr
    rows = _summary(tmp_path / "d")
    assert [(r["inference"], r["particles"], r["rows"]) for r in rows] == [("exact", "", "32"), ("smc", "200", "32")]
    assert [r["drawn"] for r in rows] == ["yes", ""]      # exact wins a tie
    exact = [r for r in _rows(table)]
    assert float(rows[0]["mean_L"]) == pytest.approx(sum(float(r["L"]) for r in exact) / len(exact))
    # an exact table and a particle table at the same β are two settings, not one in two tables
    assert _elot(tmp_path, "batch", TWO_DOORS, "--inference", "smc", "--particles", "200",
                 "-o", "smc.csv").returncode == 0
    both = _elot(tmp_path, "report", str(table), "smc.csv", "-o", "d2", "--format", "png")
    assert both.returncode == 0, both.stderr
    assert [r["inference"] for r in _summary(tmp_path / "d2")] == ["exact", "smc"]
    # simulated ratings come from one method
    _refused(_elot(tmp_path, "simulate", "mixed.csv", "-o", "r.csv"),
             "error: mixed.csv holds this setting under 2 inference methods")
    # a table of exact inference keeps its summary's columns
    alone = _elot(tmp_path, "report", str(table), "-o", "d3", "--format", "png")
    assert alone.returncode == 0 and "inference" not in _summary(tmp_path / "d3")[0]


def test_a_table_given_twice_is_refused_by_storyboard_as_by_report(tmp_path, table):
    copy = tmp_path / "tcopy.csv"
    copy.write_bytes(table.read_bytes())
    for command in (("report", str(table), str(copy), "-o", "d"),
                    ("storyboard", TWO_DOORS, "--table", str(table), "--table", str(copy), "-o", "s.png")):
        _refused(_elot(tmp_path, *command), f"{copy}: error: full (β = 2.83) is in two tables: {table} and {copy}")
    for command in (("report", str(table), str(table), "-o", "d"),
                    ("storyboard", TWO_DOORS, "--table", str(table), "--table", str(table), "-o", "s.png")):
        _refused(_elot(tmp_path, *command), f"{table}: error: {table} is given twice")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tcopy.csv"]


def test_a_repeated_row_is_refused_unless_identical(tmp_path, table):
    rows = _rows(table)
    changed = {**rows[1], "L": "0.5"}
    _write(tmp_path / "dup.csv", rows + [changed])
    line = len(rows) + 2
    for command in (("report", "dup.csv", "-o", "d"),
                    ("storyboard", TWO_DOORS, "--table", "dup.csv", "-o", "s.png")):
        result = _elot(tmp_path, *command)
        _refused(result, f"dup.csv:{line}:1: error: this row repeats line 3 (two-doors, full (β = 2.83), statement ")
        assert "with other values" in result.stderr
    assert not (tmp_path / "d").exists() and not (tmp_path / "s.png").exists()
    # the same row twice, word for word, counts once and is said
    _write(tmp_path / "same.csv", rows + rows[:2])
    result = _elot(tmp_path, "report", "same.csv", "-o", "d", "--format", "png")
    assert result.returncode == 0, result.stderr
    assert "note: same.csv: 2 rows repeating an identical earlier row, counted once" in result.stderr
    assert _summary(tmp_path / "d")[0]["rows"] == str(len(rows))


@pytest.mark.slow
def test_a_format_given_twice_is_drawn_and_counted_once(tmp_path, table):
    result = _elot(tmp_path, "report", str(table), "--ratings", str(table.parent / "ratings.csv"), "--format",
                   "png,png", "-o", "d")
    assert result.returncode == 0, result.stderr
    written = sorted(p.name for p in (tmp_path / "d").iterdir() if not p.name.startswith("."))   # not the marks
    assert f"wrote {len(written)} files to d" in result.stderr
    assert written == ["curves-two-doors.png", "scatter.png", "storyboard-two-doors.png", "summary.csv",
                       "summary.md"]


def test_a_model_the_table_lacks_is_checked_against_the_tables_domain(tmp_path, baker2017):
    """``report --model`` names a model of the table or of its domain (``--domain``): a
    food-truck table is not told the gridworld's models (#41: no generic layer names one
    domain's models)."""
    made = _elot(tmp_path, "batch", "foodtrucks:12", "--data", str(baker2017), "-s",
                 "believes(student, formula(at(korean, spot2)))", "-o", "t.csv")
    assert made.returncode == 0, made.stderr
    _refused(_elot(tmp_path, "report", "t.csv", "--domain", "foodtrucks", "--data", str(baker2017),
                   "--model", "non-planning", "-o", "d"), "error: the foodtrucks domain has no model 'non-planning'")
    refused = _elot(tmp_path, "report", "t.csv", "--model", "no-cost", "-o", "d")
    _refused(refused, "error: the doors-keys-gems domain has no model 'no-cost'")
    assert "the table's models: btom" in refused.stderr and "--domain" in refused.stderr
    # a model the domain has but the table lacks gets past the check, to the table's refusal
    _refused(_elot(tmp_path, "report", "t.csv", "--domain", "foodtrucks", "--data", str(baker2017),
                   "--model", "no-cost", "-o", "d"), "error: the table has no scored rows of model no-cost")
    assert not (tmp_path / "d").exists()
