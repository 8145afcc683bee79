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

import csv
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from typing import TYPE_CHECKING

from elot.errors import ElotError, ScenarioError

if TYPE_CHECKING:
    from elot.scenario import Statement


def register(subparsers) -> None:
    """Add ``run``."""
    p = subparsers.add_parser(
        "run",
        help="Infer the agent's goal and beliefs and score statements at each judgment point.",
        description="Run exact Bayesian theory-of-mind inference over a scenario and score ELoT "
        "statements (posterior P and normalized likelihood L) at its judgment points.",
    )
    p.add_argument("scenario", nargs="?", metavar="SCENARIO",
                   help="a .scn file, a dataset PROBLEM.pddl (with --plan), a dataset plan id such as "
                        "1_1, or an example name (default: the built-in example)")
    p.add_argument("--plan", metavar="PLAN", help="the plan of a dataset problem: a .pddl file or a plan id")
    p.add_argument("--labtom", metavar="DIR", help="the LaBToM dataset directory (for plan ids)")
    p.add_argument("--exp", default="exp2_current", help="the dataset experiment of a plan id (default: %(default)s)")
    p.add_argument("--statement", "-s", action="append", default=[], metavar="F",
                   help="an ELoT formula (or English sentence) to score; repeatable")
    p.add_argument("--statements", metavar="FILE",
                   help="statements to score, one per line, optionally prefixed by 'initial:' or "
                        "'current:' (# comments)")
    p.add_argument("--initial", action="store_true",
                   help="statements that do not say are about the agent's initial belief (default: current)")
    p.add_argument("--model", choices=("full", "true-belief", "non-planning"), default="full",
                   help="the BToM model or an ablation (default: %(default)s)")
    p.add_argument("--beta", type=float, default=2**1.5, help="inverse temperature β (default: 2^1.5)")
    p.add_argument("--k", type=int, default=3, help="particles per initial belief (default: %(default)s)")
    p.add_argument("--max-hypotheses", type=_positive_int, default=None, metavar="N",
                   help="refuse a hypothesis space larger than N (default: 2,000,000, about 1.2 GB)")
    p.add_argument("--backend", choices=("core", "reference"), default="core",
                   help="the compiled core, or the slow plain-Python reference (default: %(default)s)")
    p.add_argument("--bind-free", action="store_true", help="bind free variables existentially at the top")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--csv", metavar="OUT", help="write the per-judgment-point table as CSV")
    out.add_argument("--json", metavar="OUT", help="write the per-judgment-point table as JSON")
    p.set_defaults(func=run_command)


@dataclass
class _Statement:
    text: str
    mode: str
    formula: str | None = None
    note: str | None = None
    error: ElotError | None = None
    given: bool = True               # by the user (else the scenario's own)
    origin: Statement | None = None  # where it was read from, if a statements file

    def locate(self, error: ElotError, n: int) -> ElotError:
        """Point an error at this statement: its place in its file, or ``<statement n>``."""
        if self.origin is not None:
            self.origin.locate(error)
        return error.located(source=self.formula, path=f"<statement {n + 1}>")


def _load(args):
    from elot import scenario as scn

    if args.scenario is None:
        if args.plan:
            raise ScenarioError("--plan needs a PROBLEM.pddl", hint="elot run problems/1_1.pddl --plan plans/exp2_current/1_1.pddl")
        return scn.default_example()
    return scn.load_scenario(args.scenario, args.plan, exp=args.exp, root=args.labtom)


def _given_statements(args, scenario) -> list[_Statement]:
    from elot.scenario import read_statements

    mode = "initial" if args.initial else "current"
    given = [_Statement(text, mode) for text in args.statement]
    if args.statements:
        given += [_Statement(s.text, s.mode, origin=s) for s in read_statements(args.statements, mode)]
    if args.statement or args.statements:
        return given
    return [_Statement(s.text, s.mode, given=False) for s in scenario.statements]


def _translate(statements: list[_Statement], scenario) -> None:
    """Give every statement a formula (its own text, or a translation of the English)
    and the mode it is judged in."""
    from elot.translate import resolve_statement

    for st in statements:
        try:
            st.formula, st.mode, _ = resolve_statement(st.text, mode=st.mode, scenario=scenario)
        except ElotError as error:
            st.note = f"not translated: {error.message}"
            st.error = error


