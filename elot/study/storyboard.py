"""Storyboards (the paper's Figure 4) of a scenario: the model's L for each statement at
the judgment points under one or more models, with human ratings beside them when
given. The numbers are computed here; :mod:`elot.draw.storyboard` draws them."""

from __future__ import annotations

from typing import Sequence

from elot.draw.storyboard import StoryStatement, storyboard_figure
from elot.judging import score_statements
from elot.statements import Statement, compile_statements, resolve_statements
from elot.study.params import StudyError


#: A statement to score (English or ELoT, with its mode; ``given=False`` for a scenario's
#: own, whose errors are not bad input): the one statement record of :mod:`elot.judging`.
Candidate = Statement


def judgment_points(episode) -> tuple[int, ...]:
    """The points a storyboard shows: the scenario's judgment points, else its end."""
    return episode.judged


def require_actions(name: str, episode) -> None:
    """Refuse a scenario without actions: nothing to judge, every statement would score
    its prior (what design and storyboard show would say nothing)."""
    if episode.horizon == 0:
        raise StudyError(f"{name} has no actions: there is nothing to judge, and every statement would "
                         "score its prior", path=getattr(episode.detail, "path", None),
                         hint="add the agent's actions (elot plan simulates them) and judgment points")


def score_candidates(ref, candidates: Sequence[Statement], models: Sequence[str], *, beta: float | None,
                     params: dict | None = None, thresholds=None, bind_free: bool = False,
                     points: Sequence[int] | None = None) -> list[StoryStatement]:
    """Each candidate's L at ``points`` (default :func:`judgment_points`) under each of the
    scenario's domain's ``models`` (at ``beta``, None: each model's own; with the models'
    ``params``), through the score loop every command runs
    (:func:`elot.judging.score_statements`). A candidate that cannot be translated,
    typechecked or evaluated keeps its error as its ``note`` (and its ``error``), with no
    values. ``ref`` is a :class:`~elot.study.references.ScenarioRef`."""
    from elot.study.references import resolve

    front, episode = ref.front, ref.load()
    points = tuple(points if points is not None else judgment_points(episode))
    statements = resolve_statements(candidates, lambda text, mode: resolve(ref, text, mode))
    out = [StoryStatement(st.text, st.mode, formula=st.formula, error=st.error,
                          note="" if st.error is None else f"not scored: {st.error.message}")
           for st in statements]
    front.check_taken(models, params or {})
    for model in models:
        source = front.run(episode, front.settings(model, beta, **front.model_params(model, params or {})))
        compiled = source.admit(compile_statements(statements, source.signature, thresholds=thresholds,
                                                   bind_free=bind_free))
        compiled, scores = score_statements(source, compiled, points)
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


def attach_table(statements: Sequence[StoryStatement], table: Sequence[dict], scenario_name: str,
                 points: Sequence[int], *, taken: Sequence[str] = ()) -> dict[str, int]:
    """Put the L of each setting of a study table (``elot batch``'s or ``elot baseline``'s
    rows) beside each statement as one more series, matched as human ratings are (by
    scenario, mode, t and formula); a row without an L is left out (None), never 0.
    Returns each series added (named by its model, with its β where the table holds the
    model at several, and made distinct from ``taken``) and how many values it got."""
    from elot.study.tables import settings_of, setting_text, value_of

    rows = [r for r in table if r["scenario"] == scenario_name]
    settings = list(dict.fromkeys(settings_of(r) for r in rows))
    several = {m for m in (s[0] for s in settings) if sum(s[0] == m for s in settings) > 1}
    wanted = {(st.mode, t, st.formula) for st in statements if st.formula for t in points}
    added: dict[str, int] = {}
    for setting in settings:
        name = setting_text(setting) if setting[0] in several else setting[0]
        while name in taken or name in added:
            name += " (table)"
        values: dict[tuple, float] = {}
        for r in rows:
            key = (r["mode"], int(r["t"]), r["formula"])
            if settings_of(r) == setting and key in wanted and value_of(r) is not None:
                values[key] = float(r["L"])
        for st in statements:
            if st.formula:
                st.model[name] = [values.get((st.mode, t, st.formula)) for t in points]
        added[name] = len(values)
    return added


def storyboard(ref, statements: Sequence[StoryStatement], models: Sequence[str], *,
               points: Sequence[int] | None = None, beta: float | None = None, name: str | None = None,
               model_labels: dict[str, str] | None = None, tables: Sequence[str] = ()):
    """The storyboard figure of a scenario (``ref``) with scored ``statements``, its frames
    drawn by its domain (:meth:`elot.domains.front.Front.frames`): ``beta`` is the one β
    of every model, ``model_labels`` names each model with its own; ``tables`` are the
    series read from a study table (:func:`attach_table`), drawn in their own style after
    the models."""
    episode = ref.load()
    maps = ref.front.frames(episode)
    points = tuple(points if points is not None else judgment_points(episode))
    what = "L at the judgment points" + (" and human ratings" if any(s.human for s in statements) else "")
    labels = model_labels or {}
    shown = [labels.get(m, m) for m in models if m not in tables]
    settings = (", ".join(shown) + (f"; β = {beta:.3g}" if beta is not None else "")
                + (f"; beside them {', '.join(labels.get(m, m) for m in tables)}" if tables else ""))
    try:
        return storyboard_figure(maps, points, statements, models, model_labels=model_labels,
                                 tables=tables, title=f"{name or episode.name}: {what} — {settings}")
    finally:
        close = getattr(maps, "close", None)
        if close:
            close()
