"""The paper's in-context vs out-of-context comparison on the LaBToM dataset (SPEC §6).

Each statement of ``statements/exp1/exp1_{current,initial}_in_vs_out.csv`` is scored
(normalized likelihood, free variables bound existentially) in its own plan (in context)
and in the other plans of its map (out of context), at each plan's exp1 judgment point.
A statement is classified correctly when its in-context score is higher than the mean of
its out-of-context scores by more than :data:`TIE` (``accuracy``): scores that are equal in
exact arithmetic can differ in their last bits after rounding (a normalized likelihood
that is exactly 0.5 can come out as 0.5000000000000001 in one plan and 0.5 in another),
and counting that as "higher" would reward rounding. The literal float comparison is kept
as ``strict`` (the rule of the reference pipeline's accuracy, SPEC §7.2). Every sum behind
both is machine-independent (:mod:`elot.numeric`: the scores' P and π, and the means here
are correctly rounded), so both figures are the same on every machine, BLAS and executor;
``strict`` still counts last-bit differences as wins, so it reproduces the reference's
*rule*, not the figure its own rounding gave. Formulas that do not parse or typecheck
score 0.5 and are counted.

``conventions="paper"`` runs the whole comparison as the reference pipeline does (SPEC §7:
π with ruled-out hypotheses false, its state order and key names); the paper's True Belief
row is reproduced by the model ``true-belief-paper`` (§7.4), whose row in :data:`PAPER` is
the paper's True Belief row.
"""

from __future__ import annotations

import csv
import io
import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Mapping, Sequence

import numpy as np

from elot.errors import ElotError, ScenarioError, csv_rows, read_text
from elot.numeric import fsum
from elot.settings import Conventions, check_conventions
from elot.domains.doors_keys_gems.inference import InferenceConfig, infer, infer_config
from elot.engine.worlds.exact import Inference
from elot.domains.doors_keys_gems.dataset import dataset_root, load_dataset_plan
from elot.domains.doors_keys_gems.scenario import Scenario
from elot.domains.doors_keys_gems.scoring import score
from elot.settings import MODES, VARIANTS, check_variant

#: A statement's score: (inference, formula, judgment point t, condition) -> a number in [0, 1].
Judge = Callable[[Inference, str, int, str], float]

#: Scores closer than this are ties: far above rounding noise, far below any real difference.
TIE = 1e-9

#: The paper's Table (all 7 maps): (in, out, diff, s.e. of diff, accuracy) per (condition, model).
PAPER = {
    ("current", "full"): (0.78, 0.48, 0.30, 0.03, 0.71),
    ("current", "non-planning"): (0.70, 0.54, 0.16, 0.02, 0.65),
    ("current", "true-belief"): (0.35, 0.35, 0.01, 0.01, 0.11),
    ("initial", "full"): (0.73, 0.51, 0.22, 0.03, 0.70),
    ("initial", "non-planning"): (0.70, 0.70, -0.01, 0.01, 0.39),
    ("initial", "true-belief"): (0.51, 0.50, 0.00, 0.01, 0.16),
}
#: The paper's best language-model row of the same table, GPT-4o given the image and the
#: narrative: (in, out, diff, accuracy) per condition (no s.e. is given for it).
PAPER_LLM = {"current": (0.80, 0.62, 0.18, 0.59), "initial": (0.76, 0.68, 0.07, 0.38)}
PAPER.update({(condition, "true-belief-paper"): PAPER[(condition, "true-belief")] for condition in MODES})


@dataclass(frozen=True)
class InVsOut:
    """One row of the comparison: a condition (``current``/``initial``) and a model."""

    condition: str
    model: str
    n: int                 # statements with both in- and out-of-context rows
    in_context: float      # mean in-context score
    out_of_context: float  # mean of the per-statement out-of-context means
    diff: float
    se: float              # standard error of the per-statement difference
    accuracy: float        # in > out + TIE (ties by a stated rule)
    strict: float          # in > out in floating point (the reference's rule, SPEC §7.2)
    ill_typed: int         # formulas scored 0.5 because they did not parse or typecheck
    conventions: str = "elot"


def in_vs_out_file(root: Path, condition: str) -> Path:
    """The dataset's in-vs-out statements of ``condition`` (an error if missing)."""
    path = root / "statements" / "exp1" / f"exp1_{condition}_in_vs_out.csv"
    if not path.is_file():
        raise ScenarioError(f"{path}: file not found", hint="the dataset's statements/exp1 folder is incomplete")
    return path