def run_command(args) -> int:
    from rich.console import Console

    from elot.inference import infer
    from elot.scoring import compile_statement, score

    scenario = _load(args)
    statements = _given_statements(args, scenario)
    _translate(statements, scenario)
    err = Console(stderr=True, highlight=False)
    inference = _infer_with_progress(scenario, args, err, infer)

    compiled = {}
    for n, st in enumerate(statements):
        if st.formula is None:
            continue
        try:
            compiled[n] = compile_statement(inference, st.formula, bind_free=args.bind_free)
        except ElotError as error:
            st.error = error
            st.note = f"{error.kind}"
    # A sentence of the scenario's own that the translator cannot read is noted in the
    # table; a statement the user gave that cannot be scored is bad input.
    failures = [st.locate(st.error, n) for n, st in enumerate(statements)
                if st.error is not None and (st.given or st.formula is not None)]
    times = tuple(scenario.judgments) or (inference.steps,)
    table = []
    for t in times:
        goals = inference.goal_posterior(t)
        scores = {n: score(inference, c, t, statements[n].mode) for n, c in compiled.items()}
        table.append((t, goals, scores))

    if args.csv:
        _write_csv(Path(args.csv), statements, table)
    if args.json:
        _write_json(Path(args.json), scenario, args, statements, table)
    _print(scenario, inference, statements, table)
    for error in failures:
        print(error.render(), file=sys.stderr)
    if failures:
        raise ElotError(
            f"{len(failures)} of {len(statements)} statement(s) could not be scored",
            hint="fix the statements above; the other statements were scored",
        )
    return 0


def _positive_int(text: str) -> int:
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _infer_with_progress(scenario, args, err, infer):
    options = dict(model=args.model, beta=args.beta, k=args.k, backend=args.backend)
    if args.max_hypotheses is not None:
        options["max_hypotheses"] = args.max_hypotheses
    if not sys.stderr.isatty() or len(scenario.actions) < 2:
        return infer(scenario, **options)
    from rich.progress import Progress

    with Progress(console=err, transient=True) as bar:
        task = bar.add_task(f"inferring ({args.model})", total=len(scenario.actions))
        return infer(scenario, **options, progress=lambda t, total: bar.update(task, completed=t))


def _print(scenario, inference, statements, table) -> None:
    from rich.console import Console
    from rich.table import Table

    out = Console(highlight=False, soft_wrap=False, width=max(100, Console().width))
    out.print(f"[bold]{scenario.name}[/bold]: {len(inference)} hypotheses "
              f"({inference.space.n_goals} goals × {inference.space.n_states} states × "
              f"{inference.space.n_beliefs} beliefs), {inference.steps} actions, model {inference.model}")
    goals = Table(title="Goal posterior", title_justify="left")
    goals.add_column("t", justify="right")
    for gem in inference.space.goals:
        goals.add_column(gem + (" (true)" if gem == scenario.true_goal else ""), justify="right")
    for t, post, _ in table:
        goals.add_row(str(t), *(f"{post[g]:.3f}" for g in inference.space.goals))
    out.print(goals)
    if not statements:
        return
    scores = Table(title="Statements: normalized likelihood L (posterior P)", title_justify="left")
    scores.add_column("#", justify="right")
    scores.add_column("mode")
    scores.add_column("statement", overflow="fold", max_width=60)
    for t, _, _ in table:
        scores.add_column(f"t={t}", justify="right")
    for n, st in enumerate(statements):
        cells = []
        for _, _, got in table:
            s = got.get(n)
            cells.append("—" if s is None else f"{s.normalized_likelihood:.2f} ({s.posterior:.2f})")
        text = st.text if st.formula in (None, st.text) else f"{st.text}\n→ {st.formula}"
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
            yield {"t": t, "statement": st.text, "formula": st.formula, "mode": st.mode,
                   "posterior": s.posterior, "normalized_likelihood": s.normalized_likelihood,
                   "prior_fraction": s.prior_fraction, **goal_cols}


def _write_csv(path: Path, statements, table) -> None:
    rows = list(_rows(statements, table))
    try:
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    except OSError as error:
        raise ScenarioError(f"cannot write {path}: {error.strerror or error}", path=str(path)) from None


def _write_json(path: Path, scenario, args, statements, table) -> None:
    data = {
        "scenario": scenario.name,
        "model": args.model,
        "beta": args.beta,
        "k": args.k,
        "true_goal": scenario.true_goal,
        "judgments": [
            {
                "t": t,
                "goal_posterior": goals,
                "statements": [
                    {"statement": statements[n].text, "formula": statements[n].formula,
                     "mode": statements[n].mode, "posterior": s.posterior,
                     "normalized_likelihood": s.normalized_likelihood,
                     "prior_fraction": s.prior_fraction}
                    for n, s in scores.items()
                ],
            }
            for t, goals, scores in table
        ],
        "skipped": [{"statement": st.text, "note": st.note} for st in statements if st.note],
    }
    try:
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    except OSError as error:
        raise ScenarioError(f"cannot write {path}: {error.strerror or error}", path=str(path)) from None
