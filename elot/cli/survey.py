"""``elot survey build|serve|export|import``: the stimuli shown to people in a browser,
and their answers back to ``elot fit`` (see docs/experiments.md)."""

from __future__ import annotations

import argparse
import os
import sys

from elot.cli import options


def _pair(text: str) -> list[str]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(parts):
        raise argparse.ArgumentTypeError(f"a pair is two scenario names, A,B, not {text!r}")
    return parts


def _score(text: str) -> float:
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--min-goal-score must be a number from 0 to 1, not {text!r}") from None
    if not math.isfinite(value) or not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"--min-goal-score must be a number from 0 to 1 (a goal score is), "
                                         f"not {text}")
    return value


def _address(text: str) -> str:
    import ipaddress

    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--proxy must be an IP address (as 10.0.0.5 or ::1), not {text!r}") \
            from None


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
        "goal checkboxes and the statements on 1-7 sliders, each to be set (dragged, clicked, or its handle "
        "clicked to answer 4, where it starts), and a debrief. Counterbalanced orders are made here; jsPsych is "
        "installed with npm into a cache (once) and copied into the survey.")
    b.add_argument("stimuli", metavar="STIMULI", help="a stimulus set folder written by elot stimuli")
    b.add_argument("-o", "--output", required=True, metavar="SURVEY", type=options.output_file,
                   help="the folder to write (replaced only if it is a survey elot built that holds no answers; files "
                        "you put there are kept)")
    b.add_argument("--scenarios", nargs="+", metavar="SCENARIO",
                   help="the scenarios elot stimuli was given (default: each stimulus name as a dataset plan id "
                        "or a built-in scenario)")
    options.add_domain_options(b)
    options.add_exp_option(b)
    b.add_argument("--settings", metavar="FILE.json", help="a survey settings file (JSON); options override it")
    b.add_argument("--per-participant", type=options.whole("--per-participant", 1), metavar="N",
                   help="scenarios each participant sees, controls not counted (default: as many as the pairs "
                        "allow)")
    b.add_argument("--statements-per-point", type=options.whole("--statements-per-point", 1), metavar="N",
                   help="statements rated at each judgment point (default: 2)")
    b.add_argument("--condition", choices=("current", "initial", "both"),
                   help="which statements are asked: current or initial ones, or both as separate groups "
                        "(default: current)")
    b.add_argument("--pair", action="append", type=_pair, metavar="A,B",
                   help="two scenarios no participant sees together (repeatable)")
    b.add_argument("--control", action="append", metavar="NAME",
                   help="a control scenario everyone sees, taking each place equally often (repeatable)")
    b.add_argument("--orders", type=options.whole("--orders", 1), metavar="N",
                   help="counterbalanced orders per condition, at most 10,000 (default: 12)")
    b.add_argument("--seed", type=int, help="seed of the orders (default: 0)")
    b.add_argument("--completion-url", metavar="URL", help="where participants go at the end (Prolific's "
                   "completion URL)")
    b.add_argument("--prolific-completion", metavar="CODE", help="Prolific's completion code: participants are sent "
                   "back to Prolific with it at the end (instead of --completion-url)")
    b.add_argument("--prolific-screenout", metavar="CODE", help="Prolific's screen-out code: a participant who fails "
                   "both comprehension checks is sent back with it at once, instead of the completion code")
    b.add_argument("--title", help="the page's title")
    b.add_argument("--contact", metavar="EMAIL|URL", help="how participants reach you (an e-mail address or a web "
                   "page): shown in the consent, and when the study server cannot be reached or answers were not "
                   "saved")
    b.add_argument("--npm-cache", metavar="DIR", help="where npm installs jsPsych (default: $ELOT_NPM_CACHE, else "
                   "~/.cache/elot/npm)")
    b.add_argument("--cdn", action="store_true", help="load jsPsych from unpkg.com instead of copying it in")
    options.add_force_option(b, "folder", ", or files elot wrote there were edited since (experiment.js, index.html); "
                             "files elot never wrote are kept, and a survey holding answers is never replaced")
    b.set_defaults(func=build_command)

    s = sub.add_parser(
        "serve", help="Serve a survey, storing every answer as it arrives (SQLite).",
        description="Serves the survey's files (nothing else: never the database) on uvicorn and stores each "
        "trial as it arrives; each arriving participant gets the order fewest have started; a returning one (the "
        "session token their browser kept) continues where they were, and a second session with the same "
        "PROLIFIC_PID is a new one flagged as a duplicate. Listens on 127.0.0.1 unless --host says otherwise.")
    s.add_argument("survey", metavar="SURVEY", help="a folder written by elot survey build")
    s.add_argument("--port", type=options.whole("--port", 0, 65535), default=8000,
                   help="port (default: %(default)s; 0 picks a free one)")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s, this machine "
                   "only; 0.0.0.0 for every network)")
    s.add_argument("--db", metavar="FILE", help="the answers database (default: SURVEY/responses.sqlite); an "
                   "existing file must be a database of this survey, and is refused untouched otherwise")
    s.add_argument("--proxy", action="append", type=_address, metavar="ADDRESS",
                   help="the address of a reverse proxy in front of the server (repeatable): every participant's "
                        "connection comes from it, so the limits per client (256 connections, 60 new sessions at "
                        "once) spare it, as they spare this machine's own addresses; set them in the proxy")
    s.set_defaults(func=serve_command)

    e = sub.add_parser(
        "export", help="Write a survey as a static site (folder or .zip), or as a JATOS study archive (.jzip).",
        description="The survey's files without the server or any database; on a static host the page keeps its "
        "data in jsPsych and participants can download them; with --jatos it sends each trial to JATOS as it ends. "
        "elot survey import reads JATOS's results and jsPsych's JSON or CSV.")
    e.add_argument("survey", metavar="SURVEY", help="a folder written by elot survey build")
    e.add_argument("-o", "--output", required=True, metavar="DIR|ARCHIVE.zip|STUDY.jzip", type=options.output_file,
                   help="a new folder, a .zip archive, or (with --jatos) a JATOS study archive .jzip")
    e.add_argument("--jatos", action="store_true", help="for JATOS: the page loads jatos.js, sends each trial to JATOS "
                   "as it ends and takes its order from the batch session; -o STUDY.jzip writes a study archive "
                   "JATOS imports (Import Study)")
    options.add_force_option(e, "folder or archive", ", or files elot wrote there were changed since; a folder's "
                             "files elot never wrote are kept")
    e.set_defaults(func=export_command)

    i = sub.add_parser(
        "import", help="Make participants' answers into the ratings file elot fit reads, the goal answers and a "
        "raw trial table.",
        description="Reads the server's database (a survey folder or its responses.sqlite), JATOS's results "
        "(.jrzip, or the result data as text) and jsPsych's JSON or CSV exports; excludes participants by rules "
        "(incomplete, a failed comprehension check, a second session of the same PROLIFIC_PID, a low goal score) "
        "and says who and why; writes the ratings (scenario, mode, t, statement, rating in [0, 1], participant), "
        "the goal answers and the raw trial table, all or none.")
    i.add_argument("data", nargs="+", metavar="DATA", help="a served survey folder, a responses.sqlite, JATOS's "
                   "results (.jrzip, .txt), or jsPsych .json/.csv exports")
    i.add_argument("-o", "--output", required=True, metavar="RATINGS.csv", type=options.output_file,
                   help="the ratings file")
    i.add_argument("--goals", metavar="GOALS.csv", type=options.output_file,
                   help="the goal answers (default: RATINGS-goals.csv beside the ratings)")
    i.add_argument("--survey", metavar="SURVEY", help="the survey folder (needed for exports; a survey folder or "
                   "its database says it itself)")
    i.add_argument("--raw", metavar="TRIALS.csv", type=options.output_file,
                   help="the tidy trial table, one row per response with response times, positions and exclusion "
                        "flags (default: RATINGS-raw.csv beside the ratings)")
    i.add_argument("--min-goal-score", type=_score, default=0.5, metavar="X",
                   help="exclude participants whose mean goal score is below X, a number from 0 to 1 (default: "
                        "%(default)s; 0 keeps all)")
    i.add_argument("--keep-duplicates", action="store_true", help="keep the ratings of sessions the server flagged "
                   "as duplicates (a second session with the same PROLIFIC_PID)")
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
             "completion_url": args.completion_url, "title": args.title, "contact": args.contact}
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
    from elot.study.references import DomainRef, expand
    from elot.survey.build import build_survey, default_condition, owned_folder, prolific_codes, read_stimulus_set

    entries = read_stimulus_set(args.stimuli)
    owned_folder(args.output, force=args.force).check()
    settings = _settings(args)
    if args.condition is None and not args.settings:     # a domain's scene asks what its statements ask
        settings.condition = default_condition(entries, settings.condition)
    prolific = prolific_codes(args.prolific_completion, args.prolific_screenout,
                              completion_url=settings.completion_url)
    if args.domain is None and not args.scenarios and entries[0].get("domain"):
        args.domain = entries[0]["domain"]     # the domain the stimulus set records
    front = options.front_of(args, scenarios=args.scenarios or [])
    domain = DomainRef.of(front, args.domain)
    refs = expand(front, args.scenarios, domain) if args.scenarios else None
    cache = args.npm_cache or os.environ.get("ELOT_NPM_CACHE") or None
    built = build_survey(args.stimuli, args.output, settings, refs=refs, domain=domain,
                         npm_cache=cache, cdn=args.cdn, force=args.force, prolific=prolific)
    config = built.config
    conditions = sorted({o["condition"] for o in config["orders"]})
    print(f"wrote a survey of {count(len(config['scenarios']), 'scenario')} "
          f"({count(len(config['orders']), 'order')}, {' and '.join(conditions)}) to {built.folder}",
          file=sys.stderr)
    if built.formulas:
        from elot.lang.english import shown

        example = built.formulas[0]
        said = next((st.get("shown") for sc in config["scenarios"] for st in sc["statements"]
                     if st["text"] == example and st.get("shown")), None) or shown(example)
        print(f"note: {count(len(built.formulas), 'statement')} are ELoT formulas, shown to participants in generated "
              f"English (e.g. {example} as \"{said}\"); give your own wording with elot stimuli "
              f"--statements FILE", file=sys.stderr)
    contact = config["settings"].get("contact")
    if contact:
        print(f"participants are asked to contact {contact} in the consent and when their answers cannot reach "
              f"the study server", file=sys.stderr)
    else:
        print("note: no contact for participants: one who cannot reach the study server is asked to contact "
              "\"the researcher who invited you\" with no address; give --contact EMAIL|URL", file=sys.stderr)
    return 0


