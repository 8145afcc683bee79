"""``elot fit``: thresholds Θ and β fitted to human ratings by Pearson r.

Ratings are keyed by (scenario, mode, t, statement); rows with the same key are averaged.
The fit maximizes (or, with ``minimize``, minimizes) Pearson r between the model's
normalized likelihood L and the mean rating: β over a grid, and each threshold by grid
coordinate ascent (step 0.05, within ±0.2 of its literature starting value).

Why it is fast, and exact. A statement's truth table at (scenario, t) depends on Θ only
through the thresholds its lowered form mentions (``threshold(name)`` nodes, usually one
or two), and not on β at all; only the posterior weights depend on β. So the fit
evaluates each statement's truth table once per combination of grid values of *its own*
thresholds (9 values each), takes P (for every β) and π from it, and stores them in an
array indexed by those grid positions. Every step of the ascent is then array lookups and
a vectorized L and Pearson r over all statements and all β at once. Nothing is
approximated: the stored P and π are exactly what :func:`elot.btom.scoring.score` returns for
the same Θ and β.
"""

from __future__ import annotations

import csv
import io
import math
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from elot.errors import ElotError, Span
from elot.lang.semantics import Thresholds
from elot.btom.hypotheses import check_model
from elot.study.batch import ScenarioRef, resolve, run_inference
from elot.study.params import LITERATURE, StudyError, literature_thresholds, read_input

#: β grid: 0.5 to 4 in steps of ×√2.
BETA_GRID = tuple(2 ** (n / 2 - 1) for n in range(7))
STEP = 0.05
SPAN = 4  # grid points on each side: ±0.2
REQUIRED = ("scenario", "mode", "t", "statement", "rating")
#: Columns of a ratings or batch file that are not factors.
KNOWN = frozenset(REQUIRED) | {"map", "model", "beta", "k", "conventions", "thresholds", "statement_id",
                               "formula", "P", "L", "pi", "error", "plan_id"}


# -- ratings --------------------------------------------------------------------------


@dataclass(frozen=True)
class Key:
    scenario: str
    mode: str
    t: int
    formula: str


@dataclass
class Ratings:
    """Mean rating per key, with the statement as written and factor values."""

    path: str
    keys: list[Key]
    rating: np.ndarray
    count: np.ndarray
    statements: list[str]
    factors: dict[str, list[str]]
    refs: dict[str, ScenarioRef]
    skipped: int = 0

    @cached_property
    def by_key(self) -> dict[tuple[str, str, int, str], float]:
        """The mean rating of each ``(scenario, mode, t, formula)``, as a batch table's
        row names it."""
        return {(k.scenario, k.mode, k.t, k.formula): float(y) for k, y in zip(self.keys, self.rating)}


def _field_starts(line: str) -> list[int]:
    """Where each CSV field of a line starts (1-based columns)."""
    starts, quoted, i = [1], False, 0
    while i < len(line):
        c = line[i]
        if c == '"':
            quoted = not quoted
        elif c == "," and not quoted:
            starts.append(i + 2)
        i += 1
    return starts


def ref_for(name: str, root: str | None = None) -> ScenarioRef:
    """The scenario a table's ``scenario`` value names (a dataset ``exp/plan``, a file
    or an example)."""
    from elot.btom.scenario import _PLAN_ID, dataset_root

    match = _PLAN_ID.match(name)
    if match and match["exp"]:
        return ScenarioRef(name, match["exp"], match["id"], str(dataset_root(root)))
    return ScenarioRef(name)


