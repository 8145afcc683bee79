"""What a baseline rates: statements of scenarios at their judgment points, as
:class:`~elot.baseline.prompts.Item`\\ s.

* :func:`scenario_items`: each scenario's own statements (a dataset plan's statements
  files, a ``.scn`` file's ``statements:``) or the ones given, at each judgment point;
* :func:`in_vs_out_items`: the paper's in- vs out-of-context comparison (SPEC §6): each
  statement of ``statements/exp1/exp1_{current,initial}_in_vs_out.csv`` in the plan the
  row names, at that plan's judgment point.

A few-shot ratings file (:func:`read_shots`) has a ``scenario``, ``mode``, ``statement``
and ``rating`` column (1 to 7; a ``participant`` column is averaged over), the columns
of ``elot fit``'s ratings file.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Iterable, Sequence

from elot.baseline.prompts import HIGH, LOW, BaselineError, Item
from elot.btom.dataset import dataset_root, load_dataset_plan
from elot.btom.scenario import Scenario
from elot.errors import ElotError, csv_rows, read_text
from elot.settings import MODES
from elot.study.references import ScenarioRef, resolve, scenario_items as statements_of
from elot.study.experiments import in_vs_out_file

FACTORS = ("possibility", "probability", "compositional", "knowledge")


def scenario_items(refs: Sequence[ScenarioRef], given: Sequence = ()) -> tuple[list[Item], dict[str, Scenario]]:
    """Items for each scenario's own statements (or ``given``, statements records of
    :func:`elot.study.references.given_items`) at each of its judgment points, and the
    scenarios by table name. A scenario without statements or judgment points is an error."""
    items: list[Item] = []
    scenarios: dict[str, Scenario] = {}
    for ref in refs:
        scenario = ref.load()
        scenarios[ref.name] = scenario
        statements = tuple(given) or statements_of(ref)
        if not statements:
            raise BaselineError(f"{ref.name}: the scenario has no statements to rate",
                                hint="give statements with -s or --statements, or a scenario with statements")
        if not scenario.judgments:
            raise BaselineError(f"{ref.name}: the scenario has no judgment points",
                                hint="mark judgment points in the plan (';' in PDDL, judge: in .scn)")
        for s in statements:
            formula = formula_of(ref, s.text, s.mode)
            items += [Item(ref.name, ref.map, t, s.id, s.text, s.mode, formula, s.factors) for t in scenario.judgments]
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
    maps in ``maps`` only, when given)."""
    root = dataset_root(root)
    keep = None if maps is None else set(maps)
    items: list[Item] = []
    scenarios: dict[str, Scenario] = {}
    for condition in conditions:
        path = in_vs_out_file(root, condition)
        for line, row in enumerate(csv_rows(read_text(path, "in-vs-out statements"), path=str(path)), 2):
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


def read_shots(path: str | Path) -> dict[tuple[str, str], list[tuple[str, float]]]:
    """Few-shot ratings: ``(scenario, mode) → [(statement, mean rating)]``, in file order."""
    rows = csv_rows(read_text(path, "few-shot ratings"), path=str(path))
    if rows and any(c not in rows[0] for c in ("scenario", "mode", "statement", "rating")):
        raise BaselineError(f"{path}: a few-shot ratings file needs scenario, mode, statement and rating columns",
                            hint="give the ratings file elot fit reads (ratings on 1 to 7)")
    sums: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for line, row in enumerate(rows, 2):
        try:
            value = float(row["rating"])
        except ValueError:
            raise BaselineError(f"{path}:{line}: rating {row['rating']!r} is not a number",
                                hint=f"ratings are numbers from {LOW} to {HIGH}") from None
        if not LOW <= value <= HIGH:
            raise BaselineError(f"{path}:{line}: rating {value:g} is outside {LOW} to {HIGH}",
                                hint=f"few-shot ratings are shown on the prompt's scale, {LOW} to {HIGH}")
        sums[(row["scenario"], row["mode"], row["statement"].strip())].append(value)
    out: dict[tuple[str, str], list[tuple[str, float]]] = defaultdict(list)
    for (scenario, mode, text), values in sums.items():
        out[(scenario, mode)].append((text, sum(values) / len(values)))
    return dict(out)

