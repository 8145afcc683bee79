"""The marks every picture shares, whatever its domain: the agent's figure, a goal's gem
(its own shape and colour, :mod:`elot.draw.palette`), and a gem as a small icon (the
survey's goal question shows them as the animations paint them)."""

from __future__ import annotations

import math

from matplotlib.figure import Figure
from matplotlib.patches import Circle, Polygon, RegularPolygon

from elot.draw import palette

#: The cell size (in points) the line widths were chosen at: lines scale by cell / this.
BASE_CELL_PT = 32.0


def agent_patches(x: float, y: float, s: float, linewidth: float) -> list:
    """The agent's figure (legs, body with arms, head) centred on (x, y) at scale ``s``,
    on axes whose y axis points down: the one agent every map and stimulus draws."""
    outline = dict(facecolor=palette.AGENT, edgecolor="white", linewidth=linewidth, zorder=6)
    return [Polygon([(x - 0.1 * s, y + 0.22 * s), (x - 0.08 * s, y + 0.4 * s),
                     (x - 0.01 * s, y + 0.4 * s), (x - 0.01 * s, y + 0.22 * s),
                     (x + 0.01 * s, y + 0.22 * s), (x + 0.01 * s, y + 0.4 * s),
                     (x + 0.08 * s, y + 0.4 * s), (x + 0.1 * s, y + 0.22 * s)], **outline),
            Polygon([(x - 0.13 * s, y - 0.08 * s), (x + 0.13 * s, y - 0.08 * s),
                     (x + 0.24 * s, y + 0.14 * s), (x + 0.17 * s, y + 0.2 * s),
                     (x + 0.14 * s, y + 0.1 * s), (x + 0.17 * s, y + 0.26 * s),
                     (x - 0.17 * s, y + 0.26 * s), (x - 0.14 * s, y + 0.1 * s),
                     (x - 0.17 * s, y + 0.2 * s), (x - 0.24 * s, y + 0.14 * s)], **outline),
            Circle((x, y - 0.22 * s), 0.15 * s, **outline)]


def gem_label(index: int) -> str:
    """The name participants read for the ``index``-th gem (0-based) of a map: over it in
    the animations, beside its icon in the survey (whose page writes ``"gem " + g``)."""
    return f"gem {index + 1}"


def gem_patches(centre, index: int, *, linewidth: float, collected: bool = False, scale: float = 1.0) -> list:
    """The ``index``-th gem (0-based) at ``centre``, one cell wide: its shape
    (:func:`gem_shape`) filled with its colour (:func:`~elot.draw.palette.gem_colours`) and
    a paler facet inside, or a dashed outline once collected. The one painter of a gem:
    maps, animations, the inventory and the survey's icons (:func:`write_gem_icon`)."""
    corners, rotation = gem_shape(index)
    fill, edge, facet = palette.gem_colours(index)
    style = (dict(facecolor="none", edgecolor=edge, linewidth=linewidth, linestyle=(0, (2, 2)))
             if collected else dict(facecolor=fill, edgecolor=edge, linewidth=linewidth))

    def shape(radius: float, **kw):
        radius *= scale
        if corners == 0:
            return Circle(centre, radius * 0.85, zorder=3, **kw)
        return RegularPolygon(centre, corners, radius=radius, orientation=math.radians(rotation), zorder=3, **kw)

    patches = [shape(0.32, **style)]
    if not collected:      # a paler facet inside, as a cut stone has
        patches.append(shape(0.16, facecolor=facet, edgecolor="none"))
    return patches


def write_gem_icon(index: int, path, size_px: int = 64) -> None:
    """A PNG of the ``index``-th gem (0-based), ``size_px`` pixels square on transparent,
    painted by :func:`gem_patches` as every map and animation paints it (one cell, the
    map's y axis pointing down, so a triangle points the same way), line widths scaled
    as a board scales them to its cells."""
    figure = Figure(figsize=(1, 1), dpi=size_px)
    ax = figure.add_axes((0, 0, 1, 1))
    # a little over one cell, so that the edge's line is not cut
    ax.set_xlim(-0.42, 0.42)
    ax.set_ylim(0.42, -0.42)
    ax.set_aspect("equal")
    ax.axis("off")
    cell_pt = 72 / 0.84
    for patch in gem_patches((0, 0), index, linewidth=1.2 * cell_pt / BASE_CELL_PT):
        ax.add_patch(patch)
    figure.savefig(path, transparent=True)


def gem_shape(index: int) -> tuple[int, float]:
    """(corners, rotation) of the ``index``-th gem's shape; 0 corners is a circle."""
    return palette.GEM_SHAPES[index % len(palette.GEM_SHAPES)]


