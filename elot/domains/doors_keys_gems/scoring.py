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

from elot.domains import rows
from elot.settings import Conventions, check_conventions
from elot.judging import Score, check_mode, score_truth, holds
from elot.statements import compile_statement as _compile_statement
from elot.lang.semantics import CompiledFormula
from elot.lang.thresholds import Thresholds
from elot.engine.worlds.exact import Inference
from elot.settings import CURRENT, Mode
from elot.lang.syntax import Term

__all__ = ["Conventions", "Score", "check_conventions", "compile_statement", "score"]


def compile_statement(
    inference: Inference,
    formula: str | Term | CompiledFormula,
    *,
    thresholds: Thresholds | None = None,
    bind_free: bool = False,
) -> CompiledFormula:
    """Parse, typecheck (against the scenario's objects) and compile a statement
    (:func:`elot.statements.compile_statement` with the inference's signature).

    Raises :class:`~elot.errors.ElotSyntaxError` / :class:`~elot.errors.ElotTypeError`.
    """
    return _compile_statement(formula, rows.signature(inference), thresholds=thresholds, bind_free=bind_free)


def score(
    inference: Inference,
    formula: str | Term | CompiledFormula,
    t: int,
    mode: Mode = CURRENT,
    *,
    thresholds: Thresholds | None = None,
    bind_free: bool = False,
    conventions: Conventions | None = None,
) -> Score:
    """Score a statement about the agent's ``current`` (at t) or ``initial`` belief,
    judged after the first t actions, under the ``elot`` or ``paper`` conventions
    (default: those the inference was run with, :attr:`Inference.conventions`).

    ``inference`` is an exact :class:`Inference` or a particle one
    (:class:`elot.domains.doors_keys_gems.particles.ParticleInference`): both give the hypotheses to judge
    (:func:`elot.domains.rows.judged`, :class:`elot.judging.Hypotheses`). For particles, π is estimated
    from draws of the prior and L carries a standard error (:func:`likelihood_stderr`)."""
    check_mode(mode)
    conventions = check_conventions(inference.conventions if conventions is None else conventions)
    compiled = compile_statement(inference, formula, thresholds=thresholds, bind_free=bind_free)
    hypotheses = rows.judged(inference, t, t if mode == CURRENT else 0)
    return score_truth(holds(compiled, hypotheses), hypotheses, conventions)
