"""Figures: the right number of curves, valid PNGs of a sensible size, metadata read back."""

from __future__ import annotations

import matplotlib.image as mpimg
import numpy as np
import pytest
from PIL import Image

from elot import plots
from elot.errors import ElotError
from elot.domains.doors_keys_gems.examples import default_example
from elot.domains.doors_keys_gems.draw import map_figure


def test_statements_figure_counts_curves(tmp_path):
    series = [("s1", [0.5, 0.6, 0.9]), ("s2", [0.5, 0.4, 0.1]), ("s3", [0.5, 0.5, 0.5])]
    goals = {"gem1": [0.5, 0.3, 0.1], "gem2": [0.5, 0.7, 0.9]}
    fig = plots.statements_figure("t", series, goals, judgments=[1], true_goal="gem2")
    assert len(fig.axes) == 2
    assert len(plots.curves(fig, "statement")) == 3
    assert len(plots.curves(fig, "goal")) == 2
    # judgment points: one dotted line per panel, not counted as curves
    assert sum(1 for ax in fig.axes for l in ax.get_lines() if l.get_linestyle() == ":") == 2
    out = plots.save(fig, tmp_path / "s.png", {"statements": 3, "goals": 2})
    image = mpimg.imread(out)
    assert image.ndim == 3 and image.shape[0] > 400 and image.shape[1] > 600
    assert Image.open(out).text["elot:statements"] == "3"


def test_map_figure_and_path(tmp_path):
    states = default_example().states()
    fig = map_figure(states, 6)
    (path,) = [l for l in fig.axes[0].get_lines() if l.get_gid() == "path"]
    assert len(path.get_xdata()) == 7
    out = plots.save(fig, tmp_path / "m.png", {"t": 6})
    with Image.open(out) as image:
        assert image.format == "PNG" and image.size[0] > 300 and image.size[1] > 150
        assert image.text["elot:t"] == "6"


def test_save_refuses_other_formats(tmp_path):
    fig = plots.statements_figure("t", [], {"g": [1.0]})
    with pytest.raises(ElotError, match="PNG"):
        plots.save(fig, tmp_path / "x.jpg")


def test_statement_legend_keeps_what_tells_statements_apart():
    """Labels used to be cut at 60 characters: two statements about different boxes got
    the same legend entry. Identical curves get different line styles and markers."""
    prefix = "[cur] believes(player, formula(exists(and(key(K), iscolor(K, red)), inside(K, "
    series = [(prefix + f"box{n}))))", [0.5] + [0.7] * 23) for n in (1, 2, 3)]
    fig = plots.statements_figure("t", series, {"gem1": [1.0, 1.0, 1.0]})
    labels = [text.get_text() for text in fig.axes[0].get_legend().get_texts()]
    assert len(set(labels)) == 3
    assert all(f"box{n}" in label.replace("\n", "") for n, label in zip((1, 2, 3), labels))
    lines = plots.curves(fig, "statement")
    assert len({(str(l.get_linestyle()), l.get_marker()) for l in lines}) == 3
    assert len({str(l.get_markevery()) for l in lines}) == 3      # markers at different steps


def test_map_has_a_legend_and_shows_what_is_held_and_collected():
    states = default_example().states()
    fig = map_figure(states)                      # the end: gem2 collected
    ax = fig.axes[0]
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    for entry in ("wall", "locked door (its colour)", "closed box", "opened box", "gem collected ✓",
                  "agent", "path walked", "red (R)"):
        assert entry in legend
    assert ax.get_xlabel() == "holds: gem2"
    assert any(text.get_text() == "gem2 ✓" for text in ax.texts)
    holding_key = next(t for t, s in enumerate(states) if any(k.where[0] == "held" for _, k in s.keys))
    assert map_figure(states, holding_key).axes[0].get_xlabel() == "holds: key1 (red key)"
    assert map_figure(states, 0).axes[0].get_xlabel() == "holds: nothing"


def test_map_shows_no_empty_inventory_row():
    """"holds: nothing" used to sit over an empty inventory row: the row now comes only
    with something in it."""
    states = default_example().states()
    assert len(map_figure(states, 0).axes) == 1
    holding_key = next(t for t, s in enumerate(states) if any(k.where[0] == "held" for _, k in s.keys))
    assert len(map_figure(states, holding_key).axes) == 2


