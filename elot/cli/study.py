"""``elot batch``, ``elot fit``, ``elot simulate`` and ``elot report``: the study workflow
(see docs/study.md and :mod:`elot.study`)."""

from __future__ import annotations

import dataclasses
import math
import os
import sys
from pathlib import Path

from elot.cli import options
from elot.engine.settings import Budget
from elot.errors import ElotError
from elot.settings import check_number
from elot.output import count


def _list(text: str, option: str, number: str | None = None) -> list:
    """The comma-separated values of ``option``: strings, or the number ``number`` of
    :data:`elot.settings.NUMBERS` (checked as the single-valued options are)."""
    from elot.errors import ElotError
    from elot.study.params import StudyError  # here, not at the top: elot --help needs no numpy

    out = []
    for item in filter(None, (p.strip() for p in text.split(","))):
        try:
            out.append(check_number(number, item) if number else item)
        except ElotError as error:
            raise StudyError(f"{option}: {error.message}", hint=error.hint) from None
    if not out:
        raise StudyError(f"{option} needs at least one value")
    return out


#: The most β values a range may give (each is a task per scenario and model).
MAX_BETAS = 1000


def parse_betas(text: str) -> list[float]:
    """``0.5,1,2`` or a range ``START:STOP:xFACTOR`` (geometric) / ``START:STOP:STEP``."""
    from elot.study.params import StudyError
    if ":" not in text:
        return _list(text, "--beta", "beta")
    parts = text.split(":")
    try:
        start, stop = float(parts[0]), float(parts[1])
        step = parts[2] if len(parts) > 2 else "x1.4142135623730951"
        geometric = step.startswith("x")
        size = float(step[1:] if geometric else step)
    except (ValueError, IndexError):
        raise StudyError(f"--beta: cannot read the range {text!r}", hint="e.g. 0.5:4:x1.41421356 or 1:3:0.5") from None
    if not (start > 0 and stop >= start and (size > 1 if geometric else size > 0)):
        raise StudyError(f"--beta: the range {text!r} is empty or endless", hint="e.g. 0.5:4:x1.41421356")
    ratio = math.log(stop / start) / math.log(size) if geometric else (stop - start) / size
    if ratio >= MAX_BETAS:
        raise StudyError(f"--beta: the range {text!r} gives {math.floor(ratio) + 1:,} values, more than {MAX_BETAS:,}",
                         hint="take a larger step, e.g. x2 or x1.41421356 for a geometric range")
    out, value, n = [], start, 0
    while value <= stop * (1 + 1e-9):
        # 0.5·√2² is 1.0000000000000002: a value a few ulps from a short one is that one
        short = float(f"{value:.6g}")
        out.append(short if abs(short - value) <= 4 * math.ulp(value) else value)
        n += 1
        value = start * size ** n if geometric else start + size * n
    return out


