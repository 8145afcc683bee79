"""Pictures of grounded PDDL states: the frames every picture of a PDDL scenario is made of
(maps, stimuli, storyboards, the survey: :class:`PddlFrames`), the REPL's ``:map`` as text
(:func:`text_map`), and one state as a figure (:func:`draw_grid`, :func:`draw_blocks`).

* a **grid** in PDDL.jl's Doors-Keys-Gems dialect (fluents ``width``, ``height``, ``xpos``,
  ``ypos``): walls and doors from ``(wall x y)``/``(door x y)``, keys and gems from
  ``(at item x y)``, the agent and the cells it walked; **y counts from the bottom**, as in
  the domain (``up`` is y + 1), so the picture is drawn with (1, 1) at its lower left;
* a **blocks** state: the towers from ``on``/``ontable``, the held block above them;
* any other state: its true atoms, as text.

Gems are drawn as every elot picture draws them (:mod:`elot.draw.marks`: the n-th gem of
the problem in its shape and colour, as the survey's icons show it); keys as yellow discs.
"""

from __future__ import annotations

import textwrap
from typing import Sequence

import numpy as np

from elot.domains.pddl.ground import Grounded
from elot.domains.pddl.words import describe, is_blocks, towers
from elot.domains.source import TextMap
from elot.draw import palette
from elot.draw.frames import Frames
from elot.draw.marks import BASE_CELL_PT, agent_patches, gem_patches

DOOR = "#b5651d"
KEY = "#e0b000"
BLOCK = "#c6dbef"
HELD = "#fdd49e"


def _figure(size):
    from matplotlib.figure import Figure

    return Figure(figsize=size)


def grid_size(g: Grounded) -> tuple[int, int] | None:
    """``(width, height)`` of a grid task (its fluents ``width``, ``height`` static and
    ``xpos``, ``ypos`` dynamic), else None."""
    static = {name: v for (name, args), v in g.static_fluents.items() if not args}
    moving = {name for name, args in g.fluents if not args}
    if {"width", "height"} <= set(static) and {"xpos", "ypos"} <= moving:
        return int(static["width"]), int(static["height"])
    return None


def position(g: Grounded, row: np.ndarray) -> tuple[int, int]:
    """Where a grid's agent stands in state ``row``: ``(xpos, ypos)``."""
    _, values = g.decode(row)
    by_name = {name: v for (name, args), v in values.items() if not args}
    return int(by_name["xpos"]), int(by_name["ypos"])


def _gem_order(g: Grounded) -> list[str]:
    return sorted((o for o, kind in g.objects.items() if kind == "gem"),
                  key=lambda name: (len(name), name))


def grid_into(ax, g: Grounded, row: np.ndarray, walked: Sequence[tuple[int, int]] = (), size: float = 1.0) -> None:
    """The map of state ``row`` of a grid task into ``ax`` (``size``: the line widths' scale)."""
    width, height = grid_size(g)
    atoms = g.atoms_of(row)

    def at(x: int, y: int) -> tuple[float, float]:     # y from the bottom, drawn upward
        return float(x), float(height + 1 - y)

    from matplotlib.patches import Circle, Rectangle

    for a in sorted(atoms):
        if a[0] in ("wall", "door") and len(a) == 3:
            x, y = at(int(a[1]), int(a[2]))
            ax.add_patch(Rectangle((x - 0.5, y - 0.5), 1, 1, color=palette.WALL if a[0] == "wall" else DOOR,
                                   zorder=2))
    if len(walked) > 1:
        xs, ys = zip(*(at(x, y) for x, y in walked))
        ax.plot(xs, ys, color=palette.TRAIL, linewidth=1.5 * size, alpha=0.6, zorder=3)
    gems = _gem_order(g)
    for a in sorted(atoms):
        if a[0] == "at" and len(a) == 4:
            centre = at(int(a[2]), int(a[3]))
            if a[1] in gems:
                for patch in gem_patches(centre, gems.index(a[1]), linewidth=size):
                    ax.add_patch(patch)
            else:
                ax.add_patch(Circle(centre, 0.22, facecolor=KEY, edgecolor="black", linewidth=0.8 * size, zorder=3))
                ax.text(*centre, a[1].replace("key", "k"), ha="center", va="center", fontsize=6 * size, zorder=4)
    x, y = at(*position(g, row))
    for patch in agent_patches(x, y, 1.0, 0.6 * size):
        ax.add_patch(patch)
    ax.set_xlim(0.5, width + 0.5)
    ax.set_ylim(height + 0.5, 0.5)
    ax.set_aspect("equal")
    ax.set_xticks(np.arange(0.5, width + 1))
    ax.set_yticks(np.arange(0.5, height + 1))
    ax.tick_params(length=0, labelbottom=False, labelleft=False)
    ax.grid(True, color=palette.GRID, linewidth=0.4)


def blocks_into(ax, g: Grounded, row: np.ndarray, columns: int) -> None:
    """The towers of state ``row`` of a blocks task into ``ax``, ``columns`` wide (the
    number of blocks: every state of a scene is drawn at one scale), the held block above."""
    from matplotlib.patches import Rectangle

    stacks, held = towers(g.atoms_of(row))
    tall = columns + 1
    for i, stack in enumerate(stacks):
        for level, block in enumerate(stack):
            ax.add_patch(Rectangle((i + 0.1, level), 0.8, 0.9, facecolor=BLOCK, edgecolor="black"))
            ax.text(i + 0.5, level + 0.45, block, ha="center", va="center", fontsize=12)
    if held:
        ax.add_patch(Rectangle((columns / 2 - 0.4, tall - 0.2), 0.8, 0.9, facecolor=HELD, edgecolor="black"))
        ax.text(columns / 2, tall + 0.25, held, ha="center", va="center", fontsize=12)
    ax.set_xlim(0, columns)
    ax.set_ylim(-0.1, tall + 1)
    ax.axhline(0, color="black")
    ax.set_axis_off()


