"""``elot report``: figures and a summary table from a batch table (and ratings).

* ``scatter.{png,svg}`` — model L vs mean human rating, one panel per settings in a grid
  of at most four columns, with the identity line, current and initial statements told
  apart by marker, and r (the paper's Figure 3); only with ratings;
* ``curves-<scenario>.{png,svg}`` — each statement's L at the judgment points;
* ``storyboard-<scenario>.{png,svg}`` — with ratings, the paper's Figure-4 layout per
  rated scenario: its map at each judgment point over one panel per statement, the human
  mean ± s.e. beside each model's L;
* ``summary.md`` / ``summary.csv`` — per setting (:class:`~elot.study.tables.Setting`:
  model, β, k, conventions, thresholds and inference method): statements, mean L, and r
  with its bootstrap interval when ratings are given; which settings the figures draw.

A model without a β (a language model of ``elot baseline``: its ``beta``, ``k``,
``conventions`` and ``thresholds`` are empty) is a model with one setting: its own
panel, row and series, drawn at that setting whatever ``--fit`` or ``--beta`` says. Rows
without an L (a statement not scored, an answer without a rating) are left out of every
figure and figure of merit, and counted.

Curves and storyboards draw one setting per model (:class:`Drawn`, chosen by
:func:`choose_drawn`): the fitted one (``--fit``), the one asked for (``--beta``), else
with ratings the table's setting of best r, else the table's own; the report says which.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from elot.output import csv_text, file_stem
from elot.settings import DEFAULT_BETA
from elot.study.fit import Ratings, bootstrap, split_half
from elot.study.params import FIGURE_MARK, StudyError, check_replace, write_study
from elot.study.references import DomainRef
from elot.study.tables import Setting, fixed, match_beta, setting_text, settings_of, value_of


def _beta(setting: Setting) -> float:
    """A setting's β; a model without one sorts last."""
    return math.inf if fixed(setting) else float(setting.beta)


def _r(L: np.ndarray, y: np.ndarray) -> float:
    """Pearson r, NaN where undefined (fewer than three pairs, or a constant side)."""
    return float(np.corrcoef(L, y)[0, 1]) if len(L) >= 3 and L.std() > 0 and y.std() > 0 else float("nan")


@dataclass(frozen=True)
class Drawn:
    """The settings that curves, storyboards and goal figures draw: one per model, the
    primary model first (``settings`` maps a model to its :class:`~elot.study.tables.Setting`),
    and why they were chosen (said by the command and in summary.md)."""

    settings: dict
    why: str
    notes: tuple[str, ...] = ()
    chosen: bool = False       # by --fit or --beta, or the table's only one (else the report chose)

    @property
    def primary(self) -> Setting:
        return next(iter(self.settings.values()))

    def describe(self) -> str:
        """``full at β 2.83 (k 3, conventions elot, thresholds default); non-planning at β 0.5``,
        with the inference method where it is not exact (``full at β 2.83 (...; smc, 1000
        particles)``)."""
        primary = self.primary
        rest = "" if fixed(primary) else f" (k {primary.k}, conventions {primary.conventions}, " \
                                         f"thresholds {primary.thresholds}{'; ' + primary.method() if primary.sampled else ''})"
        by_beta: dict[tuple[str, str], list[str]] = {}
        for setting in self.settings.values():     # a model's other settings said with it (a PDDL model's)
            by_beta.setdefault((setting.beta and f"{float(setting.beta):.3g}", setting.method()), []).append(
                setting.model + (f" ({setting.params})" if setting.params else ""))
        return "; ".join(f"{', '.join(models)}" + (f" at β {beta}" if beta else " (no β: its one setting)")
                         + (rest if n == 0 else f" ({method})" if method else "")
                         for n, ((beta, method), models) in enumerate(by_beta.items()))

    def said(self) -> str:
        """Why these settings, and how to choose others when the report chose."""
        return self.why if self.chosen else f"{self.why}; choose with --fit or --beta"

    def label(self, model: str) -> str:
        """The model and its β, as a legend names it."""
        return setting_text(self.settings[model])

    @property
    def fixed(self) -> list[str]:
        """The models drawn without a β (language models)."""
        return [m for m, s in self.settings.items() if fixed(s)]


