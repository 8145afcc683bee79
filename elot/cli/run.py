"""``elot run``: BToM inference over a scenario, and statement scores at its judgment points.

The scenario is the built-in example by default, a ``.scn`` file, a dataset problem with
``--plan``, or a dataset plan id (``1_1``) found under ``--labtom``. Statements come from
``--statement``/``--statements`` or, when none are given, from the scenario itself.
English statements are translated when :mod:`elot.translate` can. A given statement that
cannot be translated, or any that does not parse or typecheck, prints its error (at its
line in a ``--statements`` file) and makes the exit status 2; the others are still scored
and the output files written. The scenario's own sentences that cannot be translated are
only noted in the table.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

from elot.cli import domain_options, options
from elot.errors import ElotError
from elot.output import STDOUT, check_target, count, csv_text, excerpt, write_output

if TYPE_CHECKING:
    from elot.judging import Statement


def register(subparsers) -> None:
    """Add ``run``."""
    p = subparsers.add_parser(
        "run",
        help="Infer the agent's goal and beliefs and score statements at each judgment point.",
        description="Run exact Bayesian theory-of-mind inference over a scenario and score ELoT "
        "statements (posterior P and normalized likelihood L) at its judgment points.",
    )
    options.add_scenario_options(p)
    options.add_statement_options(p)
    options.add_model_options(p, domains=True)
    domain_options.add_domain_options(p)
    options.add_prior_options(p)
    options.add_formula_options(p)
    options.add_table_output_options(p)
    p.set_defaults(func=run_command)


def _given_statements(args, scenario) -> list[Statement]:
    """The statements to score: those given (``--statement``, ``--statements``), else the
    scenario's own (``given=False``: one the translator cannot read is only noted)."""
    from dataclasses import replace

    from elot.domains.doors_keys_gems.dataset import read_statements
    from elot.judging import Statement

    given = [Statement(text, args.mode) for text in args.statement]
    if args.statements:
        given += read_statements(args.statements, args.mode)
    if args.statement or args.statements:
        return given
    return [replace(s, given=False) for s in scenario.statements]


def _locate(st: Statement, n: int) -> ElotError:
    """Point a statement's error at it: its place in its statements file, or ``<statement n>``."""
    error = st.locate(st.error) if st.given else st.error
    return error.located(source=st.formula, path=f"<statement {n + 1}>")


def run_command(args) -> int:
    from rich.console import Console

    from elot.domains.doors_keys_gems.inference import infer
    from elot.judging import compile_statements, resolve_statements, score_statements
    from elot.translate import resolve_statement

    if domain_options.domain_spec(args):   # a domain of the engine: food trucks, or the user's own
        from elot.cli.domain import run_domain

        return run_domain(args, _check_outputs, _inputs)
    domain_options.refuse_domain_options(args)
    _check_outputs(args)    # before the inference: a refused output path fails fast
    thresholds, beta = options.thresholds_and_beta(args)
    args = options.with_beta(args, beta)    # the β the run uses, in its header and table
    scenario = options.scenario_from_args(args)
    language_model = options.language_model()   # $ELOT_MODEL for what the offline parser refuses
    statements = resolve_statements(_given_statements(args, scenario),
                                    lambda text, mode: resolve_statement(text, mode=mode, scenario=scenario,
                                                                         language_model=language_model)[:2])
    err = Console(stderr=True, highlight=False)
    inference = _infer_with_progress(scenario, options.inference_config(args), err, infer)

    statements = compile_statements(statements, inference.signature, thresholds=thresholds,
                                    bind_free=args.bind_free)
    times = tuple(scenario.judgments) or (inference.steps,)
    statements, scores = score_statements(inference, statements, times)
    table = [(t, inference.goal_posterior(t), got) for t, got in zip(times, scores)]
    # A sentence of the scenario's own that the translator cannot read is noted in the
    # table; a statement the user gave that cannot be scored is bad input.
    failures = [_locate(st, n) for n, st in enumerate(statements)
                if st.error is not None and (st.given or st.formula is not None)]

    _write_outputs(args, scenario, statements, table, inference)
    # with a table on standard output, the summary goes to standard error
    _print(scenario, inference, statements, table, stderr=STDOUT in (args.csv, args.json))
    for error in failures:
        print(error.render(), file=sys.stderr)
    if failures:
        raise ElotError(
            f"{len(failures)} of {len(statements)} statement(s) could not be scored",
            hint="fix the statements above; the other statements were scored",
        )
    return 0


def _infer_with_progress(scenario, config, err, infer):
    if not sys.stderr.isatty() or len(scenario.actions) < 2:
        return infer(scenario, config)
    from rich.progress import Progress

    with Progress(console=err, transient=True) as bar:
        task = bar.add_task(f"inferring ({config.variant})", total=len(scenario.actions))
        return infer(scenario, config, progress=lambda t, total: bar.update(task, completed=t))


