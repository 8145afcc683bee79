"""``elot run``: a scenario of any domain inferred, and statements scored at its judgment points.

The domain is ``--domain``, else the one the scenario names (a ``.trucks`` file or
``foodtrucks:ID``: food trucks), else the Doors-Keys-Gems gridworld, whose scenario is the
built-in example by default, a ``.scn`` file, a dataset problem with ``--plan``, or a
dataset plan id (``1_1``) found under ``--data``. The domain's front reads the scenario,
checks the settings (refusing what its models do not take) and runs it; the run reports
itself (its header, its summary table, its columns in ``--csv`` and ``--json``) and
statements go through elot's one score loop. Statements come from
``--statement``/``--statements`` or, when none are given, from the scenario itself. English
statements are translated when :mod:`elot.translate` can. A given statement that cannot be
translated, or any that does not parse or typecheck, prints its error (at its line in a
``--statements`` file) and makes the exit status 2; the others are still scored and the
output files written. The scenario's own sentences that cannot be translated are only
noted in the table.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

from elot.cli import options
from elot.errors import ElotError
from elot.output import STDOUT, check_target, csv_text, excerpt, write_output

if TYPE_CHECKING:
    from elot.statements import Statement


def register(subparsers) -> None:
    """Add ``run``."""
    p = subparsers.add_parser(
        "run",
        help="Infer the agent's goal or desires and beliefs, and score statements at each judgment point.",
        description="Run Bayesian theory-of-mind inference over a scenario of any domain and score ELoT "
        "statements (posterior P and normalized likelihood L) at its judgment points.",
    )
    options.add_scenario_options(p)
    options.add_statement_options(p)
    options.add_model_options(p)
    options.add_formula_options(p)
    options.add_table_output_options(p)
    p.set_defaults(func=run_command)


def given_statements(args, episode, mode: str) -> list[Statement]:
    """The statements to score: those given (``--statement``, ``--statements``; an
    ``initial:`` or ``current:`` before one says its mode), else the scenario's own
    (``given=False``: one the translator cannot read is only noted)."""
    from elot.statements import given_statement, read_statements

    given = [given_statement(text, mode) for text in args.statement]
    if args.statements:
        given += read_statements(args.statements, mode)
    if args.statement or args.statements:
        return given
    return [replace(s, given=False) for s in episode.statements]


def locate(st: Statement, n: int) -> ElotError:
    """Point a statement's error at it: its place in its statements file, or ``<statement n>``."""
    error = st.locate(st.error) if st.given else st.error
    return error.located(source=st.formula, path=f"<statement {n + 1}>")


def run_command(args) -> int:
    from elot.judging import score_statements
    from elot.statements import compile_statements, resolve_statements
    from elot.translate import resolve_statement

    front = options.front_of(args)
    inputs = _inputs(args, front)
    _check_outputs(args, inputs)    # before the inference: a refused output path fails fast
    args, thresholds, settings = options.fitted(args, front)    # the file's model and settings, unless given
    episode = front.episode(args.scenario)
    language_model = options.language_model()   # $ELOT_MODEL for what the offline parser refuses
    signature = front.signature(episode)
    statements = resolve_statements(given_statements(args, episode, options.mode_of(args, front)),
                                    lambda text, mode: resolve_statement(text, mode=mode, signature=signature,
                                                                         language_model=language_model)[:2])
    source = _run_with_progress(front, episode, settings)
    statements = compile_statements(statements, source.signature, thresholds=thresholds, bind_free=args.bind_free)
    statements = source.admit(statements)
    times = source.judgments
    statements, scores = score_statements(source, statements, times)
    # A sentence of the scenario's own that the translator cannot read is noted in the
    # table; a statement the user gave that cannot be scored is bad input.
    failures = [locate(st, n) for n, st in enumerate(statements)
                if st.error is not None and (st.given or st.formula is not None)]

    if args.csv:
        write_output(args.csv, csv_table(source, statements, times, scores), force=args.force, option="--csv",
                     inputs=inputs)
    if args.json:
        write_output(args.json, json_report(source, statements, times, scores), force=args.force,
                     option="--json", inputs=inputs)
    # with a table on standard output, the summary goes to standard error
    show(source, statements, times, scores, stderr=STDOUT in (args.csv, args.json))
    for error in failures:
        print(error.render(), file=sys.stderr)
    if failures:
        raise ElotError(f"{len(failures)} of {len(statements)} statement(s) could not be scored",
                        hint="fix the statements above; the other statements were scored")
    return 0