def choose_drawn(table: Sequence[dict], ratings: Ratings | None = None, *, fit: dict | None = None,
                 fit_name: str = "", beta: float | None = None, model: str | None = None) -> Drawn:
    """The settings a report draws (see :class:`Drawn`): for each model of the table,
    the setting of ``fit`` (a parameter file ``elot fit -o`` wrote, read as JSON: its
    model and β, each ablation's β), or of ``beta``, else the one of best r with
    ``ratings`` (ties: the smallest β), else the table's own (the default β if the table
    has it, else its first). ``model`` (default: the fit's, else the table's first model
    with a β) is drawn first. A model without the chosen β is left out, the primary one
    is an error naming the β the table has; a model without β (:func:`fixed`) is drawn at
    its one setting."""
    settings = [s for s in dict.fromkeys(settings_of(r) for r in table if value_of(r) is not None)]
    if not settings:
        raise StudyError("the batch table has no scored rows: nothing to draw",
                         hint="see its error column; elot batch says why rows could not be scored")
    models = list(dict.fromkeys(s.model for s in settings))
    tuned = [s.model for s in settings if not fixed(s)]
    if beta is not None and not tuned:
        raise StudyError("--beta does not apply: the tables hold only models without a β (language models, "
                         f"drawn at their one setting: {', '.join(models)})",
                         hint="leave out --beta, or give a table elot batch wrote too")
    primary = model or (fit or {}).get("model") or (tuned or models)[0]
    if primary not in models:
        raise StudyError(f"the table has no scored rows of model {primary}",
                         hint=f"its models: {', '.join(models)}" + ("; run elot batch with that model"
                                                                    if fit else ""))
    order = [primary] + [m for m in models if m != primary]
    wanted: dict[str, float | None] = {}
    if fit is not None:
        wanted[primary] = fit.get("beta")
        for name, entry in (fit.get("ablations") or {}).items():
            if isinstance(entry, dict) and entry.get("beta") is not None:
                wanted[name] = entry["beta"]
        why = f"the fitted setting of {fit_name or 'the fit'}"
    elif beta is not None:
        wanted = {m: beta for m in order if m in tuned}
        why = "chosen with --beta"
    elif len(settings) == len(models):
        why = "the table's only setting" + (" of each model" if len(models) > 1 else "")
    elif ratings is not None:
        why = "the table's setting of best r for each model"
    else:
        several = [what for what, values in (("the default β", {(s.model, s.beta) for s in settings}),
                                             ("exact inference", {(s.model, s.method()) for s in settings}))
                   if len(values) > len(models)]
        why = "the table's own setting" + (f" ({' and '.join(several)} where it has several)" if several else "")
    rated = {} if ratings is None else ratings.by_key
    chosen, notes = {}, []
    near: dict[tuple, list[str]] = {}      # a β asked for as printed (2.83) and the table's it names
    for m in order:
        mine = [s for s in settings if s.model == m]
        if wanted.get(m) is not None and m in tuned:
            mine = [s for s in mine if not fixed(s)]
            option = "the fit's β" if fit is not None else "--beta"
            found = match_beta((s.beta for s in mine), float(wanted[m]), what=f"{option} for {m}")
            matching = [s for s in mine if s.beta == found]
            if matching and not math.isclose(float(found), float(wanted[m]), rel_tol=1e-9):
                near.setdefault((option, float(wanted[m]), found), []).append(m)
            if not matching:
                said = ", ".join(dict.fromkeys(f"{float(s.beta):.3g}" for s in mine))
                if m == primary:
                    raise StudyError(f"the table has no rows of model {m} at β {float(wanted[m]):.3g} ({why})",
                                     hint=f"its β for {m}: {said}; run elot batch at that β"
                                          + (f" (--thresholds {fit_name})" if fit is not None and fit_name else ""))
                if fit is None:
                    notes.append(f"{m} is not drawn: the table has it at β {said}, not {float(wanted[m]):.3g}")
                    continue
                notes.append(f"the table has no rows of {m} at the fit's β {float(wanted[m]):.3g}: drawn at its "
                             + ("β of best r" if rated else "first β"))
                matching = mine      # an ablation the fit gave no β the table has: its best below
            mine = matching
        if fit is not None and fit_name:
            named = [s for s in mine if s.thresholds == fit_name]
            if named:
                mine = named
            elif m == primary and not (mine[0].thresholds == "default" and fit.get("default_thresholds")):
                notes.append(f"{m}'s L is the table's, scored with thresholds {mine[0].thresholds!r}, not {fit_name}'s "
                             f"(elot batch --thresholds {fit_name} scores those)")
        if len(mine) > 1 and rated:
            scored = {s: _r(*_pairs([r for r in table if settings_of(r) == s and value_of(r) is not None], rated))
                      for s in mine}
            defined = [s for s in mine if not math.isnan(scored[s])]
            if defined:
                best = max(scored[s] for s in defined)
                # ties within rounding noise go to the smallest β, as fit reports them, and to
                # exact inference before a particle filter's estimate of it
                mine = sorted((s for s in defined if scored[s] >= best - 1e-9), key=lambda s: (_beta(s), s.sampled))
            elif m == primary:
                notes.append("r is undefined at every setting (constant L or ratings): the table's first is drawn")
        elif len(mine) > 1:
            default = [s for s in mine if math.isclose(_beta(s), DEFAULT_BETA, rel_tol=1e-6)]
            mine = sorted(default or mine, key=lambda s: s.sampled)
        chosen[m] = mine[0]
    notes[:0] = [f"{option} {asked:g} is the table's β {found} ({', '.join(ms)})"
                 for (option, asked, found), ms in near.items()]
    only = len(settings) == len(models)
    return Drawn(chosen, why, tuple(notes), chosen=fit is not None or beta is not None or only)


