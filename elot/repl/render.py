"""Rich renderables for the REPL: the map, bar charts, score tables, sparklines, errors.

Every function here is pure: it takes plain values (numbers, labels, world states) and
returns a ``rich`` renderable; printing is the REPL loop's job. The renderings stay
readable without colour (tests export them as plain text and compare with golden files),
so colour only ever doubles information that letters already carry.
"""

from __future__ import annotations

import io
from typing import Iterable, Sequence

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from elot.errors import ElotError, ElotTypeError
from elot.session import ScoreRow
from elot.settings import CURRENT

_BAR_WIDTH = 30
_EIGHTHS = " ▏▎▍▌▋▊▉█"
_SPARKS = "▁▂▃▄▅▆▇█"


def plain_text(*renderables: RenderableType, width: int = 100) -> str:
    """What a user would see on a colourless terminal ``width`` columns wide.

    Used for golden-file tests and for pasting REPL output into documents.
    """
    console = Console(width=width, record=True, color_system=None, file=io.StringIO(),
                      legacy_windows=False)
    for renderable in renderables:
        console.print(renderable)
    return "\n".join(line.rstrip() for line in console.export_text().splitlines()) + "\n"


# -- where the session is ----------------------------------------------------------------


def prompt(t: int, horizon: int, mode: str) -> str:
    """The input prompt: the step, the last one, and the mode unless it is current."""
    shown = "" if mode == CURRENT else f" {mode}"
    return f"elot[t={t}/{horizon}{shown}]> "


def where(t: int, horizon: int, action: str | None, judged: bool) -> str:
    """The step, the action that led to it and whether it is a judgment point."""
    return (f"t={t}/{horizon}" + (f"  after {action}" if action else "  (start)")
            + ("  (judgment point)" if judged else ""))


# -- bar charts ---------------------------------------------------------------------------


def bar(value: float, width: int = _BAR_WIDTH) -> str:
    """A horizontal bar of ``value`` ∈ [0, 1] in ``width`` cells, with eighth-cell steps."""
    value = min(1.0, max(0.0, float(value)))
    eighths = round(value * width * 8)
    full, rest = divmod(eighths, 8)
    text = "█" * full + (_EIGHTHS[rest] if rest else "")
    return text.ljust(width)


def titled(title: str, table: Table) -> Group:
    """A table under a bold heading (table titles wrap to the table's width; this does not)."""
    return Group(Text(title, style="bold"), table)


def bar_chart(
    title: str,
    rows: Sequence[tuple[str, float]],
    *,
    highlight: str | None = None,
    style: str = "cyan",
    width: int = _BAR_WIDTH,
    caption: str | None = None,
) -> Group:
    """A titled horizontal bar chart of ``(label, probability)`` rows, in the given order.

    The row labelled ``highlight`` (e.g. the true goal) is marked with ``*``.
    """
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column("label", no_wrap=True)
    table.add_column("bar", no_wrap=True, width=width)
    table.add_column("p", justify="right", no_wrap=True)
    for label, value in rows:
        mark = "*" if highlight is not None and label == highlight else " "
        table.add_row(Text(f"{label}{mark}"), Text(bar(value, width), style=style),
                      Text(f"{value:.3f}"))
    parts: list[RenderableType] = [Text(title, style="bold"), table]
    if caption:
        parts.append(Text(caption, style="dim"))
    return Group(*parts)


# -- sparklines -----------------------------------------------------------------------------


def sparkline(values: Sequence[float]) -> str:
    """One character per value ∈ [0, 1]: ``▁`` (0) .. ``█`` (1)."""
    out = []
    for v in values:
        v = min(1.0, max(0.0, float(v)))
        out.append(_SPARKS[min(len(_SPARKS) - 1, int(v * len(_SPARKS)))])
    return "".join(out)


def trace_view(
    title: str,
    values: Sequence[float],
    *,
    judgments: Iterable[int] = (),
    now: int | None = None,
    label: str = "normalized likelihood",
) -> Group:
    """The score at every step t = 0..T as a sparkline, with judgment points marked ``^``
    and the current step ``|``, followed by the values at the judgment points."""
    judgments = sorted(set(judgments))
    line = sparkline(values)
    marks = [" "] * len(values)
    for t in judgments:
        if 0 <= t < len(marks):
            marks[t] = "^"
    if now is not None and 0 <= now < len(marks):
        marks[now] = "|" if marks[now] == " " else "┃"
    table = Table(box=None, show_header=True, pad_edge=False)
    table.add_column("t", justify="right")
    table.add_column(label, justify="right")
    shown = [t for t in judgments if 0 <= t < len(values)]
    if now is not None and now not in shown and 0 <= now < len(values):
        shown = sorted(shown + [now])
    for t in shown:
        note = " (now)" if t == now else ""
        table.add_row(f"{t}{note}", f"{values[t]:.3f}")
    header = Text(title, style="bold")
    body = Text.assemble(
        ("t=0 ", "dim"), (line, "green"), (f" t={len(values) - 1}", "dim"), "\n",
        ("    ", ""), ("".join(marks), "yellow"),
        ("   ^ judgment point  | now", "dim"),
    )
    return Group(header, body, table)


