"""Drawing Doors, Keys & Gems scenes: the front's ``frames`` hook (:class:`GridFrames`: the
storyboard's panels, the stimuli's renderer, ``elot map``'s figure), all with the map
painter (:class:`~elot.domains.doors_keys_gems.board.Board`), so that they look alike."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from matplotlib.figure import Figure

from elot.domains.doors_keys_gems.board import TRAIL, Board, cell_for_size, frame_cells, frame_figure, frame_size
from elot.draw.frames import Frames
from elot.errors import ElotError
from elot.draw.frames import Renderer as FrameRenderer


class Renderer(FrameRenderer):
    """Renders frames of one scenario's states: ``frame(t)`` is an RGB array, ``cell_px``
    pixels a cell (with ``size_px``, exactly that on its longer side:
    :func:`~elot.domains.doors_keys_gems.board.frame_size`)."""

    def __init__(self, states: Sequence, *, cell_px: int = 44, size_px: int | None = None,
                 trail: int | None = TRAIL) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        self.states = states
        self.figure, self.board = frame_figure(states[0].layout, cell_px=cell_px, size_px=size_px, animated=True,
                                               trail=trail)
        self.canvas = FigureCanvasAgg(self.figure)
        self.canvas.draw()                      # the static layer: animated artists are skipped
        self.background = self.canvas.copy_from_bbox(self.figure.bbox)
        self._objects_key = None
        self._objects_background = None

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of a frame in pixels."""
        width, height = self.canvas.get_width_height()
        return int(width), int(height)

    def frame(self, t: int) -> np.ndarray:
        """The picture of step ``t``: an (height, width, 3) uint8 array.

        Three layers: the static one (saved once), the objects (redrawn and saved again
        only when a door, box, key or gem changes), then the agent and its trail."""
        state = self.states[t]
        key = self.board.objects_key(state)
        if key != self._objects_key:
            self.canvas.restore_region(self.background)
            for artist in self.board.draw_objects(state):
                artist.axes.draw_artist(artist)
            self._objects_background = self.canvas.copy_from_bbox(self.figure.bbox)
            self._objects_key = key
        self.canvas.restore_region(self._objects_background)
        for artist in self.board.draw_agent(self.states, t):
            artist.axes.draw_artist(artist)
        return np.asarray(self.canvas.buffer_rgba())[..., :3].copy()

    def close(self) -> None:
        self.board.clear()



class GridFrames(Frames):
    """The gridworld's frames of true states ``s_0..s_T``: the trail walked since the
    previous point, every judgment point reached so far numbered where the agent stood,
    the keys picked up drawn pale where they lay, what it holds as the caption."""

    def __init__(self, states: Sequence):
        self.states = states
        self.layout = states[0].layout
        self.width, self.height = self.layout.width, self.layout.height
        self.steps = len(states) - 1

    def cells(self) -> tuple[int, int]:
        return frame_cells(self.layout)

    def cell_for_size(self, size_px: int) -> int:
        return cell_for_size(self.layout, size_px)

    def frame_size(self, cell_px: int, size_px: int | None = None) -> tuple[int, int]:
        return frame_size(self.layout, cell_px, size_px)

    def renderer(self, cell_px: int, size_px: int | None = None) -> "Renderer":
        return Renderer(self.states, cell_px=cell_px, size_px=size_px)

    def figure(self, t: int, title: str | None = None):
        return map_figure(self.states, t, title=title)

    def captions(self, points: Sequence[int]) -> list[str]:
        out = []
        for t in points:
            held = [ks.colour or key for key, ks in self.states[t].keys if ks.where[0] == "held"]
            out.append("holds: " + ", ".join(f"{c} key" for c in held) if held else "")
        return out

    def draw(self, ax, points: Sequence[int], j: int) -> None:
        states, t = self.states, points[j]
        board = Board(ax, self.layout, inventory_ax=None, trail=max(t - (points[j - 1] if j else 0), 0))
        board.draw_static()
        board.draw_state(states, t)
        board.draw_picked_keys(states[0], states[t])
        # points where the agent stood in one cell go side by side, in order from the left
        cells = [states[u].agent_pos for u in points[: j + 1]]
        for i, pos in enumerate(cells):
            _judgment_badge(ax, board, pos, i + 1, current=i == j, place=cells[i + 1:].count(pos))


