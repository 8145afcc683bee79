"""``elot fit``: thresholds Θ and β fitted to human ratings by Pearson r.

Ratings are keyed by (scenario, mode, t, statement); rows with the same key are averaged.
The fit maximizes (or, with ``minimize``, minimizes) Pearson r between the model's
normalized likelihood L and the mean rating: β over a grid, and each threshold by grid
coordinate ascent (step 0.05, within ±0.2 of where it starts: the defaults of
:class:`~elot.lang.semantics.Thresholds`, as every other command has them, unless given
another start). A threshold the ratings do not constrain (no rated statement compares
with it, or r is the same over its whole grid) is reported as unconstrained and left where
it started, so that reading the fit back changes nothing the data did not decide.

Why it is fast, and exact. A statement's truth table at (scenario, t) depends on Θ only
through the thresholds its lowered form mentions (``threshold(name)`` nodes, usually one
or two), and not on β at all; only the posterior weights depend on β. So the fit
evaluates each statement's truth table once per combination of grid values of *its own*
thresholds (9 values each), takes P (for every β) and π from it, and stores them in an
array indexed by those grid positions. Every step of the ascent is then array lookups and
a vectorized L and Pearson r over all statements and all β at once. Nothing is
approximated: the stored P and π are exactly what :func:`elot.domains.doors_keys_gems.scoring.score` returns for
the same Θ and β.
"""

from __future__ import annotations

import csv
import io
import math
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property, lru_cache, partial
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from elot.errors import ElotError, Span
from elot.lang.thresholds import Thresholds
from elot.settings import MODES
from elot.study.params import FITTED, StudyError, one_newline, read_input, whole_records
from elot.study.references import DomainRef, ScenarioRef, resolve
from elot.study.tables import match_beta, setting_text, settings_of
from elot.study.tasks import settings_grid

#: β grid: 0.5 to 4 in steps of ×√2.
BETA_GRID = tuple(2 ** (n / 2 - 1) for n in range(7))
STEP = 0.05
SPAN = 4  # grid points on each side: ±0.2
#: Two values of r closer than this are a tie. Settings that differ only by rounding (r equal
#: to ~1e-16) must not be told apart by the last bit, which differs between numpy versions.
R_TOLERANCE = 1e-9
#: Normalized likelihoods closer than this are one value (see :func:`_correlation`).
L_TOLERANCE = 1e-12
#: Values (samples × keys) drawn at once by the bootstrap: about 16 MB per array.
BOOTSTRAP_CHUNK = 1 << 21
REQUIRED = ("scenario", "mode", "t", "statement", "rating")
#: Columns of a ratings or batch file that are not factors.
KNOWN = frozenset(REQUIRED) | {"participant"} | {"map", "model", "beta", "k", "conventions", "thresholds", "statement_id",
                               "formula", "P", "L", "pi", "error", "plan_id", "params"}
#: What a fit correlates with the ratings: L, the normalized likelihood (elot's judgment of a
#: statement), or P, its posterior probability (ratings of how probable a statement is, such
#: as Alanqary et al.'s ratings of each goal's probability).
MEASURES = ("L", "P")


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
    #: The setting columns of simulated ratings (model, beta, ...) with every value seen;
    #: empty for human ratings, which have none.
    settings: dict[str, set[str]] = field(default_factory=dict)
    #: standard error of each mean rating (0 where a key has one rating)
    se: np.ndarray | None = None
    #: each participant's mean rating of each key they rated (a ``participant`` column:
    #: repeated measures, averaged per key, never a factor)
    participants: dict[str, dict[Key, float]] = field(default_factory=dict)

    @cached_property
    def by_key(self) -> dict[tuple[str, str, int, str], float]:
        """The mean rating of each ``(scenario, mode, t, formula)``, as a batch table's
        row names it."""
        return {(k.scenario, k.mode, k.t, k.formula): float(y) for k, y in zip(self.keys, self.rating)}


#: The largest rating (either way) a ratings file may hold: any scale people answer on is
#: far inside it, and sums of squares of larger ones overflow.
MAX_RATING = 1e9


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


#: The scale of ratings drawn beside L (storyboards, the report's scatter): L's own, as
#: ``elot survey import`` and ``elot simulate`` write ratings.
UNIT_SCALE = (0.0, 1.0)


