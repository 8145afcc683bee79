"""``elot stimuli``, ``elot storyboard`` and ``elot design``: the materials of a new
experiment (see docs/experiments.md): the animations participants watch, the paper's
storyboard figure, and which candidate statements are worth asking."""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import replace

from elot.cli import options
from elot.draw.palette import FRAME_SIZE, MIN_CELL
from elot.errors import ElotError


def _default_jobs() -> int:
    return max(1, min(4, os.cpu_count() or 1))


def _add_scenario_list(p) -> None:
    """Several scenarios of one domain, as stimuli and design take them, with the domain's
    options (and the gridworld's dataset experiments)."""
    p.add_argument("scenarios", nargs="+", metavar="SCENARIO",
                   help="scenarios of the domain: .scn files or globs, example names, dataset plan ids (1_1, "
                        "exp2_current/1_1), or 'all'; .trucks files or foodtrucks:ID; a domain's case files")
    options.add_domain_options(p)
    options.add_exp_option(p, how=options.MANY)


def register(subparsers) -> None:
    """Add ``stimuli``, ``storyboard`` and ``design``."""
    p = subparsers.add_parser(
        "stimuli", help="Render a stimulus set: one animation per judgment segment, and stimuli.json.",
        description="For each scenario of any domain that draws its frames, one animated GIF per segment between "
        "judgment points (and MP4 when ffmpeg is on the PATH), drawn as the domain draws it (the gridworld: the "
        "agent's trail, the inventory, doors, keys and gems, and numbered boxes; food trucks as the experiment "
        "showed them); plus stimuli.json in the schema of the paper's survey (name, goal, images, times, "
        "statements, relevant_colors, relevant_boxes, length). The folder is written whole or not at all.")
    _add_scenario_list(p)
    p.add_argument("-o", "--output", required=True, metavar="DIR", type=options.output_file,
                   help="the folder to write (created; replaced only if it is a stimulus set elot wrote, "
                        "unchanged, or with --force)")
    options.add_jobs_option(p, default=_default_jobs())
    size = p.add_mutually_exclusive_group()
    size.add_argument("--size", type=options.whole("--size", 160, 4000, "pixels"), default=None, metavar="PX",
                      help=f"pixels on a frame's longer side, 160 to 4000; each map's cells are as large as fit "
                      f"(default: {FRAME_SIZE})")
    size.add_argument("--cell", type=options.whole("--cell", MIN_CELL, 200, "pixels"), default=None, metavar="PX",
                      help=f"pixels per map cell instead, {MIN_CELL} to 200 (frames of larger maps are then larger)")
    p.add_argument("--loop", action="store_true",
                   help="GIFs play forever (default: once, stopping on the last frame, as the paper's stimuli)")
    options.add_statements_file_option(p)
    options.add_mode_option(p)
    p.add_argument("--from-start", action="store_true",
                   help="each animation replays the plan from its start up to its judgment point (default: "
                   "from the previous judgment point)")
    mp4 = p.add_mutually_exclusive_group()
    mp4.add_argument("--mp4", action="store_true", default=None, help="also write MP4 (needs ffmpeg; the "
                     "default when ffmpeg is on the PATH)")
    mp4.add_argument("--no-mp4", dest="mp4", action="store_false", help="GIF only")
    options.add_force_option(p, "folder", ", or was changed since (a symbolic link: the link itself)")
    p.set_defaults(func=stimuli_command)

    p = subparsers.add_parser(
        "storyboard", help="The paper's Figure-4 layout: map frames at the judgment points over one panel per "
        "statement.",
        description="Map frames at the judgment points, at most five a row (the points reached so far numbered where the "
        "agent stood, keys picked up drawn pale); below them one panel per statement (S1..Sn, its text as the "
        "title): at each judgment point the human mean ± s.e. (with --ratings) and each --model's normalized "
        "likelihood L side by side, and each model of a --table (a language model's ratings from elot baseline, "
        "say) in a style of its own.")
    options.add_scenario_options(p, plan=False)
    options.add_statement_options(p)
    p.add_argument("--ratings", metavar="RATINGS.csv", help="human ratings (elot fit's format)")
    p.add_argument("--table", action="append", default=[], metavar="TABLE",
                   help="a study table (elot baseline's or elot batch's): each of its models is one more series, "
                   "matched to the statements by scenario, mode, t and formula as ratings are (repeatable)")
    p.add_argument("--model", default=None, metavar="MODEL,...",
                   help="the domain's models, drawn side by side, the first solid (default: its first)")
    options.add_beta_option(p, shown="the --thresholds file's, else the domain's")
    options.add_model_parameter_options(p)
    options.add_formula_options(p)
    p.add_argument("-o", "--output", required=True, metavar="FILE", type=options.output_file,
                   help="a .png, .svg or .pdf file")
    options.add_force_option(p)
    p.set_defaults(func=storyboard_command)

    p = subparsers.add_parser(
        "design", help="Rank candidate statements by how informative they are at a scenario's judgment points.",
        description="For each scenario and each candidate statement (English or ELoT): L at every judgment "
        "point under the full model, its range over the points, how far each ablation's L is from the full "
        "model's, and flags for statements that are useless to ask (constant, or ill-typed). Sorted by "
        "informativeness (range, then disagreement).")
    _add_scenario_list(p)
    options.add_statements_file_option(p, required=True)
    options.add_mode_option(p)
    p.add_argument("--ablations", default=None,
                   help="models compared with the full one (default: the domain's other models: the gridworld's "
                        "true-belief,non-planning; food trucks' true-belief,no-cost; '' for none)")
    options.add_beta_option(p, shown="the --thresholds file's, else the domain's")
    options.add_model_parameter_options(p)
    options.add_formula_options(p)
    p.add_argument("--csv", metavar="OUT.csv", type=options.output_file, help="write the table as CSV")
    p.add_argument("--figure", metavar="OUT", type=options.output_file, help="write the chart (.png, .svg or .pdf)")
    options.add_force_option(p)
    p.set_defaults(func=design_command)


