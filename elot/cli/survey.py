"""``elot survey build|serve|export|import``: the stimuli shown to people in a browser,
and their answers back to ``elot fit`` (see docs/experiments.md)."""

from __future__ import annotations

import argparse
import os
import sys

from elot.cli import options


def _positive(name: str):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, not {text!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"{name} must be 1 or more, not {value}")
        return value
    return parse


def _pair(text: str) -> list[str]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(parts):
        raise argparse.ArgumentTypeError(f"a pair is two scenario names, A,B, not {text!r}")
    return parts


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--port must be a whole number, not {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"--port must be between 0 and 65535, not {value}")
    return value


def register(subparsers) -> None:
    """Add ``survey`` with its subcommands."""
    p = subparsers.add_parser(
        "survey", help="Build a browser survey from a stimulus set, serve it, export it, import its answers.",
        description="A jsPsych experiment from a stimulus set (build), served with every answer stored as it "
        "arrives (serve), exported for JATOS or any static host (export), and its answers made into the "
        "ratings file elot fit reads (import).")
    sub = p.add_subparsers(dest="survey_command", metavar="SUBCOMMAND")
    sub.required = True

    b = sub.add_parser(
        "build", help="Build the survey of a stimulus set (jsPsych 8).",
        description="Consent, instructions, a tutorial with a comprehension check, then per scenario its "
        "segments in order (the animations play in the page and can be replayed), at each judgment point the "
        "goal checkboxes and the statements on 1-7 sliders that must be moved, and a debrief. Counterbalanced "
        "orders are made here; jsPsych is installed with npm into a cache (once) and copied into the survey.")
    b.add_argument("stimuli", metavar="STIMULI", help="a stimulus set folder written by elot stimuli")
    b.add_argument("-o", "--output", required=True, metavar="SURVEY", type=options.output_file,
                   help="the folder to write (replaced only if it is a survey elot built that holds no answers; files "
                        "you put there are kept)")
    b.add_argument("--scenarios", nargs="+", metavar="SCENARIO",
                   help="the scenarios elot stimuli was given (default: each stimulus name as a dataset plan id "
                        "or a built-in scenario)")
    options.add_labtom_option(b)
    b.add_argument("--exp", default="exp2_current", help="dataset experiment of plan ids (default: %(default)s)")
    b.add_argument("--settings", metavar="FILE.json", help="a survey settings file (JSON); options override it")
    b.add_argument("--per-participant", type=_positive("--per-participant"), metavar="N",
                   help="scenarios each participant sees, controls not counted (default: as many as the pairs "
                        "allow)")
    b.add_argument("--statements-per-point", type=_positive("--statements-per-point"), metavar="N",
                   help="statements rated at each judgment point (default: 2)")
    b.add_argument("--condition", choices=("current", "initial", "both"),
                   help="which statements are asked: current or initial ones, or both as separate groups "
                        "(default: current)")
    b.add_argument("--pair", action="append", type=_pair, metavar="A,B",
                   help="two scenarios no participant sees together (repeatable)")
    b.add_argument("--control", action="append", metavar="NAME",
                   help="a control scenario everyone sees, taking each place equally often (repeatable)")
    b.add_argument("--orders", type=_positive("--orders"), metavar="N",
                   help="counterbalanced orders per condition, at most 10,000 (default: 12)")
    b.add_argument("--seed", type=int, help="seed of the orders (default: 0)")
    b.add_argument("--completion-url", metavar="URL", help="where participants go at the end (Prolific's "
                   "completion URL)")
    b.add_argument("--title", help="the page's title")
    b.add_argument("--npm-cache", metavar="DIR", help="where npm installs jsPsych (default: $ELOT_NPM_CACHE, else "
                   "~/.cache/elot/npm)")
    b.add_argument("--cdn", action="store_true", help="load jsPsych from unpkg.com instead of copying it in")
    options.add_force_option(b, "folder", ", or files elot wrote there were edited since (experiment.js, index.html); "
                             "files elot never wrote are kept, and a survey holding answers is never replaced")
    b.set_defaults(func=build_command)

    s = sub.add_parser(
        "serve", help="Serve a survey, storing every answer as it arrives (SQLite).",
        description="Serves the survey's files (nothing else: never the database) and stores each trial as it "
        "arrives; each arriving participant gets the order fewest have started; a returning one (same "
        "PROLIFIC_PID or session) continues where they were. Listens on 127.0.0.1 unless --host says otherwise.")
    s.add_argument("survey", metavar="SURVEY", help="a folder written by elot survey build")
    s.add_argument("--port", type=_port, default=8000, help="port (default: %(default)s; 0 picks a free one)")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s, this machine "
                   "only; 0.0.0.0 for every network)")
    s.add_argument("--db", metavar="FILE", help="the answers database (default: SURVEY/responses.sqlite)")
    s.set_defaults(func=serve_command)

    e = sub.add_parser(
        "export", help="Write a survey as a static site (folder or .zip) for JATOS or any web host.",
        description="The survey's files without the server or the database; the page then keeps its data in "
        "jsPsych (JATOS receives them; elsewhere participants can download them), and elot survey import reads "
        "the platform's JSON or CSV export.")
    e.add_argument("survey", metavar="SURVEY", help="a folder written by elot survey build")
    e.add_argument("-o", "--output", required=True, metavar="DIR|ARCHIVE.zip", type=options.output_file,
                   help="a new folder, or a .zip archive")
    e.add_argument("--jatos", action="store_true", help="load jatos.js, so JATOS receives the data")
    options.add_force_option(e, "folder or archive", ", or files elot wrote there were changed since; a folder's "
                             "files elot never wrote are kept")
    e.set_defaults(func=export_command)

    i = sub.add_parser(
        "import", help="Make participants' answers into the ratings file elot fit reads, and the goal answers.",
        description="Reads the server's database (a survey folder or its responses.sqlite) and jsPsych's JSON or "
        "CSV exports; excludes participants by rules (incomplete, a failed comprehension check, a low goal "
        "score) and says who and why; writes the ratings (scenario, mode, t, statement, rating in [0, 1], "
        "participant) and the goal answers.")
    i.add_argument("data", nargs="+", metavar="DATA", help="a served survey folder, a responses.sqlite, or "
                   "jsPsych .json/.csv exports")
    i.add_argument("-o", "--output", required=True, metavar="RATINGS.csv", type=options.output_file,
                   help="the ratings file")
    i.add_argument("--goals", metavar="GOALS.csv", type=options.output_file,
                   help="the goal answers (default: RATINGS-goals.csv beside the ratings)")
    i.add_argument("--survey", metavar="SURVEY", help="the survey folder (needed for exports; a survey folder or "
                   "its database says it itself)")
    i.add_argument("--min-goal-score", type=float, default=0.5, metavar="X",
                   help="exclude participants whose mean goal score is below X (default: %(default)s; 0 keeps all)")
    i.add_argument("--keep-incomplete", action="store_true", help="keep sessions that stopped early")
    i.add_argument("--keep-failed-check", action="store_true", help="keep participants who failed the "
                   "comprehension check")
    options.add_force_option(i)
    i.set_defaults(func=import_command)


