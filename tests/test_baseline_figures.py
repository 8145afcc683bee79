"""A language model's ratings (``elot baseline``) in the report and the storyboard beside
the model's L and people's: its own scatter panel, summary row and storyboard series; an
answer without a rating left out and counted, never drawn or averaged as 0. The baseline
table is made through the command line against the stub endpoint of test_baseline."""

from __future__ import annotations

import csv
import re

import numpy as np
import pytest
from helpers import run_elot
from test_baseline import Stub, completion, elot as baseline

#: Answers the stub gives in turn: three ratings and one that is ambiguous (no value).
PLAYS = ['{"rating": 6}', '{"rating": 2}', "5 or 6", '{"rating": 4}']


def _rows(path) -> list[dict]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """two-doors: a batch table of the full model, ratings simulated from it, and a stub
    language model's table of the same statements."""
    here = tmp_path_factory.mktemp("llm")
    table, ratings, llm = here / "table.csv", here / "ratings.csv", here / "llm.csv"
    assert run_elot("batch", "two-doors", "-o", str(table)).returncode == 0
    made = run_elot("simulate", str(table), "--noise", "0.05", "-o", str(ratings))
    assert made.returncode == 0, made.stderr
    with Stub(lambda body, n: completion(PLAYS[n % len(PLAYS)])) as stub:
        run = baseline("two-doors", "--llm", "stub", "--endpoint", stub.url, "-o", str(llm))
    assert run.returncode == 0, run.stderr
    return table, ratings, llm


def _means(ratings) -> dict:
    by_key: dict[tuple, list[float]] = {}
    for r in _rows(ratings):
        by_key.setdefault((r["scenario"], r["mode"], int(r["t"]), r["formula"]), []).append(float(r["rating"]))
    return {k: float(np.mean(v)) for k, v in by_key.items()}


@pytest.mark.slow
def test_report_on_a_batch_and_a_baseline_table(tmp_path, study):
    table, ratings, llm = study
    out = tmp_path / "report"
    result = run_elot("report", str(table), str(llm), "--ratings", str(ratings), "-o", str(out), "--format", "svg")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    rows = _rows(llm)
    unrated = [r for r in rows if not r["L"]]
    rated = [r for r in rows if r["L"]]
    assert unrated and rated and all(r["error"] for r in unrated)
    summary = {r["model"]: r for r in _rows(out / "summary.csv")}
    assert set(summary) == {"full", "stub/plan"}
    mine = summary["stub/plan"]
    assert mine["beta"] == mine["k"] == "" and mine["drawn"] == "yes"
    assert int(mine["rows"]) == len(rows) and int(mine["errors"]) == len(unrated)
    # the answers without a rating are left out of mean L and r, not taken as 0
    assert float(mine["mean_L"]) == pytest.approx(np.mean([float(r["L"]) for r in rated]))
    means = _means(ratings)
    pairs = [(float(r["L"]), means[(r["scenario"], r["mode"], int(r["t"]), r["formula"])]) for r in rated]
    assert int(mine["n"]) == len(pairs)
    assert float(mine["r"]) == pytest.approx(np.corrcoef(*zip(*pairs))[0, 1])
    text = (out / "summary.md").read_text()
    assert re.search(rf"\| stub/plan \|  \|  \|  \|  \| {len(rows)} \| {len(unrated)} \|", text)
    assert f"stub/plan: {len(unrated)} of {len(rows)} (" in text and "never taken as 0" in text
    assert "stub/plan (no β: its one setting)" in text
    # its own panel in the scatter, titled by the model; its own series in the storyboard
    scatter = (out / "scatter.svg").read_text()
    assert "<!-- stub/plan -->" in scatter and "<!-- full (β=2.83) -->" in scatter
    board = (out / "storyboard-two-doors.svg").read_text()
    assert "<!-- table: stub/plan -->" in board and 'id="table:stub/plan"' in board