def stimuli_command(args) -> int:
    from elot.output import count
    from elot.study.references import DomainRef, check_given, expand, given_items
    from elot.study.stimuli import make_stimuli, owned_folder

    front = options.front_of(args, scenarios=args.scenarios)
    owned_folder(args.output, force=args.force).check()     # before the scenarios are read and drawn
    refs = expand(front, args.scenarios, DomainRef.of(front, args.domain))
    statements = None
    if args.statements:     # the ones chosen with elot design, asked in every scenario
        statements = given_items(files=[args.statements], mode=options.mode_of(args, front))
        if not statements:
            from elot.study.params import StudyError

            raise StudyError(f"{args.statements} holds no statements", hint="one statement a line; # comments")
        # participants are shown only statements elot run would score (checked in every scenario)
        check_given(refs, statements, use="shown", kept="no stimulus set was written")
        seen: dict[tuple[str, str], int] = {}
        for st in statements:
            key = (st.mode, " ".join(st.text.split()))
            if key in seen:
                print(f"warning: {st.origin or args.statements}: the statement repeats statement {seen[key]}, "
                      "so participants would be asked it twice", file=sys.stderr)
            seen.setdefault(key, len(seen) + 1)
    try:
        with options.progress_bar(f"stimuli ({count(len(refs), 'scenario')})") as progress:
            made = make_stimuli(refs, args.output, jobs=args.jobs, mp4=args.mp4, cell_px=args.cell,
                                size_px=args.size, loop=args.loop, from_start=args.from_start, force=args.force,
                                statements=statements, progress=progress)
    except KeyboardInterrupt:
        print(f"interrupted: {args.output} was not written", file=sys.stderr)
        return 130
    images = sum(len(e["images"]) for e in made.entries)
    frames = sum(sum(v) for v in made.frames.values())
    kinds = "GIF and MP4" if made.mp4 else "GIF"
    print(f"wrote {count(len(made.entries), 'scenario')} ({images} {kinds} animations, "
          f"{count(frames, 'frame')}) and stimuli.json to {made.folder}", file=sys.stderr)
    return 0