def read_ratings(path: str | Path, *, root: str | None = None, text: str | None = None) -> Ratings:
    """Read and validate a ratings file (a batch table with a ``rating`` column is one).
    Errors name the file, line and column; rows of a batch table with an ``error`` are
    skipped."""
    path = Path(path)
    if text is None:
        text = read_input(path, "ratings")
    lines = text.splitlines()
    reader = csv.DictReader(io.StringIO(text))
    header = reader.fieldnames or []

    def fail(message: str, line: int, column: str | None, hint: str | None = None) -> StudyError:
        source_line = lines[line - 1] if 0 < line <= len(lines) else ""
        col = 1
        if column in header:
            starts = _field_starts(source_line)
            position = header.index(column)
            col = starts[position] if position < len(starts) else 1
        offset = sum(len(l) + 1 for l in lines[:line - 1]) + col - 1
        return StudyError(message, path=str(path), source=text, span=Span.of(text, offset, offset + 1), hint=hint)

    for name in REQUIRED:
        if name not in header:
            raise fail(f"the ratings have no {name!r} column", 1, None,
                       hint=f"the header needs {', '.join(REQUIRED)} (found: {', '.join(header) or 'nothing'})")
    factor_names = [c for c in header if c not in KNOWN]
    sums: dict[Key, float] = defaultdict(float)
    counts: dict[Key, int] = defaultdict(int)
    said: dict[Key, str] = {}
    factors: dict[Key, dict[str, str]] = {}
    refs: dict[str, ScenarioRef] = {}
    skipped = 0
    for row in reader:
        line = reader.line_num
        if (row.get("error") or "").strip():
            skipped += 1
            continue
        name = (row["scenario"] or "").strip()
        if name not in refs:
            try:
                ref = ref_for(name, root)
                ref.load()
            except ElotError as error:
                raise fail(f"unknown scenario {name!r}: {error.message}", line, "scenario",
                           hint="use the scenario column of an elot batch table") from None
            refs[name] = ref
        scenario = refs[name].load()
        mode = (row["mode"] or "").strip()
        if mode not in ("current", "initial"):
            raise fail(f"mode {mode!r} is neither current nor initial", line, "mode")
        try:
            t = int(row["t"])
        except (TypeError, ValueError):
            raise fail(f"judgment point t = {row['t']!r} is not a whole number", line, "t") from None
        if not 0 <= t <= scenario.T:
            raise fail(f"t = {t} is outside {name}'s plan (0..{scenario.T})", line, "t")
        try:
            rating = float(row["rating"])
            if not math.isfinite(rating):
                raise ValueError
        except (TypeError, ValueError):
            raise fail(f"rating {row['rating']!r} is not a number", line, "rating") from None
        statement = (row["statement"] or "").strip()
        formula = (row.get("formula") or "").strip()
        if not statement and not formula and (row.get("statement_id") or "").strip():
            statement = _statement_by_id(refs[name], row["statement_id"].strip())
            if statement is None:
                raise fail(f"{name} has no statement with id {row['statement_id'].strip()!r}", line,
                           "statement_id", hint="use the statement_id column of an elot batch table")
        try:
            if not formula:
                formula, _ = resolve(refs[name], statement, mode)
            _check_formula(formula, scenario)
        except ElotError as error:
            raise fail(f"unknown statement {statement!r}: {error.message}", line, "statement",
                       hint="give the formula in a formula column, or a sentence the translator reads") from None
        key = Key(name, mode, t, formula)
        sums[key] += rating
        counts[key] += 1
        said.setdefault(key, statement)
        factors.setdefault(key, {f: (row.get(f) or "").strip() for f in factor_names})
    keys = list(sums)
    if len(keys) < 3:
        raise StudyError(f"{path}: only {len(keys)} distinct rated statement(s)", path=str(path),
                         hint="a correlation needs at least 3 (scenario, mode, t, statement) keys")
    return Ratings(
        path=str(path), keys=keys,
        rating=np.array([sums[k] / counts[k] for k in keys]),
        count=np.array([counts[k] for k in keys]),
        statements=[said[k] for k in keys],
        factors={f: [factors[k][f] for k in keys] for f in factor_names},
        refs=refs, skipped=skipped,
    )


def _statement_by_id(ref: ScenarioRef, statement_id: str) -> str | None:
    from elot.study.batch import scenario_items

    return next((item.text for item in scenario_items(ref) if item.statement_id == statement_id), None)


def _check_formula(formula: str, scenario) -> None:
    from elot.lang.semantics import compile_formula

    compile_formula(formula, scenario.signature(), None, True)


# -- precomputation -------------------------------------------------------------------