def atoms_into(ax, g: Grounded, row: np.ndarray) -> None:
    """Any other state: its true dynamic atoms, as text."""
    text = describe(sorted(g.decode(row)[0]))
    ax.text(0.02, 0.98, "\n".join(textwrap.wrap(text, 48)), ha="left", va="top", fontsize=8,
            family="monospace", transform=ax.transAxes)
    ax.set_axis_off()


class PddlFrames(Frames):
    """The frames of a scene (:class:`~elot.domains.pddl.scenes.Scene`): its states along
    the path, each drawn as its kind of world is (see the module docstring); a storyboard's
    panel is captioned with the action just taken."""

    def __init__(self, scene):
        self.scene = scene
        g = scene.task.grounded
        self.grid = grid_size(g)
        self.blocks = self.grid is None and is_blocks(g.atoms_of(scene.state(0)))
        self.steps = len(scene.steps)
        blocks = len([o for o, kind in g.objects.items() if kind == "block"]) or 4
        self.width, self.height = self.grid or ((blocks, blocks + 2) if self.blocks else (8, 6))

    def state(self, t: int) -> np.ndarray:
        return self.scene.state(t)

    def draw(self, ax, points: Sequence[int], j: int) -> None:
        t = points[j]
        g = self.scene.task.grounded
        if self.grid:
            walked = [position(g, self.state(k)) for k in range(t + 1)]
            grid_into(ax, g, self.state(t), walked)
        elif self.blocks:
            blocks_into(ax, g, self.state(t), self.width)
        else:
            atoms_into(ax, g, self.state(t))

    def captions(self, points: Sequence[int]) -> list[str]:
        return [self.describe_step(t) or "the start" for t in points]

    def describe_step(self, t: int) -> str:
        return self.scene.steps[t - 1].text() if t > 0 else ""


def text_map(scene, t: int) -> TextMap:
    """The state at t as text (the REPL's ``:map``): a grid's walls ``#``, doors ``D``,
    keys ``k``, gems ``g`` and the agent ``@`` (y from the bottom: the top row is the
    highest y), with the cells walked; a blocks state's towers, bottom row first, each
    block by its letter; any other world has no map as text."""
    from elot.domains.source import MissingHook

    g = scene.task.grounded
    row = scene.state(t)
    size = grid_size(g)
    if size is not None:
        width, height = size
        cells: dict = {}
        for a in g.atoms_of(row):
            if a[0] in ("wall", "door") and len(a) == 3:
                cells[int(a[1]), height + 1 - int(a[2])] = ("#", "dim") if a[0] == "wall" else ("D", "yellow")
            elif a[0] == "at" and len(a) == 4:
                gem = g.objects.get(a[1]) == "gem"
                cells[int(a[2]), height + 1 - int(a[3])] = ("g", "magenta") if gem else ("k", "yellow")
        x, y = position(g, row)
        cells[x, height + 1 - y] = ("@", "bold")
        walked = frozenset((px, height + 1 - py) for px, py in (position(g, scene.state(k)) for k in range(t)))
        return TextMap(width, height, cells, walked, (("# wall, D door, k key, g gem, @ the agent", "dim"),))
    atoms = g.atoms_of(row)
    if is_blocks(atoms):
        stacks, held = towers(atoms)
        tall = max([len(s) for s in stacks] + [1]) + 2
        cells = {(i + 1, tall - level): (block, "bold") for i, stack in enumerate(stacks)
                 for level, block in enumerate(stack)}
        if held:
            cells[1, 1] = (held, "yellow")
        return TextMap(max(len(stacks), 1), tall, cells, frozenset(),
                       ((f"the towers, bottom row on the table; held (top left): {held or 'nothing'}", "dim"),))
    raise MissingHook(f"the {scene.domain.name} domain draws no map as text (its world is neither a grid nor blocks)",
                      hint=":goals shows the goal posterior, :worlds the state")


def draw_grid(g: Grounded, row: np.ndarray, title: str | None = None):
    """The map of state ``row`` of a grid task, as a figure."""
    width, height = grid_size(g)
    fig = _figure((width * 0.45 + 0.4, height * 0.45 + 0.4))
    ax = fig.add_subplot()
    grid_into(ax, g, row, size=0.45 * 72 / BASE_CELL_PT)
    held = sorted(a[1] for a in g.atoms_of(row) if a[0] == "has")
    ax.set_title(title or ("holding: " + (", ".join(held) if held else "nothing")), fontsize=8)
    return fig


def draw_blocks(g: Grounded, row: np.ndarray, title: str | None = None):
    """The towers of state ``row`` of a blocks task, as a figure."""
    columns = len([o for o, kind in g.objects.items() if kind == "block"]) or 4
    fig = _figure((max(2.0, columns * 0.8 + 0.8), (columns + 3) * 0.6))
    ax = fig.add_subplot()
    blocks_into(ax, g, row, columns)
    if title:
        ax.set_title(title, fontsize=8)
    return fig