def _refuse_failures(statements, candidates) -> None:
    from elot.study.params import StudyError

    bad = [(c, st) for c, st in zip(candidates, statements) if c.given and st.error is not None]
    for c, st in bad:
        print(f"{c.text}: {st.note}", file=sys.stderr)
    if bad:
        raise StudyError(f"{len(bad)} of {len(statements)} statement(s) could not be scored",
                         hint="fix the statements above")


def storyboard_command(args) -> int:
    from elot.draw.storyboard import check_figure_target, save_figure
    from elot.study.params import StudyError
    from elot.study.references import DomainRef, ScenarioRef, check_given, expand, given_items
    from elot.study.storyboard import attach_ratings, judgment_points, require_actions, score_candidates, storyboard
    from elot.study.tables import read_study_tables
    from elot.study.tasks import as_option

    inputs = [p for p in (args.ratings, args.statements, *args.table) if p]
    check_figure_target(args.output, force=args.force, inputs=inputs)     # before the inference
    front = options.front_of(args)
    models = list(dict.fromkeys(as_option("model", front.model_name, m)
                                for m in ([m.strip() for m in args.model.split(",") if m.strip()]
                                          if args.model is not None else [None])))
    if not models:
        raise StudyError("--model needs at least one model", hint="e.g. --model full,non-planning")
    params = options.params_of(args, front)
    thresholds, beta = options.thresholds_and_beta(args, front)
    domain = DomainRef.of(front, args.domain)
    spec = args.scenario
    refs = expand(front, [spec], domain) if spec is not None else [ScenarioRef(front.episode(None).name, None, domain)]
    if len(refs) != 1:
        raise StudyError(f"{spec!r} names {len(refs)} scenarios; a storyboard draws one",
                         hint="give one scenario (FILE:NAME or FILE:N for one of a file's; elot report draws one "
                              "per scenario)")
    ref = refs[0]
    episode = ref.load()
    front.frames(episode)    # a domain that draws nothing is refused now, naming the hook
    mode = options.mode_of(args, front)
    tables = read_study_tables(args.table)          # before the inference: a bad table fails fast
    for note in filter(None, (t.repeats_note() for t in tables)):
        print(f"note: {note}", file=sys.stderr)
    # the statements given (in ``mode``; an ``initial:`` or ``current:`` before one says its
    # own), each checked at its place (file:line) as run reports them, else the scenario's own
    given = given_items(args.statement, [args.statements] if args.statements else [], mode)
    if given:
        check_given([ref], given, use="drawn", kept="no storyboard was written")
    candidates = list(given) or [replace(s, given=False) for s in front.questions(episode)]
    if not candidates:
        raise StudyError(f"{episode.name} has no statements", hint="give some with -s or --statements")
    require_actions(episode.name, episode)
    points = judgment_points(episode)
    with _exact_only("a smaller --k, or a map with fewer closed boxes"):
        statements = score_candidates(ref, candidates, models, beta=beta, params=params, thresholds=thresholds,
                                      bind_free=args.bind_free, points=points)
    _refuse_failures(statements, candidates)
    name = ref.name
    if args.ratings:
        from elot.study.fit import UNIT_SCALE, read_ratings

        ratings = read_ratings(args.ratings, domain=domain, scale=UNIT_SCALE)
        if not attach_ratings(statements, ratings, name, points):
            names = sorted({k.scenario for k in ratings.keys})
            raise StudyError(f"{args.ratings} rates no statement of {name} at its judgment points",
                             path=args.ratings, hint="its scenarios: " + ", ".join(names[:10]))
    series = _attach_tables(tables, statements, name, points, models)
    shown_beta = beta if beta is not None else front.model_beta(models[0])
    fig = storyboard(ref, statements, models, points=points, beta=shown_beta,
                     name=name if spec is not None else episode.name, tables=series)
    out = save_figure(fig, args.output, force=args.force, inputs=inputs)
    print(f"wrote {out}", file=sys.stderr)
    return 0


