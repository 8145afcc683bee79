"""Model predictions against people's ratings: Pearson r per judgment, on a split's included
scenarios (individual level) and on its scenario groups' means (group level); the choice of
beta; the authors' stored predictions and reference correlations."""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from elot.domains.foodtrucks.model import BELIEF_OPTIONS, DESIRE_OPTIONS, Prediction
from elot.domains.foodtrucks.scenarios import FoodTruckScenario
from elot.errors import ScenarioError, read_text

HUMAN_FILE = "human_dev.csv"
AUTHORS_FILE = "model_predictions_btom.csv"
REFERENCE_FILE = "reference_correlations.txt"
OPTIONS = {"desire": DESIRE_OPTIONS, "belief": BELIEF_OPTIONS}


@dataclass(frozen=True)
class Correlations:
    r_belief: float
    r_desire: float
    r_belief_group: float
    r_desire_group: float

    @property
    def total(self) -> float:
        return self.r_belief + self.r_desire


def _table(path: str | os.PathLike, columns: Sequence[str], what: str) -> list[dict]:
    text = read_text(path, what)
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in columns if c not in (reader.fieldnames or [])]
    if missing:
        raise ScenarioError(f"{path}: missing column(s) {', '.join(missing)}",
                            hint=f"a {what} has the columns {', '.join(columns)}")
    return list(reader)


def _number(value: str, path, line: int, column: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ScenarioError(f"{path}:{line}: {column} {value!r} is not a number") from None
    if not math.isfinite(number):
        raise ScenarioError(f"{path}:{line}: {column} {value!r} is not finite")
    return number


def read_values(path, value_column: str, what: str) -> dict[tuple[int, str, str], float]:
    """``(scenario, judgment, option) -> value`` from a file in the prediction format."""
    rows = _table(path, ("scenario", "judgment", "option", value_column), what)
    out = {}
    for line, row in enumerate(rows, start=2):
        judgment, option = row["judgment"], row["option"]
        if judgment not in OPTIONS or option not in OPTIONS[judgment]:
            raise ScenarioError(f"{path}:{line}: unknown judgment/option {judgment}/{option}",
                                hint="judgments are desire (K, L, M) and belief (L, M, N)")
        sid = int(_number(row["scenario"], path, line, "scenario"))
        out[(sid, judgment, option)] = _number(row[value_column], path, line, value_column)
    return out


def read_human(path) -> tuple[dict[tuple[int, str, str], float], set[int]]:
    """The human means of ``human_dev.csv`` and the ids of its included scenarios."""
    rows = _table(path, ("scenario", "judgment", "option", "mean", "excluded"), "human ratings file")
    values = read_values(path, "mean", "human ratings file")
    included = {int(r["scenario"]) for r in rows if r["excluded"].strip() in ("0", "")}
    return values, included


def as_values(predictions: Sequence[Prediction]) -> dict[tuple[int, str, str], float]:
    return {(sid, j, o): v for p in predictions for sid, j, o, v in p.rows()}


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    dx, dy = x - x.mean(), y - y.mean()
    denom = math.sqrt(float((dx * dx).sum()) * float((dy * dy).sum()))
    return float((dx * dy).sum()) / denom if denom > 0 else float("nan")


def correlate(model: dict, human: dict, included: set[int],
              scenarios: Sequence[FoodTruckScenario]) -> Correlations:
    """Pearson r over the included scenarios x options, and over group means x options."""
    groups: dict[int, list[int]] = {}
    for s in scenarios:
        if s.id in included and s.group:
            groups.setdefault(s.group, []).append(s.id)
    out = []
    for judgment in ("belief", "desire"):
        keys = [(sid, judgment, o) for sid in sorted(included) for o in OPTIONS[judgment]]
        missing = [k for k in keys if k not in model]
        if missing:
            raise ScenarioError(f"the model has no prediction for scenario {missing[0][0]} ({judgment})")
        individual = pearson([model[k] for k in keys], [human[k] for k in keys])
        gm, gh = [], []
        for members in groups.values():
            for o in OPTIONS[judgment]:
                gm.append(np.mean([model[(sid, judgment, o)] for sid in members]))
                gh.append(np.mean([human[(sid, judgment, o)] for sid in members]))
        out += [individual, pearson(gm, gh)]
    return Correlations(out[0], out[2], out[1], out[3])


def choose_beta(scores: dict[float, Correlations]) -> float:
    """The beta of the largest r_belief + r_desire (the first, in increasing beta, on ties)."""
    best = None
    for beta in sorted(scores):
        if best is None or scores[beta].total > scores[best].total:
            best = beta
    return best


def read_reference(path) -> dict[str, dict[str, tuple]]:
    """``split -> model -> (beta or None, r_belief, r_desire, r_bel_grp, r_des_grp)`` from
    ``reference_correlations.txt`` (its per-split tables)."""
    out: dict[str, dict[str, tuple]] = {}
    split = None
    for line in read_text(path, "reference correlations").splitlines():
        words = line.split()
        if line.startswith("split="):
            split = line.split(":")[0].split("=")[1]
            out[split] = {}
        elif split and words and words[0] in ("BToM", "TrueBelief", "NoCost", "MotionHeuristic"):
            try:
                nums = [float(w) for w in words[1:]]
            except ValueError:
                continue
            beta = nums[0] if len(nums) == 5 else None
            out[split][words[0]] = (beta, *nums[-4:])
        elif "r per beta" in line:
            split = None
    return out
