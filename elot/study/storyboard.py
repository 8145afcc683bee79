"""Storyboards (the paper's Figure 4) of a scenario: the model's L for each statement at
the judgment points under one or more models, with human ratings beside them when
given. The numbers are computed here; :mod:`elot.draw.storyboard` draws them."""

from __future__ import annotations

from typing import Sequence

from elot.draw.storyboard import StoryStatement, storyboard_figure
from elot.judging import Statement, compile_statements, resolve_statements, score_statements
from elot.settings import DEFAULT_K


#: A statement to score (English or ELoT, with its mode; ``given=False`` for a scenario's
#: own, whose errors are not bad input): the one statement record of :mod:`elot.judging`.
Candidate = Statement


def judgment_points(scenario) -> tuple[int, ...]:
    """The points a storyboard shows: the scenario's judgment points, else its end."""
    return tuple(scenario.judgments) or (scenario.T,)


def score_candidates(scenario, candidates: Sequence[Statement], models: Sequence[str], *, beta: float,
                     k: int = DEFAULT_K, conventions: str = "elot", thresholds=None, bind_free: bool = False,
                     points: Sequence[int] | None = None) -> list[StoryStatement]:
    """Each candidate's L at ``points`` (default :func:`judgment_points`) under each model,
    through the score loop every command runs (:func:`elot.judging.score_statements`).
    A candidate that cannot be translated, typechecked or evaluated keeps its error as
    its ``note`` (and its ``error``), with no values."""
    from elot.btom.inference import InferenceConfig, infer
    from elot.translate import resolve_statement

    points = tuple(points if points is not None else judgment_points(scenario))
    statements = resolve_statements(candidates, lambda text, mode: resolve_statement(text, mode=mode,
                                                                                      scenario=scenario)[:2])
    out = [StoryStatement(st.text, st.mode, formula=st.formula, error=st.error,
                          note="" if st.error is None else f"not scored: {st.error.message}")
           for st in statements]
    config = InferenceConfig(beta=beta, k=k, conventions=conventions)
    for model in models:
        inference = infer(scenario, config.replace(variant=model))
        compiled = compile_statements(statements, inference.signature, thresholds=thresholds, bind_free=bind_free)
        compiled, scores = score_statements(inference, compiled, points, conventions=conventions)
        for n, (st, board) in enumerate(zip(compiled, out)):
            if statements[n].error is not None:
                continue
            if st.error is not None:
                statements[n] = st
                board.model.clear()
                board.note, board.error = f"not scored: {st.error.kind}: {st.error.message}", st.error
            else:
                board.model[model] = [got[n].normalized_likelihood for got in scores]
    return out


def attach_ratings(statements: Sequence[StoryStatement], ratings, scenario_name: str, points: Sequence[int]) -> int:
    """Put each statement's human mean ± s.e. at each point from ``ratings`` (keys are
    (scenario, mode, t, formula)); returns how many (statement, point) pairs were rated."""
    index = {(k.scenario, k.mode, k.t, k.formula): n for n, k in enumerate(ratings.keys)}
    found = 0
    for st in statements:
        formula = getattr(st, "formula", None)
        if formula is None:
            continue
        values = []
        for t in points:
            n = index.get((scenario_name, st.mode, t, formula))
            if n is None:
                values.append(None)
            else:
                se = float(ratings.se[n]) if ratings.se is not None else 0.0
                values.append((float(ratings.rating[n]), se))
                found += 1
        st.human = values
    return found


def storyboard(scenario, statements: Sequence[StoryStatement], models: Sequence[str], *,
               points: Sequence[int] | None = None, beta: float | None = None, name: str | None = None,
               model_labels: dict[str, str] | None = None):
    """The storyboard figure of ``scenario`` with scored ``statements``: ``beta`` is the
    one β of every model, ``model_labels`` names each model with its own."""
    points = tuple(points if points is not None else judgment_points(scenario))
    what = "L at the judgment points" + (" and human ratings" if any(s.human for s in statements) else "")
    shown = [(model_labels or {}).get(m, m) for m in models]
    settings = ", ".join(shown) + (f"; β = {beta:.3g}" if beta is not None else "")
    return storyboard_figure(scenario.states(), points, statements, models, model_labels=model_labels,
                             title=f"{name or scenario.name}: {what} — {settings}")