def serve_command(args) -> int:
    import signal
    import threading

    def stop(signum, frame):
        raise KeyboardInterrupt

    # SIGTERM before serving stops as Ctrl-C does (uvicorn takes both over while it serves)
    previous = signal.signal(signal.SIGTERM, stop) if threading.current_thread() is threading.main_thread() else None
    try:
        return _serve(args)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _serve(args) -> int:
    import time

    from elot.survey.server import make_server

    def log(line: str) -> None:
        print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}", file=sys.stderr, flush=True)

    from elot.survey.server import Limits

    limits = Limits(trusted=(*Limits().trusted, *(args.proxy or ())))
    server = make_server(args.survey, host=args.host, port=args.port, db=args.db, limits=limits, log=log)
    host, port = server.server_address[:2]
    where = f"http://{host}:{port}/" if ":" not in host else f"http://[{host}]:{port}/"
    try:
        print(f"serving {args.survey} at {where} (answers in {server.store.path}); Ctrl-C stops", file=sys.stderr,
              flush=True)
        if host not in ("127.0.0.1", "localhost", "::1"):
            print(f"note: listening on {host}: anyone who can reach this machine can take the survey",
                  file=sys.stderr)
        server.serve_forever()       # SIGINT and SIGTERM: finish the requests in flight, then return
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        started, completed = server.store.counts()
        server.store.close(drop_empty=True)   # the queued writes first
    print(f"stopped: {started} participants, {completed} complete", file=sys.stderr)
    return 0


