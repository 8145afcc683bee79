"""Storyboards (the paper's Figure 4), statement design, and the report's figures: what is
drawn is checked on the figure objects (panels, curves, texts), files through the CLI."""

from __future__ import annotations

import copy
import csv
import io
import re
from pathlib import Path

import numpy as np
import pytest
from helpers import run_elot
from matplotlib.backends.backend_agg import FigureCanvasAgg

from elot.domains.doors_keys_gems.examples import load_example
from elot.draw import palette
from elot.study.design import design_csv, design_rows
from elot.study.references import ScenarioRef
from elot.study.storyboard import Candidate, score_candidates, storyboard

TWO_DOORS = str(Path(__file__).resolve().parent.parent / "elot" / "scenarios" / "two-doors.scn")
LONG = ("believes(player, formula(exists(and(key(K), iscolor(K, blue)), inside(K, box2)))) and this sentence "
        "goes on for a long while so that no legend or label could hold it on one line")


def _texts(fig) -> str:
    out = [t.get_text() for t in fig.texts]
    for ax in fig.axes:
        out += [t.get_text() for t in ax.texts] + [ax.get_title(loc=loc) for loc in ("left", "center")]
    return re.sub(r"\s+", " ", " ".join(out))


@pytest.fixture(scope="module")
def scored():
    ref = ScenarioRef("two-doors")
    candidates = [Candidate(s.text, s.mode) for s in ref.load().statements]
    return ref, score_candidates(ref, candidates, ["full", "non-planning"], beta=2 ** 1.5)


def _panels(fig):
    """The statement panels of a storyboard, in S-number order."""
    panels = [ax for ax in fig.axes if re.match(r"S\d+ \(", ax.get_title(loc="left"))]
    return sorted(panels, key=lambda ax: int(re.match(r"S(\d+)", ax.get_title(loc="left")).group(1)))


def test_storyboard_layout(scored):
    """The paper's Figure 4: maps at the judgment points, then one panel per statement
    with its text as the title and each model's L at the points."""
    ref, statements = scored
    scenario = ref.load().detail
    fig = storyboard(ref, statements, ["full", "non-planning"], beta=2 ** 1.5)
    maps = [ax for ax in fig.axes if ax.get_title().startswith("Judgment point")]
    assert len(maps) == len(scenario.judgments)
    panels = _panels(fig)
    assert len(panels) == len(statements)
    for n, (ax, st) in enumerate(zip(panels, statements), 1):
        assert re.sub(r"\s+", " ", ax.get_title(loc="left")) == f"S{n} ({st.mode}) {st.text}"   # whole, wrapped
        (full,) = [line for line in ax.get_lines() if line.get_gid() == "model:full"]
        (ablation,) = [line for line in ax.get_lines() if line.get_gid() == "model:non-planning"]
        assert full.get_linestyle() == "-" and ablation.get_linestyle() != "-"
        assert np.allclose(full.get_ydata(), st.model["full"])            # the statement's L at the points, in order
        assert np.allclose(np.round(full.get_xdata()), range(1, len(scenario.judgments) + 1))
        assert full.get_color() == palette.statement_colour(n - 1)        # the one palette
    # current statements first, the initial ones from a new row
    modes = [st.mode for st in statements]
    first_initial = panels[modes.index("initial")]
    assert all(first_initial.get_position().y1 < ax.get_position().y0 for ax, m in zip(panels, modes)
               if m == "current")
    assert "two-doors" in fig._suptitle.get_text()
    # no empty inventory strip, no "Inventory" over nothing
    assert "Inventory" not in _texts(fig) and not any(ax.get_title(loc="left") == "Inventory" for ax in fig.axes)


def _rated(statements, points):
    """Ratings known in advance: at the top and bottom of the scale with large errors."""
    for n, st in enumerate(statements):
        st.human = [(1.0, 0.12) if (n + j) % 3 == 0 else (0.0, 0.09) if (n + j) % 3 == 1 else (0.5, 0.2)
                    for j in range(len(points))]
    return statements