def _drawn_texts(fig):
    """Every visible text of a drawn figure with its extent in pixels, and the legends."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    texts = [(t.get_text(), t.get_window_extent(renderer)) for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip()]
    legends = [ax.get_legend().get_window_extent(renderer) for ax in fig.axes if ax.get_legend()]
    return texts, legends


def _scenario(name: str, width: int, height: int, colours=()):
    """A ``width`` × ``height`` open map named ``name`` with a door and a key of each of
    ``colours`` along its top rows, a gem behind each door, and the agent in a corner."""
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    chars = "ABCDIJKLMNPST"
    legend = "".join(f"  {chars[n]} = door {c}\n  {chars[n].lower()} = key {c}\n" for n, c in enumerate(colours))
    rows = [["W"] * width, ["W"] * width] + [["."] * width for _ in range(height - 2)]
    for n, _ in enumerate(colours):
        rows[0][2 * n], rows[1][2 * n], rows[2][2 * n] = "g", chars[n], chars[n].lower()
    if not colours:
        rows[0][0] = "g"
        rows[1] = ["."] * width
    rows[-1][-1] = "h"
    return parse_scn_text(f"name: {name}\n" + (f"colours: {', '.join(colours)}\nlegend:\n{legend}" if colours else "")
                          + "map:\n" + "".join("  " + "".join(r) + "\n" for r in rows) + "actions:\n  up\n")


@pytest.mark.parametrize("name, width, height, colours", [
    ("big20", 20, 20, ("red", "blue")),
    ("a-very-long-scenario-name-for-the-pilot-experiment-with-many-words-in-it-v2-final-final", 7, 5, ("red",)),
    ("c13", 26, 6, ("red", "blue", "yellow", "green", "purple", "orange", "cyan", "pink", "brown", "grey",
                    "white", "black", "gold")),
    ("tiny", 3, 3, ()),
])
def test_map_texts_lie_within_the_figure(name, width, height, colours):
    """`elot map` cut its legend at the right edge on a 20 × 20 map ("gem (own shape,
    colour" lost its bracket) and a long scenario name in the title ("…-final-final: the
    ma"): every text and the legend now lie inside the figure, the title (wrapped) apart
    from the legend, the legend apart from the map."""
    scenario = _scenario(name, width, height, colours)
    states = scenario.states()
    fig = map_figure(states, title=f"{name}: the map after 1 of 1 actions")
    texts, (legend,) = _drawn_texts(fig)
    frame = fig.bbox
    for text, box in texts:
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1, text
    assert frame.x0 <= legend.x0 and legend.x1 <= frame.x1 and frame.y0 <= legend.y0 and legend.y1 <= frame.y1
    title = next(box for text, box in texts if text.startswith(name[:20]))
    assert not title.overlaps(legend)
    assert legend.x0 > fig.axes[0].get_window_extent().x1                      # right of the map
    shown = "".join(text for text, _ in texts).replace("\n", "")
    assert name in shown and "gem (own shape, colour)" in shown                 # whole
    for colour in colours:
        from elot.draw import palette
        assert f"{colour} ({palette.letter(colour)})" in shown


def test_a_gem_label_stays_readable_under_the_agent_and_the_path():
    """The agent standing on a collected gem covered its "gem2 ✓" label, and the path line
    ran through it: the label sits at the top of the cell, clear of the small agent in the
    lower left corner, on a white ground drawn over the path."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    states = default_example().states()
    assert states[-1].agent_pos == dict(states[-1].layout.gems)["gem2"]        # it ends on gem2
    fig = map_figure(states)
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    (label,) = [t for t in ax.texts if t.get_text() == "gem2 ✓"]
    box = label.get_window_extent(renderer)
    agent = [p for p in ax.patches if p.get_zorder() == 6]
    assert agent and not any(box.overlaps(p.get_window_extent(renderer)) for p in agent)
    (path,) = [line for line in ax.get_lines() if line.get_gid() == "path"]
    assert label.get_zorder() > max(path.get_zorder(), *(p.get_zorder() for p in agent))
    ground = label.get_bbox_patch()
    assert ground is not None and ground.get_facecolor()[:3] == (1.0, 1.0, 1.0) and ground.get_alpha() >= 0.8
    # in the pixels: a path that runs on up through the gem's cell is hidden under the
    # label's ground (its letters made white here, so only the ground is seen)
    from elot.domains.doors_keys_gems.scn_read import parse_scn_text

    states = parse_scn_text("name: through\nmap:\n  .\n  .\n  g\n  .\n  h\n"
                            "actions:\n  up, up, pickup gem1, up, up\n").states()
    fig = map_figure(states)
    ax = fig.axes[0]
    (label,) = [t for t in ax.texts if t.get_text() == "gem1 ✓"]
    (path,) = [line for line in ax.get_lines() if line.get_gid() == "path"]

    def column_under_label(shown: bool):
        label.set_color("white")
        label.set_visible(shown)
        FigureCanvasAgg(fig).draw()
        renderer = fig.canvas.get_renderer()
        ground = label.get_bbox_patch().get_window_extent(renderer) if shown else ground_box[0]
        ground_box[:] = [ground]
        x = int(round(ax.transData.transform((1, 3))[0]))
        rows = slice(int(fig.bbox.height - ground.y1) + 2, int(fig.bbox.height - ground.y0) - 2)
        assert rows.stop > rows.start
        return np.asarray(fig.canvas.buffer_rgba())[rows, x - 1: x + 2, :3].astype(int)

    ground_box: list = []
    assert column_under_label(True).min() > 235                                  # white: the line is hidden
    assert column_under_label(False).min() < 230                                 # (it runs there)