def _judgment_badge(ax, board: Board, pos, number: int, *, current: bool, place: int = 0) -> None:
    """The number of a judgment point in the upper right corner of the cell where the
    agent stood (black for the panel's own point, grey for the earlier ones); the
    ``place``-th badge of one cell sits left of the ones before it."""
    from matplotlib.patches import Circle

    x, y = pos[0] + 0.3 - 0.42 * place, pos[1] - 0.3
    colour = "black" if current else "0.45"
    ax.add_patch(Circle((x, y), 0.2, facecolor="white", edgecolor=colour, linewidth=board.lw(1.0), zorder=7,
                        gid="judgment-point"))
    ax.text(x, y, str(number), ha="center", va="center", fontsize=max(0.26 * board.cell_pt, 5.0),
            fontweight="bold", color=colour, zorder=8)




#: The height of a map cell in ``elot map``'s figure, in inches.
MAP_CELL = 0.55


class _Measure:
    """Sizes of texts and legends, in inches, as ``fig``'s renderer draws them."""

    def __init__(self, fig: Figure) -> None:
        self.fig = fig
        self.renderer = fig._get_renderer()

    def text(self, text: str, fontsize: float) -> tuple[float, float]:
        artist = self.fig.text(0, 0, text, fontsize=fontsize)
        box = artist.get_window_extent(self.renderer)
        artist.remove()
        return box.width / self.fig.dpi, box.height / self.fig.dpi

    def legend(self, legend) -> tuple[float, float]:
        box = legend.get_window_extent(self.renderer)
        return box.width / self.fig.dpi, box.height / self.fig.dpi


def _wrap_to(measure: _Measure, text: str, fontsize: float, width: float) -> str:
    """``text`` wrapped so that it is at most ``width`` inches wide (a name without
    spaces broken at its hyphens, or anywhere)."""
    import textwrap

    chars = len(text)
    while chars > 8:
        wrapped = "\n".join(textwrap.wrap(text, chars, break_long_words=True, break_on_hyphens=True))
        if measure.text(wrapped, fontsize)[0] <= width:
            return wrapped
        chars = int(chars * 0.9)
    return "\n".join(textwrap.wrap(text, 8, break_long_words=True))


def _map_legend(colours: Sequence[str], letter) -> list:
    """Proxy artists for the map's legend: every kind of thing drawn, then the colours
    (with ``letter(colour)``, the letters printed on doors and keys of that colour)."""
    from matplotlib.lines import Line2D as L
    from matplotlib.patches import Patch

    from elot.draw import palette

    handles = [
        Patch(facecolor=palette.WALL, label="wall"),
        Patch(facecolor="0.6", edgecolor="black", label="locked door (its colour)"),
        Patch(facecolor="none", edgecolor="0.4", linestyle="--", label="unlocked door"),
        Patch(facecolor=palette.BOX, edgecolor=palette.BOX_EDGE, label="closed box"),
        Patch(facecolor=palette.BOX_OPEN, edgecolor=palette.BOX_EDGE, linestyle="--", label="opened box"),
        L([], [], marker=r"$\multimap$", color="0.3", linestyle="none", markersize=9, label="key (its colour)"),
        L([], [], marker="h", color=palette.GEM_FILL, markeredgecolor=palette.GEM_EDGE, linestyle="none",
          markersize=8, label="gem (own shape, colour)"),
        L([], [], marker="h", markerfacecolor="none", markeredgecolor=palette.GEM_EDGE, linestyle="none",
          markersize=8, label="gem collected ✓"),
        L([], [], marker="o", color=palette.AGENT, linestyle="none", markersize=8, label="agent"),
        L([], [], marker="o", markerfacecolor="white", markeredgecolor="black", linestyle="none",
          markersize=4, label="agent's start"),
        L([], [], color=palette.TRAIL, marker=">", markersize=5, linewidth=1, label="path walked"),
    ]
    return handles + [Patch(facecolor=palette.colour(c), label=f"{c} ({letter(c)})") for c in colours]