def register(subparsers) -> None:
    """Add ``batch``, ``fit``, ``simulate`` and ``report``."""
    p = subparsers.add_parser(
        "batch", help="Score many scenarios × statements × settings into one tidy table (CSV or Parquet).",
        description="Run every scenario under every setting and score every statement at every judgment "
        "point: one row per (scenario, settings, statement, mode, t). One task per (scenario, model, β, k, "
        "conventions), run serially, in local processes (--jobs) or on a Dask cluster (--dask).")
    p.add_argument("scenarios", nargs="+", metavar="SCENARIO",
                   help="scenarios of the domain: in the gridworld .scn files or globs, example names, dataset plan "
                        "ids (1_1, exp1/1_1), or 'all'; food trucks' ids (1-78, or all) and .trucks files; a domain's "
                        "case files")
    options.add_domain_options(p)
    options.add_exp_option(p, how=options.MANY, default="exp1,exp2")
    options.add_batch_statement_options(p)
    options.add_mode_option(p)
    options.add_grid_options(p)
    options.add_thresholds_option(p, how=options.MANY)
    options.add_inference_method_option(p, how=options.MANY)
    options.add_particles_option(p)
    options.add_seed_option(p, of="every particle inference")
    options.add_filter_options(p)
    p.add_argument("-o", "--output", required=True, metavar="OUT", type=options.output_file, help="the table: .csv, .parquet, or - for stdout")
    p.add_argument("--format", choices=("csv", "parquet"), help="table format (default: from OUT's suffix)")
    options.add_jobs_option(p)
    p.add_argument("--dask", metavar="ADDRESS", default=os.environ.get("ELOT_DASK_SCHEDULER"),
                   help="a Dask scheduler (tcp://host:8786; default: $ELOT_DASK_SCHEDULER)")
    p.add_argument("--resume", action="store_true", help="finish an interrupted batch writing OUT")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when any row could not be scored (the table is still written)")
    options.add_force_option(p)
    p.set_defaults(func=batch_command)

    p = subparsers.add_parser(
        "fit", help="Fit thresholds Θ and β to human ratings (Pearson r), with bootstrap intervals.",
        description="Fit Θ by grid coordinate ascent (step 0.05, ±0.2 around the defaults every command uses) "
        "and β over a grid, maximizing Pearson r between L and the mean rating, for each model (the first is "
        "primary, the others ablations). A threshold the ratings do not constrain is reported and left at its "
        "start. Ratings: CSV with scenario,mode,t,statement,rating (a batch table with a rating column is one); "
        "other columns are factors.")
    p.add_argument("ratings", metavar="RATINGS.csv")
    options.add_domain_options(p)
    p.add_argument("--model", default=None, metavar="MODEL,...",
                   help="the domain's models, the first primary, the others ablations (default: every model of the "
                        "domain: the gridworld's full,true-belief,non-planning; a tabular domain's btom,true-belief,"
                        "no-cost)")
    options.add_beta_option(p, how=options.MANY, shown="the gridworld: 0.5 to 4 in ×√2 steps; a tabular domain: 0.5 "
                                                       "to 10 in steps of 0.5")
    options.add_model_parameter_options(p, param_grid=True)     # each model fitted at each setting given
    p.add_argument("--start", metavar="FILE", help="starting thresholds (default: the defaults every command "
                   "uses, the paper's fitted values)")
    p.add_argument("--minimize", action="store_true", help="minimize r instead (the adversarial check)")
    p.add_argument("--measure", choices=("L", "P"), default="L",
                   help="what is correlated with the ratings: L, the normalized likelihood, or P, the posterior "
                        "probability (ratings of how probable each statement is, such as ratings of each goal's "
                        "probability) (default: %(default)s)")
    p.add_argument("--samples", type=options.number("samples"), default=1000,
                   help="bootstrap samples (default: %(default)s)")
    options.add_seed_option(p, of="the bootstrap", default=0)
    p.add_argument("-o", "--output", metavar="FILE", type=options.output_file, help="write the fitted Θ and β as JSON (- for stdout)")
    p.add_argument("--evaluations", metavar="FILE", type=options.output_file, help="write every evaluation of the search as CSV")
    options.add_force_option(p)
    p.set_defaults(func=fit_command)

    p = subparsers.add_parser(
        "simulate", help="Make synthetic ratings from a batch table (L plus noise) to test a fit.",
        description="Ratings from a batch table: each scored row's L plus Gaussian noise, clipped to the "
        "rating scale [0, 1].")
    p.add_argument("table", metavar="TABLE")
    p.add_argument("--noise", type=options.number("noise"), default=0.05,
                   help="noise standard deviation (default: %(default)s)")
    options.add_seed_option(p, of="the noise", default=0)
    setting = p.add_argument_group(
        "the setting to simulate", "one value each; needed where the table holds more than one")
    options.add_variant_option(setting, how=options.PICK, default=None)
    options.add_beta_option(setting, how=options.PICK)
    options.add_k_option(setting)
    options.add_conventions_option(setting)
    options.add_thresholds_option(setting, how=options.PICK)
    p.add_argument("-o", "--output", required=True, metavar="OUT.csv", type=options.output_file)
    options.add_force_option(p)
    p.set_defaults(func=simulate_command)

    p = subparsers.add_parser(
        "report", help="Figures and a summary table from batch tables (and ratings).",
        description="Write summary.md/.csv (per settings: mean L; r and 95% CI with ratings), a model-vs-human "
        "scatter per settings in a grid (with --ratings), each scenario's curves of L at its judgment points, and "
        "with --ratings a storyboard per rated scenario (the paper's Figure 4). Curves, storyboards and goals draw "
        "one setting per model: --fit's, --beta's, else the best r in the table; the report says which. Several "
        "tables are read as one: a batch table and a language model's (elot baseline), say, whose model has no β "
        "and is drawn at its one setting.")
    p.add_argument("table", metavar="TABLE", nargs="+", help="tables elot batch or elot baseline wrote")
    p.add_argument("--ratings", metavar="RATINGS.csv")
    p.add_argument("--goals", metavar="GOALS.csv", help="participants' goal answers (elot survey import): a table "
                   "and a figure against the model's goal posterior (at the drawn setting)")
    setting = p.add_argument_group(
        "the setting curves, storyboards and goals draw",
        "default: with --ratings, each model's setting of best r in the table; else the table's own; the "
        "report says which")
    which = setting.add_mutually_exclusive_group()
    which.add_argument("--fit", metavar="FIT.json", help="the fitted setting elot fit -o wrote (its model, β and "
                       "each ablation's β)")
    options.add_beta_option(which, how=options.PICK, shown="see above")
    options.add_variant_option(setting, how=options.PICK, default=None,
                               note="; the model drawn first (default: the fit's, else the table's first)")
    options.add_domain_options(p)
    p.add_argument("-o", "--output", required=True, metavar="DIR", type=options.output_file, help="the folder to write into")
    p.add_argument("--format", default="png,svg", help="figure formats (default: %(default)s)")
    p.add_argument("--no-curves", action="store_true", help="skip the per-scenario curves")
    p.add_argument("--no-storyboards", action="store_true",
                   help="skip the per-scenario storyboards drawn when ratings are given")
    options.add_force_option(p)
    p.set_defaults(func=report_command)


