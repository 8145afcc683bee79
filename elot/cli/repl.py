"""``elot repl | plot | map``: the interactive session and figures of a scenario.

SCENARIO is a ``.scn`` file, a dataset plan (``plans/exp2_current/1_1.pddl``) or problem
file, a built-in example name or a dataset plan id (``1_1``); it defaults to the built-in
example.
"""

from __future__ import annotations

import argparse
import sys

from elot.cli import options
from elot.settings import EXIT_OK, EXIT_USAGE, INITIAL
from elot.errors import ElotError
from elot.output import count


def register(subparsers) -> None:
    """Add ``repl``, ``plot`` and ``map``."""
    p = subparsers.add_parser(
        "repl", help="Interactive session: query a scenario with ELoT formulas or English.",
        description="Interactive session over one scenario: move through time, look at the map and the "
                    "posteriors, and score ELoT formulas or English sentences. Reads lines plainly when "
                    "stdin is not a terminal (elot repl < queries.txt); then the exit status is 2 if "
                    "any line failed.")
    _inference_args(p)
    options.add_mode_option(p)
    p.add_argument("--belief-model", "--model-file", dest="belief_model", metavar="SPEC",
                   help="query your own belief model instead of a scenario: a .py file defining `model`, "
                        "FILE.py:NAME or package.module:NAME (see docs/embedding.md)")
    p.add_argument("--no-echo", action="store_true",
                   help="with piped input, do not echo each line after the prompt")
    p.set_defaults(func=_repl_command)

    p = subparsers.add_parser(
        "plot", help="Plot statement scores and the goal posterior over time (PNG).",
        description="Two panels over time: each statement's normalized likelihood (judgment points "
                    "marked) and the goal posterior. Statements default to the scenario's own.")
    _inference_args(p)
    options.add_statement_options(p)
    options.add_figure_output_options(p)
    p.set_defaults(func=_plot_command)

    p = subparsers.add_parser("map", help="Draw a scenario's scene at one step (PNG).",
                              description="The scene at step T as the domain draws it (the gridworld: walls, doors, "
                                          "boxes, keys seen, gems, the agent and its path).")
    options.add_scenario_options(p)
    p.add_argument("-t", "--time", type=options.number("time"), default=None, metavar="T",
                   help="draw the state after T actions (default: the last)")
    options.add_figure_output_options(p)
    p.set_defaults(func=_map_command)


def _inference_args(p: argparse.ArgumentParser) -> None:
    options.add_scenario_options(p)
    options.add_model_options(p)
    options.add_formula_options(p)


def _session(args):
    """The session the arguments open: a scenario of the domain (at its last judgment point
    where the domain's runs judge the end), or a belief model of the user's own."""
    from elot.session import Session

    if getattr(args, "belief_model", None):
        if args.scenario or args.domain:
            raise ElotError("give a scenario or --belief-model, not both",
                            hint=f"elot repl --belief-model {args.belief_model}")
        session = Session.open_model(args.belief_model, bind_free=args.bind_free,
                                     language_model=options.language_model())
        session.set_mode(args.mode)  # --initial needs the model's initial_hypotheses(t)
        return session
    front = options.front_of(args)
    args, thresholds, settings = options.fitted(args, front)   # β, model and settings from the file unless given
    session = Session.open(args.scenario, front, settings, bind_free=args.bind_free, thresholds=thresholds,
                           language_model=options.language_model())
    session.set_mode(options.mode_of(args, front))
    if front.default_mode == INITIAL:
        session.goto(session.episode.judged[-1])   # at the judgment point: the path's end
    return session


def _repl_command(args) -> int:
    from elot.repl.app import run

    return run(_session(args), echo=not args.no_echo)


#: The most statement curves one figure shows legibly (each gets a line style and a label).
MAX_PLOTTED = 40


def _plot_command(args) -> int:
    from elot import plots
    from elot.statements import Statement, given_statement, read_statements

    session = _session(args)      # its settings checked; the inference runs on the first score
    plots.check_png_target(args.output, force=args.force)   # before the inference
    wanted: list[Statement] = []
    if args.statements:
        wanted += read_statements(args.statements, args.mode)
    wanted += [given_statement(text, args.mode) for text in args.statement]
    if not wanted:
        wanted = [Statement(text, mode) for mode, text in session.statements()]
    if len(wanted) > MAX_PLOTTED:
        raise ElotError(f"{len(wanted):,} statements are too many for one figure (at most {MAX_PLOTTED})",
                        hint="plot a few at a time, or score them all with elot run --csv or elot batch")
    series = []
    failed = 0
    for statement in wanted:
        try:
            formula, mode = session.resolve(statement.text, statement.mode)
            values = session.trace(formula, mode)
        except ElotError as error:
            failed += 1
            error = statement.locate(error)
            print(f"skipped statement {statement.text!r}:\n{error.render()}", file=sys.stderr)
            continue
        series.append((f"[{mode[:3]}] {statement.text}", values))
    horizon = session.horizon
    goals: dict[str, list[float]] = {}
    for t in range(horizon + 1):
        for gem, p in session.goal_posterior(t):
            goals.setdefault(gem, []).append(p)
    fig = plots.statements_figure(
        f"{session.name}: statements' normalized likelihood and the goal posterior over time "
        f"(model {session.model}, β={session.beta:.3g}"
        + ("" if session.conventions == "elot" else f", {session.conventions} conventions")
        + (f", {session.run().how()}" if session.run().how() else "")
        + ")", series, goals,
        session.judgments(), true_goal=session.true_goal())
    out = plots.save(fig, args.output, {"scenario": session.name, "statements": len(series),
                                        "goals": len(goals), "judgments": session.judgments(),
                                        "model": session.model, "conventions": session.conventions},
                      force=args.force)
    print(f"wrote {out} ({count(len(series), 'statement')}, {count(len(goals), 'goal')}"
          + (f"; {failed} skipped" if failed else "") + ")")
    return EXIT_USAGE if failed else EXIT_OK


def _map_command(args) -> int:
    from elot import plots

    plots.check_png_target(args.output, force=args.force)
    front = options.front_of(args)
    episode = front.episode(args.scenario)
    frames = front.frames(episode)
    T = episode.horizon
    t = T if args.time is None else args.time
    if not 0 <= t <= T:
        raise ElotError(f"time {t} is outside this scenario", hint=f"steps run from 0 to {T}")
    fig = frames.figure(t, title=f"{episode.name}: the map after {t} of {T} actions")
    out = plots.save(fig, args.output, {"scenario": episode.name, "t": t}, force=args.force)
    print(f"wrote {out}")
    return EXIT_OK