def in_vs_out_statements(root: Path, condition: str,
                         maps: Collection[str] | None = None) -> tuple[Path, list[dict[str, str]]]:
    """The file of :func:`in_vs_out_file` and its rows (``maps``: only those maps')."""
    path = in_vs_out_file(root, condition)
    return path, [r for r in csv.DictReader(io.StringIO(read_text(path, "in-vs-out statements")))
                  if maps is None or r["map_id"] in maps]


def in_vs_out(
    root: str | Path | None = None,
    conditions: tuple[str, ...] = MODES,
    models: tuple[str, ...] = VARIANTS,
    conventions: Conventions = "elot",
    *,
    maps: Collection[str] | None = None,
    judge: Judge | None = None,
    inference: InferenceConfig | Mapping[str, Any] | None = None,
) -> list[InVsOut]:
    """Run the comparison for every condition and model under the ``elot`` or ``paper``
    conventions; inferences are shared (cached by plan, model and conventions).

    ``maps`` keeps only the statements of those maps (``{"1", "3"}``); ``judge(inference,
    formula, t, condition)`` replaces the statement's score (default: its normalized
    likelihood, free variables bound), e.g. to try another reading of the reference;
    ``inference``: how to infer, an :class:`~elot.domains.doors_keys_gems.inference.InferenceConfig` or its
    settings as keyword arguments of :func:`~elot.domains.doors_keys_gems.inference.infer`, e.g.
    ``{"inference": "smc", "particles": 10_000, "seed": 1}`` (the model and conventions
    are the comparison's own).
    """
    check_conventions(conventions)
    base = inference if isinstance(inference, InferenceConfig) else infer_config(**(inference or {}))
    for model in models:
        check_variant(model)
    root = dataset_root(root)
    scenarios: dict[str, Scenario] = {}
    inferences: dict[tuple[str, str, str], object] = {}
    out = []
    for condition in conditions:
        path, rows = in_vs_out_statements(root, condition, maps)
        for model in models:
            ins: dict[str, float] = {}
            outs: dict[str, list[float]] = defaultdict(list)
            ill: set[str] = set()
            for line, row in enumerate(rows, 2):
                plan = row["plan_id"]
                if plan not in scenarios:
                    scenarios[plan] = load_dataset_plan(root, plan, exp="exp1")
                (t,) = scenarios[plan].judgments
                if int(row["timestep"]) != t + 1:
                    raise ScenarioError(f"{path}:{line}: timestep {row['timestep']} is not plan {plan}'s "
                                    f"judgment point + 1 ({t + 1})", hint="the CSV and the plans disagree")
                key = (plan, model, conventions)
                if key not in inferences:
                    inferences[key] = infer(scenarios[plan], base, model=model, conventions=conventions)
                try:
                    if judge is None:
                        value = score(inferences[key], row["formula"].strip(), t, condition,
                                      bind_free=True, conventions=conventions).normalized_likelihood
                    else:
                        value = judge(inferences[key], row["formula"].strip(), t, condition)
                except ElotError:
                    ill.add(row["statement_id"])
                    value = 0.5
                if row["match"].strip().upper() == "TRUE":
                    ins[row["statement_id"]] = value
                else:
                    outs[row["statement_id"]].append(value)
            out.append(summarize(condition, model, ins, outs, len(ill), conventions))
    return out


def summarize(condition: str, model: str, ins: Mapping[str, float], outs: Mapping[str, list[float]],
              ill: int, conventions: str = "elot") -> InVsOut:
    """One row from each statement's in-context score (``ins``) and out-of-context scores
    (``outs``); statements without both are left out."""
    ids = [s for s in ins if outs.get(s)]
    if not ids:
        raise ScenarioError(f"{condition}, {model}: no statement has both an in- and an out-of-context score",
                            hint="score (or rate) the statements in their own plan and in the other plans of their map")
    in_scores = np.array([ins[s] for s in ids])
    out_scores = np.array([fsum(outs[s]) / len(outs[s]) for s in ids])
    diff = in_scores - out_scores
    return InVsOut(
        condition=condition,
        model=model,
        n=len(ids),
        in_context=fsum(in_scores) / len(ids),
        out_of_context=fsum(out_scores) / len(ids),
        diff=fsum(diff) / len(ids),
        se=float(diff.std(ddof=1) / math.sqrt(len(diff))) if len(ids) > 1 else float("nan"),
        accuracy=float((in_scores > out_scores + TIE).mean()),
        strict=float((in_scores > out_scores).mean()),
        ill_typed=ill,
        conventions=conventions,
    )


