"""Numbers out of range (issue #36): a study table read by ``report``, ``storyboard`` and
``simulate`` whose P, L or π is off [0, 1] (or not finite), or whose particle and baseline
columns are off theirs, is refused at its file:line with a hint, never drawn or fitted."""

from __future__ import annotations

import contextlib
import csv
import io
import re
import subprocess

import pytest

from elot.study.tables import read_table


def cli(*argv: str, cwd=None) -> subprocess.CompletedProcess:
    import os

    from elot.cli import main

    out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.StringIO()
    here = os.getcwd()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            if cwd:
                os.chdir(cwd)
            code = main(list(argv))
        except SystemExit as exit:
            code = exit.code if isinstance(exit.code, int) else 2
        finally:
            os.chdir(here)
    out.flush()
    return subprocess.CompletedProcess(argv, code, out.buffer.getvalue().decode("utf-8"), err.getvalue())


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    here = tmp_path_factory.mktemp("ranges")
    assert cli("batch", "two-doors", "-o", str(here / "t.csv")).returncode == 0
    return here / "t.csv"


def _rewritten(table, path, change):
    """The table written to ``path`` after ``change(header, rows)`` (rows as lists)."""
    rows = list(csv.reader(io.StringIO(table.read_text(encoding="utf-8"))))
    change(rows[0], rows[1:])
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return path


def _with(table, tmp_path, column: str, value: str):
    """The table with ``column`` of its second row (line 3) set to ``value``."""
    def change(header, rows):
        rows[1][header.index(column)] = value
    return _rewritten(table, tmp_path / "bad.csv", change)


@pytest.mark.parametrize("column, value, said", [
    ("L", "5", "L '5' is not a probability (a number from 0 to 1)"),
    ("L", "-0.5", "L '-0.5' is not a probability"),
    ("L", "nan", "L 'nan' is not a probability"),
    ("L", "inf", "L 'inf' is not a probability"),
    ("P", "1.5", "P '1.5' is not a probability"),
    ("pi", "-1", "pi '-1' is not a probability"),
    ("P", "1e999", "P '1e999' is not a probability"),
    ("L", "-1e-300", "L '-1e-300' is not a probability"),
    ("pi", "1.000001", "pi '1.000001' is not a probability"),
])
def test_a_value_off_its_range_is_refused_at_its_line_by_every_reader(tmp_path, table, column, value, said):
    bad = _with(table, tmp_path, column, value)
    for args in (("report", str(bad), "-o", "d"),
                 ("storyboard", "two-doors", "--table", str(bad), "-o", "s.png"),
                 ("simulate", str(bad), "-o", "r.csv")):
        run = cli(*args, cwd=tmp_path)
        assert run.returncode == 2, run.stderr
        assert run.stderr.startswith(f"{bad}:3:1: error: {said}"), run.stderr
        assert "hint: give the table elot batch or elot baseline wrote, unchanged" in run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


def test_the_ends_of_the_range_and_the_last_bits_of_a_sum_are_kept(tmp_path, table):
    for value in ("0", "1", "1.0000000000000002", "0.0"):
        assert read_table(_with(table, tmp_path, "L", value))[1]["L"] == value


@pytest.mark.parametrize("column, value, said", [
    ("llm_rating", "9", "llm_rating '9' is not a rating on the scale 1 to 7"),
    ("L_se", "-0.1", "L_se '-0.1' is not a standard error"),
    ("L_se", "nan", "L_se 'nan' is not a standard error"),
    ("ess", "inf", "ess 'inf' is not an effective sample size"),
    ("llm_rating", "abc", "llm_rating 'abc' is not a number"),
])
def test_the_columns_of_some_tables_are_checked_when_there(tmp_path, table, column, value, said):
    def change(header, rows):
        header.append(column)
        for row in rows:
            row.append("")
        rows[1][-1] = value
    bad = _rewritten(table, tmp_path / "extra.csv", change)
    run = cli("report", str(bad), "-o", "d", cwd=tmp_path)
    assert run.returncode == 2 and re.match(re.escape(f"{bad}:3:1: error: {said}"), run.stderr), run.stderr


@pytest.mark.parametrize("beta", ["", ",", " "])
def test_fit_refuses_an_empty_beta_list_rather_than_fitting_the_default_grid(tmp_path, table, beta):
    ratings = tmp_path / "ratings.csv"
    assert cli("simulate", str(table), "-o", str(ratings)).returncode == 0
    run = cli("fit", str(ratings), f"--beta={beta}", "-o", str(tmp_path / "p.json"))
    assert run.returncode == 2 and "--beta needs at least one value" in run.stderr
    assert not (tmp_path / "p.json").exists()
