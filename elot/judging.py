"""Where the two halves of elot meet: hypotheses about an agent, and a statement's score.

The language (parse → check → lower → compile) gives a compiled statement; a source of
hypotheses (exact BToM inference, particle inference, or a user's own belief model) gives
:class:`Hypotheses`: N rows, each a true world, the agents' beliefs over the worlds, its
posterior weight and its prior mass. :func:`score` evaluates the statement on every row in
one vectorized call and returns a :class:`Score` (SPEC §4, "the observer's judgment"):

* ``P = Σ_n w_n ⟦φ⟧_n`` (the posterior probability);
* ``π`` = the prior probability that φ holds: the prior-weighted fraction of rows where it
  holds (each row weighted by its ``prior`` mass; without one, the uniform prior over the
  *distinct* rows, so identical rows share one hypothesis's mass). Under the ``paper``
  conventions (SPEC §7.1) a row's mass counts only as far as it is ``live`` (still possible);
* ``L = P(1−π) / (P(1−π) + (1−P)π)`` (the normalized likelihood), or π when π is 0 or 1;
* with rows that are estimates (particles: ``ess`` and ``prior_draws`` given), L's
  standard error.

:func:`score_statements` is the loop every command runs: each :class:`Statement` compiled
once against the source's signature, then scored at every judgment point.

This module sits below every domain (it imports only the language, the statements, the
settings, the numeric sums and the errors), so each domain's front, :mod:`elot.embedding`,
the session and the studies all hand their hypotheses to the same code.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Mapping, Protocol, Sequence

import numpy as np

from elot.errors import ArgumentError, ElotError, EvaluationError
from elot.lang.printer import pretty
from elot.lang.semantics import CompiledFormula
from elot.lang.states import State
from elot.lang.desires import desire_scale
from elot.lang.signature import Signature
from elot.settings import CURRENT, MODES
from elot.statements import Statement
from elot.numeric import dot, dot_columns, fsum

# -- the hypotheses ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Desires:
    """What the observed agent wants, per hypothesis: one row of utilities per row of
    :class:`Hypotheses`, one column per object the agent may want. Desire statements
    (``wants``, ``prefers``, ``likes_best``, ...; docs/language.md) read them on the
    desire scale, the utilities rescaled so that the table's lowest is 0 and its highest 1
    (:func:`elot.lang.semantics.desire_scale`). A goal hypothesis (Doors, Keys & Gems) is a
    row that is 1 on its goal and 0 elsewhere."""

    objects: tuple[str, ...]   # ELoT constants the agent may want (gems, trucks), one column each
    utilities: np.ndarray      # float, shape (n_hypotheses, len(objects)): each row's utility for each object

    def __post_init__(self) -> None:
        objects = self.objects
        if isinstance(objects, str) or not all(isinstance(o, str) for o in objects):
            raise ArgumentError(f"Desires.objects must be a tuple of object names, not {objects!r:.60}",
                                hint='e.g. Desires(("korean", "lebanese", "mexican"), utilities)')
        object.__setattr__(self, "objects", tuple(objects))
        utilities = np.asarray(self.utilities, dtype=np.float64)
        if utilities.ndim != 2 or utilities.shape[1] != len(self.objects):
            raise ArgumentError(f"Desires.utilities must be an (N, {len(self.objects)}) array, one column per "
                                f"object, got shape {utilities.shape}",
                                hint="one row per hypothesis, one column per object in Desires.objects")
        if not np.all(np.isfinite(utilities)):
            raise ArgumentError("Desires.utilities holds a value that is not a finite number",
                                hint="give every hypothesis a finite utility for every object")
        if len(set(self.objects)) != len(self.objects):
            raise ArgumentError(f"Desires.objects names an object twice: {', '.join(self.objects)}",
                                hint="one column per object")
        object.__setattr__(self, "utilities", utilities)

    def __len__(self) -> int:
        return len(self.utilities)

    @staticmethod
    def goals(objects: Sequence[str], goal_index: np.ndarray) -> "Desires":
        """Goal hypotheses as desires: row n is 1 on ``objects[goal_index[n]]``, else 0."""
        goal_index = np.asarray(goal_index, dtype=np.intp)
        utilities = np.zeros((len(goal_index), len(objects)))
        utilities[np.arange(len(goal_index)), goal_index] = 1.0
        return Desires(tuple(objects), utilities)


@dataclass(frozen=True, eq=False)
class Hypotheses:
    """N hypotheses about an agent as arrays, the one form every source hands to scoring.

    ``worlds``: the S distinct world states; ``true_index (N,)``: each row's true world;
    ``beliefs``: ``{agent: (N, S) array}``, each row a distribution over ``worlds``;
    ``weights (N,)``: the posterior; ``prior (N,)`` (optional): each row's prior mass
    (relative; default: the uniform prior over distinct rows); ``live (N,)`` (optional):
    how much of that mass is still possible (the ``paper`` conventions' π counts only it;
    default: all of it where the weight is above 0). Rows that are estimates carry ``ess``
    (the effective sample size of the weights) and ``prior_draws`` (how many draws the
    prior masses come from), from which L's standard error follows.

    The constructor trusts its arguments; :class:`elot.embedding.Hypotheses` adds checked
    constructors for users' own models.
    """

    signature: Signature | None
    worlds: tuple[State, ...]
    true_index: np.ndarray
    beliefs: Mapping[str, np.ndarray]
    weights: np.ndarray
    prior: np.ndarray | None = None
    live: np.ndarray | None = None
    labels: tuple[str, ...] | None = field(default=None)
    ess: float | None = None
    prior_draws: int | None = None
    #: False when ``beliefs`` holds the observed agent's belief alone (BToM's hypotheses),
    #: which the evaluator then reads as one array, as it does a single agent's belief.
    per_agent: bool = True
    #: Rows that are estimates from groups of samples whose spread measures their error
    #: (independent runs, or particles grouped by lineage): ``(row, group, weight)``, one
    #: entry per sample, each an ``(n,)`` array (its row, its group, its weight; the weights
    #: of a row's samples sum to its weight). P's variance is then taken from the spread
    #: between the groups (:func:`between_runs_variance`).
    runs: tuple | None = None
    #: The observed agent's beliefs of rows ``lo:hi`` made on demand, ``(lo, hi) -> (hi − lo,
    #: S)`` (with ``per_agent`` False): :func:`holds` then reads the rows in chunks of at
    #: most :data:`CHUNK_CELLS` cells, so scoring many rows over many worlds never holds
    #: their dense beliefs at once (particles; ``beliefs`` is then made when read).
    belief_rows: Callable[[int, int], np.ndarray] | None = field(default=None, repr=False)
    #: What the observed agent wants in each row (:class:`Desires`, one utility row per
    #: hypothesis), which statements about desires read; None: this source has none.
    desires: Desires | None = None
    #: The same hypotheses with one row per desire, made on demand, for sources whose rows
    #: leave the desire out (exact BToM judges (true world, belief) pairs, each standing for
    #: every goal): a statement about desires is judged on those rows (:func:`rows_for`),
    #: the others on these. Called at most once (cache it); None: no such rows.
    desire_rows: Callable[[], "Hypotheses"] | None = field(default=None, repr=False)
    #: For nested beliefs (SPEC §10: what one agent believes about another's belief): each
    #: agent's *belief in each situation*, ``{agent: (S, S) array}``, row s its belief over
    #: ``worlds`` when the situation is world s. The worlds are then *situations*: the world
    #: and whatever the agents' beliefs depend on (what each perceived, as atoms such as
    #: ``observed(sally, move)``), so that one table serves every row. ``prob_of(a, φ)`` of
    #: an epistemic φ weighs a's row belief by φ's truth in each situation, every agent's
    #: belief there read from its table; an agent given a table but no ``beliefs`` believes,
    #: in each row, its table's row at the row's true situation. None: no nesting possible
    #: (a nested statement is then an evaluation error naming the agent whose table is missing).
    belief_tables: Mapping[str, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self.weights)

    @property
    def multiplicity(self) -> np.ndarray | None:
        """The rows' prior mass as the embedding API first called it (:attr:`prior`)."""
        return self.prior

    @property
    def agents(self) -> tuple[str, ...]:
        """The agents whose beliefs are given."""
        return tuple(self.beliefs)

    def prior_mass(self) -> np.ndarray:
        """Each row's prior mass: :attr:`prior` when given, else an equal share of the
        uniform prior over distinct hypotheses (rows with the same true world, the same
        beliefs and the same desires are copies of one hypothesis), so π is a prior probability, not a row count."""
        if self.prior is not None:
            return np.asarray(self.prior, dtype=np.float64)
        key = np.column_stack([np.asarray(self.true_index, dtype=np.float64)]
                              + [np.asarray(b, dtype=np.float64) for b in self.beliefs.values()]
                              + ([] if self.desires is None else [self.desires.utilities]))
        _, inverse, copies = np.unique(key, axis=0, return_inverse=True, return_counts=True)
        return 1.0 / copies[inverse.ravel()]

    def world_posterior(self) -> np.ndarray:
        """The posterior of each world being the true one, (S,)."""
        return np.bincount(self.true_index, weights=self.weights, minlength=len(self.worlds))