def threshold_names(lowered) -> tuple[str, ...]:
    """The fitted thresholds a lowered formula compares with (``most``/``least`` forms
    count as their adjective's threshold)."""
    from elot.lang.checker import ADJECTIVES
    from elot.lang.syntax import Call, Const, subterms

    names = set()
    for node in subterms(lowered):
        if isinstance(node, Call) and node.name == "threshold":
            arg = node.args[0]
            if isinstance(arg, Const):
                names.add(arg.name)
            elif isinstance(arg, Call):
                adjective = arg.args[0].name
                names.add(adjective if arg.name == "most" else ADJECTIVES[adjective])
    return tuple(sorted(n for n in names if n in LITERATURE))


def grid_values(name: str, start: Thresholds) -> np.ndarray:
    """The 9 grid values of a threshold: start ± 0.2 in steps of 0.05, within [0, 1]."""
    centre = getattr(start, name)
    return np.clip(np.round(centre + STEP * np.arange(-SPAN, SPAN + 1), 10), 0.0, 1.0)


@dataclass
class _Group:
    """Keys whose formulas mention the same thresholds: P (keys, 9, ..., β) and π (keys, 9, ...)."""

    names: tuple[str, ...]
    rows: np.ndarray
    P: np.ndarray
    pi: np.ndarray

    def at(self, index: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
        where = tuple(index[n] for n in self.names)
        return self.P[(slice(None), *where)], self.pi[(slice(None), *where)]


@dataclass
class Problem:
    """Everything one model's fit needs, precomputed."""

    model: str
    betas: tuple[float, ...]
    start: Thresholds
    grids: dict[str, np.ndarray]
    groups: list[_Group]
    n: int

    def scores(self, index: dict[str, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """P (n, β), π (n,) and L (n, β) for grid positions ``index``."""
        P = np.empty((self.n, len(self.betas)))
        pi = np.empty(self.n)
        for g in self.groups:
            P[g.rows], pi[g.rows] = g.at(index)
        return P, pi, likelihood(P, pi[:, None])

    def thresholds(self, index: dict[str, int]) -> Thresholds:
        return self.start.replace(**{n: float(self.grids[n][i]) for n, i in index.items()})


def likelihood(P: np.ndarray, pi: np.ndarray) -> np.ndarray:
    """Vectorized :func:`elot.btom.scoring.normalized_likelihood`."""
    P, pi = np.broadcast_arrays(P, pi)
    yes, no = P * (1 - pi), (1 - P) * pi
    with np.errstate(invalid="ignore", divide="ignore"):
        L = yes / (yes + no)
    edge = (pi <= 0) | (pi >= 1)
    return np.where(edge, pi, L)


def pearson(L: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of every column of L (n, m) with y (n,); 0 where L is constant."""
    Lc = L - L.mean(axis=0)
    yc = y - y.mean()
    den = np.sqrt((Lc ** 2).sum(axis=0) * (yc ** 2).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (Lc * yc[:, None]).sum(axis=0) / den
    return np.where(den > 0, r, 0.0)


def precompute(ratings: Ratings, model: str = "full", *, betas: Sequence[float] = BETA_GRID, k: int = 3,
               conventions: str = "elot", start: Thresholds | None = None,
               progress: Callable[[int, int], None] | None = None) -> Problem:
    """Run the inferences and tabulate P and π of every key over its thresholds' grid."""
    from elot.btom.scoring import compile_statement, truth_table

    check_model(model)
    start = start or literature_thresholds()
    grids = {n: grid_values(n, start) for n in LITERATURE}
    by_scenario: dict[str, list[int]] = defaultdict(list)
    for i, key in enumerate(ratings.keys):
        by_scenario[key.scenario].append(i)
    tables: dict[tuple[str, ...], dict[int, tuple[np.ndarray, np.ndarray]]] = defaultdict(dict)
    for done, (name, rows) in enumerate(by_scenario.items()):
        scenario = ratings.refs[name].load()
        infs = [run_inference(scenario, model, b, k, conventions) for b in betas]
        first = infs[0]
        size = len(first)
        weights = {t: np.stack([inf.pair_posterior(t).ravel() for inf in infs], axis=1)
                   for t in {ratings.keys[i].t for i in rows}}
        live = {t: first.live_pairs(t) for t in weights} if conventions == "paper" else {}
        by_formula: dict[str, list[int]] = defaultdict(list)
        for i in rows:
            by_formula[ratings.keys[i].formula].append(i)
        for formula, members in by_formula.items():
            names = threshold_names(compile_statement(first, formula, thresholds=start, bind_free=True).lowered)
            shape = tuple(len(grids[n]) for n in names)
            P = np.empty((len(members), *shape, len(betas)))
            pi = np.empty((len(members), *shape))
            for combo in np.ndindex(*shape):
                theta = start.replace(**{n: float(grids[n][j]) for n, j in zip(names, combo)})
                compiled = compile_statement(first, formula, thresholds=theta, bind_free=True)
                truth_at: dict[int, np.ndarray] = {}
                for m, i in enumerate(members):
                    key = ratings.keys[i]
                    when = key.t if key.mode == "current" else 0
                    if when not in truth_at:
                        truth_at[when] = truth_table(first, compiled, when).astype(float)
                    truth = truth_at[when]
                    P[(m, *combo)] = np.clip(truth @ weights[key.t], 0.0, 1.0)
                    pi[(m, *combo)] = (live[key.t] @ truth / size) if conventions == "paper" else truth.mean()
            for m, i in enumerate(members):
                tables[names][i] = (P[m], pi[m])
        if progress:
            progress(done + 1, len(by_scenario))
    groups = []
    for names, entries in tables.items():
        order = sorted(entries)
        groups.append(_Group(names, np.array(order, dtype=np.intp),
                             np.stack([entries[i][0] for i in order]), np.stack([entries[i][1] for i in order])))
    return Problem(model, tuple(betas), start, grids, groups, len(ratings.keys))


# -- fitting --------------------------------------------------------------------------


@dataclass
class Figure:
    """r with a bootstrap 95% interval over n keys."""

    r: float
    low: float
    high: float
    n: int

    def as_dict(self) -> dict:
        return {"r": self.r, "ci": [self.low, self.high], "n": self.n}


@dataclass
class ModelFit:
    """One model's fitted Θ, β and figures (overall, per condition, per factor value)."""

    model: str
    thresholds: Thresholds
    beta: float
    overall: Figure
    conditions: dict[str, Figure]
    factors: dict[str, dict[str, Figure]]
    L: np.ndarray
    evaluations: list[dict] = field(repr=False, default_factory=list)


@dataclass
class FitResult:
    """The fit of every model (the first is the primary one, the others ablations)."""

    ratings: Ratings
    models: dict[str, ModelFit]
    minimize: bool

    @property
    def best(self) -> ModelFit:
        return next(iter(self.models.values()))

    def summary_rows(self) -> list[dict]:
        rows = []
        for fit in self.models.values():
            groups = [("all", "", fit.overall)] + [("condition", c, f) for c, f in fit.conditions.items()]
            groups += [(name, value, f) for name, values in fit.factors.items() for value, f in values.items()]
            for group, value, fig in groups:
                rows.append({"model": fit.model, "beta": fit.beta, "group": group, "value": value, "n": fig.n,
                             "r": fig.r, "ci_low": fig.low, "ci_high": fig.high})
        return rows


def ascend(problem: Problem, y: np.ndarray, *, minimize: bool = False,
           max_rounds: int = 20) -> tuple[dict[str, int], int, float, list[dict]]:
    """Grid coordinate ascent: ``(grid positions, β index, r, evaluations)``."""
    sign = -1.0 if minimize else 1.0
    used = sorted({n for g in problem.groups for n in g.names})
    index = {n: SPAN for n in used}
    evaluations = []

    def objective() -> np.ndarray:
        return sign * pearson(problem.scores(index)[2], y)

    values = objective()
    best_b = int(np.argmax(values))
    best = float(values[best_b])
    evaluations.append({"round": 0, "threshold": "", "value": "", "beta": problem.betas[best_b], "r": sign * best})
    for round_ in range(1, max_rounds + 1):
        moved = False
        for name in used:
            keep = index[name]
            choice = (keep, best_b, best)
            for j in range(len(problem.grids[name])):
                index[name] = j
                values = objective()
                b = int(np.argmax(values))
                evaluations.append({"round": round_, "threshold": name, "value": float(problem.grids[name][j]),
                                    "beta": problem.betas[b], "r": sign * float(values[b])})
                if values[b] > choice[2] + 1e-12:
                    choice = (j, b, float(values[b]))
            index[name], best_b, best = choice
            moved |= choice[0] != keep
        if not moved:
            break
    return index, best_b, sign * best, evaluations


def bootstrap(L: np.ndarray, y: np.ndarray, *, samples: int = 1000, seed: int = 0) -> Figure:
    """r of L and y with a percentile bootstrap 95% interval (keys resampled)."""
    r = float(pearson(L[:, None], y)[0])
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(y), size=(samples, len(y)))
    Ls, ys = L[picks].T, y[picks].T  # (n, samples)
    Lc, yc = Ls - Ls.mean(axis=0), ys - ys.mean(axis=0)
    den = np.sqrt((Lc ** 2).sum(axis=0) * (yc ** 2).sum(axis=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        rs = np.where(den > 0, (Lc * yc).sum(axis=0) / den, 0.0)
    low, high = np.percentile(rs, [2.5, 97.5])
    return Figure(r, float(low), float(high), len(y))


def fit(ratings: Ratings, *, models: Sequence[str] = ("full", "true-belief", "non-planning"),
        betas: Sequence[float] = BETA_GRID, k: int = 3, conventions: str = "elot", minimize: bool = False,
        start: Thresholds | None = None, samples: int = 1000, seed: int = 0,
        progress: Callable[[str, int, int], None] | None = None) -> FitResult:
    """Fit Θ and β for each model (the first is the primary one, the rest ablations) and
    report r with bootstrap intervals overall, per condition and per factor value."""
    out = {}
    y = ratings.rating
    for model in models:
        problem = precompute(ratings, model, betas=betas, k=k, conventions=conventions, start=start,
                             progress=(lambda d, t, m=model: progress(m, d, t)) if progress else None)
        index, b, _, evaluations = ascend(problem, y, minimize=minimize)
        L = problem.scores(index)[2][:, b]
        modes = np.array([key.mode for key in ratings.keys])
        conditions = {m: bootstrap(L[modes == m], y[modes == m], samples=samples, seed=seed)
                      for m in ("current", "initial") if (modes == m).sum() >= 3}
        factors = {}
        for name, values in ratings.factors.items():
            values = np.array(values)
            groups = {v: bootstrap(L[values == v], y[values == v], samples=samples, seed=seed)
                      for v in sorted(set(values)) if v and (values == v).sum() >= 3}
            if groups:
                factors[name] = groups
        out[model] = ModelFit(model, problem.thresholds(index), problem.betas[b],
                              bootstrap(L, y, samples=samples, seed=seed), conditions, factors, L,
                              [{"model": model, **e} for e in evaluations])
    return FitResult(ratings, out, minimize)


def fit_json(result: FitResult) -> dict:
    """The extra keys of the parameter file ``elot fit`` writes (beside thresholds, beta)."""
    best = result.best
    return {
        "model": best.model, "objective": "min r" if result.minimize else "max r",
        "ratings": result.ratings.path, "n": best.overall.n,
        "r": best.overall.r, "r_ci95": [best.overall.low, best.overall.high],
        "conditions": {c: f.as_dict() for c, f in best.conditions.items()},
        "ablations": {m: {"beta": f.beta, **f.overall.as_dict()} for m, f in list(result.models.items())[1:]},
    }


def synthetic_ratings(table: Sequence[dict], *, noise: float = 0.05, seed: int = 0) -> list[dict]:
    """Ratings made from a batch table: each scored row's L plus Gaussian noise of standard
    deviation ``noise`` (a known generator, to check that a fit recovers it)."""
    rng = np.random.default_rng(seed)
    out = []
    for row in table:
        if row.get("error") or row.get("L") in ("", None):
            continue
        out.append({**row, "rating": repr(float(row["L"]) + float(rng.normal(0.0, noise)))})
    return out