def export_command(args) -> int:
    from elot.survey.export import export_survey

    target, files = export_survey(args.survey, args.output, jatos=args.jatos, force=args.force)
    print(f"wrote {files} files to {target}", file=sys.stderr)
    return 0


def import_command(args) -> int:
    from elot.errors import printable
    from elot.output import count, csv_text
    from elot.survey import SurveyError
    from elot.survey.answers import (GOAL_COLUMNS, RATING_COLUMNS, RAW_COLUMNS, Rules, import_answers,
                                     spreadsheet_safe, survey_of, write_all)

    config = survey_of(args.data, args.survey)
    rules = Rules(min_goal_score=args.min_goal_score, exclude_incomplete=not args.keep_incomplete,
                  exclude_failed_check=not args.keep_failed_check, exclude_duplicates=not args.keep_duplicates)
    result = import_answers(args.data, config, rules)
    # what participants sent (their ids, sessions) is printed through printable(): never a
    # terminal's escape code
    if not result.ratings:
        raise SurveyError(f"every participant was excluded ({len(result.participants)}); "
                          f"{args.output} was not written",
                          notes=tuple(printable(f"{p.participant}: {'; '.join(p.reasons)}", 300)
                                      for p in result.excluded[:20]),
                          hint="check the rules (--min-goal-score, --keep-incomplete, --keep-failed-check, "
                               "--keep-duplicates)")
    outputs = [(args.output, csv_text(spreadsheet_safe(result.ratings), RATING_COLUMNS), "-o"),
               (args.goals or _beside(args.output, "-goals.csv"), csv_text(spreadsheet_safe(result.goals),
                                                                            GOAL_COLUMNS), "--goals"),
               (args.raw or _beside(args.output, "-raw.csv"), csv_text(spreadsheet_safe(result.raw), RAW_COLUMNS),
                "--raw")]
    written = write_all(outputs, force=args.force, inputs=args.data)
    kept = len(result.participants) - len(result.excluded)
    print(f"{count(len(result.participants), 'participant')}: {kept} kept, {len(result.excluded)} excluded",
          file=sys.stderr)
    for person in result.excluded:
        print(printable(f"  excluded {person.participant}: {'; '.join(person.reasons)}"), file=sys.stderr)
    if result.duplicates:
        print(f"{count(len(result.duplicates), 'session')} of a PROLIFIC_PID that has another session: "
              f"{'kept' if args.keep_duplicates else 'excluded'} (of one PROLIFIC_PID's sessions the complete one "
              "is kept, the first if none is, none if several are)", file=sys.stderr)
    print(f"wrote {count(len(result.ratings), 'rating')} to {written[0]}, {count(len(result.goals), 'goal answer')} "
          f"to {written[1]} and {count(len(result.raw), 'response')} to {written[2]}", file=sys.stderr)
    return 0


def _beside(path: str, suffix: str) -> str:
    if path == "-":
        return suffix.lstrip("-")
    from pathlib import Path

    p = Path(path)
    return str(p.with_name(p.stem + suffix))