def map_figure(states: Sequence, t: int | None = None, *, title: str | None = None) -> Figure:
    """The map at step ``t`` (default the last) of the true states ``s_0..s_T``, drawn by
    :class:`elot.draw.board.Board` as stimuli and storyboards draw it: walls, doors
    (filled with a keyhole and the colour's letters while locked, dashed once unlocked),
    numbered boxes (pale once opened), keys that can be seen, gems (dashed once
    collected), the agent, where it started and the path walked so far; a legend, a line
    saying what the agent holds, and the inventory row when it holds something.

    The figure is laid out by measuring its texts, not by a layout engine: the map's cells
    are :data:`MAP_CELL` inches, the legend sits right of the map, and the figure is as
    wide and tall as they and the title (wrapped to the figure's width) need, so no text
    is cut at an edge whatever the map's size, its colours or the scenario's name."""
    from elot.domains.doors_keys_gems.board import colour_letters

    if not states:
        raise ElotError("no states to draw")
    t = len(states) - 1 if t is None else t
    state = states[t]
    layout = state.layout
    held = [f"{key} ({ks.colour} key)" if ks.colour else key
            for key, ks in state.keys if ks.where[0] == "held"] + sorted(state.held_gems)
    colours = sorted({c for _, _, c in layout.doors} | {ks.colour for _, ks in state.keys if ks.colour})
    letters = colour_letters(layout, colours)
    handles = _map_legend(colours, lambda c: letters.get(c) or "?")
    legend_style = dict(fontsize=7, frameon=False, handlelength=1.6, handleheight=1.2, loc="upper left")

    # measure what surrounds the map (in inches), then place everything
    scratch = Figure()
    measure = _Measure(scratch)
    legend_w, legend_h = measure.legend(scratch.add_axes((0, 0, 1, 1)).legend(handles=handles, **legend_style))
    map_w, map_h = MAP_CELL * layout.width, MAP_CELL * layout.height
    margin, gap = 0.12, 0.2
    holds = _wrap_to(measure, "holds: " + (", ".join(held) if held else "nothing"), 8, map_w)
    holds_h = measure.text(holds, 8)[1] + 4 / 72 + 0.04        # the label and its pad under the axes
    # the inventory row only when it holds something ("holds: nothing" says the rest): its
    # title "Inventory" (0.36 of a cell, Board.TEXT) and its pad over a row one cell high
    inventory_h = (0.36 * 1.25 + 0.12 + 0.1) * MAP_CELL + MAP_CELL if held else 0.0
    width = max(margin + map_w + gap + legend_w + margin, 3.0)
    heading = _wrap_to(measure, title or f"t = {t}", 10, width - 2 * margin)
    heading_h = measure.text(heading, 10)[1] + 0.1
    body_h = max(map_h + holds_h + inventory_h, legend_h)
    height = margin + heading_h + body_h + margin

    fig = Figure(figsize=(width, height))
    ax = fig.add_axes((margin / width, 1 - (margin + heading_h + map_h) / height, map_w / width, map_h / height))
    inventory = None
    if held:
        inventory = fig.add_axes((margin / width, 1 - (margin + heading_h + map_h + holds_h + inventory_h) / height,
                                  map_w / width, MAP_CELL / height))
    board = Board(ax, layout, inventory_ax=inventory, trail=None, labels=True)
    board.draw_static()
    board.draw_state(states, t)
    fig.text(margin / width, 1 - margin / height, heading, fontsize=10, ha="left", va="top", gid="title")
    ax.set_xlabel(holds, fontsize=8, loc="left")
    ax.legend(handles=handles, bbox_to_anchor=(1 + gap / map_w, 1.0), borderaxespad=0, **legend_style)
    return fig