def batch_command(args) -> int:
    from elot.lang.thresholds import Thresholds
    from elot.study.params import Params, thresholds_option
    from elot.study.references import DomainRef, expand, given_items
    from elot.study.tasks import Grid, plan_tasks

    params = [thresholds_option(t) for t in args.thresholds] or [Params(Thresholds())]
    files: dict[str, set[str]] = {}   # a/fit.json and b/fit.json: the table tells them apart by path
    for p, given in zip(params, args.thresholds):
        files.setdefault(p.label, set()).add(os.path.realpath(given))
    params = [dataclasses.replace(p, label=given) if len(files[p.label]) > 1 else p
              for p, given in zip(params, args.thresholds)] or params
    if args.beta is not None:
        betas = parse_betas(args.beta)
    else:   # the thresholds files' β, else the domain's model's own
        betas = list(dict.fromkeys(p.beta for p in params if p.beta is not None)) or [None]
    front = options.front_of(args, scenarios=args.scenarios)
    methods = _list(args.inference, "--inference")
    options.refuse_unused_sampling(args, methods)
    grid = Grid(models=tuple(_list(args.model, "--model")) if args.model else (None,), betas=tuple(betas),
                params=tuple(options.params_of(args, front, many=True).items()), methods=tuple(methods),
                inference=options.inference_of(args), budget=Budget(max_bytes=args.max_memory))
    refs = expand(front, args.scenarios, DomainRef.of(front, args.domain))
    items = given_items(args.statement, args.statements, options.mode_of(args, front))
    tasks = plan_tasks(refs, grid, items=items or None, thresholds=params)
    inputs = [f for ref in refs for f in front.episode_inputs(ref.load())]
    return _run_batch(args, tasks, list(dict.fromkeys(inputs)) + list(args.statements) + list(args.thresholds))


def _run_batch(args, tasks, inputs) -> int:
    """Run a batch's tasks into ``args.output`` with a progress bar, and say what was
    written (the gridworld's tasks and a domain's alike); an interrupt keeps the finished
    tasks for ``--resume`` and exits 130."""
    from elot.study.batch import batch

    fmt = args.format or ("parquet" if args.output.endswith(".parquet") else "csv")
    try:
        with options.progress_bar(f"batch ({count(len(tasks), 'task')})") as progress:
            result = batch(tasks, args.output, fmt=fmt, jobs=args.jobs, dask=args.dask, resume=args.resume,
                           force=args.force, progress=progress, inputs=inputs)
    except KeyboardInterrupt:
        if args.output != "-" and os.path.exists(f"{args.output}.partial"):
            print(f"interrupted: finished tasks are kept in {args.output}.partial; "
                  "rerun the same command with --resume to finish", file=sys.stderr)
        elif args.output != "-":
            print(f"interrupted before any task was kept: nothing was written to {args.output}",
                  file=sys.stderr)
        return 130
    where = "standard output" if args.output == "-" else args.output
    resumed = f", {result.resumed} already done" if result.resumed else ""
    print(f"wrote {count(result.rows, 'row')} ({count(len(tasks), 'task')}{resumed}) to {where}", file=sys.stderr)
    for line in result.failures.lines():
        print(line, file=sys.stderr)
    return 1 if args.strict and result.failures.rows else 0


