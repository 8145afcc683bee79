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

from elot.draw.palette import statement_colour
from elot.errors import ElotError
from elot.output import check_target, elot_png, write_output

#: Line styles and markers that keep curves apart when their values coincide (colour is
#: not enough: curves drawn on top of one another hide each other). ":" is left to the
#: judgment lines.
LINESTYLES = ("-", "--", "-.", (0, (6, 2, 1, 2, 1, 2)), (0, (3, 1)), (0, (8, 3)))
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "<", ">")


def statements_figure(
    title: str,
    statements: Sequence[tuple[str, Sequence[float]]],
    goals: Mapping[str, Sequence[float]],
    judgments: Sequence[int] = (),
    *,
    true_goal: str | None = None,
) -> Figure:
    """Two panels over t = 0..T: each statement's score (normalized likelihood) and the
    goal posterior, judgment points marked by dotted vertical lines and large dots on
    the statement curves. ``statements`` holds (label, values at t = 0..T).

    Each curve has its own line style and marker (placed at different steps for each
    curve, so curves with the same values stay visible), and its number; the legend
    gives each label in full, wrapped, with that number."""
    labels = [_wrap(f"{n}. {label}") for n, (label, _) in enumerate(statements, 1)]
    legend_lines = sum(label.count("\n") + 1 for label in labels)
    height = max(6.5, 3.4 + 0.16 * legend_lines)
    fig = Figure(figsize=(11, height), constrained_layout=True)
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [max(1.0, height / 6.5 * 1.2), 1]})
    horizon = max([len(v) for _, v in statements] + [len(v) for v in goals.values()] + [1]) - 1
    every = max(1, horizon // 6)
    for n, ((_, values), label) in enumerate(zip(statements, labels), 1):
        ts = range(len(values))
        (line,) = top.plot(ts, values, label=label, linewidth=1.6, gid="statement", color=statement_colour(n - 1),
                           linestyle=LINESTYLES[(n - 1) % len(LINESTYLES)], marker=MARKERS[(n - 1) % len(MARKERS)],
                           markersize=5, markevery=((n - 1) % every, every), alpha=0.9)
        marked = [t for t in judgments if 0 <= t < len(values)]
        top.scatter(marked, [values[t] for t in marked], color=line.get_color(), zorder=3, s=30,
                    edgecolors="white", linewidths=0.6)
    # each curve's number at its end; curves ending together share one label ("7, 8, 9")
    ends: dict[float, list[str]] = {}
    for n, (_, values) in enumerate(statements, 1):
        if len(values):
            ends.setdefault(round(float(values[-1]), 2), []).append(str(n))
    for value, numbers in ends.items():
        top.annotate(", ".join(numbers), (horizon, value), xytext=(4, 0), textcoords="offset points",
                     fontsize=7, va="center", color="0.25", annotation_clip=False)
    top.set_ylim(-0.03, 1.03)
    top.set_ylabel("normalized likelihood")
    top.set_title(title, loc="left", fontsize=11)
    for n, (name, values) in enumerate(goals.items()):
        style = dict(linewidth=2.8) if name == true_goal else dict(linewidth=1.5)
        bottom.plot(range(len(values)), values, label=name + (" (true goal)" if name == true_goal else ""),
                    gid="goal", linestyle=LINESTYLES[n % len(LINESTYLES)], marker=MARKERS[n % len(MARKERS)],
                    markersize=4, markevery=(n % every, every), **style)
    bottom.set_ylim(-0.03, 1.03)
    bottom.set_ylabel("goal posterior")
    bottom.set_xlabel("step t (dotted lines: judgment points)")
    bottom.set_xlim(0, max(horizon, 1))
    for ax in (top, bottom):
        for t in judgments:
            ax.axvline(t, color="0.6", linestyle=":", linewidth=1)
        ax.grid(alpha=0.25)
    if statements:
        top.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.07, 1.0), frameon=False,
                   handlelength=3.2, title="statements ([cur]rent / [ini]tial belief)", title_fontsize=7.5,
                   alignment="left")
    bottom.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.07, 1.0), frameon=False, handlelength=3.2)
    return fig


