"""Food-truck frames (Baker et al. 2017): what participants of a food-truck study watch.

The painter's conventions (:mod:`elot.draw.board`): white floor with a grey grid, black
wall, the one agent figure, the trail as arrows (the latest way the student left each
cell), colours with letters so that colour is never alone. On top:

* spot 1 (0, 0) with the Korean truck (K), spot 2 (14, 4) behind the wall: a "?" until
  the student has seen it, then its truck (L or M) or "empty";
* the part of the map the student cannot see from where it stands shaded: each cell as
  dark as the fraction of its square hidden by the wall from the student's cell centre
  (the domain's line of sight, :func:`~elot.domains.foodtrucks.geometry.visible_fraction`),
  as the experiment's display did;
* a legend row naming the three trucks.

The map is drawn as the description draws it: x to the right, y up, spot 1 bottom left.
The student has seen spot 2 once it has stood where spot 2 is at least half visible
(:data:`SEEN_FROM`); its view from the corner cell where a sixth of spot 2 shows is left
uncertain, as the model leaves it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from elot.domains.foodtrucks.geometry import rectangle, visible_fraction
from elot.domains.foodtrucks.scenarios import FoodTruckScenario
from elot.domains.foodtrucks.world import (HEIGHT, SPOT1, SPOT2, SPOT2_CONTENT, TRUCKS, WIDTH, FoodTruckMap,
                                           visibility)
from elot.draw import palette
from elot.draw.frames import Frames, Renderer

#: The drawing colour and letter of each truck (K, L, M), Okabe–Ito hues.
TRUCK_COLOURS = {"korean": "#0072B2", "lebanese": "#009E73", "mexican": "#E69F00"}
TRUCK_LETTERS = {"korean": "K", "lebanese": "L", "mexican": "M"}
#: The student has seen spot 2 from a cell where at least this fraction of it is visible.
SEEN_FROM = 0.5
#: How dark a fully hidden cell is shaded (the alpha of the shade).
SHADE = 0.42
SHADE_COLOUR = "#3b3b4f"
SPOT_EDGE = "#7a7a7a"
#: Rows a frame adds: half a cell of margin above and below, and the legend row.
LEGEND_ROWS = 1
_ARROW = {(0, 1): "^", (0, -1): "v", (-1, 0): "<", (1, 0): ">"}


def frame_cells() -> tuple[int, int]:
    """(columns, rows) of cells a frame takes: the map, the legend row and half a cell of
    margin all round."""
    return WIDTH + 1, HEIGHT + LEGEND_ROWS + 1


def cell_for_size(size_px: int) -> int:
    return max(1, size_px // max(frame_cells()))


def frame_size(cell_px: int) -> tuple[int, int]:
    columns, rows = frame_cells()
    return columns * cell_px, rows * cell_px


@lru_cache(maxsize=None)
def view_from(map_number: int, cell: tuple[int, int]) -> np.ndarray:
    """``float64[HEIGHT, WIDTH]``: the visible fraction of every cell's square from the
    centre of ``cell`` (wall cells 1: they are drawn as wall, not shaded)."""
    world = FoodTruckMap(map_number)
    eye = (cell[0] + 0.5, cell[1] + 0.5)
    out = np.ones((HEIGHT, WIDTH))
    for y in range(HEIGHT):
        for x in range(WIDTH):
            if world.is_open(x, y):
                out[y, x] = visible_fraction(eye, world.wall_rectangle, rectangle(x, y, x + 1, y + 1))
    out.setflags(write=False)
    return out


def seen_spot2(scenario: FoodTruckScenario, t: int) -> bool:
    """Whether the student has seen spot 2 by step ``t``."""
    table = visibility(scenario.map)
    return any(table[y, x] >= SEEN_FROM for x, y in scenario.cells[:t + 1])


def steps(scenario: FoodTruckScenario) -> int:
    """The number of the last step: one per move, and one more for eating."""
    return len(scenario.cells) - 1 + int(scenario.finished)


class TruckRenderer(Renderer):
    """Frames of one food-truck scenario: ``frame(t)`` for t = 0..:func:`steps` (the last
    step of a finished scenario shows the student eating), an RGB array of ``cell_px``
    pixels a cell."""

    def __init__(self, scenario: FoodTruckScenario, *, cell_px: int = 50) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.scenario = scenario
        self.cell_px = cell_px
        width, height = frame_size(cell_px)
        dpi = 100
        self.figure = Figure(figsize=((width + 1e-6) / dpi, (height + 1e-6) / dpi), dpi=dpi, facecolor="white")
        half = cell_px / 2
        self.ax = self.figure.add_axes((half / width, (half + LEGEND_ROWS * cell_px) / height,
                                        WIDTH * cell_px / width, HEIGHT * cell_px / height))
        self.legend = self.figure.add_axes((half / width, half / height, WIDTH * cell_px / width,
                                            LEGEND_ROWS * cell_px / height))
        for ax, rows in ((self.ax, HEIGHT), (self.legend, LEGEND_ROWS)):
            ax.set_xlim(-0.5, WIDTH - 0.5)
            ax.set_ylim(rows - 0.5, -0.5)       # rows down the screen, as every map elot draws
            ax.set_aspect("equal")
            ax.axis("off")
        self.canvas = FigureCanvasAgg(self.figure)
        self._moving: list = []
        self._static()

    # the board's y axis points down: map row y is drawn at screen row HEIGHT - 1 - y
    @staticmethod
    def _at(cell: tuple[int, int]) -> tuple[float, float]:
        return float(cell[0]), float(HEIGHT - 1 - cell[1])

    @property
    def size(self) -> tuple[int, int]:
        width, height = self.canvas.get_width_height()
        return int(width), int(height)

    def pt(self, cells: float) -> float:
        """``cells`` of the map in points (for fonts and line widths)."""
        return cells * self.cell_px * 72.0 / 100.0

    def _static(self) -> None:
        from matplotlib.patches import Rectangle

        ax = self.ax
        world = FoodTruckMap(self.scenario.map)
        ax.add_patch(Rectangle((-0.5, -0.5), WIDTH, HEIGHT, facecolor=palette.FLOOR, edgecolor="none", zorder=0))
        for x in range(WIDTH + 1):
            ax.plot([x - 0.5, x - 0.5], [-0.5, HEIGHT - 0.5], color=palette.GRID, linewidth=self.pt(0.02), zorder=1)
        for y in range(HEIGHT + 1):
            ax.plot([-0.5, WIDTH - 0.5], [y - 0.5, y - 0.5], color=palette.GRID, linewidth=self.pt(0.02), zorder=1)
        for cell in world.wall_cells:
            x, y = self._at(cell)
            ax.add_patch(Rectangle((x - 0.5, y - 0.5), 1, 1, facecolor=palette.WALL, edgecolor=palette.WALL, zorder=3))
        ax.add_patch(Rectangle((-0.5, -0.5), WIDTH, HEIGHT, facecolor="none", edgecolor=palette.WALL,
                               linewidth=self.pt(0.06), zorder=5))
        for n, spot in enumerate((SPOT1, SPOT2), start=1):
            x, y = self._at(spot)
            ax.add_patch(Rectangle((x - 0.44, y - 0.44), 0.88, 0.88, facecolor="none", edgecolor=SPOT_EDGE,
                                   linestyle=(0, (3, 2)), linewidth=self.pt(0.025), zorder=1.5))
        self._truck(ax, self._at(SPOT1), "korean")
        for n, truck in enumerate(TRUCKS):
            x = 1.0 + n * 4.6
            self._truck(self.legend, (x, 0.0), truck, scale=0.8)
            self.legend.text(x + 0.65, 0.0, f"{truck.title()} ({TRUCK_LETTERS[truck]})", ha="left", va="center",
                             fontsize=self.pt(0.36), color="black")

    def _truck(self, ax, centre: tuple[float, float], truck: str, *, scale: float = 1.0, moving: bool = False) -> None:
        """A truck: a box body, a cab with its window, two wheels, the truck's letter."""
        from matplotlib.patches import Circle, FancyBboxPatch, Rectangle

        x, y = centre
        s = scale
        fill = TRUCK_COLOURS[truck]
        edge = palette.darker(fill, 0.45)
        lw = self.pt(0.025)
        parts = [FancyBboxPatch((x - 0.42 * s, y - 0.28 * s), 0.56 * s, 0.44 * s, boxstyle="round,pad=0,rounding_size=0.05",
                                facecolor=fill, edgecolor=edge, linewidth=lw, zorder=4),
                 Rectangle((x + 0.14 * s, y - 0.12 * s), 0.26 * s, 0.28 * s, facecolor=fill, edgecolor=edge,
                           linewidth=lw, zorder=4),
                 Rectangle((x + 0.22 * s, y - 0.08 * s), 0.13 * s, 0.1 * s, facecolor="white", edgecolor=edge,
                           linewidth=lw * 0.6, zorder=4.1),
                 Circle((x - 0.24 * s, y + 0.19 * s), 0.08 * s, facecolor="#222222", edgecolor="white",
                        linewidth=lw * 0.6, zorder=4.2),
                 Circle((x + 0.26 * s, y + 0.19 * s), 0.08 * s, facecolor="#222222", edgecolor="white",
                        linewidth=lw * 0.6, zorder=4.2)]
        for part in parts:
            ax.add_patch(part)
            if moving:
                self._moving.append(part)
        label = ax.text(x - 0.14 * s, y - 0.05 * s, TRUCK_LETTERS[truck], ha="center", va="center",
                        fontsize=self.pt(0.3 * s), fontweight="bold", color=palette.ink(fill), zorder=4.3)
        if moving:
            self._moving.append(label)

    def _clear(self) -> None:
        for artist in self._moving:
            artist.remove()
        self._moving = []

    def frame(self, t: int) -> np.ndarray:
        """The picture of step ``t``: an (height, width, 3) uint8 array."""
        from matplotlib.lines import Line2D
        from matplotlib.patches import Rectangle

        from elot.draw.marks import agent_patches

        self._clear()
        scenario = self.scenario
        cells = scenario.cells
        here = cells[min(t, len(cells) - 1)]
        eating = scenario.finished and t >= len(cells)
        ax = self.ax
        view = view_from(scenario.map, here)
        for y in range(HEIGHT):
            for x in range(WIDTH):
                hidden = 1.0 - view[y, x]
                if hidden > 1e-9:
                    sx, sy = self._at((x, y))
                    patch = Rectangle((sx - 0.5, sy - 0.5), 1, 1, facecolor=SHADE_COLOUR, alpha=SHADE * hidden,
                                      edgecolor="none", zorder=2)
                    ax.add_patch(patch)
                    self._moving.append(patch)
        spot2 = self._at(SPOT2)
        if seen_spot2(scenario, t):
            content = SPOT2_CONTENT[scenario.world]
            if content is None:
                self._moving.append(ax.text(*spot2, "empty", ha="center", va="center", fontsize=self.pt(0.25),
                                            fontweight="bold", color="#333333", zorder=4))
            else:
                self._truck(ax, spot2, TRUCKS[content], moving=True)
        else:
            self._moving.append(ax.text(*spot2, "?", ha="center", va="center", fontsize=self.pt(0.6),
                                        fontweight="bold", color="#333333", zorder=4))
        latest: dict = {}
        for a, b in zip(cells[:t], cells[1:t + 1]):
            step = (b[0] - a[0], b[1] - a[1])
            if step in _ARROW:
                latest.pop(a, None)
                latest[a] = _ARROW[step]
        latest.pop(here, None)
        for cell, marker in latest.items():
            x, y = self._at(cell)
            if cell in (SPOT1, SPOT2):
                x, y = x - 0.36, y - 0.36
            mark = Line2D([x], [y], linestyle="none", marker=marker, markersize=self.pt(0.2),
                          markeredgewidth=0, color=palette.TRAIL, alpha=0.85, zorder=2.6)
            ax.add_artist(mark)
            self._moving.append(mark)
        x, y = self._at(here)
        small = here in (SPOT1, SPOT2) and (here == SPOT1 or seen_spot2(scenario, t))
        for patch in agent_patches(x - 0.3 if small else x, y + 0.18 if small else y, 0.6 if small else 1.15,
                                   self.pt(0.012 if small else 0.016)):
            ax.add_patch(patch)
            self._moving.append(patch)
        if eating:
            beside = 1.0 if here == SPOT1 else WIDTH - 2.0      # the top of the cell toward the map's middle
            self._moving.append(ax.text(beside, self._at(here)[1] - 0.27, "eats!", ha="center", va="center", fontsize=self.pt(0.26),
                                        fontweight="bold", color="black", zorder=7,
                                        bbox=dict(boxstyle="round,pad=0.12", facecolor="white", edgecolor="none")))
        self.canvas.draw()
        return np.asarray(self.canvas.buffer_rgba())[..., :3].copy()

    def close(self) -> None:
        self._clear()


