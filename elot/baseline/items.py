"""What a baseline rates: statements of scenarios at their judgment points, as
:class:`~elot.baseline.prompts.Item`\\ s.

* :func:`scenario_items`: each scenario's own statements (its domain's questions: a
  dataset plan's statements files, a ``.scn`` file's ``statements:``, the food-truck
  experiment's questions) or the ones given, at each judgment point, in any domain whose
  front tells its scenes (:meth:`elot.domains.front.Front.tell`);
* the gridworld's in- vs out-of-context comparison (SPEC §6) comes from its front
  (:func:`elot.domains.doors_keys_gems.experiments.in_vs_out_items`).

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
from typing import Sequence

from elot.baseline.prompts import HIGH, LOW, BaselineError, Item
from elot.errors import ElotError
from elot.statements import Statement
from elot.settings import MODES
from elot.study.references import ScenarioRef, check_given, resolve, scenario_items as statements_of


def scenario_items(refs: Sequence[ScenarioRef],
                   given: Sequence[Statement] = ()) -> tuple[list[Item], dict[str, ScenarioRef]]:
    """Items for each scenario's own statements (or ``given``, statements records of
    :func:`elot.study.references.given_items`) at each of its judgment points, and the
    scenarios by table name (without ``given``, what its domain asks of it: its own, or the
    experiment's questions). A scenario without statements or judgment points is an error;
    so is a given statement that does not parse, typecheck or translate against a scenario,
    or that its domain's runs cannot judge (:class:`~elot.study.references.StatementErrors`,
    all of them): nothing is asked about a statement ``elot run`` would refuse. A
    scenario's own statements are rated as they are (the rating needs no formula); its
    domain must tell its scenes (a missing hook is refused now, before anything is asked)."""
    items: list[Item] = []
    scenarios: dict[str, ScenarioRef] = {}
    checked_given = check_given(refs, given, use="rated", kept="nothing was asked") if given else {}
    for ref in refs:
        front, episode = ref.front, ref.load()
        front.tell(episode, 0, "plan")      # a domain that tells nothing is refused here, naming the hook
        scenarios[ref.name] = ref
        if given:
            statements = checked_given[ref.name]
        else:
            statements = [replace(s, formula=formula_of(ref, s.text, s.mode)) for s in statements_of(ref, asked=True)]
        if not statements:
            raise BaselineError(f"{ref.name}: the scenario has no statements to rate",
                                hint="give statements with -s or --statements, or a scenario with statements")
        points = episode.judged
        if not points:
            raise BaselineError(f"{ref.name}: the scenario has no judgment points",
                                hint="mark judgment points in the plan (';' in PDDL, judge: in .scn)")
        for s in statements:
            items += [Item(ref.name, ref.map, t, s.id, s.text, s.mode, s.formula or "", s.factors)
                      for t in points]
    return items, scenarios


def formula_of(ref: ScenarioRef, text: str, mode: str) -> str:
    """The formula a batch table gives the statement (English translated as batch does),
    so that a baseline's rows meet the same ratings and batch rows by
    ``(scenario, mode, t, formula)``; '' when it has none (the rating does not need one)."""
    try:
        return resolve(ref, text, mode)[0]
    except ElotError:
        return ""


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
