"""Figures with matplotlib (bare ``Figure`` objects, never pyplot, so no backend is chosen
and no display is needed): statement scores and the goal posterior over time, and the map
of a scenario.

The functions take plain data (score series, posteriors, world states) and return a
:class:`matplotlib.figure.Figure`; :func:`save` writes a PNG with elot's metadata (what
was drawn, how many curves) embedded as PNG text chunks, so a test or a script can check
a figure without looking at pixels.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Circle, Polygon, Rectangle

from elot.errors import ElotError
from elot.output import check_target, elot_png, write_output

#: matplotlib colours for the colours scenarios use.
COLOURS = {"red": "#d62728", "blue": "#1f77b4", "yellow": "#e6b800", "green": "#2ca02c",
           "orange": "#ff7f0e", "purple": "#9467bd", "pink": "#e377c2", "white": "#dddddd"}


def _colour(name: str | None) -> str:
    return COLOURS.get(name or "", name or "#7f7f7f")


def statements_figure(
    title: str,
    statements: Sequence[tuple[str, Sequence[float]]],
    goals: Mapping[str, Sequence[float]],
    judgments: Sequence[int] = (),
    *,
    true_goal: str | None = None,
) -> Figure:
    """Two panels over t = 0..T: each statement's score (normalized likelihood) and the
    goal posterior, judgment points marked by dotted vertical lines and dots on the
    statement curves. ``statements`` holds (label, values at t = 0..T)."""
    fig = Figure(figsize=(9, 6.5), constrained_layout=True)
    top, bottom = fig.subplots(2, 1, sharex=True)
    horizon = max([len(v) for _, v in statements] + [len(v) for v in goals.values()] + [1]) - 1
    for label, values in statements:
        ts = range(len(values))
        (line,) = top.plot(ts, values, label=_short(label), linewidth=1.8, gid="statement")
        marked = [t for t in judgments if 0 <= t < len(values)]
        top.scatter(marked, [values[t] for t in marked], color=line.get_color(), zorder=3, s=22)
    top.set_ylim(-0.03, 1.03)
    top.set_ylabel("normalized likelihood")
    top.set_title(title, loc="left", fontsize=11)
    for name, values in goals.items():
        style = dict(linewidth=2.6) if name == true_goal else dict(linewidth=1.4)
        bottom.plot(range(len(values)), values, label=name + (" (true)" if name == true_goal else ""),
                    gid="goal", **style)
    bottom.set_ylim(-0.03, 1.03)
    bottom.set_ylabel("goal posterior")
    bottom.set_xlabel("step t")
    bottom.set_xlim(0, max(horizon, 1))
    for ax in (top, bottom):
        for t in judgments:
            ax.axvline(t, color="0.6", linestyle=":", linewidth=1)
        ax.grid(alpha=0.25)
    if statements:
        top.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    bottom.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig


def _short(label: str, width: int = 60) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"


def curves(fig: Figure, gid: str | None = None) -> list[Line2D]:
    """The data curves of a figure (optionally only those with the given ``gid``:
    ``statement`` or ``goal``), without axis decorations such as judgment lines."""
    out = []
    for ax in fig.axes:
        out += [line for line in ax.get_lines() if line.get_gid() in ((gid,) if gid else ("statement", "goal"))]
    return out


def map_figure(states: Sequence, t: int | None = None, *, title: str | None = None) -> Figure:
    """The map at step ``t`` (default the last) of the true states ``s_0..s_T``: walls,
    doors (hatched while locked), boxes (open or closed), visible keys, gems, the agent
    and the path walked so far."""
    if not states:
        raise ElotError("no states to draw")
    t = len(states) - 1 if t is None else t
    state = states[t]
    layout = state.layout
    fig = Figure(figsize=(0.6 * layout.width + 1.2, 0.6 * layout.height + 1.0), constrained_layout=True)
    ax = fig.subplots()
    ax.set_xlim(0.5, layout.width + 0.5)
    ax.set_ylim(layout.height + 0.5, 0.5)
    ax.set_aspect("equal")
    ax.set_xticks(range(1, layout.width + 1))
    ax.set_yticks(range(1, layout.height + 1))
    ax.tick_params(labelsize=7, length=0)
    ax.set_facecolor("#f7f7f2")

    def cell(pos, **kw):
        ax.add_patch(Rectangle((pos[0] - 0.5, pos[1] - 0.5), 1, 1, **kw))

    for pos in layout.walls:
        cell(pos, color="#404040")
    for door, pos, colour in layout.doors:
        locked = door in state.locked
        cell(pos, facecolor=_colour(colour), alpha=1.0 if locked else 0.25,
             hatch="xx" if locked else None, edgecolor="black", linewidth=0.8)
    for box, pos in layout.boxes:
        closed = box in state.closed
        ax.add_patch(Rectangle((pos[0] - 0.35, pos[1] - 0.3), 0.7, 0.6,
                               facecolor="#a0522d" if closed else "none", edgecolor="#5c2e0e", linewidth=1.5))
        ax.text(pos[0], pos[1] + 0.42, box, ha="center", va="center", fontsize=6)
    for key, ks in state.keys:
        if ks.where[0] == "cell" or (ks.where[0] == "box" and ks.where[1] not in state.closed):
            pos = state.item_pos(key)
            ax.add_patch(Polygon([(pos[0] - 0.2, pos[1] + 0.15), (pos[0] + 0.2, pos[1] + 0.15),
                                  (pos[0], pos[1] - 0.2)], color=_colour(ks.colour), zorder=3))
    for gem, pos in layout.gems:
        if gem not in state.held_gems and layout.in_bounds(pos):
            ax.add_patch(Polygon([(pos[0], pos[1] - 0.3), (pos[0] + 0.25, pos[1]), (pos[0], pos[1] + 0.3),
                                  (pos[0] - 0.25, pos[1])], color="#c71585", zorder=3))
            ax.text(pos[0], pos[1] + 0.42, gem, ha="center", va="center", fontsize=6)
    xs = [s.agent_pos[0] for s in states[: t + 1]]
    ys = [s.agent_pos[1] for s in states[: t + 1]]
    ax.plot(xs, ys, color="#17becf", linewidth=2, alpha=0.8, gid="path", zorder=2)
    ax.add_patch(Circle(state.agent_pos, 0.28, color="black", zorder=4))
    ax.set_title(title or f"t = {t}", loc="left", fontsize=10)
    return fig


def save(fig: Figure, path: str | Path, metadata: Mapping[str, object] | None = None, *, dpi: int = 110,
         force: bool = False) -> Path:
    """Write ``fig`` as a PNG with ``metadata`` as text chunks (keys prefixed ``elot:``),
    through :func:`elot.output.write_output`: atomically, into an existing directory, and
    over an existing file only if it is a PNG elot wrote (or ``force``)."""
    target = check_png_target(path, force=force)
    meta = {"Software": "elot"}
    meta.update({f"elot:{k}": str(v) for k, v in (metadata or {}).items()})
    write_output(target, lambda stream: fig.savefig(stream, format="png", dpi=dpi, metadata=meta),
                 ours=elot_png, force=force, option="-o")
    return target


def check_png_target(path: str | Path, *, force: bool = False) -> Path:
    """The checks :func:`save` makes before drawing: a ``.png`` name in an existing
    directory, not over a file elot did not write (unless ``force``)."""
    target = Path(path)
    if target.suffix.lower() != ".png":
        raise ElotError(f"can only write PNG files, not {target.name!r}", hint="name the output file *.png")
    return check_target(target, ours=elot_png, force=force, option="-o")
