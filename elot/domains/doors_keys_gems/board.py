"""The map painter: one Doors, Keys & Gems map on matplotlib axes.

A :class:`Board` draws a layout in two layers. The *static* layer (floor, the dashed cell
grid, walls, the empty inventory row) is drawn once by :meth:`Board.draw_static`. The
*changing* layer (doors, boxes, keys, gems, the agent, its trail and what it holds) is
drawn for one moment by :meth:`Board.draw_state`, which first removes what it drew for
the previous moment; with ``animated=True`` those artists are left out of a full redraw,
so an animation can blit them over a saved picture of the static layer
(:mod:`elot.draw.animation`).

What is drawn (and why it reads without colour): walls black; a locked door fills its
cell in its colour with a keyhole and the colour's letters, an unlocked one is a dashed
outline; a closed box is a cardboard box with its number (box 3 is "3", as statements
name it), an opened box is pale, open, and keeps its number as large (a key found in it
is drawn small above the number); keys are key-shaped with the colour's letters
(:meth:`Board.letter`: ``R`` for red, ``Pk`` for pink); each gem
has its own shape and its own colour; the agent is a black figure, drawn small in a corner
of a cell that holds a box, key or gem so that the thing stays visible; the trail is one
arrow in each cell the agent left (the latest way it went, so a reversal never stacks two
marks), none under the agent.

Every size (text, lines, marks) is a fraction of the cell, so a frame drawn larger is the
same picture, larger: :data:`TEXT` holds the text sizes as fractions of a cell's height.
"""

from __future__ import annotations

import re
from typing import Sequence

from matplotlib.axes import Axes
from matplotlib.collections import PatchCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Circle, Polygon, Rectangle

from elot.draw import palette
from elot.draw.marks import BASE_CELL_PT as _BASE_CELL_PT, agent_patches, gem_label, gem_patches

#: Moves in the trail of an animation frame (the paper's stimuli show about ten).
TRAIL = 10

_ARROW = {(0, -1): "^", (0, 1): "v", (-1, 0): "<", (1, 0): ">"}

#: Text sizes as fractions of a cell's height: a box's number, the letters on a door, the
#: letters on a key (on the map; a key in an opened box or the inventory scales it), the
#: word "Inventory", a gem's name (figures for researchers only).
TEXT = {"box": 0.44, "door": 0.24, "key": 0.22, "inventory": 0.36, "label": 0.17}


def box_number(name: str, index: int) -> str:
    """The number a box is shown with: the digits its name ends with (``box3`` → ``3``,
    as statements name boxes), else its place in the layout (1-based)."""
    match = re.search(r"(\d+)$", name)
    return match.group(1) if match else str(index + 1)


def colour_letters(layout, more: Sequence[str] = ()) -> dict[str, str]:
    """The letters on the doors and keys of each colour of ``layout`` (and of ``more``),
    no two colours alike (:func:`elot.draw.palette.letters`)."""
    return palette.letters([*layout.colours, *(c for _, _, c in layout.doors), *more])