# -- the score ---------------------------------------------------------------------------------


class _PaperNames:
    """The paper's names of a score's figures, for :class:`Score` and every record that
    reads a score's figures as its own (:class:`Scored`)."""

    posterior: float
    normalized_likelihood: float
    prior_fraction: float

    @property
    def P(self) -> float:  # noqa: N802 - the paper's names
        return self.posterior

    @property
    def L(self) -> float:  # noqa: N802
        return self.normalized_likelihood

    @property
    def pi(self) -> float:
        return self.prior_fraction


@dataclass(frozen=True)
class Score(_PaperNames):
    """A statement's posterior probability P, normalized likelihood L and prior probability
    π; ``stderr``: the standard error of L when it is estimated (particle inference)."""

    posterior: float
    normalized_likelihood: float
    prior_fraction: float
    stderr: float | None = None


class Scored(_PaperNames):
    """A record that holds a :class:`Score` as ``score`` (the embedding API's judgment,
    the REPL's query row) reads its figures as its own: P, L, π and L's standard error."""

    score: Score

    @property
    def posterior(self) -> float:
        return self.score.posterior

    @property
    def normalized_likelihood(self) -> float:
        return self.score.normalized_likelihood

    @property
    def prior_fraction(self) -> float:
        return self.score.prior_fraction

    @property
    def stderr(self) -> float | None:
        """L's standard error when the hypotheses are estimates (particles), else None."""
        return self.score.stderr