def _settings(args):
    from elot.survey.design import Settings, read_settings

    settings = read_settings(args.settings) if args.settings else Settings()
    given = {"scenarios_per_participant": args.per_participant, "statements_per_point": args.statements_per_point,
             "condition": args.condition, "orders": args.orders, "seed": args.seed,
             "completion_url": args.completion_url, "title": args.title}
    for name, value in given.items():
        if value is not None:
            setattr(settings, name, value)
    if args.pair:
        settings.pairs = [list(p) for p in args.pair]
    if args.control:
        settings.controls = list(args.control)
    return settings


def build_command(args) -> int:
    from elot.output import count
    from elot.study.references import expand_scenarios
    from elot.survey.build import build_survey, check_target, read_stimulus_set

    read_stimulus_set(args.stimuli)
    check_target(args.output, force=args.force)
    settings = _settings(args)
    refs = expand_scenarios(args.scenarios, root=args.labtom, exps=[args.exp]) if args.scenarios else None
    cache = args.npm_cache or os.environ.get("ELOT_NPM_CACHE") or None
    built = build_survey(args.stimuli, args.output, settings, refs=refs, root=args.labtom, exps=[args.exp],
                         npm_cache=cache, cdn=args.cdn, force=args.force)
    config = built.config
    conditions = sorted({o["condition"] for o in config["orders"]})
    print(f"wrote a survey of {count(len(config['scenarios']), 'scenario')} "
          f"({count(len(config['orders']), 'order')}, {' and '.join(conditions)}) to {built.folder}",
          file=sys.stderr)
    if built.formulas:
        from elot.lang.english import shown

        example = built.formulas[0]
        print(f"note: {count(len(built.formulas), 'statement')} are ELoT formulas, shown to participants in generated "
              f"English (e.g. {example} as \"{shown(example)}\"); give your own wording with elot stimuli "
              f"--statements FILE", file=sys.stderr)
    return 0


