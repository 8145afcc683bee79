"""Scores of ELoT statements against BToM inferences (SPEC §4, "the observer's judgment").

A statement about the agent's *current* belief at time t is evaluated on each hypothesis's
(world, belief) at t; one about the *initial* belief on its (world, belief) at 0, still
weighted by the time-t posterior. With ``⟦φ⟧_i`` that truth value and ``p_i`` the posterior:

* ``P = Σ_i p_i ⟦φ⟧_i`` (posterior probability);
* ``π`` = the prior probability that φ holds (with exact inference's uniform prior, the
  fraction of hypotheses where it holds; with particles, estimated from prior draws);
  under the ``paper`` conventions (SPEC §7.1) hypotheses ruled out by time t count as false,
  so ``π`` = prior mass of (live hypotheses where φ holds);
* ``L = P(1−π) / (P(1−π) + (1−P)π)`` (the normalized likelihood, the paper's score),
  ``L = π`` when π is 0 or 1.

The truth value does not depend on a hypothesis's goal, so the formula is evaluated once
per distinct (true state, initial belief) pair — one call of ``compile_formula(...).truth``
— and the posterior is summed over goals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from elot.btom.conventions import CONVENTIONS, Conventions, ConventionsError, check_conventions
from elot.errors import ElotTypeError, Span
from elot.numeric import dot, fsum
from elot.lang.semantics import CompiledFormula, Thresholds, compile_formula
from elot.btom.inference import Inference
from elot.settings import MODES, Mode
from elot.lang.printer import pretty
from elot.lang.syntax import Term
from elot.lang.typesystem import NUMERIC

__all__ = ["CONVENTIONS", "Conventions", "ConventionsError", "Score", "check_conventions",
           "compile_statement", "likelihood_stderr", "normalized_likelihood", "score", "scores_of", "truth_table"]


@dataclass(frozen=True)
class Score:
    """A statement's posterior probability P, normalized likelihood L and prior probability
    π; ``stderr``: the standard error of L when it is estimated (particle inference)."""

    posterior: float
    normalized_likelihood: float
    prior_fraction: float
    stderr: float | None = None


def normalized_likelihood(posterior: float, prior: float) -> float:
    """``P(1−π) / (P(1−π) + (1−P)π)``, or π when π is 0 or 1 (no evidence either way)."""
    if prior <= 0.0 or prior >= 1.0:
        return float(prior)
    yes = posterior * (1.0 - prior)
    no = (1.0 - posterior) * prior
    return float(yes / (yes + no))


def compile_statement(
    inference: Inference,
    formula: str | Term | CompiledFormula,
    *,
    thresholds: Thresholds | None = None,
    bind_free: bool = False,
) -> CompiledFormula:
    """Parse, typecheck (against the scenario's objects) and compile a statement.

    Raises :class:`~elot.errors.ElotSyntaxError` / :class:`~elot.errors.ElotTypeError`.
    """
    if isinstance(formula, CompiledFormula):
        compiled = formula
    else:
        compiled = compile_formula(formula, inference.signature, thresholds or Thresholds(), bind_free)
    if compiled.type == NUMERIC:
        # A number (prob_of(...)) has no truth value to score: say so as a type error at
        # the statement, rather than failing later inside the evaluator.
        source = formula if isinstance(formula, str) else None
        raise ElotTypeError(
            f"{pretty(compiled.term)} is a number (type {NUMERIC}), not a statement that is true or false",
            span=Span.of(source, 0, len(source)) if source else None, source=source,
            hint=f"compare it, e.g. >=({pretty(compiled.term)}, 0.5); the REPL shows a number's value",
        )
    return compiled


def truth_table(inference: Inference, compiled: CompiledFormula, t: int) -> np.ndarray:
    """``⟦φ⟧`` at time t for every (true state, initial belief) pair, shape ``(n_s * n_b,)``."""
    beliefs, true_index = inference.pairs(t)
    return compiled.truth(inference.states(t), beliefs, true_index)


def score(
    inference: Inference,
    formula: str | Term | CompiledFormula,
    t: int,
    mode: Mode = "current",
    *,
    thresholds: Thresholds | None = None,
    bind_free: bool = False,
    conventions: Conventions | None = None,
) -> Score:
    """Score a statement about the agent's ``current`` (at t) or ``initial`` belief,
    judged after the first t actions, under the ``elot`` or ``paper`` conventions
    (default: those the inference was run with, :attr:`Inference.conventions`).

    ``inference`` is an exact :class:`Inference` or a particle one
    (:class:`elot.btom.particles.ParticleInference`): both give the rows to judge
    (``rows(t, at)``). For particles, π is estimated from draws of the prior and L carries
    a standard error (:func:`likelihood_stderr`)."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {MODES}")
    conventions = check_conventions(inference.conventions if conventions is None else conventions)
    compiled = compile_statement(inference, formula, thresholds=thresholds, bind_free=bind_free)
    at = t if mode == "current" else 0
    rows = inference.rows(t, at)
    truth = compiled.truth(inference.states(at), rows.beliefs, rows.true_index)
    got = scores_of(truth, rows.weights, conventions, prior=rows.prior,
                    live=rows.live if conventions == "paper" else None)
    if rows.ess is None:
        return got
    return Score(got.posterior, got.normalized_likelihood, got.prior_fraction,
                 likelihood_stderr(got.posterior, got.prior_fraction, rows.ess, rows.prior_draws))


def likelihood_stderr(posterior: float, prior: float, ess: float, draws: int) -> float:
    """Standard error of L from estimates of P (from particles with effective sample size
    ``ess``: ``Var P ≈ P(1−P)/ess``) and of π (from ``draws`` independent prior draws:
    ``Var π = π(1−π)/draws``), by the delta method on ``L = P(1−π) / (P(1−π) + (1−P)π)``.
    It ignores the correlation resampling leaves between particles, so it is a lower
    bound when the particles have collapsed; an edge π (0 or 1) gives 0."""
    if prior <= 0.0 or prior >= 1.0:
        return 0.0
    p, q = posterior, prior
    d = p * (1 - q) + (1 - p) * q
    dl_dp = q * (1 - q) / d**2
    dl_dq = -p * (1 - p) / d**2
    var = dl_dp**2 * p * (1 - p) / ess + dl_dq**2 * q * (1 - q) / draws
    return float(np.sqrt(var))


def scores_of(truth: np.ndarray, weights: np.ndarray, conventions: Conventions = "elot", *,
              prior: np.ndarray | None = None, live: np.ndarray | None = None) -> Score:
    """P, L and π of a statement from its truth value in each row of hypotheses and the
    rows' posterior ``weights``: the one computation behind :func:`score` and
    :func:`elot.judge`.

    ``prior``: the prior mass of each row (relative; default equal), so π is the prior
    probability that the statement holds, never a count of rows. Under the ``paper``
    conventions ``live``: the prior mass of a row still possible (default: all of it when
    the row's weight is above 0, else none); the rest counts as false in π.
    """
    posterior = min(1.0, max(0.0, dot(weights, truth)))
    prior = np.ones(len(truth)) if prior is None else prior
    # The total is summed the way the numerator is, so π is exactly 1 (or 0) when the
    # statement holds everywhere (nowhere), whatever the masses' rounding.
    total = fsum(prior)
    if conventions == "paper":
        live = prior * (weights > 0) if live is None else live
        pi = dot(live, truth) / total
    else:
        pi = dot(prior, truth) / total
    return Score(posterior, normalized_likelihood(posterior, pi), pi)
