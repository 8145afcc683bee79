"""Storyboards (the paper's Figure 4), statement design, and the report's figures: what is
drawn is checked on the figure objects (panels, curves, texts), files through the CLI."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
import pytest
from helpers import run_elot
from matplotlib.backends.backend_agg import FigureCanvasAgg

from elot.btom.scn import load_example
from elot.study.design import design_csv, design_rows
from elot.study.storyboard import Candidate, score_candidates, storyboard

TWO_DOORS = str(Path(__file__).resolve().parent.parent / "elot" / "scenarios" / "two-doors.scn")
LONG = ("believes(player, formula(exists(and(key(K), iscolor(K, blue)), inside(K, box2)))) and this sentence "
        "goes on for a long while so that no legend or label could hold it on one line")


def _texts(fig) -> str:
    out = [t.get_text() for t in fig.texts]
    for ax in fig.axes:
        out += [t.get_text() for t in ax.texts]
    return re.sub(r"\s+", " ", " ".join(out))


@pytest.fixture(scope="module")
def scored():
    scenario = load_example("two-doors")
    candidates = [Candidate(s.text, s.mode) for s in scenario.statements]
    return scenario, score_candidates(scenario, candidates, ["full", "non-planning"], beta=2 ** 1.5)


def test_storyboard_layout(scored):
    scenario, statements = scored
    fig = storyboard(scenario, statements, ["full", "non-planning"], beta=2 ** 1.5)
    maps = [ax for ax in fig.axes if ax.get_title().startswith("Judgment point")]
    assert len(maps) == len(scenario.judgments)
    (curves,) = [ax for ax in fig.axes if ax.get_ylabel().startswith("normalized likelihood")]
    full = [line for line in curves.get_lines() if line.get_gid() == "model:full"]
    ablation = [line for line in curves.get_lines() if line.get_gid() == "model:non-planning"]
    assert len(full) == len(ablation) == len(statements)
    assert {line.get_linestyle() for line in full} == {"-"} and "-" not in {l.get_linestyle() for l in ablation}
    # each curve is the statement's L at the points, in order
    for line, st in zip(full, statements):
        assert np.allclose(line.get_ydata(), st.model["full"])
    text = _texts(fig)
    for n, st in enumerate(statements, 1):
        assert f"S{n} [{st.mode}] {st.text}" in text                   # the whole text, never cut
    assert "two-doors" in fig._suptitle.get_text()


def test_long_statements_are_wrapped_not_cut(scored):
    scenario, statements = scored
    statements = score_candidates(scenario, [Candidate(LONG)], ["full"], beta=2.0)
    fig = storyboard(scenario, statements, ["full"])
    assert LONG.split(" and this")[0] in _texts(fig) and "on one line" in _texts(fig)
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    width = fig.bbox.width
    for ax in fig.axes:
        for t in ax.texts:
            box = t.get_window_extent(renderer)
            assert box.x1 <= width + 1                                  # nothing runs off the figure


def test_storyboard_with_ratings(tmp_path):
    scn = load_example("two-doors")
    table = tmp_path / "t.csv"
    ratings = tmp_path / "r.csv"
    spec = TWO_DOORS
    assert run_elot("batch", spec, "-o", str(table)).returncode == 0
    rows = list(csv.DictReader(io.StringIO(table.read_text())))
    # two raters per key: means and standard errors known in advance
    with ratings.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["scenario", "mode", "t", "statement", "formula", "rating"])
        writer.writeheader()
        for r in rows:
            for delta in (-0.1, 0.1):
                writer.writerow({"scenario": r["scenario"], "mode": r["mode"], "t": r["t"], "statement": r["statement"],
                                 "formula": r["formula"], "rating": 0.5 + delta})
    out = tmp_path / "sb.svg"
    result = run_elot("storyboard", spec, "--ratings", str(ratings), "--model", "full,true-belief", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert out.read_text().lstrip().startswith(("<?xml", "<svg"))
    from elot.study.fit import read_ratings
    from elot.study.storyboard import attach_ratings, judgment_points

    statements = score_candidates(scn, [Candidate(s.text, s.mode) for s in scn.statements], ["full"], beta=2.0)
    points = judgment_points(scn)
    read = read_ratings(ratings)
    assert attach_ratings(statements, read, spec, points) == len(statements) * len(points)
    # n ratings alternating 0.4, 0.6: mean 0.5, s.e. = 0.1 / √(n − 1) (two statements share a formula: n = 4)
    counts = {(k.mode, k.t, k.formula): int(n) for k, n in zip(read.keys, read.count)}
    for st in statements:
        for t, h in zip(points, st.human):
            n = counts[(st.mode, t, st.formula)]
            assert h == pytest.approx((0.5, 0.1 / np.sqrt(n - 1)))


def test_storyboard_formats_and_refusals(tmp_path):
    for suffix in ("png", "pdf"):
        out = tmp_path / f"sb.{suffix}"
        result = run_elot("storyboard", "default", "-o", str(out))
        assert result.returncode == 0, result.stderr
        assert out.read_bytes()[:4] in (b"\x89PNG", b"%PDF")
    for suffix in ("png", "pdf", "svg"):
        run_elot("storyboard", "default", "-o", str(tmp_path / f"sb.{suffix}"))
        again = run_elot("storyboard", "default", "-o", str(tmp_path / f"sb.{suffix}"))
        assert again.returncode == 0, again.stderr          # its own figure is replaced
    (tmp_path / "other.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"><!-- elot --></svg>')
    assert run_elot("storyboard", "default", "-o", str(tmp_path / "other.svg")).returncode == 2
    bad = run_elot("storyboard", "default", "-o", str(tmp_path / "sb.jpg"))
    assert bad.returncode == 2 and "png, *.svg or *.pdf" in bad.stderr
    notes = tmp_path / "notes.png"
    notes.write_text("mine")
    refused = run_elot("storyboard", "default", "-o", str(notes))
    assert refused.returncode == 2 and notes.read_text() == "mine"
    wrong = run_elot("storyboard", "default", "-s", "believes(player, formula(empty(box9)))", "-o",
                     str(tmp_path / "x.png"))
    assert wrong.returncode == 2 and "could not be scored" in wrong.stderr and not (tmp_path / "x.png").exists()


def test_design_ranks_and_flags():
    scenario = load_example("two-doors")
    candidates = [Candidate("believes(player, formula(exists(and(key(K), iscolor(K, blue)), inside(K, box2))))"),
                  Candidate("believes(player, formula(empty(box1)))"),
                  Candidate("knows_that(player, empty(box1))"),
                  Candidate("exists(key(K), iscolor(K, blue))")]       # a fact: the same at every point
    rows = design_rows([("two-doors", scenario)], candidates, beta=2 ** 1.5)
    by_text = {r["statement"]: r for r in rows}
    assert by_text[candidates[2].text]["flag"] == "ill-typed"
    assert by_text[candidates[3].text]["flag"].startswith("constant")
    useful = [r for r in rows if not r["flag"]]
    assert [r["informativeness"] for r in useful] == sorted((r["informativeness"] for r in useful), reverse=True)
    assert rows[-1]["flag"] and [r["rank"] for r in rows] == [1, 2, 3, 4]
    top = rows[0]
    assert top["range"] == pytest.approx(max(top["values"]) - min(top["values"]))
    table = list(csv.DictReader(io.StringIO(design_csv(rows))))
    assert [r["rank"] for r in table] == ["1", "2", "3", "4"]
    assert len(table[0]["L"].split(";")) == len(scenario.judgments)


def test_design_cli(tmp_path):
    statements = tmp_path / "candidates.txt"
    statements.write_text("The player believes box 1 is empty.\nknows_that(player, empty(box1))\n")
    out, figure = tmp_path / "d.csv", tmp_path / "d.png"
    result = run_elot("design", "two-doors", "--statements", str(statements), "--ablations", "non-planning",
                      "--csv", str(out), "--figure", str(figure))
    assert result.returncode == 0, result.stderr
    assert "ill-typed" in result.stdout and "Δ non-" in result.stdout and "planning" in result.stdout
    rows = list(csv.DictReader(out.open()))
    assert rows[0]["statement"] == "The player believes box 1 is empty." and rows[1]["flag"] == "ill-typed"
    assert figure.read_bytes()[:4] == b"\x89PNG"


def test_report_figures(tmp_path):
    spec = TWO_DOORS
    table, ratings, report = tmp_path / "t.csv", tmp_path / "r.csv", tmp_path / "report"
    report.mkdir()
    assert run_elot("batch", spec, "default", "--model", "full,non-planning", "-o", str(table)).returncode == 0
    assert run_elot("simulate", str(table), "--model", "full", "-o", str(ratings)).returncode == 0
    result = run_elot("report", str(table), "--ratings", str(ratings), "-o", str(report), "--format", "png")
    assert result.returncode == 0, result.stderr
    names = sorted(p.name for p in report.iterdir())
    assert sum(n.startswith("storyboard-") for n in names) == 2
    assert sum(n.startswith("curves-") for n in names) == 2


def test_report_scatter_labels_do_not_overlap(tmp_path):
    """The scatter's panels used to overlap their neighbours' axis labels."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    from elot.study import report as report_module

    captured = []
    real = report_module._save_keep

    def keep(fig, path, written, *args):
        captured.append(fig)
        real(fig, path, written, *args)

    spec = TWO_DOORS
    table, ratings = tmp_path / "t.csv", tmp_path / "r.csv"
    assert run_elot("batch", spec, "--model", "full,true-belief,non-planning", "-o", str(table)).returncode == 0
    assert run_elot("simulate", str(table), "--model", "full", "-o", str(ratings)).returncode == 0
    import unittest.mock as mock

    from elot.study.tables import read_table
    from elot.study.fit import read_ratings

    with mock.patch.object(report_module, "_save_keep", keep):
        report_module.report(read_table(table), tmp_path, read_ratings(ratings), formats=("png",), curves=True,
                             storyboards=False)
    scatter = captured[0]
    assert scatter._suptitle is not None
    canvas = FigureCanvasAgg(scatter)       # the report closed its pyplot canvas
    canvas.draw()
    renderer = canvas.get_renderer()
    axes = scatter.axes
    for left, right in zip(axes, axes[1:]):
        label = right.yaxis.label.get_window_extent(renderer)
        assert label.x0 >= left.get_window_extent(renderer).x1          # the label is right of the panel before
    curves = captured[1]
    legend = [t.get_text().replace("\n", " ") for t in curves.axes[0].get_legend().get_texts()]
    assert any("inside(K, box2))))" in re.sub(r"\s+", " ", t) for t in legend)        # not cut at 40 characters
    assert "each statement's L" in curves.axes[0].get_title(loc="left")
    plt.close("all")