def serve_command(args) -> int:
    import signal

    from elot.survey.server import make_server

    server = make_server(args.survey, host=args.host, port=args.port, db=args.db)
    host, port = server.server_address[:2]
    where = f"http://{host}:{port}/"
    print(f"serving {args.survey} at {where} (answers in {server.store.path}); Ctrl-C stops", file=sys.stderr,
          flush=True)
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(f"note: listening on {host}: anyone who can reach this machine can take the survey", file=sys.stderr)

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        started, completed = server.store.counts()
        server.store.close(drop_empty=True)
    print(f"stopped: {started} participants, {completed} complete", file=sys.stderr)
    return 0


def export_command(args) -> int:
    from elot.survey.export import export_survey

    target, files = export_survey(args.survey, args.output, jatos=args.jatos, force=args.force)
    print(f"wrote {files} files to {target}", file=sys.stderr)
    return 0


def import_command(args) -> int:
    from elot.output import count, csv_text, write_output
    from elot.survey.answers import GOAL_COLUMNS, RATING_COLUMNS, Rules, import_answers, survey_of

    config = survey_of(args.data, args.survey)
    rules = Rules(min_goal_score=args.min_goal_score, exclude_incomplete=not args.keep_incomplete,
                  exclude_failed_check=not args.keep_failed_check)
    result = import_answers(args.data, config, rules)
    if not result.ratings:
        from elot.survey import SurveyError

        raise SurveyError(f"every participant was excluded ({len(result.participants)}); "
                          f"{args.output} was not written",
                          notes=tuple(f"{p.participant}: {'; '.join(p.reasons)}" for p in result.excluded[:20]),
                          hint="check the rules (--min-goal-score, --keep-incomplete, --keep-failed-check)")
    goals_path = args.goals or _beside(args.output, "-goals.csv")
    written = write_output(args.output, csv_text(result.ratings, RATING_COLUMNS), force=args.force,
                           option="-o", inputs=args.data)
    goals_written = write_output(goals_path, csv_text(result.goals, GOAL_COLUMNS), force=args.force,
                                 option="--goals", inputs=args.data)
    kept = len(result.participants) - len(result.excluded)
    print(f"{count(len(result.participants), 'participant')}: {kept} kept, {len(result.excluded)} excluded",
          file=sys.stderr)
    for person in result.excluded:
        print(f"  excluded {person.participant}: {'; '.join(person.reasons)}", file=sys.stderr)
    print(f"wrote {count(len(result.ratings), 'rating')} to {written} and {count(len(result.goals), 'goal answer')} "
          f"to {goals_written}", file=sys.stderr)
    return 0


def _beside(path: str, suffix: str) -> str:
    if path == "-":
        return "goals.csv"
    from pathlib import Path

    p = Path(path)
    return str(p.with_name(p.stem + suffix))