# -- scores ---------------------------------------------------------------------------------


def score_table(row: ScoreRow) -> Table:
    """A two-column table: formula, type, lowered form, and the scores at ``row.t``."""
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column("key", style="bold", no_wrap=True)
    table.add_column("value", overflow="fold")
    if row.source is not None:
        weight = "" if row.weight is None else f"  (weight {row.weight:.2f})"
        table.add_row("english", Text(f"{row.source}{weight}"))
    table.add_row("formula", Text(row.formula, style="cyan"))
    table.add_row("type", Text(row.type))
    table.add_row("lowered", Text(row.lowered, style="dim"))
    label = "initial belief" if row.mode == "initial" else "current belief"
    table.add_row("score", Text.assemble(
        (f"P = {row.posterior:.3f}", "bold"),
        "   normalized L = ",
        (f"{row.normalized_likelihood:.3f}", "bold green"),
        "" if row.stderr is None else f" ± {row.stderr:.3f}",
        f"   ({label}, t={row.t})",
    ))
    if row.prior_fraction is not None and row.stderr is None:
        table.add_row("prior", f"π = {row.prior_fraction:.3f} of hypotheses make it true")
    elif row.prior_fraction is not None:
        table.add_row("prior", f"π = {row.prior_fraction:.3f}, the prior probability (estimated from prior draws)")
    if row.ess is not None:
        table.add_row("particles", f"effective sample size {row.ess:.0f} at t={row.t}; ± is L's standard error")
    return table


def value_view(value) -> Table:
    """A numeric term (:class:`~elot.session.NumericValue`): its posterior mean and
    how its value is distributed over the hypotheses now."""
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column("key", style="bold", no_wrap=True)
    table.add_column("value", overflow="fold")
    table.add_row("formula", Text(value.formula, style="cyan"))
    table.add_row("type", Text(f"{value.type} (a number)"))
    label = "initial belief" if value.mode == "initial" else "current belief"
    table.add_row("value", Text.assemble(("posterior mean ", ""), (f"{value.mean:.3f}", "bold green"),
                                         f"   ({label}, t={value.t})"))
    spread = Table(box=None, pad_edge=False)
    spread.add_column("value", justify="right")
    spread.add_column("posterior", justify="right")
    spread.add_column("")
    spread.add_column("pairs", justify="right", style="dim")
    for v, mass, count in value.distribution:
        spread.add_row(f"{v:.3f}", f"{mass:.3f}", Text(bar(mass), style="green"), str(count))
    if value.hidden:
        spread.add_row("…", "", Text(f"{value.hidden} smaller groups", style="dim"), "")
    table.add_row("over", spread)
    return table


def thresholds_table(values: dict[str, float], defaults: dict[str, float]) -> Group:
    """Every threshold with its value; changed ones are marked with their default."""
    table = Table(box=None, pad_edge=False)
    table.add_column("name")
    table.add_column("value", justify="right")
    table.add_column("default", justify="right", style="dim")
    for name, value in values.items():
        default = defaults.get(name)
        changed = default is not None and abs(default - value) > 1e-12
        table.add_row(name, Text(f"{value:g}", style="bold yellow" if changed else ""),
                      f"{default:g}" if changed else "")
    return titled("thresholds", table)


# -- errors ---------------------------------------------------------------------------------


def error_view(error: ElotError) -> Text:
    """An :class:`ElotError` with rich styling: location, message, source line, caret, hint."""
    errors = error.errors if isinstance(error, ElotTypeError) else (error,)
    text = Text()
    for i, err in enumerate(errors):
        if i:
            text.append("\n")
        where = err.location()
        if where:
            text.append(f"{where}: ", style="bold")
        text.append(f"{err.kind}: ", style="bold red")
        text.append(err.message)
        context = err.context_lines()
        if context:
            text.append("\n    " + context[0])
            text.append("\n    " + context[1], style="bold red")
        for note in err.notes:
            text.append(f"\nnote: {note}", style="dim")
        if err.hint:
            text.append("\nhint: ", style="bold cyan")
            text.append(err.hint)
    return text


def message(text: str, style: str = "") -> Text:
    """A one-line message."""
    return Text(text, style=style)


# -- the map --------------------------------------------------------------------------------

_CELL = 3


