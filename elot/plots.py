"""Figures with matplotlib (bare ``Figure`` objects, never pyplot, so no backend is chosen
and no display is needed): statement scores and the goal posterior over time (``elot plot``;
``elot map`` draws a scenario with its front's frames, :mod:`elot.draw`).

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
