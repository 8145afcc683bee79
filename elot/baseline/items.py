"""What a baseline rates: statements of scenarios at their judgment points, as
:class:`~elot.baseline.prompts.Item`\\ s.

* :func:`scenario_items`: each scenario's own statements (a dataset plan's statements
  files, a ``.scn`` file's ``statements:``) or the ones given, at each judgment point;
* :func:`in_vs_out_items`: the paper's in- vs out-of-context comparison (SPEC §6): each
  statement of ``statements/exp1/exp1_{current,initial}_in_vs_out.csv`` in the plan the
  row names, at that plan's judgment point.

A few-shot ratings file (:func:`read_shots`) has a ``scenario``, ``mode``, ``statement``
and ``rating`` column (1 to 7; a ``participant`` column is averaged over), the columns
of ``elot fit``'s ratings file; a row it cannot read is an error at its line.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Sequence

from elot.baseline.prompts import HIGH, LOW, BaselineError, Item
from elot.btom.dataset import dataset_root, load_dataset_plan
from elot.btom.scenario import Scenario
from elot.errors import ElotError, csv_rows, read_text
from elot.judging import Statement
from elot.settings import MODES
from elot.study.references import (ScenarioRef, check_given, resolve,
                                   scenario_items as statements_of)
from elot.study.experiments import in_vs_out_file

FACTORS = ("possibility", "probability", "compositional", "knowledge")


def scenario_items(refs: Sequence[ScenarioRef],
                   given: Sequence[Statement] = ()) -> tuple[list[Item], dict[str, Scenario]]:
    """Items for each scenario's own statements (or ``given``, statements records of
    :func:`elot.study.references.given_items`) at each of its judgment points, and the
    scenarios by table name. A scenario without statements or judgment points is an error;
    so is a given statement that does not parse, typecheck or translate against a scenario
    (:class:`~elot.study.references.StatementErrors`, all of them): nothing is asked about a statement ``elot run``
    would refuse. A scenario's own statements are rated as they are (the rating needs no
    formula)."""
    items: list[Item] = []
    scenarios: dict[str, Scenario] = {}
    checked_given = check_given(refs, given, use="rated", kept="nothing was asked") if given else {}
    for ref in refs:
        scenario = ref.load()
        scenarios[ref.name] = scenario
        if given:
            statements = checked_given[ref.name]
        else:
            statements = [replace(s, formula=formula_of(ref, s.text, s.mode)) for s in statements_of(ref)]
        if not statements:
            raise BaselineError(f"{ref.name}: the scenario has no statements to rate",
                                hint="give statements with -s or --statements, or a scenario with statements")
        if not scenario.judgments:
            raise BaselineError(f"{ref.name}: the scenario has no judgment points",
                                hint="mark judgment points in the plan (';' in PDDL, judge: in .scn)")
        for s in statements:
            items += [Item(ref.name, ref.map, t, s.id, s.text, s.mode, s.formula or "", s.factors)
                      for t in scenario.judgments]
    return items, scenarios


def formula_of(ref: ScenarioRef, text: str, mode: str) -> str:
    """The formula a batch table gives the statement (English translated as batch does),
    so that a baseline's rows meet the same ratings and batch rows by
    ``(scenario, mode, t, formula)``; '' when it has none (the rating does not need one)."""
    try:
        return resolve(ref, text, mode)[0]
    except ElotError:
        return ""


def in_vs_out_items(root: str | Path | None = None, conditions: Sequence[str] = MODES, *,
                    maps: Iterable[str] | None = None) -> tuple[list[Item], dict[str, Scenario]]:
    """The in- vs out-of-context items of the dataset (both conditions by default; the
    maps in ``maps`` only, when given: a map without in-vs-out statements is an error
    naming those that have some)."""
    root = dataset_root(root)
    tables = []
    for condition in conditions:
        path = in_vs_out_file(root, condition)
        rows = csv_rows(read_text(path, "in-vs-out statements"), path=str(path))
        tables.append((condition, path, rows))
    keep = None if maps is None else list(dict.fromkeys(maps))
    if keep is not None:
        known = sorted({row["map_id"] for _, _, rows in tables for row in rows},
                       key=lambda m: (not m.isdigit(), int(m) if m.isdigit() else 0, m))
        unknown = [m for m in keep if m not in known]
        if unknown:
            raise BaselineError(f"--maps: no in-vs-out statements are about map{'s' if len(unknown) > 1 else ''} "
                                + ", ".join(repr(m) for m in unknown),
                                hint=f"the maps with in-vs-out statements are {', '.join(known)}")
    items: list[Item] = []
    scenarios: dict[str, Scenario] = {}
    for condition, path, rows in tables:
        for line, row in enumerate(rows, 2):
            if keep is not None and row["map_id"] not in keep:
                continue
            name = f"exp1/{row['plan_id']}"
            if name not in scenarios:
                scenarios[name] = load_dataset_plan(root, row["plan_id"], exp="exp1")
            (t,) = scenarios[name].judgments
            if int(row["timestep"]) != t + 1:
                raise BaselineError(f"{path}:{line}: timestep {row['timestep']} is not plan {row['plan_id']}'s "
                                    f"judgment point + 1 ({t + 1})", hint="the CSV and the plans disagree")
            items.append(Item(name, row["map_id"], t, row["statement_id"], row["statement"].strip(), condition,
                              row["formula"].strip()))
    return items, scenarios


#: The columns of a few-shot ratings file.
SHOT_COLUMNS = ("scenario", "mode", "statement", "rating")


def read_shots(path: str | Path) -> dict[tuple[str, str], list[tuple[str, float]]]:
    """Few-shot ratings: ``(scenario, mode) → [(statement, mean rating)]``, in file order.
    Errors name the file and line: a missing column, a row with too few or too many
    fields (a missing comma, an unclosed quote), an unknown mode, an empty statement, a
    rating that is not a number on the prompt's scale."""
    from elot.baseline.prompts import read_input

    text = read_input(path, "few-shot ratings")
    reader = csv.DictReader(io.StringIO(text, newline=""))

    def fail(line: int, message: str, hint: str) -> BaselineError:
        return BaselineError(message, path=f"{path}:{line}", hint=hint)

    try:
        header = reader.fieldnames or []
        missing = [c for c in SHOT_COLUMNS if c not in header]
        if header and missing:
            raise fail(1, f"a few-shot ratings file needs {', '.join(SHOT_COLUMNS)} columns; it has no "
                          f"{', '.join(missing)}", "give the ratings file elot fit reads (ratings on 1 to 7)")
        sums: dict[tuple[str, str, str], list[float]] = defaultdict(list)
        end = reader.line_num
        for row in reader:
            line, end = end + 1, reader.line_num
            if end > line and any("\n" in (v or "") for v in row.values() if isinstance(v, str)):
                raise fail(line, f"a field runs on from line {line} to line {end}",
                           "check for a quote (\") that is not closed")
            if None in row or any(row[c] is None for c in SHOT_COLUMNS):
                fields = len(header) + len(row.get(None) or ()) - sum(v is None for v in row.values())
                raise fail(line, f"the row has {fields} fields, the header {len(header)}",
                           "check for a missing or extra comma, or a quote (\") that is not closed")
            mode = row["mode"].strip()
            if mode not in MODES:
                raise fail(line, f"unknown mode {row['mode']!r}", f"the mode is {' or '.join(MODES)}")
            statement = row["statement"].strip()
            if not statement:
                raise fail(line, "the statement is empty", "give the statement people rated")
            try:
                value = float(row["rating"])
            except ValueError:
                raise fail(line, f"rating {row['rating']!r} is not a number",
                           f"ratings are numbers from {LOW} to {HIGH}") from None
            if not LOW <= value <= HIGH:
                raise fail(line, f"rating {value:g} is outside {LOW} to {HIGH}",
                           f"few-shot ratings are shown on the prompt's scale, {LOW} to {HIGH}")
            sums[(row["scenario"].strip(), mode, statement)].append(value)
    except csv.Error as error:
        raise fail(max(reader.line_num, 1), f"cannot read this CSV: {error}",
                   "save it as CSV (comma-separated, UTF-8)") from None
    out: dict[tuple[str, str], list[tuple[str, float]]] = defaultdict(list)
    for (scenario, mode, text), values in sums.items():
        out[(scenario, mode)].append((text, sum(values) / len(values)))
    return dict(out)