def map_view(scene, *, title: str | None = None) -> Group:
    """A domain's scene as text (:class:`elot.domains.front.TextMap`): the grid, each
    labelled cell in its style (colours double the letters), the cells walked marked, and
    the legend under it."""
    grid = Text(no_wrap=True)
    grid.append("   " + "".join(f"{x:^{_CELL}}" for x in range(1, scene.width + 1)) + "\n", style="dim")
    for y in range(1, scene.height + 1):
        grid.append(f"{y:>2} ", style="dim")
        for x in range(1, scene.width + 1):
            pos = (x, y)
            if pos in scene.cells:
                label, style = scene.cells[pos]
                grid.append(f"{label:^{_CELL}}", style=style)
            elif pos in scene.walked:
                grid.append(f"{'•':^{_CELL}}", style="cyan")
            else:
                grid.append(f"{'·':^{_CELL}}", style="grey42")
        if y < scene.height:
            grid.append("\n")
    legend = Text()
    for text, style in scene.legend:
        legend.append(text, style=style)
    parts: list[RenderableType] = []
    if title:
        parts.append(Text(title, style="bold"))
    parts.append(grid)
    parts.append(legend)
    return Group(*parts)


# -- explanations ---------------------------------------------------------------------------


#: How :func:`explanation_view` names a column by the numeric term it holds: its letter in
#: the table, the words for a title, and what one value means.
_COLUMN_KINDS = {
    "prob_of": ("p", "belief probabilities", "the probability the agent's belief gives the formula"),
    "prob_goal": ("g", "goal probabilities",
                  "the probability that the object is the agent's goal in a hypothesis (1 on a goal "
                  "hypothesis's goal, else 0; 1/m for each of m objects tied for the greatest utility)"),
    "utility_of": ("u", "utilities",
                   "the agent's utility for the object on the desire scale (0 the least utility of any "
                   "hypothesis, 1 the greatest)"),
}


def _column_kind(column: str) -> str:
    """``prob_of``, ``prob_goal`` or ``utility_of``: the numeric term a column holds."""
    name = column.split("(", 1)[0]
    return name if name in _COLUMN_KINDS else "prob_of"


def explanation_view(explanation) -> Group:
    """A :class:`elot.session.Explanation`: the score, the thresholds compared with, and
    the hypotheses grouped by the values of the formula's numeric terms (posterior mass per
    group): ``prob_of`` values by (true state, belief) pair, or for a statement about
    desires the ``prob_goal`` and ``utility_of`` values by hypothesis, one desire each."""
    parts: list[RenderableType] = [score_table(explanation.score)]
    if explanation.thresholds:
        parts.append(Text("thresholds: " + ", ".join(f"{n} = {v:g}" for n, v in explanation.thresholds)))
    if not explanation.columns:
        parts.append(Text("no prob_of terms: the formula is about the world only; "
                          "groups are by its truth in each hypothesis's world", style="dim"))
    kinds = [_column_kind(c) for c in explanation.columns]
    if explanation.desires:
        named = [f"{_COLUMN_KINDS[k][1]} ({k})" for k in dict.fromkeys(kinds)]
        parts.append(Text(f"hypotheses grouped by their {' and '.join(named) or 'truth'}, heaviest first",
                          style="bold"))
    else:
        parts.append(Text("hypotheses grouped by prob_of values (heaviest first)", style="bold"))
    counted = "#hyps" if explanation.desires else "#pairs"
    labels, seen = [], {}
    for kind in kinds:
        seen[kind] = seen.get(kind, 0) + 1
        labels.append(f"{_COLUMN_KINDS[kind][0]}{seen[kind]}")
    table = Table(pad_edge=False, show_edge=False)
    table.add_column("group", justify="right")
    for label in labels:
        table.add_column(label, justify="right")
    table.add_column("holds", justify="center")
    table.add_column("mass", justify="right")
    table.add_column(counted, justify="right", style="dim")
    for g, (values, holds, mass, count) in enumerate(explanation.groups, 1):
        table.add_row(str(g), *(f"{v:.3f}" for v in values),
                      Text("yes" if holds else "no", style="green" if holds else "red"),
                      f"{mass:.3f}", str(count))
    parts.append(table)
    if explanation.hidden_groups:
        parts.append(Text(f"... {explanation.hidden_groups} lighter groups not shown", style="dim"))
    for label, column in zip(labels, explanation.columns):
        parts.append(Text(f"{label} = {column}", style="dim"))
    if explanation.desires:
        for kind in dict.fromkeys(kinds):
            parts.append(Text(f"{kind}: {_COLUMN_KINDS[kind][2]}", style="dim"))
        parts.append(Text("#hyps: hypotheses, each with one desire (a goal, or utilities over the objects), a "
                          "true state and a belief; a statement about desires is judged on them", style="dim"))
    return Group(*parts)