def _print(scenario, inference, statements, table, *, stderr: bool = False) -> None:
    from rich.console import Console
    from rich.table import Table

    out = Console(highlight=False, soft_wrap=False, width=max(100, Console().width), stderr=stderr)
    space = inference.space
    def many(n: int, noun: str, plural: str | None = None) -> str:   # 10^47 hypotheses at k = 50
        return count(n, noun, plural) if n < 10**15 else f"about {float(n):.2e} {plural or noun + 's'}"

    out.print(f"[bold]{scenario.name}[/bold]: {many(inference.size, 'hypothesis', 'hypotheses')} "
              f"({count(space.n_goals, 'goal')} × {count(space.n_states, 'state')} × "
              f"{many(space.n_beliefs, 'belief')}), {count(inference.steps, 'action')}, model {inference.model}")
    how = inference.describe([t for t, _, _ in table])
    if how:
        out.print(how)
    if inference.conventions != "elot":
        out.print(f"conventions: {inference.conventions} (the reference pipeline's, SPEC §7)")
    family = space.family
    if family is not None and not family.is_default:
        out.print(family.describe())
    goals = Table(title="Goal posterior", title_justify="left")
    goals.add_column("t", justify="right")
    for gem in inference.space.goals:
        goals.add_column(gem + (" (true)" if gem == scenario.true_goal else ""), justify="right")
    for t, post, _ in table:
        goals.add_row(str(t), *(f"{post[g]:.3f}" for g in inference.space.goals))
    out.print(goals)
    if not statements:
        return
    scores = Table(title="Statements: normalized likelihood L " + ("± its standard error " if inference.estimated else "")
                   + "(posterior P)", title_justify="left")
    scores.add_column("#", justify="right")
    scores.add_column("mode")
    scores.add_column("statement", overflow="fold", max_width=60)
    for t, _, _ in table:
        scores.add_column(f"t={t}", justify="right")
    for n, st in enumerate(statements):
        cells = []
        for _, _, got in table:
            s = got.get(n)
            error = "" if s is None or s.stderr is None else f" ± {s.stderr:.2f}"
            cells.append("—" if s is None else f"{s.normalized_likelihood:.2f}{error} ({s.posterior:.2f})")
        text = excerpt(st.text, 300)
        if st.formula not in (None, st.text):
            text += f"\n→ {excerpt(st.formula, 300)}"
        if st.note:
            text += f"\n[dim]({st.note})[/dim]"
        scores.add_row(str(n + 1), st.mode, text, *cells)
    out.print(scores)


def _rows(statements, table):
    for t, goals, scores in table:
        goal_cols = {f"p({g})": p for g, p in goals.items()}
        if not scores:
            yield {"t": t, "statement": "", "formula": "", "mode": "", "posterior": "",
                   "normalized_likelihood": "", "prior_fraction": "", **goal_cols}
        for n, s in scores.items():
            st = statements[n]
            error = {} if s.stderr is None else {"L_stderr": s.stderr}
            yield {"t": t, "statement": st.text, "formula": st.formula, "mode": st.mode,
                   "posterior": s.posterior, "normalized_likelihood": s.normalized_likelihood,
                   "prior_fraction": s.prior_fraction, **error, **goal_cols}


def _csv_text(statements, table) -> str:
    return csv_text(list(_rows(statements, table)), lineterminator="\r\n")


def _json_text(scenario, statements, table, inference) -> str:
    ran = inference.config   # what ran (auto's choice, the seed drawn), not what was typed
    data = {
        "scenario": scenario.name,
        "model": ran.variant,
        "conventions": ran.conventions,
        "beta": ran.beta,
        "k": ran.k,
        "true_goal": scenario.true_goal,
        "judgments": [
            {
                "t": t,
                "goal_posterior": goals,
                "statements": [
                    {"statement": statements[n].text, "formula": statements[n].formula,
                     "mode": statements[n].mode, "posterior": s.posterior,
                     "normalized_likelihood": s.normalized_likelihood,
                     "prior_fraction": s.prior_fraction,
                     **({} if s.stderr is None else {"L_stderr": s.stderr})}
                    for n, s in scores.items()
                ],
            }
            for t, goals, scores in table
        ],
        "skipped": [{"statement": st.text, "note": st.note} for st in statements if st.note],
    }
    data["inference"] = inference.report([t for t, _, _ in table])
    return json.dumps(data, indent=2) + "\n"


def _inputs(args) -> list[str]:
    """The files this command reads (never written over by --csv or --json)."""
    named = (getattr(args, "scenario", None), getattr(args, "plan", None), args.statements, args.thresholds)
    return [p for p in named if p and p != STDOUT]


def _check_outputs(args) -> None:
    if args.csv:
        check_target(args.csv, force=args.force, option="--csv", inputs=_inputs(args))
    if args.json:
        check_target(args.json, force=args.force, option="--json", inputs=_inputs(args))


def _write_outputs(args, scenario, statements, table, inference) -> None:
    if args.csv:
        write_output(args.csv, _csv_text(statements, table), force=args.force, option="--csv",
                     inputs=_inputs(args))
    if args.json:
        write_output(args.json, _json_text(scenario, statements, table, inference), force=args.force,
                     option="--json", inputs=_inputs(args))
