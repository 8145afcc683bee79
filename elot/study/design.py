"""Statement design: which candidate statements are worth asking about a scenario.

A statement is informative when the model's answer to it moves between judgment points
(participants' ratings of it then say something about the inference) and when the full
model and its ablations disagree on it (the ratings then tell the models apart). One that
is constant over the points, or cannot be typed or translated, is useless to ask.

For each (scenario, candidate): L at every judgment point under the full model, its
range (max − min), its change from the first point to the last (signed: the direction the
model's answer moves), each ablation's largest |L_full − L_ablation| over the points, and
a flag. ``informativeness`` = range + mean disagreement over the ablations (a scenario
judged at one point, as the food-truck experiment judged each at the end of its path, has
no range nor change, left empty: it is ranked by the disagreement alone and never flagged
constant); rows are
sorted by it, useless ones last. Two candidates that score the same at every point under
every model (with k = 3 a belief's probabilities are 0, ⅓, ⅔ and 1, so ``believes``,
``likely`` and ``certain`` often coincide) cannot be told apart by any rating: the more
informative is kept, the others flagged ``same L as #n`` (``same_as`` holds n;
:func:`indistinguishable_groups` lists the groups). A scenario without actions has
nothing to judge and is refused, as ``elot stimuli`` refuses it.

Scenarios are of any domain (:class:`~elot.study.references.ScenarioRef`): the same rows,
scored through the same loop (:func:`elot.study.storyboard.score_candidates`), the full
model being the domain's first and the ablations its other models.
"""

from __future__ import annotations

from typing import Sequence

from elot.errors import ElotSyntaxError, ElotTypeError, TranslationError
from elot.statements import Statement
from elot.output import csv_text
from elot.study.storyboard import judgment_points, require_actions, score_candidates

#: A range below this is "constant" (L is a ratio of sums of floating-point weights).
CONSTANT = 1e-6


def design_rows(scenarios: Sequence[tuple[str, object]], candidates: Sequence[Statement], *,
                ablations: Sequence[str] | None = None, beta: float | None = None, params: dict | None = None,
                thresholds=None, bind_free: bool = False) -> list[dict]:
    """One row per (scenario, candidate), sorted by informativeness (see the module's
    docstring); ``scenarios`` holds (name, :class:`~elot.study.references.ScenarioRef`)
    pairs, of one domain; ``ablations`` (default: the domain's other models) are compared
    with its full model (its first), each at ``beta`` (None: its own) with ``params``."""
    rows: list[dict] = []
    front = scenarios[0][1].front if scenarios else None
    full = front.model_name(None) if front is not None else "full"
    ablations = front.ablations if ablations is None else ablations
    models = [full, *[a for a in ablations if a != full]]
    for name, ref in scenarios:      # every scenario checked before any is scored
        require_actions(name, ref.load())
    for name, ref in scenarios:
        points = judgment_points(ref.load())
        scored = score_candidates(ref, candidates, models, beta=beta, params=params, thresholds=thresholds,
                                  bind_free=bind_free, points=points)
        for st in scored:
            full_values = st.model.get(full)
            row = {"rank": 0, "scenario": name, "statement": st.text, "mode": st.mode, "formula": st.formula or "",
                   "points": list(points), "values": full_values or [], "min": "", "max": "", "range": "", "change": "",
                   **{f"disagree_{a}": "" for a in models[1:]}, "informativeness": "", "flag": "", "same_as": ""}
            if st.error is not None or not full_values:
                row["flag"] = flag_of(st.error)
                row["note"] = getattr(st.error, "message", st.note)
                rows.append(row)
                continue
            low, high = min(full_values), max(full_values)
            row.update({"min": low, "max": high})
            if len(points) > 1:      # one point has no range nor change: "—", not 0
                row.update({"range": high - low, "change": full_values[-1] - full_values[0]})
            gaps = []
            for a in models[1:]:
                gap = max(abs(x - y) for x, y in zip(full_values, st.model[a]))
                row[f"disagree_{a}"] = gap
                gaps.append(gap)
            row["informativeness"] = (high - low) + (sum(gaps) / len(gaps) if gaps else 0.0)
            row["_scores"] = [st.model[m] for m in models]
            if high - low < CONSTANT and len(points) > 1:   # one point has no range to speak of
                row["flag"] = f"constant (L = {low:.2f})"
            rows.append(row)
    same = _indistinguishable(rows)
    rows.sort(key=lambda r: (bool(r["flag"]) or id(r) in same, -(r["informativeness"] or 0.0)))
    for n, row in enumerate(rows, 1):
        row["rank"] = n
        row.pop("_scores", None)
    for row in rows:
        if id(row) in same:
            row["same_as"] = same[id(row)]["rank"]
            row["flag"] = f"same L as #{row['same_as']}"
    return rows


def indistinguishable_groups(rows: Sequence[dict]) -> list[list[dict]]:
    """The groups of rows that no judgment point tells apart (the same L at every point
    under every model), each the kept row then those flagged ``same L as`` it, in rank
    order."""
    by_rank = {(row["scenario"], row["rank"]): row for row in rows}
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        if row.get("same_as") not in ("", None):
            kept = by_rank[(row["scenario"], row["same_as"])]
            groups.setdefault((kept["scenario"], kept["rank"]), [kept]).append(row)
    return [groups[key] for key in sorted(groups, key=lambda k: k[1])]


def _indistinguishable(rows: Sequence[dict]) -> dict[int, dict]:
    """Rows (by id) that score as another unflagged row of their scenario does at every
    point under every model (within :data:`CONSTANT`), each mapped to the most informative
    of its group, the one kept."""
    out: dict[int, dict] = {}
    kept: list[dict] = []
    for row in sorted((r for r in rows if not r["flag"] and "_scores" in r),
                      key=lambda r: -(r["informativeness"] or 0.0)):
        twin = next((k for k in kept if k["scenario"] == row["scenario"] and all(
            abs(a - b) < CONSTANT for x, y in zip(k["_scores"], row["_scores"]) for a, b in zip(x, y))), None)
        if twin is None:
            kept.append(row)
        else:
            out[id(row)] = twin
    return out


def flag_of(error) -> str:
    """Why a candidate is useless to ask: it does not parse or typecheck, the translator
    cannot read it, or it could not be scored otherwise."""
    if isinstance(error, (ElotTypeError, ElotSyntaxError)):
        return "ill-typed"
    return "not translated" if isinstance(error, TranslationError) else "not scored"


def design_csv(rows: Sequence[dict]) -> str:
    """The rows as CSV: L and the points as ``;``-separated lists."""
    columns = [c for c in rows[0] if c not in ("values", "note")] + ["L", "note"]
    table = []
    for row in rows:
        out = {**row, "points": ";".join(str(t) for t in row["points"]),
               "L": ";".join(f"{v:.4f}" for v in row["values"]), "note": row.get("note", "")}
        for key in ("min", "max", "range", "change", "informativeness",
                    *(c for c in row if c.startswith("disagree_"))):
            if isinstance(out[key], float):
                out[key] = f"{out[key]:.4f}"
        table.append({c: out.get(c, "") for c in columns})
    # csv_text: a statement's own line breaks (a bare \r too) are quoted
    return csv_text(table, columns)