def _attach_tables(tables, statements, scenario_name: str, points, models) -> list[str]:
    """The series each ``--table`` adds (see :func:`elot.study.storyboard.attach_table`),
    or a StudyError for a table with nothing of this scenario's statements. The tables
    are read as ``elot report`` reads them (:func:`elot.study.tables.read_study_tables`):
    a table given twice, or a setting in two of them, is refused rather than drawn twice."""
    from elot.study.params import StudyError
    from elot.study.storyboard import attach_table

    names: list[str] = []
    for table in tables:
        added = attach_table(statements, table.rows, scenario_name, points, taken=[*models, *names])
        if not any(added.values()):
            scenarios = sorted({r["scenario"] for r in table.rows})
            said = ("it has no rows of it; its scenarios: " + ", ".join(scenarios[:10]) if scenario_name not in
                    scenarios else "no row of it has an L for a statement shown here (by mode, t and formula)")
            raise StudyError(f"no value to draw for {scenario_name}: {said}", path=table.path,
                             hint="give the table of this scenario's statements (elot baseline or elot batch "
                                  "on the same scenario)")
        names += added
    return names


def design_command(args) -> int:
    from elot.draw.storyboard import check_figure_target, design_figure, save_figure
    from elot.statements import read_statements
    from elot.output import check_target, same_file, write_output
    from elot.study.design import design_csv, design_rows
    from elot.study.params import StudyError
    from elot.study.references import DomainRef, expand
    from elot.study.tasks import as_option

    inputs = [args.statements]
    if args.csv and args.figure and args.csv != "-" and (
            os.path.abspath(args.csv) == os.path.abspath(args.figure) or same_file(args.csv, args.figure)):
        raise StudyError(f"--csv and --figure both name {args.figure}", hint="give the table and the chart two files")
    if args.csv:
        check_target(args.csv, force=args.force, option="--csv", inputs=inputs)
    if args.figure:
        check_figure_target(args.figure, force=args.force, option="--figure", inputs=inputs)
    front = options.front_of(args, scenarios=args.scenarios)
    full = front.model_name(None)
    given = None if args.ablations is None else [m.strip() for m in args.ablations.split(",") if m.strip()]
    if given is not None and ("full" in given or full in given):
        raise StudyError(f"--ablations: {full} is the model the ablations are compared with, not an ablation",
                         hint="give the ablations only, e.g. --ablations " + ",".join(front.ablations))
    ablations = front.ablations if given is None else list(dict.fromkeys(
        as_option("ablations", front.model_name, m) for m in given))
    params = options.params_of(args, front)
    thresholds, beta = options.thresholds_and_beta(args, front)
    candidates = read_statements(args.statements, options.mode_of(args, front))
    if not candidates:
        raise StudyError(f"{args.statements} holds no statements", path=args.statements,
                         hint="one statement per line (English or ELoT)")
    refs = expand(front, args.scenarios, DomainRef.of(front, args.domain))
    scenarios = [(front.design_name(ref.load()), ref) for ref in refs]
    with _exact_only("a map with fewer closed boxes, or fewer colours of hidden keys"):
        rows = design_rows(scenarios, candidates, ablations=ablations, beta=beta, params=params,
                           thresholds=thresholds, bind_free=args.bind_free)
    shown_beta = beta if beta is not None else front.model_beta(full)
    _print_design(rows, ablations)
    if args.csv:
        write_output(args.csv, design_csv(rows), force=args.force, option="--csv", inputs=inputs)
    if args.figure:
        where = scenarios[0][0] if len(scenarios) == 1 else f"{len(scenarios)} scenarios"
        fig = design_figure(rows, title=f"How informative each candidate statement is at the judgment points "
                                        f"of {where} (β = {shown_beta:.3g})", order=[c.text for c in candidates])
        try:
            save_figure(fig, args.figure, force=args.force, option="--figure", inputs=inputs)
        except ElotError as error:   # the table is written already: say so, it is not lost
            if args.csv and args.csv != "-":
                error.notes = (*error.notes, f"the table was written to {args.csv}")
            raise
    _say_written(args.csv, args.figure, len(rows))
    return 0