def _rated_scenarios(path: str) -> list[str]:
    """The scenario names of a ratings file, which say its domain when --domain does not
    (a .trucks file's scenarios are food trucks'); none where the file cannot be read: the
    fit reads it again and says why."""
    import csv

    try:
        with open(path, newline="", encoding="utf-8") as handle:
            return list(dict.fromkeys(row.get("scenario") or "" for row in csv.DictReader(handle)))
    except (OSError, UnicodeDecodeError, csv.Error):
        return []


def fit_command(args) -> int:
    from elot.output import same_file
    from elot.study.fit import BETA_GRID, fit, read_ratings, simulated_outside
    from elot.study.params import StudyError, check_replace, read_params
    from elot.study.references import DomainRef
    from elot.study.tasks import as_option

    front = options.front_of(args, scenarios=_rated_scenarios(args.ratings))
    given = options.params_of(args, front, many=True)     # --param epsilon=0.05,0.1: a grid to fit over

    def checked(p, value):
        check = lambda v: None if v is None else p.check(v)      # noqa: E731
        if isinstance(value, tuple):
            return tuple(as_option(p.option.lstrip("-"), check, v) for v in value)
        return as_option(p.option.lstrip("-"), check, value)

    params = {p.name: checked(p, given[p.name]) for p in front.parameters}
    models = [as_option("model", front.model_name, m) for m in _list(args.model, "--model")] if args.model else \
        [front.model_name(None), *front.ablations]
    betas = parse_betas(args.beta) if args.beta is not None else list(BETA_GRID if not front.sweeps_betas
                                                                      else DOMAIN_BETAS)
    start = read_params(args.start).thresholds if args.start else None
    inputs = [p for p in (args.ratings, args.start) if p]
    for target, option in ((args.output, "-o"), (args.evaluations, "--evaluations")):
        if target:
            check_replace(target, force=args.force, inputs=inputs, option=option)   # before the fit
    if args.output and args.evaluations and args.output != "-" and same_file(args.output, args.evaluations):
        raise StudyError("-o and --evaluations name the same file", hint="give each its own file name")
    ratings = read_ratings(args.ratings, domain=DomainRef.of(front, args.domain))
    for warning in simulated_outside(ratings, models, betas):
        print(f"warning: {warning}", file=sys.stderr)
    with options.progress_bar("fitting") as bar:
        progress = (lambda model, done, total: bar(done, total)) if bar else None
        result = fit(ratings, models=models, betas=betas, minimize=args.minimize, start=start, samples=args.samples,
                     seed=args.seed, progress=progress, measure=args.measure, **params)
    return _fit_outputs(args, result, inputs)


#: β a domain's fit searches by default: 0.5 to 10 in steps of 0.5, the food-truck authors' grid.
DOMAIN_BETAS = tuple(n / 2 for n in range(1, 21))


def _fit_outputs(args, result, inputs) -> int:
    """What ``elot fit`` prints and writes once the fit is done (the gridworld's and a domain's)."""
    from elot.output import csv_text
    from elot.study.fit import fit_json
    from elot.study.params import write_params, write_study

    _print_fit(result)
    best = result.best
    if args.output:
        write_params(args.output, best.thresholds, best.beta, force=args.force, inputs=inputs, **fit_json(result))
    if args.evaluations:
        rows = [e for f in result.models.values() for e in f.evaluations]
        write_study(args.evaluations, csv_text(rows), force=args.force, inputs=inputs, option="--evaluations")
    return 0