class ModeError(ArgumentError, ValueError):
    """A statement mode that is neither ``current`` nor ``initial`` (also a ``ValueError``,
    what it used to be)."""


def check_mode(mode: str) -> str:
    """Return ``mode`` if it is ``current`` or ``initial``, else a :class:`ModeError`."""
    if mode not in MODES:
        raise ModeError(f"unknown mode {mode!r}", hint=f"use one of: {', '.join(MODES)}")
    return mode


def normalized_likelihood(posterior: float, prior: float) -> float:
    """``P(1−π) / (P(1−π) + (1−P)π)``, or π when π is 0 or 1 (no evidence either way)."""
    if prior <= 0.0 or prior >= 1.0:
        return float(prior)
    yes = posterior * (1.0 - prior)
    no = (1.0 - posterior) * prior
    return float(yes / (yes + no))


def likelihood_stderr(posterior: float, prior: float, ess: float, draws: int,
                      posterior_variance: float | None = None) -> float:
    """Standard error of L from estimates of P (from particles with effective sample size
    ``ess``: ``Var P ≈ P̃(1−P̃)/ess`` with ``P̃ = (P·ess + 1)/(ess + 2)``, so that a P of 0 or 1
    still has an error, or ``posterior_variance`` measured between groups of samples when
    that is larger) and of π (from ``draws`` independent prior draws:
    ``Var π = π(1−π)/draws``), by the delta method on ``L = P(1−π) / (P(1−π) + (1−P)π)``.
    ``P(1−P)/ess`` ignores the correlation resampling leaves between particles, so alone it
    is a lower bound when the particles have collapsed; an edge π (0 or 1) gives 0, and
    the error is at most 0.5 (L lies in [0, 1])."""
    if prior <= 0.0 or prior >= 1.0:
        return 0.0
    p, q = posterior, prior
    d = p * (1 - q) + (1 - p) * q
    dl_dp = q * (1 - q) / d**2
    dl_dq = -p * (1 - p) / d**2
    # P(1−P)/ess with P moved towards 1/2 by one success and one failure in ess draws
    # (Agresti–Coull's adjustment): a P of 0 or 1 from a finite sample is not certain.
    shrunk = (p * ess + 1) / (ess + 2)
    var_p = shrunk * (1 - shrunk) / ess
    if posterior_variance is not None:
        var_p = max(var_p, posterior_variance)
    var = dl_dp**2 * var_p + dl_dq**2 * q * (1 - q) / draws
    # L lies in [0, 1], so no error is above 1 = 2 x 0.5: near P = 0 or 1 with a small π the
    # delta method's slope is steep and would say more than that.
    return float(min(np.sqrt(var), 0.5))


