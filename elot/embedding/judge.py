"""Judging a statement against the observer's hypotheses (SPEC §4, "the observer's judgment").

With ``⟦φ⟧_n`` the statement's truth in hypothesis n (its world, its agents' beliefs) and
``w_n`` its posterior weight:

* ``P = Σ_n w_n ⟦φ⟧_n``;
* ``π`` = the prior probability that φ holds: the prior-weighted fraction of hypotheses
  where it holds, each row weighted by its ``prior`` mass (default: the
  uniform prior over distinct hypotheses, identical rows sharing one's mass, so splitting
  a hypothesis into copies changes neither P nor π). Under ``paper`` (SPEC §7.1) a
  hypothesis ruled out (weight 0, or ``live`` = 0) counts as false;
* ``L = P(1−π) / (P(1−π) + (1−P)π)``, or π when π is 0 or 1.

The statement is compiled once (typechecked, lowered, cached) and evaluated over all N
hypotheses in one vectorized call of :meth:`~elot.lang.semantics.CompiledFormula.truth`;
the scores are :mod:`elot.judging`'s, the same code every command scores with.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, NamedTuple

from elot import judging
from elot.settings import check_conventions
from elot.errors import ElotError, EvaluationError, TranslationError
from elot.judging import Score, Scored, truth
from elot.lang.semantics import CompiledFormula, compile_formula
from elot.lang.thresholds import Thresholds
from elot.embedding.model import Hypotheses, BeliefModelError, check_belief_model, hypotheses_of, model_name
from elot.lang.printer import pretty
from elot.lang.signature import Signature
from elot.lang.syntax import Term
from elot.lang.typesystem import NUMERIC
from elot.settings import CURRENT, MODES


@dataclass(frozen=True)
class Judgment(Scored):
    """A statement's :class:`~elot.judging.Score` (posterior probability ``P``, normalized
    likelihood ``L``, prior probability ``π``, and L's standard error when the hypotheses
    are estimates), with the statement, the formula that was judged (the translation, for
    English), the time and the mode."""

    statement: str
    formula: str
    score: Score
    t: int | None = None
    mode: str = CURRENT

    def __str__(self) -> str:
        return f"P={self.posterior:.3f} L={self.normalized_likelihood:.3f} π={self.prior_fraction:.3f}"


def judge(
    statement: str | Term,
    hypotheses: Any,
    *,
    signature: Signature | None = None,
    t: int | None = None,
    mode: str = CURRENT,
    thresholds: Thresholds | None = None,
    conventions: str = "elot",
    bind_free: bool = False,
) -> Judgment:
    """Score a statement (an ELoT formula, or English when a translator understands it)
    against hypotheses about an agent.

    ``hypotheses`` is a :class:`~elot.embedding.Hypotheses`, a belief model
    (:class:`~elot.embedding.BeliefModel`: then ``t`` picks the time, default its last)
    or an iterable of ``(world, belief, weight)`` triples (then give ``signature``).
    ``mode="initial"`` judges a statement about the initial belief (the model's
    ``initial_hypotheses(t)``). ``conventions`` is ``"elot"`` or ``"paper"`` (how π counts
    ruled-out hypotheses, as in :func:`elot.domains.doors_keys_gems.scoring.score`).
    """
    check_conventions(conventions)
    _check_mode(mode)
    if _is_model(hypotheses):
        check_belief_model(hypotheses)
    if isinstance(hypotheses, judging.Hypotheses) or _is_model(hypotheses):
        if signature is not None and signature != hypotheses.signature:
            raise BeliefModelError(f"the {'hypotheses' if isinstance(hypotheses, judging.Hypotheses) else 'model'} "
                             "use another signature", hint="leave signature= out: they carry theirs")
        signature = hypotheses.signature
    elif signature is None:
        raise BeliefModelError("give signature= to judge (world, belief, weight) triples",
                         hint="e.g. judge(statement, triples, signature=declare(...))")
    # English is translated first: a sentence about the past is about the initial belief.
    program = _compile(statement, signature, thresholds, bind_free, mode)
    rows, when = _rows(hypotheses, signature, t, program.mode)
    return _judgment(statement, program, rows, conventions, when)


def judge_series(
    statement: str | Term,
    model: Any,
    *,
    times: Iterable[int] | None = None,
    mode: str = CURRENT,
    thresholds: Thresholds | None = None,
    conventions: str = "elot",
    bind_free: bool = False,
) -> list[Judgment]:
    """:func:`judge` at every time of a belief model (or at ``times``): a time series of
    scores, the statement compiled once."""
    check_conventions(conventions)
    _check_mode(mode)
    check_belief_model(model)
    program = _compile(statement, model.signature, thresholds, bind_free, mode)
    out = []
    for t in (model.times if times is None else times):
        rows = hypotheses_of(model, t, initial=program.mode == "initial")
        out.append(_judgment(statement, program, rows, conventions, t))
    return out


# -- helpers ----------------------------------------------------------------------------------


def _is_model(obj: Any) -> bool:
    """Whether ``obj`` means to be a belief model (:func:`check_belief_model` says if it is one)."""
    return not isinstance(obj, judging.Hypotheses) and callable(getattr(obj, "hypotheses", None))


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise EvaluationError(f"unknown mode {mode!r}", hint="use current or initial")


def _rows(source: Any, signature: Signature, t: int | None, mode: str) -> tuple[judging.Hypotheses, int | None]:
    if isinstance(source, judging.Hypotheses):
        return source, t
    if _is_model(source):
        times = list(source.times)
        if not times:
            raise BeliefModelError(f"the model {model_name(source)} has no times")
        when = times[-1] if t is None else t
        return hypotheses_of(source, when, initial=mode == "initial"), when
    if isinstance(source, (str, bytes)) or not isinstance(source, Iterable):
        raise BeliefModelError(f"cannot judge against a {type(source).__name__}",
                         hint="give Hypotheses, a belief model, or (world, belief, weight) triples")
    return Hypotheses.of(source, signature), t


class Compiled(NamedTuple):
    """A statement ready to judge: its canonical formula, the mode it is judged in, the
    compiled program and the text it was compiled from (for error carets)."""

    formula: str
    mode: str
    compiled: CompiledFormula
    source: str | None


def _compile(statement, signature: Signature, thresholds, bind_free: bool, mode: str) -> Compiled:
    """Translate (English: its tense may make it about the initial belief) and compile."""
    if isinstance(statement, str):
        from elot.translate import resolve_statement

        try:
            formula, mode, _ = resolve_statement(statement, mode=mode, signature=signature)
        except TranslationError as error:
            raise translation_note(error, signature)
    else:
        formula = statement
    try:
        compiled = compile_formula(formula, signature, thresholds or Thresholds(), bind_free)
    except ElotError as error:
        raise error.located(path="<formula>")
    if compiled.type == NUMERIC:
        raise EvaluationError(
            f"{pretty(compiled.term)} is a number, not a statement",
            hint="compare it with something, e.g. >=(prob_of(player, φ), 0.5)",
        ).located(source=formula if isinstance(formula, str) else None, path="<formula>")
    return Compiled(pretty(compiled.term), mode, compiled, formula if isinstance(formula, str) else None)


def translation_note(error: TranslationError, signature: Signature, language_model=None) -> TranslationError:
    """Say why the offline translator fails on a domain without its vocabulary (when no
    ``language_model`` was given to translate with)."""
    if not signature.objects_of("box") and not language_model:
        error.notes += ("this domain has no boxes, so the offline translator reads only what its signature "
                        "names: its objects and predicates, the words it gives them (Signature.with_words) and "
                        "what the agent wants or likes; write the statement in ELoT, or set ELOT_MODEL to a "
                        "local language model (docs/translation.md)",)
    return error


def _judgment(statement, program: "Compiled", rows: judging.Hypotheses, conventions: str,
              t: int | None) -> Judgment:
    got = judging.score_truth(truth(program.compiled, rows, program.source), rows, conventions)
    text = statement if isinstance(statement, str) else program.formula
    return Judgment(text, program.formula, got, t, program.mode)


__all__ = ["Judgment", "judge", "judge_series", "truth"]