def test_human_and_model_side_by_side_never_clipped(scored):
    """Every series of a statement panel has its own x offset at each judgment point,
    and no human marker or error bar is cut off at the top or bottom of its panel."""
    ref, statements = scored
    scenario = ref.load().detail
    statements = _rated(copy.deepcopy(statements), scenario.judgments)
    fig = storyboard(ref, statements, ["full", "non-planning"])
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    for ax, st in zip(_panels(fig), statements):
        box = ax.get_window_extent(renderer)
        human = [a for a in ax.get_children() if a.get_gid() == "human"]
        assert human, "the human means are drawn"
        for artist in human:
            extent = artist.get_window_extent(renderer)
            if np.isfinite(extent.y0):      # (a LineCollection's extent is empty; its caps are checked)
                assert box.y0 - 0.5 <= extent.y0 and extent.y1 <= box.y1 + 0.5, st.text
        assert ax.get_ylim()[0] <= -0.09 - 0.0 and ax.get_ylim()[1] >= 1.12
        xs = {}
        for line in ax.get_lines():
            if line.get_gid() in ("human", "model:full", "model:non-planning"):
                for x in line.get_xdata():
                    xs.setdefault(round(x), []).append(x - round(x))
        for point, offsets in xs.items():
            assert len(offsets) == 3 and len({round(o, 6) for o in offsets}) == 3     # three series, three places
            assert max(offsets) - min(offsets) <= 0.6                                   # still at their point


def test_maps_number_the_judgment_points_and_pale_picked_keys(scored):
    ref, statements = scored
    scenario = ref.load().detail
    fig = storyboard(ref, statements, ["full"])
    maps = [ax for ax in fig.axes if ax.get_title().startswith("Judgment point")]
    states = scenario.states()
    for j, (ax, t) in enumerate(zip(maps, scenario.judgments)):
        badges = [p for p in ax.patches if p.get_gid() == "judgment-point"]
        assert len(badges) == j + 1                        # every point reached so far, numbered
        numbers = sorted(t.get_text() for t in ax.texts if t.get_text().isdigit() and t.get_zorder() == 8)
        assert numbers == [str(i) for i in range(1, j + 2)]
        picked = any(ks.where[0] in ("held", "used") for _, ks in states[t].keys)
        assert any(a.get_gid() == "picked-key" for a in ax.get_children()) == picked
    assert any(a.get_gid() == "picked-key" for a in maps[-1].get_children())     # two-doors picks up a key


def test_long_statements_are_wrapped_not_cut(scored):
    ref, statements = scored
    scenario = ref.load().detail
    statements = score_candidates(ref, [Candidate(LONG)], ["full"], beta=2.0)
    fig = storyboard(ref, statements, ["full"])
    assert LONG.split(" and this")[0] in _texts(fig) and "on one line" in _texts(fig)
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    width = fig.bbox.width
    for ax in fig.axes:
        for t in [*ax.texts, ax.title, ax._left_title]:
            box = t.get_window_extent(renderer)
            assert box.x1 <= width + 1                                  # nothing runs off the figure



@pytest.mark.slow
def test_many_judgment_points_wrap_into_rows_whose_titles_never_meet():
    """13 judgment points used to be 13 frames in one row: their titles ran into one
    another, the first and the last were cut at the figure's edges, and the frames were
    too small to read. Frames now wrap, at most five a row, each at least 1.8 inches wide;
    no two titles or "holds" labels overlap, and every text lies inside the figure (a long
    scenario name in the heading is wrapped)."""
    from matplotlib.text import Text

    from elot.draw.storyboard import MAP_COLUMNS, StoryStatement, storyboard_figure

    from elot.domains.doors_keys_gems.draw import GridFrames

    states = load_example("two-doors").states()
    points = list(range(1, 14))
    statements = [StoryStatement(f"statement {n}", mode, model={"full": [0.1 * (n % 9)] * 13})
                  for n, mode in enumerate(["current"] * 3 + ["initial"], 1)]
    name = "a-very-long-scenario-name-for-the-pilot-experiment-with-many-words-in-it-v2-final-final"
    fig = storyboard_figure(GridFrames(states), points, statements, ["full"],
                            title=f"{name}: L at the judgment points — full; β = 2.83")
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    maps = [ax for ax in fig.axes if ax.get_title().startswith("Judgment point")]
    assert [ax.get_title() for ax in maps] == [f"Judgment point {j} (t = {t})" for j, t in enumerate(points, 1)]
    rows: dict[int, list] = {}
    for ax in maps:
        box = ax.get_window_extent(renderer)
        assert box.width >= 1.8 * fig.dpi                                         # large enough to read
        rows.setdefault(round(box.y0), []).append(ax)
    assert len(rows) == 3 and max(len(r) for r in rows.values()) <= MAP_COLUMNS
    labels = [ax.title for ax in maps] + [ax.xaxis.label for ax in maps if ax.get_xlabel()]
    assert any(label.get_text().startswith("holds:") for label in labels)       # the key picked up at t = 5
    boxes = [(label.get_text(), label.get_window_extent(renderer)) for label in labels]
    for i, (a, first) in enumerate(boxes):
        for b, second in boxes[i + 1:]:
            assert not first.overlaps(second), (a, b)
    frame = fig.bbox
    for text in fig.findobj(Text):
        if text.get_visible() and text.get_text().strip():
            box = text.get_window_extent(renderer)
            assert frame.x0 - 1 <= box.x0 and box.x1 <= frame.x1 + 1 and frame.y0 - 1 <= box.y0 \
                and box.y1 <= frame.y1 + 1, text.get_text()
    assert name in fig._suptitle.get_text().replace("\n", "")

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

    ref = ScenarioRef(spec)
    statements = score_candidates(ref, [Candidate(s.text, s.mode) for s in scn.statements], ["full"], beta=2.0)
    points = judgment_points(ref.load())
    read = read_ratings(ratings)
    assert attach_ratings(statements, read, spec, points) == len(statements) * len(points)
    # n ratings alternating 0.4, 0.6: mean 0.5, s.e. = 0.1 / √(n − 1) (two statements share a formula: n = 4)
    counts = {(k.mode, k.t, k.formula): int(n) for k, n in zip(read.keys, read.count)}
    for st in statements:
        for t, h in zip(points, st.human):
            n = counts[(st.mode, t, st.formula)]
            assert h == pytest.approx((0.5, 0.1 / np.sqrt(n - 1)))