def between_runs_variance(true_in: np.ndarray, runs: tuple, posterior: float) -> float | None:
    """The variance of P from groups of weighted samples (``runs = (row, group, weight)``, one
    entry per sample; the weights sum to 1): ``Var P ≈ m/(m−1) Σ_g (Σ_{i in g} w_i (⟦φ⟧_i − P))²``
    over the m groups with weight. For independent runs (islands) this is the ratio
    estimator's variance ``m/(m−1) Σ a_g² (P_g − P)²`` (``a_g`` the run's share, ``P_g`` its
    estimate); for particles grouped by their ancestor some resamplings back, Olsson and
    Douc's fixed-lag estimator (after Chan and Lai). None with fewer than two groups."""
    row, group, weight = runs
    truth = np.asarray(true_in, dtype=np.float64)[row]
    group = np.asarray(group, dtype=np.intp)
    m = int(np.count_nonzero(np.bincount(group, weights=weight) > 0))
    if m < 2:
        return None
    spread = np.bincount(group, weights=weight * (truth - posterior))
    return float(m / (m - 1) * fsum(np.square(spread)))


def posterior_probability(true_in: np.ndarray, weights: np.ndarray) -> float | np.ndarray:
    """``P = Σ_n w_n ⟦φ⟧_n``, clipped to [0, 1] (rounding); ``weights`` (N,) for one
    posterior or (N, B) for B posteriors over the same rows at once (a fit's β grid)."""
    if np.ndim(weights) == 1:
        return min(1.0, max(0.0, dot(weights, true_in)))
    return np.clip(dot_columns(true_in, weights), 0.0, 1.0)


def prior_probability(true_in: np.ndarray, weights: np.ndarray, conventions: str = "elot", *,
                      prior: np.ndarray | None = None, live: np.ndarray | None = None) -> float:
    """π, the prior probability that the statement holds: the ``prior`` mass of the rows
    where it holds (default: equal masses) over the total; under the ``paper`` conventions
    only the ``live`` mass counts (default: all of a row's mass when its posterior weight
    is above 0, else none), so ruled-out rows count as false."""
    prior = np.ones(len(true_in)) if prior is None else prior
    # The total is summed the way the numerator is, so π is exactly 1 (or 0) when the
    # statement holds everywhere (nowhere), whatever the masses' rounding.
    total = fsum(prior)
    if conventions == "paper":
        live = prior * (weights > 0) if live is None else live
        return dot(live, true_in) / total
    return dot(prior, true_in) / total