def judgment_curves_figure(title: str, points: Sequence[int],
                           statements: Sequence[tuple[str, str, Sequence[float | None]]]) -> Figure:
    """Each statement's L at the judgment points ``points`` (steps t): one marker per
    point on a categorical axis of the points (thin lines join a statement's markers;
    nothing is drawn between points, where nothing was judged). ``statements`` holds
    (text, mode, L at each point, None where not scored); statement n has the n-th
    statement colour and marker, as in storyboards, and coincident values stay visible
    (each statement sits at its own small offset). The legend gives each in full."""
    labels = [_wrap(f"S{n} [{mode[:3]}] {text}", 70) for n, (text, mode, _) in enumerate(statements, 1)]
    lines = sum(label.count("\n") + 1 for label in labels)
    fig = Figure(figsize=(11, max(3.5, 0.9 + 0.15 * lines)), constrained_layout=True)
    ax = fig.subplots()
    xs = list(range(1, len(points) + 1))
    spread = min(0.3, 0.04 * max(len(statements) - 1, 0))
    for n, ((_, _, values), label) in enumerate(zip(statements, labels)):
        dx = (n / (len(statements) - 1) - 0.5) * spread if len(statements) > 1 else 0.0
        pairs = [(x + dx, v) for x, v in zip(xs, values) if v is not None]
        ax.plot([p[0] for p in pairs], [p[1] for p in pairs], color=statement_colour(n), linewidth=0.9,
                marker=MARKERS[n % len(MARKERS)], markersize=6, label=label, clip_on=False, gid="statement")
    for x in xs[1:]:
        ax.axvline(x - 0.5, color="0.85", linewidth=0.6, zorder=0)
    ax.set_xticks(xs, [f"{x}\n(t = {t})" for x, t in zip(xs, points)], fontsize=8)
    ax.set_xlim(0.5, len(xs) + 0.5)
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("judgment point")
    ax.set_ylabel("normalized likelihood L")
    ax.grid(axis="y", alpha=0.25)
    ax.set_title(title, fontsize=9, loc="left")
    if statements:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig


def _wrap(label: str, width: int = 58) -> str:
    """A legend label wrapped at ``width``, whole (the figure grows to hold it: statements
    often differ only at their end, in the object, the box or the colour)."""
    import textwrap

    return "\n".join(textwrap.wrap(label, width, break_long_words=True, subsequent_indent="   "))


def curves(fig: Figure, gid: str | None = None) -> list[Line2D]:
    """The data curves of a figure (optionally only those with the given ``gid``:
    ``statement`` or ``goal``), without axis decorations such as judgment lines."""
    out = []
    for ax in fig.axes:
        out += [line for line in ax.get_lines() if line.get_gid() in ((gid,) if gid else ("statement", "goal"))]
    return out


#: The height of a map cell in ``elot map``'s figure, in inches.
MAP_CELL = 0.55


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
    from elot.draw.board import Board, colour_letters

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


def save(fig: Figure, path: str | Path, metadata: Mapping[str, object] | None = None, *, dpi: int = 110,
         force: bool = False) -> Path:
    """Write ``fig`` as a PNG with ``metadata`` as text chunks (keys prefixed ``elot:``),
    through :func:`elot.output.write_output`: atomically (creating missing folders), and
    over an existing file only if it is a PNG elot wrote (or ``force``)."""
    target = check_png_target(path, force=force)
    meta = {"Software": "elot"}
    meta.update({f"elot:{k}": str(v) for k, v in (metadata or {}).items()})
    write_output(target, lambda stream: fig.savefig(stream, format="png", dpi=dpi, metadata=meta),
                 ours=elot_png, force=force, option="-o")
    return target


def check_png_target(path: str | Path, *, force: bool = False) -> Path:
    """The checks :func:`save` makes before drawing: a ``.png`` name, not over a file elot
    did not write (unless ``force``)."""
    target = Path(path)
    if target.suffix.lower() != ".png":
        raise ElotError(f"can only write PNG files, not {target.name!r}", hint="name the output file *.png")
    return check_target(target, ours=elot_png, force=force, option="-o")