@pytest.mark.slow
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
    assert wrong.returncode == 2 and not (tmp_path / "x.png").exists()
    assert wrong.stderr.startswith("<statement 1>:1:32: type error: unknown object 'box9'")
    assert "the statement given cannot be drawn; no storyboard was written" in wrong.stderr


def test_design_ranks_and_flags():
    scenario = load_example("two-doors")
    candidates = [Candidate("believes(player, formula(exists(and(key(K), iscolor(K, blue)), inside(K, box2))))"),
                  Candidate("believes(player, formula(empty(box1)))"),
                  Candidate("knows_that(player, empty(box1))"),
                  Candidate("exists(key(K), iscolor(K, blue))")]       # a fact: the same at every point
    rows = design_rows([("two-doors", ScenarioRef("two-doors"))], candidates, beta=2 ** 1.5)
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


def test_design_and_storyboard_refusals_name_what_they_can_do(tmp_path):
    statements = tmp_path / "candidates.txt"
    statements.write_text("believes(player, formula(empty(box1)))\ninitial: believes(player, formula(empty(box1)))\n")
    same = tmp_path / "same.png"
    result = run_elot("design", "two-doors", "--statements", str(statements), "--csv", str(same), "--figure",
                      str(same))
    assert result.returncode == 2 and "--csv and --figure both name" in result.stderr and not same.exists()
    result = run_elot("design", "two-doors", "--statements", str(statements))
    assert result.returncode == 0 and "[cur] " in result.stdout and "[ini] " in result.stdout   # two modes: said
    result = run_elot("generate", "--boxes", "12", "--colours", "4", "--doors", "4", "--gems", "4", "--seed", "11",
                      "--steps", "0", "-o",
                      str(tmp_path / "big-plan.scn"))
    assert result.returncode == 0, result.stderr
    for command in (["design", str(tmp_path / "big-plan.scn"), "--statements", str(statements)],
                    ["storyboard", str(tmp_path / "big-plan.scn"), "--statements", str(statements), "-o",
                     str(tmp_path / "sb.png")]):
        result = run_elot(*command)
        assert result.returncode == 2 and "too large" in result.stderr, result.stderr
        assert "this command enumerates the hypotheses exactly" in result.stderr
        hint = result.stderr.split("hint:")[1]
        assert "--max-hypotheses" not in hint and "--inference auto" not in hint   # options they do not have
    result = run_elot("generate", "-o", str(tmp_path / "still.scn"))
    result = run_elot("storyboard", str(tmp_path / "still.scn"), "--statements", str(statements), "-o",
                      str(tmp_path / "still.png"))
    assert result.returncode == 2 and "has no actions" in result.stderr and not (tmp_path / "still.png").exists()


@pytest.mark.slow
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


# -- the report's setting, scatter grid and curves ------------------------------------------------


