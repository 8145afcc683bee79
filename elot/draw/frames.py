"""What a domain draws its scenes with (the front's ``frames`` hook): one :class:`Frames`
per scenario, which every picture of it asks, so that stimuli, storyboards, the survey and
``elot map`` look alike.

* storyboards ask :meth:`Frames.draw` for the panel of a judgment point (into matplotlib
  axes) and :meth:`Frames.captions` for what is written under it;
* stimuli ask :meth:`Frames.renderer` for a :class:`Renderer`, whose ``frame(t)`` is the
  picture of step t as an RGB array (drawn fast: a domain may blit);
* ``elot map`` asks :meth:`Frames.figure` for one step's picture as a figure.

A domain from a Python file gets all of this from one function it writes
(``draw_frame(ax, layout, path, world, t)``: the scene at step t into matplotlib axes; see
:class:`PlotFrames` and docs/domains.md, 'Hooks').
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from elot.draw.palette import FRAME_SIZE


class Renderer:
    """Draws the frames of one scenario: ``frame(t)`` is an (height, width, 3) uint8 array;
    ``size`` its (width, height) in pixels."""

    size: tuple[int, int]

    def frame(self, t: int) -> np.ndarray:
        raise NotImplementedError

    def objects_key(self, t: int):
        """What changes of the scene's things at step t, besides the agent (steps with the
        same key look alike but for the agent): None when a domain does not say."""
        return None

    def close(self) -> None:
        """Free what drawing held (its figure)."""


class Frames:
    """The pictures of one scenario (see the module docstring): its map is ``width`` ×
    ``height`` cells (the frame's aspect) and its path runs from step 0 to ``steps``."""

    width: int
    height: int
    steps: int

    def captions(self, points: Sequence[int]) -> list[str]:
        """What is written under each judgment point's panel of a storyboard ('' for none)."""
        return [""] * len(points)

    def draw(self, ax, points: Sequence[int], j: int) -> None:
        """The panel of the ``j``-th judgment point (``points[j]``) into ``ax``."""
        raise NotImplementedError

    def cells(self) -> tuple[int, int]:
        """(columns, rows) of cells a frame takes, margins included."""
        return self.width + 1, self.height + 1

    def cell_for_size(self, size_px: int = FRAME_SIZE) -> int:
        """The whole number of pixels a cell gets so that a frame fits ``size_px`` pixels on
        its longer side (possibly under :data:`MIN_CELL`: the caller says so)."""
        return max(1, size_px // max(self.cells()))

    def frame_size(self, cell_px: int, size_px: int | None = None) -> tuple[int, int]:
        """(width, height) in pixels of a frame of ``cell_px`` pixels a cell (with
        ``size_px``: exactly that on the longer side)."""
        columns, rows = self.cells()
        width, height = columns * cell_px, rows * cell_px
        if size_px is not None:
            longer = max(columns, rows)
            width = max(size_px, width) if columns == longer else width
            height = max(size_px, height) if rows == longer else height
        return width, height

    def close(self) -> None:
        """Free what drawing held (nothing, unless a domain's frames keep a figure)."""

    def renderer(self, cell_px: int, size_px: int | None = None) -> Renderer:
        """What draws this scenario's frames, ``cell_px`` pixels a cell."""
        return FigureRenderer(self, cell_px, size_px)

    def figure(self, t: int, title: str | None = None):
        """Step t's picture as a figure (``elot map``)."""
        from matplotlib.figure import Figure

        fig = Figure(figsize=(max(3.0, 0.5 * self.width), max(2.0, 0.5 * self.height) + (0.4 if title else 0)))
        ax = fig.add_axes((0.02, 0.02, 0.96, 0.96 - (0.08 if title else 0)))
        self.draw(ax, [t], 0)
        if title:
            fig.suptitle(title, fontsize=10)
        return fig

    def describe_step(self, t: int) -> str:
        """What changed at step t, in words, or ''."""
        return ""


class FigureRenderer(Renderer):
    """A :class:`Renderer` that draws each frame whole (a panel of :meth:`Frames.draw` at one
    point) into a figure of the frame's size: what a domain without its own renderer gets."""

    def __init__(self, frames: Frames, cell_px: int, size_px: int | None = None):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.frames = frames
        width, height = frames.frame_size(cell_px, size_px)
        self.figure = Figure(figsize=((width + 1e-6) / 100, (height + 1e-6) / 100), dpi=100, facecolor="white")
        columns, rows = frames.cells()
        margin_x, margin_y = 0.5 / columns, 0.5 / rows
        self.ax = self.figure.add_axes((margin_x, margin_y, 1 - 2 * margin_x, 1 - 2 * margin_y))
        self.canvas = FigureCanvasAgg(self.figure)
        self.size = tuple(int(v) for v in self.canvas.get_width_height())

    def frame(self, t: int) -> np.ndarray:
        self.ax.clear()
        self.frames.draw(self.ax, [t], 0)
        self.canvas.draw()
        return np.asarray(self.canvas.buffer_rgba())[..., :3].copy()

    def close(self) -> None:
        self.figure.clear()


class PlotFrames(Frames):
    """The frames of a domain that draws a scene with one function,
    ``draw(ax, t)`` (the scene at step t into matplotlib axes), over a map of ``width`` ×
    ``height`` cells and ``steps`` steps; ``caption(t)`` (optional) is written under a
    storyboard's panel."""

    def __init__(self, draw: Callable, width: int, height: int, steps: int,
                 caption: Callable[[int], str] | None = None):
        self._draw, self.width, self.height, self.steps = draw, width, height, steps
        self._caption = caption

    def captions(self, points: Sequence[int]) -> list[str]:
        return [str(self._caption(t)) if self._caption else "" for t in points]

    def draw(self, ax, points: Sequence[int], j: int) -> None:
        self._draw(ax, points[j])
        ax.set_xticks([])
        ax.set_yticks([])


__all__ = ["FigureRenderer", "Frames", "PlotFrames", "Renderer"]
