"""``elot report``: figures and a summary table from a batch table (and ratings).

* ``scatter.{png,svg}`` — model L vs mean human rating, one panel per model, with r
  (like the paper's Figure 4, first row); only with ratings;
* ``curves-<scenario>.{png,svg}`` — each statement's L over the judgment points;
* ``storyboard-<scenario>.{png,svg}`` — with ratings, the paper's Figure-4 layout per
  rated scenario: its map at each judgment point over each statement's L under every
  model in the table (the first solid) and the human mean ± s.e. beside it;
* ``summary.md`` / ``summary.csv`` — per model (and β): statements, mean L, and r with
  its bootstrap interval when ratings are given.
"""

from __future__ import annotations

import textwrap
from collections import defaultdict
from pathlib import Path
from typing import Sequence

import numpy as np

from elot.output import csv_text, file_stem
from elot.study.fit import Ratings, bootstrap, split_half
from elot.study.params import FIGURE_MARK, StudyError, atomic_output, check_replace


def _float(value) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _settings(row: dict) -> tuple[str, str, str, str, str]:
    return (row["model"], row["beta"], row["k"], row["conventions"], row["thresholds"])


def summary(table: Sequence[dict], ratings: Ratings | None = None, *, seed: int = 0) -> list[dict]:
    """One row per settings (model, β, k, conventions, thresholds): scored rows, errors,
    mean L and, with ratings, r and its bootstrap 95% interval."""
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for row in table:
        groups[_settings(row)].append(row)
    rated = {} if ratings is None else ratings.by_key
    out = []
    for (model, beta, k, conv, thresholds), rows in groups.items():
        scored = [r for r in rows if _float(r["L"]) is not None]
        entry = {"model": model, "beta": beta, "k": k, "conventions": conv, "thresholds": thresholds,
                 "rows": len(rows), "errors": len(rows) - len(scored),
                 "mean_L": float(np.mean([float(r["L"]) for r in scored])) if scored else float("nan"),
                 "n": "", "r": "", "ci_low": "", "ci_high": ""}
        pairs = _pairs(scored, rated)
        if len(pairs[0]) >= 3:
            fig = bootstrap(pairs[0], pairs[1], seed=seed)
            entry.update(n=fig.n, r=fig.r, ci_low=fig.low, ci_high=fig.high)
        out.append(entry)
    return out


def _pairs(rows: Sequence[dict], rated: dict) -> tuple[np.ndarray, np.ndarray]:
    L, y = [], []
    for r in rows:
        key = (r["scenario"], r["mode"], int(r["t"]), r["formula"])
        if key in rated:
            L.append(float(r["L"]))
            y.append(rated[key])
    return np.array(L), np.array(y)


def humans_note(ratings: Ratings | None) -> str:
    """With a participant column (repeated measures): how many people rated, how many
    rated each item (the mean rating's n) and the split-half reliability of the means."""
    if ratings is None or not ratings.participants:
        return ""
    raters = [sum(key in rated for rated in ratings.participants.values()) for key in ratings.keys]
    reliability = split_half(ratings)
    shown = "undefined (too few participants or shared items)" if reliability is None else f"{reliability:.3f}"
    return (f"\nHuman ratings: {len(ratings.participants)} participants, {len(raters)} items, "
            f"n per item {min(raters)}–{max(raters)} (mean {np.mean(raters):.1f}); "
            f"split-half reliability of the item means (Spearman–Brown): {shown}\n")


