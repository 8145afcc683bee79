"""What `elot design` and `elot simulate` must never do: rank a scenario that has nothing
to judge, let two statements no rating can tell apart pass as two questions, or make
ratings off the rating scale (issue 26)."""

from __future__ import annotations

import csv

import pytest
from helpers import run_elot

from elot.btom.scn import load_example, parse_scn_text
from elot.study.design import design_rows
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
    scenario = load_example("two-doors")
    candidates = [Candidate("believes(player, formula(empty(box1)))"),
                  Candidate("believes(player, likely(empty(box1)))"),
                  Candidate("The player believes box 1 is empty."),
                  Candidate("believes(player, might(empty(box1)))")]
    rows = design_rows([("two-doors", scenario)], candidates, beta=2 ** 1.5)
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
    scenario = parse_scn_text(NO_ACTIONS)
    with pytest.raises(StudyError, match="idle has no actions"):
        design_rows([("two-doors", load_example("two-doors")), ("idle", scenario)],
                    [Candidate("believes(player, formula(empty(box1)))")], beta=2 ** 1.5)
    scn, statements, out = tmp_path / "idle.scn", tmp_path / "c.txt", tmp_path / "d.csv"
    scn.write_text(NO_ACTIONS)
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
