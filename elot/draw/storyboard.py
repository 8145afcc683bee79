"""The paper's Figure-4 layout (a storyboard) and the statement-design chart.

:func:`storyboard_figure` draws a row of map frames at the judgment points (each with the
trail walked since the previous point, and the inventory), below them one line per
statement over the judgment points (the first model solid, the others dashed; human
means ± standard errors as points with error bars beside the model's), and the statements'
full text below the plot, labelled S1…Sn, wrapped to the figure's width and never cut.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from elot.draw import palette
from elot.draw.board import Board

#: Statement colours (Okabe–Ito, then greys): curves are told apart by colour, marker
#: and their S-number at the line's end.
STATEMENT_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#8C6D31",
                     "#666666", "#7B3294")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
#: Line styles of the second, third, ... model (the first is solid).
DASHES = ((0, (5, 2)), (0, (2, 2)), (0, (6, 2, 1, 2)), (0, (1, 1)))


@dataclass
class StoryStatement:
    """One statement of a storyboard: its text and mode, the model's L at each judgment
    point per model (None where not scored), the human (mean, s.e.) per point (None where
    not rated), and a note when it could not be scored."""

    text: str
    mode: str = "current"
    model: dict[str, list[float | None]] = field(default_factory=dict)
    human: list[tuple[float, float] | None] | None = None
    note: str = ""
    formula: str | None = None
    error: object = None


def storyboard_figure(states: Sequence, points: Sequence[int], statements: Sequence[StoryStatement],
                      models: Sequence[str], *, title: str) -> Figure:
    """The storyboard of a scenario's true states ``s_0..s_T`` at judgment points
    ``points`` (steps t). ``models`` orders the models of each statement's ``model``
    (the first is drawn solid)."""
    layout = states[0].layout
    n = max(1, len(points))
    width = max(9.0, 2.4 * n + 1.5)
    panel_w = (width - 1.0) / n
    map_h = panel_w * (layout.height + 1.4) / layout.width
    labels = [f"S{i}" for i in range(1, len(statements) + 1)]
    chars = int(width * 72 / (8.5 * 0.55))     # characters per line of 8.5-pt text
    blocks = []
    for label, st in zip(labels, statements):
        text = f"{label} [{st.mode}] {st.text}" + (f"  ({st.note})" if st.note else "")
        blocks.append(textwrap.fill(text, chars, subsequent_indent="      ", break_long_words=True,
                                    break_on_hyphens=False))
    text_lines = sum(b.count("\n") + 1 for b in blocks) + 1
    text_h = 0.17 * text_lines + 0.2
    curve_h = 3.0
    fig = Figure(figsize=(width, 0.6 + map_h + curve_h + text_h), constrained_layout=True)
    fig.suptitle(title, fontsize=11, x=0.01, ha="left")
    grid = fig.add_gridspec(4, n, height_ratios=[map_h * layout.height / (layout.height + 1.4),
                                                  map_h * 1.4 / (layout.height + 1.4), curve_h, text_h])
    previous = 0
    for j, t in enumerate(points):
        ax = fig.add_subplot(grid[0, j])
        inventory = fig.add_subplot(grid[1, j])
        board = Board(ax, layout, inventory_ax=inventory, trail=max(t - previous, 0))
        board.draw_static()
        board.draw_state(states, t)
        inventory.set_title("")
        ax.set_title(f"Judgment point {j + 1} (t = {t})", fontsize=9)
        previous = t
    ax = fig.add_subplot(grid[2, :])
    xs = list(range(1, len(points) + 1))
    offset = 0.06 if any(st.human for st in statements) else 0.0
    ends: dict[float, list[int]] = {}     # statements whose solid line ends at one value share a label
    for i, st in enumerate(statements):
        colour = STATEMENT_COLOURS[i % len(STATEMENT_COLOURS)]
        marker = MARKERS[i % len(MARKERS)]
        for m, model in enumerate(models):
            values = st.model.get(model)
            if not values:
                continue
            pairs = [(x, v) for x, v in zip(xs, values) if v is not None]
            ax.plot([p[0] - offset for p in pairs], [p[1] for p in pairs], color=colour, marker=marker,
                    markersize=5 if m == 0 else 3.5, linewidth=1.8 if m == 0 else 1.1,
                    linestyle="-" if m == 0 else DASHES[(m - 1) % len(DASHES)], alpha=1.0 if m == 0 else 0.75,
                    gid=f"model:{model}")
            if m == 0 and pairs:
                ends.setdefault(round(pairs[-1][1], 2), []).append(i)
        if st.human:
            rated = [(x, h) for x, h in zip(xs, st.human) if h is not None]
            if rated:
                ax.errorbar([x + offset for x, _ in rated], [h[0] for _, h in rated], yerr=[h[1] for _, h in rated],
                            color=colour, marker=marker, markerfacecolor="white", markersize=5, linestyle="none",
                            capsize=2.5, elinewidth=1.0, gid="human")
    placed = -1.0
    for value, which in sorted(ends.items()):
        placed = max(value, placed + 0.055)    # labels of nearby ends are moved apart, never on top
        ax.annotate(", ".join(labels[i] for i in which), (len(points) - offset, value),
                    xytext=(len(points) + 0.2, placed), textcoords="data", fontsize=8, va="center",
                    fontweight="bold", annotation_clip=False,
                    color=STATEMENT_COLOURS[which[0] % len(STATEMENT_COLOURS)] if len(which) == 1 else "0.2",
                    arrowprops=dict(arrowstyle="-", color="0.6", linewidth=0.5, shrinkA=0, shrinkB=3))
    ax.set_xticks(xs, [f"{x}\n(t = {t})" for x, t in zip(xs, points)], fontsize=8)
    ax.set_xlim(0.6, len(points) + 0.75)
    ax.set_ylim(-0.04, 1.04)
    ax.set_ylabel("normalized likelihood L\n(human: mean rating ± s.e.)" if offset else "normalized likelihood L",
                  fontsize=9)
    ax.set_xlabel("judgment point", fontsize=9)
    ax.grid(alpha=0.25)
    handles = [Line2D([], [], color="0.2", linewidth=1.8, marker="o", markersize=4, label=f"model: {models[0]}")]
    handles += [Line2D([], [], color="0.2", linewidth=1.1, linestyle=DASHES[(m - 1) % len(DASHES)],
                       label=f"model: {model}") for m, model in enumerate(models) if m > 0]
    if offset:
        handles.append(Line2D([], [], color="0.2", marker="o", markerfacecolor="white", linestyle="none",
                              label="humans: mean ± s.e."))
    ax.legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    text = fig.add_subplot(grid[3, :])
    text.axis("off")
    y = 1.0
    for i, block in enumerate(blocks):
        text.text(0.0, y, block, transform=text.transAxes, fontsize=8.5, va="top", ha="left",
                  color=STATEMENT_COLOURS[i % len(STATEMENT_COLOURS)])
        y -= (block.count("\n") + 1) / text_lines
    return fig


def save_figure(fig: Figure, path, *, force: bool = False, option: str = "-o", inputs=()) -> str:
    """Write ``fig`` as PNG, SVG or PDF (by the name's suffix) through
    :func:`elot.output.write_output`, marked as elot's so that it may be replaced later
    (PNG and SVG carry the mark inside; a PDF's metadata sits at its end, beyond what a
    recognizer reads, so a PDF gets the sidecar mark)."""
    from elot.output import write_output

    suffix = _figure_suffix(path)
    metadata = {"Software": "elot"} if suffix == "png" else {"Creator": "elot"}
    if suffix == "svg":
        metadata["Date"] = None
    return write_output(path, lambda stream: fig.savefig(stream, format=suffix, dpi=130, metadata=metadata),
                        ours=_recognizer(suffix), force=force, option=option, inputs=inputs)


def figure_by_elot(head: bytes) -> bool:
    """A PNG or SVG that :func:`save_figure` wrote, from its first bytes."""
    if head.startswith(b"\x89PNG"):
        return b"tEXtSoftware\x00elot" in head
    return b"<svg" in head and b"<dc:creator>" in head and b"<dc:title>elot</dc:title>" in head


def _recognizer(suffix: str):
    return None if suffix == "pdf" else figure_by_elot


def _figure_suffix(path) -> str:
    from pathlib import Path

    from elot.errors import ElotError

    suffix = Path(str(path)).suffix.lower().lstrip(".")
    if suffix not in ("png", "svg", "pdf"):
        raise ElotError(f"cannot write a figure as {Path(str(path)).name!r}", hint="name it *.png, *.svg or *.pdf")
    return suffix


def check_figure_target(path, *, force: bool = False, option: str = "-o", inputs=()):
    """The checks of :func:`save_figure` before anything is computed."""
    from elot.output import check_target

    return check_target(path, ours=_recognizer(_figure_suffix(path)), force=force, option=option, inputs=inputs)


def design_figure(rows: Sequence[Mapping], *, title: str) -> Figure:
    """The statement-design chart: one row per candidate (most informative at the top),
    the range of its L over the judgment points as a bar from min to max with a dot per
    point, and each ablation's largest disagreement with the full model beside it;
    useless candidates (constant, ill-typed) greyed with the reason."""
    n = max(1, len(rows))
    several = len({r["scenario"] for r in rows}) > 1
    labels = [textwrap.fill(f"{r['rank']}. [{r['scenario'] + ', ' if several else ''}{r['mode'][:3]}] "
                            f"{r['statement']}", 70) for r in rows]
    height = 1.2 + sum(0.2 * (label.count("\n") + 1) + 0.12 for label in labels)
    fig = Figure(figsize=(12, max(3.0, height)), constrained_layout=True)
    fig.suptitle(title, fontsize=11, x=0.01, ha="left")
    ax, dis = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [3, 1.2]})
    ablations = sorted({k[len("disagree_"):] for r in rows for k in r if k.startswith("disagree_")})
    for y, row in enumerate(rows):
        values = [v for v in row.get("values", []) if v is not None]
        useless = row.get("flag", "")
        colour = "0.65" if useless else palette.COLOURS["blue"]
        if values:
            ax.plot([min(values), max(values)], [y, y], color=colour, linewidth=5, alpha=0.5, solid_capstyle="round")
            ax.scatter(values, [y] * len(values), color=colour, s=14, zorder=3)
        if useless:
            ax.text(1.02, y, useless, va="center", fontsize=7, color="0.35", transform=ax.get_yaxis_transform())
        for a, name in enumerate(ablations):
            value = row.get(f"disagree_{name}")
            if value not in (None, ""):
                dis.barh(y + (a - (len(ablations) - 1) / 2) * 0.3, float(value), height=0.28,
                         color=STATEMENT_COLOURS[a + 1], label=name if y == 0 else None)
    ax.set_yticks(range(n), labels or [""], fontsize=7.5)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel("L at the judgment points (bar: range)")
    ax.grid(axis="x", alpha=0.25)
    dis.set_xlim(0, 1)
    dis.set_xlabel("largest |L(full) − L(ablation)|")
    dis.grid(axis="x", alpha=0.25)
    if ablations:
        dis.legend(fontsize=7.5, loc="lower right", frameon=False)
    return fig
