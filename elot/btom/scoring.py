"""Scores of ELoT statements against BToM inferences (SPEC §4, "the observer's judgment").

A statement about the agent's *current* belief at time t is evaluated on each hypothesis's
(world, belief) at t; one about the *initial* belief on its (world, belief) at 0, still
weighted by the time-t posterior. With ``⟦φ⟧_i`` that truth value and ``p_i`` the posterior:

* ``P = Σ_i p_i ⟦φ⟧_i`` (posterior probability);
* ``π`` = the fraction of hypotheses where φ holds (its probability under the uniform prior);
  under the ``paper`` conventions (SPEC §7.1) hypotheses ruled out by time t count as false,
  so ``π`` = (live hypotheses where φ holds) / (all hypotheses);
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
from elot.errors import ElotError, ElotTypeError, Span
from elot.lang.semantics import CompiledFormula, Thresholds, compile_formula
from elot.btom.inference import Inference
from elot.settings import MODES, Mode
from elot.lang.printer import pretty
from elot.lang.syntax import Term
from elot.lang.typesystem import NUMERIC

__all__ = ["CONVENTIONS", "Conventions", "ConventionsError", "Score", "check_conventions",
           "compile_statement", "live_pairs", "normalized_likelihood", "score", "scores_of", "truth_table"]


@dataclass(frozen=True)
class Score:
    """A statement's posterior probability P, normalized likelihood L and prior fraction π."""

    posterior: float
    normalized_likelihood: float
    prior_fraction: float


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
    (default: those the inference was run with, :attr:`Inference.conventions`)."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {MODES}")
    conventions = check_conventions(inference.conventions if conventions is None else conventions)
    compiled = compile_statement(inference, formula, thresholds=thresholds, bind_free=bind_free)
    truth = truth_table(inference, compiled, t if mode == "current" else 0)
    weights = inference.pair_posterior(t).ravel()
    counts = np.full(len(truth), float(inference.space.n_goals))  # a pair stands for one hypothesis per goal
    return scores_of(truth, weights, conventions, counts=counts,
                     live=live_pairs(inference, t) if conventions == "paper" else None)


def scores_of(truth: np.ndarray, weights: np.ndarray, conventions: Conventions = "elot", *,
              counts: np.ndarray | None = None, live: np.ndarray | None = None) -> Score:
    """P, L and π of a statement from its truth value in each row of hypotheses (one
    hypothesis, or a (true state, initial belief) pair) and the rows' posterior
    ``weights``: the one computation behind :func:`score` and :func:`elot.judge`.

    ``counts``: how many hypotheses each row stands for (default one). Under the ``paper``
    conventions ``live``: how many of those are still possible (default: all of a row's
    when its weight is above 0, else none); the others count as false in π.
    """
    posterior = float(min(1.0, max(0.0, weights @ truth)))
    counts = np.ones(len(truth)) if counts is None else counts
    if conventions == "paper":
        live = counts * (weights > 0) if live is None else live
        prior = float(live @ truth / counts.sum())
    else:
        prior = float(counts @ truth / counts.sum())
    return Score(posterior, normalized_likelihood(posterior, prior), prior)


def live_pairs(inference: Inference, t: int) -> np.ndarray:
    """How many hypotheses of each (true state, initial belief) pair are still possible at
    time t (log weight above −∞), shape ``(n_s * n_b,)``."""
    space = inference.space
    live = np.isfinite(inference.log_weights[t]).reshape(space.n_goals, space.n_states, space.n_beliefs)
    return live.sum(axis=0).ravel().astype(float)