def frames(scenario: FoodTruckScenario, times: Sequence[int], *, cell_px: int = 50) -> list[np.ndarray]:
    """The frames of ``times`` (a convenience for tests and figures)."""
    renderer = TruckRenderer(scenario, cell_px=cell_px)
    try:
        return [renderer.frame(t) for t in times]
    finally:
        renderer.close()


class TruckFrames(Frames):
    """A food-truck scenario's frames atop a storyboard (:class:`elot.draw.storyboard.MapFrames`):
    each judgment point's frame as :class:`TruckRenderer` draws it for the stimuli (the
    trail, spot 2 until seen, the unseen part shaded), and under it what the student has
    seen of spot 2 by then."""

    def __init__(self, scenario: FoodTruckScenario, *, cell_px: int = 40) -> None:
        self.scenario = scenario
        self.width, self.height = frame_cells()
        self.steps = steps(scenario)
        self._cell_px = cell_px
        self._made = None

    @property
    def _renderer(self) -> "TruckRenderer":
        if self._made is None:
            self._made = TruckRenderer(self.scenario, cell_px=self._cell_px)
        return self._made

    def cells(self) -> tuple[int, int]:
        return frame_cells()

    def cell_for_size(self, size_px: int) -> int:
        return cell_for_size(size_px)

    def frame_size(self, cell_px: int, size_px: int | None = None) -> tuple[int, int]:
        return frame_size(cell_px)

    def renderer(self, cell_px: int, size_px: int | None = None) -> "TruckRenderer":
        return TruckRenderer(self.scenario, cell_px=cell_px)

    def captions(self, points: Sequence[int]) -> list[str]:
        content = SPOT2_CONTENT[self.scenario.world]
        seen = "spot 2 seen: " + ("empty" if content is None else f"the {TRUCKS[content].capitalize()} truck")
        return [seen if seen_spot2(self.scenario, t) else "spot 2 not seen yet" for t in points]

    def draw(self, ax, points: Sequence[int], j: int) -> None:
        ax.imshow(self._renderer.frame(points[j]), interpolation="lanczos")
        ax.set_xticks([])
        ax.set_yticks([])
        for spine in ax.spines.values():     # the frame has its own margin; the caption stays
            spine.set_visible(False)

    def close(self) -> None:
        if self._made is not None:
            self._made.close()
