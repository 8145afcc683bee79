"""What `elot design` and `elot simulate` must never do: rank a scenario that has nothing
to judge, let two statements no rating can tell apart pass as two questions, or make
ratings off the rating scale (issue 26)."""

from __future__ import annotations

import csv
import io
import os

import pytest
from helpers import run_elot

from elot.study.design import design_rows
from elot.study.references import ScenarioRef
from elot.study.fit import synthetic_ratings
from elot.study.params import StudyError
from elot.study.storyboard import Candidate

#: Two doors' map without its actions.
NO_ACTIONS = """name: idle
goal: gem2
colours: red, blue

map:
  gWWWgWWWg
  RWWWBWWWR
  .........
  .WWW.WWW.
  C.rh...O.
"""


def test_statements_no_judgment_point_tells_apart_are_flagged():
    """With k = 3 a belief's probabilities are 0, 1/3, 2/3 and 1, so `believes` (0.75) and
    `likely` (0.7) coincide at every point; an English sentence that translates to the same
    formula does too. The most informative of such a group is kept, the others flagged."""
    candidates = [Candidate("believes(player, formula(empty(box1)))"),
                  Candidate("believes(player, likely(empty(box1)))"),
                  Candidate("The player believes box 1 is empty."),
                  Candidate("believes(player, might(empty(box1)))")]
    rows = design_rows([("two-doors", ScenarioRef("two-doors"))], candidates, beta=2 ** 1.5)
    by_text = {r["statement"]: r for r in rows}
    kept = by_text[candidates[0].text]
    assert not kept["flag"] and not by_text[candidates[3].text]["flag"]
    for twin in candidates[1:3]:
        row = by_text[twin.text]
        assert row["values"] == pytest.approx(kept["values"])
        assert row["flag"] == f"same L as #{kept['rank']}" and row["rank"] > 2      # after the useful ones
    assert [r["rank"] for r in rows] == [1, 2, 3, 4] and all("_scores" not in r for r in rows)


def test_design_refuses_a_scenario_without_actions(tmp_path):
    """It used to rank every statement "constant, L = 0.50", where `elot stimuli` refuses."""
    scn, statements, out = tmp_path / "idle.scn", tmp_path / "c.txt", tmp_path / "d.csv"
    scn.write_text(NO_ACTIONS)
    with pytest.raises(StudyError, match="idle has no actions"):
        design_rows([("two-doors", ScenarioRef("two-doors")), ("idle", ScenarioRef(str(scn)))],
                    [Candidate("believes(player, formula(empty(box1)))")], beta=2 ** 1.5)
    statements.write_text("believes(player, formula(empty(box1)))\n")
    result = run_elot("design", str(scn), "--statements", str(statements), "--csv", str(out))
    assert result.returncode == 2 and "has no actions" in result.stderr and "Traceback" not in result.stderr
    assert not out.exists()


def test_simulated_ratings_stay_on_the_scale():
    """L plus noise used to leave [0, 1] (−0.14 to 1.07 in the issue's walk-through)."""
    table = [{"L": repr(L), "error": ""} for L in (0.0, 0.02, 0.5, 0.98, 1.0)] * 40
    ratings = [float(r["rating"]) for r in synthetic_ratings(table, noise=0.2, seed=3)]
    assert min(ratings) == 0.0 and max(ratings) == 1.0
    assert all(0.0 <= r <= 1.0 for r in ratings)
    assert 0.2 < sum(r not in (0.0, 1.0) for r in ratings) / len(ratings) < 1    # noise is still noise


def test_simulate_cli_ratings_on_the_scale(tmp_path):
    table, ratings = tmp_path / "t.csv", tmp_path / "r.csv"
    done = run_elot("batch", "two-doors", "-o", str(table))
    assert done.returncode == 0, done.stderr
    done = run_elot("simulate", str(table), "--noise", "0.5", "-o", str(ratings))
    assert done.returncode == 0, done.stderr
    values = [float(row["rating"]) for row in csv.DictReader(ratings.open())]
    assert values and all(0.0 <= v <= 1.0 for v in values)