def domain_items(cases: Sequence, given: Sequence[Statement] = ()) -> tuple[list[Item], dict]:
    """Items for scenarios of a domain of the engine (:class:`elot.study.domain_cases.DomainCase`):
    the ``given`` statements, else the domain's own questions (food trucks: the experiment's
    three belief questions, as ``elot stimuli`` asks them), at each scenario's judgment
    points (the path's end unless the scenario says), and the scenarios by table name.
    Every statement is checked as ``elot run`` checks it, against the domain's signature:
    one that does not parse, typecheck or translate, or asks about the current belief after
    the start (a domain's engine infers the initial one), is an error naming the scenario,
    before anything is asked."""
    from elot.baseline.prompts import check_described
    from elot.domains.source import refuse_current_beliefs
    from elot.judging import compile_statements, resolve_statements
    from elot.translate import resolve_statement

    items: list[Item] = []
    scenarios: dict = {}
    for case in cases:
        check_described(case, case.ref)
        statements = list(given) or case.questions()
        if not statements:
            raise BaselineError(f"{case.ref}: the {case.study.name} domain has no questions of its own",
                                hint="give statements with -s or --statements")
        source = case.source()
        resolved = resolve_statements(statements, lambda text, mode: resolve_statement(
            text, mode=mode, scenario=source)[:2])
        checked = refuse_current_beliefs(compile_statements(resolved, source.signature), source)
        bad = [st for st in checked if st.error is not None]
        if bad:
            raise BaselineError(f"{case.ref}: {len(bad)} of {len(checked)} statement(s) could not be scored, so "
                                "nothing was asked",
                                notes=tuple(f"{st.origin or st.text}: {st.error.message}" for st in bad),
                                hint="fix the statements above (elot run shows what it scores)")
        scenarios[case.ref] = case
        for st in checked:
            items += [Item(case.ref, str(case.scenario.case.layout), t, st.id, st.text, st.mode, st.formula or "",
                           st.factors) for t in case.judgments]
    return items, scenarios