def _run_with_progress(front, episode, settings):
    """The run, with a bar on a terminal."""
    if not sys.stderr.isatty() or episode.horizon < 2:
        return front.run(episode, settings)
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True, highlight=False), transient=True) as bar:
        task = bar.add_task(f"inferring ({settings.model.name})", total=episode.horizon)
        return front.run(episode, settings, progress=lambda t, total: bar.update(task, completed=t, total=total))


def show(source, statements, times, scores, *, stderr: bool = False) -> None:
    """What ran, its summary table and the statements' scores, at the terminal."""
    from rich.console import Console
    from rich.table import Table

    out = Console(highlight=False, soft_wrap=False, width=max(100, Console().width), stderr=stderr)
    for line in source.header(times):
        out.print(line)
    summary = source.summary(times)
    if summary is not None:
        table = Table(title=summary.title, title_justify="left")
        for name, justify in summary.columns:
            table.add_column(name, justify=justify)
        for row in summary.rows:
            table.add_row(*row)
        out.print(table)
        if summary.note:
            out.print(f"[dim]{summary.note}[/dim]")
    if not statements:
        return
    scored = Table(title="Statements: normalized likelihood L " + ("± its standard error " if source.estimated else "")
                   + "(posterior P)", title_justify="left")
    scored.add_column("#", justify="right")
    scored.add_column("mode")
    scored.add_column("statement", overflow="fold", max_width=60)
    for t in times:
        scored.add_column(f"t={t}", justify="right")
    for n, st in enumerate(statements):
        cells = []
        for got in scores:
            s = got.get(n)
            error = "" if s is None or s.stderr is None else f" ± {s.stderr:.2f}"
            cells.append("—" if s is None else f"{s.normalized_likelihood:.2f}{error} ({s.posterior:.2f})")
        text = excerpt(st.text, 300)
        if st.formula not in (None, st.text):
            text += f"\n→ {excerpt(st.formula, 300)}"
        if st.note:
            text += f"\n[dim]({st.note})[/dim]"
        scored.add_row(str(n + 1), str(st.mode), text, *cells)
    out.print(scored)


def _score_fields(st, s) -> dict:
    return {"posterior": s.posterior, "normalized_likelihood": s.normalized_likelihood,
            "prior_fraction": s.prior_fraction, **({} if s.stderr is None else {"L_stderr": s.stderr})}


def _rows(source, statements, times, scores):
    """One row per (judgment point, statement), with the run's columns at that point."""
    for t, got in zip(times, scores):
        extra = source.csv_columns(t)
        if not got:
            yield {"t": t, "statement": "", "formula": "", "mode": "", "posterior": "",
                   "normalized_likelihood": "", "prior_fraction": "", **extra}
        for n, s in got.items():
            st = statements[n]
            yield {"t": t, "statement": st.text, "formula": st.formula, "mode": str(st.mode), **_score_fields(st, s),
                   **extra}


def csv_table(source, statements, times, scores) -> str:
    return csv_text(list(_rows(source, statements, times, scores)), lineterminator="\r\n")


def json_report(source, statements, times, scores) -> str:
    data = {
        **source.report_head(),
        "judgments": [
            {"t": t, **source.report_at(t), "statements": [
                {"statement": statements[n].text, "formula": statements[n].formula, "mode": str(statements[n].mode),
                 **_score_fields(statements[n], s)} for n, s in got.items()]}
            for t, got in zip(times, scores)],
        "skipped": [{"statement": st.text, "note": st.note} for st in statements if st.note],
        **source.report_tail(times),
        "threads": threads_used(),
    }
    return json.dumps(data, indent=2, default=str) + "\n"


def threads_used() -> dict:
    """The threads the run's numeric work could use: BLAS's pool, and the planners' (see
    :func:`elot.engine.tables.planners.threads`)."""
    from elot.engine.tables.planners import threads
    from elot.numeric import blas_threads

    return {"blas": blas_threads(), "planning": threads(), "planning_blas": 1}


def _inputs(args, front) -> list[str]:
    """The files this command reads (never written over by --csv or --json)."""
    named = [*front.inputs(getattr(args, "scenario", None)), args.statements, args.thresholds]
    return [p for p in named if p and p != STDOUT]


def _check_outputs(args, inputs) -> None:
    if args.csv:
        check_target(args.csv, force=args.force, option="--csv", inputs=inputs)
    if args.json:
        check_target(args.json, force=args.force, option="--json", inputs=inputs)