@pytest.mark.slow
def test_the_drawn_setting_leaves_a_language_model_at_its_only_one(tmp_path, study):
    table, ratings, llm = study
    beta = _rows(table)[0]["beta"]
    for extra in (["--beta", beta], ["--model", "stub/plan"], ["--beta", beta, "--model", "stub/plan"]):
        out = tmp_path / "-".join(extra).replace("/", "_")
        result = run_elot("report", str(llm), str(table), "--ratings", str(ratings), "--no-storyboards",
                          "-o", str(out), "--format", "png", *extra)
        assert result.returncode == 0, result.stderr
        drawn = {r["model"]: r["beta"] for r in _rows(out / "summary.csv") if r["drawn"] == "yes"}
        assert drawn == {"full": beta, "stub/plan": ""}
        assert "stub/plan (no β: its one setting)" in result.stderr
    alone = run_elot("report", str(llm), "--ratings", str(ratings), "-o", str(tmp_path / "alone"), "--format", "png")
    assert alone.returncode == 0, alone.stderr
    assert (tmp_path / "alone" / "storyboard-two-doors.png").exists()
    simulated = run_elot("simulate", str(llm), "-o", str(tmp_path / "from-llm.csv"))
    assert simulated.returncode == 0 and "simulated from model stub/plan)" in simulated.stderr
    assert len(_rows(tmp_path / "from-llm.csv")) == sum(1 for r in _rows(llm) if r["L"])
    twice = run_elot("report", str(table), str(table), "-o", str(tmp_path / "twice"))
    assert twice.returncode == 2 and "given twice" in twice.stderr and not (tmp_path / "twice").exists()


@pytest.mark.slow
def test_storyboard_table_adds_a_series_of_its_own(tmp_path, study):
    table, ratings, llm = study
    out = tmp_path / "sb.svg"
    result = run_elot("storyboard", "two-doors", "--model", "full,non-planning", "--table", str(llm),
                      "--ratings", str(ratings), "-o", str(out))
    assert result.returncode == 0, result.stderr
    svg = out.read_text()
    legend = re.findall(r"<!-- ((?:humans|model L|table): [^>]*) -->", svg)
    assert legend == ["humans: mean ± s.e.", "model L: full", "model L: non-planning", "table: stub/plan"]
    rated = {(r["mode"], r["formula"]) for r in _rows(llm) if r["L"]}
    panels = {r["statement_id"] for r in _rows(table) if (r["mode"], r["formula"]) in rated}   # one line in each
    assert svg.count('id="table:stub/plan"') == len(panels)
    other = tmp_path / "other.csv"
    assert run_elot("batch", "default", "-o", str(other)).returncode == 0
    refused = run_elot("storyboard", "two-doors", "--table", str(other), "-o", str(tmp_path / "no.svg"))
    assert refused.returncode == 2 and "no value to draw for two-doors" in refused.stderr
    assert not (tmp_path / "no.svg").exists()


def test_a_missing_value_is_absent_and_models_keep_their_style(study):
    """Matched by scenario, mode, t and formula; a row without L gives no point (None)."""
    from elot.study.references import ScenarioRef
    from elot.study.storyboard import Candidate, attach_table, judgment_points, score_candidates, storyboard
    from elot.study.tables import read_table

    _, _, llm = study
    ref = ScenarioRef("two-doors")
    points = judgment_points(ref.load())
    statements = score_candidates(ref, [Candidate(s.text, s.mode) for s in ref.load().statements], ["full"],
                                  beta=2.0, points=points)
    rows = read_table(llm)
    added = attach_table(statements, rows, "two-doors", points, taken=["full"])
    assert added == {"stub/plan": sum(1 for r in rows if r["L"])}
    L = {(r["mode"], int(r["t"]), r["formula"]): r["L"] for r in rows}
    for st in statements:
        assert st.model["stub/plan"] == [float(L[(st.mode, t, st.formula)]) if L[(st.mode, t, st.formula)]
                                         else None for t in points]
    fig = storyboard(ref, statements, ["full"], points=points, tables=list(added))
    for ax in fig.axes:
        for line in ax.get_lines():
            if line.get_gid() == "table:stub/plan":
                assert line.get_linestyle() != "-" and line.get_marker() not in ("s", "^")
                assert 0 < len(line.get_xdata()) <= len(points)
    drawn = [line for ax in fig.axes for line in ax.get_lines() if line.get_gid() == "table:stub/plan"]
    assert sum(len(line.get_xdata()) for line in drawn) == sum(v is not None for st in statements
                                                               for v in st.model["stub/plan"])


def test_the_scatter_titles_stay_clear_of_the_figure_title(study):
    """Two square panels (the model's and the language model's) under a figure title:
    each panel's two-line title sits below the figure's, as saved."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from elot.study.fit import read_ratings
    from elot.study.report import choose_drawn, scatter_figure
    from elot.study.tables import read_tables

    table, ratings, llm = study
    rows, read = read_tables([table, llm]), read_ratings(ratings)
    fig = scatter_figure(rows, read, choose_drawn(rows, read))
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    top = fig._suptitle.get_window_extent(renderer).y0
    titles = [ax.title.get_window_extent(renderer) for ax in fig.axes if ax.get_visible()]
    assert [t.y1 <= top for t in titles] == [True, True]
