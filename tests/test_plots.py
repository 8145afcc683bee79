"""Figures: the right number of curves, valid PNGs of a sensible size, metadata read back."""

from __future__ import annotations

import matplotlib.image as mpimg
import pytest
from PIL import Image

from elot import plots
from elot.errors import ElotError
from elot.scenario import default_example


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
    fig = plots.map_figure(states, 6)
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