def read_fit(path: str | Path) -> dict:
    """The parameter file ``elot fit -o`` wrote, as a dict (checked as ``--thresholds``
    checks it, and needing a β)."""
    from elot.errors import load_json
    from elot.study.params import read_input, read_params

    params = read_params(path)          # every error of a parameter file, at its key
    if params.beta is None:
        raise StudyError(f"{path}: no \"beta\": the report draws the fitted β", path=str(path),
                         hint="give the file elot fit -o wrote, or --beta")
    data = load_json(read_input(path, "fit"), path=str(path), error=StudyError, hint="give the file elot fit -o wrote")
    from elot.lang.thresholds import Thresholds

    return {**data, "beta": params.beta, "default_thresholds": params.thresholds == Thresholds()}


def summary(table: Sequence[dict], ratings: Ratings | None = None, *, seed: int = 0,
            drawn: Drawn | None = None) -> list[dict]:
    """One row per :class:`~elot.study.tables.Setting` (model, β, k, conventions,
    thresholds, and the inference method, particles and seed where a setting ran particle
    inference): scored rows, errors, mean L and, with ratings, r and its bootstrap 95%
    interval."""
    groups: dict[Setting, list[dict]] = defaultdict(list)
    for row in table:
        groups[settings_of(row)].append(row)
    sampled = any(s.sampled for s in groups)
    params = any("params" in row for row in table)
    rated = {} if ratings is None else ratings.by_key
    out = []
    for setting, rows in groups.items():
        scored = [r for r in rows if value_of(r) is not None]
        entry = {"model": setting.model, "beta": setting.beta, "k": setting.k, "conventions": setting.conventions,
                 "thresholds": setting.thresholds}
        if sampled:         # a table of exact inference keeps the summary it had
            entry.update(inference=setting.inference, particles=setting.particles, seed=setting.seed)
        if params:          # a table whose models have other settings (a PDDL domain's)
            entry.update(params=setting.params)
        entry.update({"rows": len(rows), "errors": len(rows) - len(scored),
                      "mean_L": float(np.mean([float(r["L"]) for r in scored])) if scored else float("nan"),
                      "n": "", "r": "", "ci_low": "", "ci_high": "",
                      "drawn": "yes" if drawn is not None and setting in drawn.settings.values() else ""})
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
    method = ["inference", "particles", "seed"] if rows and "inference" in rows[0] else []
    method += ["params"] if rows and "params" in rows[0] else []
    columns = ["model", "beta", "k", "conventions", "thresholds", *method, "rows", "errors", "mean_L", "n", "r",
               "95% CI", "drawn"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for r in rows:
        ci = f"[{r['ci_low']:.2f}, {r['ci_high']:.2f}]" if r["r"] != "" else ""
        cells = [r["model"], r["beta"] and f"{float(r['beta']):.3g}", r["k"], r["conventions"], r["thresholds"],
                 *(r[c] for c in method),
                 str(r["rows"]), str(r["errors"]), f"{r['mean_L']:.3f}", str(r["n"]), f"{r['r']:.3f}" if r["r"] != "" else "", ci,
                 r.get("drawn", "")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def unscored_note(table: Sequence[dict]) -> str:
    """summary.md's paragraph on the rows without an L, per settings and cause: they are
    left out of mean L, r and the figures (never taken as 0)."""
    from elot.output import count
    from elot.study.tables import failure_cause

    groups: dict[tuple, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    totals: dict[tuple, int] = defaultdict(int)
    for row in table:
        totals[settings_of(row)] += 1
        if value_of(row) is None:
            groups[settings_of(row)][failure_cause(row.get("error") or "no L")] += 1
    if not groups:
        return ""
    lines = [f"* {setting_text(s)}: {sum(causes.values())} of {totals[s]} "
             + "(" + "; ".join(f"{count(n, 'row')}: {cause}" for cause, n in sorted(causes.items(), key=lambda c: -c[1]))
             + ")"
             for s, causes in groups.items()]
    return ("\nRows without an L (not scored, or an answer without a rating) are left out of mean L, r and the "
            "figures, never taken as 0:\n" + "\n".join(lines) + "\n")


def drawn_note(drawn: Drawn) -> str:
    """summary.md's paragraph on the settings the figures draw."""
    notes = "".join(f"\n* {note}" for note in drawn.notes)
    return f"\nCurves and storyboards draw {drawn.describe()}: {drawn.said()}.{notes}\n"


def report(table: Sequence[dict], outdir: str | Path, ratings: Ratings | None = None, *, force: bool = False,
           formats: Sequence[str] = ("png", "svg"), curves: bool = True, storyboards: bool = True,
           domain=None, inputs: Sequence[str | Path] = (), goals: Sequence[dict] | None = None,
           drawn: Drawn | None = None) -> list[Path]:
    """Write the summary table and figures into ``outdir``; returns the files written
    (never over ``inputs``, the files the report was made from). ``domain``
    (:class:`~elot.study.references.DomainRef`) reads the scenarios storyboards draw. ``goals`` (the rows
    of :func:`elot.study.goals.compare_goals`) adds ``goals.csv`` and a figure of the
    participants' goal answers against the model's goal posterior. ``drawn`` is the
    setting curves and storyboards draw (default :func:`choose_drawn`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not table:
        raise StudyError("the batch table has no rows", hint="run elot batch first")
    formats = tuple(dict.fromkeys(formats))     # each figure once, and counted once
    outdir = Path(outdir)
    for name in ("summary.csv", "summary.md", *(f"scatter.{fmt}" for fmt in formats)):
        check_replace(outdir / name, force=force, inputs=inputs)   # before anything is written
    drawn = drawn or choose_drawn(table, ratings)
    written: list[Path] = []
    rows = summary(table, ratings, drawn=drawn)
    for name, text in (("summary.csv", csv_text(rows)),
                       ("summary.md", summary_markdown(rows) + unscored_note(table) + drawn_note(drawn)
                        + humans_note(ratings))):
        write_study(outdir / name, text, force=force, inputs=inputs)
        written.append(outdir / name)
    described = drawn.describe()
    if ratings is not None:
        fig = scatter_figure(table, ratings, drawn)
        for fmt in formats:
            _save_keep(fig, outdir / f"scatter.{fmt}", written, force, inputs, described)
        plt.close(fig)
    if curves:
        from elot.plots import judgment_curves_figure

        first = drawn.primary
        by_scenario: dict[str, list[dict]] = defaultdict(list)
        for r in table:
            if settings_of(r) == first:
                by_scenario[r["scenario"]].append(r)
        for scenario, rows_ in by_scenario.items():
            points = sorted({int(r["t"]) for r in rows_})
            series: dict[tuple, dict[int, float]] = {}
            for r in rows_:
                values = series.setdefault((r["statement_id"], r["mode"], r["statement"]), {})
                if value_of(r) is not None:
                    values[int(r["t"])] = float(r["L"])
            name = rows_[0]["map"] if "/" in scenario and not scenario.startswith("exp") else scenario
            fig = judgment_curves_figure(
                f"{name}: each statement's L at the judgment points ({setting_text(first)}: {drawn.why})", points,
                [(text, mode, [values.get(t) for t in points]) for (_, mode, text), values in series.items()])
            slug = file_stem(scenario)
            for fmt in formats:
                _save_keep(fig, outdir / f"curves-{slug}.{fmt}", written, force, inputs, described)
    if ratings is not None and storyboards:
        written += _storyboards(table, ratings, outdir, formats, force, domain or DomainRef(), inputs, drawn)
    if goals:
        written += _goals(goals, outdir, formats, force, inputs)
    return written


#: Markers of the scatter: a statement about the current belief, about the initial one.
MODE_MARKERS = {"current": "o", "initial": "^"}
#: Panels a row of the scatter holds, at most.
SCATTER_COLUMNS = 4


#: How a scatter panel's title names a setting's k, conventions, thresholds, inference
#: method, particles, seed and the model's other settings (those that vary among the panels).
_SCATTER_NAMES = ("k {}", "conv. {}", "Θ {}", "{}", "{} particles", "seed {}", "{}")

#: The scatter's ink: not a statement colour (a point is a statement at a point, of any).
MODE_INK = "#3b3b3b"


def _mode_style(mode: str) -> dict:
    """Current: filled circles; initial: hollow triangles (told apart without colour)."""
    if mode == "initial":
        return dict(s=20, marker="^", facecolors="none", edgecolors=MODE_INK, linewidths=0.8, alpha=0.8)
    return dict(s=14, marker=MODE_MARKERS.get(mode, "s"), color=MODE_INK, alpha=0.55, linewidths=0)


def scatter_figure(table: Sequence[dict], ratings: Ratings, drawn: Drawn | None = None):
    """Model L against the mean human rating, one panel per settings in a grid of at
    most :data:`SCATTER_COLUMNS` columns, each with r, the identity line (when the
    ratings are on the model's scale, 0 to 1) and current / initial statements as
    circles / triangles; the panel of the drawn setting says so."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    rated = ratings.by_key
    settings = [s for s in dict.fromkeys(settings_of(r) for r in table)]
    # k, conventions, Θ, inference, particles, seed: named in a title where they vary
    varying = [i for i in range(2, len(Setting._fields)) if len({s[i] for s in settings if not fixed(s)}) > 1]
    columns = min(SCATTER_COLUMNS, len(settings))
    rows = math.ceil(len(settings) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(3.1 * columns + 0.4, 3.1 * rows + 0.9), squeeze=False,
                             constrained_layout=True, sharex=True, sharey=True)
    fig.suptitle("Model L against the mean human rating of each statement at each judgment point", fontsize=10)
    values = np.array(list(rated.values())) if rated else np.array([0.0])
    unit = bool(values.min() >= -1e-9 and values.max() <= 1 + 1e-9)
    chosen = set(drawn.settings.values()) if drawn is not None else set()
    modes = []
    for n, setting in enumerate(settings):
        ax = axes[n // columns][n % columns]
        scored = [r for r in table if settings_of(r) == setting and value_of(r) is not None]
        if unit:
            ax.plot([0, 1], [0, 1], color="black", linewidth=0.9, linestyle="--", alpha=0.6, zorder=3, gid="identity")
        for mode in dict.fromkeys(r["mode"] for r in scored):
            L, y = _pairs([r for r in scored if r["mode"] == mode], rated)
            if len(L):
                ax.scatter(L, y, zorder=2, gid=f"mode:{mode}", **_mode_style(mode))
                modes.append(mode)
        r = _r(*_pairs(scored, rated))
        extra = "".join(", " + _SCATTER_NAMES[i - 2].format(setting[i]) for i in varying if setting[i])
        mark = setting in chosen
        name = setting.model if fixed(setting) else f"{setting.model} (β={float(setting.beta):.3g}{extra})"
        ax.set_title(f"{name}\n"
                     f"r = {'undefined' if math.isnan(r) else f'{r:.3f}'}" + ("  · drawn" if mark else ""),
                     fontsize=8.5, fontweight="bold" if mark else "normal")
        if mark:
            for spine in ax.spines.values():
                spine.set_linewidth(2.0)
        if unit:
            ax.set_xlim(-0.04, 1.04)
            ax.set_ylim(-0.04, 1.04)
            ax.set_aspect("equal")
        ax.grid(alpha=0.2)
        if n // columns == rows - 1 or n + columns >= len(settings):
            ax.set_xlabel("model L", fontsize=8)
            ax.tick_params(labelbottom=True)
        if n % columns == 0:
            ax.set_ylabel("mean human rating", fontsize=8)
        ax.tick_params(labelsize=7.5)
    for n in range(len(settings), rows * columns):
        axes[n // columns][n % columns].set_visible(False)
    handles = [Line2D([], [], linestyle="none", marker=MODE_MARKERS.get(m, "s"), markersize=6, color=MODE_INK,
                      markerfacecolor="none" if m == "initial" else MODE_INK, label=f"{m} belief")
               for m in dict.fromkeys(modes)]
    if unit:
        handles.append(Line2D([], [], color="black", alpha=0.6, linewidth=0.9, linestyle="--",
                              label="identity (L = rating)"))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8, frameon=False)
    # square panels take constrained layout two passes to settle: one here, so that the
    # one savefig makes does not leave the panels' titles under the figure's
    fig.draw_without_rendering()
    return fig


def _goals(rows: Sequence[dict], outdir: Path, formats: Sequence[str], force: bool, inputs: Sequence) -> list[Path]:
    """``goals.csv`` and ``goals.png``/``.svg``: each gem's human share against the
    model's goal posterior at each judgment point."""
    import matplotlib.pyplot as plt

    from elot.study.goals import COLUMNS

    written: list[Path] = []
    table = [{**r, **{c: f"{r[c]:.4g}" for c in ("ticked", "human", "model")}} for r in rows]
    write_study(outdir / "goals.csv", csv_text(table, COLUMNS), force=force, inputs=inputs)
    written.append(outdir / "goals.csv")
    model = np.array([r["model"] for r in rows])
    human = np.array([r["human"] for r in rows])
    r = _r(model, human)
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
                 domain, inputs: Sequence[str | Path], drawn: Drawn) -> list[Path]:
    """One storyboard per rated scenario: its statements' L under each model of
    ``drawn`` at that model's setting, and the human mean ± s.e. (see module docstring)."""
    from elot.draw.storyboard import StoryStatement
    from elot.errors import ElotError
    from elot.study.references import ScenarioRef
    from elot.study.storyboard import attach_ratings, attach_table, storyboard

    written: list[Path] = []
    rated = {k.scenario for k in ratings.keys}
    models = drawn.settings
    for scenario_name in dict.fromkeys(r["scenario"] for r in table):
        if scenario_name not in rated:
            continue
        try:
            ref = ratings.refs.get(scenario_name) or ScenarioRef(scenario_name, domain.front().find(scenario_name),
                                                                 domain)
            scenario = ref.load()
            ref.front.frames(scenario)
        except ElotError:
            continue                     # a table from elsewhere, or a domain that draws nothing: not drawn here
        statements: dict[tuple, StoryStatement] = {}
        values: dict[tuple, dict[int, float]] = defaultdict(dict)
        points = sorted({int(r["t"]) for r in table if r["scenario"] == scenario_name})
        for r in table:
            if r["scenario"] != scenario_name or models.get(r["model"]) != settings_of(r) or (fixed(settings_of(r))
                                                                                        and len(drawn.fixed) < len(models)):
                continue          # language models' values are matched to the models' statements below
            key = (r["statement_id"], r["mode"], r["formula"])
            st = statements.setdefault(key, StoryStatement(r["statement"], r["mode"], formula=r["formula"] or None))
            if fixed(settings_of(r)):
                continue
            if value_of(r) is None:
                st.note = f"not scored: {r.get('error', '')}".strip()
            else:
                values[(key, r["model"])][int(r["t"])] = float(r["L"])
        for (key, model), by_t in values.items():
            statements[key].model[model] = [by_t.get(t) for t in points]
        chosen = list(statements.values())
        for model in drawn.fixed:        # a language model's: matched to the statements as ratings are
            attach_table(chosen, [r for r in table if settings_of(r) == models[model]], scenario_name, points)
        attach_ratings(chosen, ratings, scenario_name, points)
        fig = storyboard(ref, chosen, list(models), points=points,
                         name=scenario_name if scenario_name.startswith("exp") else scenario.name,
                         model_labels={m: drawn.label(m) for m in models}, tables=drawn.fixed)
        slug = file_stem(scenario_name)
        for fmt in formats:
            _save_keep(fig, outdir / f"storyboard-{slug}.{fmt}", written, force, inputs, drawn.describe())
    return written


def _save_keep(fig, path: Path, written: list[Path], force: bool = False, inputs: Sequence = (),
               description: str = "") -> None:
    """Save ``fig`` marked as the report's, with ``description`` (the settings drawn) in
    its metadata."""
    suffix = path.suffix.lstrip(".")
    mark = FIGURE_MARK.decode()
    metadata = {"Date": None, "Creator": mark} if suffix == "svg" else {"Software": mark}
    if description:
        metadata["Description"] = description
    write_study(path, lambda handle: fig.savefig(handle, format=suffix, dpi=120, bbox_inches="tight",
                                                 metadata=metadata), force=force, inputs=inputs)
    written.append(path)