CANDIDATES = ("The player thinks the red key is in box 2.\n"
              "believes(player, might(empty(box1)))\n"
              "believes(player, formula(empty(box1)))\n"
              "believes(player, likely(empty(box1)))\n"
              "certain(player, formula(empty(box1)))\n"
              "knows_that(player, empty(box1))\n")


def test_design_fits_100_columns_says_what_it_wrote_and_lists_twins(tmp_path):
    """Through the entry point at COLUMNS=100: no line wider (the table was 131 columns),
    the CSV and PNG named, the statements no point tells apart listed as one group, and
    each statement's change from the first point to the last signed."""
    statements, table, figure = tmp_path / "c.txt", tmp_path / "d.csv", tmp_path / "d.png"
    statements.write_text(CANDIDATES)
    env = {**os.environ, "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"}
    result = run_elot("design", "two-doors", "--statements", "c.txt", "--csv", "d.csv", "--figure", "d.png",
                      env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = (result.stdout + result.stderr).splitlines()
    assert max(len(line) for line in lines) <= 100, max(lines, key=len)
    assert "wrote the table (6 rows) to d.csv and the chart to d.png" in result.stderr
    assert table.exists() and figure.read_bytes().startswith(b"\x89PNG")
    rows = {row["statement"]: row for row in csv.DictReader(table.open())}
    kept = rows["believes(player, formula(empty(box1)))"]["rank"]
    twins = sorted(int(rows[s]["rank"]) for s in ("believes(player, likely(empty(box1)))",
                                                    "certain(player, formula(empty(box1)))"))
    assert [rows[s]["same_as"] for s in ("believes(player, likely(empty(box1)))",
                                         "certain(player, formula(empty(box1)))")] == [kept, kept]
    said = " ".join(result.stdout.split())
    assert f"so ask one of each: #{kept} = #{twins[0]} = #{twins[1]}" in said
    red = rows["The player thinks the red key is in box 2."]
    values = [float(v) for v in red["L"].split(";")]
    assert float(red["change"]) == pytest.approx(values[-1] - values[0], abs=1e-4) and float(red["change"]) < 0
    assert f"−{abs(float(red['change'])):.2f}" in result.stdout     # the table keeps the sign


def test_figures_refuse_ratings_off_the_scale_where_fit_takes_any(tmp_path):
    """A rating of 1.07 (as simulate once wrote) drawn beside L on [0, 1] would be cut off
    or mislead: report and storyboard name its line; fit, whose r does not depend on
    the scale, reads it."""
    table, ratings = tmp_path / "t.csv", tmp_path / "r.csv"
    assert run_elot("batch", "two-doors", "-o", str(table)).returncode == 0
    assert run_elot("simulate", str(table), "-o", str(ratings)).returncode == 0
    lines = ratings.read_text().splitlines()
    header = lines[0].split(",")
    cells = next(csv.reader([lines[3]]))
    cells[header.index("rating")] = "1.07"
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow(cells)
    lines[3] = buffer.getvalue()
    ratings.write_text("\n".join(lines) + "\n")
    report = run_elot("report", str(table), "--ratings", str(ratings), "-o", str(tmp_path / "rep"))
    assert report.returncode == 2 and "Traceback" not in report.stderr
    assert f"{ratings}:4" in report.stderr and "outside the scale 0 to 1" in report.stderr
    assert not (tmp_path / "rep").exists()
    storyboard = run_elot("storyboard", "two-doors", "--ratings", str(ratings), "-o", str(tmp_path / "s.png"))
    assert storyboard.returncode == 2 and f"{ratings}:4" in storyboard.stderr
    fit = run_elot("fit", str(ratings), "--model", "full", "--samples", "20")
    assert fit.returncode == 0, fit.stderr