def scores_of(truth: np.ndarray, weights: np.ndarray, conventions: str = "elot", *,
              prior: np.ndarray | None = None, live: np.ndarray | None = None) -> Score:
    """P, L and π of a statement from its truth value in each row of hypotheses and the
    rows' posterior ``weights``: the one computation behind every score
    (:func:`posterior_probability`, :func:`prior_probability`, :func:`normalized_likelihood`).

    ``prior``: the prior mass of each row (relative; default equal), so π is the prior
    probability that the statement holds, never a count of rows. Under the ``paper``
    conventions ``live``: the prior mass of a row still possible (default: all of it when
    the row's weight is above 0, else none); the rest counts as false in π.
    """
    posterior = posterior_probability(truth, weights)
    pi = prior_probability(truth, weights, conventions, prior=prior, live=live)
    return Score(posterior, normalized_likelihood(posterior, pi), pi)


#: Most belief cells (rows × worlds) :func:`holds` evaluates at once from rows made on demand
#: (:attr:`Hypotheses.belief_rows`): 8 MiB of float64 beliefs per chunk.
CHUNK_CELLS = 2**20


def rows_for(compiled: CompiledFormula, hypotheses: Hypotheses) -> Hypotheses:
    """The rows ``compiled`` is judged on: ``hypotheses``, or for a statement about desires
    its rows with one desire each (:attr:`Hypotheses.desire_rows`). Hypotheses without
    desires cannot judge such a statement: an :class:`~elot.errors.EvaluationError` with a
    hint, before any work."""
    if not compiled.needs_desires or hypotheses.desires is not None:
        return hypotheses
    if hypotheses.desire_rows is not None:
        rows = hypotheses.desire_rows()
        if rows.belief_tables is None and hypotheses.belief_tables is not None and rows.worlds == hypotheses.worlds:
            rows = replace(rows, belief_tables=hypotheses.belief_tables)   # the same situations
        return rows
    raise EvaluationError(
        f"{pretty(compiled.term)} is about what the agent wants, but these hypotheses say nothing about its desires",
        hint="judge it against hypotheses with desires: BToM inference (exact or particles), or a belief model "
             "whose Hypotheses carry desires=Desires(objects, utilities); or ask about beliefs")


def desire_table(hypotheses: Hypotheses) -> Desires | None:
    """The rows' desires on the desire scale (:func:`~elot.lang.semantics.desire_scale`,
    over the whole table), as the evaluator reads them; None without desires."""
    desires = hypotheses.desires
    if desires is None:
        return None
    if len(desires.utilities) != len(hypotheses.weights):
        raise EvaluationError(f"the desires have {len(desires.utilities)} rows but there are "
                              f"{len(hypotheses.weights)} hypotheses", hint="give one row of utilities per hypothesis")
    return Desires(desires.objects, desire_scale(desires.utilities))


