"""``elot run`` on a domain of the inference engine (``--domain``, a ``.trucks`` file or
``foodtrucks:ID``): the engine inverts the scenario's path, the domain's outputs are
printed (food trucks: desires K, L, M and initial beliefs L, M, N), and statements are
scored at the judgment points (the path's end) through elot's one score loop.

The engine infers the agent's initial belief and its desires: statements are judged about
the initial belief unless ``--mode current`` is given; a statement about the current
belief after the first step is refused with a hint, the others are still scored.

:func:`domain_study` is where ``elot design``, ``elot storyboard`` and ``elot baseline``
tell a domain's scenarios from the gridworld's (the same ``--domain``, ``.trucks`` and
``foodtrucks:ID`` rules as ``run``) and refuse the gridworld's settings given with them.
"""

from __future__ import annotations

import json
import sys

from elot.cli import domain_options, options
from elot.errors import ElotError
from elot.output import STDOUT, csv_text, excerpt, write_output
from elot.settings import INITIAL


def run_domain(args, check_outputs, inputs) -> int:
    from rich.console import Console

    from elot.domains.source import DomainSource, refuse_current_beliefs
    from elot.judging import Statement, compile_statements, resolve_statements, score_statements
    from elot.translate import resolve_statement

    check_outputs(args)    # before any work: a refused output path fails fast
    front, scenario, config, model = domain_options.domain_session_parts(args)
    source = DomainSource(front, scenario, config, model)
    mode = args.mode if options.mode_given(args) else INITIAL
    given = [Statement(text, mode) for text in args.statement]
    if args.statements:
        from elot.domains.doors_keys_gems.dataset import read_statements

        given += read_statements(args.statements, mode)
    language_model = options.language_model()
    statements = resolve_statements(given, lambda text, m: resolve_statement(
        text, mode=m, scenario=source, language_model=language_model)[:2])
    err = Console(stderr=True, highlight=False)
    _run_with_progress(source, err)
    statements = compile_statements(statements, source.signature, thresholds=_thresholds(args))
    statements = refuse_current_beliefs(statements, source)
    times = source.judgments
    statements, scores = score_statements(source, statements, times)
    outputs = front.outputs(source.result())
    at = {t: front.outputs(source.result(t)) for t in times}     # the outputs at each judgment point
    failures = [(st.locate(st.error) if st.given else st.error).located(source=st.formula, path=f"<statement {n + 1}>")
                for n, st in enumerate(statements) if st.error is not None]

    if args.csv:
        write_output(args.csv, _csv(statements, times, scores, at), force=args.force, option="--csv",
                     inputs=inputs(args))
    if args.json:
        write_output(args.json, _json(source, statements, times, scores, outputs, at), force=args.force,
                     option="--json", inputs=inputs(args))
    _print(source, statements, times, scores, outputs, stderr=STDOUT in (args.csv, args.json))
    for error in failures:
        print(error.render(), file=sys.stderr)
    if failures:
        raise ElotError(f"{len(failures)} of {len(statements)} statement(s) could not be scored",
                        hint="fix the statements above; the other statements were scored")
    return 0


def _thresholds(args):
    thresholds, _ = options.thresholds_and_beta(args)
    return thresholds


def _run_with_progress(source, err) -> None:
    """Plan and invert the whole path (a bar on a terminal: planning is the long part)."""
    if not sys.stderr.isatty():
        source.result()
        return
    from rich.progress import Progress

    with Progress(console=err, transient=True) as bar:
        task = bar.add_task(f"planning ({source.config.planner}) and inverting", total=None)
        source.result()
        bar.update(task, completed=1, total=1)