def summary_markdown(rows: Sequence[dict]) -> str:
    columns = ["model", "beta", "k", "conventions", "thresholds", "rows", "errors", "mean_L", "n", "r", "95% CI"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for r in rows:
        ci = f"[{r['ci_low']:.2f}, {r['ci_high']:.2f}]" if r["r"] != "" else ""
        cells = [r["model"], f"{float(r['beta']):.3g}", r["k"], r["conventions"], r["thresholds"], str(r["rows"]),
                 str(r["errors"]), f"{r['mean_L']:.3f}", str(r["n"]), f"{r['r']:.3f}" if r["r"] != "" else "", ci]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def report(table: Sequence[dict], outdir: str | Path, ratings: Ratings | None = None, *, force: bool = False,
           formats: Sequence[str] = ("png", "svg"), curves: bool = True, storyboards: bool = True,
           root: str | None = None, inputs: Sequence[str | Path] = (), goals: Sequence[dict] | None = None) \
        -> list[Path]:
    """Write the summary table and figures into ``outdir``; returns the files written
    (never over ``inputs``, the files the report was made from). ``root`` is the dataset
    folder, for drawing the maps of dataset scenarios in storyboards. ``goals`` (the rows
    of :func:`elot.study.goals.compare_goals`) adds ``goals.csv`` and a figure of the
    participants' goal answers against the model's goal posterior."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not table:
        raise StudyError("the batch table has no rows", hint="run elot batch first")
    outdir = Path(outdir)
    for name in ("summary.csv", "summary.md", *(f"scatter.{fmt}" for fmt in formats)):
        check_replace(outdir / name, force=force, inputs=inputs)   # before anything is written
    written: list[Path] = []
    rows = summary(table, ratings)
    for name, text in (("summary.csv", csv_text(rows)), ("summary.md", summary_markdown(rows) + humans_note(ratings))):
        with atomic_output(outdir / name, force=force, inputs=inputs) as handle:
            handle.write(text)
        written.append(outdir / name)
    if ratings is not None:
        rated = ratings.by_key
        settings = [s for s in dict.fromkeys(_settings(r) for r in table)]
        # constrained layout: each panel's axis labels get their own room
        fig, axes = plt.subplots(1, len(settings), figsize=(3.8 * len(settings) + 0.4, 4.0), squeeze=False,
                                 constrained_layout=True)
        fig.suptitle("Model L against the mean human rating of each statement at each judgment point",
                     fontsize=10)
        for ax, setting in zip(axes[0], settings):
            scored = [r for r in table if _settings(r) == setting and _float(r["L"]) is not None]
            L, y = _pairs(scored, rated)
            ax.scatter(L, y, s=10, alpha=0.6)
            r = np.corrcoef(L, y)[0, 1] if len(L) >= 3 and L.std() > 0 and y.std() > 0 else float("nan")
            ax.set_title(f"{setting[0]} (β={float(setting[1]):.3g})  r = {r:.2f}", fontsize=9)
            ax.set_xlabel("model L")
            ax.set_ylabel("mean human rating")
        for fmt in formats:
            _save_keep(fig, outdir / f"scatter.{fmt}", written, force, inputs)
        plt.close(fig)
    if curves:
        first = _settings(table[0])
        by_scenario: dict[str, list[dict]] = defaultdict(list)
        for r in table:
            if _settings(r) == first and _float(r["L"]) is not None:
                by_scenario[r["scenario"]].append(r)
        for scenario, rows_ in by_scenario.items():
            series: dict[tuple, list[tuple[int, float]]] = defaultdict(list)
            for r in rows_:
                series[(r["statement_id"], r["mode"], r["statement"])].append((int(r["t"]), float(r["L"])))
            # every statement in full in the legend (wrapped, never cut): the figure grows with it
            labels = {key: textwrap.fill(f"[{key[1][:3]}] {key[2]}", 70, subsequent_indent="      ")
                      for key in series}
            lines = sum(label.count("\n") + 1 for label in labels.values())
            fig, ax = plt.subplots(figsize=(11, max(3.5, 0.9 + 0.15 * lines)), constrained_layout=True)
            times = sorted({t for s in series.values() for t, _ in s})
            for (sid, mode, text), points in series.items():
                points.sort()
                ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=3,
                        label=labels[(sid, mode, text)])
            for t in times:
                ax.axvline(t, color="grey", lw=0.5, ls=":")
            ax.set_ylim(-0.05, 1.05)
            ax.set_xlabel("judgment point t")
            ax.set_ylabel("L")
            ax.set_title(f"{rows_[0]['map'] if '/' in scenario and not scenario.startswith('exp') else scenario}: "
                         f"each statement's L over the judgment points ({first[0]}, "
                         f"β={float(first[1]):.3g})", fontsize=9, loc="left")
            ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
            slug = file_stem(scenario)
            for fmt in formats:
                _save_keep(fig, outdir / f"curves-{slug}.{fmt}", written, force, inputs)
            plt.close(fig)
    if ratings is not None and storyboards:
        written += _storyboards(table, ratings, outdir, formats, force, root, inputs)
    if goals:
        written += _goals(goals, outdir, formats, force, inputs)
    return written


def _goals(rows: Sequence[dict], outdir: Path, formats: Sequence[str], force: bool, inputs: Sequence) -> list[Path]:
    """``goals.csv`` and ``goals.png``/``.svg``: each gem's human share against the
    model's goal posterior at each judgment point."""
    import matplotlib.pyplot as plt

    from elot.study.goals import COLUMNS

    written: list[Path] = []
    table = [{**r, **{c: f"{r[c]:.4g}" for c in ("ticked", "human", "model")}} for r in rows]
    with atomic_output(outdir / "goals.csv", force=force, inputs=inputs) as handle:
        handle.write(csv_text(table, COLUMNS))
    written.append(outdir / "goals.csv")
    model = np.array([r["model"] for r in rows])
    human = np.array([r["human"] for r in rows])
    r = np.corrcoef(model, human)[0, 1] if len(rows) >= 3 and model.std() > 0 and human.std() > 0 else float("nan")
    fig, ax = plt.subplots(figsize=(4.6, 4.2), constrained_layout=True)
    ax.plot([0, 1], [0, 1], color="grey", lw=0.6, ls=":")
    ax.scatter(model, human, s=14, alpha=0.7)
    ax.set_xlim(-0.03, 1.03)
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("model: posterior probability of the goal")
    ax.set_ylabel("participants: share of their goal ticks")
    ax.set_title(f"Goal answers at each judgment point, per gem  r = {r:.2f}", fontsize=9)
    for fmt in formats:
        _save_keep(fig, outdir / f"goals.{fmt}", written, force, inputs)
    plt.close(fig)
    return written


def _storyboards(table: Sequence[dict], ratings: Ratings, outdir: Path, formats: Sequence[str], force: bool,
                 root: str | None, inputs: Sequence[str | Path] = ()) -> list[Path]:
    """One storyboard per rated scenario: its statements' L under each model in the table
    (each model's first settings) and the human mean ± s.e. (see module docstring)."""
    from elot.draw.storyboard import StoryStatement
    from elot.errors import ElotError
    from elot.study.fit import ref_for
    from elot.study.storyboard import attach_ratings, storyboard

    written: list[Path] = []
    rated = {k.scenario for k in ratings.keys}
    models: dict[str, tuple] = {}
    for r in table:
        models.setdefault(r["model"], _settings(r))
    for scenario_name in dict.fromkeys(r["scenario"] for r in table):
        if scenario_name not in rated:
            continue
        try:
            scenario = (ratings.refs.get(scenario_name) or ref_for(scenario_name, root)).load()
        except ElotError:
            continue                     # a table from elsewhere: its scenario cannot be drawn here
        statements: dict[tuple, StoryStatement] = {}
        values: dict[tuple, dict[int, float]] = defaultdict(dict)
        points = sorted({int(r["t"]) for r in table if r["scenario"] == scenario_name})
        for r in table:
            if r["scenario"] != scenario_name or models.get(r["model"]) != _settings(r):
                continue
            key = (r["statement_id"], r["mode"], r["formula"])
            st = statements.setdefault(key, StoryStatement(r["statement"], r["mode"], formula=r["formula"] or None))
            if _float(r["L"]) is None:
                st.note = f"not scored: {r.get('error', '')}".strip()
            else:
                values[(key, r["model"])][int(r["t"])] = float(r["L"])
        for (key, model), by_t in values.items():
            statements[key].model[model] = [by_t.get(t) for t in points]
        chosen = list(statements.values())
        attach_ratings(chosen, ratings, scenario_name, points)
        first = models[next(iter(models))]
        fig = storyboard(scenario, chosen, list(models), points=points, beta=float(first[1]),
                         name=scenario_name if scenario_name.startswith("exp") else scenario.name)
        slug = file_stem(scenario_name)
        for fmt in formats:
            _save_keep(fig, outdir / f"storyboard-{slug}.{fmt}", written, force, inputs)
    return written


def _save_keep(fig, path: Path, written: list[Path], force: bool = False, inputs: Sequence = ()) -> None:
    suffix = path.suffix.lstrip(".")
    mark = FIGURE_MARK.decode()
    metadata = {"Date": None, "Creator": mark} if suffix == "svg" else {"Software": mark}
    with atomic_output(path, "wb", force=force, inputs=inputs) as handle:
        fig.savefig(handle, format=suffix, dpi=120, bbox_inches="tight", metadata=metadata)
    written.append(path)