def holds(compiled: CompiledFormula, hypotheses: Hypotheses) -> np.ndarray:
    """``⟦φ⟧_n`` for every hypothesis, (N,) bool. A row's truth value reads that row alone,
    so rows made on demand (:attr:`Hypotheses.belief_rows`) are evaluated a chunk at a time
    with the same result. A statement about desires is judged on :func:`rows_for`'s rows
    (whose scores :func:`score_truth` then takes from the same rows)."""
    hypotheses = rows_for(compiled, hypotheses)
    desires = desire_table(hypotheses) if compiled.needs_desires else None
    if hypotheses.belief_rows is not None and not hypotheses.per_agent:
        n, worlds = len(hypotheses.true_index), hypotheses.worlds
        size = max(1, CHUNK_CELLS // max(1, len(worlds)))
        out = np.empty(n, dtype=bool)
        for lo in range(0, n, size):
            hi = min(n, lo + size)
            part = None if desires is None else Desires(desires.objects, desires.utilities[lo:hi])
            out[lo:hi] = compiled.truth(worlds, hypotheses.belief_rows(lo, hi), hypotheses.true_index[lo:hi],
                                        desires=part, belief_tables=hypotheses.belief_tables)
        return out
    if hypotheses.per_agent:
        return compiled.truth(hypotheses.worlds, dict(hypotheses.beliefs) or None, hypotheses.true_index,
                              desires=desires, belief_tables=hypotheses.belief_tables)
    (beliefs,) = hypotheses.beliefs.values()
    return compiled.truth(hypotheses.worlds, beliefs, hypotheses.true_index, desires=desires,
                          belief_tables=hypotheses.belief_tables)


def truth(compiled: CompiledFormula, hypotheses: Hypotheses, source: str | None = None) -> np.ndarray:
    """:func:`holds`, with errors pointed into ``source`` (the text the formula was
    compiled from, default its canonical text)."""
    try:
        return holds(compiled, hypotheses)
    except ElotError as error:
        raise error.located(source=pretty(compiled.term) if source is None else source, path="<formula>")


def score_truth(true_in: np.ndarray, hypotheses: Hypotheses, conventions: str = "elot") -> Score:
    """The :class:`Score` of a statement true in the rows ``true_in`` of ``hypotheses``
    (with L's standard error when the rows are estimates). ``true_in`` from the rows with
    one desire each (a statement about desires, :func:`rows_for`) is scored on those."""
    if len(true_in) != len(hypotheses.weights) and hypotheses.desire_rows is not None:
        hypotheses = hypotheses.desire_rows()
    got = scores_of(np.asarray(true_in, dtype=np.float64), hypotheses.weights, conventions, prior=hypotheses.prior_mass(),
                    live=hypotheses.live if conventions == "paper" else None)
    if hypotheses.ess is None:
        return got
    spread = None if hypotheses.runs is None else between_runs_variance(true_in, hypotheses.runs, got.posterior)
    return Score(got.posterior, got.normalized_likelihood, got.prior_fraction,
                 likelihood_stderr(got.posterior, got.prior_fraction, hypotheses.ess, hypotheses.prior_draws, spread))


def score(compiled: CompiledFormula, hypotheses: Hypotheses, conventions: str = "elot") -> Score:
    """Score a compiled statement against hypotheses (see the module)."""
    hypotheses = rows_for(compiled, hypotheses)
    return score_truth(holds(compiled, hypotheses), hypotheses, conventions)


# -- the score loop ----------------------------------------------------------------------------


class Judged(Protocol):
    """What :func:`score_statements` reads from a source of hypotheses (an inference result
    or a belief model): its ``signature``, its ``conventions`` and ``judged(t, at)``, the
    hypotheses with their beliefs at ``at`` weighted by the posterior at t."""

    signature: Signature
    conventions: str

    def judged(self, t: int, at: int) -> Hypotheses: ...


def score_statements(source: Judged, statements: Sequence[Statement], times: Sequence[int], *,
                     conventions: str | None = None) -> tuple[list[Statement], list[dict[int, Score]]]:
    """Score every compiled statement at every time (the loop every command runs): the
    statements (one whose scoring failed now holds its error) and, for each time,
    ``{index: Score}`` of the statements scored at every time. ``conventions``: default
    the source's."""
    conventions = source.conventions if conventions is None else conventions
    statements = list(statements)
    table: list[dict[int, Score]] = []
    for t in times:
        scores: dict[int, Score] = {}
        for n, st in enumerate(statements):
            if st.compiled is None:
                continue
            try:
                hypotheses = source.judged(t, t if st.mode == CURRENT else 0)
                scores[n] = score(st.compiled, hypotheses, conventions)
            except ElotError as error:   # that statement's error; the others are scored
                statements[n] = st.failed(error, error.kind)
        table.append(scores)
    return statements, [{n: s for n, s in scores.items() if statements[n].compiled is not None}
                        for scores in table]


__all__ = ["Desires", "Hypotheses", "Judged", "desire_table", "rows_for", "ModeError", "Score", "check_mode", "holds", "likelihood_stderr", "normalized_likelihood",
           "posterior_probability", "prior_probability", "score", "score_statements", "score_truth", "scores_of", "truth"]