def _print(source, statements, times, scores, outputs, *, stderr: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    out = Console(highlight=False, soft_wrap=False, width=max(100, Console().width), stderr=stderr)
    result = source.result()
    config = source.config
    world = "unknown" if source.scenario.case.world is None else \
        source.engine.tables(source.scenario.case.layout).worlds[source.scenario.case.world]
    out.print(f"[bold]{source.scenario.name}[/bold] ({source.front.name}, layout {source.scenario.case.layout}, "
              f"true world {world}): {len(result.belief_space.beliefs)} initial beliefs × "
              f"{len(result.desire_space.utilities)} desires, {source.scenario.horizon} steps, model "
              f"{source.model} (planner {config.planner}, β={config.beta:g})")
    ran = result.config
    if result.estimated:
        out.print(f"particle inference: {result.particles:,} particles (seed {ran.seed}), "
                  f"{result.planned:,} distinct utility vectors planned, effective sample size {result.ess:,.1f}; "
                  "figures are estimates, L ± its standard error")
    if result.note:
        out.print(f"[dim]{result.note}[/dim]")
    if not result.possible:
        out.print("[yellow]no hypothesis gives this path a positive probability: the posterior is empty[/yellow]")
    table = Table(title=f"Outputs at t={source.scenario.horizon}", title_justify="left")
    table.add_column("judgment")
    table.add_column("option")
    table.add_column("value", justify="right")
    for judgment, option, value in outputs:
        table.add_row(judgment, option, f"{value:.3f}")
    out.print(table)
    out.print(f"[dim]{source.front.describe_outputs()}[/dim]")
    if not statements:
        return
    scored = Table(title="Statements: normalized likelihood L (posterior P)", title_justify="left")
    scored.add_column("#", justify="right")
    scored.add_column("mode")
    scored.add_column("statement", overflow="fold", max_width=60)
    for t in times:
        scored.add_column(f"t={t}", justify="right")
    for n, st in enumerate(statements):
        cells = []
        for got in scores:
            s = got.get(n)
            cells.append("—" if s is None else f"{s.normalized_likelihood:.2f}"
                         + ("" if s.stderr is None else f" ± {s.stderr:.2f}") + f" ({s.posterior:.2f})")
        text = excerpt(st.text, 300)
        if st.formula not in (None, st.text):
            text += f"\n→ {excerpt(st.formula, 300)}"
        if st.note:
            text += f"\n[dim]({st.note})[/dim]"
        scored.add_row(str(n + 1), str(st.mode), text, *cells)
    out.print(scored)


def _rows(statements, times, scores, at):
    """One row per (judgment point, statement), with the domain's outputs at that point."""
    for t, got in zip(times, scores):
        extra = {f"{judgment}_{option}": value for judgment, option, value in at[t]}
        if not got:
            yield {"t": t, "statement": "", "formula": "", "mode": "", "posterior": "",
                   "normalized_likelihood": "", "prior_fraction": "", **extra}
        for n, s in got.items():
            st = statements[n]
            yield {"t": t, "statement": st.text, "formula": st.formula, "mode": str(st.mode),
                   "posterior": s.posterior, "normalized_likelihood": s.normalized_likelihood,
                   "prior_fraction": s.prior_fraction,
                   **({} if s.stderr is None else {"L_stderr": s.stderr}), **extra}   # as elot run names it


def _csv(statements, times, scores, at) -> str:
    return csv_text(list(_rows(statements, times, scores, at)), lineterminator="\r\n")


def _json(source, statements, times, scores, outputs, at) -> str:
    result = source.result()
    data = {
        "domain": source.front.name,
        "scenario": source.scenario.name,
        "model": source.model,
        "ran": result.describe(),     # what ran: the config with the planner resolved
        "outputs": [{"judgment": j, "option": o, "value": v} for j, o, v in outputs],
        "judgments": [
            {"t": t, "outputs": [{"judgment": j, "option": o, "value": v} for j, o, v in at[t]], "statements": [
                {"statement": statements[n].text, "formula": statements[n].formula, "mode": str(statements[n].mode),
                 "posterior": s.posterior, "normalized_likelihood": s.normalized_likelihood,
                 "prior_fraction": s.prior_fraction, **({} if s.stderr is None else {"L_stderr": s.stderr})}
                for n, s in got.items()]}
            for t, got in zip(times, scores)],
        "skipped": [{"statement": st.text, "note": st.note} for st in statements if st.note],
    }
    return json.dumps(data, indent=2, default=str) + "\n"


def domain_study(args, scenarios, *, exp_default: str = "exp2_current", own: tuple[str, ...] = ()):
    """The domain ``--domain`` or the scenarios name (food trucks for a ``.trucks`` file or
    ``foodtrucks:ID``) as an :class:`elot.study.domain_cases.DomainStudy`, for the commands
    that take a gridworld scenario's place with a domain's (design, storyboard, baseline),
    after refusing the Doors-Keys-Gems settings given with it (``--exp`` other than
    ``exp_default``, the command's; ``own`` are options the command has of its own, such
    as baseline's ``--seed`` of the endpoint's sampling); None for the gridworld."""
    spec = domain_options.domain_spec(args, scenarios=[s for s in scenarios if s])
    if not spec:
        return None
    from elot.study.domain_cases import DomainStudy

    study = DomainStudy.named(spec, planner=getattr(args, "planner", None), data=domain_options.data_dir(args))
    domain_options.refuse_gridworld_options(args, study.name, own=own)
    labtom = args.labtom is not None and not isinstance(args.labtom, options._FromEnvironment)    # given, not the env's
    for option, given in (("--exp", args.exp != exp_default), ("--labtom", labtom)):
        if given:
            raise ElotError(f"{option} is a setting of the Doors-Keys-Gems dataset; the {study.name} domain "
                            "does not take it", hint="leave it out; a domain takes --model, --beta, --planner "
                                                     "and --data")
    return study


def plan_domain(args) -> int:
    """``elot plan --domain D CASE --utilities ... [--belief ...] -o OUT.json``: the case's
    path completed by the domain's simulated agent (:mod:`elot.engine.tables.simulate`), written
    as a JSON case that ``elot run --domain D`` reads back."""
    from elot.domains.agent import belief_of, utilities_of
    from elot.engine import Engine
    from elot.engine.tables.simulate import SimulatedAgent, simulate
    from elot.output import check_target, count

    if args.goal is not None:
        raise ElotError("--goal is for Doors-Keys-Gems maps; a domain's agent wants the objects it has "
                        "--utilities for", hint="give --utilities NAME=U,... over the domain's objects")
    inputs = [spec for spec in (args.scenario,) if spec]
    check_target(args.output, force=args.force, option="--output", inputs=inputs)   # before simulating
    from elot.domains.front import front_of
    from elot.domains.load import load_domain

    spec = domain_options.domain_spec(args)
    front = front_of(load_domain(spec), spec)
    scenario = front.scenario(args.scenario, domain_options.data_dir(args))
    config = front.config(None, beta=args.beta, planner=args.planner)
    case = scenario.case
    engine = Engine(front.domain, config)
    tables = engine.tables(case.layout)
    if case.world is None:
        raise ElotError(f"{scenario.name}: the case does not say its true world; the simulated agent acts in one",
                        hint="give the case a world (docs/domains.md)")
    objects = tables.objects
    hint = f"e.g. --utilities {','.join(f'{o}=1' for o in objects[:3])}"
    if args.utilities is None:
        raise ElotError(f"elot plan on the {front.name} domain needs the agent's --utilities", hint=hint)
    utilities = utilities_of(args.utilities, objects, hint)
    belief = belief_of(args.belief, tables.worlds, case.world,
                       f"uniform, true, or weights over the worlds ({', '.join(tables.worlds)}) summing to 1")
    agent = SimulatedAgent(tables, objects, utilities, config, getattr(front.domain, "default_planner", "qmdp"))
    run = simulate(agent, case.world, case.path, belief, policy=args.policy, seed=args.seed,
                   max_steps=args.max_steps)
    layout = list(case.layout) if isinstance(case.layout, tuple) else case.layout
    data = {"name": scenario.name, "layout": layout, "world": tables.worlds[case.world],
            "path": [tables.states[s] for s in run.path]}
    where = write_output(args.output, json.dumps(data, indent=2) + "\n", force=args.force, option="--output",
                         inputs=inputs)
    moves = len(run.path) - len(case.path)
    if run.finished:
        print(f"{scenario.name}: {count(moves, 'action')} simulated; the agent reached "
              f"{tables.states[run.path[-1]]}", file=sys.stderr)
    else:
        print(f"warning: {scenario.name}: the agent did not finish within {args.max_steps} actions; its path is "
              "written unfinished", file=sys.stderr)
    print(f"wrote {where}", file=sys.stderr)
    return 0