def read_ratings(path: str | Path, *, domain: DomainRef = DomainRef(), text: str | None = None,
                 scale: tuple[float, float] | None = None) -> Ratings:
    """Read and validate a ratings file (a batch table with a ``rating`` column is one) of
    scenarios of ``domain`` (its front finds the scenario each ``scenario`` value names:
    :meth:`elot.domains.front.Front.find`). Errors name the file, line and column; rows of
    a batch table with an ``error`` are skipped. Ratings may be on any scale (Pearson r
    does not depend on it) unless ``scale`` is given: a rating outside it is then an error
    at its line, not clipped (clipping would change the data a figure shows)."""
    path = Path(path)
    text = read_input(path, "ratings") if text is None else one_newline(text)
    lines = text.splitlines()
    reader = csv.DictReader(io.StringIO(text))
    try:
        header = reader.fieldnames or []
    except csv.Error as error:       # the header is read here, before csv_records' guard
        raise StudyError(f"cannot read this ratings file: {error}", path=f"{path}:1",
                         hint="save it as CSV (comma-separated, UTF-8)") from None

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
    squares: dict[Key, float] = defaultdict(float)
    counts: dict[Key, int] = defaultdict(int)
    said: dict[Key, str] = {}
    factors: dict[Key, dict[str, str]] = {}
    refs: dict[str, ScenarioRef] = {}
    skipped = 0
    settings: dict[str, set[str]] = {}
    people: dict[str, dict[Key, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in whole_records(reader, text, path=path, what="ratings file"):
        line = reader.line_num
        for column in SETTINGS:
            if (row.get(column) or "").strip():
                settings.setdefault(column, set()).add(row[column].strip())
        if (row.get("error") or "").strip():
            skipped += 1
            continue
        name = (row["scenario"] or "").strip()
        if name not in refs:
            try:
                key = domain.front().find(name, None if path is None else Path(path).parent,
                                          (row.get("map") or "").strip() or None)
                ref = ScenarioRef(name, key, domain)
                ref.load()
            except ElotError as error:
                failure = fail(f"unknown scenario {name!r}: {error.message}", line, "scenario",
                               hint=error.hint if error.notes else "use the scenario column of an elot batch table")
                failure.notes = error.notes  # where a file was looked for
                raise failure from None
            refs[name] = ref
        scenario = refs[name].load()
        mode = (row["mode"] or "").strip()
        if mode not in MODES:
            raise fail(f"mode {mode!r} is neither current nor initial", line, "mode",
                       hint="write current (the agent's belief at t) or initial (its belief at the start)")
        try:
            t = int(row["t"])
        except (TypeError, ValueError):
            raise fail(f"judgment point t = {row['t']!r} is not a whole number", line, "t") from None
        if not 0 <= t <= scenario.horizon:
            raise fail(f"t = {t} is outside {name}'s plan (0..{scenario.horizon})", line, "t")
        if t not in scenario.judged:
            points = ", ".join(map(str, scenario.judged)) or "none"
            raise fail(f"t = {t} is not a judgment point of {name} (its points: {points})", line, "t",
                       hint="t counts the actions taken, 0 at the start (stimuli.json's times are t + 1); "
                            "rate at the scenario's judgment points")
        try:
            rating = float(row["rating"])
            if not math.isfinite(rating):
                raise ValueError
        except (TypeError, ValueError):
            raise fail(f"rating {row['rating']!r} is not a number", line, "rating") from None
        if abs(rating) > MAX_RATING:
            raise fail(f"rating {row['rating']!r} is not a point on a rating scale (at most {MAX_RATING:g} "
                       "either way)", line, "rating", hint="give ratings on their scale, e.g. 1 to 7 or 0 to 1")
        if scale is not None and not scale[0] <= rating <= scale[1]:
            raise fail(f"rating {row['rating']!r} is outside the scale {scale[0]:g} to {scale[1]:g} the figures "
                       "draw ratings on, beside L", line, "rating",
                       hint=f"rescale the ratings to {scale[0]:g} to {scale[1]:g} (a 1–7 answer r as (r − 1) / 6, "
                            "as elot survey import writes it); elot fit reads any scale")
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
            _check_formula(formula, refs[name])
        except ElotError as error:
            raise fail(f"unknown statement {statement!r}: {error.message}", line, "statement",
                       hint="give the formula in a formula column, or a sentence the translator reads") from None
        key = Key(name, mode, t, formula)
        if "participant" in header:
            person = (row.get("participant") or "").strip()
            if not person:
                raise fail("the participant is blank", line, "participant",
                           hint="name every rating's participant, or leave the column out")
            people[person][key].append(rating)
        sums[key] += rating
        squares[key] += rating * rating
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
        refs=refs, skipped=skipped, settings=settings,
        se=np.array([_standard_error(sums[k], squares[k], counts[k]) for k in keys]),
        participants={p: {k: sum(v) / len(v) for k, v in rated.items()} for p, rated in people.items()},
    )


def split_half(ratings: Ratings, *, splits: int = 200, seed: int = 0) -> float | None:
    """Split-half reliability of the human mean ratings: the participants split at random
    into two halves, each key's mean in one half correlated with its mean in the other
    (over the keys both halves rated), Spearman–Brown corrected (2r / (1 + r)), averaged
    over ``splits`` splits. None without a participant column, with fewer than two
    participants, or when no split leaves three keys rated in both halves."""
    people = sorted(ratings.participants)
    if len(people) < 2:
        return None
    index = {key: n for n, key in enumerate(ratings.keys)}
    values = np.zeros((len(people), len(index)))
    rated = np.zeros((len(people), len(index)), dtype=bool)
    for p, person in enumerate(people):
        for key, value in ratings.participants[person].items():
            values[p, index[key]] = value
            rated[p, index[key]] = True
    rng = np.random.default_rng(seed)
    found = []
    for _ in range(splits):
        order = rng.permutation(len(people))
        halves = order[: len(people) // 2], order[len(people) // 2:]
        counts = [rated[h].sum(axis=0) for h in halves]
        both = (counts[0] > 0) & (counts[1] > 0)
        if both.sum() < 3:
            continue
        a, b = (values[h].sum(axis=0)[both] / c[both] for h, c in zip(halves, counts))
        if np.ptp(a) == 0 or np.ptp(b) == 0:
            continue
        r = float(np.corrcoef(a, b)[0, 1])
        found.append(2 * r / (1 + r) if r > -1 else -1.0)
    return float(np.mean(found)) if found else None


def _standard_error(total: float, squares: float, n: int) -> float:
    """The standard error of a mean from the sum and the sum of squares of n values."""
    if n < 2:
        return 0.0
    variance = max(squares - total * total / n, 0.0) / (n - 1)
    return math.sqrt(variance / n)


def _statement_by_id(ref: ScenarioRef, statement_id: str) -> str | None:
    from elot.study.references import scenario_items

    return next((item.text for item in scenario_items(ref) if item.id == statement_id), None)


def _check_formula(formula: str, ref: ScenarioRef) -> None:
    from elot.lang.semantics import compile_formula

    compile_formula(formula, ref.signature(), None, True)


# -- precomputation -------------------------------------------------------------------


def threshold_names(lowered) -> tuple[str, ...]:
    """The fitted thresholds a lowered formula compares with (``most``/``least`` forms
    count as their adjective's threshold)."""
    from elot.lang.operators import ADJECTIVES
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
    return tuple(sorted(n for n in names if n in FITTED))


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
    #: The model's settings besides β the scenarios were run under (``(name, value)``, the
    #: model's defaults for those not given).
    params: tuple = ()
    #: What is correlated with the ratings (:data:`MEASURES`).
    measure: str = "L"

    def values(self, index: dict[str, int]) -> np.ndarray:
        """What the fit correlates with the ratings, (n, β): L or P (:attr:`measure`)."""
        P, _, L = self.scores(index)
        return P if self.measure == "P" else L

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
    """Vectorized :func:`elot.domains.doors_keys_gems.scoring.normalized_likelihood`."""
    P, pi = np.broadcast_arrays(P, pi)
    yes, no = P * (1 - pi), (1 - P) * pi
    with np.errstate(invalid="ignore", divide="ignore"):
        L = yes / (yes + no)
    edge = (pi <= 0) | (pi >= 1)
    return np.where(edge, pi, L)


def pearson(L: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of every column of L (n, m) with y (n,); 0 where L is constant (the
    search's objective: a setting that makes every L the same explains nothing)."""
    return _correlation(L - L.mean(axis=0), (y - y.mean())[:, None])


def _correlation(Lc: np.ndarray, yc: np.ndarray, undefined: float = 0.0) -> np.ndarray:
    """r of centred columns; ``undefined`` where L is constant to within
    :data:`L_TOLERANCE` (values that differ only by rounding have no correlation to speak
    of, and the one computed from their last bits differs between numpy versions) or y is."""
    den = np.sqrt((Lc ** 2).sum(axis=0) * (yc ** 2).sum(axis=0))
    flat = np.abs(Lc).max(axis=0) <= L_TOLERANCE
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (Lc * yc).sum(axis=0) / den
    return np.where((den > 0) & ~flat, r, undefined)


def precompute(ratings: Ratings, model: str | None = None, *, betas: Sequence[float] = BETA_GRID,
               start: Thresholds | None = None, progress: Callable[[int, int], None] | None = None,
               **params) -> Problem:
    """Run every rated scenario's inference for every β (under ``model`` with the models'
    ``params``, e.g. the gridworld's ``k`` and ``conventions``, a tabular domain's
    ``planner``) and tabulate P and π of every key over its thresholds' grid. The rows a
    statement is judged on are the same for every β (only their weights change), so its
    truth is computed once per grid point of its thresholds."""
    from elot.judging import holds, posterior_probability, prior_probability, rows_for
    from elot.statements import compile_statement

    start, grids, by_scenario, tables = tabulation_start(ratings, start)
    front = next(iter(ratings.refs.values())).front
    settings = front.settings(model, betas[0], **front.model_params(model, params))
    for done, (name, rows) in enumerate(by_scenario.items()):
        episode = ratings.refs[name].load()
        sources = [one for [one] in front.runs([episode], settings, list(betas))]
        first = sources[0]

        @lru_cache(maxsize=None)
        def judged(t: int, at: int, desires: bool):
            """The rows of (t, at) (one per desire for a statement about desires) and their
            weights under each β."""
            every = [s.judged(t, at) for s in sources]
            if desires:
                every = [rows_for(_DESIRES, r) for r in every]
            return every[0], np.stack([r.weights for r in every], axis=1)

        def score(compiled, members):
            truth_at: dict[tuple[int, int], np.ndarray] = {}
            P, pi = [], []
            for i in members:
                key = ratings.keys[i]
                try:
                    first.refuse(compiled, key.mode, key.t)
                except ElotError as error:
                    raise StudyError(f"{ratings.path}: {key.formula} (scenario {key.scenario}, t = {key.t}): "
                                     f"{error.message}", hint=error.hint) from None
                when = key.t if key.mode == "current" else 0
                hypotheses, weights = judged(key.t, when, compiled.needs_desires)
                if (key.t, when) not in truth_at:
                    truth_at[key.t, when] = holds(compiled, hypotheses).astype(float)
                truth = truth_at[key.t, when]
                # P under every β at once; π from the rows' prior masses, as every score
                P.append(posterior_probability(truth, weights))
                pi.append(prior_probability(truth, hypotheses.weights, first.conventions,
                                            prior=hypotheses.prior_mass(), live=hypotheses.live))
            return P, pi

        for formula, members in by_formula(ratings, rows).items():
            compile_at = partial(compile_statement, formula, first.signature, bind_free=True)
            tabulate_formula(tables, members, grids, start, len(betas), compile_at, score)
        if progress:
            progress(done + 1, len(by_scenario))
    problem = problem_of(settings.model.name, betas, start, grids, tables, len(ratings.keys))
    problem.params = settings.model.params
    return problem


class _NeedsDesires:
    """What :func:`elot.judging.rows_for` reads of a formula about desires."""

    needs_desires = True


_DESIRES = _NeedsDesires()


def by_formula(ratings: Ratings, rows: Sequence[int]) -> dict[str, list[int]]:
    """The rating keys ``rows`` grouped by their formula, in order."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i in rows:
        groups[ratings.keys[i].formula].append(i)
    return groups


def tabulation_start(ratings, start) -> tuple:
    """What a tabulation over the thresholds' grid starts from (the gridworld's and a
    domain's): the start Θ checked, the grid of every fitted threshold, the rated keys'
    rows by scenario, and the empty tables ``formula -> key -> (P, π)``."""
    start = Thresholds.given(start, "start")
    grids = {n: grid_values(n, start) for n in FITTED}
    by_scenario: dict[str, list[int]] = defaultdict(list)
    for i, key in enumerate(ratings.keys):
        by_scenario[key.scenario].append(i)
    tables: dict[tuple[str, ...], dict[int, tuple[np.ndarray, np.ndarray]]] = defaultdict(dict)
    return start, grids, by_scenario, tables


def tabulate_formula(tables: dict, members: Sequence[int], grids: dict, start: Thresholds, n_betas: int,
                     compile_at: Callable, score: Callable) -> None:
    """P (every β) and π of ``members`` (the keys of one formula) at every point of the grid
    of the thresholds the formula uses, into ``tables[names][key]``: ``compile_at(thresholds=θ)``
    compiles the formula under θ, ``score(compiled, members)`` gives the members' P rows and π."""
    names = threshold_names(compile_at(thresholds=start).lowered)
    shape = tuple(len(grids[n]) for n in names)
    P = np.empty((len(members), *shape, n_betas))
    pi = np.empty((len(members), *shape))
    for combo in np.ndindex(*shape):
        theta = start.replace(**{n: float(grids[n][j]) for n, j in zip(names, combo)})
        rows, priors = score(compile_at(thresholds=theta), members)
        for m in range(len(members)):
            P[(m, *combo)] = rows[m]
            pi[(m, *combo)] = priors[m]
    for m, i in enumerate(members):
        tables[names][i] = (P[m], pi[m])


def problem_of(model: str, betas: Sequence[float], start: Thresholds, grids: dict, tables: dict,
               n_keys: int) -> Problem:
    """The tabulated keys as a :class:`Problem`: one group per set of thresholds used."""
    groups = []
    for names, entries in tables.items():
        order = sorted(entries)
        groups.append(_Group(names, np.array(order, dtype=np.intp),
                             np.stack([entries[i][0] for i in order]), np.stack([entries[i][1] for i in order])))
    return Problem(model, tuple(betas), start, grids, groups, n_keys)


# -- fitting --------------------------------------------------------------------------


def _number(x: float) -> float | None:
    """A figure as JSON: NaN (undefined) is null, as JSON has no NaN."""
    return None if math.isnan(x) else x


@dataclass
class Figure:
    """r with a bootstrap 95% interval over n keys; all NaN where r is undefined, with
    ``undefined`` saying why ("constant ratings" or "constant L")."""

    r: float
    low: float
    high: float
    n: int
    undefined: str = ""

    def as_dict(self) -> dict:
        """As JSON: an undefined r is null."""
        return {"r": _number(self.r), "ci": [_number(self.low), _number(self.high)], "n": self.n}

    def __str__(self) -> str:
        """``r [low, high]``, or ``undefined (why)``."""
        if math.isnan(self.r):
            return f"undefined ({self.undefined or 'no variation'})"
        return f"{self.r:.2f} [{self.low:.2f}, {self.high:.2f}]"


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
    #: Where the optimum is flat: each setting (``"beta"`` or a threshold) with every value
    #: whose r is within :data:`R_TOLERANCE` of the fit's, the others held at the fit. Only
    #: settings with more than one such value are listed (unconstrained thresholds are not).
    ties: dict[str, list[float]] = field(default_factory=dict)
    #: The fitted thresholds the ratings do not constrain, left where the fit started: no
    #: rated statement compares with them, or r is the same over their whole grid.
    unconstrained: list[str] = field(default_factory=list)
    #: The model's settings besides β at the fit (those it takes: given, chosen from a grid,
    #: or its defaults), e.g. ``{"epsilon": 0.05}``; empty where the domain has none.
    params: dict = field(default_factory=dict)
    #: How many settings of those parameters were fitted (a grid: ``--param epsilon=0.05,0.1``).
    settings_tried: int = 1


@dataclass
class FitResult:
    """The fit of every model (the first is the primary one, the others ablations)."""

    ratings: Ratings
    models: dict[str, ModelFit]
    minimize: bool
    #: where every model's thresholds started
    start: Thresholds = field(default_factory=Thresholds)
    #: what was correlated with the ratings: L or P
    measure: str = "L"
    #: whether the domain's models have settings besides β that the fit reports (a PDDL
    #: domain's epsilon, weight, ...: its front's ``table_params``)
    with_params: bool = False

    @property
    def best(self) -> ModelFit:
        """The primary model's fit (the first named)."""
        return next(iter(self.models.values()))

    @property
    def chosen(self) -> ModelFit:
        """The model whose fit is best (highest r; lowest with ``minimize``; ties: the
        first named): the choice of model, β and parameters the ratings make."""
        sign = -1.0 if self.minimize else 1.0
        fits = list(self.models.values())
        scored = [f for f in fits if not math.isnan(f.overall.r)] or fits
        top = max(sign * (f.overall.r if not math.isnan(f.overall.r) else -math.inf) for f in scored)
        return next(f for f in scored if sign * f.overall.r >= top - R_TOLERANCE)

def best_beta(values: np.ndarray) -> int:
    """The β index with the best value; of values tied within :data:`R_TOLERANCE`, the
    smallest β (the grid is increasing), so the choice does not hang on rounding."""
    return int(np.flatnonzero(values >= values.max() - R_TOLERANCE)[0])


def ascend(problem: Problem, y: np.ndarray, *, minimize: bool = False,
           max_rounds: int = 20) -> tuple[dict[str, int], int, float, list[dict]]:
    """Grid coordinate ascent: ``(grid positions, β index, r, evaluations)``.

    Ties are broken the same way on every machine: β by :func:`best_beta`; a threshold
    moves only to a value better by more than :data:`R_TOLERANCE`, and of equally good
    values it takes the one closest to where it stands, then the smaller.
    """
    sign = -1.0 if minimize else 1.0
    used = sorted({n for g in problem.groups for n in g.names})
    index = {n: SPAN for n in used}
    evaluations = []

    def objective() -> np.ndarray:
        return sign * pearson(problem.values(index), y)

    values = objective()
    best_b = best_beta(values)
    best = float(values[best_b])
    evaluations.append({"round": 0, "threshold": "", "value": "", "beta": problem.betas[best_b], "r": sign * best})
    for round_ in range(1, max_rounds + 1):
        moved = False
        for name in used:
            keep = index[name]
            tried = []
            for j in range(len(problem.grids[name])):
                index[name] = j
                values = objective()
                b = best_beta(values)
                evaluations.append({"round": round_, "threshold": name, "value": float(problem.grids[name][j]),
                                    "beta": problem.betas[b], "r": sign * float(values[b])})
                tried.append((j, b, float(values[b])))
            top = max(value for _, _, value in tried)
            if top > best + R_TOLERANCE:
                near = [c for c in tried if c[2] >= top - R_TOLERANCE]
                choice = min(near, key=lambda c: (abs(c[0] - keep), c[0]))
            else:
                choice = (keep, best_b, best)
            index[name], best_b, best = choice
            moved |= choice[0] != keep
        if not moved:
            break
    return index, best_b, sign * best, evaluations


def _tied_values(problem: Problem, y: np.ndarray, index: dict[str, int], b: int, name: str, best: float,
                 sign: float) -> list[int]:
    """The grid positions of ``name`` whose r at β index ``b`` (the others held at
    ``index``) is within :data:`R_TOLERANCE` of ``best`` (signed as the search's)."""
    here = dict(index)
    tied = []
    for j in range(len(problem.grids[name])):
        here[name] = j
        if sign * pearson(problem.values(here)[:, b:b + 1], y)[0] >= best - R_TOLERANCE:
            tied.append(j)
    return tied


def unconstrained(problem: Problem, y: np.ndarray, index: dict[str, int], b: int, *,
                  minimize: bool = False) -> list[str]:
    """The fitted thresholds the ratings do not constrain, each put back at its start in
    ``index``: those no rated statement compares with, and those whose every grid value
    gives the fit's r (within :data:`R_TOLERANCE`). One put back may make another matter,
    so each is tested with the ones before it already back at their start."""
    sign = -1.0 if minimize else 1.0
    out = [name for name in FITTED if name not in index]
    for name in sorted(index):
        best = sign * float(pearson(problem.values(index)[:, b:b + 1], y)[0])
        if len(_tied_values(problem, y, index, b, name, best, sign)) == len(problem.grids[name]):
            index[name] = SPAN
            out.append(name)
    return [name for name in FITTED if name in out]


def flat_settings(problem: Problem, y: np.ndarray, index: dict[str, int], b: int, *,
                  minimize: bool = False, skip: Sequence[str] = ()) -> dict[str, list[float]]:
    """The settings along which the fit's optimum is flat (see :attr:`ModelFit.ties`),
    but for the thresholds in ``skip`` (the unconstrained ones)."""
    sign = -1.0 if minimize else 1.0
    values = sign * pearson(problem.values(index), y)
    best = values[b]
    ties = {}
    betas = [problem.betas[i] for i in np.flatnonzero(values >= best - R_TOLERANCE)]
    if len(betas) > 1:
        ties["beta"] = betas
    for name in sorted(set(index) - set(skip)):
        grid = sorted({float(problem.grids[name][j]) for j in _tied_values(problem, y, index, b, name, best, sign)})
        if len(grid) > 1:
            ties[name] = grid
    return ties


def bootstrap(L: np.ndarray, y: np.ndarray, *, samples: int = 1000, seed: int = 0) -> Figure:
    """r of L and y with a percentile bootstrap 95% interval (keys resampled); all NaN
    where the ratings ``y`` or the model's ``L`` are all the same (r is undefined then).
    Resamples whose r is undefined are left out of the interval."""
    if len(y) and np.ptp(y) == 0:
        return Figure(math.nan, math.nan, math.nan, len(y), "constant ratings")
    r = float(_correlation(L[:, None] - L.mean(), (y - y.mean())[:, None], math.nan)[0])
    if math.isnan(r):
        return Figure(math.nan, math.nan, math.nan, len(y), "constant L")
    rng = np.random.default_rng(seed)
    rs = np.empty(samples)
    # Samples in chunks of about BOOTSTRAP_CHUNK values, so memory stays bounded however
    # many are asked for; drawing chunk by chunk gives the same stream as drawing at once.
    step = max(1, BOOTSTRAP_CHUNK // max(len(y), 1))
    for first in range(0, samples, step):
        count = min(step, samples - first)
        picks = rng.integers(0, len(y), size=(count, len(y)))
        Ls, ys = L[picks].T, y[picks].T  # (n, count)
        rs[first:first + count] = _correlation(Ls - Ls.mean(axis=0), ys - ys.mean(axis=0), math.nan)
    rs = rs[~np.isnan(rs)]
    low, high = np.percentile(rs, [2.5, 97.5]) if len(rs) else (math.nan, math.nan)
    return Figure(r, float(low), float(high), len(y))


def fit(ratings: Ratings, *, models: Sequence[str | None] = (None,), betas: Sequence[float] = BETA_GRID,
        minimize: bool = False, start: Thresholds | None = None, samples: int = 1000, seed: int = 0,
        progress: Callable[[str, int, int], None] | None = None, measure: str = "L", **params) -> FitResult:
    """Fit Θ and β for each of the ratings' domain's ``models`` (the first is the primary
    one, the rest ablations; None: the domain's first) with the models' ``params``, and
    report r with bootstrap intervals overall, per condition and per factor value.

    A parameter given several values (a tuple) is a grid: each model is fitted under every
    setting of the parameters it takes (:func:`settings_grid`), and keeps the setting whose
    fit has the best r (of settings tied within :data:`R_TOLERANCE`, the first). ``measure``
    is what is correlated with the ratings: ``L`` or ``P`` (:data:`MEASURES`)."""
    if measure not in MEASURES:
        raise StudyError(f"--measure: unknown measure {measure!r}", hint=f"use one of: {', '.join(MEASURES)}")
    out = {}
    y = ratings.rating
    front = next(iter(ratings.refs.values())).front
    front.check_taken(models, params)
    if np.ptp(y) == 0:
        raise StudyError(f"{ratings.path}: every rating is {y[0]:g}, so Pearson r with them is undefined: "
                         "there is nothing to fit", path=ratings.path,
                         hint="fit ratings that differ between statements")
    sign = -1.0 if minimize else 1.0
    for model in models:
        found = None
        evaluations = []
        grid = settings_grid(front, model, params)
        for n, setting in enumerate(grid):
            tell = (lambda d, t, m=model, n=n: progress(m, n * t + d, len(grid) * t)) if progress else None
            problem = precompute(ratings, model, betas=betas, start=start, progress=tell, **setting)
            problem.measure = measure
            index, b, r, tried = ascend(problem, y, minimize=minimize)
            shown = dict(problem.params) if len(grid) > 1 else {}
            evaluations += [{"model": problem.model, **shown, **e} for e in tried]
            if found is None or sign * r > sign * found[3] + R_TOLERANCE:
                found = (problem, index, b, r)
        problem, index, b, _ = found
        model = problem.model
        free = unconstrained(problem, y, index, b, minimize=minimize)
        ties = flat_settings(problem, y, index, b, minimize=minimize, skip=free)
        L = problem.values(index)[:, b]
        modes = np.array([key.mode for key in ratings.keys])
        conditions = {m: bootstrap(L[modes == m], y[modes == m], samples=samples, seed=seed)
                      for m in MODES if (modes == m).sum() >= 3}
        factors = {}
        for name, values in ratings.factors.items():
            values = np.array(values)
            groups = {v: bootstrap(L[values == v], y[values == v], samples=samples, seed=seed)
                      for v in sorted(set(values)) if v and (values == v).sum() >= 3}
            if groups:
                factors[name] = groups
        out[model] = ModelFit(model, problem.thresholds(index), problem.betas[b],
                              bootstrap(L, y, samples=samples, seed=seed), conditions, factors, L,
                              evaluations, ties, free, dict(problem.params) if front.table_params else {}, len(grid))
    return FitResult(ratings, out, minimize, Thresholds.given(start, "start"), measure, front.table_params)


def fit_json(result: FitResult) -> dict:
    """The extra keys of the parameter file ``elot fit`` writes (beside thresholds, beta)."""
    best = result.best
    return {
        "model": best.model, "objective": "min r" if result.minimize else "max r",
        "ratings": result.ratings.path, "n": best.overall.n,
        "r": _number(best.overall.r), "r_ci95": [_number(best.overall.low), _number(best.overall.high)],
        "conditions": {c: f.as_dict() for c, f in best.conditions.items()},
        "ties": best.ties, "unconstrained": best.unconstrained,
        **({"participants": len(result.ratings.participants), "split_half": split_half(result.ratings)}
           if result.ratings.participants else {}),
        "ablations": {m: {"beta": f.beta, **({"params": f.params} if result.with_params else {}),
                          **f.overall.as_dict(), "ties": f.ties, "unconstrained": f.unconstrained}
                      for m, f in list(result.models.items())[1:]},
        **_settings_json(result),
    }


def _settings_json(result: FitResult) -> dict:
    """The keys a fit adds where the domain's models take settings besides β, or where it
    correlated P: the primary model's settings, the measure, and the model the ratings
    choose among those fitted, with its β, settings and r."""
    out = {}
    if result.with_params:
        out["params"] = result.best.params
    if result.measure != "L":
        out["measure"] = result.measure
    if result.with_params and len(result.models) > 1:
        chosen = result.chosen
        out["chosen"] = {"model": chosen.model, "beta": chosen.beta, "params": chosen.params,
                         "r": _number(chosen.overall.r)}
    return out


#: The columns of a batch table that name its settings, with the option that picks one.
SETTINGS = {"model": "--model", "beta": "--beta", "k": "--k", "conventions": "--conventions",
            "thresholds": "--thresholds"}


def one_setting(table: Sequence[dict], chosen: dict, *, source: str = "the table") -> tuple[list[dict], dict]:
    """The rows of one setting (model, β, k, conventions, thresholds) and that setting.
    Each setting is the ``chosen`` value, or the table's only one; a table with several
    values of a setting and none chosen is an error: ratings simulated across settings
    have no single true answer for a fit to recover."""
    rows = list(table)
    setting = {}
    for column, option in SETTINGS.items():
        values = sorted({row.get(column, "") for row in rows}, key=_setting_key)
        wanted = chosen.get(column)
        if wanted is None:
            if len(values) > 1:
                raise StudyError(f"{source} holds {len(values)} values of {column} ({', '.join(values)}): "
                                 f"ratings must come from one setting",
                                 hint=f"choose one with {option}, e.g. {option} {values[0]}")
            setting[column] = values[0] if values else ""
            continue
        if column == "beta":        # as the report takes --beta: 2.83 names 2.8284271247461903
            found = match_beta(values, float(wanted), what="--beta")
            keep = [] if found is None else [found]
        else:
            keep = [v for v in values if _same_setting(v, wanted)]
        if not keep:
            raise StudyError(f"{source} has no rows with {column} {wanted}",
                             hint=f"its values: {', '.join(values)}")
        setting[column] = keep[0]
        rows = [row for row in rows if row.get(column, "") == keep[0]]
    params = sorted({row.get("params") or "" for row in rows})
    if len(params) > 1:         # a PDDL model's settings besides β (batch --param epsilon=0.05,0.1)
        raise StudyError(f"{source} holds this setting with {len(params)} values of params "
                         f"({'; '.join(p or 'none' for p in params)}): ratings must come from one setting",
                         hint="simulate from a table of one (elot batch with one value of each --param)")
    methods = list(dict.fromkeys(settings_of(row) for row in rows))
    if len(methods) > 1:        # exact and particle rows of one setting (batch --inference exact,smc)
        raise StudyError(f"{source} holds this setting under {len(methods)} inference methods "
                         f"({'; '.join(setting_text(m) for m in methods)}): ratings must come from one",
                         hint="simulate from a table of one method (elot batch --inference exact, say)")
    return rows, setting


def _setting_key(value: str):
    try:
        return (0, float(value), value)
    except ValueError:
        return (1, 0.0, value)


def _same_setting(value: str, wanted) -> bool:
    try:
        return math.isclose(float(value), float(wanted), rel_tol=1e-9)
    except (TypeError, ValueError):
        return value == str(wanted)


def simulated_outside(ratings: "Ratings", models: Sequence[str], betas: Sequence[float]) -> list[str]:
    """Why ratings simulated by ``elot simulate`` (they carry their setting's columns)
    cannot be recovered by a fit over ``models`` and ``betas``: each setting outside the
    grid, said as a warning. Empty for human ratings or a setting inside the grid."""
    said = []
    for model in sorted(set(ratings.settings.get("model", ()))):
        if model and model not in models:
            said.append(f"the ratings were simulated from model {model}, which this fit does not fit "
                        f"({', '.join(models)})")
    for beta in sorted(set(ratings.settings.get("beta", ()))):
        try:
            value = float(beta)
        except ValueError:
            continue
        if not any(math.isclose(value, b, rel_tol=1e-9) for b in betas):
            said.append(f"the ratings were simulated at β = {value:.4g}, which is not on this fit's β grid "
                        f"({', '.join(f'{b:.3g}' for b in betas)}): give it with --beta")
    return said


def synthetic_ratings(table: Sequence[dict], *, noise: float = 0.05, seed: int = 0) -> list[dict]:
    """Ratings made from a batch table: each scored row's L plus Gaussian noise of standard
    deviation ``noise`` (a known generator, to check that a fit recovers it), clipped to
    the rating scale [0, 1] as a participant's slider would be."""
    rng = np.random.default_rng(seed)
    out = []
    for row in table:
        if row.get("error") or row.get("L") in ("", None):
            continue
        rating = min(1.0, max(0.0, float(row["L"]) + float(rng.normal(0.0, noise))))
        out.append({**row, "rating": repr(rating)})
    return out