BETAS = "0.5:4:x1.2"          # twelve values: 0.5, 0.6, ..., 3.72


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """A 12-setting β sweep of two-doors and ratings simulated from its 7th β (1.49)."""
    here = tmp_path_factory.mktemp("sweep")
    table, ratings = here / "sweep.csv", here / "ratings.csv"
    assert run_elot("batch", TWO_DOORS, "--model", "full", "--beta", BETAS, "-o", str(table)).returncode == 0
    betas = sorted({float(r["beta"]) for r in csv.DictReader(table.open())})
    assert len(betas) == 12
    made = run_elot("simulate", str(table), "--beta", repr(betas[6]), "--noise", "0.03", "-o", str(ratings))
    assert made.returncode == 0, made.stderr
    return table, ratings, betas


def _drawn_beta(folder: Path) -> float:
    """The β the summary says the figures draw, and the one its PNG metadata names."""
    rows = [r for r in csv.DictReader((folder / "summary.csv").open()) if r["drawn"] == "yes"]
    assert len(rows) == 1
    beta = float(rows[0]["beta"])
    assert f"full at β {beta:.3g}" in (folder / "summary.md").read_text()
    from PIL import Image

    (curves,) = folder.glob("curves-*.png")
    with Image.open(curves) as image:
        assert image.text["Description"].startswith(f"full at β {beta:.3g} ")
    return beta


@pytest.mark.slow
def test_report_draws_the_setting_of_best_r_and_says_so(tmp_path, sweep):
    table, ratings, betas = sweep
    out = tmp_path / "rep"
    result = run_elot("report", str(table), "--ratings", str(ratings), "-o", str(out), "--format", "png")
    assert result.returncode == 0, result.stderr
    scored = {float(r["beta"]): float(r["r"]) for r in csv.DictReader((out / "summary.csv").open())}
    best = max(scored.values())
    assert _drawn_beta(out) == min(b for b, r in scored.items() if r == best)     # not the table's first (0.5)
    assert "drawn: full at β" in result.stderr and "best r" in result.stderr and "--fit or --beta" in result.stderr


@pytest.mark.slow
def test_report_draws_the_beta_or_fit_asked_for(tmp_path, sweep):
    table, ratings, betas = sweep
    asked = run_elot("report", str(table), "--ratings", str(ratings), "--beta", repr(betas[2]), "--no-storyboards",
                     "-o", str(tmp_path / "beta"), "--format", "png")
    assert asked.returncode == 0, asked.stderr
    assert _drawn_beta(tmp_path / "beta") == pytest.approx(betas[2])
    fit = tmp_path / "fit.json"
    fit.write_text('{"thresholds": {}, "beta": %r, "model": "full"}' % betas[9])
    fitted = run_elot("report", str(table), "--ratings", str(ratings), "--fit", str(fit), "--no-storyboards",
                      "-o", str(tmp_path / "fit"), "--format", "png")
    assert fitted.returncode == 0, fitted.stderr
    assert _drawn_beta(tmp_path / "fit") == pytest.approx(betas[9])
    assert "the fitted setting of fit.json" in (tmp_path / "fit" / "summary.md").read_text()
    fit.write_text('{"thresholds": {}, "beta": 7.5, "model": "full"}')
    missing = run_elot("report", str(table), "--fit", str(fit), "-o", str(tmp_path / "none"))
    assert missing.returncode == 2 and "no rows of model full at β 7.5" in missing.stderr
    assert "0.5, 0.6" in missing.stderr and not (tmp_path / "none").exists()
    both = run_elot("report", str(table), "--fit", str(fit), "--beta", "1", "-o", str(tmp_path / "none"))
    assert both.returncode == 2 and "not allowed with" in both.stderr


def test_report_without_ratings_names_the_setting_it_draws(tmp_path, sweep):
    table, _, _ = sweep
    result = run_elot("report", str(table), "-o", str(tmp_path / "rep"), "--format", "png")
    assert result.returncode == 0, result.stderr
    assert _drawn_beta(tmp_path / "rep") == pytest.approx(2 ** 1.5, rel=0.2) or "default β" in result.stderr
    assert "the table's own setting" in result.stderr