def _print_fit(result) -> None:
    from rich.console import Console
    from rich.table import Table

    from elot.study.fit import R_TOLERANCE
    from elot.study.params import FITTED

    out = Console(highlight=False, soft_wrap=False, width=max(100, Console().width))
    ratings = result.ratings
    skipped = f", {ratings.skipped} rows with errors skipped" if ratings.skipped else ""
    out.print(f"{len(ratings.keys)} rated statements ({int(ratings.count.sum())} ratings{skipped}); "
              f"{'minimizing' if result.minimize else 'maximizing'} Pearson r"
              + (f" with {result.measure}" if result.measure != "L" else ""))
    if ratings.participants:
        from elot.study.fit import split_half

        reliability = split_half(ratings)
        said = "—" if reliability is None else f"{reliability:.2f}"
        out.print(f"{len(ratings.participants)} participants; split-half reliability of the human means {said} "
                  f"(Spearman–Brown, 200 splits)")
    table = Table(title="Fit: Pearson r (bootstrap 95% CI)", title_justify="left")
    conditions = ("current", "initial")
    if result.with_params:      # a settings column, and only the conditions rated, so that the table fits
        conditions = tuple(c for c in conditions if any(c in fit.conditions for fit in result.models.values()))
    columns = ("model", "β", *(("settings",) if result.with_params else ()), "all", *conditions)
    for column in columns:
        table.add_column(column, justify="left" if column in ("model", "settings") else "right")
    undefined = []
    for fit in result.models.values():
        cells = {"all": fit.overall, **{c: fit.conditions.get(c) for c in conditions}}
        for column, f in cells.items():
            if f is not None and math.isnan(f.r):
                undefined.append(f"{fit.model}, {column} ({f.undefined})")
        shown = (_settings_text(fit),) if result.with_params else ()
        table.add_row(fit.model, f"{fit.beta:.3g}", *shown, *("—" if f is None else f"undefined n={f.n}" if math.isnan(f.r)
                                                      else f"{f} n={f.n}" for f in cells.values()))
    out.print(table)
    if undefined:       # the reason beside the table, which stays narrow
        out.print("r is undefined (L or the ratings are the same for every statement) for " + "; ".join(undefined))
    if result.with_params and len(result.models) > 1:
        chosen = result.chosen
        out.print(f"Chosen by these ratings: {chosen.model} (β {chosen.beta:.3g}"
                  + "".join(f", {k} {v:g}" for k, v in chosen.params.items()) + f"), r = {chosen.overall.r:.3f}")
    tried = [f"{fit.model} {fit.settings_tried}" for fit in result.models.values() if fit.settings_tried > 1]
    if tried:
        out.print(f"Settings tried (each with every β): {', '.join(tried)}")
    flat = [fit for fit in result.models.values() if fit.ties]
    if flat:
        out.print(f"Flat optima (r within {R_TOLERANCE:g} of the best; reported: the smallest β, "
                  f"thresholds nearest the start):")
    for fit in flat:
        settings = ", ".join(f"{'β' if name == 'beta' else name} {values[0]:.3g}–{values[-1]:.3g} ({len(values)})"
                             for name, values in fit.ties.items())
        out.print(f"  {fit.model}: {settings}")
    best = result.best
    if result.with_params and len(best.unconstrained) == len(FITTED):
        # ratings of goals alone: wants is true in its goal's row whatever its threshold
        out.print("Thresholds: these ratings constrain none (no rated statement depends on one): left at their start")
    else:
        thresholds = Table(title=f"Thresholds ({best.model})", title_justify="left")
        thresholds.add_column("threshold")
        thresholds.add_column("start", justify="right")
        thresholds.add_column("fitted", justify="right")
        thresholds.add_column("")
        for name in FITTED:
            thresholds.add_row(name, f"{getattr(result.start, name):.2f}", f"{getattr(best.thresholds, name):.2f}",
                               "unconstrained" if name in best.unconstrained else "")
        out.print(thresholds)
        if best.unconstrained:
            out.print(f"Unconstrained: {', '.join(best.unconstrained)} (no rated statement uses them, or r is the "
                      "same at every value tried): left at their start")
    for name, values in best.factors.items():
        factor = Table(title=f"By {name} ({best.model})", title_justify="left")
        for column in ("value", "n", "r", "95% CI"):
            factor.add_column(column, justify="left" if column == "value" else "right")
        for value, f in values.items():
            factor.add_row(value, str(f.n), *((str(f), "") if math.isnan(f.r) else
                                              (f"{f.r:.2f}", f"[{f.low:.2f}, {f.high:.2f}]")))
        out.print(factor)