def in_vs_out_of_table(rows: Sequence[Mapping[str, str]], root: str | Path | None = None,
                       conditions: tuple[str, ...] = MODES, *, models: Sequence[str] | None = None,
                       maps: Collection[str] | None = None) -> list[InVsOut]:
    """The comparison from a study table's ``L`` values instead of inference: each
    statement of the in-vs-out files is looked up by plan (``scenario`` ``exp1/PLAN``),
    ``statement_id`` and mode, for each ``model`` of the table (all by default) — a
    language model's ratings from ``elot baseline --in-vs-out``, say. A row without a
    value (a prompt no answer rated) is left out of its statement's scores and counted in
    ``ill_typed``; a statement without its in-context value or any out-of-context one is
    left out. ``maps`` keeps only those maps' statements (the maps the table rated)."""
    root = dataset_root(root)
    values: dict[tuple[str, str, str, str], float | None] = {}
    for row in rows:
        value = row.get("L")
        values[(row["model"], row["scenario"], row["statement_id"], row["mode"])] = \
            float(value) if value not in ("", None) else None
    chosen = list(dict.fromkeys(m for m, *_ in values)) if models is None else list(models)
    out = []
    for condition in conditions:
        _, lines = in_vs_out_statements(root, condition, maps)
        for model in chosen:
            ins: dict[str, float] = {}
            outs: dict[str, list[float]] = defaultdict(list)
            missing = 0
            for row in lines:
                key = (model, f"exp1/{row['plan_id']}", row["statement_id"], condition)
                if key not in values:
                    raise ScenarioError(f"the table has no {model} row for statement {row['statement_id']} in plan "
                                        f"{row['plan_id']} ({condition})",
                                        hint="rate every in-vs-out statement (elot baseline --in-vs-out), or "
                                             "compare only the maps the table covers (maps=; --llm-maps in "
                                             "benchmarks/reproduce_in_vs_out.py)")
                value = values[key]
                if value is None:
                    missing += 1
                elif row["match"].strip().upper() == "TRUE":
                    ins[row["statement_id"]] = value
                else:
                    outs[row["statement_id"]].append(value)
            out.append(summarize(condition, model, ins, outs, missing))
    return out


def in_vs_out_items(root: str | Path | None = None, conditions: Sequence[str] = MODES, *,
                    maps: Iterable[str] | None = None) -> tuple[list[tuple], dict]:
    """The in- vs out-of-context statements of the dataset as a language-model baseline
    rates them (both conditions by default; the maps in ``maps`` only, when given: a map
    without in-vs-out statements is an error naming those that have some): ``(items,
    refs)``, each item a :class:`~elot.baseline.prompts.Item`-shaped tuple of (scenario,
    map, t, statement id, statement, mode, formula), each scenario a
    :class:`~elot.domains.doors_keys_gems.refs.PlanRef`."""
    from elot.domains.doors_keys_gems.dataset import dataset_root, load_dataset_plan
    from elot.domains.doors_keys_gems.refs import PlanRef

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
            raise ScenarioError(f"--maps: no in-vs-out statements are about map{'s' if len(unknown) > 1 else ''} "
                                + ", ".join(repr(m) for m in unknown),
                                hint=f"the maps with in-vs-out statements are {', '.join(known)}")
    items: list[tuple] = []
    scenarios: dict[str, object] = {}
    refs: dict[str, PlanRef] = {}
    for condition, path, rows in tables:
        for line, row in enumerate(rows, 2):
            if keep is not None and row["map_id"] not in keep:
                continue
            name = f"exp1/{row['plan_id']}"
            if name not in scenarios:
                scenarios[name] = load_dataset_plan(root, row["plan_id"], exp="exp1")
                refs[name] = PlanRef(name, "exp1", row["plan_id"], str(root))
            (t,) = scenarios[name].judgments
            if int(row["timestep"]) != t + 1:
                raise ScenarioError(f"{path}:{line}: timestep {row['timestep']} is not plan {row['plan_id']}'s "
                                    f"judgment point + 1 ({t + 1})", hint="the CSV and the plans disagree")
            items.append((name, row["map_id"], t, row["statement_id"], row["statement"].strip(), condition,
                          row["formula"].strip()))
    return items, refs
