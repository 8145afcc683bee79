"""The gems participants answer about look alike everywhere (issue #34 D1): the survey's
goal icons are painted by the animations' own painter, each gem in its own colour and
shape, and the animations write over each gem the name the survey's questions use."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.colors import to_rgb
from PIL import Image

from elot.domains.doors_keys_gems.examples import load_example
from elot.draw import palette
from elot.domains.doors_keys_gems.draw import Renderer
from elot.draw.marks import gem_label, gem_shape
from elot.survey.build import gem_icon

SIZE = 64


def _icon(tmp_path, index: int) -> np.ndarray:
    path = tmp_path / f"gem-{index + 1}.png"
    gem_icon(index, path, SIZE)          # what survey build writes into icons/
    with Image.open(path) as image:
        assert image.size == (SIZE, SIZE)
        return np.asarray(image.convert("RGBA"), dtype=int)


def _share(pixels: np.ndarray, colour: str) -> float:
    """The share of ``pixels`` (RGB) within 8 levels of ``colour``."""
    return float((np.abs(pixels[..., :3] - np.array(to_rgb(colour)) * 255).max(axis=-1) < 8).mean())


@pytest.mark.parametrize("index", range(len(palette.GEM_COLOURS)))
def test_each_icon_has_its_gems_fill_edge_and_facet_and_no_other_gems(tmp_path, index):
    """Every icon used to be one pink (GEM_FILL) whatever the gem."""
    icon = _icon(tmp_path, index)
    opaque = icon[..., 3] > 250
    assert 0.15 < opaque.mean() < 0.8                      # a gem, on transparent
    fill, edge, facet = palette.gem_colours(index)
    pixels = icon[opaque]
    assert _share(pixels, fill) > 0.25 and _share(pixels, facet) > 0.05 and _share(pixels, edge) > 0.05
    assert _share(pixels, palette.GEM_FILL) < 0.01
    for other, (other_fill, _, _) in enumerate(palette.GEM_COLOURS):
        if other_fill != fill:
            assert _share(pixels, other_fill) < 0.01, other


def test_the_first_gem_points_up_as_in_the_animation(tmp_path):
    """The triangle of gem 1 pointed down in the survey and up in the animations: in both,
    the opaque rows widen from the top down."""
    assert gem_shape(0) == (3, 180)
    icon = _icon(tmp_path, 0)
    rows = (icon[..., 3] > 250).sum(axis=1)
    drawn = np.flatnonzero(rows)
    top, bottom = drawn[: len(drawn) // 4], drawn[-len(drawn) // 4:]
    assert rows[top].mean() < 0.5 * rows[bottom].mean()
    # the same gem in a frame of two-doors: its fill pixels widen downwards too
    scenario = load_example("two-doors")
    cell = 64
    frame = Renderer(scenario.states(), cell_px=cell).frame(0).astype(int)
    (x, y) = scenario.layout.gems[0][1]
    patch = frame[int((y - 0.5) * cell): int((y + 0.5) * cell), int((x - 0.5) * cell): int((x + 0.5) * cell)]
    fill, edge, _ = palette.gem_colours(0)
    ink = ((np.abs(patch - np.array(to_rgb(fill)) * 255).max(axis=2) < 8)
           | (np.abs(patch - np.array(to_rgb(edge)) * 255).max(axis=2) < 8)).sum(axis=1)
    drawn = np.flatnonzero(ink)
    assert ink[drawn[: len(drawn) // 4]].mean() < 0.5 * ink[drawn[-len(drawn) // 4:]].mean()


def test_icon_and_animation_gem_have_the_same_shape(tmp_path):
    """The icon's gem and the animation's, cut from a frame and scaled alike, cover the
    same pixels (shape and orientation), for each gem of a three-gem map."""
    scenario = load_example("two-doors")
    cell = 64
    frame = Renderer(scenario.states(), cell_px=cell).frame(0).astype(int)
    for n, (gem, (x, y)) in enumerate(scenario.layout.gems):
        fill, edge, facet = palette.gem_colours(n)
        patch = frame[int((y - 0.5) * cell): int((y + 0.5) * cell), int((x - 0.5) * cell): int((x + 0.5) * cell)]
        in_frame = np.zeros(patch.shape[:2], bool)
        for colour, near in ((fill, 40), (edge, 40), (facet, 6)):    # the label's ground is near white
            in_frame |= np.abs(patch - np.array(to_rgb(colour)) * 255).max(axis=2) < near
        icon = _icon(tmp_path, n)
        in_icon = icon[..., 3] > 128
        # both to their bounding boxes, then to one size: the label moved the frame's gem
        def crop(mask):
            mask = mask.copy()
            mask[mask.sum(axis=1) < 3] = False      # a stray pixel of the label's antialiasing
            for row in mask:        # each row filled between its first and last pixel: every gem is convex
                on = np.flatnonzero(row)
                if len(on):
                    row[on[0]: on[-1] + 1] = True
            rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
            cut = mask[rows[0]: rows[-1] + 1, cols[0]: cols[-1] + 1]
            return np.asarray(Image.fromarray(cut.astype(np.uint8) * 255).resize((32, 32))) > 127
        a, b = crop(in_frame), crop(in_icon)
        assert (a & b).sum() / (a | b).sum() > 0.8, gem


def test_the_animation_writes_each_gems_survey_name_over_it():
    """The maze had no gem numbers: now each gem carries the name the goal question asks
    about (``gem 1``, ``gem 2``, ...), as ``TEXT.gem`` of the survey's page writes it."""
    scenario = load_example("two-doors")
    renderer = Renderer(scenario.states(), cell_px=44)
    renderer.frame(0)
    labels = [a.get_text() for a in renderer.board._objects if getattr(a, "get_gid", lambda: None)() == "gem-label"]
    assert labels == [gem_label(n) for n in range(len(scenario.layout.gems))] == ["gem 1", "gem 2", "gem 3"]
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "elot" / "survey" / "template" / "experiment.js").read_text()
    assert 'gem: (g) => "gem " + g' in page