@contextlib.contextmanager
def _exact_only(instead: str):
    """A space too large for exact enumeration, said for a command that has no particle
    inference to fall back on (the library's advice names ``--inference smc``)."""
    from elot.engine.budget import OverBudget
    from elot.study.params import StudyError

    try:
        yield
    except OverBudget as error:
        raise StudyError(f"{error.size}; this command enumerates the hypotheses exactly",
                         hint=f"use {instead}; elot run and elot batch can use particle inference "
                              "(--inference smc) on this map") from None


def _say_written(table: str | None, figure: str | None, rows: int) -> None:
    """Which files ``design`` wrote (on standard error, as every command says it)."""
    from elot.output import count

    said = []
    if table:
        said.append(f"the table ({count(rows, 'row')}) to " + ("standard output" if table == "-" else table))
    if figure:
        said.append(f"the chart to {figure}")
    if said:
        print("wrote " + " and ".join(said), file=sys.stderr)


def _print_design(rows, ablations) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from elot.study.design import indistinguishable_groups

    # the terminal's width ($COLUMNS; 80 when piped): long statements and flags fold
    out = Console(highlight=False, soft_wrap=False)
    table = Table(title="Candidate statements, most informative first (L under the full model)",
                  title_justify="left")
    several = len({row["scenario"] for row in rows}) > 1
    table.add_column("#", justify="right", no_wrap=True)
    if several:
        table.add_column("scenario", overflow="fold", max_width=12)
    # the same text as current and as initial is two rows: each says its mode, as the chart does
    modes = len({row["mode"] for row in rows}) > 1
    table.add_column("statement", overflow="fold", min_width=12)
    table.add_column("L at the points", max_width=9)
    table.add_column("first→\nlast", justify="right", no_wrap=True)    # signed: the direction of change
    table.add_column("range", justify="right", no_wrap=True)
    for a in ablations:     # the largest |L(full) - L(ablation)| over the points
        table.add_column(f"Δ {a}".replace("-", "-\n"), justify="right", no_wrap=True)
    table.add_column("flag", overflow="fold", min_width=10, max_width=14)

    def number(value, signed: bool = False) -> str:
        if value == "":
            return "—"
        if signed and round(value, 2):
            return f"{value:+.2f}".replace("-", "−")
        return f"{abs(value) if signed else value:.2f}"

    for row in rows:
        values = " ".join(f"{v:.2f}" for v in row["values"]) if row["values"] else "—"
        shown = f"[{row['mode'][:3]}] {row['statement']}" if modes else row["statement"]
        table.add_row(str(row["rank"]), *([row["scenario"]] if several else []), Text(shown), values,
                      number(row["change"], signed=True), number(row["range"]),
                      *(number(row[f"disagree_{a}"]) for a in ablations),
                      row["flag"] + (f": {row['note']}" if row.get("note") else ""))
    out.print(table, crop=False)
    groups = indistinguishable_groups(rows)
    if groups:
        said = "; ".join(" = ".join(f"#{r['rank']}" for r in group) for group in groups)
        out.print(f"No judgment point tells these apart (the same L at every point under every model), so ask one "
                  f"of each: {said}")