class Board:
    """Paints one layout on ``ax`` (and its inventory on ``inventory_ax``, if given).

    ``trail`` is how many recent moves the trail shows (None: every move since t = 0,
    with a mark where the agent started); ``labels`` writes the gems' names (for
    figures a researcher reads); ``gem_numbers`` writes what participants call each gem
    (:func:`gem_label`: ``gem 1``, as the survey's goal question and icons name it)."""

    def __init__(self, ax: Axes, layout, *, inventory_ax: Axes | None = None, trail: int | None = TRAIL,
                 labels: bool = False, animated: bool = False, gem_numbers: bool = False) -> None:
        self.ax = ax
        self.layout = layout
        self.inventory_ax = inventory_ax
        self.trail = trail
        self.labels = labels
        self.gem_numbers = gem_numbers
        self.animated = animated
        self._objects: list = []   # doors, boxes, keys, gems, inventory
        self._moving: list = []    # the agent and its trail
        self._artists: list = self._objects   # where the piece being drawn goes
        self.inventory_title = None           # the word "Inventory" over the row (drawn by draw_static)
        self.gem_index = {gem: n for n, (gem, _) in enumerate(layout.gems)}
        self.box_numbers = {box: box_number(box, n) for n, (box, _) in enumerate(layout.boxes)}
        #: the letters on each colour's doors and keys, no two colours of the map alike
        self.letters = colour_letters(layout)
        #: inventory slots: as many as the map is wide (every key and gem fits in the dataset's maps)
        self.slots = max(layout.width, 1)

    @property
    def cell_pt(self) -> float:
        """The height of a map cell in points, from the axes' place in the figure (read
        when drawing, so a layout engine that moved the axes is followed)."""
        self.ax.get_position()                 # applies the equal aspect to the axes' box
        box = self.ax.get_window_extent()      # in pixels, in a figure or a subfigure alike
        dpi = self.ax.figure.dpi
        width = box.width / dpi / max(self.layout.width, 1)
        height = box.height / dpi / max(self.layout.height, 1)
        return 72.0 * min(width, height)      # the aspect is equal: the smaller side is the cell

    def font(self, kind: str, scale: float = 1.0) -> float:
        """The size in points of text of ``kind`` (a key of :data:`TEXT`)."""
        return max(TEXT[kind] * scale * self.cell_pt, 1.0)

    def lw(self, width: float) -> float:
        """A line width chosen for a 32-point cell, scaled to this board's cells."""
        return width * self.cell_pt / _BASE_CELL_PT

    # -- the static layer -----------------------------------------------------------------

    def draw_static(self) -> None:
        """Floor, grid, walls and the empty inventory row; axes limits and decorations."""
        ax, layout = self.ax, self.layout
        ax.set_xlim(0.5, layout.width + 0.5)
        ax.set_ylim(layout.height + 0.5, 0.5)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_facecolor(palette.FLOOR)
        for spine in ax.spines.values():
            spine.set_color(palette.WALL)
        grid = [x + 0.5 for x in range(1, layout.width)]
        ax.vlines(grid, 0.5, layout.height + 0.5, colors=palette.GRID, linewidths=self.lw(0.6),
                  linestyles=(0, (3, 3)), zorder=1)
        grid = [y + 0.5 for y in range(1, layout.height)]
        ax.hlines(grid, 0.5, layout.width + 0.5, colors=palette.GRID, linewidths=self.lw(0.6),
                  linestyles=(0, (3, 3)), zorder=1)
        walls = [Rectangle((x - 0.5, y - 0.5), 1, 1) for x, y in sorted(layout.walls)]
        # over the grid: the dashed lines run between floor cells only, as in the paper's stimuli
        ax.add_collection(PatchCollection(walls, facecolor=palette.WALL, edgecolor=palette.WALL, linewidth=0.5,
                                          zorder=1.5))
        inv = self.inventory_ax
        if inv is not None:
            inv.set_xlim(0.5, self.slots + 0.5)
            inv.set_ylim(1.5, 0.5)
            inv.set_aspect("equal")
            inv.set_xticks([])
            inv.set_yticks([])
            inv.vlines([x + 0.5 for x in range(1, self.slots)], 0.5, 1.5, colors="black", linewidths=self.lw(0.8))
            for spine in inv.spines.values():
                spine.set_linewidth(self.lw(0.8))
            self.inventory_title = inv.set_title("Inventory", loc="left", fontsize=self.font("inventory"),
                                                 pad=0.12 * self.cell_pt)

    # -- the changing layer ---------------------------------------------------------------

    def clear(self) -> None:
        """Remove what :meth:`draw_state` drew last."""
        self.clear_objects()
        self.clear_agent()

    def clear_objects(self) -> None:
        for artist in self._objects:
            artist.remove()
        self._objects = []

    def clear_agent(self) -> None:
        for artist in self._moving:
            artist.remove()
        self._moving = []

    def draw_state(self, states: Sequence, t: int) -> list:
        """Draw the world at step ``t`` of ``states`` (s_0..s_T) with the trail of the moves
        up to t; returns the artists drawn (removed again by the next call)."""
        return self.draw_objects(states[t]) + self.draw_agent(states, t)

    @staticmethod
    def objects_key(state) -> tuple:
        """What :meth:`draw_objects` depends on: equal keys, equal pictures (an animation
        redraws the objects only when this changes)."""
        return (state.locked, state.closed, state.keys, state.held_gems)

    def draw_objects(self, state) -> list:
        """Doors, boxes, keys, gems and the inventory at ``state`` (everything that
        changes only when the agent acts on something); returns the artists drawn."""
        self.clear_objects()
        self._artists = self._objects
        layout = self.layout
        for door, pos, colour in layout.doors:
            self._door(pos, colour, door in state.locked)
        for box, pos in layout.boxes:
            self._box(pos, self.box_numbers[box], box in state.closed)
        for key, ks in state.keys:
            if ks.where[0] == "cell":
                self._key(self.ax, state.item_pos(key), ks.colour)
            elif ks.where[0] == "box" and ks.where[1] not in state.closed:
                x, y = state.item_pos(key)       # above the box's number, which stays readable
                self._key(self.ax, (x + 0.04, y - 0.33), ks.colour, scale=0.55)
        for gem, pos in layout.gems:
            if layout.in_bounds(pos):
                label = None
                if self.labels:
                    label = f"{gem} ✓" if gem in state.held_gems else gem
                elif self.gem_numbers:
                    label = gem_label(self.gem_index[gem])
                self._gem(self.ax, pos, self.gem_index[gem], collected=gem in state.held_gems, label=label)
        if self.inventory_ax is not None:
            self._inventory(state)
        return self._objects

    def draw_agent(self, states: Sequence, t: int) -> list:
        """The agent at step ``t`` and its trail; returns the artists drawn."""
        self.clear_agent()
        self._artists = self._moving
        self._trail(states, t)
        self._agent(states[t].agent_pos, small=self.occupied(states[t], states[t].agent_pos))
        return self._moving

    def occupied(self, state, pos) -> bool:
        """Whether the cell ``pos`` shows a box, a key or a gem at ``state`` (the agent is
        then drawn small in a corner, so that the thing stays visible)."""
        layout = self.layout
        if any(p == pos for _, p in layout.boxes):
            return True
        if any(ks.where == ("cell", pos) for _, ks in state.keys):
            return True
        return any(p == pos for _, p in layout.gems)     # a collected gem leaves its dashed outline

    def held(self, state) -> list[tuple[str, str | None]]:
        """What the agent holds at ``state``, as (kind, colour or gem name), keys first."""
        keys = [("key", ks.colour) for _, ks in state.keys if ks.where[0] == "held"]
        gems = [("gem", gem) for gem, _ in self.layout.gems if gem in state.held_gems]
        return keys + gems

    def letter(self, colour: str | None) -> str:
        """The letters on a door or key of ``colour`` (:func:`elot.draw.palette.letters`)."""
        return self.letters.get(colour) or palette.letter(colour)

    # -- pieces ---------------------------------------------------------------------------

    def _add(self, ax: Axes, artist):
        # add_artist, not add_patch/add_line: the limits are fixed, and updating the data
        # limits for every patch was most of a frame's cost
        artist.set_animated(self.animated)
        ax.add_artist(artist)
        self._artists.append(artist)
        return artist

    def _text(self, ax: Axes, x: float, y: float, text: str, **kw) -> None:
        artist = ax.text(x, y, text, ha="center", va="center", animated=self.animated, **kw)
        self._artists.append(artist)

    def _door(self, pos, colour: str, locked: bool) -> None:
        x, y = pos
        fill = palette.colour(colour)
        lw = self.lw
        if locked:
            self._add(self.ax, Rectangle((x - 0.5, y - 0.5), 1, 1, facecolor=fill, edgecolor="black",
                                         linewidth=lw(1.0), zorder=2))
            hole = palette.ink(fill)
            self._add(self.ax, Rectangle((x - 0.4, y - 0.4), 0.8, 0.8, facecolor="none",
                                         edgecolor=hole, linewidth=lw(0.6), zorder=2))
            self._add(self.ax, Circle((x, y - 0.02), 0.09, facecolor=hole, edgecolor="none", zorder=3))
            self._add(self.ax, Polygon([(x - 0.07, y + 0.24), (x + 0.07, y + 0.24), (x, y)],
                                       facecolor=hole, edgecolor="none", zorder=3))
            mark = self.letter(colour)    # two letters a little smaller, clear of the keyhole
            self._text(self.ax, x - 0.24, y - 0.22, mark, fontsize=self.font("door", _fit(mark)), color=hole,
                       fontweight="bold", zorder=3)
        else:
            self._add(self.ax, Rectangle((x - 0.42, y - 0.42), 0.84, 0.84, facecolor="none", edgecolor=fill,
                                         linewidth=lw(1.6), linestyle=(0, (2, 2)), zorder=2))

    def _box(self, pos, number: str, closed: bool) -> None:
        x, y = pos
        lw = self.lw
        if closed:
            self._add(self.ax, Rectangle((x - 0.32, y - 0.2), 0.64, 0.52, facecolor=palette.BOX,
                                         edgecolor=palette.BOX_EDGE, linewidth=lw(1.0), zorder=2))
            self._add(self.ax, Rectangle((x - 0.36, y - 0.3), 0.72, 0.12, facecolor=palette.BOX_LID,
                                         edgecolor=palette.BOX_EDGE, linewidth=lw(1.0), zorder=2))
            self._text(self.ax, x, y + 0.07, number, fontsize=self.font("box"), fontweight="bold",
                       color=palette.BOX_NUMBER, zorder=3)
        else:
            # an open box: pale, its lid flaps folded out, the number as large as when closed
            self._add(self.ax, Rectangle((x - 0.32, y - 0.14), 0.64, 0.46, facecolor=palette.BOX_OPEN,
                                         edgecolor=palette.BOX_EDGE, linewidth=lw(1.0), zorder=2))
            for side in (-1, 1):
                self._add(self.ax, Polygon([(x + side * 0.32, y - 0.14), (x + side * 0.47, y - 0.3),
                                            (x + side * 0.36, y - 0.36), (x + side * 0.12, y - 0.14)],
                                           facecolor=palette.BOX_OPEN, edgecolor=palette.BOX_EDGE,
                                           linewidth=lw(0.8), zorder=2))
            self._text(self.ax, x, y + 0.11, number, fontsize=self.font("box", 0.9), fontweight="bold",
                       color=palette.BOX_NUMBER_OPEN, zorder=3)

    def _key(self, ax: Axes, pos, colour: str | None, *, scale: float = 1.0, pale: bool = False) -> None:
        x, y = pos
        s = 0.44 * scale
        fill = palette.colour(colour)
        edge = "black"
        if pale:       # a key already picked up, where it lay: light, its outline grey
            fill, edge = palette.paler(fill), palette.paler("black", 0.55)
        lw = self.lw(0.6)
        gid = "picked-key" if pale else None
        # a bow (ring) on the left, a shaft to the right, two teeth below it
        self._add(ax, Circle((x - 0.55 * s, y), 0.46 * s, facecolor=fill, edgecolor=edge, linewidth=lw,
                             zorder=4, gid=gid))
        self._add(ax, Rectangle((x - 0.2 * s, y - 0.12 * s), 1.05 * s, 0.24 * s, facecolor=fill,
                                edgecolor=edge, linewidth=lw, zorder=4, gid=gid))
        for dx in (0.45, 0.7):
            self._add(ax, Rectangle((x + dx * s, y + 0.1 * s), 0.15 * s, 0.3 * s, facecolor=fill,
                                    edgecolor=edge, linewidth=lw, zorder=4, gid=gid))
        mark = self.letter(colour)
        self._text(ax, x - 0.55 * s, y, mark, fontsize=self.font("key", scale * _fit(mark)),
                   color=edge if pale else palette.ink(fill), fontweight="bold", zorder=5)

    def draw_picked_keys(self, first, state) -> list:
        """Keys the agent has picked up by ``state`` (held or used), drawn pale where they
        lay at ``first`` (the scenario's start), as the paper's Figure 4 draws them; call
        after :meth:`draw_state` (the next one removes them). Returns the artists drawn."""
        self._artists = self._objects
        drawn = len(self._objects)
        lay = dict(first.keys)
        for key, ks in state.keys:
            start = lay.get(key)
            if ks.where[0] not in ("held", "used") or start is None or start.where[0] not in ("cell", "box"):
                continue
            x, y = first.item_pos(key)
            if start.where[0] == "box":     # above the box's number, as a key found in a box is drawn
                self._key(self.ax, (x + 0.04, y - 0.33), ks.colour, scale=0.55, pale=True)
            else:
                self._key(self.ax, (x, y), ks.colour, pale=True)
        return self._objects[drawn:]

    def _gem(self, ax: Axes, pos, index: int, *, collected: bool = False, label: str | None = None) -> None:
        centre = pos
        if label:       # a little lower and smaller, under its name
            centre = (pos[0], pos[1] + 0.08)
        for patch in gem_patches(centre, index, linewidth=self.lw(1.2), collected=collected,
                                 scale=0.85 if label else 1.0):
            self._add(ax, patch)
        if label:
            # along the top of the cell, on a white ground over everything: the agent stands
            # small in the lower left corner and the path runs through the middle
            # what participants answer with is a third larger than a researcher's gem names
            size = self.font("label", 1.3 if self.gem_numbers and not self.labels else 1.0)
            self._text(ax, pos[0], pos[1] - 0.37, label, fontsize=size, zorder=7, gid="gem-label",
                       bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none", alpha=0.85))

    def _agent(self, pos, *, small: bool = False) -> None:
        """A black figure (head, body with arms, legs) filling the cell, or small in its
        lower-left corner when the cell shows a box, key or gem."""
        x, y = pos
        s = 1.15
        if small:
            s = 0.6
            x, y = x - 0.3, y + 0.18
        for patch in agent_patches(x, y, s, self.lw(0.6 if small else 0.8)):
            self._add(self.ax, patch)

    def _trail(self, states: Sequence, t: int) -> None:
        first = 0 if self.trail is None else max(0, t - self.trail)
        cells = [s.agent_pos for s in states[first: t + 1]]
        if self.trail is None:      # a figure for researchers: the whole path as a line too
            self._add(self.ax, Line2D([c[0] for c in cells], [c[1] for c in cells], color=palette.TRAIL,
                                      linewidth=self.lw(1.0), alpha=0.35, gid="path", zorder=2.5))
        latest: dict = {}    # one mark a cell: the latest way the agent left it
        for here, there in zip(cells, cells[1:]):
            step = (there[0] - here[0], there[1] - here[1])
            if step in _ARROW:
                latest.pop(here, None)
                latest[here] = _ARROW[step]
        latest.pop(cells[-1], None)     # the agent stands there
        arrows: dict[tuple[str, float], list] = {}
        for cell, marker in latest.items():
            if self.occupied(states[t], cell):      # in a corner, off a box's number, a key or a gem
                arrows.setdefault((marker, 0.15), []).append((cell[0] - 0.36, cell[1] + 0.36))
            else:
                arrows.setdefault((marker, 0.2), []).append(cell)
        for (marker, size), where in arrows.items():
            self._add(self.ax, Line2D([p[0] for p in where], [p[1] for p in where], linestyle="none",
                                      marker=marker, markersize=size * self.cell_pt, markeredgewidth=0,
                                      color=palette.TRAIL, alpha=0.85, gid="trail", zorder=2.6))
        if self.trail is None:
            self._add(self.ax, Circle(states[0].agent_pos, 0.1, facecolor="white", edgecolor="black",
                                      linewidth=self.lw(1.0), zorder=5))

    def _inventory(self, state) -> None:
        inv = self.inventory_ax
        for n, (kind, what) in enumerate(self.held(state)[: self.slots], start=1):
            if kind == "key":
                self._key(inv, (n + 0.05, 1), what)
            else:
                self._gem(inv, (n, 1), self.gem_index[what])


def _fit(mark: str) -> float:
    """How much smaller than one letter the text ``mark`` is drawn, so that two or three
    letters fit where one does (a key's bow, a door's corner)."""
    return {1: 1.0, 2: 0.78}.get(len(mark), 0.6)


def map_axes(fig: Figure, layout, rect: tuple[float, float, float, float] = (0, 0, 1, 1), *,
             inventory: bool = True) -> tuple[Axes, Axes | None]:
    """Map axes (and an inventory row one cell below them) filling ``rect`` of ``fig`` in
    figure coordinates (left, bottom, width, height): :data:`INVENTORY_ROWS` more rows
    than the map when ``inventory``."""
    left, bottom, width, height = rect
    rows = layout.height + (INVENTORY_ROWS if inventory else 0)
    cell_h = height / rows
    ax = fig.add_axes((left, bottom + height - layout.height * cell_h, width, layout.height * cell_h))
    inv = fig.add_axes((left, bottom, width, cell_h)) if inventory else None
    return ax, inv


#: Rows a frame adds under the map: a gap with the word "Inventory", then the row.
INVENTORY_ROWS = 2

FRAME_SIZE = palette.FRAME_SIZE


#: The smallest legible cell (:data:`elot.draw.palette.MIN_CELL`, beside the frame size).
MIN_CELL = palette.MIN_CELL


def frame_cells(layout) -> tuple[int, int]:
    """(columns, rows) of cells a frame takes: the map, the inventory rows and half a cell
    of margin all round."""
    return layout.width + 1, layout.height + INVENTORY_ROWS + 1


def cell_for_size(layout, size_px: int) -> int:
    """The whole number of pixels a cell gets so that the frame's cells fit ``size_px``
    pixels on its longer side (possibly under :data:`MIN_CELL`: the caller says so)."""
    return max(1, size_px // max(frame_cells(layout)))


def frame_size(layout, cell_px: int, size_px: int | None = None) -> tuple[int, int]:
    """(width, height) in pixels of a frame of ``cell_px`` pixels a cell: its cells and
    half a cell of margin all round, or with ``size_px`` (and a cell from
    :func:`cell_for_size`) exactly ``size_px`` on the longer side, the pixels left over
    from whole cells added to that side's margins."""
    columns, rows = frame_cells(layout)
    width, height = columns * cell_px, rows * cell_px
    if size_px is not None:
        longer = max(columns, rows)
        width, height = (max(size_px, width) if columns == longer else width,
                         max(size_px, height) if rows == longer else height)
    return width, height


def frame_figure(layout, *, cell_px: int = 44, size_px: int | None = None, dpi: int = 100, animated: bool = False,
                 trail: int | None = TRAIL, labels: bool = False, gem_numbers: bool = True) -> tuple[Figure, Board]:
    """A figure holding only the map and its inventory row, ``cell_px`` pixels a cell and
    half a cell of margin all round (with ``size_px``, as large as :func:`frame_size`
    says, the map centred on whole pixels), with a :class:`Board` whose static layer is
    drawn: the picture participants see, each gem with the name they answer with
    (``gem_numbers``). Frames are (width + 1) × (height + 3) cells."""
    rows = layout.height + INVENTORY_ROWS
    width, height = frame_size(layout, cell_px, size_px)
    inner_w, inner_h = layout.width * cell_px, rows * cell_px
    if size_px is None:
        left = bottom = cell_px / 2
    else:       # whole pixels, so that the grid's lines stay as crisp as at a given --cell
        left, bottom = (width - inner_w) // 2, (height - inner_h) // 2
    # a hair over the size: the canvas truncates width / dpi * dpi, which may fall just short
    fig = Figure(figsize=((width + 1e-6) / dpi, (height + 1e-6) / dpi), dpi=dpi, facecolor="white")
    ax, inv = map_axes(fig, layout, (left / width, bottom / height, inner_w / width, inner_h / height))
    board = Board(ax, layout, inventory_ax=inv, trail=trail, labels=labels, animated=animated,
                  gem_numbers=gem_numbers)
    board.draw_static()
    return fig, board
