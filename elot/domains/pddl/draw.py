"""Pictures of grounded PDDL states, as matplotlib figures (pure functions: a state in, a
figure out), for the stimuli and storyboard commands to take up through the front protocol.

* :func:`draw_grid` — a grid world in PDDL.jl's Doors-Keys-Gems dialect: walls and doors from
  ``(wall x y)``/``(door x y)``, items from ``(at item x y)``, the agent at ``xpos, ypos``;
  **y counts from the bottom**, as in the domain (``up`` is y + 1).
* :func:`draw_blocks` — a Block-Words state: the towers from ``on``/``ontable``, the held block above.
"""

from __future__ import annotations

import numpy as np

from elot.domains.pddl.ground import Grounded


def _figure(size):
    from matplotlib.figure import Figure

    return Figure(figsize=size)


def draw_grid(g: Grounded, row: np.ndarray, title: str | None = None):
    """The map of state ``row`` of a grid-world task (fluents ``width``, ``height``, ``xpos``, ``ypos``)."""
    atoms = g.atoms_of(row)
    _, values = g.decode(row)
    fluents = {**{k[0]: v for k, v in g.static_fluents.items() if not k[1]}, **{k[0]: v for k, v in values.items()}}
    width, height = fluents["width"], fluents["height"]
    fig = _figure((width * 0.45 + 0.4, height * 0.45 + 0.4))
    ax = fig.add_subplot()
    for a in sorted(atoms):
        if a[0] in ("wall", "door") and len(a) == 3:
            x, y = int(a[1]), int(a[2])
            ax.add_patch(_rect(x, y, "#444444" if a[0] == "wall" else "#b5651d"))
        elif a[0] == "at" and len(a) == 4:
            x, y = int(a[2]), int(a[3])
            kind = g.objects.get(a[1], "")
            ax.plot(x, y, marker="D" if kind == "gem" else "o", markersize=9,
                    color="#2a9df4" if kind == "gem" else "#e0b000", zorder=3)
            ax.annotate(a[1], (x, y), fontsize=6, ha="center", va="top", xytext=(0, -7), textcoords="offset points")
    ax.plot(fluents["xpos"], fluents["ypos"], marker="^", markersize=11, color="#d62728", zorder=4)
    held = sorted(a[1] for a in atoms if a[0] == "has")
    ax.set_xlim(0.5, width + 0.5)
    ax.set_ylim(0.5, height + 0.5)
    ax.set_aspect("equal")
    ax.set_xticks(range(1, width + 1))
    ax.set_yticks(range(1, height + 1))
    ax.grid(True, linewidth=0.3)
    ax.set_title(title or ("holding: " + (", ".join(held) if held else "nothing")), fontsize=8)
    return fig


def _rect(x, y, color):
    from matplotlib.patches import Rectangle

    return Rectangle((x - 0.5, y - 0.5), 1, 1, color=color, zorder=2)


def towers(atoms) -> tuple[list[list[str]], str | None]:
    """The towers of a blocks state, bottom first (sorted by their bottom block), and the held block."""
    on = {a[1]: a[2] for a in atoms if a[0] == "on"}
    below_of = {v: k for k, v in on.items()}
    stacks = []
    for base in sorted(a[1] for a in atoms if a[0] == "ontable"):
        stack = [base]
        while stack[-1] in below_of:
            stack.append(below_of[stack[-1]])
        stacks.append(stack)
    held = next((a[1] for a in atoms if a[0] == "holding"), None)
    return stacks, held


def draw_blocks(g: Grounded, row: np.ndarray, title: str | None = None):
    """The towers of state ``row`` of a blocks task, the held block drawn above them."""
    stacks, held = towers(g.atoms_of(row))
    tallest = max([len(s) for s in stacks] + [1])
    fig = _figure((max(2.0, len(stacks) * 0.8 + 0.8), (tallest + 2) * 0.6))
    ax = fig.add_subplot()
    for i, stack in enumerate(stacks):
        for level, block in enumerate(stack):
            ax.add_patch(_block(i, level))
            ax.text(i, level + 0.45, block, ha="center", va="center", fontsize=12)
    if held:
        ax.add_patch(_block((len(stacks) - 1) / 2, tallest + 0.6, "#fdd49e"))
        ax.text((len(stacks) - 1) / 2, tallest + 1.05, held, ha="center", va="center", fontsize=12)
    ax.set_xlim(-0.7, max(len(stacks), 1) - 0.3)
    ax.set_ylim(0, tallest + 1.8)
    ax.axhline(0, color="black")
    ax.set_axis_off()
    if title:
        ax.set_title(title, fontsize=8)
    return fig


def _block(x, y, color="#c6dbef"):
    from matplotlib.patches import Rectangle

    return Rectangle((x - 0.4, y), 0.8, 0.9, facecolor=color, edgecolor="black")
