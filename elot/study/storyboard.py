"""Storyboards (the paper's Figure 4) of a scenario: the model's L for each statement at
the judgment points under one or more models, with human ratings beside them when
given. The numbers are computed here; :mod:`elot.draw.storyboard` draws them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from elot.draw.storyboard import StoryStatement, storyboard_figure
from elot.errors import ElotError


@dataclass(frozen=True)
class Candidate:
    """A statement to score: its text (English or ELoT) and mode; ``given`` when the user
    gave it (an error in it is then bad input), else it is the scenario's own."""

    text: str
    mode: str = "current"
    given: bool = True


def judgment_points(scenario) -> tuple[int, ...]:
    """The points a storyboard shows: the scenario's judgment points, else its end."""
    return tuple(scenario.judgments) or (scenario.T,)


def score_candidates(scenario, candidates: Sequence[Candidate], models: Sequence[str], *, beta: float, k: int = 3,
                     conventions: str = "elot", thresholds=None, bind_free: bool = False,
                     points: Sequence[int] | None = None) -> list[StoryStatement]:
    """Each candidate's L at ``points`` (default :func:`judgment_points`) under each model.
    A candidate that cannot be translated, typechecked or evaluated keeps its error as
    its ``note`` (and its ``error``), with no values."""
    from elot.btom.inference import InferenceConfig, infer
    from elot.btom.scoring import compile_statement, score
    from elot.translate import resolve_statement

    points = tuple(points if points is not None else judgment_points(scenario))
    out: list[StoryStatement] = []
    formulas: list[tuple[str, str] | None] = []
    for c in candidates:
        st = StoryStatement(c.text, c.mode)
        try:
            formula, mode, _ = resolve_statement(c.text, mode=c.mode, scenario=scenario)
            formulas.append((formula, mode))
            st.mode = mode
            st.formula = formula
        except ElotError as error:
            formulas.append(None)
            st.note, st.error = f"not scored: {error.message}", error
        out.append(st)
    for model in models:
        inference = infer(scenario, InferenceConfig(variant=model, beta=beta, k=k, conventions=conventions))
        for st, formula in zip(out, formulas):
            if formula is None or getattr(st, "error", None) is not None:
                continue
            try:
                compiled = compile_statement(inference, formula[0], thresholds=thresholds, bind_free=bind_free)
                st.model[model] = [score(inference, compiled, t, formula[1], conventions=conventions)
                                   .normalized_likelihood for t in points]
            except ElotError as error:
                st.model.clear()
                st.note, st.error = f"not scored: {error.kind}: {error.message}", error
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
               points: Sequence[int] | None = None, beta: float | None = None, name: str | None = None):
    """The storyboard figure of ``scenario`` with scored ``statements``."""
    points = tuple(points if points is not None else judgment_points(scenario))
    what = "L at the judgment points" + (" and human ratings" if any(s.human for s in statements) else "")
    settings = ", ".join(models) + (f"; β = {beta:.3g}" if beta is not None else "")
    return storyboard_figure(scenario.states(), points, statements, models,
                             title=f"{name or scenario.name}: {what} ({settings})")
