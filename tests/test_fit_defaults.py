"""One set of threshold defaults (issue 26): `fit` starts where `run`, `batch`, `design`
and the REPL score, leaves a threshold the ratings do not constrain where it started,
and says "undefined" for an r that is."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from elot.cli import main
from elot.lang.thresholds import Thresholds
from elot.session import Session
from elot.settings import DEFAULT_BETA
from elot.study.fit import SPAN, Problem, _Group, grid_values, precompute, read_ratings, unconstrained
from elot.study.params import FITTED, read_params
from elot.study.tables import read_table

#: ``likely`` is where the literature (0.60) and the paper's fitted value (0.70) part: with
#: k = 3 a belief of 2/3 is likely under one and not under the other.
LIKELY = "believes(player, likely(empty(box1)))"
STATEMENTS = (LIKELY, "believes(player, formula(empty(box1)))", "believes(player, might(empty(box1)))")


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """A batch table of STATEMENTS on two-doors at the defaults, and ratings simulated from it."""
    folder = tmp_path_factory.mktemp("defaults")
    table, ratings = folder / "table.csv", folder / "ratings.csv"
    args = ["batch", "two-doors", "--model", "full", "-o", str(table)]
    for text in STATEMENTS:
        args += ["-s", text]
    assert main(args) == 0
    assert main(["simulate", str(table), "--noise", "0.02", "--seed", "2", "-o", str(ratings)]) == 0
    return folder, table, ratings


def _table_L(table) -> dict[tuple[str, int], float]:
    return {(row["statement"], int(row["t"])): float(row["L"]) for row in read_table(str(table))}


def test_every_command_scores_with_the_same_thresholds(study, tmp_path, capsys):
    folder, table, ratings = study
    by_batch = _table_L(table)
    points = sorted({t for _, t in by_batch})
    # run
    assert main(["run", "two-doors", "-s", LIKELY, "--json", str(tmp_path / "run.json")]) == 0
    judged = json.loads((tmp_path / "run.json").read_text())["judgments"]
    by_run = {j["t"]: j["statements"][0]["normalized_likelihood"] for j in judged}
    # design
    statements = tmp_path / "candidates.txt"
    statements.write_text("\n".join(STATEMENTS) + "\n")
    assert main(["design", "two-doors", "--statements", str(statements), "--csv", str(tmp_path / "d.csv")]) == 0
    rows = {row["statement"]: row for row in csv.DictReader((tmp_path / "d.csv").open())}
    by_design = [float(v) for v in rows[LIKELY]["L"].split(";")]
    # the REPL
    session = Session.open("two-doors")
    by_repl = [session.score(LIKELY, t=t).L for t in points]
    # fit: L at the grid point it starts from
    problem = precompute(read_ratings(ratings), "full", betas=(DEFAULT_BETA,))
    start = {n: SPAN for g in problem.groups for n in g.names}
    by_fit = dict(zip(read_ratings(ratings).keys, problem.scores(start)[2][:, 0]))
    capsys.readouterr()

    assert problem.start == session.thresholds == Thresholds()
    want = [by_batch[(LIKELY, t)] for t in points]
    assert by_run == pytest.approx(dict(zip(points, want)), abs=1e-9)
    assert by_design == pytest.approx(want, abs=1e-4)       # the CSV holds four decimals
    assert by_repl == pytest.approx(want, abs=1e-9)
    for key, L in by_fit.items():
        assert L == pytest.approx(by_batch[(key.formula, key.t)], abs=1e-9), key
    # and the test can tell: the literature's likely (0.60) scores differently
    literature = Session.open("two-doors", thresholds=Thresholds().replace(likely=0.6))
    assert [literature.score(LIKELY, t=t).L for t in points] != pytest.approx(want, abs=1e-6)


def test_unconstrained_thresholds_stay_at_their_defaults(study, capsys):
    folder, _, ratings = study
    out = folder / "fit.json"
    assert main(["fit", str(ratings), "--model", "full", "--samples", "50", "-o", str(out)]) == 0
    shown = capsys.readouterr().out
    data = json.loads(out.read_text())
    free = data["unconstrained"]
    # the ratings rate statements with believes, likely and might only
    assert {"certain", "uncertain", "unlikely", "could", "may", "should", "must"} <= set(free)
    assert not {"believes", "might"} & set(free)
    defaults = Thresholds()
    read = read_params(out).thresholds
    for name in free:
        assert data["thresholds"][name] == getattr(defaults, name) == getattr(read, name), name
        assert name not in data["ties"]
    assert "unconstrained" in shown and "Unconstrained: " + ", ".join(free) in shown.replace("\n", " ")


def test_a_threshold_r_does_not_depend_on_is_unconstrained_and_put_back():
    """``likely`` is used by a statement, but no value of its grid changes any L (its P
    is the same along its axis); ``might`` moves r. After a search that left ``likely``
    two steps off its start, the fit reports it unconstrained and puts it back."""
    start = Thresholds()
    grids = {n: grid_values(n, start) for n in FITTED}
    rng = np.random.default_rng(1)
    flat_P = np.repeat(rng.random((4, 1, 1)), 9, axis=1)
    flat = _Group(("likely",), np.arange(4), flat_P, np.full((4, 9), 0.3))
    moving = _Group(("might",), np.arange(4, 8), rng.random((4, 9, 1)), rng.random((4, 9)) * 0.8 + 0.1)
    problem = Problem("full", (DEFAULT_BETA,), start, grids, [flat, moving], 8)
    y = rng.random(8)
    index = {"likely": SPAN - 2, "might": 1}
    free = unconstrained(problem, y, index, 0)
    assert "likely" in free and "might" not in free
    assert index == {"likely": SPAN, "might": 1}
    assert set(free) == set(FITTED) - {"might"}


def test_an_undefined_r_is_printed_as_undefined(tmp_path, capsys):
    """Non-planning's L of a statement about the initial belief is the same at every point
    (it does not plan, so nothing it does tells its first belief): r is undefined there."""
    table, ratings, out = tmp_path / "t.csv", tmp_path / "r.csv", tmp_path / "fit.json"
    assert main(["batch", "two-doors", "yellow-green", "--model", "full", "-o", str(table)]) == 0
    assert main(["simulate", str(table), "--seed", "1", "-o", str(ratings)]) == 0
    assert main(["fit", str(ratings), "--model", "non-planning,full", "--samples", "50", "-o", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "r is undefined (L or the ratings are the same for every statement) for non-planning, initial " \
           "(constant L)" in " ".join(shown.split())
    assert "0.00 [0.00, 0.00]" not in shown
    data = json.loads(out.read_text())
    assert data["conditions"]["initial"] == {"r": None, "ci": [None, None], "n": data["conditions"]["initial"]["n"]}
