"""The paper's Figure-4 layout (a storyboard) and the statement-design chart.

:func:`storyboard_figure` draws, as the paper's Figure 4 does, map frames at the
judgment points (at most :data:`MAP_COLUMNS` a row) (each with the trail walked since the previous point, every judgment
point reached so far numbered where the agent stood, and the keys already picked up drawn
pale where they lay), and under them one small panel per statement: at each judgment
point the human mean ± s.e. and each model's L side by side, at their own x offsets (so
no error bar hides another), the statement's text as the panel's title. Series read from
a study table (a language model's ratings, say) are drawn beside them in a style of their
own (filled stars, crosses, … on a dotted line), a point without a value left out. A statement has
one colour in every figure (:func:`elot.draw.palette.statement_colour`).
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from elot.draw import palette

#: Markers of the series in a statement panel: humans, then the models in order.
HUMAN_MARKER = "o"
MODEL_MARKERS = ("s", "^", "D", "v", "P")
#: Line styles of the first, second, ... model (thin lines joining its points).
DASHES = ("-", (0, (4, 2)), (0, (1.5, 1.5)), (0, (6, 2, 1, 2)), (0, (1, 1)))
#: Markers of the series read from a table (language models...), and their line.
TABLE_MARKERS = ("*", "X", "h", "p", "8")
TABLE_DASHES = (0, (1, 1.2))
#: The widest spread of a judgment point's series (x units: points are 1 apart).
SPREAD = 0.56
#: Statement panels per row, at most.
COLUMNS = 5
#: Map frames per row, at most (the paper's Figure 4 has four or five): more judgment
#: points wrap onto more rows rather than shrink every frame.
MAP_COLUMNS = 5
#: The width of a storyboard, in inches.
WIDTH = 12.0


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


def series_offsets(count: int) -> list[float]:
    """The x offsets of ``count`` series at a judgment point: evenly spread over at most
    :data:`SPREAD`, centred on the point."""
    if count <= 1:
        return [0.0] * count
    step = min(SPREAD / (count - 1), 0.2)
    return [(i - (count - 1) / 2) * step for i in range(count)]


def map_grid(count: int) -> tuple[int, int]:
    """(rows, columns) of the map frames of ``count`` judgment points: at most
    :data:`MAP_COLUMNS` a row, the rows as even as can be (13 points: 5, 5, 3)."""
    rows = max(1, math.ceil(count / MAP_COLUMNS))
    return rows, max(1, math.ceil(count / rows))


def _fit_line(text: str, size: float, width_pt: float, smallest: float) -> float:
    """The font size, at most ``size`` and at least ``smallest``, at which ``text`` fits
    ``width_pt`` points (by a wide estimate of its characters: 0.62 em each)."""
    return max(smallest, min(size, width_pt / (0.62 * max(len(text), 1))))


def rating_limits(statements: Sequence[StoryStatement]) -> tuple[float, float]:
    """The y range of the statement panels: −0.05..1.05, widened to hold every error bar."""
    low, high = -0.05, 1.05
    for st in statements:
        for h in st.human or ():
            if h is not None:
                low, high = min(low, h[0] - h[1] - 0.05), max(high, h[0] + h[1] + 0.05)
    return low, high


def storyboard_figure(maps, points: Sequence[int], statements: Sequence[StoryStatement],
                      models: Sequence[str], *, title: str, model_labels: Mapping[str, str] | None = None,
                      tables: Sequence[str] = ()) -> Figure:
    """The storyboard of a scenario, drawn by its domain's :class:`~elot.draw.frames.Frames`
    (``maps``), at judgment points ``points`` (steps t). ``models`` orders the models of each statement's ``model``;
    ``model_labels`` names them in the legend (default: their names). The series named in
    ``tables`` (also keys of a statement's ``model``, after ``models``) are drawn in the
    table style (:data:`TABLE_MARKERS`)."""
    n = max(1, len(points))
    humans = any(st.human for st in statements)
    width = WIDTH
    # the maps: at most MAP_COLUMNS a row, each at most 3.3 inches wide and high
    map_rows, map_columns = map_grid(n)
    slot = (width - 0.4) / map_columns          # inches a frame's slot takes, with its title
    panel_w = min(slot - 0.1, 3.3, 3.3 * maps.width / max(maps.height, 1))
    holds = [textwrap.fill(text, int(slot * 72 / (7.5 * 0.62))) if text else "" for text in maps.captions(points)]
    holds_h = 0.14 * max([h.count("\n") + 1 for h in holds if h] or [0])
    map_h = panel_w * maps.height / max(maps.width, 1) + 0.3 + holds_h
    heading = textwrap.fill(title, int(width * 72 / (11 * 0.62)), break_on_hyphens=True)
    heading_h = 0.2 * (heading.count("\n") + 1)
    # the statements: current ones first, then initial ones, each group starting a row
    groups = [[i for i, st in enumerate(statements) if st.mode == mode]
              for mode in dict.fromkeys(st.mode for st in statements)]
    columns = max(1, min(COLUMNS, max((len(g) for g in groups), default=1)))
    rows = [g[c:c + columns] for g in groups for c in range(0, len(g), columns)]
    chars = int((width / columns) * 72 / (7.5 * 0.55))      # characters per title line of 7.5-pt text
    titles = [textwrap.fill(f"S{i + 1} ({st.mode}) {st.text}", chars, break_long_words=True,
                            break_on_hyphens=False) for i, st in enumerate(statements)]
    row_heights = [1.75 + 0.14 * max(titles[i].count("\n") + 1 for i in row) for row in rows] or [1.0]
    models = [m for m in models if m not in tables]
    labels = dict(model_labels or {})
    handles = []
    if humans:
        handles.append(Line2D([], [], color="0.35", marker=HUMAN_MARKER, markerfacecolor="white", linestyle="none",
                              markersize=5.5, label="humans: mean ± s.e."))
    for m, model in enumerate(models):
        handles.append(Line2D([], [], color="0.35", marker=MODEL_MARKERS[m % len(MODEL_MARKERS)], markersize=5,
                              linewidth=1.0, linestyle=DASHES[m % len(DASHES)],
                              label=f"model L: {labels.get(model, model)}"))
    for m, name in enumerate(tables):
        handles.append(Line2D([], [], color="0.35", linewidth=0.9, **_table_style(m),
                              label=f"table: {labels.get(name, name)}"))
    # the legend: as many entries a row as fit the width (a table's name may be long)
    widest = max([len(h.get_label()) for h in handles] or [1])
    ncols = max(1, min(len(handles), int(width * 72 / (0.62 * 8 * widest + 40))))
    legend_h = 0.35 + 0.17 * (max(1, math.ceil(len(handles) / ncols)) - 1)
    fig = Figure(figsize=(width, 0.3 + heading_h + map_rows * map_h + legend_h + sum(row_heights)),
                 constrained_layout=True)
    fig.suptitle(heading, fontsize=11, x=0.01, ha="left")
    top, bottom = fig.subfigures(2, 1, height_ratios=[map_rows * map_h, legend_h + sum(row_heights)])
    frames = top.subplots(map_rows, map_columns, squeeze=False).ravel()
    for ax in frames[len(points):]:           # the last row's empty slots
        ax.remove()
    for j, (ax, t) in enumerate(zip(frames, points)):
        maps.draw(ax, points, j)
        name = f"Judgment point {j + 1} (t = {t})"    # within its slot, never into the next one's
        ax.set_title(name, fontsize=_fit_line(name, 9, (slot - 0.15) * 72, 5))
        if holds[j]:
            ax.set_xlabel(holds[j], fontsize=7.5, color="0.25", labelpad=2)
    maps.close()
    low, high = rating_limits(statements)
    grid = bottom.add_gridspec(len(rows) + 1, columns, height_ratios=[legend_h, *row_heights])
    xs = list(range(1, len(points) + 1))
    series = (["humans"] if humans else []) + list(models) + list(tables)
    offsets = dict(zip(series, series_offsets(len(series))))
    for r, row in enumerate(rows):
        for c, i in enumerate(row):
            ax = bottom.add_subplot(grid[r + 1, c])
            _statement_panel(ax, statements[i], i, titles[i], xs, points, models, offsets, (low, high), tables)
            if c == 0:
                ax.set_ylabel("rating / L" if humans else "L", fontsize=8)
            else:
                ax.tick_params(labelleft=False)
            if r == len(rows) - 1 or (r + 1 < len(rows) and c >= len(rows[r + 1])):
                ax.set_xlabel("judgment point", fontsize=8)
    legend = bottom.add_subplot(grid[0, :])
    legend.axis("off")
    legend.legend(handles=handles, loc="center left", ncols=ncols, fontsize=8, frameon=False,
                  title="each statement has its own colour; at each judgment point:", title_fontsize=8,
                  alignment="left")
    return fig


def _table_style(m: int) -> dict:
    """The marker and line of the ``m``-th table series."""
    marker = TABLE_MARKERS[m % len(TABLE_MARKERS)]
    return dict(marker=marker, markersize=9 if marker == "*" else 6.5, linestyle=TABLE_DASHES)


def _statement_panel(ax, st: StoryStatement, index: int, title: str, xs, points, models, offsets,
                     limits, tables: Sequence[str] = ()) -> None:
    """One statement's panel: its human mean ± s.e. and each model's L at each point,
    side by side (see :func:`storyboard_figure`)."""
    colour = palette.statement_colour(index)
    ax.set_title(title, fontsize=7.5, loc="left", color=palette.darker(colour), pad=3)
    ax.set_xlim(0.5, len(xs) + 0.5)
    ax.set_ylim(*limits)
    ax.set_xticks(xs, [str(x) for x in xs], fontsize=7.5)
    ax.set_yticks([0, 0.5, 1], ["0", ".5", "1"], fontsize=7.5)
    ax.grid(axis="y", alpha=0.3)
    for x in xs[1:]:
        ax.axvline(x - 0.5, color="0.88", linewidth=0.6, zorder=0)
    if st.note and not st.model:
        ax.text(0.5, 0.5, textwrap.fill(st.note, 45), transform=ax.transAxes, ha="center", va="center",
                fontsize=7, color="0.35")
        return
    for m, model in enumerate(models):
        values = st.model.get(model)
        if not values:
            continue
        pairs = [(x + offsets[model], v) for x, v in zip(xs, values) if v is not None]
        ax.plot([p[0] for p in pairs], [p[1] for p in pairs], color=colour,
                marker=MODEL_MARKERS[m % len(MODEL_MARKERS)], markersize=5 if m == 0 else 4.5,
                linewidth=1.0 if m == 0 else 0.8, linestyle=DASHES[m % len(DASHES)], alpha=1.0 if m == 0 else 0.7,
                clip_on=False, zorder=3, gid=f"model:{model}")
    for m, name in enumerate(tables):
        pairs = [(x + offsets[name], v) for x, v in zip(xs, st.model.get(name) or ()) if v is not None]
        if pairs:
            ax.plot([p[0] for p in pairs], [p[1] for p in pairs], color=colour, linewidth=0.9, alpha=0.9,
                    markeredgecolor="white", markeredgewidth=0.5, clip_on=False, zorder=3, gid=f"table:{name}",
                    **_table_style(m))
    rated = [(x, h) for x, h in zip(xs, st.human or ()) if h is not None]
    if rated:
        means, caps, bars = ax.errorbar([x + offsets["humans"] for x, _ in rated], [h[0] for _, h in rated],
                                        yerr=[h[1] for _, h in rated], color=colour, marker=HUMAN_MARKER,
                                        markerfacecolor="white", markeredgewidth=1.2, markersize=5.5,
                                        linestyle="none", capsize=2.5, elinewidth=1.0, clip_on=False, zorder=4)
        means.set_gid("human")
        for artist in (*caps, *bars):
            artist.set_gid("human-error")
            artist.set_clip_on(False)


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


def design_figure(rows: Sequence[Mapping], *, title: str, order: Sequence[str] = ()) -> Figure:
    """The statement-design chart: one row per candidate (most informative at the top),
    the range of its L over the judgment points as a bar from min to max with a dot per
    point and an arrow from the first point's L to the last's (the direction of change),
    and each ablation's largest disagreement with the full model beside it; useless
    candidates (constant, ill-typed) greyed with the reason. ``order`` lists the
    candidates' texts as given: the n-th has the n-th statement colour, as it will as
    S<n> in a storyboard of those statements."""
    n = max(1, len(rows))
    several = len({r["scenario"] for r in rows}) > 1
    labels = [textwrap.fill(f"{r['rank']}. [{r['scenario'] + ', ' if several else ''}{r['mode'][:3]}] "
                            f"{r['statement']}", 70) for r in rows]
    height = 1.2 + sum(0.2 * (label.count("\n") + 1) + 0.12 for label in labels)
    fig = Figure(figsize=(12, max(3.0, height)), constrained_layout=True)
    fig.suptitle(title, fontsize=11, x=0.01, ha="left")
    ax, dis = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [3, 1.2]})
    ablations = sorted({k[len("disagree_"):] for r in rows for k in r if k.startswith("disagree_")})
    given = {text: i for i, text in reversed(list(enumerate(order)))}
    for r in rows:                       # candidates not in ``order`` follow, in the rows' order
        given.setdefault(r["statement"], len(given))
    for y, row in enumerate(rows):
        values = [v for v in row.get("values", []) if v is not None]
        useless = row.get("flag", "")
        colour = "0.65" if useless else palette.statement_colour(given[row["statement"]])
        if values:
            ax.plot([min(values), max(values)], [y, y], color=colour, linewidth=5, alpha=0.35,
                    solid_capstyle="round", gid="range")
            ax.scatter(values, [y] * len(values), color=colour, s=14, zorder=3)
            if abs(values[-1] - values[0]) > 0.01:
                ax.annotate("", xy=(values[-1], y - 0.28), xytext=(values[0], y - 0.28), gid="direction",
                            arrowprops=dict(arrowstyle="-|>", color=palette.darker(colour), linewidth=1.0,
                                            shrinkA=0, shrinkB=0, mutation_scale=8))
        if useless:
            ax.text(1.02, y, useless, va="center", fontsize=7, color="0.35", transform=ax.get_yaxis_transform())
        for a, name in enumerate(ablations):
            value = row.get(f"disagree_{name}")
            if value not in (None, ""):
                dis.barh(y + (a - (len(ablations) - 1) / 2) * 0.3, float(value), height=0.28,
                         color=ABLATION_GREYS[a % len(ABLATION_GREYS)], label=name if y == 0 else None)
    ax.set_yticks(range(n), labels or [""], fontsize=7.5)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel("L at the judgment points (bar: range; arrow: from the first point to the last)")
    ax.grid(axis="x", alpha=0.25)
    dis.set_xlim(0, 1)
    dis.set_xlabel("largest |L(full) − L(ablation)|")
    dis.grid(axis="x", alpha=0.25)
    if ablations:
        dis.legend(fontsize=7.5, loc="lower right", frameon=False)
    return fig


#: The ablations' bars in the design chart: greys, so that no ablation takes a
#: statement's colour.
ABLATION_GREYS = ("0.3", "0.6", "0.8")