def test_report_scatter_is_a_grid_with_identity_and_modes(sweep):
    """Twelve settings: three rows of four panels (not one row of twelve), each with the
    identity line and current and initial statements drawn with their own markers."""
    from elot.study.fit import read_ratings
    from elot.study.report import choose_drawn, scatter_figure
    from elot.study.tables import read_table

    table, ratings, betas = sweep
    rows, read = read_table(table), read_ratings(ratings)
    fig = scatter_figure(rows, read, choose_drawn(rows, read))
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == 12
    assert len({round(ax.get_position().x0, 3) for ax in panels}) == 4           # four columns
    assert len({round(ax.get_position().y0, 3) for ax in panels}) == 3           # three rows
    width, height = fig.get_size_inches()
    assert width < 2 * height
    for ax in panels:
        (identity,) = [line for line in ax.get_lines() if line.get_gid() == "identity"]
        assert list(identity.get_xdata()) == [0, 1] == list(identity.get_ydata())
        current, initial = ([c for c in ax.collections if c.get_gid() == f"mode:{m}"] for m in ("current", "initial"))
        assert len(current) == len(initial) == 1
        assert current[0].get_paths()[0] != initial[0].get_paths()[0]           # circles and triangles
    assert sum("drawn" in ax.get_title() for ax in panels) == 1
    labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert labels == ["current belief", "initial belief", "identity (L = rating)"]


def test_curves_at_judgment_points_share_the_storyboards_colours(sweep):
    """The report's curves: markers at the judgment points on a categorical axis (not
    lines over a continuous t), statement n in the n-th statement colour."""
    from elot import plots

    fig = plots.judgment_curves_figure("t", [3, 4, 6, 11], [("a", "current", [0.1, 0.5, None, 0.9]),
                                                             ("b", "initial", [0.2, 0.2, 0.2, 0.2])])
    ax = fig.axes[0]
    lines = plots.curves(fig, "statement")
    assert [line.get_color() for line in lines] == palette.statement_colours(2)
    assert list(np.round(lines[0].get_xdata())) == [1, 2, 4]                     # the point not scored is left out
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1\n(t = 3)", "2\n(t = 4)", "3\n(t = 6)", "4\n(t = 11)"]
    assert all(line.get_marker() not in (None, "None", "") for line in lines)
    walk = plots.statements_figure("t", [("a", [0.1, 0.2]), ("b", [0.3, 0.4])], {"gem1": [1.0, 1.0]})
    assert [line.get_color() for line in plots.curves(walk, "statement")] == palette.statement_colours(2)


def test_design_chart_colours_candidates_as_given_and_shows_the_direction():
    from elot.draw.storyboard import design_figure

    rows = [{"rank": 1, "scenario": "s", "mode": "current", "statement": "b", "values": [0.9, 0.5, 0.1], "flag": ""},
            {"rank": 2, "scenario": "s", "mode": "current", "statement": "a", "values": [0.2, 0.6], "flag": ""}]
    fig = design_figure(rows, title="t", order=["a", "b"])
    ax = fig.axes[0]
    ranges = [line for line in ax.get_lines() if line.get_gid() == "range"]
    assert [line.get_color() for line in ranges] == [palette.statement_colour(1), palette.statement_colour(0)]
    arrows = [a for a in ax.texts if a.get_gid() == "direction"]
    assert [(a.xyann[0], a.xy[0]) for a in arrows] == [(0.9, 0.1), (0.2, 0.6)]    # first point → last point


def test_choose_drawn_follows_the_fit_and_says_what_it_could_not():
    from elot.study.params import StudyError
    from elot.study.report import choose_drawn

    def row(model, beta):
        return {"scenario": "s", "mode": "current", "t": "1", "formula": "f", "model": model, "beta": beta, "k": "3",
                "conventions": "elot", "thresholds": "default", "L": "0.5"}

    table = [row("full", "1"), row("full", "2"), row("non-planning", "1")]
    fit = {"model": "full", "beta": 2.0, "ablations": {"non-planning": {"beta": 0.5}}, "default_thresholds": False}
    drawn = choose_drawn(table, fit=fit, fit_name="fit.json")
    assert [s[:2] for s in drawn.settings.values()] == [("full", "2"), ("non-planning", "1")]
    assert drawn.describe().startswith("full at β 2 (k 3") and "non-planning at β 1" in drawn.describe()
    assert any("non-planning at the fit's β 0.5" in n for n in drawn.notes)
    assert any("thresholds 'default', not fit.json's" in n for n in drawn.notes)
    asked = choose_drawn(table, beta=2.0, model="full")
    assert list(asked.settings) == ["full"] and "non-planning is not drawn" in asked.notes[0]
    assert choose_drawn(table, model="non-planning").primary[:2] == ("non-planning", "1")
    plain = choose_drawn(table)          # no ratings: the default β where the table has several, else its first
    assert plain.primary[:2] == ("full", "1") and "choose with --fit or --beta" in plain.said()
    with pytest.raises(StudyError, match="no scored rows of model true-belief"):
        choose_drawn(table, model="true-belief")
