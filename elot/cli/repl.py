"""``elot repl | plot | map``: the interactive session and figures of a scenario.

SCENARIO is a ``.scn`` file, a dataset plan (``plans/exp2_current/1_1.pddl``) or problem
file, a built-in example name or a dataset plan id (``1_1``); it defaults to the built-in
example.
"""

from __future__ import annotations

import argparse
import sys

from elot.cli import EXIT_OK, EXIT_USAGE
from elot.errors import ElotError



def _scenario_args(p: argparse.ArgumentParser, *, inference: bool = True) -> None:
    p.add_argument("scenario", nargs="?", metavar="SCENARIO",
                   help="a .scn file, a dataset plan or problem .pddl, an example name or a plan id "
                        "(default: the built-in example)")
    if inference:
        p.add_argument("--model", default="full", choices=("full", "true-belief", "non-planning"),
                       help="BToM model: the full model or one of the paper's ablations (default: full)")
        p.add_argument("--beta", type=float, default=None,
                       help="the agent's rationality β = 1/τ (default: the --thresholds file's, else 2^1.5 ≈ 2.83)")
        p.add_argument("--thresholds", metavar="FILE",
                       help="thresholds (and β) from elot fit's JSON file, or name=value,... overrides")
        p.add_argument("--bind-free", action="store_true",
                       help="bind free variables existentially at the top (as the reference does)")


def register(subparsers) -> None:
    """Add ``repl``, ``plot`` and ``map``."""
    p = subparsers.add_parser(
        "repl", help="Interactive session: query a scenario with ELoT formulas or English.",
        description="Interactive session over one scenario: move through time, look at the map and the "
                    "posteriors, and score ELoT formulas or English sentences. Reads lines plainly when "
                    "stdin is not a terminal (elot repl < queries.txt); then the exit status is 2 if "
                    "any line failed.")
    _scenario_args(p)
    p.add_argument("--no-echo", action="store_true",
                   help="with piped input, do not echo each line after the prompt")
    p.set_defaults(func=_repl_command)

    p = subparsers.add_parser(
        "plot", help="Plot statement scores and the goal posterior over time (PNG).",
        description="Two panels over time: each statement's normalized likelihood (judgment points "
                    "marked) and the goal posterior. Statements default to the scenario's own.")
    _scenario_args(p)
    p.add_argument("--statements", metavar="FILE",
                   help="statements, one per line: an ELoT formula or an English sentence, optionally "
                        "prefixed by 'initial:' or 'current:' (# comments)")
    p.add_argument("--statement", action="append", default=[], metavar="F",
                   help="a statement (formula or sentence); repeatable")
    p.add_argument("--mode", choices=("current", "initial"), default="current",
                   help="mode of statements that do not say (default: current)")
    p.add_argument("-o", "--output", required=True, metavar="OUT.png", help="the PNG file to write")
    p.set_defaults(func=_plot_command)

    p = subparsers.add_parser("map", help="Draw a scenario's map (PNG).",
                              description="Walls, doors, boxes, keys seen, gems, the agent and its path.")
    _scenario_args(p, inference=False)
    p.add_argument("-t", "--time", type=int, default=None, metavar="T",
                   help="draw the state after T actions (default: the last)")
    p.add_argument("-o", "--output", required=True, metavar="OUT.png", help="the PNG file to write")
    p.set_defaults(func=_map_command)


def _session(args):
    from repl.session import Session

    thresholds = None
    if hasattr(args, "thresholds"):
        from elot.study.params import apply_thresholds_option

        thresholds = apply_thresholds_option(args)
    session = Session.open(args.scenario)
    session.bind_free = getattr(args, "bind_free", False)
    if thresholds is not None:
        session.thresholds = thresholds
    if hasattr(args, "model"):
        session.set_model(args.model)
        session.set_beta(args.beta)
    return session


def _repl_command(args) -> int:
    from repl.app import run

    return run(_session(args), echo=not args.no_echo)


def _plot_command(args) -> int:
    from elot import plots
    from elot.scenario import Statement, read_statements

    session = _session(args)
    wanted: list[Statement] = []
    if args.statements:
        wanted += read_statements(args.statements, args.mode)
    wanted += [Statement(text, args.mode) for text in args.statement]
    if not wanted:
        wanted = [Statement(text, mode) for mode, text in session.statements()]
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
        f"{session.name} — model {session.model}, β={session.beta:.3g}", series, goals,
        session.judgments(), true_goal=getattr(session.scenario, "true_goal", None))
    out = plots.save(fig, args.output, {"scenario": session.name, "statements": len(series),
                                        "goals": len(goals), "judgments": session.judgments(),
                                        "model": session.model})
    print(f"wrote {out} ({len(series)} statements, {len(goals)} goals"
          + (f"; {failed} skipped" if failed else "") + ")")
    return EXIT_USAGE if failed else EXIT_OK


def _map_command(args) -> int:
    from elot import plots
    from repl.session import load

    scenario = load(args.scenario)
    states = scenario.states()
    t = len(states) - 1 if args.time is None else args.time
    if not 0 <= t < len(states):
        raise ElotError(f"time {t} is outside this scenario", hint=f"steps run from 0 to {len(states) - 1}")
    fig = plots.map_figure(states, t, title=f"{scenario.name}  t = {t}/{len(states) - 1}")
    out = plots.save(fig, args.output, {"scenario": scenario.name, "t": t})
    print(f"wrote {out}")
    return EXIT_OK