def _settings_text(fit) -> str:
    """A model's settings besides β, as the fit's table shows them."""
    return " ".join(f"{name}={value:g}" for name, value in fit.params.items()) or "—"


def simulate_command(args) -> int:
    from elot.output import csv_text
    from elot.study.tables import read_table
    from elot.study.fit import synthetic_ratings
    from elot.study.params import StudyError, check_replace, write_study

    from elot.study.fit import one_setting

    check_replace(args.output, force=args.force, inputs=[args.table])
    chosen = {name: getattr(args, name) for name in ("model", "beta", "k", "conventions", "thresholds")}
    table, setting = one_setting(read_table(args.table), chosen, source=args.table)
    rows = synthetic_ratings(table, noise=args.noise, seed=args.seed)
    if not rows:
        raise StudyError(f"{args.table} has no scored rows", path=args.table)
    write_study(args.output, csv_text(rows), force=args.force, inputs=[args.table])
    if args.output != "-":
        said = ", ".join(f"{name} {float(value):.3g}" if name == "beta" else f"{name} {value}"
                         for name, value in setting.items() if value != "")     # a language model has no β
        params = next((row.get("params") for row in table if row.get("params")), "")   # a PDDL model's settings
        said += f", {params}" if params else ""
        print(f"wrote {len(rows)} ratings to {args.output} (simulated from {said})", file=sys.stderr)
    return 0


def report_command(args) -> int:
    from elot.study.tables import Failures, fixed, read_study_tables
    from elot.study.fit import UNIT_SCALE, read_ratings
    from elot.study.report import choose_drawn, read_fit, report
    from elot.study.params import StudyError

    formats = list(dict.fromkeys(_list(args.format, "--format")))     # png,png draws each figure once
    for fmt in formats:
        if fmt not in ("png", "svg"):
            raise StudyError(f"--format: unknown figure format {fmt!r}", hint="use png, svg or png,svg")
    fit = read_fit(args.fit) if args.fit else None
    tables = read_study_tables(args.table)
    table = [row for t in tables for row in t.rows]
    from elot.study.references import DomainRef

    front = options.front_of(args, scenarios=[])
    # a model of the table (a language model's label/condition, say), else one of the domain's
    model, theirs = args.model, sorted({r["model"] for r in table})
    if model and model not in theirs:
        try:
            model = front.model_name(model)
        except ElotError as error:
            error.hint = (f"the table's models: {', '.join(theirs)}; {error.hint}; "
                          "a table of another domain is read with its --domain")
            raise
    domain = DomainRef.of(front, args.domain)
    ratings = read_ratings(args.ratings, domain=domain, scale=UNIT_SCALE) if args.ratings else None
    drawn = choose_drawn(table, ratings, fit=fit, fit_name=Path(args.fit).name if args.fit else "",
                         beta=args.beta, model=model)
    goals = None
    if args.goals:
        from elot.study.goals import compare_goals, read_goal_answers

        tuned = [s for s in drawn.settings.values() if not fixed(s)]
        if not tuned:
            raise StudyError("--goals compares the model's goal posterior with the answers, and the tables hold "
                             "only language models", hint="give a table elot batch wrote too")
        setting = tuned[0]
        params = {name: value for name, value in (("k", int(setting.k) if setting.k else None),
                                                  ("conventions", setting.conventions or None))
                  if any(p.name == name for p in front.parameters)}
        goals = compare_goals(read_goal_answers(args.goals), model=setting.model or None,
                              beta=float(setting.beta) if setting.beta else None, params=params, domain=domain,
                              base=Path(args.goals).parent)
    written = report(table, Path(args.output), ratings, force=args.force, formats=formats,
                     curves=not args.no_curves, storyboards=not args.no_storyboards, domain=domain,
                     inputs=[p for p in (*args.table, args.ratings, args.goals, args.fit) if p], goals=goals,
                     drawn=drawn)
    print(f"wrote {count(len(written), 'file')} to {args.output}", file=sys.stderr)
    for note in filter(None, (t.repeats_note() for t in tables)):
        print(f"note: {note}", file=sys.stderr)
    print(f"drawn: {drawn.describe()}: {drawn.said()}", file=sys.stderr)
    for note in drawn.notes:
        print(f"note: {note}", file=sys.stderr)
    for line in Failures.of(table).lines():
        print(line, file=sys.stderr)
    return 0
